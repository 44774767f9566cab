/* json_writer: commas and colons where JSON wants them, exact numbers,
 * strings always valid and terminal-safe, errors kept. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/json_writer.h"
#include "tests/test_support.h"

struct capture {
    char *text;
    size_t size;
    FILE *out;
    struct json_writer writer;
};

static void capture_begin(struct capture *capture)
{
    capture->text = NULL;
    capture->out = open_memstream(&capture->text, &capture->size);
    assert_non_null(capture->out);
    json_writer_init(&capture->writer, capture->out);
}

/* Ends the capture; the caller frees the text. */
static char *capture_end(struct capture *capture)
{
    assert_int_equal(json_writer_finish(&capture->writer), 0);
    fclose(capture->out);
    return capture->text;
}

static void test_nesting_places_commas_and_colons(void **state)
{
    (void)state;
    struct capture capture;
    capture_begin(&capture);
    struct json_writer *writer = &capture.writer;
    json_writer_array_begin(writer);
    json_writer_object_begin(writer);
    json_writer_key(writer, "a");
    json_writer_int(writer, 1);
    json_writer_key(writer, "list");
    json_writer_array_begin(writer);
    json_writer_array_end(writer);
    json_writer_key(writer, "inner");
    json_writer_object_begin(writer);
    json_writer_key(writer, "t");
    json_writer_bool(writer, true);
    json_writer_key(writer, "n");
    json_writer_null(writer);
    json_writer_object_end(writer);
    json_writer_object_end(writer);
    json_writer_object_begin(writer);
    json_writer_object_end(writer);
    json_writer_string(writer, "x");
    json_writer_array_end(writer);
    char *text = capture_end(&capture);
    assert_string_equal(text, "[{\"a\":1,\"list\":[],\"inner\":{\"t\":true,\"n\":null}},{},\"x\"]");
    cJSON *parsed = cJSON_Parse(text);
    assert_non_null(parsed);
    cJSON_Delete(parsed);
    free(text);
}

static void test_numbers_are_exact(void **state)
{
    (void)state;
    struct capture capture;
    capture_begin(&capture);
    struct json_writer *writer = &capture.writer;
    json_writer_array_begin(writer);
    json_writer_int(writer, INT64_MIN);
    json_writer_int(writer, 9007199254740993);
    json_writer_unsigned(writer, UINT64_MAX);
    json_writer_double(writer, 0.1);
    json_writer_double(writer, NAN);
    json_writer_double(writer, -INFINITY);
    json_writer_array_end(writer);
    char *text = capture_end(&capture);
    assert_string_equal(text, "[-9223372036854775808,9007199254740993,18446744073709551615,0.1,"
                              "null,null]");
    free(text);
}

/* The unsafe set of model/format.h, as \u escapes; the rest as it is. */
static void test_strings_are_valid_and_terminal_safe(void **state)
{
    (void)state;
    struct capture capture;
    capture_begin(&capture);
    json_writer_string(&capture.writer, "q\" b\\ \x1b]0;x\x07 \xc2\x9b \x7f "
                                        "\xe2\x80\xae \xd8\x9c caf\xc3\xa9 \xff");
    char *text = capture_end(&capture);
    assert_string_equal(text, "\"q\\\" b\\\\ \\u001b]0;x\\u0007 \\u009b \\u007f \\u202e \\u061c "
                              "caf\xc3\xa9 \\ufffd\"");
    free(text);
}

/* A profile's text with a NUL in it: "\u0000", and the rest kept (16.4). */
static void test_strings_keep_what_follows_a_nul(void **state)
{
    (void)state;
    struct capture capture;
    capture_begin(&capture);
    json_writer_object_begin(&capture.writer);
    json_writer_member_bytes(&capture.writer, "id", text_make("c\0x", 3));
    json_writer_key(&capture.writer, "op");
    json_writer_bytes(&capture.writer, text_make("a\0\0", 3));
    json_writer_object_end(&capture.writer);
    char *text = capture_end(&capture);
    assert_string_equal(text, "{\"id\":\"c\\u0000x\",\"op\":\"a\\u0000\\u0000\"}");
    free(text);
}

static void test_write_errors_are_kept(void **state)
{
    (void)state;
    FILE *full = fopen("/dev/full", "w");
    if (!full)
        TEST_SKIP("no /dev/full");
    struct json_writer writer;
    json_writer_init(&writer, full);
    json_writer_array_begin(&writer);
    for (int i = 0; i < 10000; i++)
        json_writer_string(&writer, "a string long enough to fill a stdio buffer or two");
    json_writer_array_end(&writer);
    assert_int_equal(json_writer_finish(&writer), ENOSPC);
    fclose(full);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nesting_places_commas_and_colons),
        cmocka_unit_test(test_numbers_are_exact),
        cmocka_unit_test(test_strings_are_valid_and_terminal_safe),
        cmocka_unit_test(test_strings_keep_what_follows_a_nul),
        cmocka_unit_test(test_write_errors_are_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
