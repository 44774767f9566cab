/* chart_plot: the chart's title, bars, reserved line, y axis, time axis and legend (see
 * chart_frame.h), in eighths of a cell where the terminal shows them.
 * Called by chart_pane.c once per frame; only draws what the frame holds,
 * changes no state and writes no status line. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "model/format.h"
#include "ui/panes/chart/chart_frame.h"

#define GLYPH_PEAK(style) ((style)->utf8 ? "\xe2\x96\xbc" : "v")       /* ▼ */
#define GLYPH_CURSOR(style) ((style)->utf8 ? "\xe2\x96\xb2" : "^")     /* ▲ */
#define GLYPH_FREE(style) ((style)->utf8 ? "\xe2\x96\x91" : "-")       /* ░ */
#define GLYPH_CAPACITY(style) ((style)->utf8 ? "\xe2\x95\x8c" : "=")   /* ╌ */
#define GLYPH_FRAGMENTATION(style) ((style)->utf8 ? "\xe2\x80\xa2" : "*") /* • */
/* Reserved memory: a thin line, apart from a compared timeline's thick one. */
#define GLYPH_RESERVED(style) ((style)->utf8 ? "\xe2\x94\x80" : "_")   /* ─ */
/* Stack by its glyph, not only its colour (NO_COLOR, --ascii): a full
 * cell of stack is shaded, a full cell of heap solid. */
#define GLYPH_STACK(style) ((style)->utf8 ? "\xe2\x96\x92" : "%")      /* ▒ */
#define GLYPH_HEAP(style) chart_bar_glyph(8, (style)->utf8)              /* █ */
/* Where the y-axis is cut (it does not start at 0, or jumps to the
 * capacity). */
#define GLYPH_CUT(style) ((style)->utf8 ? "\xe2\x89\x88" : "~")        /* ≈ */

static void draw_glyph(WINDOW *window, int y, int x, const char *glyph, attr_t attr)
{
    wattrset(window, attr);
    mvwaddstr(window, y, x, glyph);
}

/* A cell of the bars: heap and stack fill from the bottom (stack only
 * where it fills the whole cell: a thin stack under a large heap would
 * otherwise mark the heap), free memory above them when shown, the
 * capacity line over what is empty or free; an empty cell shows `empty`
 * (the span since the mark, a step's start) when not NULL. */
static void draw_bar_cell(const struct chart_frame *frame, int y, int x, int from_bottom,
                          const int heights[3], bool carried, bool cursor, const char *empty)
{
    WINDOW *window = frame->window;
    const struct ui_style *style = frame->style;
    int use = heights[0], total = heights[1], stack = heights[2];
    int cell = chart_cell_eighths(use, from_bottom);
    if (cell > 0) {
        bool is_stack = chart_cell_eighths(stack, from_bottom) == 8;
        attr_t attr = is_stack ? style->stack : style->heap;
        if (carried)
            attr |= A_DIM; /* no event here: the value carried over */
        if (cursor) /* reverse video would turn a block into a hole */
            attr = style->title;
        draw_glyph(window, y, x, is_stack ? GLYPH_STACK(style) : chart_bar_glyph(cell, style->utf8),
                   attr);
    } else if (from_bottom == frame->capacity_row) {
        draw_glyph(window, y, x, GLYPH_CAPACITY(style), style->capacity | (cursor ? A_BOLD : 0));
    } else if (chart_cell_eighths(total, from_bottom) >= 4) {
        draw_glyph(window, y, x, GLYPH_FREE(style), style->free_memory | (cursor ? A_BOLD : 0));
    } else if (cursor) {
        draw_glyph(window, y, x, " ", style->cursor);
    } else if (empty) {
        draw_glyph(window, y, x, empty, style->dim);
    }
}

static int bar_eighths(const struct chart_frame *frame, int64_t value)
{
    int64_t above = value > frame->bottom ? value - frame->bottom : 0;
    return chart_bar_eighths(above, frame->top - frame->bottom, frame->bar_rows);
}

