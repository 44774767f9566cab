#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "model/format.h"
#include "model/timeline.h"
#include "tests/test_support.h"
#include "ui/chart_columns.h"

#define MAX_WIDTH 512

/* A small deterministic generator: the property tests must repeat. */
static uint64_t random_state = 0x9e3779b97f4a7c15u;

static uint64_t random_next(void)
{
    random_state ^= random_state << 13;
    random_state ^= random_state >> 7;
    random_state ^= random_state << 17;
    return random_state;
}

/* Uniform enough in [low, high]. */
static int64_t random_between(int64_t low, int64_t high)
{
    uint64_t span = chart_range_diff(low, high);
    if (span == UINT64_MAX)
        return (int64_t)(random_next() >> 1);
    return chart_time_add(low, random_next() % (span + 1));
}

static struct snapshot_columns timeline_of(const int64_t *times, const int64_t *heaps, size_t count)
{
    struct snapshot_columns timeline = {0};
    for (size_t i = 0; i < count; i++) {
        struct snapshot snapshot = test_snapshot(times[i], heaps[i]);
        assert_true(snapshot_columns_append(&timeline, &snapshot));
    }
    return timeline;
}

/* Sorted random times in [0, time_limit] (duplicates likely) and heaps. */
static struct snapshot_columns random_timeline(size_t count, int64_t time_limit)
{
    struct snapshot_columns timeline = {0};
    int64_t time = 0;
    for (size_t i = 0; i < count; i++) {
        time += random_between(0, time_limit / (int64_t)(count + 1));
        struct snapshot snapshot = test_snapshot(time, random_between(0, 1 << 30));
        snapshot.stack_bytes = random_between(0, 1 << 10);
        assert_true(snapshot_columns_append(&timeline, &snapshot));
    }
    return timeline;
}

/* The largest stack+heap over the snapshots in [from, to]; -1 if none. */
static int64_t max_in_window(const struct snapshot_columns *timeline, int64_t from, int64_t to)
{
    int64_t best = -1;
    for (size_t i = 0; i < timeline->count; i++)
        if (snapshot_columns_time(timeline, i) >= from &&
            snapshot_columns_time(timeline, i) <= to && snapshot_columns_in_use(timeline, i) > best)
            best = snapshot_columns_in_use(timeline, i);
    return best;
}

/* The largest value over the columns that hold a snapshot; -1 if none. */
static int64_t max_over_columns(const struct chart_column *columns, int width)
{
    int64_t best = -1;
    for (int c = 0; c < width; c++)
        if (!columns[c].carried && columns[c].in_use > best)
            best = columns[c].in_use;
    return best;
}

/* ---- bucketing ---- */

static void test_empty_timeline(void **state)
{
    (void)state;
    struct snapshot_columns timeline = {0};
    struct chart_column columns[8];
    struct chart_window window = {0, 1000, 8};
    chart_columns_compute(&timeline, &window, columns);
    for (int c = 0; c < 8; c++) {
        assert_true(columns[c].carried);
        assert_int_equal(columns[c].snapshot, SIZE_MAX);
        assert_int_equal(columns[c].in_use, 0);
    }
}

static void test_one_snapshot(void **state)
{
    (void)state;
    const int64_t times[] = {500}, heaps[] = {42};
    struct snapshot_columns timeline = timeline_of(times, heaps, 1);
    struct chart_column columns[10];
    struct chart_window window = {0, 999, 10}; /* 100 ps per column */
    chart_columns_compute(&timeline, &window, columns);
    for (int c = 0; c < 5; c++) {
        assert_true(columns[c].carried);
        assert_int_equal(columns[c].snapshot, SIZE_MAX); /* nothing before it */
    }
    assert_false(columns[5].carried);
    assert_int_equal(columns[5].snapshot, 0);
    assert_int_equal(columns[5].in_use, 42);
    for (int c = 6; c < 10; c++) {
        assert_true(columns[c].carried); /* memory stays as it was */
        assert_int_equal(columns[c].snapshot, 0);
        assert_int_equal(columns[c].in_use, 42);
    }
    snapshot_columns_free(&timeline);
}

