/* time_window: the viewer's shared time (the chart's window and cursor)
 * and what moves it, without a screen. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "test_support.h"
#include "ui/time_window.h"

/* Snapshots at 0, 10, ..., 990 ps; the largest (900 bytes) at 500 ps. */
static struct allocator test_allocator(void)
{
    struct allocator allocator;
    memset(&allocator, 0, sizeof allocator);
    for (int64_t i = 0; i < 100; i++) {
        struct snapshot snapshot = test_snapshot(i * 10, i == 50 ? 900 : 100 + i);
        assert_true(snapshot_columns_append(&allocator.timeline, &snapshot));
    }
    allocator.summary.peak_time_ps = 500;
    allocator.summary.peak_bytes = 900;
    return allocator;
}

static void test_reset_shows_everything_with_the_cursor_on_the_peak(void **state)
{
    (void)state;
    struct allocator allocator = test_allocator();
    struct time_window time = {.columns = 50};
    time_window_reset(&time, &allocator);
    assert_int_equal(time.from_ps, 0);
    assert_int_equal(time.to_ps, 990);
    assert_int_equal(time.cursor_ps, 500);
    assert_int_equal(time.pinned, 50);
    /* No allocator, or no snapshot: nothing to show. */
    time_window_reset(&time, NULL);
    assert_int_equal(time.pinned, SIZE_MAX);
    assert_int_equal(time.to_ps, 0);
    snapshot_columns_free(&allocator.timeline);
}

static void test_jumps_and_zooms_that_other_panes_ask_for(void **state)
{
    (void)state;
    struct allocator allocator = test_allocator();
    const struct snapshot_columns *timeline = &allocator.timeline;
    struct time_window time = {.columns = 50};
    time_window_reset(&time, &allocator);
    /* A table row's time: the exact snapshot is pinned. */
    time_window_jump_to(&time, timeline, 120);
    assert_int_equal(time.cursor_ps, 120);
    assert_int_equal(time.pinned, 12);
    /* A time between snapshots: the cursor goes there, nothing pinned. */
    time_window_jump_to(&time, timeline, 125);
    assert_int_equal(time.cursor_ps, 125);
    assert_int_equal(time.pinned, SIZE_MAX);
    /* An HLO module's span, in either order: the window, and its largest. */
    assert_true(time_window_zoom_to(&time, timeline, 590, 400));
    assert_true(time.from_ps <= 400 && time.to_ps >= 590);
    assert_true(time.to_ps - time.from_ps < 990);
    assert_int_equal(time.pinned, 50);
    assert_false(time_window_zoom_to(&time, timeline, 1001, 1005));
    assert_int_equal(time.pinned, 50);
    char text[64];
    assert_string_equal(time_window_text(&time, 500, text, sizeof text), "0.000000500 ms");
    snapshot_columns_free(&allocator.timeline);
}

/* What the cursor stands for: the pinned snapshot, else its column's
 * largest, else the last before it; a new allocator forgets the mark. */
static void test_shown_time(void **state)
{
    (void)state;
    struct allocator allocator = test_allocator();
    const struct snapshot_columns *timeline = &allocator.timeline;
    struct time_window time = {.columns = 50};
    time_window_reset(&time, &allocator);
    bool carried = true;
    assert_int_equal(time_window_shown_snapshot(&time, timeline, &carried), 50);
    assert_false(carried);
    assert_int_equal(time_window_shown_time(&time, timeline), 500);
    /* Unpinned: the cursor's column holds 480 and 490; 490 is larger. */
    time_window_jump_to(&time, timeline, 485);
    assert_int_equal(time.pinned, SIZE_MAX);
    assert_int_equal(time_window_shown_snapshot(&time, timeline, &carried), 49);
    assert_int_equal(time_window_shown_time(&time, timeline), 490);
    /* Zoomed to a picosecond per column: 485 holds no snapshot, 480 is carried. */
    assert_true(time_window_zoom_to(&time, timeline, 470, 519));
    time.cursor_ps = 485;
    time.pinned = SIZE_MAX;
    assert_int_equal(time_window_shown_snapshot(&time, timeline, &carried), 48);
    assert_true(carried);
    assert_int_equal(time_window_shown_time(&time, timeline), 485);
    time.marked = true;
    time_window_reset(&time, &allocator);
    assert_false(time.marked);
    snapshot_columns_free(&allocator.timeline);
}