static void draw_column(const struct chart_frame *frame, int c)
{
    WINDOW *window = frame->window;
    const struct ui_style *style = frame->style;
    const struct chart_geometry *g = &frame->g;
    const struct snapshot_columns *timeline = frame->timeline;
    const struct chart_column *column = &frame->columns[c];
    int rows = g->plot_rows;
    bool has_value = column->snapshot != SIZE_MAX;
    int heights[3] = {0, 0, 0}; /* in use, with free, stack: in eighths */
    if (has_value) {
        heights[0] = bar_eighths(frame, column->in_use);
        heights[1] = bar_eighths(frame, chart_frame_column_value(frame, column));
        heights[2] = bar_eighths(frame, snapshot_columns_stack_bytes(timeline, column->snapshot));
    }
    bool cursor = c == frame->cursor_column;
    const char *empty = chart_marks_empty_glyph(frame, c);
    for (int row = 0; row < rows; row++) {
        int from_bottom = rows - 1 - row;
        int y = g->plot_y + row, x = g->plot_x + c;
        if (from_bottom >= frame->bar_rows) /* the capacity's own row */
            draw_glyph(window, y, x, cursor ? " " : GLYPH_CAPACITY(style),
                       cursor ? style->cursor : style->capacity);
        else
            draw_bar_cell(frame, y, x, from_bottom, heights, column->carried, cursor, empty);
    }
    if (frame->show_fragmentation && has_value) {
        double f = timeline->fragmentation[column->snapshot];
        if (chart_frame_fragmentation_valid(f)) {
            int from_bottom = (int)(f / frame->fragmentation_top * rows);
            if (from_bottom > rows - 1)
                from_bottom = rows - 1;
            draw_glyph(window, g->plot_y + rows - 1 - from_bottom, g->plot_x + c,
                       GLYPH_FRAGMENTATION(style), style->fragmentation | (cursor ? A_BOLD : 0));
        }
    }
}

/* A label right-aligned in the gutter at a row counted from the bottom. */
static void draw_axis_label(const struct chart_frame *frame, int from_bottom, int64_t value)
{
    const struct chart_geometry *g = &frame->g;
    char text[FORMAT_BYTES_SIZE];
    format_bytes(value, text, sizeof text);
    if ((int)strlen(text) <= g->gutter_width)
        draw_text_right(frame->window, g->plot_y + g->plot_rows - 1 - from_bottom, g->x,
                        g->gutter_width, text, frame->style);
}

/* Ticks at multiples of a 1-2-5 step from the plot's bottom to its top;
 * the bottom is labelled even when it is no tick (an auto axis starts
 * where the data does); the capacity in its colour on its row; "≈"
 * between the labels and the plot where the axis is cut. */
static void draw_y_axis(const struct chart_frame *frame)
{
    WINDOW *window = frame->window;
    const struct ui_style *style = frame->style;
    const struct chart_geometry *g = &frame->g;
    int rows = frame->bar_rows;
    if (g->gutter_width <= 0 || rows <= 0)
        return;
    struct chart_scale scale = chart_scale_ticks(frame->top - frame->bottom, (rows + 1) / 2);
    int64_t first = (frame->bottom + scale.step - 1) / scale.step * scale.step;
    int labelled = -1;
    wattrset(window, style->dim);
    if (frame->bottom > 0) {
        draw_axis_label(frame, 0, frame->bottom);
        labelled = 0;
    }
    for (int64_t value = first; value <= frame->top; value += scale.step) {
        int from_bottom = chart_frame_value_row(frame, value);
        if (from_bottom != labelled && from_bottom != frame->capacity_row) {
            draw_axis_label(frame, from_bottom, value);
            labelled = from_bottom;
        }
        if (value > INT64_MAX - scale.step)
            break;
    }
    if (frame->capacity_row >= 0) {
        wattrset(window, style->capacity);
        draw_axis_label(frame, frame->capacity_row, frame->allocator->summary.capacity_bytes);
    }
    wattrset(window, style->dim);
    int cut_x = g->plot_x - 1;
    if (frame->bottom > 0)
        mvwaddstr(window, g->plot_y + g->plot_rows - 1, cut_x, GLYPH_CUT(style));
    if (frame->capacity_above)
        mvwaddstr(window, g->plot_y + 1, cut_x, GLYPH_CUT(style));
    wattrset(window, style->normal);
}

/* The reserved line: its glyph on the row of each column's reserved
 * bytes, where the bars leave that cell empty (a bar reaching it says
 * the two are that close; the readout has both). Over free memory's
 * shading and the capacity line: it is the bound of the first. */
