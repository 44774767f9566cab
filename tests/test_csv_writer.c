/* The CSV dialect byte for byte: quoting, the formula guard, numbers,
 * doubles, exact fixed-point times and write errors. Reading the output
 * back is tests/test_export.c's job. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/csv_writer.h"
#include "tests/test_support.h"

/* A writer on a memory stream; text() ends it and returns what it wrote. */
struct capture {
    char *bytes;
    size_t size;
    FILE *stream;
    struct csv_writer writer;
};

static void capture_open(struct capture *capture)
{
    capture->bytes = NULL;
    capture->size = 0;
    capture->stream = open_memstream(&capture->bytes, &capture->size);
    assert_non_null(capture->stream);
    csv_writer_init(&capture->writer, capture->stream);
}

static const char *capture_text(struct capture *capture)
{
    assert_int_equal(csv_writer_finish(&capture->writer), 0);
    assert_int_equal(fclose(capture->stream), 0);
    capture->stream = NULL;
    return capture->bytes;
}

static void capture_free(struct capture *capture)
{
    if (capture->stream)
        fclose(capture->stream);
    free(capture->bytes);
}

/* The bytes one text field turns into (no separator, no line end). */
static void assert_text_field(const char *text, const char *expected)
{
    struct capture capture;
    capture_open(&capture);
    csv_writer_text(&capture.writer, text);
    assert_string_equal(capture_text(&capture), expected);
    capture_free(&capture);
}

static void test_plain_text_is_written_as_is(void **state)
{
    (void)state;
    assert_text_field("gradients/conv2d/Conv2DBackpropFilter",
                      "gradients/conv2d/Conv2DBackpropFilter");
    assert_text_field("", "");
    assert_text_field("a b;c|d", "a b;c|d");
    assert_text_field("x=1", "x=1"); /* only a leading = is a formula */
}

static void test_special_characters_are_quoted(void **state)
{
    (void)state;
    assert_text_field("a,b", "\"a,b\"");
    assert_text_field("say \"hi\"", "\"say \"\"hi\"\"\"");
    assert_text_field("\"", "\"\"\"\"");
    assert_text_field("\"\"", "\"\"\"\"\"\"");
    assert_text_field("line\nbreak", "\"line\nbreak\"");
    assert_text_field("carriage\rreturn", "\"carriage\rreturn\"");
    assert_text_field("crlf\r\n", "\"crlf\r\n\"");
    assert_text_field(",", "\",\"");
    assert_text_field("[3,3,512,512]", "\"[3,3,512,512]\"");
}

