#include "config.h"

#include "ui/panes/chart/chart_pane.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/format.h"
#include "model/util/saturating.h"
#include "model/timeline.h"
#include "ui/panes/chart/chart_frame.h"
#include "ui/settings.h"
#include "ui/viewer.h"

/* Widest y-axis label: "500.00 MiB". A rare wider tick ("1000.00 MiB")
 * is left unlabelled rather than widening the margin for every chart. */
#define LABEL_WIDTH 10
#define MINIMUM_FOR_LABELS 40 /* narrower panes plot without axes */
/* The capacity gets a row of its own above the bars only when as many
 * rows are left for them. */
#define CAPACITY_ROW_MINIMUM 4

struct chart_pane {
    struct pane pane;
    struct chart_binding shows;
    bool show_free;
    bool show_reserved; /* where the allocator records it; on unless turned off */
    bool show_fragmentation;
    bool auto_axis;
    bool capacity_axis;
    bool step_boundaries; /* the time axis marks where steps start */
    struct chart_steps steps;
    struct chart_event_list events; /* the column's events, while listed */
    int last_plot_width;  /* columns of the plot at the last draw */
    int last_plot_offset; /* its first column, from the pane's left edge */
    /* The frame's columns: reused, so drawing allocates nothing. */
    struct chart_column columns[CHART_MAX_COLUMNS];
    struct chart_column line_columns[CHART_MAX_COLUMNS]; /* an overlay's */
    bool oom_marks[CHART_MAX_COLUMNS]; /* the columns of out-of-memory errors */
};

static struct chart_pane *chart_of(struct pane *pane)
{
    return (struct chart_pane *)pane;
}

static const struct allocator *chart_allocator(const struct chart_pane *chart)
{
    return *chart->shows.allocator;
}

/* The timeline shown; NULL without an allocator or without snapshots. */
static const struct snapshot_columns *chart_timeline(const struct chart_pane *chart)
{
    const struct allocator *allocator = chart_allocator(chart);
    if (!allocator || allocator->timeline.count == 0)
        return NULL;
    return &allocator->timeline;
}

/* ---- one frame ---- */

static void chart_layout(const struct chart_pane *chart, const struct rect *rect,
                         struct chart_geometry *geometry)
{
    int y = rect->y, x = rect->x, height = rect->height, width = rect->width;
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
    /* The legend when the plot keeps four rows. */
    int legend = body - geometry->readout_rows - axis >= 5 ? 1 : 0;
    geometry->plot_rows = body - geometry->readout_rows - axis - legend;
    if (geometry->plot_rows < 1) {
        geometry->readout_rows = body;
        geometry->plot_rows = 0;
    }
    geometry->plot_y = y + 1;
    if (axis)
        geometry->axis_y = geometry->plot_y + geometry->plot_rows;
    geometry->legend_y = legend ? geometry->plot_y + geometry->plot_rows + axis : -1;
    geometry->readout_y = geometry->plot_y + geometry->plot_rows + axis + legend;

