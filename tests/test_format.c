#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/format.h"

static const char *bytes(int64_t value)
{
    static char buffer[FORMAT_BYTES_SIZE];
    return format_bytes(value, buffer, sizeof buffer);
}

static void test_bytes_units(void **state)
{
    (void)state;
    assert_string_equal(bytes(0), "0 B");
    assert_string_equal(bytes(512), "512 B");
    assert_string_equal(bytes(1023), "1023 B");
    assert_string_equal(bytes(1024), "1.00 KiB");
    assert_string_equal(bytes(1536), "1.50 KiB");
    assert_string_equal(bytes(65536), "64.00 KiB");
    assert_string_equal(bytes(14763950080), "13.75 GiB");
    assert_string_equal(bytes(33014413312), "30.75 GiB");
    assert_string_equal(bytes(-1536), "-1.50 KiB");
    assert_string_equal(bytes(INT64_MAX), "8.00 EiB");
    assert_string_equal(bytes(INT64_MIN), "-8.00 EiB");
}

/* The sizes as format_bytes printed them with printf alone, before its
 * integer path: the reference the fast path must equal. */
static void reference_bytes(int64_t value, char *buffer, size_t size)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    uint64_t magnitude = value < 0 ? 0 - (uint64_t)value : (uint64_t)value;
    const char *sign = value < 0 ? "-" : "";
    if (magnitude < 1024) {
        snprintf(buffer, size, "%s%llu B", sign, (unsigned long long)magnitude);
        return;
    }
    double scaled = (double)magnitude;
    size_t unit = 0;
    while (scaled >= 1024.0 && unit + 1 < 7) {
        scaled /= 1024.0;
        unit++;
    }
    if (scaled >= 1023.995 && unit + 1 < 7) {
        scaled /= 1024.0;
        unit++;
    }
    snprintf(buffer, size, "%s%.2f %s", sign, scaled, units[unit]);
}

static void assert_bytes_as_printf(int64_t value)
{
    char expected[64];
    reference_bytes(value, expected, sizeof expected);
    assert_string_equal(bytes(value), expected);
}

static void test_bytes_as_printf_rounds(void **state)
{
    (void)state;
    /* Exact ties of the hundredths (x.xx5 exactly in binary) round to
     * even as printf does: m * 100 = 1024 k + 512 in KiB, and the like
     * in MiB and GiB. */
    for (uint64_t k = 12; k < 200000; k += 25)
        assert_bytes_as_printf((int64_t)((256 * k + 128) / 25));
    for (int64_t unit = 1024; unit <= (int64_t)1 << 40; unit *= 1024)
        for (int64_t hundredths = 0; hundredths < 102400; hundredths += 7) {
            int64_t tie = (2 * hundredths + 1) * unit / 200;
            assert_bytes_as_printf(tie);
            assert_bytes_as_printf(tie + 1);
            assert_bytes_as_printf(tie - 1);
            assert_bytes_as_printf(-tie);
        }
    /* Around each carry into the next unit, and past 2^53 (printf's). */
    for (int64_t unit = 1024; unit <= (int64_t)1 << 50; unit *= 1024)
        for (int64_t d = -3000; d <= 3000; d++)
            assert_bytes_as_printf(unit * 1024 + d);
    uint64_t state64 = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < 200000; i++) {
        state64 = state64 * 6364136223846793005u + 1442695040888963407u;
        int bits = (int)(state64 >> 58); /* 0..63 */
        int64_t value = (int64_t)((state64 >> 1) >> (63 - bits));
        assert_bytes_as_printf(i % 2 ? value : -value);
    }
    assert_bytes_as_printf(INT64_MAX);
    assert_bytes_as_printf(INT64_MIN);
    assert_bytes_as_printf(((int64_t)1 << 53) - 1);
    assert_bytes_as_printf((int64_t)1 << 53);
}

static void test_bytes_never_prints_1024_of_a_unit(void **state)
{
    (void)state;
    assert_string_equal(bytes(1048575), "1.00 MiB");
    assert_string_equal(bytes(1024 * 1024 - 10), "1023.99 KiB");
}

