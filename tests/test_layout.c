/* Layout arithmetic: every pane inside the screen, none overlapping, the
 * whole screen covered, the chart usable, for every size from the
 * minimum up, with and without a hosts list and HLO modules. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>

#include "ui/column_fit.h"
#include "ui/layout.h"

/* The rectangles that tile the screen (hlo only when not tabbed: tabbed,
 * it is the table's rectangle). */
static size_t tiles(const struct layout *layout, const struct rect **out)
{
    size_t count = 0;
    out[count++] = &layout->header;
    out[count++] = &layout->runs;
    out[count++] = &layout->hosts;
    out[count++] = &layout->allocators;
    out[count++] = &layout->summary;
    out[count++] = &layout->by_region;
    out[count++] = &layout->by_data_type;
    out[count++] = &layout->separator;
    out[count++] = &layout->chart;
    out[count++] = &layout->table;
    if (!layout->hlo_tabbed)
        out[count++] = &layout->hlo;
    out[count++] = &layout->status;
    return count;
}

static void assert_inside(const struct rect *rect, int rows, int cols)
{
    if (rect_is_empty(rect))
        return;
    assert_true(rect->y >= 0 && rect->x >= 0);
    assert_true(rect->y + rect->height <= rows);
    assert_true(rect->x + rect->width <= cols);
}

/* Inside, disjoint, and covering every cell exactly once. */
static void assert_tiled(const struct layout *layout)
{
    const struct rect *rects[16];
    size_t count = tiles(layout, rects);
    long covered = 0;
    for (size_t i = 0; i < count; i++) {
        assert_inside(rects[i], layout->rows, layout->cols);
        if (!rect_is_empty(rects[i]))
            covered += (long)rects[i]->height * rects[i]->width;
        for (size_t j = i + 1; j < count; j++)
            assert_false(rect_overlaps(rects[i], rects[j]));
    }
    assert_int_equal(covered, (long)layout->rows * layout->cols);
}

static void assert_usable(const struct layout *layout, size_t host_count, bool has_hlo)
{
    assert_false(layout->too_small);
    assert_tiled(layout);
    assert_true(layout->chart.height >= LAYOUT_MIN_CHART_ROWS);
    assert_true(layout->table.height >= 4); /* title, heading, two rows */
    assert_true(layout->allocators.height >= 2);
    assert_true(layout->summary.height >= 3);
    assert_int_equal(rect_is_empty(&layout->hosts), host_count <= 1);
    assert_int_equal(rect_is_empty(&layout->hlo), !has_hlo);
    if (layout->hlo_tabbed) {
        assert_true(has_hlo);
        assert_memory_equal(&layout->hlo, &layout->table, sizeof layout->hlo);
    }
    assert_int_equal(layout->header.y, 0);
    assert_int_equal(layout->status.y, layout->rows - 1);
}

static void test_80x24_single_host(void **state)
{
    (void)state;
    struct layout layout;
    layout_compute(&layout, 24, 80, 1, 4, false);
    assert_usable(&layout, 1, false);
    /* Four allocators all listed, the summary's ten fields all shown. */
    assert_int_equal(layout.allocators.height, 5);
    assert_true(layout.summary.height >= 11);
    assert_true(layout.chart.height >= 9);
    assert_true(layout.table.height >= 10);
    assert_true(layout.table.width >= 50);
    assert_int_equal(layout.chart.x, layout.table.x);
    assert_int_equal(layout.separator.x, layout.allocators.width);
}

static void test_80x24_hosts_and_hlo_share_a_place(void **state)
{
    (void)state;
    struct layout layout;
    layout_compute(&layout, 24, 80, 3, 4, true);
    assert_usable(&layout, 3, true);
    assert_true(layout.hlo_tabbed);
    assert_int_equal(layout.hosts.height, 4);
    assert_int_equal(layout.hosts.y, 1);
    assert_int_equal(layout.allocators.y, layout.hosts.y + layout.hosts.height);
}

static void test_200x60_stacks_everything(void **state)
{
    (void)state;
    struct layout small, large;
    layout_compute(&small, 24, 80, 2, 4, true);
    layout_compute(&large, 60, 200, 2, 4, true);
    assert_usable(&large, 2, true);
    assert_false(large.hlo_tabbed);
    assert_true(large.hlo.height >= 10);
    assert_true(large.table.height >= 10);
    assert_true(large.chart.height > small.chart.height);
    assert_true(large.chart.width > small.chart.width);
    assert_true(large.table.height > small.table.height);
}