static void test_equal_times(void **state)
{
    (void)state;
    const int64_t times[] = {10, 20, 20, 20, 30}, heaps[] = {1, 5, 9, 9, 2};
    struct snapshot_columns timeline = timeline_of(times, heaps, 5);
    struct chart_column columns[3];
    struct chart_window window = {10, 39, 3};
    chart_columns_compute(&timeline, &window, columns);
    assert_int_equal(columns[0].snapshot, 0);
    assert_int_equal(columns[1].snapshot, 2); /* the first of the tied maxima */
    assert_int_equal(columns[1].in_use, 9);
    assert_int_equal(columns[2].snapshot, 4);
    /* After the bucket of equal times the carried value is the last of them. */
    struct chart_window later = {21, 29, 3};
    chart_columns_compute(&timeline, &later, columns);
    for (int c = 0; c < 3; c++) {
        assert_true(columns[c].carried);
        assert_int_equal(columns[c].snapshot, 3);
    }
    snapshot_columns_free(&timeline);
}

static void test_all_in_one_bucket(void **state)
{
    (void)state;
    const int64_t times[] = {1, 2, 3, 4}, heaps[] = {7, 70, 3, 69};
    struct snapshot_columns timeline = timeline_of(times, heaps, 4);
    struct chart_column column;
    struct chart_window window = {0, 100, 1};
    chart_columns_compute(&timeline, &window, &column);
    assert_false(column.carried);
    assert_int_equal(column.snapshot, 1);
    assert_int_equal(column.in_use, 70);
    assert_int_equal(column.from_ps, 0);
    assert_int_equal(column.to_ps, 100);
    snapshot_columns_free(&timeline);
}

static void test_window_before_first_and_after_last(void **state)
{
    (void)state;
    const int64_t times[] = {1000, 2000}, heaps[] = {5, 6};
    struct snapshot_columns timeline = timeline_of(times, heaps, 2);
    struct chart_column columns[4];
    struct chart_window before = {0, 999, 4};
    chart_columns_compute(&timeline, &before, columns);
    for (int c = 0; c < 4; c++)
        assert_int_equal(columns[c].snapshot, SIZE_MAX);
    struct chart_window after = {2001, INT64_MAX, 4};
    chart_columns_compute(&timeline, &after, columns);
    for (int c = 0; c < 4; c++) {
        assert_true(columns[c].carried);
        assert_int_equal(columns[c].snapshot, 1);
        assert_int_equal(columns[c].in_use, 6);
    }
    snapshot_columns_free(&timeline);
}

static void test_width_larger_than_count(void **state)
{
    (void)state;
    const int64_t times[] = {0, 50, 99}, heaps[] = {10, 30, 20};
    struct snapshot_columns timeline = timeline_of(times, heaps, 3);
    struct chart_column columns[100];
    struct chart_window window = {0, 99, 100}; /* one ps per column */
    chart_columns_compute(&timeline, &window, columns);
    int holding = 0;
    for (int c = 0; c < 100; c++) {
        holding += !columns[c].carried;
        int64_t expected = c < 50 ? 10 : c < 99 ? 30 : 20;
        assert_int_equal(columns[c].in_use, expected); /* a step function */
    }
    assert_int_equal(holding, 3);
    assert_false(columns[50].carried);
    assert_true(columns[51].carried);
    snapshot_columns_free(&timeline);
}