static void draw_reserved_line(const struct chart_frame *frame)
{
    const struct chart_geometry *g = &frame->g;
    if (!frame->show_reserved)
        return;
    const struct ui_style *style = frame->style;
    for (int c = 0; c < g->plot_width; c++) {
        const struct chart_column *column = &frame->columns[c];
        if (column->snapshot == SIZE_MAX)
            continue;
        int64_t reserved = chart_frame_column_reserved(frame, column);
        if (reserved < frame->bottom)
            continue;
        int row = chart_frame_value_row(frame, reserved);
        if (row >= frame->bar_rows ||
            chart_cell_eighths(bar_eighths(frame, column->in_use), row) > 0)
            continue;
        attr_t attr = style->free_memory | A_BOLD | (c == frame->cursor_column ? A_REVERSE : 0);
        draw_glyph(frame->window, g->plot_y + g->plot_rows - 1 - row, g->plot_x + c,
                   GLYPH_RESERVED(style), attr);
    }
    wattrset(frame->window, style->normal);
}

/* "Memory ×4 +free +frag auto-y", shortened until it ends before the peak's
 * marker: "Memory" alone always ends before the plot's first column (a
 * compared chart's own name, "Memory: new vs base", goes before it).
 * Returns where the title ends. */
static int draw_title_text(const struct chart_frame *frame, int marker)
{
    const struct ui_style *style = frame->style;
    const struct chart_geometry *g = &frame->g;
    const struct time_window *time = frame->time;
    const struct snapshot_columns *timeline = frame->timeline;
    char zoom[32] = "", flags[80] = "", title[144];
    struct chart_range data = time_window_data(time, timeline);
    struct chart_range full = chart_range_full(data, time_window_columns(time));
    uint64_t full_diff = chart_range_diff(full.from_ps, full.to_ps);
    uint64_t diff = chart_range_diff(time->from_ps, time->to_ps);
    if (diff < full_diff) {
        double factor = (double)full_diff / (double)(diff ? diff : 1);
        snprintf(zoom, sizeof zoom, factor < 10.0 ? " %s%.1f" : " %s%.0f",
                 style->utf8 ? "\xc3\x97" : "x", factor);
    }
    snprintf(flags, sizeof flags, "%s%s%s%s%s", frame->show_free ? " +free" : "",
             frame->show_fragmentation ? " +frag" : "", frame->auto_axis ? " auto-y" : "",
             frame->capacity_axis ? " y-to-cap" : "", frame->step_marks ? " +steps" : "");
    int title_end = 0;
    const char *name = frame->overlay && frame->overlay->title ? frame->overlay->title
                       : frame->show_reserved ? "Memory: allocated / reserved"
                                              : "Memory";
    for (int attempt = 0; attempt < 4; attempt++) {
        snprintf(title, sizeof title, "%s%s%s", attempt < 3 ? name : "Memory",
                 attempt < 2 ? zoom : "", attempt < 1 ? flags : "");
        /* " title " from x + 1, and a cell of rule before the marker. */
        title_end = g->x + 3 + draw_text_width(title, style);
        if (marker < 0 || marker >= title_end || attempt == 3)
            break;
    }
    draw_pane_title(frame->window, g->title_y, g->x, g->width, title, frame->focused, style);
    return title_end;
}

/* The title rule: name and zoom, the peak's marker over its column, and
 * the capacity when the plot has no line for it. */