static void test_moving_scrolls_at_the_edges(void **state)
{
    (void)state;
    struct allocator allocator = test_allocator();
    const struct snapshot_columns *timeline = &allocator.timeline;
    struct time_window time = {.columns = 50};
    time_window_reset(&time, &allocator);
    time_window_move_to_edge(&time, timeline, false);
    assert_int_equal(time.cursor_ps, 0);
    assert_int_equal(time_window_move(&time, timeline, -1), TIME_WINDOW_AT_START);
    assert_true(time_window_zoom(&time, timeline, true));
    assert_true(time.to_ps < 990);
    time_window_move_to_edge(&time, timeline, true);
    time_window_move_to_edge(&time, timeline, true);
    assert_int_equal(time.to_ps, 990);
    assert_int_equal(time_window_move(&time, timeline, 1), TIME_WINDOW_AT_END);
    time_window_show_all(&time, timeline);
    assert_int_equal(time.from_ps, 0);
    assert_int_equal(time.to_ps, 990);
    assert_false(time_window_zoom(&time, timeline, false));
    assert_int_equal(time_window_jump_to_peak(&time, &allocator), 50);
    assert_int_equal(time.cursor_ps, 500);
    snapshot_columns_free(&allocator.timeline);
}

/* The allocator above in a 50-column window showing all of it. */
struct shown {
    struct allocator allocator;
    struct time_window time;
};

static int shown_setup(void **state)
{
    struct shown *shown = calloc(1, sizeof *shown);
    assert_non_null(shown);
    shown->allocator = test_allocator();
    shown->time.columns = 50;
    time_window_reset(&shown->time, &shown->allocator);
    *state = shown;
    return 0;
}

static int shown_teardown(void **state)
{
    struct shown *shown = *state;
    snapshot_columns_free(&shown->allocator.timeline);
    free(shown);
    return 0;
}

/* Zooming in stops once every column holds at most one snapshot (or
 * snapshots of one time), long before a picosecond per column. */
static void test_zoom_stops_at_one_snapshot_per_column(void **state)
{
    struct shown *shown = *state;
    const struct snapshot_columns *timeline = &shown->allocator.timeline;
    struct time_window *time = &shown->time;
    assert_false(time_window_one_snapshot_per_column(time, timeline));
    int zooms = 0;
    while (time_window_zoom(time, timeline, true))
        assert_true(++zooms < 20);
    assert_true(zooms >= 1);
    assert_true(time_window_one_snapshot_per_column(time, timeline));
    /* Snapshots are 10 ps apart: 50 columns of one each span about
     * 500 ps; 1 ps per column would be 50. */
    assert_true(time->to_ps - time->from_ps >= 250);
    /* Zooming out and in again is possible. */
    assert_true(time_window_zoom(time, timeline, false));
    assert_true(time_window_zoom(time, timeline, true));
}

/* p: the window scrolls to the peak and keeps its zoom. */
static void test_peak_keeps_the_zoom(void **state)
{
    struct shown *shown = *state;
    const struct snapshot_columns *timeline = &shown->allocator.timeline;
    struct time_window *time = &shown->time;
    time_window_move_to_edge(time, timeline, false);
    assert_true(time_window_zoom(time, timeline, true));
    int64_t length = time->to_ps - time->from_ps;
    assert_true(time->to_ps < 500);
    assert_int_equal(time_window_jump_to_peak(time, &shown->allocator), 50);
    assert_int_equal(time->to_ps - time->from_ps, length);
    assert_true(time->from_ps <= 500 && time->to_ps >= 500);
    assert_int_equal(time->pinned, 50);
}