static void test_milliseconds_and_percent(void **state)
{
    (void)state;
    char buffer[32];
    assert_string_equal(format_milliseconds(1685890000, buffer, sizeof buffer), "1.686 ms");
    assert_string_equal(format_milliseconds(0, buffer, sizeof buffer), "0.000 ms");
    assert_string_equal(format_milliseconds(-2000000000, buffer, sizeof buffer), "-2.000 ms");
    assert_string_equal(format_percent(0.1234, buffer, sizeof buffer), "12.34 %");
    assert_string_equal(format_percent(NAN, buffer, sizeof buffer), "nan");
    /* A capacity share is whole percent, rounded down; unknown is "". */
    assert_string_equal(format_capacity_share(599, 1000, buffer, sizeof buffer), "59%");
    assert_string_equal(format_capacity_share(1500, 1000, buffer, sizeof buffer), "150%");
    assert_string_equal(format_capacity_share(5, 0, buffer, sizeof buffer), "");
    assert_string_equal(format_capacity_share(-1, 10, buffer, sizeof buffer), "");
}

static void test_double_shortest_round_trip(void **state)
{
    (void)state;
    char buffer[32];
    assert_string_equal(format_double(0.1, buffer, sizeof buffer), "0.1");
    assert_string_equal(format_double(0.000401934, buffer, sizeof buffer), "0.000401934");
    assert_string_equal(format_double(1.0 / 3.0, buffer, sizeof buffer), "0.3333333333333333");
    assert_string_equal(format_double(-2.5e300, buffer, sizeof buffer), "-2.5e+300");
    const double values[] = {0.125, 1e-310, 0.30000000000000004, 12345.678};
    for (size_t i = 0; i < 4; i++)
        assert_true(strtod(format_double(values[i], buffer, sizeof buffer), NULL) == values[i]);
}

static const char *safe(const char *text, bool ascii)
{
    static char buffer[256];
    format_safe_text(text, ascii, buffer, sizeof buffer);
    return buffer;
}

static void test_safe_text_escapes_controls(void **state)
{
    (void)state;
    assert_string_equal(safe("plain/op_name:0", false), "plain/op_name:0");
    assert_string_equal(safe("a\x1b[2Jb", false), "a\\x1b[2Jb");
    assert_string_equal(safe("tab\there\nline\r", false), "tab\\x09here\\x0aline\\x0d");
    assert_string_equal(safe("del\x7f", false), "del\\x7f");
    /* C1 controls (U+0080..U+009F), e.g. the 8-bit CSI U+009B. */
    assert_string_equal(safe("x\xc2\x9b" "31m", false), "x\\x9b31m");
    /* Bidirectional overrides and isolates, which reorder what follows. */
    assert_string_equal(safe("op\xe2\x80\xaegpj.exe", false), "op\\u{202e}gpj.exe");
    assert_string_equal(safe("\xe2\x81\xa6x\xe2\x81\xa9", false), "\\u{2066}x\\u{2069}");
    assert_string_equal(safe("\xe2\x80\x8f", false), "\\u{200f}");
}