static void test_formula_starts_get_an_apostrophe(void **state)
{
    (void)state;
    assert_text_field("=SUM(A1:A9)", "'=SUM(A1:A9)");
    assert_text_field("+1", "'+1");
    assert_text_field("-1", "'-1");
    assert_text_field("@cmd", "'@cmd");
    assert_text_field("\tTab", "'\tTab");
    /* CR both guards and quotes: the apostrophe goes inside the quotes. */
    assert_text_field("\rx", "\"'\rx\"");
    assert_text_field("=HYPERLINK(\"http://x\",\"y\")",
                      "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
    assert_text_field("-a,b", "\"'-a,b\"");
    /* Apostrophes already in front get one more, so reading back is exact. */
    assert_text_field("'=x", "''=x");
    assert_text_field("''-x", "'''-x");
    assert_text_field("'plain", "'plain");
    assert_text_field("'", "'");
    assert_true(csv_writer_needs_guard("=x"));
    assert_true(csv_writer_needs_guard("''@"));
    assert_false(csv_writer_needs_guard("'"));
    assert_false(csv_writer_needs_guard(""));
    assert_false(csv_writer_needs_guard("a=b"));
}

static void test_bytes_are_kept_as_the_profile_had_them(void **state)
{
    (void)state;
    assert_text_field("caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x98\x80",
                      "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x98\x80");
    assert_text_field("bad \xff\xfe utf-8", "bad \xff\xfe utf-8");
    assert_text_field("\x1b[31mred", "\x1b[31mred");
    assert_text_field("\xc3\xa9,\xc3\xa9", "\"\xc3\xa9,\xc3\xa9\"");
}

/* A profile's text goes out with its length: a NUL and what follows it
 * are written to a file as they are, and escaped ("\x00") for a
 * terminal (issue 16.4). */
static void test_text_with_a_nul_is_written_whole(void **state)
{
    (void)state;
    struct capture capture;
    capture_open(&capture);
    csv_writer_bytes(&capture.writer, text_make("a\0b,\0\"", 6));
    csv_writer_bytes(&capture.writer, text_make("=\0", 2));
    assert_int_equal(csv_writer_finish(&capture.writer), 0);
    fclose(capture.stream);
    capture.stream = NULL;
    const char expected[] = "\"a\0b,\0\"\"\",'=\0";
    assert_int_equal(capture.size, sizeof expected - 1);
    assert_memory_equal(capture.bytes, expected, sizeof expected - 1);
    capture_free(&capture);
    capture_open(&capture);
    csv_writer_escape_controls(&capture.writer, true);
    csv_writer_bytes(&capture.writer, text_make("A\0x", 3));
    assert_string_equal(capture_text(&capture), "A\\x00x");
    capture_free(&capture);
}

static void test_records_and_separators(void **state)
{
    (void)state;
    struct capture capture;
    capture_open(&capture);
    static const char *const header[] = {"a", "b,c", "d"};
    csv_writer_record(&capture.writer, header, 3);
    csv_writer_int(&capture.writer, 1);
    csv_writer_empty(&capture.writer);
    csv_writer_text(&capture.writer, "");
    csv_writer_end_record(&capture.writer);
    csv_writer_empty(&capture.writer);
    csv_writer_end_record(&capture.writer);
    csv_writer_bool(&capture.writer, true);
    csv_writer_bool(&capture.writer, false);
    csv_writer_end_record(&capture.writer);
    assert_int_equal(capture.writer.records, 4);
    assert_string_equal(capture_text(&capture), "a,\"b,c\",d\n1,,\n\ntrue,false\n");
    capture_free(&capture);
}

static void test_integers_are_exact(void **state)
{
    (void)state;
    struct capture capture;
    capture_open(&capture);
    csv_writer_int(&capture.writer, 0);
    csv_writer_int(&capture.writer, -1);
    csv_writer_int(&capture.writer, INT64_MAX);
    csv_writer_int(&capture.writer, INT64_MIN);
    csv_writer_unsigned(&capture.writer, UINT64_MAX);
    csv_writer_unsigned(&capture.writer, 0);
    csv_writer_int(&capture.writer, 9007199254740993); /* 2^53 + 1: no double */
    csv_writer_end_record(&capture.writer);
    assert_string_equal(capture_text(&capture),
                        "0,-1,9223372036854775807,-9223372036854775808,18446744073709551615,0,"
                        "9007199254740993\n");
    capture_free(&capture);
}

static void assert_double_field(double value, const char *expected)
{
    struct capture capture;
    capture_open(&capture);
    csv_writer_double(&capture.writer, value);
    const char *text = capture_text(&capture);
    assert_string_equal(text, expected);
    if (isfinite(value))
        assert_true(strtod(text, NULL) == value);
    capture_free(&capture);
}

static void test_doubles_are_shortest_round_trip(void **state)
{
    (void)state;
    assert_double_field(0.0, "0");
    assert_double_field(-0.0, "-0");
    assert_double_field(0.1, "0.1");
    assert_double_field(0.000401934, "0.000401934");
    assert_double_field(1.0 / 3.0, "0.3333333333333333");
    assert_double_field(2.0 / 3.0, "0.6666666666666666");
    assert_double_field(0.5, "0.5");
    assert_double_field(1e300, "1e+300");
    assert_double_field(DBL_MAX, "1.7976931348623157e+308");
    assert_double_field(5e-324, "4.94065645841247e-324");
    assert_double_field(-2.5, "-2.5");
    assert_double_field(NAN, "nan");
    assert_double_field(-NAN, "nan");
    assert_double_field(INFINITY, "inf");
    assert_double_field(-INFINITY, "-inf");
}

static void assert_fixed_point(int64_t value, unsigned decimals, const char *expected)
{
    struct capture capture;
    capture_open(&capture);
    csv_writer_fixed_point(&capture.writer, value, decimals);
    assert_string_equal(capture_text(&capture), expected);
    capture_free(&capture);
}

static void test_fixed_point_is_exact(void **state)
{
    (void)state;
    assert_fixed_point(1685890000, 9, "1.68589");
    assert_fixed_point(0, 9, "0");
    assert_fixed_point(1, 9, "0.000000001");
    assert_fixed_point(-1, 9, "-0.000000001");
    assert_fixed_point(1000000000, 9, "1");
    assert_fixed_point(-5000000000, 9, "-5");
    assert_fixed_point(123456789012, 9, "123.456789012");
    assert_fixed_point(100000000010, 9, "100.00000001");
    assert_fixed_point(INT64_MAX, 9, "9223372036.854775807");
    assert_fixed_point(INT64_MIN, 9, "-9223372036.854775808");
    assert_fixed_point(-5, 3, "-0.005");
    assert_fixed_point(7000, 3, "7");
    assert_fixed_point(42, 0, "42");
    assert_fixed_point(INT64_MIN, 18, "-9.223372036854775808");
}

/* The bytes one text field turns into for a terminal. */
static void assert_terminal_field(const char *text, const char *expected)
{
    struct capture capture;
    capture_open(&capture);
    csv_writer_escape_controls(&capture.writer, true);
    csv_writer_text(&capture.writer, text);
    assert_string_equal(capture_text(&capture), expected);
    capture_free(&capture);
}

/* For a terminal (issue 16.3): escaped as the viewer escapes, then
 * quoted and guarded as usual; numbers are unchanged. */
static void test_text_for_a_terminal_is_escaped(void **state)
{
    (void)state;
    assert_terminal_field("\x1b]0;PWNED\x07x", "\\x1b]0;PWNED\\x07x");
    assert_terminal_field("\x1b]52;c;aGk=\x1b\\", "\\x1b]52;c;aGk=\\x1b\\\\");
    assert_terminal_field("x\xc2\x9b" "31m", "x\\x9b31m");
    assert_terminal_field("op\xe2\x80\xaegpj.exe", "op\\u{202e}gpj.exe");
    assert_terminal_field("literal \\x1b", "literal \\\\x1b"); /* not an ESC */
    assert_terminal_field("bad\xff", "bad\xef\xbf\xbd");
    /* CR and LF become escapes, so they no longer need quotes ... */
    assert_terminal_field("a\nb", "a\\x0ab");
    /* ... commas and quotes still do, and the guard still applies. */
    assert_terminal_field("a,\"b\"\x1b", "\"a,\"\"b\"\"\\x1b\"");
    assert_terminal_field("=cmd\x1b", "'=cmd\\x1b");
    assert_terminal_field("\tx", "\\x09x"); /* a tab no longer starts it */
    /* Longer than the writer's stack buffer. */
    char long_text[3001], expected[12001];
    for (size_t i = 0; i < 3000; i++)
        long_text[i] = '\x1b';
    long_text[3000] = '\0';
    for (size_t i = 0; i < 3000; i++)
        memcpy(expected + 4 * i, "\\x1b", 4);
    expected[12000] = '\0';
    assert_terminal_field(long_text, expected);
    /* Off again: the bytes as they are. */
    struct capture capture;
    capture_open(&capture);
    csv_writer_escape_controls(&capture.writer, true);
    csv_writer_int(&capture.writer, -5);
    csv_writer_escape_controls(&capture.writer, false);
    csv_writer_text(&capture.writer, "\x1b\\");
    assert_string_equal(capture_text(&capture), "-5,\x1b\\");
    capture_free(&capture);
}

static void test_a_full_disk_is_reported(void **state)
{
    (void)state;
    FILE *full = fopen("/dev/full", "w");
    if (!full)
        TEST_SKIP("no /dev/full");
    struct csv_writer writer;
    csv_writer_init(&writer, full);
    /* More than a stdio buffer, so some writes fail before the flush. */
    for (int i = 0; i < 100000; i++) {
        csv_writer_text(&writer, "some op name");
        csv_writer_int(&writer, i);
        csv_writer_end_record(&writer);
    }
    assert_int_equal(writer.error, ENOSPC);
    assert_int_equal(csv_writer_finish(&writer), ENOSPC);
    fclose(full);

    /* Small enough to sit in the buffer: the flush in finish finds it. */
    full = fopen("/dev/full", "w");
    assert_non_null(full);
    csv_writer_init(&writer, full);
    csv_writer_text(&writer, "x");
    csv_writer_end_record(&writer);
    assert_int_equal(writer.error, 0);
    assert_int_equal(csv_writer_finish(&writer), ENOSPC);
    fclose(full);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_text_is_written_as_is),
        cmocka_unit_test(test_special_characters_are_quoted),
        cmocka_unit_test(test_formula_starts_get_an_apostrophe),
        cmocka_unit_test(test_bytes_are_kept_as_the_profile_had_them),
        cmocka_unit_test(test_text_with_a_nul_is_written_whole),
        cmocka_unit_test(test_records_and_separators),
        cmocka_unit_test(test_integers_are_exact),
        cmocka_unit_test(test_doubles_are_shortest_round_trip),
        cmocka_unit_test(test_fixed_point_is_exact),
        cmocka_unit_test(test_a_full_disk_is_reported),
        cmocka_unit_test(test_text_for_a_terminal_is_escaped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
