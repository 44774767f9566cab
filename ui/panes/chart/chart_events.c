/* chart_events: the list of one chart column's events (Enter on the
 * chart; see chart_frame.h): opening it at the cursor's column, moving in
 * it (which moves the time window's cursor) and drawing it. Called by
 * chart_pane.c; draws into the chart's rectangle only. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "model/format.h"
#include "ui/panes/chart/chart_frame.h"

/* The list of a column's events (Enter on the chart): what the readout
 * sums up as "largest of 27", one event a line, the chart's cursor on
 * the selected one. The chart pane opens it and hands it the movement
 * requests while it shows; this file writes no status line. */

#define EVENTS_MAX_WIDTH 110
#define EVENT_TIME_WIDTH 14
#define EVENT_ACTIVITY_WIDTH 14
#define EVENT_SIZE_WIDTH 13

bool chart_events_open(struct chart_event_list *list, const struct time_window *time,
                       const struct snapshot_columns *timeline)
{
    size_t first, end;
    time_window_cursor_events(time, timeline, &first, &end);
    if (first >= end)
        return false;
    memset(list, 0, sizeof *list);
    list->first = first;
    list->count = end - first;
    size_t shown = time->pinned != SIZE_MAX ? time->pinned : chart_range_max(timeline, first, end);
    if (shown >= first && shown < end)
        list->cursor.selected = shown - first;
    return true;
}

bool chart_events_move(struct chart_event_list *list, struct time_window *time,
                       const struct snapshot_columns *timeline, enum request request)
{
    if (!list_cursor_move(&list->cursor, list->count, request))
        return false;
    size_t index = list->first + list->cursor.selected;
    if (index < timeline->count)
        time_window_show_snapshot(time, timeline, index);
    return true;
}

static void events_heading(const struct chart_event_list *list,
                           const struct snapshot_columns *timeline,
                           const struct time_window *time, char *text, size_t size)
{
    char from[64], to[64];
    time_window_text(time, snapshot_columns_time(timeline, list->first), from, sizeof from);
    time_window_text(time, snapshot_columns_time(timeline, list->first + list->count - 1), to,
                     sizeof to);
    if (list->count == 1)
        snprintf(text, size, " 1 event at %s ", from);
    else
        snprintf(text, size, " %zu events from %s to %s ", list->count, from, to);
}

/* One line: time, activity, size, op (the op gets the rest). */
static void events_row(const struct profile *profile, const struct snapshot_columns *timeline,
                       const struct time_window *time, size_t index, WINDOW *window, int y, int x,
                       int width, const struct ui_style *style)
{
    char when[64], bytes[FORMAT_BYTES_SIZE];
    time_window_text(time, snapshot_columns_time(timeline, index), when, sizeof when);
    draw_blank(window, y, x, width);
    draw_text_right(window, y, x, EVENT_TIME_WIDTH - 2, when, style);
    int used = EVENT_TIME_WIDTH;
    draw_text(window, y, x + used, EVENT_ACTIVITY_WIDTH - 1,
              memory_activity_label(timeline->activity[index]), style);
    used += EVENT_ACTIVITY_WIDTH;
    format_bytes(snapshot_columns_allocation_bytes(timeline, index), bytes, sizeof bytes);
    draw_text_right(window, y, x + used, EVENT_SIZE_WIDTH - 2, bytes, style);
    used += EVENT_SIZE_WIDTH;
    if (width > used)
        draw_bytes(window, y, x + used, width - used,
                   profile_string(profile, snapshot_columns_op_name(timeline, index)), style);
}

void chart_events_draw(struct chart_event_list *list, const struct profile *profile,
                       const struct snapshot_columns *timeline, const struct time_window *time,
                       WINDOW *window, int rows, int cols, const struct ui_style *style)
{
    int width = cols - 4 < EVENTS_MAX_WIDTH ? cols - 4 : EVENTS_MAX_WIDTH;
    int height = rows - 2;
    if ((size_t)height > list->count + 3)
        height = (int)list->count + 3;
    if (width < 40 || height < 5 || list->count == 0)
        return;
    int y = (rows - height) / 2, x = (cols - width) / 2;
    int visible = height - 3; /* box, heading row, box */
    list_cursor_fit(&list->cursor, list->count, visible);
    const struct list_cursor cursor = list->cursor;

    wattrset(window, style->normal);
    draw_box(window, y, x, height, width, style);
    char title[160];
    events_heading(list, timeline, time, title, sizeof title);
    wattrset(window, style->title);
    draw_text(window, y, x + 2, width - 4, title, style);
    wattrset(window, style->dim);
    char footer[96];
    snprintf(footer, sizeof footer, " %zu of %zu  j/k move (the chart follows)  Esc close ",
             cursor.selected + 1, list->count);
    draw_text_right(window, y + height - 1, x + 2, width - 4, footer, style);
    int inner_x = x + 2, inner_width = width - 4;
    draw_text_right(window, y + 1, inner_x, EVENT_TIME_WIDTH - 2, "Time", style);
    draw_text(window, y + 1, inner_x + EVENT_TIME_WIDTH, EVENT_ACTIVITY_WIDTH, "Activity", style);
    draw_text_right(window, y + 1, inner_x + EVENT_TIME_WIDTH + EVENT_ACTIVITY_WIDTH, EVENT_SIZE_WIDTH - 2, "Size",
                    style);
    draw_text(window, y + 1, inner_x + EVENT_TIME_WIDTH + EVENT_ACTIVITY_WIDTH + EVENT_SIZE_WIDTH,
              inner_width - EVENT_TIME_WIDTH - EVENT_ACTIVITY_WIDTH - EVENT_SIZE_WIDTH, "Op", style);
    for (int row = 0; row < visible; row++) {
        size_t item = cursor.top + (size_t)row;
        if (item >= list->count)
            break;
        wattrset(window, item == cursor.selected ? style->selected : style->normal);
        events_row(profile, timeline, time, list->first + item, window, y + 2 + row, inner_x,
                   inner_width, style);
    }
    wattrset(window, style->normal);
}
