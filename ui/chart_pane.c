#include "config.h"

#include "ui/chart_pane.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/format.h"
#include "model/saturating.h"
#include "model/timeline.h"
#include "ui/time_window.h"
#include "ui/viewer.h"

/* Widest y-axis label: "500.00 MiB". A rare wider tick ("1000.00 MiB")
 * is left unlabelled rather than widening the margin for every chart. */
#define LABEL_WIDTH 10
#define FRAGMENTATION_WIDTH 5 /* " 100%" */
#define MINIMUM_FOR_LABELS 40 /* narrower panes plot without axes */

#define GLYPH_PEAK(style) ((style)->utf8 ? "\xe2\x96\xbc" : "v")       /* ▼ */
#define GLYPH_CURSOR(style) ((style)->utf8 ? "\xe2\x96\xb2" : "^")     /* ▲ */
#define GLYPH_FREE(style) ((style)->utf8 ? "\xe2\x96\x91" : "-")       /* ░ */
#define GLYPH_CAPACITY(style) ((style)->utf8 ? "\xe2\x95\x8c" : "=")   /* ╌ */
#define GLYPH_FRAGMENTATION(style) ((style)->utf8 ? "\xe2\x80\xa2" : "*") /* • */

/* Where the parts of the chart go inside its rectangle. */
struct chart_geometry {
    int x, width;
    int title_y;
    int plot_y, plot_rows;
    int gutter_width; /* y-axis labels, left of the plot; 0 when narrow */
    int plot_x, plot_width;
    int right_x, right_width; /* fragmentation axis, when shown */
    int axis_y;               /* time labels; -1 when there is no room */
    int readout_y, readout_rows;
};

/* What one frame shows, worked out from the columns. */
struct chart_frame {
    int64_t top;       /* the value at the top of the plot */
    int peak_column;   /* the largest in-use column; -1 when none */
    int cursor_column;
    double fragmentation_top; /* the right axis's top (0..1] */
};

static const struct snapshot_columns *chart_timeline(const struct viewer *viewer)
{
    if (!viewer->allocator || viewer->allocator->timeline.count == 0)
        return NULL;
    return &viewer->allocator->timeline;
}

static struct chart_window chart_window_of(const struct time_window *time, int width)
{
    return (struct chart_window){time->from_ps, time->to_ps, width};
}

/* ---- layout ---- */

static void chart_layout(const struct chart_state *chart, int y, int x, int height, int width,
                         struct chart_geometry *geometry)
{
    memset(geometry, 0, sizeof *geometry);
    geometry->x = x;
    geometry->width = width;
    geometry->title_y = y;
    geometry->axis_y = -1;
    int body = height - 1;
    if (body <= 0)
        return;
    /* The readout says what the cursor is on: one line for the memory,
     * the rest for the event; a narrow tall pane gets a third line. */
    geometry->readout_rows = body >= 6 ? 2 : 1;
    if (body >= 13 && width < 110)
        geometry->readout_rows = 3;
    int axis = body - geometry->readout_rows >= 3 ? 1 : 0;
    geometry->plot_rows = body - geometry->readout_rows - axis;
    if (geometry->plot_rows < 1) {
        geometry->readout_rows = body;
        geometry->plot_rows = 0;
    }
    geometry->plot_y = y + 1;
    if (axis)
        geometry->axis_y = geometry->plot_y + geometry->plot_rows;
    geometry->readout_y = geometry->plot_y + geometry->plot_rows + axis;

    bool labels = width >= MINIMUM_FOR_LABELS;
    geometry->gutter_width = labels ? LABEL_WIDTH : 0;
    geometry->plot_x = x + (labels ? LABEL_WIDTH + 1 : 0);
    geometry->right_width = labels && chart->show_fragmentation ? FRAGMENTATION_WIDTH : 0;
    geometry->plot_width = width - (geometry->plot_x - x) - geometry->right_width;
    if (geometry->plot_width < 0)
        geometry->plot_width = 0;
    if (geometry->plot_width > CHART_MAX_COLUMNS)
        geometry->plot_width = CHART_MAX_COLUMNS;
    geometry->right_x = geometry->plot_x + geometry->plot_width;
}

