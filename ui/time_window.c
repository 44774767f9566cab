#include "config.h"

#include "ui/time_window.h"

#include <stdio.h>

#include "model/format.h"
#include "model/timeline.h"
#include "ui/chart_columns.h"

int time_window_columns(const struct time_window *time)
{
    return time->columns > 0 ? time->columns : TIME_WINDOW_DEFAULT_COLUMNS;
}

struct chart_range time_window_data(const struct time_window *time,
                                    const struct snapshot_columns *timeline)
{
    struct chart_range data = {snapshot_columns_time(timeline, 0),
                               snapshot_columns_time(timeline, timeline->count - 1)};
    int64_t least_end = chart_time_add(data.from_ps, (uint64_t)time->least_span_ps);
    if (time->least_span_ps > 0 && least_end > data.to_ps)
        data.to_ps = least_end;
    return data;
}

static struct chart_window time_window_plot(const struct time_window *time)
{
    return (struct chart_window){time->from_ps, time->to_ps, time_window_columns(time)};
}

/* Sets the window and keeps the cursor inside it; a cursor that had to
 * move no longer shows a pinned snapshot. */
static void time_window_set_range(struct time_window *time, struct chart_range range)
{
    time->from_ps = range.from_ps;
    time->to_ps = range.to_ps;
    int64_t cursor = time->cursor_ps;
    if (cursor < range.from_ps)
        cursor = range.from_ps;
    if (cursor > range.to_ps)
        cursor = range.to_ps;
    if (cursor != time->cursor_ps)
        time->pinned = SIZE_MAX;
    time->cursor_ps = cursor;
}

static void time_window_pin(struct time_window *time, const struct snapshot_columns *timeline,
                            size_t index)
{
    time->cursor_ps = snapshot_columns_time(timeline, index);
    time->pinned = index;
}

void time_window_fit(struct time_window *time, const struct snapshot_columns *timeline)
{
    struct chart_range range = {time->from_ps, time->to_ps};
    int columns = time_window_columns(time);
    struct chart_range data = time_window_data(time, timeline);
    time_window_set_range(time, chart_range_clamp(range, data, columns));
    if (time->pinned != SIZE_MAX &&
        (time->pinned >= timeline->count ||
         snapshot_columns_time(timeline, time->pinned) != time->cursor_ps))
        time->pinned = SIZE_MAX;
}

/* The snapshot of the summary's peak: at the peak time, the last one with
 * the peak's stack+heap (XProf's tie rule); the nearest when the file's
 * summary names a time the timeline does not have. */
static size_t time_window_peak_snapshot(const struct allocator *allocator)
{
    const struct snapshot_columns *timeline = &allocator->timeline;
    const struct allocator_summary *summary = &allocator->summary;
    size_t first, end;
    timeline_range(timeline, summary->peak_time_ps, summary->peak_time_ps, &first, &end);
    for (size_t i = end; i > first; i--)
        if (snapshot_columns_in_use(timeline, i - 1) == summary->peak_bytes)
            return i - 1;
    if (first < end)
        return chart_range_max(timeline, first, end);
    return timeline_nearest(timeline, summary->peak_time_ps);
}

void time_window_reset(struct time_window *time, const struct allocator *allocator)
{
    time->from_ps = time->to_ps = time->cursor_ps = 0;
    time->pinned = SIZE_MAX;
    time->marked = false;
    if (!allocator || allocator->timeline.count == 0)
        return;
    const struct snapshot_columns *timeline = &allocator->timeline;
    struct chart_range full =
        chart_range_full(time_window_data(time, timeline), time_window_columns(time));
    time->from_ps = full.from_ps;
    time->to_ps = full.to_ps;
    size_t peak = time_window_peak_snapshot(allocator);
    if (peak != SIZE_MAX)
        time_window_pin(time, timeline, peak);
    else
        time->cursor_ps = full.from_ps;
}