static void test_safe_text_utf8(void **state)
{
    (void)state;
    assert_string_equal(safe("caf\xc3\xa9 \xe2\x96\x88", false), "caf\xc3\xa9 \xe2\x96\x88");
    assert_string_equal(safe("caf\xc3\xa9", true), "caf\\u{e9}");
    /* Invalid: a lone continuation byte, an overlong '/', a surrogate, a cut sequence. */
    assert_string_equal(safe("a\x80z", false), "a\xef\xbf\xbdz");
    assert_string_equal(safe("\xc0\xaf", false), "\xef\xbf\xbd\xef\xbf\xbd");
    assert_string_equal(safe("\xed\xa0\x80", false), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    assert_string_equal(safe("end\xe2\x96", true), "end??");
}

static void test_safe_text_cuts_on_character_boundary(void **state)
{
    (void)state;
    char buffer[6];
    size_t used = format_safe_text("ab\xe2\x96\x88\xe2\x96\x88", false, buffer, sizeof buffer);
    assert_int_equal(used, 5);
    assert_string_equal(buffer, "ab\xe2\x96\x88");
    used = format_safe_text("\x1b\x1b", false, buffer, sizeof buffer);
    assert_string_equal(buffer, "\\x1b"); /* the second escape does not fit whole */
    assert_int_equal(used, 4);
    assert_int_equal(format_safe_text("x", false, buffer, 0), 0);
}

/* A backslash in a name is doubled, so that the four characters \x1b
 * read differently from ESC (issue 16.3). Messages quoting a file are
 * raw and escaped once like any text (issue 16), so there is no mode
 * that keeps backslashes. */
static void test_safe_text_escapes_backslash(void **state)
{
    (void)state;
    assert_string_equal(safe("a\\x1b", false), "a\\\\x1b");
    assert_string_equal(safe("a\x1b", false), "a\\x1b");
    assert_string_equal(safe("C:\\dir\\", true), "C:\\\\dir\\\\");
    char buffer[64];
    format_safe_bytes(text_of("key \\x1b\x1b \xe2\x80\xae"), 0, buffer, sizeof buffer);
    assert_string_equal(buffer, "key \\\\x1b\\x1b \\u{202e}");
    format_safe_bytes(text_of("caf\xc3\xa9\\"), FORMAT_SAFE_ASCII, buffer, sizeof buffer);
    assert_string_equal(buffer, "caf\\u{e9}\\\\");
    /* A doubled backslash that does not fit whole is left out whole. */
    char small[4];
    assert_int_equal(format_safe_text("ab\\", false, small, sizeof small), 2);
    assert_string_equal(small, "ab");
}

/* A NUL inside a profile's string is a character like any control: shown
 * as "\x00", the text after it kept, so "A\0x" and "A\0y" read apart
 * (issue 16.4). A character cut short by the length is invalid. */
static void test_safe_bytes_keeps_what_follows_a_nul(void **state)
{
    (void)state;
    char buffer[64];
    assert_int_equal(format_safe_bytes(text_make("A\0x", 3), 0, buffer, sizeof buffer), 6);
    assert_string_equal(buffer, "A\\x00x");
    format_safe_bytes(text_make("A\0y", 3), FORMAT_SAFE_ASCII, buffer, sizeof buffer);
    assert_string_equal(buffer, "A\\x00y");
    format_safe_bytes(text_make("\0\0", 2), 0, buffer, sizeof buffer);
    assert_string_equal(buffer, "\\x00\\x00");
    /* Only `length` bytes are read: the last é is cut in half. */
    format_safe_bytes(text_make("\xc3\xa9\xc3\xa9", 3), 0, buffer, sizeof buffer);
    assert_string_equal(buffer, "\xc3\xa9\xef\xbf\xbd");
    format_safe_bytes(text_make("ignored", 0), 0, buffer, sizeof buffer);
    assert_string_equal(buffer, "");
    uint32_t code_point = 1;
    assert_int_equal(format_utf8_decode_bytes("\0", 1, &code_point), 1);
    assert_int_equal(code_point, 0);
    assert_int_equal(format_utf8_decode_bytes("\xe2\x96\x88", 2, &code_point), 0);
    assert_int_equal(format_utf8_decode_bytes("\xe2\x96\x88", 3, &code_point), 3);
    assert_int_equal(format_utf8_decode_bytes("x", 0, &code_point), 0);
}

/* The one definition of what must not reach a terminal raw. */
static void test_unsafe_code_points(void **state)
{
    (void)state;
    const uint32_t unsafe[] = {0x00, 0x1b, 0x1f, 0x7f, 0x80, 0x9b, 0x9f, 0x061c, 0x200e,
                               0x200f, 0x202a, 0x202e, 0x2066, 0x2069};
    const uint32_t safe_ones[] = {0x20, '\\', 0x7e, 0xa0, 0xe9, 0x200d, 0x2010, 0x2029,
                                  0x202f, 0x2065, 0x206a, 0x1f600};
    for (size_t i = 0; i < sizeof unsafe / sizeof *unsafe; i++)
        assert_true(format_is_unsafe_code_point(unsafe[i]));
    for (size_t i = 0; i < sizeof safe_ones / sizeof *safe_ones; i++)
        assert_false(format_is_unsafe_code_point(safe_ones[i]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bytes_units),
        cmocka_unit_test(test_bytes_never_prints_1024_of_a_unit),
        cmocka_unit_test(test_bytes_as_printf_rounds),
        cmocka_unit_test(test_milliseconds_and_percent),
        cmocka_unit_test(test_double_shortest_round_trip),
        cmocka_unit_test(test_safe_text_escapes_controls),
        cmocka_unit_test(test_safe_text_utf8),
        cmocka_unit_test(test_safe_text_cuts_on_character_boundary),
        cmocka_unit_test(test_safe_text_escapes_backslash),
        cmocka_unit_test(test_safe_bytes_keeps_what_follows_a_nul),
        cmocka_unit_test(test_unsafe_code_points),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