/* ---- one frame ---- */

static int64_t column_value(const struct chart_state *chart, const struct snapshot_columns *timeline,
                            const struct chart_column *column)
{
    if (column->snapshot == SIZE_MAX)
        return 0;
    if (!chart->show_free)
        return column->in_use;
    int64_t free_bytes = timeline->free_bytes[column->snapshot];
    return saturating_add(column->in_use, free_bytes > 0 ? free_bytes : 0);
}

/* The smallest of 1, 2, 5, 10, 20, 50, 100 % at or above the largest
 * fragmentation shown, so small values still use the height. */
static double fragmentation_scale(double largest)
{
    static const double tops[] = {0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0};
    for (size_t i = 0; i < sizeof tops / sizeof *tops; i++)
        if (largest <= tops[i])
            return tops[i];
    return 1.0;
}

static bool fragmentation_valid(double value)
{
    return isfinite(value) && value >= 0.0;
}

static void frame_compute(const struct viewer *viewer, const struct snapshot_columns *timeline,
                          int width, struct chart_frame *frame)
{
    const struct chart_state *chart = &viewer->chart;
    const struct chart_column *columns = chart->columns;
    frame->top = 0;
    frame->peak_column = -1;
    int64_t peak_value = -1;
    double fragmentation = 0.0;
    for (int c = 0; c < width; c++) {
        const struct chart_column *column = &columns[c];
        if (column->snapshot == SIZE_MAX)
            continue;
        int64_t value = column_value(chart, timeline, column);
        if (value > frame->top)
            frame->top = value;
        if (!column->carried && column->in_use > peak_value) {
            peak_value = column->in_use;
            frame->peak_column = c;
        }
        double f = timeline->fragmentation[column->snapshot];
        if (fragmentation_valid(f) && f > fragmentation)
            fragmentation = f;
    }
    if (frame->top <= 0)
        frame->top = 1;
    /* Of equal maxima, mark the one the summary calls the peak. */
    struct chart_window window = chart_window_of(&viewer->time, width);
    int summary_column = chart_column_of_time(&window, viewer->allocator->summary.peak_time_ps);
    if (summary_column >= 0 && summary_column < width && !columns[summary_column].carried &&
        columns[summary_column].in_use == peak_value)
        frame->peak_column = summary_column;
    frame->fragmentation_top = fragmentation_scale(fragmentation);
    int cursor = chart_column_of_time(&window, viewer->time.cursor_ps);
    frame->cursor_column = cursor < 0 ? 0 : cursor >= width ? width - 1 : cursor;
}

/* ---- drawing ---- */

static void draw_glyph(WINDOW *window, int y, int x, const char *glyph, attr_t attr)
{
    wattrset(window, attr);
    mvwaddstr(window, y, x, glyph);
}

/* The row (counted up from the bottom, 0-based) where a bar of this
 * value ends. */
static int value_row(int64_t value, int64_t top, int rows)
{
    int eighths = chart_bar_eighths(value, top, rows);
    return eighths > 0 ? (eighths - 1) / 8 : 0;
}

static bool capacity_in_plot(const struct viewer *viewer, const struct chart_frame *frame)
{
    int64_t capacity = viewer->allocator->summary.capacity_bytes;
    return capacity > 0 && capacity <= frame->top;
}