/* For random timelines and windows the chart's maximum is the data's. */
static void test_peak_visible_property(void **state)
{
    (void)state;
    static struct chart_column columns[MAX_WIDTH];
    for (int round = 0; round < 400; round++) {
        size_t count = (size_t)random_between(0, 300);
        struct snapshot_columns timeline = random_timeline(count, 1000000);
        int64_t from = random_between(-1000, 1100000);
        int64_t to = random_between(from, from + random_between(0, 1200000));
        struct chart_window window = {from, to, (int)random_between(1, MAX_WIDTH)};
        chart_columns_compute(&timeline, &window, columns);
        assert_int_equal(max_over_columns(columns, window.width),
                         max_in_window(&timeline, from, to));
        /* Every column's value is a snapshot of its bucket or the last one
         * before it. */
        for (int c = 0; c < window.width; c++) {
            if (columns[c].snapshot == SIZE_MAX)
                continue;
            int64_t time = snapshot_columns_time(&timeline, columns[c].snapshot);
            if (columns[c].carried)
                assert_true(time < columns[c].from_ps);
            else
                assert_true(time >= columns[c].from_ps && time <= columns[c].to_ps);
        }
        snapshot_columns_free(&timeline);
    }
}

/* Zooming in step by step around random cursors never loses the peak of
 * what is on screen. */
static void test_peak_visible_at_every_zoom(void **state)
{
    (void)state;
    static struct chart_column columns[MAX_WIDTH];
    for (int round = 0; round < 40; round++) {
        struct snapshot_columns timeline = random_timeline(2000, 100000000);
        struct chart_range data = {snapshot_columns_time(&timeline, 0),
                                   snapshot_columns_time(&timeline, timeline.count - 1)};
        int width = (int)random_between(20, 300);
        struct chart_range window = chart_range_full(data, width);
        struct chart_window full = {window.from_ps, window.to_ps, width};
        chart_columns_compute(&timeline, &full, columns);
        assert_int_equal(max_over_columns(columns, width),
                         snapshot_columns_in_use(&timeline,
                                                 timeline_max_in_use(&timeline, 0, timeline.count)));
        for (int level = 0; level < 30; level++) {
            int64_t cursor = random_between(window.from_ps, window.to_ps);
            chart_range_zoom(&window, data, width, cursor, 2, random_next() % 4 != 0);
            struct chart_window shown = {window.from_ps, window.to_ps, width};
            chart_columns_compute(&timeline, &shown, columns);
            int64_t expected = max_in_window(&timeline, window.from_ps, window.to_ps);
            assert_int_equal(max_over_columns(columns, width), expected);
        }
        snapshot_columns_free(&timeline);
    }
}

/* ---- column <-> time ---- */

static void check_window_columns(const struct chart_window *window)
{
    uint64_t diff = chart_range_diff(window->from_ps, window->to_ps);
    bool wide = diff >= (uint64_t)window->width - 1; /* at least 1 ps per column */
    assert_int_equal(chart_column_start(window, 0), window->from_ps);
    assert_int_equal(chart_column_end(window, window->width - 1), window->to_ps);
    for (int c = 0; c < window->width; c++) {
        int64_t start = chart_column_start(window, c), end = chart_column_end(window, c);
        assert_true(start <= end);
        assert_true(start >= window->from_ps && end <= window->to_ps);
        if (c + 1 < window->width) {
            int64_t next = chart_column_start(window, c + 1);
            assert_true(next >= start);
            if (wide)
                assert_int_equal(next, end + 1); /* contiguous, no gap */
        }
        int column = chart_column_of_time(window, start);
        assert_true(chart_column_start(window, column) <= start &&
                    start <= chart_column_end(window, column));
        if (wide) {
            assert_int_equal(column, c);
            assert_int_equal(chart_column_of_time(window, end), c);
        }
    }
}

static void test_column_time_round_trip(void **state)
{
    (void)state;
    const struct chart_window fixed[] = {
        {0, 99, 100},
        {0, 100, 7},
        {-5, 5, 3},
        {INT64_MIN, INT64_MAX, 200},
        {INT64_MIN, INT64_MIN + 199, 200},
        {INT64_MAX - 1000, INT64_MAX, 77},
        {INT64_MIN, 0, 64},
        {0, 9, 40}, /* narrower than the width */
        {3, 3, 5},
    };
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        check_window_columns(&fixed[i]);
    for (int round = 0; round < 300; round++) {
        int64_t from = (int64_t)random_next();
        int64_t to = random_between(from, chart_time_add(from, random_next() >> (random_next() % 64)));
        struct chart_window window = {from, to, (int)random_between(1, MAX_WIDTH)};
        check_window_columns(&window);
    }
}