    /* The plot's width depends on the pane's only (no toggle changes
     * it), so the cursor stays on its column whatever is shown. */
    (void)chart;
    bool labels = width >= MINIMUM_FOR_LABELS;
    geometry->gutter_width = labels ? LABEL_WIDTH : 0;
    geometry->plot_x = x + (labels ? LABEL_WIDTH + 1 : 0);
    geometry->plot_width = width - (geometry->plot_x - x);
    if (geometry->plot_width < 0)
        geometry->plot_width = 0;
    if (geometry->plot_width > CHART_MAX_COLUMNS)
        geometry->plot_width = CHART_MAX_COLUMNS;
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

/* The y range (from 0, or from near the lowest value with an auto axis;
 * up to the largest value, or the capacity) and where the capacity line
 * goes: inside the range on its row; past the top, on a row of its own
 * above the bars when the plot has rows to spare. */
static void frame_compute_range(struct chart_frame *frame, int64_t lowest)
{
    int64_t capacity = frame->allocator->summary.capacity_bytes;
    int rows = frame->g.plot_rows;
    if (frame->capacity_axis && capacity > frame->top)
        frame->top = capacity;
    if (frame->top <= 0)
        frame->top = 1;
    frame->bar_rows = rows;
    frame->capacity_row = -1;
    frame->capacity_above = false;
    if (capacity > frame->top && rows >= CAPACITY_ROW_MINIMUM) {
        frame->capacity_above = true;
        frame->bar_rows = rows - 1;
        frame->capacity_row = rows - 1;
    }
    /* The bottom in finer steps than the labels take: a short plot
     * still gets a cut. */
    int steps = frame->bar_rows + 1 > 4 ? frame->bar_rows + 1 : 4;
    frame->bottom = frame->auto_axis && lowest < frame->top
                        ? chart_axis_bottom(lowest, frame->top, steps)
                        : 0;
    if (capacity > 0 && capacity >= frame->bottom && capacity <= frame->top)
        frame->capacity_row = chart_frame_value_row(frame, capacity);
}

/* The y range, the peak's column and the cursor's, from the frame's
 * columns. */
static void frame_compute(struct chart_frame *frame)
{
    const struct chart_column *columns = frame->columns;
    const struct snapshot_columns *timeline = frame->timeline;
    int width = frame->g.plot_width;
    frame->top = 0;
    frame->peak_column = -1;
    int64_t peak_value = -1, lowest = INT64_MAX;
    double fragmentation = 0.0;
    for (int c = 0; c < width; c++) {
        const struct chart_column *column = &columns[c];
        if (column->snapshot == SIZE_MAX)
            continue;
        int64_t value = chart_frame_column_value(frame, column);
        if (frame->show_reserved && chart_frame_column_reserved(frame, column) > value)
            value = chart_frame_column_reserved(frame, column);
        if (value > frame->top)
            frame->top = value;
        if (column->in_use < lowest)
            lowest = column->in_use;
        if (!column->carried && column->in_use > peak_value) {
            peak_value = column->in_use;
            frame->peak_column = c;
        }
        double f = timeline->fragmentation[column->snapshot];
        if (chart_frame_fragmentation_valid(f) && f > fragmentation)
            fragmentation = f;
    }
    chart_overlay_range(frame, &frame->top, &lowest);
    frame_compute_range(frame, lowest);
    /* Of equal maxima, mark the one the summary calls the peak. */
    struct chart_window window = {frame->time->from_ps, frame->time->to_ps, width};
    int summary_column = chart_column_of_time(&window, frame->allocator->summary.peak_time_ps);
    if (summary_column >= 0 && summary_column < width && !columns[summary_column].carried &&
        columns[summary_column].in_use == peak_value)
        frame->peak_column = summary_column;
    frame->fragmentation_top = fragmentation_scale(fragmentation);
    int cursor = chart_column_of_time(&window, frame->time->cursor_ps);
    frame->cursor_column = cursor < 0 ? 0 : cursor >= width ? width - 1 : cursor;
    frame->marked = frame->time->marked;
    frame->mark_column = frame->marked ? chart_column_of_time(&window, frame->time->mark_ps) : -1;
}


static void draw_message(const struct pane_area *area, const struct ui_style *style,
                         const char *message)
{
    const struct rect *rect = &area->rect;
    draw_pane_title(area->window, rect->y, rect->x, rect->width, "Memory", area->focused, style);
    if (rect->height > 2) {
        wattrset(area->window, style->dim);
        draw_text(area->window, rect->y + 2, rect->x + 2, rect->width - 2, message, style);
        wattrset(area->window, style->normal);
    }
}

static void chart_draw(struct pane *pane, struct viewer *viewer, const struct pane_area *area)
{
    struct chart_pane *chart = chart_of(pane);
    const struct ui_style *style = &viewer->style;
    if (rect_is_empty(&area->rect))
        return;
    if (!chart_allocator(chart)) {
        draw_message(area, style, "no allocator");
        return;
    }
    const struct snapshot_columns *timeline = chart_timeline(chart);
    /* A format without time (Skyline's report) is not an empty timeline. */
    if (chart_allocator(chart)->timeline_kind == TIMELINE_NONE) {
        if (!chart_memory_map_draw(chart_allocator(chart), area->window, &area->rect,
                                   area->focused, style))
            draw_message(area, style, "this report has no timeline: its format records none");
        return;
    }
    if (!timeline) {
        draw_message(area, style, "no snapshots: this allocator's timeline is empty");
        return;
    }
    struct chart_frame frame = {
        .window = area->window,
        .style = style,
        .focused = area->focused,
        .profile = *chart->shows.profile,
        .allocator = chart_allocator(chart),
        .timeline = timeline,
        .time = chart->shows.time,
        .columns = chart->columns,
        .show_free = chart->show_free,
        .show_fragmentation = chart->show_fragmentation,
        .auto_axis = chart->auto_axis,
        .capacity_axis = chart->capacity_axis,
    };
    chart_layout(chart, &area->rect, &frame.g);
    if (frame.g.plot_width <= 0) {
        draw_message(area, style, "too narrow");
        return;
    }
    chart->last_plot_width = frame.g.plot_width;
    chart->last_plot_offset = frame.g.plot_x - area->rect.x;
    struct time_window *time = chart->shows.time;
    time->columns = frame.g.plot_width;
    time_window_fit(time, timeline);
    struct chart_window plot = {time->from_ps, time->to_ps, frame.g.plot_width};
    chart_columns_compute(timeline, &plot, chart->columns);
    frame.overlay = chart->shows.overlay;
    if (chart_overlay_compute(frame.overlay, timeline, &plot, chart->line_columns, chart->columns))
        frame.line_columns = chart->line_columns;
    /* A compared timeline's line has the plot's lines to itself. */
    frame.show_reserved = chart->show_reserved && !frame.line_columns &&
                          allocator_records_reserved(frame.allocator);
    if (chart->step_boundaries)
        frame.step_marks = chart_steps_marks(&chart->steps, chart_allocator(chart), &plot);
    if (chart_marks_find_ooms(chart_allocator(chart), &plot, chart->oom_marks))
        frame.oom_marks = chart->oom_marks;
    frame_compute(&frame);
    chart_plot_draw(&frame);
    chart_readout_draw(&frame);
}

/* ---- requests ---- */

/* A move that could not go on says which end it met. */
static void chart_say_end(struct viewer *viewer, enum time_window_move moved, const char *start,
                          const char *end)
{
    if (moved != TIME_WINDOW_MOVED)
        viewer_status(viewer, false, "%s", moved == TIME_WINDOW_AT_START ? start : end);
}

static void chart_move(struct viewer *viewer, struct chart_pane *chart,
                       const struct snapshot_columns *timeline, int delta)
{
    chart_say_end(viewer, time_window_move(chart->shows.time, timeline, delta),
                  "start of the timeline", "end of the timeline");
}

static void chart_zoom(struct viewer *viewer, struct chart_pane *chart,
                       const struct snapshot_columns *timeline, bool zoom_in)
{
    if (!time_window_zoom(chart->shows.time, timeline, zoom_in))
        viewer_status(viewer, false, zoom_in ? "zoomed in as far as it goes: one snapshot per "
                                               "column (, and . step through events)"
                                             : "the whole timeline is shown");
}

static void chart_jump_peak(struct viewer *viewer, struct chart_pane *chart,
                            const struct snapshot_columns *timeline)
{
    size_t peak = time_window_jump_to_peak(chart->shows.time, chart_allocator(chart));
    if (peak == SIZE_MAX)
        return;
    char bytes[FORMAT_BYTES_SIZE], at[64];
    viewer_status(
        viewer, false, "peak %s at %s",
        format_bytes(snapshot_columns_in_use(timeline, peak), bytes, sizeof bytes),
        time_window_text(chart->shows.time, snapshot_columns_time(timeline, peak), at, sizeof at));
}

/* Where a search starts: just after the cursor (forward) or just before
 * it, as an index into the timeline. */
static size_t chart_search_base(const struct time_window *time,
                                const struct snapshot_columns *timeline, bool forward)
{
    if (time->pinned != SIZE_MAX)
        return forward ? time->pinned + 1 : time->pinned;
    return timeline_find_time(timeline, forward ? chart_time_add(time->cursor_ps, 1)
                                                : time->cursor_ps);
}

/* n/N: the next (or previous) snapshot whose op name matches the query's
 * filter, wrapping around the timeline. */
static void chart_match(struct viewer *viewer, struct chart_pane *chart,
                        const struct snapshot_columns *timeline, bool forward)
{
    const char *filter = query_filter(&viewer->query);
    if (!filter[0]) {
        viewer_status(viewer, false, "no filter: / filters the table's op names, n/N find them");
        return;
    }
    const struct profile *profile = *chart->shows.profile;
    size_t count = timeline->count;
    size_t base = chart_search_base(chart->shows.time, timeline, forward);
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
        uint32_t id = snapshot_columns_op_name(timeline, index);
        if (id != cached_id) {
            cached_id = id;
            cached_match = allocation_table_matches(profile_string(profile, id), filter);
        }
        if (!cached_match)
            continue;
        time_window_show_snapshot(chart->shows.time, timeline, index);
        if (wrapped)
            viewer_status(viewer, false, "search wrapped around the timeline");
        return;
    }
    viewer_status(viewer, false, "no snapshot's op name contains \"%s\"", filter);
}