/* A third pane in the table area (HLO modules and steps): below the
 * table, sharing the second place as tabs, where two places fit; else
 * every pane of the area takes turns in its whole place. */
static void test_three_table_panes_take_turns(void **state)
{
    (void)state;
    struct layout two, three;
    layout_compute(&two, 60, 200, 1, 4, 1);
    layout_compute(&three, 60, 200, 1, 4, 2);
    assert_false(two.hlo_tabbed);
    assert_false(two.second_tabbed);
    assert_false(three.hlo_tabbed);
    assert_true(three.second_tabbed);
    assert_memory_equal(&three.table, &two.table, sizeof three.table);
    assert_memory_equal(&three.hlo, &two.hlo, sizeof three.hlo);
    for (int rows = LAYOUT_MIN_ROWS; rows <= 90; rows += 5) {
        layout_compute(&two, rows, 120, 1, 4, 1);
        layout_compute(&three, rows, 120, 1, 4, 3);
        assert_usable(&three, 1, true);
        /* Where two panes share the area, three do, one of them as tabs. */
        assert_int_equal(three.hlo_tabbed, two.hlo_tabbed);
        assert_int_equal(three.second_tabbed, !two.hlo_tabbed);
        assert_memory_equal(&three.hlo, &two.hlo, sizeof three.hlo);
    }
    layout_compute(&three, 24, 80, 1, 4, 2);
    assert_true(three.hlo_tabbed);
    assert_false(three.second_tabbed);
}

static void test_minimum_size_is_usable(void **state)
{
    (void)state;
    struct layout layout;
    for (size_t hosts = 1; hosts <= 64; hosts *= 4) {
        layout_compute(&layout, LAYOUT_MIN_ROWS, LAYOUT_MIN_COLS, hosts, 8, true);
        assert_usable(&layout, hosts, true);
    }
}

static void test_too_small_draws_nothing(void **state)
{
    (void)state;
    static const int sizes[][2] = {
        {LAYOUT_MIN_ROWS - 1, 80}, {24, LAYOUT_MIN_COLS - 1}, {10, 40}, {1, 1}, {0, 0}, {-5, -5},
    };
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        struct layout layout;
        layout_compute(&layout, sizes[i][0], sizes[i][1], 3, 4, true);
        assert_true(layout.too_small);
        assert_true(rect_is_empty(&layout.chart));
        assert_true(rect_is_empty(&layout.table));
        assert_true(rect_is_empty(&layout.header));
        assert_true(rect_is_empty(&layout.status));
    }
}

static void test_many_hosts_scroll_in_a_capped_list(void **state)
{
    (void)state;
    struct layout layout;
    layout_compute(&layout, 24, 80, 64, 4, false);
    assert_usable(&layout, 64, false);
    assert_true(layout.hosts.height <= 6);
    assert_true(layout.summary.height >= 5);
}

static void test_many_allocators_leave_room_for_the_summary(void **state)
{
    (void)state;
    struct layout layout;
    layout_compute(&layout, 24, 80, 1, 100, false);
    assert_usable(&layout, 1, false);
    assert_true(layout.summary.height >= 8);
    layout_compute(&layout, 60, 80, 1, 100, false);
    assert_true(layout.allocators.height > 5);
    assert_true(layout.summary.height >= 11);
}

/* The left column's rows past the summary show what the peak is made of,
 * when there are enough of them; at 80x24 there are not. */
static void test_tall_left_column_shows_the_breakdowns(void **state)
{
    (void)state;
    struct layout layout;
    layout_compute(&layout, 60, 200, 1, 3, true);
    assert_usable(&layout, 1, true);
    assert_int_equal(layout.summary.height, 13);
    assert_int_equal(layout.by_region.y, layout.summary.y + layout.summary.height);
    assert_int_equal(layout.by_data_type.y, layout.by_region.y + layout.by_region.height);
    assert_true(layout.by_region.height >= 3 && layout.by_data_type.height >= 3);
    assert_int_equal(layout.by_data_type.y + layout.by_data_type.height, layout.status.y);
    /* A short first list moves the line up; a long one stops short of
     * the second's title and two rows. */
    int total = layout.by_region.height + layout.by_data_type.height;
    layout_share_breakdowns(&layout, 5);
    assert_usable(&layout, 1, true);
    assert_int_equal(layout.by_region.height, 5);
    layout_share_breakdowns(&layout, 1000);
    assert_usable(&layout, 1, true);
    assert_int_equal(layout.by_data_type.height, 3);
    assert_int_equal(layout.by_region.height, total - 3);
    layout_share_breakdowns(&layout, 0);
    assert_int_equal(layout.by_region.height, 3);
    layout_compute(&layout, 24, 80, 1, 3, false);
    assert_usable(&layout, 1, false);
    assert_true(rect_is_empty(&layout.by_region) && rect_is_empty(&layout.by_data_type));
    layout_share_breakdowns(&layout, 5);
    assert_usable(&layout, 1, false);
}