static void test_time_outside_window(void **state)
{
    (void)state;
    struct chart_window window = {100, 199, 10};
    assert_int_equal(chart_column_of_time(&window, 99), -1);
    assert_int_equal(chart_column_of_time(&window, INT64_MIN), -1);
    assert_int_equal(chart_column_of_time(&window, 200), 10);
    assert_int_equal(chart_column_of_time(&window, INT64_MAX), 10);
    assert_int_equal(chart_column_of_time(&window, 100), 0);
    assert_int_equal(chart_column_of_time(&window, 199), 9);
    assert_int_equal(chart_column_of_time(&window, 155), 5);
    /* Out-of-range columns are clamped. */
    assert_int_equal(chart_column_start(&window, -3), 100);
    assert_int_equal(chart_column_end(&window, 99), 199);
}

static void test_width_zero_and_one(void **state)
{
    (void)state;
    struct chart_window none = {10, 20, 0};
    assert_int_equal(chart_column_start(&none, 0), 10);
    assert_int_equal(chart_column_of_time(&none, 15), 0);
    assert_int_equal(chart_column_of_time(&none, 5), -1);
    struct chart_window one = {INT64_MIN, INT64_MAX, 1};
    assert_int_equal(chart_column_start(&one, 0), INT64_MIN);
    assert_int_equal(chart_column_end(&one, 0), INT64_MAX);
    assert_int_equal(chart_column_of_time(&one, 0), 0);
    const int64_t times[] = {5}, heaps[] = {1};
    struct snapshot_columns timeline = timeline_of(times, heaps, 1);
    struct chart_column column = {.snapshot = 1234};
    chart_columns_compute(&timeline, &none, &column); /* writes nothing */
    assert_int_equal(column.snapshot, 1234);
    chart_columns_compute(&timeline, &one, &column);
    assert_int_equal(column.snapshot, 0);
    snapshot_columns_free(&timeline);
}

/* ---- the window ---- */

static void test_zoom_keeps_cursor_place(void **state)
{
    (void)state;
    struct chart_range data = {0, 1000000};
    struct chart_range window = chart_range_full(data, 100);
    assert_int_equal(window.from_ps, 0);
    assert_int_equal(window.to_ps, 1000000);
    assert_true(chart_range_zoom(&window, data, 100, 250000, 2, true));
    assert_int_equal(window.from_ps, 125000); /* the cursor stays a quarter in */
    assert_int_equal(window.to_ps, 625000);
    assert_true(chart_range_zoom(&window, data, 100, 250000, 2, false));
    assert_int_equal(window.from_ps, 0);
    assert_int_equal(window.to_ps, 1000000);
    assert_false(chart_range_zoom(&window, data, 100, 250000, 2, false)); /* already full */
}

static void test_zoom_clamping(void **state)
{
    (void)state;
    struct chart_range data = {1000, 2000};
    int width = 50;
    struct chart_range window = chart_range_full(data, width);
    /* Zooming in at the right edge keeps the window inside the data. */
    for (int i = 0; i < 20; i++)
        chart_range_zoom(&window, data, width, 2000, 2, true);
    assert_int_equal(window.to_ps, 2000);
    assert_int_equal(chart_range_diff(window.from_ps, window.to_ps), width - 1); /* 1 ps/column */
    assert_false(chart_range_zoom(&window, data, width, 2000, 2, true));
    /* Zooming out near the left edge clamps at the start. */
    window = (struct chart_range){1000, 1100};
    assert_true(chart_range_zoom(&window, data, width, 1010, 2, false));
    assert_int_equal(window.from_ps, 1000);
    assert_int_equal(window.to_ps, 1201); /* 101 ps out by 2, rounded up */
    /* Data narrower than the width: the full window is widened. */
    struct chart_range tiny = {INT64_MAX - 3, INT64_MAX};
    window = chart_range_full(tiny, width);
    assert_int_equal(window.to_ps, INT64_MAX);
    assert_int_equal(chart_range_diff(window.from_ps, window.to_ps), width - 1);
    /* The whole int64 range zooms without overflow. */
    struct chart_range huge = {INT64_MIN, INT64_MAX};
    window = huge;
    assert_true(chart_range_zoom(&window, huge, width, 0, 2, true));
    assert_true(window.from_ps < 0 && window.to_ps > 0);
    assert_true(chart_range_zoom(&window, huge, width, 0, 2, false));
    assert_int_equal(window.from_ps, INT64_MIN);
    assert_int_equal(window.to_ps, INT64_MAX);
}