enum time_window_move time_window_move(struct time_window *time,
                                       const struct snapshot_columns *timeline, int delta)
{
    int width = time_window_columns(time);
    struct chart_window window = time_window_plot(time);
    int column = chart_column_of_time(&window, time->cursor_ps);
    column = column < 0 ? 0 : column >= width ? width - 1 : column;
    long long target = (long long)column + delta;
    time->pinned = SIZE_MAX;
    if (target >= 0 && target < width) {
        time->cursor_ps = chart_column_start(&window, (int)target);
        return TIME_WINDOW_MOVED;
    }
    struct chart_range range = {time->from_ps, time->to_ps};
    int overshoot = target < 0 ? (int)target : (int)(target - (width - 1));
    bool moved = chart_range_scroll(&range, time_window_data(time, timeline), width, overshoot);
    time->from_ps = range.from_ps;
    time->to_ps = range.to_ps;
    window = time_window_plot(time);
    time->cursor_ps = chart_column_start(&window, target < 0 ? 0 : width - 1);
    if (!moved && (column == 0 || column == width - 1))
        return target < 0 ? TIME_WINDOW_AT_START : TIME_WINDOW_AT_END;
    return TIME_WINDOW_MOVED;
}

void time_window_move_to_edge(struct time_window *time, const struct snapshot_columns *timeline,
                              bool last)
{
    int width = time_window_columns(time);
    struct chart_window window = time_window_plot(time);
    int edge = last ? width - 1 : 0;
    time->pinned = SIZE_MAX;
    if (chart_column_of_time(&window, time->cursor_ps) != edge) {
        time->cursor_ps = chart_column_start(&window, edge);
        return;
    }
    struct chart_range data = time_window_data(time, timeline);
    uint64_t diff = chart_range_diff(time->from_ps, time->to_ps);
    struct chart_range range = last ? (struct chart_range){chart_time_subtract(data.to_ps, diff),
                                                           data.to_ps}
                                    : (struct chart_range){data.from_ps,
                                                           chart_time_add(data.from_ps, diff)};
    range = chart_range_clamp(range, data, width);
    time->from_ps = range.from_ps;
    time->to_ps = range.to_ps;
    window = time_window_plot(time);
    time->cursor_ps = chart_column_start(&window, edge);
}

bool time_window_one_snapshot_per_column(const struct time_window *time,
                                         const struct snapshot_columns *timeline)
{
    struct chart_window window = time_window_plot(time);
    for (int c = 0; c < window.width; c++) {
        size_t first, end;
        timeline_range(timeline, chart_column_start(&window, c), chart_column_end(&window, c),
                       &first, &end);
        if (end - first >= 2 &&
            snapshot_columns_time(timeline, first) != snapshot_columns_time(timeline, end - 1))
            return false;
    }
    return true;
}

bool time_window_zoom(struct time_window *time, const struct snapshot_columns *timeline,
                      bool zoom_in)
{
    if (zoom_in && time_window_one_snapshot_per_column(time, timeline))
        return false;
    struct chart_range range = {time->from_ps, time->to_ps};
    bool changed = chart_range_zoom(&range, time_window_data(time, timeline),
                                    time_window_columns(time), time->cursor_ps, 2, zoom_in);
    time_window_set_range(time, range);
    return changed;
}

void time_window_show_all(struct time_window *time, const struct snapshot_columns *timeline)
{
    struct chart_range data = time_window_data(time, timeline);
    time_window_set_range(time, chart_range_full(data, time_window_columns(time)));
}

size_t time_window_jump_to_peak(struct time_window *time, const struct allocator *allocator)
{
    const struct snapshot_columns *timeline = &allocator->timeline;
    if (timeline->count == 0)
        return SIZE_MAX;
    size_t peak = time_window_peak_snapshot(allocator);
    if (peak == SIZE_MAX)
        return SIZE_MAX;
    /* Out of view: the window scrolls to it; the zoom stays. */
    time_window_show_snapshot(time, timeline, peak);
    return peak;
}

enum time_window_move time_window_step_event(struct time_window *time,
                                             const struct snapshot_columns *timeline,
                                             int direction)
{
    if (timeline->count == 0)
        return direction > 0 ? TIME_WINDOW_AT_END : TIME_WINDOW_AT_START;
    size_t index;
    if (time->pinned != SIZE_MAX && time->pinned < timeline->count) {
        if (direction > 0 ? time->pinned + 1 >= timeline->count : time->pinned == 0)
            return direction > 0 ? TIME_WINDOW_AT_END : TIME_WINDOW_AT_START;
        index = direction > 0 ? time->pinned + 1 : time->pinned - 1;
    } else {
        /* From the cursor's time: the first event at or after it, or the
         * last one before it. */
        size_t at = timeline_find_time(timeline, time->cursor_ps);
        if (direction > 0 ? at >= timeline->count : at == 0)
            return direction > 0 ? TIME_WINDOW_AT_END : TIME_WINDOW_AT_START;
        index = direction > 0 ? at : at - 1;
    }
    time_window_show_snapshot(time, timeline, index);
    return TIME_WINDOW_MOVED;
}

