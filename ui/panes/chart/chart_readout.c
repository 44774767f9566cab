/* chart_readout: the lines under the chart that tell what the cursor's
 * column holds (time, heap, reserved, stack, free, the event, its op and shape;
 * see chart_frame.h), each value escaped and cut to the width. Called by
 * chart_pane.c once per frame; only draws. */
#include "config.h"

#include <stdio.h>

#include "model/format.h"
#include "model/timeline.h"
#include "ui/panes/chart/chart_frame.h"

/* ---- the readout: fields that flow over a few lines ---- */

struct readout {
    WINDOW *window;
    const struct ui_style *style;
    int y, x, width;
    int rows;  /* lines this group may use */
    int line;  /* where the next field goes */
    int column;
};

/* Places "label value" (label dimmed) where it fits, on the next line if
 * need be; a flexible value is cut with an ellipsis rather than left out.
 * A field that fits nowhere is left out. */
static void readout_field_bytes(struct readout *readout, const char *label, struct text value,
                                attr_t attr, bool flexible)
{
    const struct ui_style *style = readout->style;
    int label_width = label ? draw_text_width(label, style) + 1 : 0;
    int value_width = draw_bytes_width(value, style);
    int gap = readout->column > 0 ? 2 : 0;
    if (readout->column + gap + label_width + value_width > readout->width &&
        readout->line + 1 < readout->rows && readout->column > 0) {
        readout->line++;
        readout->column = 0;
        gap = 0;
    }
    int room = readout->width - readout->column - gap - label_width;
    if (value_width > room && (!flexible || room < 8))
        return;
    int x = readout->x + readout->column + gap;
    int y = readout->y + readout->line;
    if (label) {
        wattrset(readout->window, style->dim);
        draw_text(readout->window, y, x, label_width, label, style);
    }
    wattrset(readout->window, attr);
    int used = draw_bytes(readout->window, y, x + label_width, room, value, style);
    readout->column += gap + label_width + used;
}

static void readout_field(struct readout *readout, const char *label, const char *value,
                          attr_t attr, bool flexible)
{
    readout_field_bytes(readout, label, text_of(value), attr, flexible);
}

static void readout_next_line(struct readout *readout)
{
    if (readout->column > 0 && readout->line + 1 < readout->rows) {
        readout->line++;
        readout->column = 0;
    }
}

static void readout_bytes(struct readout *readout, const char *label, int64_t bytes, attr_t attr)
{
    char text[FORMAT_BYTES_SIZE];
    readout_field(readout, label, format_bytes(bytes, text, sizeof text), attr, false);
}

static void readout_string(struct readout *readout, const char *label, struct text text,
                           attr_t attr, bool flexible)
{
    if (text.length > 0)
        readout_field_bytes(readout, label, text, attr, flexible);
}

/* The event at the snapshot: what happened, how big, and for which op. */
static void readout_event(const struct chart_frame *frame, struct readout *readout, size_t index)
{
    const struct ui_style *style = frame->style;
    const struct profile *profile = frame->profile;
    const struct snapshot_columns *timeline = frame->timeline;
    char bytes[FORMAT_BYTES_SIZE];
    readout_field(readout, memory_activity_label(timeline->activity[index]),
                  format_bytes(snapshot_columns_allocation_bytes(timeline, index), bytes,
                               sizeof bytes),
                  style->normal | A_BOLD, false);
    readout_string(readout, "op", profile_string(profile, snapshot_columns_op_name(timeline, index)),
                   style->normal, true);
    readout_bytes(readout, "requested", snapshot_columns_requested_bytes(timeline, index),
                  style->normal);
    if (snapshot_columns_step_id(timeline, index) >= 0) {
        char step[32];
        snprintf(step, sizeof step, "%lld", (long long)snapshot_columns_step_id(timeline, index));
        readout_field(readout, "step", step, style->normal, false);
    }
    readout_string(readout, "region",
                   profile_string(profile, snapshot_columns_region_type(timeline, index)),
                   style->normal, false);
    readout_string(readout, "type",
                   profile_string(profile, snapshot_columns_data_type(timeline, index)),
                   style->normal, false);
    readout_string(readout, "shape",
                   profile_string(profile, snapshot_columns_tensor_shape(timeline, index)),
                   style->normal, true);
    if (snapshot_columns_has_context(timeline))
        readout_string(readout, "in",
                       profile_string(profile, snapshot_columns_context(timeline, index)),
                       style->normal, true);
}

