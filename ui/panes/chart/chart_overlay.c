/* chart_overlay: a second timeline drawn as a line over the chart's bars
 * (two profiles compared; see chart_frame.h): its columns in the
 * same window, the y range both need, and the line itself. Called by
 * chart_pane.c; computes from the columns and draws, nothing else. */
#include "config.h"

/* A compared timeline drawn over a chart's bars: two profiles side by
 * side on one time axis, aligned at their first snapshots. */

#include "ui/panes/chart/chart_frame.h"

const char *chart_overlay_glyph(const struct ui_style *style)
{
    return style->utf8 ? "\xe2\x94\x81" : "o"; /* ━ */
}

/* Columns that start after the timeline's last snapshot show nothing:
 * the chart carries a value forward into an empty bucket, which past
 * the end would draw memory the job no longer recorded. */
static void clip_after_last(const struct snapshot_columns *timeline, int width,
                            struct chart_column *columns)
{
    int64_t last = snapshot_columns_time(timeline, timeline->count - 1);
    for (int c = 0; c < width; c++) {
        if (columns[c].from_ps > last) {
            columns[c].snapshot = SIZE_MAX;
            columns[c].in_use = 0;
            columns[c].carried = false;
        }
    }
}

bool chart_overlay_compute(const struct chart_overlay *overlay,
                           const struct snapshot_columns *bars, const struct chart_window *plot,
                           struct chart_column *line_columns, struct chart_column *bar_columns)
{
    if (!overlay || !overlay->allocator || overlay->allocator->timeline.count == 0)
        return false;
    const struct snapshot_columns *line = &overlay->allocator->timeline;
    /* The line's time of a bars' time: the same distance from its own
     * first snapshot. */
    int64_t line_first = snapshot_columns_time(line, 0),
            bars_first = snapshot_columns_time(bars, 0);
    bool later = line_first >= bars_first;
    uint64_t shift = later ? chart_range_diff(bars_first, line_first)
                           : chart_range_diff(line_first, bars_first);
    struct chart_window window = *plot;
    window.from_ps = later ? chart_time_add(plot->from_ps, shift)
                           : chart_time_subtract(plot->from_ps, shift);
    window.to_ps = later ? chart_time_add(plot->to_ps, shift)
                         : chart_time_subtract(plot->to_ps, shift);
    chart_columns_compute(line, &window, line_columns);
    clip_after_last(line, plot->width, line_columns);
    clip_after_last(bars, plot->width, bar_columns);
    return true;
}

void chart_overlay_range(const struct chart_frame *frame, int64_t *top, int64_t *lowest)
{
    if (!frame->line_columns)
        return;
    for (int c = 0; c < frame->g.plot_width; c++) {
        const struct chart_column *column = &frame->line_columns[c];
        if (column->snapshot == SIZE_MAX)
            continue;
        if (column->in_use > *top)
            *top = column->in_use;
        if (column->in_use < *lowest)
            *lowest = column->in_use;
    }
}

void chart_overlay_draw_line(const struct chart_frame *frame)
{
    const struct chart_geometry *g = &frame->g;
    if (!frame->line_columns)
        return;
    const struct ui_style *style = frame->style;
    for (int c = 0; c < g->plot_width; c++) {
        const struct chart_column *column = &frame->line_columns[c];
        if (column->snapshot == SIZE_MAX || column->in_use < frame->bottom)
            continue;
        int row = chart_frame_value_row(frame, column->in_use);
        if (row >= frame->bar_rows)
            continue;
        attr_t attr = style->compared | (c == frame->cursor_column ? A_REVERSE : 0);
        wattrset(frame->window, attr);
        mvwaddstr(frame->window, g->plot_y + g->plot_rows - 1 - row, g->plot_x + c,
                  chart_overlay_glyph(style));
    }
    wattrset(frame->window, style->normal);
}
