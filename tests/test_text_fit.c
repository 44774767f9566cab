/* text_fit: a name shortened in its middle to an exact number of
 * display cells, keeping the end that tells names apart; measured as
 * draw_text shows it (wide characters, escapes), cut only between
 * characters; and the text past its first cells for a scrolled column. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <locale.h>
#include <string.h>

#include "ui/text_fit.h"

static const struct ui_style utf8 = {.utf8 = true};
static const struct ui_style ascii = {.utf8 = false};

static int setup(void **state)
{
    (void)state;
    return setlocale(LC_ALL, "C.UTF-8") || setlocale(LC_ALL, "C.utf8") ? 0 : -1;
}

/* text_fit_middle into `cells`, checked to take exactly `cells` cells
 * when it had to shorten (at most `cells` otherwise). */
static const char *fit(const char *text, int cells, const struct ui_style *style)
{
    static char buffer[512];
    const char *fitted = text_fit_middle(text, cells, style, buffer, sizeof buffer);
    int width = draw_text_width(fitted, style);
    assert_true(width <= cells);
    return fitted;
}

static void test_text_that_fits_is_itself(void **state)
{
    (void)state;
    const char *name = "model/dense_58/MatMul";
    assert_ptr_equal(fit(name, 21, &utf8), name);
    assert_ptr_equal(fit(name, 80, &utf8), name);
    assert_string_equal(fit("", 3, &utf8), "");
}

static void test_a_path_keeps_its_first_and_last_components(void **state)
{
    (void)state;
    const char *name = "gradients/model/dense_58/MatMul";
    assert_string_equal(fit(name, 30, &utf8), "gradients/\xe2\x80\xa6/dense_58/MatMul");
    assert_string_equal(fit(name, 27, &utf8), "gradients/\xe2\x80\xa6/dense_58/MatMul");
    /* One cell less: one component less, the first one kept (it tells
     * the gradient from the forward op). */
    assert_string_equal(fit(name, 26, &utf8), "gradients/\xe2\x80\xa6/MatMul");
    assert_string_equal(fit("gradients/model/dense_94/Relu_grad/ReluGrad", 30, &utf8),
                        "gradients/\xe2\x80\xa6/Relu_grad/ReluGrad");
    assert_string_equal(fit("a/b/c/d/e", 7, &ascii), "a/+/d/e");
}

static void test_a_path_gives_up_its_first_component_for_its_end(void **state)
{
    (void)state;
    const char *name = "gradients/model/dense_94/Relu_grad/ReluGrad";
    assert_string_equal(fit(name, 20, &utf8), "gradients/\xe2\x80\xa6/ReluGrad");
    /* The last component does not fit beside the first any more. */
    assert_string_equal(fit(name, 19, &utf8), "\xe2\x80\xa6/ReluGrad");
    assert_string_equal(fit(name, 12, &utf8), "\xe2\x80\xa6/ReluGrad");
    /* The last component alone does not fit: its end. */
    assert_string_equal(fit(name, 6, &utf8), "\xe2\x80\xa6uGrad");
    assert_string_equal(fit(name, 1, &utf8), "\xe2\x80\xa6");
    assert_string_equal(fit(name, 0, &utf8), "");
}

static void test_other_text_keeps_its_start(void **state)
{
    (void)state;
    assert_string_equal(fit("unused preallocated device memory", 21, &utf8),
                        "unused preallocated \xe2\x80\xa6");
    assert_string_equal(fit("unused preallocated device memory", 21, &ascii),
                        "unused preallocated +");
    assert_string_equal(fit("abcdefghij", 4, &ascii), "abc+");
}

static void test_cells_not_bytes(void **state)
{
    (void)state;
    /* Wide characters take two cells and are never split. */
    const char *wide = "\xe6\xa8\xa1\xe5\x9e\x8b/\xe5\xb1\x82/\xe4\xb9\x98"; /* 模型/层/乘 */
    const char *fitted = fit(wide, 7, &utf8);
    assert_string_equal(fitted, "\xe2\x80\xa6/\xe5\xb1\x82/\xe4\xb9\x98"); /* …/层/乘 */
    assert_int_equal(draw_text_width(fitted, &utf8), 7);
    assert_string_equal(fit(wide, 6, &utf8), "\xe2\x80\xa6/\xe4\xb9\x98"); /* …/乘 */
    /* An escape counts as draw_text writes it: ESC is "\x1b", 4 cells. */
    fitted = fit("\x1b[31mevil/op", 7, &utf8);
    assert_string_equal(fitted, "\xe2\x80\xa6/op");
    fitted = fit("ab\x1b" "cdefgh", 6, &ascii);
    assert_int_equal(draw_text_width(fitted, &ascii), 3);
    assert_string_equal(fitted, "ab+"); /* the escape left out whole */
    fitted = fit("a/b\x1b" "cdefgh/x", 10, &ascii);
    assert_string_equal(fitted, "a/+/x"); /* "b\x1bcdefgh" would take 11 cells */
    /* Invalid UTF-8 is one character (U+FFFD), kept or left out whole. */
    fitted = fit("x/\xff\xfe/last", 8, &utf8);
    assert_true(draw_text_width(fitted, &utf8) <= 8);
    assert_non_null(strstr(fitted, "/last"));
}

static void test_a_small_buffer_is_never_overrun(void **state)
{
    (void)state;
    char small[8];
    memset(small, 'Z', sizeof small);
    const char *fitted = text_fit_middle("model/layer_with_a_long_name/op_with_a_long_name", 30,
                                         &utf8, small, 6);
    assert_true(strlen(fitted) < 6);
    assert_int_equal(small[6], 'Z');
}

static void test_skip(void **state)
{
    (void)state;
    assert_string_equal(text_fit_skip("model/dense/MatMul", 6, &utf8), "dense/MatMul");
    assert_string_equal(text_fit_skip("model", 9, &utf8), "");
    assert_string_equal(text_fit_skip("model", 0, &utf8), "model");
    /* A wide character across the edge is skipped whole. */
    assert_string_equal(text_fit_skip("\xe6\xa8\xa1\xe5\x9e\x8b", 1, &utf8), "\xe5\x9e\x8b");
    assert_string_equal(text_fit_skip("\x1b" "abc", 2, &ascii), "abc");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_that_fits_is_itself),
        cmocka_unit_test(test_a_path_keeps_its_first_and_last_components),
        cmocka_unit_test(test_a_path_gives_up_its_first_component_for_its_end),
        cmocka_unit_test(test_other_text_keeps_its_start),
        cmocka_unit_test(test_cells_not_bytes),
        cmocka_unit_test(test_a_small_buffer_is_never_overrun),
        cmocka_unit_test(test_skip),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