static void test_no_allocators_still_lays_out(void **state)
{
    (void)state;
    struct layout layout;
    layout_compute(&layout, 24, 80, 2, 0, false);
    assert_usable(&layout, 2, false);
}

/* Every size a person might have, every combination. */
static void test_every_size(void **state)
{
    (void)state;
    for (int rows = LAYOUT_MIN_ROWS; rows <= 90; rows++)
        for (int cols = LAYOUT_MIN_COLS; cols <= 260; cols += 3)
            for (int variant = 0; variant < 4; variant++) {
                size_t hosts = variant & 1 ? 5 : 1;
                bool has_hlo = variant & 2;
                struct layout layout;
                layout_compute(&layout, rows, cols, hosts, 4, has_hlo);
                assert_usable(&layout, hosts, has_hlo);
            }
}

static void test_rect_helpers(void **state)
{
    (void)state;
    struct rect a = {1, 1, 2, 3}, b = {2, 3, 1, 1}, c = {3, 1, 1, 3}, empty = {0, 0, 0, 5};
    assert_true(rect_contains(&a, 1, 1));
    assert_true(rect_contains(&a, 2, 3));
    assert_false(rect_contains(&a, 3, 1));
    assert_false(rect_contains(&a, 1, 4));
    assert_false(rect_contains(&empty, 0, 0));
    assert_true(rect_overlaps(&a, &b));
    assert_false(rect_overlaps(&a, &c));
    assert_false(rect_overlaps(&a, &empty));
    assert_true(rect_is_empty(&empty));
}

/* A column only some formats fill is not drawn when no cell has text;
 * the others keep their place, and the same column with text shows. */
static void test_column_fit_hides_empty(void **state)
{
    (void)state;
    const struct fit_column columns[] = {
        {.heading = "Size", .right_aligned = true},
        {.heading = "Kind", .minimum = 6, .hide_rank = 1, .hide_when_empty = true},
        {.heading = "Region", .minimum = 6, .hide_rank = 2},
        {.heading = "Name", .minimum = 12},
    };
    struct column_fit fit;
    int empty[] = {8, 0, 0, 20};
    column_fit_compute(columns, 4, empty, 1, -1, 80, &fit);
    assert_true(fit.shown[0] && fit.shown[2] && fit.shown[3]);
    assert_false(fit.shown[1]); /* no kind anywhere */
    assert_true(fit.x[2] < fit.x[3]);
    int filled[] = {8, 10, 0, 20};
    column_fit_compute(columns, 4, filled, 1, -1, 80, &fit);
    assert_true(fit.shown[1] && fit.shown[2]);
    assert_true(fit.x[0] < fit.x[1] && fit.x[1] < fit.x[2]);
}

/* The allocations table's shape: sizes, two text columns that hide
 * whole (never cut), and a long name last. */
static const struct fit_column table_columns[] = {
    {.heading = "size", .right_aligned = true, .hide_rank = 4},
    {.heading = "total", .right_aligned = true},
    {.heading = "region", .minimum = 6, .hide_rank = 1},
    {.heading = "shape", .minimum = 8, .hide_rank = 2},
    {.heading = "op", .minimum = 12, .shorten_middle = true},
};
static const int table_natural[] = {9, 10, 15, 12, 45};
#define TABLE_COLUMNS 5

/* Sorting by a column that would hide shows it where it belongs and
 * takes its room from the name only: the others neither come nor go,
 * nor move (a narrow pane, 51 cells: size, total and the name). */
