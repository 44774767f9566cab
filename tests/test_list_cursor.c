/* list_cursor: one place for moving, paging and scrolling through a list,
 * shared by every list, table and overlay of the viewer. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "ui/list_cursor.h"

static void test_moves_stay_inside_the_list(void **state)
{
    (void)state;
    struct list_cursor cursor = {0};
    list_cursor_fit(&cursor, 10, 4);
    assert_true(list_cursor_move(&cursor, 10, REQUEST_MOVE_UP));
    assert_int_equal(cursor.selected, 0);
    assert_true(list_cursor_move(&cursor, 10, REQUEST_MOVE_DOWN));
    assert_int_equal(cursor.selected, 1);
    assert_true(list_cursor_move(&cursor, 10, REQUEST_LAST));
    assert_int_equal(cursor.selected, 9);
    assert_true(list_cursor_move(&cursor, 10, REQUEST_MOVE_DOWN));
    assert_int_equal(cursor.selected, 9);
    assert_true(list_cursor_move(&cursor, 10, REQUEST_FIRST));
    assert_int_equal(cursor.selected, 0);
    assert_false(list_cursor_move(&cursor, 10, REQUEST_ENTER));
    assert_false(list_cursor_move(&cursor, 10, REQUEST_ZOOM_IN));
}

/* A page is one row less than shown: the last row of a page stays in
 * view as the first of the next. */
static void test_a_page_keeps_one_row(void **state)
{
    (void)state;
    struct list_cursor cursor = {0};
    list_cursor_fit(&cursor, 100, 10);
    assert_true(list_cursor_move(&cursor, 100, REQUEST_PAGE_DOWN));
    assert_int_equal(cursor.selected, 9);
    assert_int_equal(cursor.top, 0);
    assert_true(list_cursor_move(&cursor, 100, REQUEST_PAGE_DOWN));
    assert_int_equal(cursor.selected, 18);
    assert_int_equal(cursor.top, 9);
    assert_true(list_cursor_move(&cursor, 100, REQUEST_PAGE_UP));
    assert_int_equal(cursor.selected, 9);
    assert_int_equal(cursor.top, 9);
    assert_true(list_cursor_move(&cursor, 100, REQUEST_PAGE_UP));
    assert_int_equal(cursor.selected, 0);
    assert_int_equal(cursor.top, 0);
    /* Before the first draw a page is one row. */
    struct list_cursor fresh = {0};
    assert_true(list_cursor_move(&fresh, 100, REQUEST_PAGE_DOWN));
    assert_int_equal(fresh.selected, 1);
}

static void test_the_selection_stays_in_view(void **state)
{
    (void)state;
    struct list_cursor cursor = {0};
    list_cursor_fit(&cursor, 50, 5);
    assert_true(list_cursor_move(&cursor, 50, REQUEST_LAST));
    assert_int_equal(cursor.top, 45);
    /* The list shrinks (a filter): the selection and the view follow. */
    list_cursor_fit(&cursor, 7, 5);
    assert_int_equal(cursor.selected, 6);
    assert_int_equal(cursor.top, 2);
    /* A taller pane shows everything from the top. */
    list_cursor_fit(&cursor, 7, 20);
    assert_int_equal(cursor.top, 0);
    list_cursor_fit(&cursor, 0, 20);
    assert_int_equal(cursor.selected, 0);
    assert_int_equal(cursor.top, 0);
    assert_true(list_cursor_move(&cursor, 0, REQUEST_MOVE_DOWN));
    assert_int_equal(cursor.selected, 0);
}

static void test_scrolling_without_a_selection(void **state)
{
    (void)state;
    struct list_cursor cursor = {0};
    list_cursor_fit_view(&cursor, 30, 10);
    assert_true(list_cursor_scroll(&cursor, 30, REQUEST_MOVE_DOWN));
    assert_int_equal(cursor.top, 1);
    assert_true(list_cursor_scroll(&cursor, 30, REQUEST_LAST));
    assert_int_equal(cursor.top, 20);
    assert_true(list_cursor_scroll(&cursor, 30, REQUEST_MOVE_DOWN));
    assert_int_equal(cursor.top, 20);
    assert_true(list_cursor_scroll(&cursor, 30, REQUEST_PAGE_UP));
    assert_int_equal(cursor.top, 11);
    assert_true(list_cursor_scroll(&cursor, 30, REQUEST_FIRST));
    assert_int_equal(cursor.top, 0);
    assert_false(list_cursor_scroll(&cursor, 30, REQUEST_QUIT));
    /* Text shorter than the box does not scroll. */
    list_cursor_fit_view(&cursor, 4, 10);
    assert_true(list_cursor_scroll(&cursor, 4, REQUEST_PAGE_DOWN));
    assert_int_equal(cursor.top, 0);
}

static void test_clicks_find_the_item_under_them(void **state)
{
    (void)state;
    struct list_cursor cursor = {.selected = 12, .top = 10};
    size_t item = 99;
    assert_true(list_cursor_item_at(&cursor, 15, 0, &item));
    assert_int_equal(item, 10);
    assert_true(list_cursor_item_at(&cursor, 15, 4, &item));
    assert_int_equal(item, 14);
    assert_false(list_cursor_item_at(&cursor, 15, 5, &item));
    assert_false(list_cursor_item_at(&cursor, 15, -1, &item));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_moves_stay_inside_the_list),
        cmocka_unit_test(test_a_page_keeps_one_row),
        cmocka_unit_test(test_the_selection_stays_in_view),
        cmocka_unit_test(test_scrolling_without_a_selection),
        cmocka_unit_test(test_clicks_find_the_item_under_them),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