static void draw_title(const struct chart_frame *frame)
{
    WINDOW *window = frame->window;
    const struct ui_style *style = frame->style;
    const struct chart_geometry *g = &frame->g;
    int marker = frame->peak_column >= 0 && g->plot_rows > 0 ? g->plot_x + frame->peak_column : -1;
    int title_end = draw_title_text(frame, marker);
    int right_end = g->x + g->width - 1; /* keep the rule's last cell */
    int taken_from = right_end, taken_to = right_end; /* what the peak label uses */
    if (marker >= 0) {
        int64_t value = frame->columns[frame->peak_column].in_use;
        char bytes[FORMAT_BYTES_SIZE], label[48];
        format_bytes(value, bytes, sizeof bytes);
        bool is_peak = value == frame->allocator->summary.peak_bytes;
        snprintf(label, sizeof label, " %s %s ", bytes, is_peak ? "peak" : "max");
        int label_width = draw_text_width(label, style);
        int label_x = -1;
        if (marker + 1 + label_width <= right_end)
            label_x = marker + 1;
        else if (marker - label_width >= title_end)
            label_x = marker - label_width;
        wattrset(window, style->peak);
        mvwaddstr(window, g->title_y, marker, GLYPH_PEAK(style));
        if (label_x >= 0) {
            draw_text(window, g->title_y, label_x, label_width, label, style);
            taken_from = label_x < marker ? label_x : marker;
            taken_to = label_x < marker ? marker + 1 : label_x + label_width;
        } else {
            taken_from = marker;
            taken_to = marker + 1;
        }
    }
    int64_t capacity = frame->allocator->summary.capacity_bytes;
    if (capacity > 0 && frame->capacity_row < 0) {
        char bytes[FORMAT_BYTES_SIZE], label[64];
        format_bytes(capacity, bytes, sizeof bytes);
        snprintf(label, sizeof label, " capacity %s ", bytes);
        int label_width = draw_text_width(label, style);
        if (right_end - label_width < title_end || right_end - label_width < taken_to) {
            snprintf(label, sizeof label, " cap %s ", bytes);
            label_width = draw_text_width(label, style);
        }
        int label_x = right_end - label_width;
        bool clear = label_x >= title_end && (label_x >= taken_to || right_end <= taken_from);
        if (clear) {
            wattrset(window, style->capacity);
            draw_text(window, g->title_y, label_x, label_width, label, style);
        }
    }
    wattrset(window, style->normal);
}

/* Time labels under the plot, spread as far as they fit; "ms" in the
 * margin. */
static void draw_time_labels(const struct chart_frame *frame)
{
    WINDOW *window = frame->window;
    const struct ui_style *style = frame->style;
    const struct chart_geometry *g = &frame->g;
    const struct time_window *time = frame->time;
    struct chart_window window_of_plot = {time->from_ps, time->to_ps, g->plot_width};
    uint64_t diff = chart_range_diff(time->from_ps, time->to_ps);
    int width = g->plot_width;
    wattrset(window, style->dim);
    if (g->gutter_width > 0)
        draw_text_right(window, g->axis_y, g->x, g->gutter_width, "ms", style);
    int count = 2, decimals = 3;
    /* Twice: the decimals depend on how many labels fit, which depends on
     * how wide they are. */
    for (int pass = 0; pass < 2; pass++) {
        /* A digit finer than the step between labels: "0.7 2.0 3.3". */
        uint64_t step = diff / (uint64_t)(count > 1 ? count - 1 : 1) / 10;
        decimals = chart_time_decimals(step > INT64_MAX ? INT64_MAX : (int64_t)step);
        char first[48], last[48];
        format_milliseconds_value(time->from_ps, decimals, first, sizeof first);
        format_milliseconds_value(time->to_ps, decimals, last, sizeof last);
        int label_width = (int)(strlen(first) > strlen(last) ? strlen(first) : strlen(last));
        count = 1 + (width - label_width) / (label_width + 4);
        if (count > 12)
            count = 12;
        if (count < 1)
            count = width >= label_width ? 1 : 0;
    }
    for (int k = 0; k < count; k++) {
        int column = count > 1 ? (int)((long long)k * (width - 1) / (count - 1)) : 0;
        char text[48];
        format_milliseconds_value(chart_column_start(&window_of_plot, column), decimals, text,
                                  sizeof text);
        int text_width = (int)strlen(text);
        int at = k == 0 ? column : k == count - 1 ? column - text_width + 1 : column - text_width / 2;
        if (at < 0)
            at = 0;
        if (at + text_width > width)
            at = width - text_width;
        /* The cursor's marker wins; its time is in the readout. */
        bool covers_cursor = at <= frame->cursor_column + 1 && at + text_width >= frame->cursor_column;
        if (at >= 0 && !covers_cursor)
            draw_text(window, g->axis_y, g->plot_x + at, text_width, text, style);
    }
    wattrset(window, style->normal);
}

/* The time axis: times, or where the steps start; the mark's column and
 * the cursor's marked. */
static void draw_time_axis(const struct chart_frame *frame)
{
    const struct chart_geometry *g = &frame->g;
    if (g->axis_y < 0 || g->plot_width <= 0)
        return;
    if (frame->step_marks)
        chart_marks_draw_steps_axis(frame);
    else
        draw_time_labels(frame);
    chart_marks_draw_mark(frame);
    draw_glyph(frame->window, g->axis_y, g->plot_x + frame->cursor_column,
               GLYPH_CURSOR(frame->style), frame->style->normal | A_BOLD);
    wattrset(frame->window, frame->style->normal);
}