static void test_scroll_and_show(void **state)
{
    (void)state;
    struct chart_range data = {0, 999};
    struct chart_range window = {100, 199};
    assert_true(chart_range_scroll(&window, data, 100, 10));
    assert_int_equal(window.from_ps, 109); /* 10 columns of 99/100 ps */
    assert_true(chart_range_scroll(&window, data, 100, -1000));
    assert_int_equal(window.from_ps, 0);
    assert_int_equal(window.to_ps, 99);
    assert_false(chart_range_scroll(&window, data, 100, -1));
    assert_true(chart_range_scroll(&window, data, 100, 100000));
    assert_int_equal(window.to_ps, 999);
    assert_false(chart_range_show(&window, data, 100, 950)); /* already shown */
    assert_true(chart_range_show(&window, data, 100, 300));
    assert_true(window.from_ps <= 300 && window.to_ps >= 300);
    assert_int_equal(chart_range_diff(window.from_ps, window.to_ps), 99);
    assert_int_equal(window.from_ps, 300 - 49); /* centred */
}

/* ---- arithmetic ---- */

static void test_multiply_divide(void **state)
{
    (void)state;
    assert_int_equal(chart_multiply_divide(10, 20, 7), 28);
    assert_int_equal(chart_multiply_divide(UINT64_MAX, UINT64_MAX, UINT64_MAX), UINT64_MAX);
    assert_int_equal(chart_multiply_divide(UINT64_MAX - 1, UINT64_MAX, UINT64_MAX), UINT64_MAX - 1);
    assert_int_equal(chart_multiply_divide(1ull << 63, 6, 8), 6ull << 60);
    assert_int_equal(chart_multiply_divide(5, 5, 0), 0);
#ifdef __SIZEOF_INT128__
    for (int i = 0; i < 10000; i++) {
        uint64_t divisor = random_next() >> (random_next() % 64);
        if (divisor == 0)
            divisor = 1;
        uint64_t a = divisor == 1 ? 0 : random_next() % divisor; /* a <= divisor */
        uint64_t b = random_next() >> (random_next() % 64);
        unsigned __int128 expected = (unsigned __int128)a * b / divisor;
        assert_int_equal(chart_multiply_divide(a, b, divisor), (uint64_t)expected);
        assert_int_equal(chart_multiply_divide(b, a, divisor), (uint64_t)expected);
    }
#endif
}

static void test_time_add_subtract(void **state)
{
    (void)state;
    assert_int_equal(chart_time_add(INT64_MIN, UINT64_MAX), INT64_MAX);
    assert_int_equal(chart_time_add(INT64_MIN, (uint64_t)INT64_MAX + 1), 0);
    assert_int_equal(chart_time_add(1, UINT64_MAX), INT64_MAX);
    assert_int_equal(chart_time_add(-5, 3), -2);
    assert_int_equal(chart_time_subtract(INT64_MAX, UINT64_MAX), INT64_MIN);
    assert_int_equal(chart_time_subtract(0, (uint64_t)INT64_MAX + 1), INT64_MIN);
    assert_int_equal(chart_time_subtract(-1, UINT64_MAX), INT64_MIN);
    assert_int_equal(chart_time_subtract(5, 7), -2);
    assert_int_equal(chart_range_diff(INT64_MIN, INT64_MAX), UINT64_MAX);
    assert_int_equal(chart_range_diff(5, 4), 0);
}