void time_window_cursor_events(const struct time_window *time,
                               const struct snapshot_columns *timeline, size_t *first,
                               size_t *end)
{
    struct chart_window window = time_window_plot(time);
    int column = chart_column_of_time(&window, time->cursor_ps);
    column = column < 0 ? 0 : column >= window.width ? window.width - 1 : column;
    timeline_range(timeline, chart_column_start(&window, column),
                   chart_column_end(&window, column), first, end);
}

size_t time_window_shown_snapshot(const struct time_window *time,
                                  const struct snapshot_columns *timeline, bool *carried)
{
    *carried = false;
    if (timeline->count == 0)
        return SIZE_MAX;
    if (time->pinned != SIZE_MAX && time->pinned < timeline->count)
        return time->pinned;
    size_t first, end;
    time_window_cursor_events(time, timeline, &first, &end);
    if (first < end)
        return chart_range_max(timeline, first, end);
    *carried = first > 0;
    return first > 0 ? first - 1 : SIZE_MAX;
}

int64_t time_window_shown_time(const struct time_window *time,
                               const struct snapshot_columns *timeline)
{
    bool carried;
    size_t index = time_window_shown_snapshot(time, timeline, &carried);
    return index == SIZE_MAX || carried ? time->cursor_ps : snapshot_columns_time(timeline, index);
}

void time_window_show_snapshot(struct time_window *time, const struct snapshot_columns *timeline,
                               size_t index)
{
    struct chart_range range = {time->from_ps, time->to_ps};
    chart_range_show(&range, time_window_data(time, timeline), time_window_columns(time),
                     snapshot_columns_time(timeline, index));
    time_window_set_range(time, range);
    time_window_pin(time, timeline, index);
}

void time_window_jump_to(struct time_window *time, const struct snapshot_columns *timeline,
                         int64_t time_ps)
{
    if (timeline->count == 0)
        return;
    time_window_fit(time, timeline);
    size_t index = timeline_nearest(timeline, time_ps);
    struct chart_range data = time_window_data(time, timeline);
    int64_t at = time_ps < data.from_ps ? data.from_ps : time_ps > data.to_ps ? data.to_ps
                                                                              : time_ps;
    struct chart_range range = {time->from_ps, time->to_ps};
    chart_range_show(&range, data, time_window_columns(time), at);
    time_window_set_range(time, range);
    /* A sampled timeline may lack the exact snapshot: then the cursor
     * goes to the time and the readout shows that column. */
    if (snapshot_columns_time(timeline, index) == time_ps) {
        time_window_pin(time, timeline, index);
    } else {
        time->cursor_ps = at;
        time->pinned = SIZE_MAX;
    }
}

bool time_window_zoom_to(struct time_window *time, const struct snapshot_columns *timeline,
                         int64_t from_ps, int64_t to_ps)
{
    if (timeline->count == 0)
        return false;
    if (from_ps > to_ps) {
        int64_t swap = from_ps;
        from_ps = to_ps;
        to_ps = swap;
    }
    size_t first, end;
    timeline_range(timeline, from_ps, to_ps, &first, &end);
    if (first >= end)
        return false;
    struct chart_range data = time_window_data(time, timeline);
    struct chart_range range = {from_ps > data.from_ps ? from_ps : data.from_ps,
                                to_ps < data.to_ps ? to_ps : data.to_ps};
    time_window_set_range(time, chart_range_clamp(range, data, time_window_columns(time)));
    time_window_pin(time, timeline, chart_range_max(timeline, first, end));
    return true;
}

void time_window_set_column(struct time_window *time, int column)
{
    struct chart_window window = time_window_plot(time);
    time->cursor_ps = chart_column_start(&window, column);
    time->pinned = SIZE_MAX;
}

char *time_window_text(const struct time_window *time, int64_t time_ps, char *buffer,
                       size_t size)
{
    uint64_t diff = chart_range_diff(time->from_ps, time->to_ps);
    uint64_t per_column = diff / (uint64_t)time_window_columns(time);
    int decimals = chart_time_decimals(per_column > INT64_MAX ? INT64_MAX : (int64_t)per_column);
    char number[48];
    format_milliseconds_value(time_ps, decimals < 3 ? 3 : decimals, number, sizeof number);
    snprintf(buffer, size, "%s ms", number);
    return buffer;
}
