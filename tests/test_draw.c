/* draw: text from a profile on screen: escaped, measured in cells, cut
 * with an ellipsis to the exact width, never a cell past it. Drawn into a
 * curses window on a terminal that writes to /dev/null, then read back. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include <curses.h>

#include "ui/draw.h"

#define ROW_WIDTH 30

static SCREEN *screen;
static FILE *terminal_output, *terminal_input;
static struct ui_style utf8_style, ascii_style;

static int setup(void **state)
{
    (void)state;
    if (!setlocale(LC_ALL, "C.UTF-8") && !setlocale(LC_ALL, "C.utf8"))
        return -1;
    terminal_output = fopen("/dev/null", "w");
    terminal_input = fopen("/dev/null", "r");
    if (!terminal_output || !terminal_input)
        return -1;
    screen = newterm("vt100", terminal_output, terminal_input);
    if (!screen)
        return -1;
    draw_style_init(&utf8_style, true, false);
    draw_style_init(&ascii_style, false, false);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    endwin();
    delscreen(screen);
    fclose(terminal_output);
    fclose(terminal_input);
    return 0;
}

/* Draws text at column 2 of a row filled with '#', width cells wide, and
 * returns the row as UTF-8 (trailing '#' show nothing was drawn past). */
static int draw_bytes_and_read(struct text text, int width, const struct ui_style *style,
                               bool right, char *out, size_t size)
{
    WINDOW *window = newwin(1, ROW_WIDTH + 4, 0, 0);
    assert_non_null(window);
    for (int x = 0; x < ROW_WIDTH + 4; x++)
        mvwaddch(window, 0, x, '#');
    int cells = right ? draw_bytes_right(window, 0, 2, width, text, style)
                      : draw_bytes(window, 0, 2, width, text, style);
    wchar_t wide[ROW_WIDTH + 8];
    memset(wide, 0, sizeof wide);
    mvwinnwstr(window, 0, 0, wide, ROW_WIDTH + 4);
    mbstate_t state;
    memset(&state, 0, sizeof state);
    const wchar_t *source = wide;
    wcsrtombs(out, &source, size, &state);
    delwin(window);
    return cells;
}

static int draw_and_read(const char *text, int width, const struct ui_style *style, bool right,
                         char *out, size_t size)
{
    return draw_bytes_and_read(text_of(text), width, style, right, out, size);
}

/* The row draw_and_read() should read back: shown at column 2 taking
 * `cells` cells, '#' everywhere else. */
static void assert_row(const char *row, const char *shown, int cells)
{
    char expected[256];
    int fill = ROW_WIDTH + 4 - 2 - cells;
    snprintf(expected, sizeof expected, "##%s%.*s", shown, fill,
             "##################################################");
    assert_string_equal(row, expected);
}

static void test_plain_text_fits(void **state)
{
    (void)state;
    char row[256];
    assert_int_equal(draw_and_read("GPU_0_bfc", 12, &utf8_style, false, row, sizeof row), 9);
    assert_row(row, "GPU_0_bfc", 9);
}

static void test_long_text_is_cut_with_an_ellipsis(void **state)
{
    (void)state;
    char row[256];
    assert_int_equal(draw_and_read("model/dense_94/MatMul", 10, &utf8_style, false, row,
                                   sizeof row), 10);
    assert_row(row, "model/den\xe2\x80\xa6", 10);
    assert_int_equal(draw_and_read("model/dense_94/MatMul", 10, &ascii_style, false, row,
                                   sizeof row), 10);
    assert_row(row, "model/den+", 10);
}

static void test_exact_fit_has_no_ellipsis(void **state)
{
    (void)state;
    char row[256];
    assert_int_equal(draw_and_read("0123456789", 10, &utf8_style, false, row, sizeof row), 10);
    assert_row(row, "0123456789", 10);
}

static void test_escape_sequences_are_shown_escaped(void **state)
{
    (void)state;
    char row[256];
    assert_int_equal(draw_and_read("\x1b[2JEVIL", 20, &utf8_style, false, row, sizeof row), 11);
    assert_row(row, "\\x1b[2JEVIL", 11);
    /* An escape is never split: a cut falls before it. */
    assert_int_equal(draw_and_read("ab\x1b", 5, &utf8_style, false, row, sizeof row), 3);
    assert_row(row, "ab\xe2\x80\xa6", 3);
}

/* A profile's text is drawn to its length: a NUL shows as "\x00" and
 * what follows it is drawn too, so "A\0x" and "A\0y" look apart. */
static void test_nul_is_shown_escaped_with_what_follows(void **state)
{
    (void)state;
    char row[256];
    assert_int_equal(draw_bytes_and_read(text_make("A\0x", 3), 20, &utf8_style, false, row,
                                         sizeof row), 6);
    assert_row(row, "A\\x00x", 6);
    assert_int_equal(draw_bytes_width(text_make("A\0y", 3), &ascii_style), 6);
    assert_int_equal(draw_bytes_and_read(text_make("\0\0", 2), 20, &ascii_style, true, row,
                                         sizeof row), 8);
}