/* ---- drawing helpers ---- */

static void test_glyphs(void **state)
{
    (void)state;
    assert_string_equal(chart_bar_glyph(0, true), " ");
    assert_string_equal(chart_bar_glyph(1, true), "\xe2\x96\x81");  /* ▁ */
    assert_string_equal(chart_bar_glyph(4, true), "\xe2\x96\x84");  /* ▄ */
    assert_string_equal(chart_bar_glyph(8, true), "\xe2\x96\x88");  /* █ */
    assert_string_equal(chart_bar_glyph(99, true), "\xe2\x96\x88"); /* clamped */
    assert_string_equal(chart_bar_glyph(-1, true), " ");
    assert_string_equal(chart_bar_glyph(0, false), " ");
    assert_string_equal(chart_bar_glyph(1, false), ".");
    assert_string_equal(chart_bar_glyph(4, false), ":");
    assert_string_equal(chart_bar_glyph(8, false), "#");
    for (int e = 0; e <= 8; e++) /* ASCII glyphs are one plain byte */
        assert_int_equal(strlen(chart_bar_glyph(e, false)), 1);
}

static void test_bar_heights(void **state)
{
    (void)state;
    assert_int_equal(chart_bar_eighths(100, 100, 5), 40);
    assert_int_equal(chart_bar_eighths(50, 100, 5), 20);
    assert_int_equal(chart_bar_eighths(1, 1000000, 5), 1); /* visible at all */
    assert_int_equal(chart_bar_eighths(0, 100, 5), 0);
    assert_int_equal(chart_bar_eighths(200, 100, 5), 40);
    assert_int_equal(chart_bar_eighths(INT64_MAX - 1, INT64_MAX, 1000), 8000);
    assert_int_equal(chart_bar_eighths(5, 0, 5), 0);
    /* A bar 20 eighths high in 5 rows: two full rows, a half, then empty. */
    assert_int_equal(chart_cell_eighths(20, 0), 8);
    assert_int_equal(chart_cell_eighths(20, 1), 8);
    assert_int_equal(chart_cell_eighths(20, 2), 4);
    assert_int_equal(chart_cell_eighths(20, 3), 0);
}

static void test_scale_ticks(void **state)
{
    (void)state;
    const int64_t mib = 1024 * 1024;
    struct chart_scale scale = chart_scale_ticks(291 * mib + 850 * 1024, 4);
    assert_int_equal(scale.step, 100 * mib);
    assert_int_equal(scale.count, 3);
    char buffer[FORMAT_BYTES_SIZE];
    assert_string_equal(format_bytes(scale.step, buffer, sizeof buffer), "100.00 MiB");
    scale = chart_scale_ticks(30 * 1024 * mib, 7);
    assert_int_equal(scale.step, 5 * 1024 * mib);
    assert_int_equal(scale.count, 7);
    scale = chart_scale_ticks(900, 3);
    assert_int_equal(scale.step, 500);
    scale = chart_scale_ticks(0, 5);
    assert_int_equal(scale.count, 1);
    scale = chart_scale_ticks(INT64_MAX, 3);
    assert_true(scale.count >= 1 && scale.count <= 3);
    /* Random tops: ticks fit under the top and there are not too many. */
    for (int i = 0; i < 1000; i++) {
        int64_t top = random_between(1, INT64_MAX);
        int ticks = (int)random_between(2, 12);
        scale = chart_scale_ticks(top, ticks);
        assert_true(scale.count >= 1 && scale.count <= ticks);
        assert_true(scale.step > 0);
        assert_true(scale.step <= top || scale.count == 1);
        assert_true((scale.count - 1) <= top / scale.step);
    }
}