/* f, v, F, a, c, b: what the chart shows changes; where it shows it (the
 * plot's columns, the cursor) does not. */
static void chart_toggle(struct viewer *viewer, struct chart_pane *chart, enum request request)
{
    switch (request) {
    case REQUEST_TOGGLE_FRAGMENTATION:
        chart->show_fragmentation = !chart->show_fragmentation;
        viewer_status(viewer, false, chart->show_fragmentation
                                         ? "fragmentation shown as dots (the legend has its scale)"
                                         : "fragmentation hidden");
        break;
    case REQUEST_TOGGLE_FREE:
        chart->show_free = !chart->show_free;
        viewer_status(viewer, false, chart->show_free ? "free memory shown above the memory in use"
                                                      : "free memory hidden");
        break;
    case REQUEST_TOGGLE_RESERVED:
        chart->show_reserved = !chart->show_reserved;
        viewer_status(viewer, false,
                      !allocator_records_reserved(chart_allocator(chart))
                          ? "this allocator's timeline records no reserved memory (PyTorch's "
                            "caching allocator does)"
                      : chart->show_reserved ? "reserved memory shown as a line over the bars"
                                             : "reserved memory hidden");
        break;
    case REQUEST_TOGGLE_AUTO_AXIS:
        chart->auto_axis = !chart->auto_axis;
        viewer_status(viewer, false, chart->auto_axis
                                         ? "y-axis auto-ranged: it starts near the lowest value "
                                           "shown (the legend marks the cut)"
                                         : "y-axis from 0");
        break;
    case REQUEST_STEP_BOUNDARIES:
        chart->step_boundaries = !chart->step_boundaries;
        viewer_status(viewer, false, chart->step_boundaries
                                         ? "the time axis marks where each step starts, with "
                                           "its id (b: times again)"
                                         : "the time axis shows times");
        break;
    default:
        chart->capacity_axis = !chart->capacity_axis;
        viewer_status(viewer, false, chart->capacity_axis
                                         ? "y-axis up to the capacity: the gap is the headroom"
                                         : "y-axis up to the largest value shown");
        break;
    }
}