/* , and .: every event in turn, from a pinned one or from the cursor. */
static void test_step_through_events(void **state)
{
    struct shown *shown = *state;
    const struct snapshot_columns *timeline = &shown->allocator.timeline;
    struct time_window *time = &shown->time;
    assert_int_equal(time_window_step_event(time, timeline, 1), TIME_WINDOW_MOVED);
    assert_int_equal(time->pinned, 51);
    assert_int_equal(time->cursor_ps, 510);
    assert_int_equal(time_window_step_event(time, timeline, -1), TIME_WINDOW_MOVED);
    assert_int_equal(time_window_step_event(time, timeline, -1), TIME_WINDOW_MOVED);
    assert_int_equal(time->pinned, 49);
    /* From a cursor between snapshots: the next at or after it, the
     * last before it. */
    time_window_jump_to(time, timeline, 125);
    assert_int_equal(time_window_step_event(time, timeline, 1), TIME_WINDOW_MOVED);
    assert_int_equal(time->pinned, 13);
    time_window_jump_to(time, timeline, 125);
    assert_int_equal(time_window_step_event(time, timeline, -1), TIME_WINDOW_MOVED);
    assert_int_equal(time->pinned, 12);
    /* The ends. */
    time_window_show_snapshot(time, timeline, 0);
    assert_int_equal(time_window_step_event(time, timeline, -1), TIME_WINDOW_AT_START);
    time_window_show_snapshot(time, timeline, 99);
    assert_int_equal(time_window_step_event(time, timeline, 1), TIME_WINDOW_AT_END);
    assert_int_equal(time->pinned, 99);
    /* Zoomed in, stepping past the window's edge scrolls it, same length. */
    time_window_reset(time, &shown->allocator);
    while (time_window_zoom(time, timeline, true))
        ;
    int64_t length = time->to_ps - time->from_ps;
    time_window_show_snapshot(time, timeline, 50);
    int64_t last_shown = time->to_ps;
    while (time->pinned < 99 && snapshot_columns_time(timeline, time->pinned) <= last_shown)
        assert_int_equal(time_window_step_event(time, timeline, 1), TIME_WINDOW_MOVED);
    assert_true(time->to_ps > last_shown);
    assert_true(time->cursor_ps <= time->to_ps);
    assert_int_equal(time->to_ps - time->from_ps, length);
}

/* Enter lists the events of the cursor's column. */
static void test_cursor_events(void **state)
{
    struct shown *shown = *state;
    size_t first, end;
    time_window_cursor_events(&shown->time, &shown->allocator.timeline, &first, &end);
    /* 50 columns over 0..990: about 20 ps, two snapshots each; the
     * peak's column holds it. */
    assert_true(first <= 50 && end > 50);
    assert_int_equal(end - first, 2);
}

/* Two timelines compared: the window moves over the longer one's span,
 * from this timeline's first snapshot. */
static void test_least_span_reaches_past_the_last_snapshot(void **state)
{
    (void)state;
    struct allocator allocator = test_allocator();
    const struct snapshot_columns *timeline = &allocator.timeline;
    struct time_window time = {.columns = 50, .least_span_ps = 3000};
    time_window_reset(&time, &allocator);
    assert_int_equal(time.from_ps, 0);
    assert_int_equal(time.to_ps, 3000);
    assert_int_equal(time.pinned, 50);
    time_window_move_to_edge(&time, timeline, true);
    time_window_move_to_edge(&time, timeline, true);
    assert_true(time.cursor_ps > 990);
    /* Shorter than the timeline: the timeline's own span. */
    time.least_span_ps = 500;
    time_window_show_all(&time, timeline);
    assert_int_equal(time.to_ps, 990);
    struct chart_range data = time_window_data(&time, timeline);
    assert_int_equal(data.from_ps, 0);
    assert_int_equal(data.to_ps, 990);
    snapshot_columns_free(&allocator.timeline);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reset_shows_everything_with_the_cursor_on_the_peak),
        cmocka_unit_test(test_jumps_and_zooms_that_other_panes_ask_for),
        cmocka_unit_test(test_shown_time),
        cmocka_unit_test(test_moving_scrolls_at_the_edges),
        cmocka_unit_test(test_least_span_reaches_past_the_last_snapshot),
        cmocka_unit_test_setup_teardown(test_zoom_stops_at_one_snapshot_per_column, shown_setup, shown_teardown),
        cmocka_unit_test_setup_teardown(test_peak_keeps_the_zoom, shown_setup, shown_teardown),
        cmocka_unit_test_setup_teardown(test_step_through_events, shown_setup, shown_teardown),
        cmocka_unit_test_setup_teardown(test_cursor_events, shown_setup, shown_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