/* One legend item, "█ heap", when it fits; false when it does not. */
static bool draw_legend_item(const struct chart_frame *frame, int *x, const char *glyph,
                             attr_t attr, const char *label)
{
    const struct ui_style *style = frame->style;
    const struct chart_geometry *g = &frame->g;
    int end = g->x + g->width;
    int width = draw_text_width(glyph, style) + 1 + draw_text_width(label, style);
    if (*x + width > end)
        return false;
    draw_glyph(frame->window, g->legend_y, *x, glyph, attr);
    wattrset(frame->window, style->dim);
    draw_text(frame->window, g->legend_y, *x + draw_text_width(glyph, style) + 1, end - *x, label,
              style);
    *x += width + 2;
    return true;
}

/* The names of the heap and stack items: "heap", or with a compared
 * timeline over the bars "new heap" (the bars' name first). */
static void legend_bar_labels(const struct chart_frame *frame, char *heap, char *stack,
                              size_t size)
{
    const char *bars = frame->overlay && frame->line_columns ? frame->overlay->bars_name : NULL;
    snprintf(heap, size, "%s%s%s", bars ? bars : "", bars ? " " : "",
             allocator_word(frame->allocator, ALLOCATOR_WORD_HEAP));
    snprintf(stack, size, "%s%sstack", bars ? bars : "", bars ? " " : "");
}

/* One line saying what each glyph is, for what the plot shows now, so
 * stack and heap (and a compared timeline's line) are told apart
 * without colour too. */
static void draw_legend(const struct chart_frame *frame)
{
    const struct ui_style *style = frame->style;
    const struct chart_geometry *g = &frame->g;
    if (g->legend_y < 0)
        return;
    int x = g->x + 1;
    char fragmentation[32], heap[48], stack[48];
    snprintf(fragmentation, sizeof fragmentation, "frag (top %g%%)",
             frame->fragmentation_top * 100.0);
    legend_bar_labels(frame, heap, stack, sizeof heap);
    /* A format that records no stack (a trace) plots the heap alone. */
    bool stack_known = !frame->allocator ||
                       allocator_records(frame->allocator, ALLOCATOR_FIELD_STACK);
    bool fits = (!frame->line_columns ||
                 draw_legend_item(frame, &x, chart_overlay_glyph(style), style->compared,
                                  frame->overlay->line_name)) &&
                draw_legend_item(frame, &x, GLYPH_HEAP(style), style->heap, heap) &&
                (!stack_known ||
                 draw_legend_item(frame, &x, GLYPH_STACK(style), style->stack, stack)) &&
                (!frame->show_reserved ||
                 draw_legend_item(frame, &x, GLYPH_RESERVED(style), style->free_memory | A_BOLD,
                                  "reserved")) &&
                (!frame->show_free ||
                 draw_legend_item(frame, &x, GLYPH_FREE(style), style->free_memory,
                                  allocator_word(frame->allocator, ALLOCATOR_WORD_FREE))) &&
                (frame->capacity_row < 0 ||
                 draw_legend_item(frame, &x, GLYPH_CAPACITY(style), style->capacity,
                                  "capacity")) &&
                (!frame->show_fragmentation ||
                 draw_legend_item(frame, &x, GLYPH_FRAGMENTATION(style), style->fragmentation,
                                  fragmentation)) &&
                chart_marks_legend(frame, draw_legend_item, &x);
    if (fits && (frame->bottom > 0 || frame->capacity_above))
        draw_legend_item(frame, &x, GLYPH_CUT(style), style->dim, "axis cut");
    wattrset(frame->window, style->normal);
}

void chart_plot_draw(const struct chart_frame *frame)
{
    const struct chart_geometry *g = &frame->g;
    draw_title(frame);
    for (int c = 0; g->plot_rows > 0 && c < g->plot_width; c++)
        draw_column(frame, c);
    draw_reserved_line(frame);
    chart_overlay_draw_line(frame);
    chart_marks_draw_ooms(frame);
    draw_y_axis(frame);
    draw_time_axis(frame);
    draw_legend(frame);
    wattrset(frame->window, frame->style->normal);
}