static void draw_column(struct viewer *viewer, WINDOW *window, const struct chart_geometry *g,
                        const struct chart_frame *frame, const struct snapshot_columns *timeline,
                        int c, int capacity_row)
{
    const struct ui_style *style = &viewer->style;
    const struct chart_column *column = &viewer->chart.columns[c];
    int rows = g->plot_rows;
    bool has_value = column->snapshot != SIZE_MAX;
    int use = has_value ? chart_bar_eighths(column->in_use, frame->top, rows) : 0;
    int total = has_value ? chart_bar_eighths(column_value(&viewer->chart, timeline, column),
                                              frame->top, rows)
                          : 0;
    int stack = has_value ? chart_bar_eighths(timeline->stack_bytes[column->snapshot], frame->top,
                                              rows)
                          : 0;
    bool cursor = c == frame->cursor_column;
    for (int row = 0; row < rows; row++) {
        int from_bottom = rows - 1 - row;
        int y = g->plot_y + row, x = g->plot_x + c;
        int cell = chart_cell_eighths(use, from_bottom);
        if (cell > 0) {
            /* Stack only where it fills the whole cell: a thin stack
             * under a large heap would otherwise colour the heap. */
            attr_t attr = chart_cell_eighths(stack, from_bottom) == 8 ? style->stack : style->heap;
            if (column->carried)
                attr |= A_DIM; /* no event here: the value carried over */
            if (cursor) /* reverse video would turn a block into a hole */
                attr = style->title;
            draw_glyph(window, y, x, chart_bar_glyph(cell, style->utf8), attr);
        } else if (chart_cell_eighths(total, from_bottom) >= 4) {
            draw_glyph(window, y, x, GLYPH_FREE(style), style->free_memory | (cursor ? A_BOLD : 0));
        } else if (cursor) {
            draw_glyph(window, y, x, " ", style->cursor);
        } else if (from_bottom == capacity_row) {
            draw_glyph(window, y, x, GLYPH_CAPACITY(style), style->capacity);
        }
    }
    if (viewer->chart.show_fragmentation && has_value) {
        double f = timeline->fragmentation[column->snapshot];
        if (fragmentation_valid(f)) {
            int from_bottom = (int)(f / frame->fragmentation_top * rows);
            if (from_bottom > rows - 1)
                from_bottom = rows - 1;
            draw_glyph(window, g->plot_y + rows - 1 - from_bottom, g->plot_x + c,
                       GLYPH_FRAGMENTATION(style), style->fragmentation | (cursor ? A_BOLD : 0));
        }
    }
}

static void draw_y_axis(struct viewer *viewer, WINDOW *window, const struct chart_geometry *g,
                        const struct chart_frame *frame, int capacity_row)
{
    const struct ui_style *style = &viewer->style;
    int rows = g->plot_rows;
    if (g->gutter_width <= 0 || rows <= 0)
        return;
    struct chart_scale scale = chart_scale_ticks(frame->top, (rows + 1) / 2);
    int labelled = -1;
    wattrset(window, style->dim);
    for (int tick = 0; tick < scale.count; tick++) {
        int64_t value = (int64_t)tick * scale.step;
        int from_bottom = value_row(value, frame->top, rows);
        if (from_bottom == labelled || from_bottom == capacity_row)
            continue;
        char text[FORMAT_BYTES_SIZE];
        format_bytes(value, text, sizeof text);
        if ((int)strlen(text) > g->gutter_width)
            continue;
        draw_text_right(window, g->plot_y + rows - 1 - from_bottom, g->x, g->gutter_width, text,
                        style);
        labelled = from_bottom;
    }
    if (capacity_row >= 0) {
        char text[FORMAT_BYTES_SIZE];
        format_bytes(viewer->allocator->summary.capacity_bytes, text, sizeof text);
        wattrset(window, style->capacity);
        draw_text_right(window, g->plot_y + rows - 1 - capacity_row, g->x, g->gutter_width, text,
                        style);
    }
    wattrset(window, style->normal);
}

static void draw_fragmentation_axis(struct viewer *viewer, WINDOW *window,
                                    const struct chart_geometry *g,
                                    const struct chart_frame *frame)
{
    if (g->right_width <= 0 || g->plot_rows <= 0)
        return;
    const struct ui_style *style = &viewer->style;
    char top[16];
    snprintf(top, sizeof top, "%g%%", frame->fragmentation_top * 100.0);
    wattrset(window, style->fragmentation);
    draw_text_right(window, g->plot_y, g->right_x, g->right_width, top, style);
    if (g->plot_rows > 1)
        draw_text_right(window, g->plot_y + g->plot_rows - 1, g->right_x, g->right_width, "0%",
                        style);
    wattrset(window, style->normal);
}

/* The title rule: name and zoom, the peak's marker over its column, and
 * the capacity when it is off the top of the plot. */
