/* compare_cells: how the compare panes write values and deltas (full
 * and compact, arrows with and without UTF-8), without a screen. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "ui/panes/compare/compare_cells.h"

#define GIB (INT64_C(1) << 30)
#define MIB (INT64_C(1) << 20)

static void test_values(void **state)
{
    (void)state;
    char text[COMPARE_CELL_SIZE];
    assert_string_equal(compare_cell_value(GIB * 5 / 4, true, false, text, sizeof text),
                        "1.25 GiB");
    assert_string_equal(compare_cell_value(GIB * 5 / 4, true, true, text, sizeof text), "1.25G");
    assert_string_equal(compare_cell_value(MIB * 2612 / 100, true, true, text, sizeof text),
                        "26.1M");
    assert_string_equal(compare_cell_value(MIB * 150, true, true, text, sizeof text), "150M");
    assert_string_equal(compare_cell_value(1023, true, true, text, sizeof text), "1023B");
    /* 1023.9 KiB rounds into the next unit, never "1024K". */
    assert_string_equal(compare_cell_value(1024 * 1024 - 100, true, true, text, sizeof text),
                        "1.00M");
    assert_string_equal(compare_cell_value(9999, false, true, text, sizeof text), "9999");
    assert_string_equal(compare_cell_value(12345, false, true, text, sizeof text), "12.3K");
    assert_string_equal(compare_cell_value(1234567, false, true, text, sizeof text), "1.23M");
    assert_string_equal(compare_cell_value(1234567, false, false, text, sizeof text), "1234567");
    assert_string_equal(compare_cell_value(-5, false, true, text, sizeof text), "-5");
    assert_string_equal(compare_cell_value(INT64_MIN, true, true, text, sizeof text), "-8.00E");
}

static void test_deltas_say_which_way_without_colour(void **state)
{
    (void)state;
    struct ui_style utf8 = {.utf8 = true, .grew = 1, .shrank = 2, .normal = 3};
    struct ui_style ascii = {.utf8 = false};
    char text[COMPARE_CELL_SIZE];
    assert_string_equal(compare_cell_delta(GIB * 5 / 4, true, true, &utf8, text, sizeof text),
                        "\xe2\x96\xb2+1.25G");
    assert_string_equal(compare_cell_delta(-MIB * 2612 / 100, true, true, &utf8, text,
                                           sizeof text),
                        "\xe2\x96\xbc-26.1M");
    assert_string_equal(compare_cell_delta(0, true, true, &utf8, text, sizeof text), "=0B");
    assert_string_equal(compare_cell_delta(50, false, false, &ascii, text, sizeof text), "^+50");
    assert_string_equal(compare_cell_delta(-MIB, true, false, &ascii, text, sizeof text),
                        "v-1.00 MiB");
    assert_int_equal(compare_cell_delta_attr(1, &utf8), 1);
    assert_int_equal(compare_cell_delta_attr(-1, &utf8), 2);
    assert_int_equal(compare_cell_delta_attr(0, &utf8), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_deltas_say_which_way_without_colour),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