/* , and .: the previous or next event, whatever its op. */
static void chart_step_event(struct viewer *viewer, struct chart_pane *chart,
                             const struct snapshot_columns *timeline, int direction)
{
    chart_say_end(viewer, time_window_step_event(chart->shows.time, timeline, direction),
                  "the first event", "the last event");
}

/* Whether this chart's event list is open over the screen. */
static bool chart_listing(const struct chart_pane *chart, const struct viewer *viewer)
{
    return viewer->overlay == OVERLAY_DETAIL && viewer->overlay_pane < PANE_COUNT &&
           viewer->panes[viewer->overlay_pane] == &chart->pane;
}

/* Enter: the events of the cursor's column, listed over the screen. */
static struct pane_reply chart_list_events(struct viewer *viewer, struct chart_pane *chart,
                                           const struct snapshot_columns *timeline)
{
    if (chart_events_open(&chart->events, chart->shows.time, timeline))
        return pane_reply_follow(follow_up_of(FOLLOW_UP_OPEN_DETAIL, 0));
    viewer_status(viewer, false, "no event in this column");
    return pane_reply_handled();
}

static bool chart_handle_request(struct viewer *viewer, struct chart_pane *chart,
                                 const struct snapshot_columns *timeline, enum request request)
{
    struct time_window *time = chart->shows.time;
    int width = time_window_columns(time);
    int page = width / 10 > 1 ? width / 10 : 1;
    switch (request) {
    case REQUEST_MOVE_LEFT: chart_move(viewer, chart, timeline, -1); return true;
    case REQUEST_MOVE_RIGHT: chart_move(viewer, chart, timeline, 1); return true;
    case REQUEST_PAGE_UP: chart_move(viewer, chart, timeline, -page); return true;
    case REQUEST_PAGE_DOWN: chart_move(viewer, chart, timeline, page); return true;
    case REQUEST_FIRST: time_window_move_to_edge(time, timeline, false); return true;
    case REQUEST_LAST: time_window_move_to_edge(time, timeline, true); return true;
    case REQUEST_ZOOM_IN: chart_zoom(viewer, chart, timeline, true); return true;
    case REQUEST_ZOOM_OUT: chart_zoom(viewer, chart, timeline, false); return true;
    case REQUEST_ZOOM_RESET: time_window_show_all(time, timeline); return true;
    case REQUEST_JUMP_PEAK: chart_jump_peak(viewer, chart, timeline); return true;
    case REQUEST_MATCH_NEXT: chart_match(viewer, chart, timeline, true); return true;
    case REQUEST_MATCH_PREVIOUS: chart_match(viewer, chart, timeline, false); return true;
    case REQUEST_EVENT_PREVIOUS: chart_step_event(viewer, chart, timeline, -1); return true;
    case REQUEST_EVENT_NEXT: chart_step_event(viewer, chart, timeline, 1); return true;
    case REQUEST_TOGGLE_FREE:
    case REQUEST_TOGGLE_RESERVED:
    case REQUEST_TOGGLE_FRAGMENTATION:
    case REQUEST_TOGGLE_AUTO_AXIS:
    case REQUEST_STEP_BOUNDARIES:
    case REQUEST_TOGGLE_CAPACITY_AXIS: chart_toggle(viewer, chart, request); return true;
    default: return false;
    }
}