/* An auto-ranged axis starts at a tick under the lowest value. */
static void test_axis_bottom(void **state)
{
    (void)state;
    const int64_t mib = 1024 * 1024;
    /* The XProf TPU file: 200..292 MiB, three ticks: 50 MiB steps. */
    assert_int_equal(chart_axis_bottom(205 * mib, 292 * mib, 3), 200 * mib);
    /* A lowest value on a tick: one step below, so its bar shows. */
    assert_int_equal(chart_axis_bottom(200 * mib, 292 * mib, 3), 150 * mib);
    /* Flat, or from 0: nothing to cut. */
    assert_int_equal(chart_axis_bottom(5 * mib, 5 * mib, 3), 0);
    assert_int_equal(chart_axis_bottom(0, 5 * mib, 3), 0);
    assert_int_equal(chart_axis_bottom(-3, 5 * mib, 3), 0);
    /* Never below 0, never above the lowest value. */
    for (int i = 0; i < 1000; i++) {
        int64_t top = random_between(2, INT64_MAX / 2);
        int64_t lowest = random_between(1, top);
        int ticks = (int)random_between(2, 12);
        int64_t bottom = chart_axis_bottom(lowest, top, ticks);
        assert_true(bottom >= 0);
        assert_true(bottom < lowest || (bottom == 0 && lowest == top));
    }
}

static void test_time_labels(void **state)
{
    (void)state;
    char buffer[64];
    assert_int_equal(chart_time_decimals(1000000000), 0);
    assert_int_equal(chart_time_decimals(100000000), 1);
    assert_int_equal(chart_time_decimals(5000000), 3);
    assert_int_equal(chart_time_decimals(1), 9);
    assert_int_equal(chart_time_decimals(0), 9);
    assert_string_equal(format_milliseconds_value(1685890000000, 3, buffer, sizeof buffer),
                        "1685.890");
    assert_string_equal(format_milliseconds_value(1685890000000, 0, buffer, sizeof buffer), "1686");
    assert_string_equal(format_milliseconds_value(1685890000, 2, buffer, sizeof buffer), "1.69");
    assert_string_equal(format_milliseconds_value(1685890000, 3, buffer, sizeof buffer), "1.686");
    assert_string_equal(format_milliseconds_value(999999999, 2, buffer, sizeof buffer), "1.00");
    assert_string_equal(format_milliseconds_value(-995000000, 2, buffer, sizeof buffer), "-1.00");
    assert_string_equal(format_milliseconds_value(-1500000000, 1, buffer, sizeof buffer), "-1.5");
    assert_string_equal(format_milliseconds_value(7, 9, buffer, sizeof buffer), "0.000000007");
    assert_string_equal(format_milliseconds_value(INT64_MIN, 2, buffer, sizeof buffer),
                        "-9223372036.85");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_timeline),
        cmocka_unit_test(test_one_snapshot),
        cmocka_unit_test(test_equal_times),
        cmocka_unit_test(test_all_in_one_bucket),
        cmocka_unit_test(test_window_before_first_and_after_last),
        cmocka_unit_test(test_width_larger_than_count),
        cmocka_unit_test(test_peak_visible_property),
        cmocka_unit_test(test_peak_visible_at_every_zoom),
        cmocka_unit_test(test_column_time_round_trip),
        cmocka_unit_test(test_time_outside_window),
        cmocka_unit_test(test_width_zero_and_one),
        cmocka_unit_test(test_zoom_keeps_cursor_place),
        cmocka_unit_test(test_zoom_clamping),
        cmocka_unit_test(test_scroll_and_show),
        cmocka_unit_test(test_multiply_divide),
        cmocka_unit_test(test_time_add_subtract),
        cmocka_unit_test(test_glyphs),
        cmocka_unit_test(test_bar_heights),
        cmocka_unit_test(test_scale_ticks),
        cmocka_unit_test(test_axis_bottom),
        cmocka_unit_test(test_time_labels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