static void test_column_fit_keeps_the_sorted_column_without_reflow(void **state)
{
    (void)state;
    struct column_fit plain, sorted;
    column_fit_compute(table_columns, TABLE_COLUMNS, table_natural, 1, -1, 51, &plain);
    assert_true(plain.shown[0] && plain.shown[1] && plain.shown[4]);
    assert_false(plain.shown[2] || plain.shown[3]);
    assert_true(plain.width[2] == 15 || !plain.shown[2]);
    column_fit_compute(table_columns, TABLE_COLUMNS, table_natural, 1, 3, 51, &sorted);
    assert_true(sorted.shown[0] && sorted.shown[1] && sorted.shown[3] && sorted.shown[4]);
    assert_false(sorted.shown[2]);
    assert_int_equal(sorted.x[0], plain.x[0]);
    assert_int_equal(sorted.x[1], plain.x[1]);
    assert_int_equal(sorted.width[3], 12); /* the shape whole: "[8,512,3072]" */
    assert_true(sorted.x[3] > sorted.x[1] && sorted.x[4] > sorted.x[3]);
    assert_true(sorted.width[4] < plain.width[4] && sorted.width[4] >= 12);
    /* Too wide to fit beside a 12-cell name: the sorted column shrinks
     * to its least, then the name keeps its least. */
    column_fit_compute(table_columns, TABLE_COLUMNS, table_natural, 1, 2, 40, &sorted);
    assert_true(sorted.shown[2] && sorted.width[2] < 15 && sorted.width[2] >= 7);
    assert_true(sorted.width[4] >= 12 || !sorted.shown[0]);
    /* Text columns are never cut while room is short: they hide. */
    struct column_fit wide;
    column_fit_compute(table_columns, TABLE_COLUMNS, table_natural, 1, -1, 83, &wide);
    for (int c = 0; c < 4; c++)
        assert_true(!wide.shown[c] || wide.width[c] >= table_natural[c]);
}

/* A sideways scroll leaves out the first column still shown, one a
 * step, then moves through the name's text; the scroll is cut to what
 * there is. A name shorter than two fifths takes no more than it needs. */
static void test_column_fit_scrolls_sideways(void **state)
{
    (void)state;
    struct column_fit fit;
    int scroll = 1;
    column_fit_compute_scrolled(table_columns, TABLE_COLUMNS, table_natural, 1, -1, 51, &scroll,
                                &fit);
    assert_int_equal(scroll, 1);
    assert_int_equal(fit.skipped, 1);
    assert_false(fit.shown[0]);
    assert_true(fit.shown[1] && fit.x[1] == 1);
    assert_int_equal(fit.last_offset, 0);
    scroll = 2;
    column_fit_compute_scrolled(table_columns, TABLE_COLUMNS, table_natural, 1, -1, 51, &scroll,
                                &fit);
    /* With size and total gone, the region and shape have room again. */
    assert_false(fit.shown[0] || fit.shown[1]);
    assert_true(fit.shown[2] || fit.shown[3]);
    scroll = 100;
    column_fit_compute_scrolled(table_columns, TABLE_COLUMNS, table_natural, 1, -1, 30, &scroll,
                                &fit);
    assert_true(scroll < 100);
    for (int c = 0; c < 4; c++)
        assert_false(fit.shown[c]);
    assert_true(fit.shown[4] && fit.x[4] == 1);
    assert_true(fit.last_offset > 0 && fit.last_offset < 45);
    assert_true(fit.last_offset - 8 < 45 - fit.width[4]); /* no step past its end */
    scroll = -3;
    column_fit_compute_scrolled(table_columns, TABLE_COLUMNS, table_natural, 1, -1, 51, &scroll,
                                &fit);
    assert_int_equal(scroll, 0);
    assert_int_equal(fit.skipped, 0);
    /* A short name: the other columns keep their room. */
    const int short_name[] = {9, 10, 15, 12, 6};
    column_fit_compute(table_columns, TABLE_COLUMNS, short_name, 1, -1, 64, &fit);
    assert_true(fit.shown[0] && fit.shown[1] && fit.shown[2] && fit.shown[3]);
}

/* Without breakdowns (a report with no regions) the summary takes their
 * rows, down to the same line. */
static void test_drop_breakdowns(void **state)
{
    (void)state;
    struct layout layout;
    layout_compute(&layout, 40, 120, 1, 1, false);
    assert_false(rect_is_empty(&layout.by_region));
    int bottom = layout.by_data_type.y + layout.by_data_type.height;
    layout_drop_breakdowns(&layout);
    assert_true(rect_is_empty(&layout.by_region) && rect_is_empty(&layout.by_data_type));
    assert_int_equal(layout.summary.y + layout.summary.height, bottom);
    layout_drop_breakdowns(&layout); /* again: nothing moves */
    assert_int_equal(layout.summary.y + layout.summary.height, bottom);
}