static struct pane_reply chart_handle(struct pane *pane, struct viewer *viewer,
                                      enum request request)
{
    struct chart_pane *chart = chart_of(pane);
    const struct snapshot_columns *timeline = chart_timeline(chart);
    if (!timeline)
        return pane_reply_ignored();
    time_window_fit(chart->shows.time, timeline);
    if (chart_listing(chart, viewer))
        return chart_events_move(&chart->events, chart->shows.time, timeline, request)
                   ? pane_reply_handled()
                   : pane_reply_ignored();
    if (request == REQUEST_ENTER)
        return chart_list_events(viewer, chart, timeline);
    return chart_handle_request(viewer, chart, timeline, request) ? pane_reply_handled()
                                                                  : pane_reply_ignored();
}

static void chart_draw_detail(struct pane *pane, struct viewer *viewer, WINDOW *window, int rows,
                              int cols)
{
    struct chart_pane *chart = chart_of(pane);
    const struct snapshot_columns *timeline = chart_timeline(chart);
    if (!timeline || chart->events.first + chart->events.count > timeline->count) {
        viewer->overlay = OVERLAY_NONE;
        return;
    }
    chart_events_draw(&chart->events, *chart->shows.profile, timeline, chart->shows.time, window,
                      rows, cols, &viewer->style);
}