/* A compared timeline's memory in the cursor's column: "base 1.20 GiB". */
static void readout_line(const struct chart_frame *frame, struct readout *readout)
{
    if (!frame->line_columns)
        return;
    const struct chart_column *column = &frame->line_columns[frame->cursor_column];
    if (column->snapshot == SIZE_MAX)
        readout_field(readout, frame->overlay->line_name, "none", frame->style->dim, false);
    else
        readout_bytes(readout, frame->overlay->line_name, column->in_use,
                      frame->style->compared);
}

void chart_readout_draw(const struct chart_frame *frame)
{
    const struct chart_geometry *g = &frame->g;
    if (g->readout_rows <= 0)
        return;
    WINDOW *window = frame->window;
    const struct ui_style *style = frame->style;
    const struct snapshot_columns *timeline = frame->timeline;
    const struct chart_column *column = &frame->columns[frame->cursor_column];
    const struct time_window *time = frame->time;
    bool pinned = time->pinned != SIZE_MAX;
    size_t index = pinned ? time->pinned : column->snapshot;
    bool carried = !pinned && column->carried;
    /* The memory line: one line only, so the event always has its own. */
    struct readout readout = {window, style, g->readout_y, g->x + 1, g->width - 1, 1, 0, 0};
    char when[64], text[160];
    time_window_text(time,
                     index != SIZE_MAX && !carried ? snapshot_columns_time(timeline, index)
                                                   : time->cursor_ps,
                     when, sizeof when);
    size_t first, end;
    timeline_range(timeline, column->from_ps, column->to_ps, &first, &end);
    if (!pinned && end - first > 1)
        snprintf(text, sizeof text, "%s (largest of %zu)", when, end - first);
    else
        snprintf(text, sizeof text, "%s", when);
    readout_field(&readout, NULL, text, style->title, false);
    if (index == SIZE_MAX) {
        /* A compared chart's window may reach past the bars' end. */
        bool after = column->from_ps > snapshot_columns_time(timeline, timeline->count - 1);
        readout_field(&readout, NULL,
                      after ? "after the last snapshot" : "before the first snapshot", style->dim,
                      false);
        readout_line(frame, &readout);
        wattrset(window, style->normal);
        return;
    }
    /* In order of what a narrow pane keeps: heap and stack add up to the
     * memory in use, so they go first when room runs out. */
    readout_bytes(&readout, "in use", snapshot_columns_in_use(timeline, index),
                  style->heap | A_BOLD);
    readout_line(frame, &readout);
    /* What the format does not record is left out, not shown as 0. */
    const struct allocator *allocator = frame->allocator;
    if (allocator_records_reserved(allocator))
        readout_bytes(&readout, "reserved", allocator_reserved_at(allocator, index),
                      style->free_memory | A_BOLD);
    if (!allocator || allocator_records(allocator, ALLOCATOR_FIELD_FREE))
        readout_bytes(&readout, allocator_word(allocator, ALLOCATOR_WORD_FREE),
                      snapshot_columns_free_bytes(timeline, index), style->normal);
    char percent[32];
    if (!allocator || allocator_records(allocator, ALLOCATOR_FIELD_FRAGMENTATION))
        readout_field(&readout, "frag",
                      format_percent(timeline->fragmentation[index], percent, sizeof percent),
                      style->normal, false);
    readout_bytes(&readout, allocator_word(allocator, ALLOCATOR_WORD_HEAP),
                  timeline->heap_bytes[index], style->normal);
    if (!allocator || allocator_records(allocator, ALLOCATOR_FIELD_STACK))
        readout_bytes(&readout, "stack", snapshot_columns_stack_bytes(timeline, index),
                      style->normal);
    readout.rows = g->readout_rows;
    readout_next_line(&readout);
    if (carried) {
        char last[64];
        time_window_text(time, snapshot_columns_time(timeline, index), last, sizeof last);
        snprintf(text, sizeof text, "no event in this column; the last was at %s", last);
        readout_field(&readout, NULL, text, style->dim, true);
    } else {
        readout_event(frame, &readout, index);
    }
    wattrset(window, style->normal);
}