static void test_bidi_controls_are_escaped(void **state)
{
    (void)state;
    char row[256];
    draw_and_read("a\xe2\x80\xae" "b", 20, &utf8_style, false, row, sizeof row);
    assert_row(row, "a\\u{202e}b", 10);
}

static void test_wide_characters_count_two_cells(void **state)
{
    (void)state;
    char row[256];
    assert_int_equal(draw_text_width("\xe6\x97\xa5\xe6\x9c\xac", &utf8_style), 4);
    /* Two cells left for "日本語": 日 does not fit beside the ellipsis. */
    assert_int_equal(draw_and_read("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 2, &utf8_style,
                                   false, row, sizeof row), 1);
    assert_row(row, "\xe2\x80\xa6", 1);
}

static void test_ascii_mode_draws_only_ascii(void **state)
{
    (void)state;
    char row[256];
    draw_and_read("caf\xc3\xa9 \xe2\x96\x88", 20, &ascii_style, false, row, sizeof row);
    assert_row(row, "caf\\u{e9} \\u{2588}", 18);
    for (const char *c = row; *c; c++)
        assert_true((unsigned char)*c < 0x80);
}

static void test_invalid_utf8_becomes_a_replacement(void **state)
{
    (void)state;
    char row[256];
    assert_int_equal(draw_and_read("a\xffz", 10, &utf8_style, false, row, sizeof row), 3);
    assert_row(row, "a\xef\xbf\xbdz", 3);
}

static void test_right_aligned(void **state)
{
    (void)state;
    char row[256];
    assert_int_equal(draw_and_read("7.17 GiB", 10, &utf8_style, true, row, sizeof row), 8);
    assert_row(row, "##7.17 GiB", 10);
}

static void test_zero_width_draws_nothing(void **state)
{
    (void)state;
    char row[256];
    assert_int_equal(draw_and_read("anything", 0, &utf8_style, false, row, sizeof row), 0);
    assert_int_equal(draw_and_read("anything", -3, &utf8_style, false, row, sizeof row), 0);
    assert_row(row, "", 0);
    assert_int_equal(draw_and_read("x", 1, &utf8_style, false, row, sizeof row), 1);
    assert_int_equal(draw_and_read("xy", 1, &utf8_style, false, row, sizeof row), 1);
    assert_row(row, "\xe2\x80\xa6", 1);
}

/* Text given more width than the window has left is cut at the window's
 * edge, never wrapped onto the next row. */
static void test_clipped_at_the_window_edge(void **state)
{
    (void)state;
    WINDOW *window = newwin(2, 10, 0, 0);
    assert_non_null(window);
    werase(window);
    assert_int_equal(draw_text(window, 0, 6, 40, "abcdefgh", &ascii_style), 4);
    char row[16] = "";
    mvwinnstr(window, 0, 0, row, 10);
    assert_string_equal(row, "      abc+");
    mvwinnstr(window, 1, 0, row, 10);
    assert_string_equal(row, "          ");
    delwin(window);
}

static void test_width_matches_drawing(void **state)
{
    (void)state;
    /* Printable ASCII first (the width's quick count), then what is not. */
    static const char *const texts[] = {"", "abc", "\x1b\x07", "\xe6\x97\xa5", "a\xcc\x81",
                                        "\xc3\xa9t\xc3\xa9", "\xff\xfe", "a\\b", "\\",
                                        "x~ \x7f", "ab\x1b[31m", "Adam.step \xe6\x97\xa5",
                                        "~\xcc\x81", "path\\\xff"};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        char row[256];
        int width = draw_text_width(texts[i], &utf8_style);
        assert_int_equal(draw_and_read(texts[i], ROW_WIDTH, &utf8_style, false, row, sizeof row),
                         width);
        width = draw_text_width(texts[i], &ascii_style);
        assert_int_equal(draw_and_read(texts[i], ROW_WIDTH, &ascii_style, false, row, sizeof row),
                         width);
    }
    assert_int_equal(draw_text_width("a\\b", &utf8_style), 4);
    assert_int_equal(draw_text_width("ab\x7f", &ascii_style), 6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_text_fits),
        cmocka_unit_test(test_long_text_is_cut_with_an_ellipsis),
        cmocka_unit_test(test_exact_fit_has_no_ellipsis),
        cmocka_unit_test(test_escape_sequences_are_shown_escaped),
        cmocka_unit_test(test_nul_is_shown_escaped_with_what_follows),
        cmocka_unit_test(test_bidi_controls_are_escaped),
        cmocka_unit_test(test_wide_characters_count_two_cells),
        cmocka_unit_test(test_ascii_mode_draws_only_ascii),
        cmocka_unit_test(test_invalid_utf8_becomes_a_replacement),
        cmocka_unit_test(test_right_aligned),
        cmocka_unit_test(test_zero_width_draws_nothing),
        cmocka_unit_test(test_clipped_at_the_window_edge),
        cmocka_unit_test(test_width_matches_drawing),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