/* A click on a column of the plot puts the cursor there; beside the plot
 * it does nothing. */
static struct pane_reply chart_click(struct pane *pane, struct viewer *viewer, int row, int column,
                                     bool again)
{
    (void)viewer, (void)row, (void)again;
    struct chart_pane *chart = chart_of(pane);
    int plot_column = column - chart->last_plot_offset;
    if (chart_timeline(chart) && chart->last_plot_width > 0 && plot_column >= 0 &&
        plot_column < chart->last_plot_width)
        time_window_set_column(chart->shows.time, plot_column);
    return pane_reply_handled();
}

/* Its toggles outlive the session. */
static void chart_recall(struct pane *pane, struct viewer *viewer, const struct settings *settings)
{
    (void)viewer;
    struct chart_pane *chart = chart_of(pane);
    chart->show_free = settings_get_bool(settings, "chart.free", chart->show_free);
    chart->show_reserved = settings_get_bool(settings, "chart.reserved", chart->show_reserved);
    chart->show_fragmentation =
        settings_get_bool(settings, "chart.fragmentation", chart->show_fragmentation);
    chart->auto_axis = settings_get_bool(settings, "chart.auto_axis", chart->auto_axis);
    chart->capacity_axis =
        settings_get_bool(settings, "chart.capacity_axis", chart->capacity_axis);
    chart->step_boundaries =
        settings_get_bool(settings, "chart.step_boundaries", chart->step_boundaries);
}

static void chart_remember(struct pane *pane, const struct viewer *viewer,
                           struct settings *settings)
{
    (void)viewer;
    const struct chart_pane *chart = chart_of(pane);
    settings_set_bool(settings, "chart.free", chart->show_free);
    settings_set_bool(settings, "chart.reserved", chart->show_reserved);
    settings_set_bool(settings, "chart.fragmentation", chart->show_fragmentation);
    settings_set_bool(settings, "chart.auto_axis", chart->auto_axis);
    settings_set_bool(settings, "chart.capacity_axis", chart->capacity_axis);
    settings_set_bool(settings, "chart.step_boundaries", chart->step_boundaries);
}

/* Another allocator or host: its steps are built again when shown. */
static void chart_reset(struct pane *pane, struct viewer *viewer, bool new_host)
{
    (void)viewer, (void)new_host;
    chart_steps_forget(&chart_of(pane)->steps);
}

static void chart_free(struct pane *pane)
{
    chart_steps_forget(&chart_of(pane)->steps);
    pane_free_plain(pane);
}

/* The timeline in the visible window. */
static bool chart_export(struct pane *pane, const struct viewer *viewer,
                         struct export_request *request)
{
    (void)viewer;
    struct chart_pane *chart = chart_of(pane);
    if (!chart_allocator(chart))
        return false;
    export_request_init(request, EXPORT_VIEW_TIMELINE, *chart->shows.profile,
                        chart_allocator(chart));
    request->from_ps = chart->shows.time->from_ps;
    request->to_ps = chart->shows.time->to_ps;
    return true;
}

static const struct pane_ops chart_ops = {
    .draw = chart_draw,
    .handle = chart_handle,
    .click = chart_click,
    .reset = chart_reset,
    .free = chart_free,
    .export = chart_export,
    .draw_detail = chart_draw_detail,
    .recall = chart_recall,
    .remember = chart_remember,
    .scope = KEY_SCOPE_CHART,
    .keys_reach_it_unfocused = true,
};

struct pane *chart_pane_create_bound(struct chart_binding binding)
{
    struct pane *pane = pane_create(&chart_ops, sizeof(struct chart_pane));
    if (pane) {
        chart_of(pane)->shows = binding;
        chart_of(pane)->show_reserved = true;
    }
    return pane;
}

struct pane *chart_pane_create(struct viewer *viewer)
{
    struct chart_binding binding = {&viewer->profile, &viewer->allocator, &viewer->time, NULL};
    return chart_pane_create_bound(binding);
}