static void draw_title(struct viewer *viewer, WINDOW *window, const struct chart_geometry *g,
                       const struct chart_frame *frame, const struct snapshot_columns *timeline,
                       bool focused)
{
    const struct ui_style *style = &viewer->style;
    const struct chart_state *chart = &viewer->chart;
    /* The title, shortened when the peak's marker would land on it:
     * "Memory" alone always ends before the plot's first column. */
    char zoom[32] = "", flags[32] = "", title[96];
    const struct time_window *time = &viewer->time;
    struct chart_range data = {timeline->time_ps[0], timeline->time_ps[timeline->count - 1]};
    struct chart_range full = chart_range_full(data, time_window_columns(time));
    uint64_t full_diff = chart_range_diff(full.from_ps, full.to_ps);
    uint64_t diff = chart_range_diff(time->from_ps, time->to_ps);
    if (diff < full_diff) {
        double factor = (double)full_diff / (double)(diff ? diff : 1);
        snprintf(zoom, sizeof zoom, factor < 10.0 ? " %s%.1f" : " %s%.0f",
                 style->utf8 ? "\xc3\x97" : "x", factor);
    }
    snprintf(flags, sizeof flags, "%s%s", chart->show_free ? " +free" : "",
             chart->show_fragmentation ? " +frag" : "");
    int marker = frame->peak_column >= 0 && g->plot_rows > 0 ? g->plot_x + frame->peak_column : -1;
    int title_end = 0;
    for (int attempt = 0; attempt < 3; attempt++) {
        snprintf(title, sizeof title, "Memory%s%s", attempt < 2 ? zoom : "",
                 attempt < 1 ? flags : "");
        /* " title " from x + 1, and a cell of rule before the marker. */
        title_end = g->x + 3 + draw_text_width(title, style);
        if (marker < 0 || marker >= title_end || attempt == 2)
            break;
    }
    draw_pane_title(window, g->title_y, g->x, g->width, title, focused, style);

    int right_end = g->x + g->width - 1; /* keep the rule's last cell */
    int taken_from = right_end, taken_to = right_end; /* what the peak label uses */
    if (marker >= 0) {
        int64_t value = chart->columns[frame->peak_column].in_use;
        char bytes[FORMAT_BYTES_SIZE], label[48];
        format_bytes(value, bytes, sizeof bytes);
        bool is_peak = value == viewer->allocator->summary.peak_bytes;
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
    int64_t capacity = viewer->allocator->summary.capacity_bytes;
    if (capacity > 0 && !capacity_in_plot(viewer, frame)) {
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
 * margin; the cursor's column marked. */
static void draw_time_axis(struct viewer *viewer, WINDOW *window, const struct chart_geometry *g,
                           const struct chart_frame *frame)
{
    if (g->axis_y < 0 || g->plot_width <= 0)
        return;
    const struct ui_style *style = &viewer->style;
    const struct time_window *time = &viewer->time;
    struct chart_window window_of_plot = chart_window_of(time, g->plot_width);
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
    draw_glyph(window, g->axis_y, g->plot_x + frame->cursor_column, GLYPH_CURSOR(style),
               style->normal | A_BOLD);
    wattrset(window, style->normal);
}

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
static void readout_field(struct readout *readout, const char *label, const char *value,
                          attr_t attr, bool flexible)
{
    const struct ui_style *style = readout->style;
    int label_width = label ? draw_text_width(label, style) + 1 : 0;
    int value_width = draw_text_width(value, style);
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
    int used = draw_text(readout->window, y, x + label_width, room, value, style);
    readout->column += gap + label_width + used;
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

static void readout_string(struct readout *readout, const char *label, const char *text,
                           attr_t attr, bool flexible)
{
    if (text && text[0])
        readout_field(readout, label, text, attr, flexible);
}

/* The event at the snapshot: what happened, how big, and for which op. */
static void readout_event(struct viewer *viewer, struct readout *readout,
                          const struct snapshot_columns *timeline, size_t index)
{
    const struct ui_style *style = &viewer->style;
    const struct profile *profile = viewer->profile;
    char bytes[FORMAT_BYTES_SIZE];
    readout_field(readout, memory_activity_label(timeline->activity[index]),
                  format_bytes(timeline->allocation_bytes[index], bytes, sizeof bytes),
                  style->normal | A_BOLD, false);
    readout_string(readout, "op", profile_text(profile, timeline->op_name[index]), style->normal,
                   true);
    readout_bytes(readout, "requested", timeline->requested_bytes[index], style->normal);
    if (timeline->step_id[index] >= 0) {
        char step[32];
        snprintf(step, sizeof step, "%lld", (long long)timeline->step_id[index]);
        readout_field(readout, "step", step, style->normal, false);
    }
    readout_string(readout, "region", profile_text(profile, timeline->region_type[index]),
                   style->normal, false);
    readout_string(readout, "type", profile_text(profile, timeline->data_type[index]),
                   style->normal, false);
    readout_string(readout, "shape", profile_text(profile, timeline->tensor_shape[index]),
                   style->normal, true);
}

static void draw_readout(struct viewer *viewer, WINDOW *window, const struct chart_geometry *g,
                         const struct chart_frame *frame, const struct snapshot_columns *timeline)
{
    if (g->readout_rows <= 0)
        return;
    const struct ui_style *style = &viewer->style;
    const struct chart_state *chart = &viewer->chart;
    const struct chart_column *column = &chart->columns[frame->cursor_column];
    const struct time_window *time = &viewer->time;
    bool pinned = time->pinned != SIZE_MAX;
    size_t index = pinned ? time->pinned : column->snapshot;
    bool carried = !pinned && column->carried;
    /* The memory line: one line only, so the event always has its own. */
    struct readout readout = {window, style, g->readout_y, g->x + 1, g->width - 1, 1, 0, 0};
    char when[64], text[160];
    time_window_text(time, index != SIZE_MAX && !carried ? timeline->time_ps[index]
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
        readout_field(&readout, NULL, "before the first snapshot", style->dim, false);
        wattrset(window, style->normal);
        return;
    }
    /* In order of what a narrow pane keeps: heap and stack add up to the
     * memory in use, so they go first when room runs out. */
    readout_bytes(&readout, "in use", snapshot_columns_in_use(timeline, index),
                  style->heap | A_BOLD);
    readout_bytes(&readout, "free", timeline->free_bytes[index], style->normal);
    char percent[32];
    readout_field(&readout, "frag", format_percent(timeline->fragmentation[index], percent,
                                                   sizeof percent),
                  style->normal, false);
    readout_bytes(&readout, "heap", timeline->heap_bytes[index], style->normal);
    readout_bytes(&readout, "stack", timeline->stack_bytes[index], style->normal);
    readout.rows = g->readout_rows;
    readout_next_line(&readout);
    if (carried) {
        char last[64];
        time_window_text(time, timeline->time_ps[index], last, sizeof last);
        snprintf(text, sizeof text, "no event in this column; the last was at %s", last);
        readout_field(&readout, NULL, text, style->dim, true);
    } else {
        readout_event(viewer, &readout, timeline, index);
    }
    wattrset(window, style->normal);
}

static void draw_message(struct viewer *viewer, WINDOW *window, int y, int x, int height,
                         int width, bool focused, const char *message)
{
    const struct ui_style *style = &viewer->style;
    draw_pane_title(window, y, x, width, "Memory", focused, style);
    if (height > 2) {
        wattrset(window, style->dim);
        draw_text(window, y + 2, x + 2, width - 2, message, style);
        wattrset(window, style->normal);
    }
}

static void chart_draw(struct pane *pane, struct viewer *viewer, const struct pane_area *area)
{
    (void)pane;
    WINDOW *window = area->window;
    int y = area->rect.y, x = area->rect.x, height = area->rect.height, width = area->rect.width;
    bool focused = area->focused;
    if (height <= 0 || width <= 0)
        return;
    if (!viewer->allocator) {
        draw_message(viewer, window, y, x, height, width, focused, "no allocator");
        return;
    }
    const struct snapshot_columns *timeline = chart_timeline(viewer);
    if (!timeline) {
        draw_message(viewer, window, y, x, height, width, focused,
                     "no snapshots: this allocator's timeline is empty");
        return;
    }
    struct chart_state *chart = &viewer->chart;
    struct chart_geometry g;
    chart_layout(chart, y, x, height, width, &g);
    if (g.plot_width <= 0) {
        draw_message(viewer, window, y, x, height, width, focused, "too narrow");
        return;
    }
    chart->last_plot_width = g.plot_width;
    chart->last_plot_offset = g.plot_x - x;
    viewer->time.columns = g.plot_width;
    time_window_fit(&viewer->time, timeline);
    struct chart_window plot = chart_window_of(&viewer->time, g.plot_width);
    chart_columns_compute(timeline, &plot, chart->columns);
    struct chart_frame frame;
    frame_compute(viewer, timeline, g.plot_width, &frame);

    draw_title(viewer, window, &g, &frame, timeline, focused);
    int capacity_row = g.plot_rows > 0 && capacity_in_plot(viewer, &frame)
                           ? value_row(viewer->allocator->summary.capacity_bytes, frame.top,
                                       g.plot_rows)
                           : -1;
    for (int c = 0; g.plot_rows > 0 && c < g.plot_width; c++)
        draw_column(viewer, window, &g, &frame, timeline, c, capacity_row);
    draw_y_axis(viewer, window, &g, &frame, capacity_row);
    draw_fragmentation_axis(viewer, window, &g, &frame);
    draw_time_axis(viewer, window, &g, &frame);
    draw_readout(viewer, window, &g, &frame, timeline);
    wattrset(window, viewer->style.normal);
}

/* ---- requests ---- */

static void chart_move(struct viewer *viewer, const struct snapshot_columns *timeline, int delta)
{
    enum time_window_move moved = time_window_move(&viewer->time, timeline, delta);
    if (moved != TIME_WINDOW_MOVED)
        viewer_status(viewer, false, moved == TIME_WINDOW_AT_START ? "start of the timeline"
                                                                    : "end of the timeline");
}

static void chart_zoom(struct viewer *viewer, const struct snapshot_columns *timeline,
                       bool zoom_in)
{
    if (!time_window_zoom(&viewer->time, timeline, zoom_in))
        viewer_status(viewer, false, zoom_in ? "zoomed in as far as it goes (1 ps per column)"
                                             : "the whole timeline is shown");
}

static void chart_jump_peak(struct viewer *viewer, const struct snapshot_columns *timeline)
{
    size_t peak = time_window_jump_to_peak(&viewer->time, viewer->allocator);
    if (peak == SIZE_MAX)
        return;
    char bytes[FORMAT_BYTES_SIZE], at[64];
    viewer_status(viewer, false, "peak %s at %s",
                  format_bytes(snapshot_columns_in_use(timeline, peak), bytes, sizeof bytes),
                  time_window_text(&viewer->time, timeline->time_ps[peak], at, sizeof at));
}

/* The next (or previous) snapshot whose op name matches the table's
 * filter, wrapping around the timeline. */
static void chart_match(struct viewer *viewer, const struct snapshot_columns *timeline,
                        bool forward)
{
    struct time_window *time = &viewer->time;
    const char *filter = query_filter(&viewer->query);
    if (!filter[0]) {
        viewer_status(viewer, false, "no filter: / filters the table's op names, n/N find them");
        return;
    }
    /* Forward from just after the cursor, backward from just before it. */
    size_t count = timeline->count;
    size_t base;
    if (time->pinned != SIZE_MAX)
        base = forward ? time->pinned + 1 : time->pinned;
    else
        base = timeline_find_time(timeline, forward ? chart_time_add(time->cursor_ps, 1)
                                                    : time->cursor_ps);
    uint32_t cached_id = STRING_ID_NONE;
    bool cached_match = false;
    for (size_t step = 0; step < count; step++) {
        size_t index;
        bool wrapped;
        if (forward) {
            index = (base + step) % count;
            wrapped = base + step >= count;
        } else {
            wrapped = step + 1 > base;
            index = wrapped ? count + base - step - 1 : base - step - 1;
        }
        uint32_t id = timeline->op_name[index];
        if (id != cached_id) {
            cached_id = id;
            cached_match = allocation_table_matches(profile_text(viewer->profile, id), filter);
        }
        if (!cached_match)
            continue;
        time_window_show_snapshot(time, timeline, index);
        if (wrapped)
            viewer_status(viewer, false, "search wrapped around the timeline");
        return;
    }
    viewer_status(viewer, false, "no snapshot's op name contains \"%s\"", filter);
}

static bool chart_handle_request(struct viewer *viewer, enum request request)
{
    const struct snapshot_columns *timeline = chart_timeline(viewer);
    if (!timeline)
        return false;
    struct chart_state *chart = &viewer->chart;
    int width = time_window_columns(&viewer->time);
    int page = width / 10 > 1 ? width / 10 : 1;
    time_window_fit(&viewer->time, timeline);
    switch (request) {
    case REQUEST_MOVE_LEFT: chart_move(viewer, timeline, -1); return true;
    case REQUEST_MOVE_RIGHT: chart_move(viewer, timeline, 1); return true;
    case REQUEST_PAGE_UP: chart_move(viewer, timeline, -page); return true;
    case REQUEST_PAGE_DOWN: chart_move(viewer, timeline, page); return true;
    case REQUEST_FIRST: time_window_move_to_edge(&viewer->time, timeline, false); return true;
    case REQUEST_LAST: time_window_move_to_edge(&viewer->time, timeline, true); return true;
    case REQUEST_ZOOM_IN: chart_zoom(viewer, timeline, true); return true;
    case REQUEST_ZOOM_OUT: chart_zoom(viewer, timeline, false); return true;
    case REQUEST_ZOOM_RESET: time_window_show_all(&viewer->time, timeline); return true;
    case REQUEST_JUMP_PEAK: chart_jump_peak(viewer, timeline); return true;
    case REQUEST_MATCH_NEXT: chart_match(viewer, timeline, true); return true;
    case REQUEST_MATCH_PREVIOUS: chart_match(viewer, timeline, false); return true;
    case REQUEST_TOGGLE_FREE:
        chart->show_free = !chart->show_free;
        viewer_status(viewer, false, chart->show_free ? "free memory shown above the memory in use"
                                                      : "free memory hidden");
        return true;
    case REQUEST_TOGGLE_FRAGMENTATION:
        chart->show_fragmentation = !chart->show_fragmentation;
        viewer_status(viewer, false, chart->show_fragmentation
                                         ? "fragmentation shown as dots (right axis)"
                                         : "fragmentation hidden");
        return true;
    default: return false;
    }
}

static struct pane_reply chart_handle(struct pane *pane, struct viewer *viewer,
                                      enum request request)
{
    (void)pane;
    return chart_handle_request(viewer, request) ? pane_reply_handled() : pane_reply_ignored();
}

/* A click on a column of the plot puts the cursor there; beside the plot
 * it does nothing. */
static struct pane_reply chart_click(struct pane *pane, struct viewer *viewer, int row, int column,
                                     bool again)
{
    (void)pane, (void)row, (void)again;
    struct chart_state *chart = &viewer->chart;
    int plot_column = column - chart->last_plot_offset;
    if (!chart_timeline(viewer) || chart->last_plot_width <= 0 || plot_column < 0 ||
        plot_column >= chart->last_plot_width)
        return pane_reply_handled();
    time_window_set_column(&viewer->time, plot_column);
    return pane_reply_handled();
}

/* The timeline in the visible window. */
static bool chart_export(struct pane *pane, const struct viewer *viewer,
                         struct export_request *request)
{
    (void)pane;
    if (!viewer->allocator)
        return false;
    export_request_init(request, EXPORT_VIEW_TIMELINE, viewer->profile, viewer->allocator);
    request->from_ps = viewer->time.from_ps;
    request->to_ps = viewer->time.to_ps;
    return true;
}

static void chart_free(struct pane *pane)
{
    free(pane);
}

static const struct pane_ops chart_ops = {
    .draw = chart_draw,
    .handle = chart_handle,
    .click = chart_click,
    .free = chart_free,
    .export = chart_export,
    .scope = KEY_SCOPE_CHART,
    .keys_reach_it_unfocused = true,
};

struct pane *chart_pane_create(struct viewer *viewer)
{
    (void)viewer;
    struct pane *pane = calloc(1, sizeof *pane);
    if (pane)
        pane->ops = &chart_ops;
    return pane;
}