/* One breakdown (a format with regions but no data types, or the other
 * way round) takes both places' rows; the other is not shown. */
static void test_keep_one_breakdown(void **state)
{
    (void)state;
    for (int keep_region = 0; keep_region < 2; keep_region++) {
        struct layout layout;
        layout_compute(&layout, 40, 120, 1, 1, false);
        struct rect first = layout.by_region, second = layout.by_data_type;
        layout_keep_one_breakdown(&layout, keep_region);
        const struct rect *kept = keep_region ? &layout.by_region : &layout.by_data_type;
        const struct rect *gone = keep_region ? &layout.by_data_type : &layout.by_region;
        assert_true(rect_is_empty(gone));
        assert_memory_equal(kept,
                            &((struct rect){first.y, first.x, first.height + second.height,
                                            first.width}),
                            sizeof *kept);
        layout_keep_one_breakdown(&layout, keep_region); /* again: nothing moves */
        assert_true(rect_is_empty(gone) && kept->height == first.height + second.height);
    }
}

/* A log directory's runs list: above the hosts, at every size; it
 * gives way (shorter, then gone) before the summary does. */
static void test_runs_list_at_every_size(void **state)
{
    (void)state;
    static const size_t run_counts[] = {2, 3, 9, 200};
    static const size_t host_counts[] = {1, 2, 8, 256};
    for (int rows = LAYOUT_MIN_ROWS; rows <= 60; rows++) {
        for (int cols = LAYOUT_MIN_COLS; cols <= 200; cols += 7) {
            for (size_t r = 0; r < 4; r++) {
                for (size_t h = 0; h < 4; h++) {
                    struct layout layout;
                    layout_compute_with_runs(&layout, rows, cols, run_counts[r], host_counts[h],
                                             4, true);
                    assert_usable(&layout, host_counts[h], true);
                    assert_memory_equal(&layout.body,
                                        &((struct rect){1, 0, rows - 2, cols}),
                                        sizeof layout.body);
                    if (rect_is_empty(&layout.runs))
                        continue;
                    assert_true(layout.runs.height >= 2);
                    assert_int_equal(layout.runs.y, 1);
                    const struct rect *next = host_counts[h] > 1 ? &layout.hosts
                                                                 : &layout.allocators;
                    assert_int_equal(next->y, layout.runs.y + layout.runs.height);
                }
            }
        }
    }
    struct layout layout;
    layout_compute_with_runs(&layout, 24, 80, 3, 3, 4, false);
    assert_int_equal(layout.runs.height, 4);
    assert_int_equal(layout.hosts.height, 4);
    layout_compute_with_runs(&layout, 24, 80, 1, 3, 4, false);
    assert_true(rect_is_empty(&layout.runs));
    layout_compute_with_runs(&layout, LAYOUT_MIN_ROWS, LAYOUT_MIN_COLS, 5, 64, 8, true);
    assert_false(rect_is_empty(&layout.runs));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_80x24_single_host),
        cmocka_unit_test(test_80x24_hosts_and_hlo_share_a_place),
        cmocka_unit_test(test_200x60_stacks_everything),
        cmocka_unit_test(test_three_table_panes_take_turns),
        cmocka_unit_test(test_minimum_size_is_usable),
        cmocka_unit_test(test_too_small_draws_nothing),
        cmocka_unit_test(test_many_hosts_scroll_in_a_capped_list),
        cmocka_unit_test(test_many_allocators_leave_room_for_the_summary),
        cmocka_unit_test(test_tall_left_column_shows_the_breakdowns),
        cmocka_unit_test(test_no_allocators_still_lays_out),
        cmocka_unit_test(test_every_size),
        cmocka_unit_test(test_rect_helpers),
        cmocka_unit_test(test_column_fit_hides_empty),
        cmocka_unit_test(test_column_fit_keeps_the_sorted_column_without_reflow),
        cmocka_unit_test(test_column_fit_scrolls_sideways),
        cmocka_unit_test(test_drop_breakdowns),
        cmocka_unit_test(test_keep_one_breakdown),
        cmocka_unit_test(test_runs_list_at_every_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
