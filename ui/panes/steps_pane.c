#include "config.h"

#include "ui/panes/steps_pane.h"

#include <stdio.h>
#include <string.h>

#include "model/format.h"
#include "model/query/spans.h"
#include "model/query/steps.h"
#include "ui/column_fit.h"
#include "ui/viewer.h"

/* The step first, the sizes at fixed places, the change of the end last
 * (it takes the slack) with the possible-leak flag after it. Who gives
 * way when narrow: the peak's time, the frees, the allocations, the
 * end's time, the start. */
enum step_column {
    STEP_ID,
    STEP_START,
    STEP_END,
    STEP_LENGTH,
    STEP_PEAK,
    STEP_PEAK_TIME,
    STEP_END_BYTES,
    STEP_ALLOCATIONS,
    STEP_DEALLOCATIONS,
    STEP_DELTA,
    STEP_COLUMN_COUNT
};

static const struct fit_column step_columns[STEP_COLUMN_COUNT] = {
    [STEP_ID] = {"Step", true, 0, 0, 0, 0},
    [STEP_START] = {"Start ms", true, 0, 0, 0, 5},
    [STEP_END] = {"End ms", true, 0, 0, 0, 4},
    [STEP_LENGTH] = {"Length ms", true, 0, 0, 0, 6, true},
    [STEP_PEAK] = {"Peak", true, 0, 0, 0, 0},
    [STEP_PEAK_TIME] = {"Peak ms", true, 0, 0, 0, 1},
    [STEP_END_BYTES] = {"At end", true, 0, 0, 0, 0},
    [STEP_ALLOCATIONS] = {"Allocs", true, 0, 0, 0, 3},
    [STEP_DEALLOCATIONS] = {"Frees", true, 0, 0, 0, 2},
    [STEP_DELTA] = {"End change", false, 0, 0, 0, 0},
};

/* With named spans (a PyTorch snapshot's external_annotations): their
 * names, indented by nesting, left-aligned in the first column, cut
 * before the sizes go; each span's length. Who gives way: the frees,
 * the allocations, the peak's time, the end's memory, the end, the
 * start, the length. */
static const struct fit_column span_columns[STEP_COLUMN_COUNT] = {
    [STEP_ID] = {"Step / span", false, 24, 0, 1, 0},
    [STEP_START] = {"Start ms", true, 0, 0, 0, 6},
    [STEP_END] = {"End ms", true, 0, 0, 0, 5},
    [STEP_LENGTH] = {"Length ms", true, 0, 0, 0, 7, true},
    [STEP_PEAK] = {"Peak", true, 0, 0, 0, 0},
    [STEP_PEAK_TIME] = {"Peak ms", true, 0, 0, 0, 3},
    [STEP_END_BYTES] = {"At end", true, 0, 0, 0, 4},
    [STEP_ALLOCATIONS] = {"Allocs", true, 0, 0, 0, 2},
    [STEP_DEALLOCATIONS] = {"Frees", true, 0, 0, 0, 1},
    [STEP_DELTA] = {"End change", false, 0, 0, 0, 0, true},
};

struct steps_pane {
    struct pane pane;
    struct list_cursor cursor;
    /* Whether the allocator `scanned` has a step or a named span
     * (checked when it is shown: the pane is on screen only then). */
    const struct allocator *scanned;
    bool has_steps;
    /* The steps and spans of `built` (NULL: not built yet), listed
     * steps first, the possible leaks among them and each column's
     * widest text. */
    const struct allocator *built;
    struct step_table table;
    struct span_table spans;
    size_t leaks;
    /* The columns in use: step_columns, or span_columns headed for what
     * the list holds. */
    struct fit_column columns[STEP_COLUMN_COUNT];
    int natural[STEP_COLUMN_COUNT];
    /* Enter zoomed the chart to this step (SIZE_MAX: none) from the
     * window [before_from, before_to]; Enter on it again goes back. */
    size_t zoomed;
    int64_t before_from, before_to;
};

static struct steps_pane *steps_of(struct pane *pane)
{
    return (struct steps_pane *)pane;
}

/* Whether any snapshot of the allocator belongs to a step. */
static bool allocator_has_steps(const struct allocator *allocator)
{
    if (!allocator || allocator->timeline_kind == TIMELINE_NONE)
        return false;
    const struct snapshot_columns *timeline = &allocator->timeline;
    for (size_t i = 0; i < timeline->count; i++)
        if (snapshot_columns_step_id(timeline, i) != STEP_ID_NONE)
            return true;
    return false;
}

/* Another allocator or host: its steps from the first, built when drawn. */
static void steps_reset(struct pane *pane, struct viewer *viewer, bool new_host)
{
    (void)new_host;
    struct steps_pane *steps = steps_of(pane);
    step_table_free(&steps->table);
    span_table_free(&steps->spans);
    steps->built = NULL;
    memset(&steps->cursor, 0, sizeof steps->cursor);
    steps->zoomed = SIZE_MAX;
    steps->scanned = viewer->allocator;
    steps->has_steps = allocator_has_steps(viewer->allocator) ||
                       span_count_of(viewer->profile, viewer->allocator) > 0;
}

bool steps_pane_available(const struct viewer *viewer)
{
    const struct steps_pane *steps = (const struct steps_pane *)viewer->panes[PANE_STEPS];
    return viewer->allocator && steps && steps->scanned == viewer->allocator &&
           steps->has_steps;
}

/* ---- cells ---- */

/* "+2.06 GiB", "-40 B", "0 B"; then "↑ leak?" on a step whose end kept
 * rising. */
static const char *step_bytes_change(const struct step_row *step, const struct ui_style *style,
                                     char *buffer, size_t size)
{
    char bytes[FORMAT_BYTES_SIZE] = "";
    int64_t delta = step->end_delta_bytes;
    /* format_bytes writes the sign of a negative size itself. */
    if (step->has_previous)
        format_bytes(delta, bytes, sizeof bytes);
    const char *flag = !step->possible_leak ? ""
                       : style->utf8        ? "  \xe2\x86\x91 leak?" /* ↑ */
                                            : "  ^ leak?";
    snprintf(buffer, size, "%s%s%s", delta > 0 ? "+" : "", bytes, flag);
    return buffer;
}

static const char *step_cell(const struct step_row *step, enum step_column column,
                             const struct ui_style *style, char *buffer, size_t size)
{
    switch (column) {
    case STEP_ID:
        if (step->is_none)
            return "none";
        snprintf(buffer, size, "%lld", (long long)step->step_id);
        return buffer;
    case STEP_START: return format_milliseconds_value(step->start_time_ps, 3, buffer, size);
    case STEP_END: return format_milliseconds_value(step->end_time_ps, 3, buffer, size);
    case STEP_LENGTH: return "";
    case STEP_PEAK: return format_bytes(step->peak_bytes, buffer, size);
    case STEP_PEAK_TIME: return format_milliseconds_value(step->peak_time_ps, 3, buffer, size);
    case STEP_END_BYTES: return format_bytes(step->end_bytes, buffer, size);
    case STEP_ALLOCATIONS: snprintf(buffer, size, "%zu", step->allocations); return buffer;
    case STEP_DEALLOCATIONS: snprintf(buffer, size, "%zu", step->deallocations); return buffer;
    default: return step_bytes_change(step, style, buffer, size);
    }
}

/* A time that may lie past what the file says (a span whose START or
 * END the snapshot lacks): "<=12.000" before, ">=12.000" after. */
static const char *span_time(int64_t time_ps, bool open, const char *mark, char *buffer,
                             size_t size)
{
    char value[40];
    format_milliseconds_value(time_ps, 3, value, sizeof value);
    snprintf(buffer, size, "%s%s", open ? mark : "", value);
    return buffer;
}

/* A span's name, indented two cells a level (at most 8 levels),
 * escaped: it is the file's text. */
static struct text span_name(const struct profile *profile, const struct span_row *span,
                             const struct ui_style *style, char *buffer, size_t size)
{
    unsigned depth = span->depth < 8 ? span->depth : 8;
    size_t used = 0;
    for (unsigned d = 0; d < depth && used + 3 < size; d++) {
        buffer[used++] = ' ';
        buffer[used++] = ' ';
    }
    used += format_safe_bytes(profile_string(profile, span->name),
                              style->utf8 ? 0 : FORMAT_SAFE_ASCII, buffer + used, size - used);
    return (struct text){buffer, used};
}

static struct text span_cell(const struct profile *profile, const struct span_row *span,
                             enum step_column column, const struct ui_style *style, char *buffer,
                             size_t size)
{
    const char *before = style->utf8 ? "\xe2\x89\xa4" : "<="; /* ≤ */
    const char *after = style->utf8 ? "\xe2\x89\xa5" : ">=";  /* ≥ */
    bool memory = span->has_memory;
    switch (column) {
    case STEP_ID: return span_name(profile, span, style, buffer, size);
    case STEP_START:
        return text_of(span_time(span->start_time_ps, span->open_start, before, buffer, size));
    case STEP_END:
        return text_of(span_time(span->end_time_ps, span->open_end, after, buffer, size));
    case STEP_LENGTH:
        return text_of(format_milliseconds_value(span->duration_ps, 3, buffer, size));
    case STEP_PEAK: return text_of(memory ? format_bytes(span->peak_bytes, buffer, size) : "");
    case STEP_PEAK_TIME:
        return text_of(memory ? format_milliseconds_value(span->peak_time_ps, 3, buffer, size)
                              : "");
    case STEP_END_BYTES: return text_of(memory ? format_bytes(span->end_bytes, buffer, size) : "");
    case STEP_ALLOCATIONS:
        snprintf(buffer, size, "%zu", span->allocations);
        return text_of(buffer);
    case STEP_DEALLOCATIONS:
        snprintf(buffer, size, "%zu", span->deallocations);
        return text_of(buffer);
    default: return text_of("");
    }
}

/* Row `index` of the list: a step (steps first), else a span. */
static const struct step_row *steps_step_at(const struct steps_pane *steps, size_t index)
{
    return index < steps->table.count ? &steps->table.rows[index] : NULL;
}

static const struct span_row *steps_span_at(const struct steps_pane *steps, size_t index)
{
    return index >= steps->table.count && index - steps->table.count < steps->spans.count
               ? &steps->spans.rows[index - steps->table.count]
               : NULL;
}

static size_t steps_row_count(const struct steps_pane *steps)
{
    return steps->table.count + steps->spans.count;
}

static const struct fit_column *steps_columns(const struct steps_pane *steps)
{
    return steps->columns;
}

struct measured {
    const struct steps_pane *steps;
    const struct profile *profile;
    const struct ui_style *style;
};

static struct text steps_cell(const struct steps_pane *steps, const struct profile *profile,
                              size_t row, enum step_column column, const struct ui_style *style,
                              char *buffer, size_t size)
{
    const struct step_row *step = steps_step_at(steps, row);
    if (step)
        return text_of(step_cell(step, column, style, buffer, size));
    return span_cell(profile, steps_span_at(steps, row), column, style, buffer, size);
}

static struct text steps_measured_cell(const void *context, size_t row, size_t column,
                                       char *buffer, size_t size)
{
    const struct measured *measured = context;
    return steps_cell(measured->steps, measured->profile, row, (enum step_column)column,
                      measured->style, buffer, size);
}

/* The steps and spans of the allocator shown, built the first time;
 * fewer when memory runs out. */
static void steps_build(struct steps_pane *steps, const struct viewer *viewer)
{
    if (steps->built == viewer->allocator)
        return;
    step_table_free(&steps->table);
    span_table_free(&steps->spans);
    steps->built = viewer->allocator;
    steps->leaks = 0;
    if (!step_table_build(&steps->table, viewer->allocator))
        return;
    /* Only step -1 (no step): the spans stand alone. */
    if (steps->table.count == 1 && steps->table.rows[0].is_none &&
        span_count_of(viewer->profile, viewer->allocator) > 0)
        step_table_free(&steps->table);
    if (!span_table_build(&steps->spans, viewer->profile, viewer->allocator))
        span_table_free(&steps->spans);
    for (size_t i = 0; i < steps->table.count; i++)
        steps->leaks += steps->table.rows[i].possible_leak;
    memcpy(steps->columns, steps->spans.count ? span_columns : step_columns,
           sizeof steps->columns);
    if (steps->spans.count && !steps->table.count)
        steps->columns[STEP_ID].heading = "Span";
    struct measured measured = {steps, viewer->profile, &viewer->style};
    column_fit_measure(STEP_COLUMN_COUNT, steps_row_count(steps), steps_measured_cell, &measured,
                       &viewer->style, steps->natural);
}

/* ---- drawing ---- */

/* "Steps (12)", "Spans (6)" or both, then the possible leaks, and
 * whose steps they are. */
static void steps_title(const struct steps_pane *steps, const struct viewer *viewer,
                        char *title, size_t size)
{
    const char *separator = viewer->style.utf8 ? " \xc2\xb7 " : " - ";
    int used = 0;
    if (steps->table.count || !steps->spans.count)
        used = snprintf(title, size, "Steps (%zu)", steps->table.count);
    if (used >= 0 && (size_t)used < size && steps->spans.count)
        used += snprintf(title + used, size - (size_t)used, "%sSpans (%zu)",
                         used ? separator : "", steps->spans.count);
    if (used > 0 && (size_t)used < size && steps->leaks > 0)
        used += snprintf(title + used, size - (size_t)used, "%s%zu possible leak%s", separator,
                         steps->leaks, steps->leaks == 1 ? "" : "s");
    if (used > 0 && (size_t)used < size && steps->table.sampled)
        snprintf(title + used, size - (size_t)used, "%sof XProf's 1000-snapshot sample",
                 separator);
}

static void steps_draw_row(const struct viewer *viewer, const struct steps_pane *steps,
                           WINDOW *window, int y, int x, int width,
                           const struct column_fit *layout, size_t index, attr_t attr)
{
    const struct ui_style *style = &viewer->style;
    const struct step_row *step = steps_step_at(steps, index);
    wattrset(window, attr);
    draw_blank(window, y, x, width);
    for (int c = 0; c < STEP_COLUMN_COUNT; c++) {
        if (!layout->shown[c])
            continue;
        char buffer[160];
        struct text text = steps_cell(steps, viewer->profile, index, (enum step_column)c, style,
                                      buffer, sizeof buffer);
        /* The flag stands out without colour too: its own words. */
        bool flag = step && c == STEP_DELTA && step->possible_leak && attr == style->normal;
        wattrset(window, flag                     ? style->error | A_BOLD
                         : step && step->is_none ? attr | A_DIM
                                                 : attr);
        column_fit_draw_cell(window, y, x, steps_columns(steps), layout, (size_t)c, text, style);
    }
    wattrset(window, style->normal);
}

static void steps_draw(struct pane *pane, struct viewer *viewer, const struct pane_area *area)
{
    struct steps_pane *steps = steps_of(pane);
    WINDOW *window = area->window;
    int y = area->rect.y, x = area->rect.x, height = area->rect.height, width = area->rect.width;
    const struct ui_style *style = &viewer->style;
    if (height <= 0 || width <= 0 || !viewer->allocator)
        return;
    steps_build(steps, viewer);
    size_t count = steps_row_count(steps);
    char title[200];
    steps_title(steps, viewer, title, sizeof title);
    draw_pane_title(window, y, x, width, title, area->focused, style);
    pane_draw_tab_hint(area, text_of(title), style);
    if (height < 2 || count == 0)
        return;
    /* A narrow pane cuts the names further, to keep the times. */
    if (steps->spans.count)
        steps->columns[STEP_ID].minimum = width < 70 ? 16 : 24;
    struct column_fit layout;
    const struct fit_column *columns = steps_columns(steps);
    column_fit_compute(columns, STEP_COLUMN_COUNT, steps->natural, 0, -1, width, &layout);
    column_fit_draw_headings(window, y + 1, x, columns, STEP_COLUMN_COUNT, &layout, -1, false,
                             style);
    int page_rows = height - 2;
    list_cursor_fit(&steps->cursor, count, page_rows);
    for (int r = 0; r < page_rows; r++) {
        size_t index = steps->cursor.top + (size_t)r;
        if (index >= count)
            break;
        attr_t attr = style->normal;
        if (index == steps->cursor.selected)
            attr = area->focused ? style->selected : style->selected_unfocused;
        steps_draw_row(viewer, steps, window, y + 2 + r, x, width, &layout, index, attr);
    }
}

/* ---- requests ---- */

/* The chart zoomed to a span and the table at its peak (a span with no
 * memory: the zoom alone). */
static struct pane_reply steps_zoom_span(const struct span_row *span)
{
    struct pane_reply reply =
        pane_reply_follow(follow_up_zoom_to(span->start_time_ps, span->end_time_ps));
    if (span->has_memory) {
        struct follow_up at_peak = follow_up_of(FOLLOW_UP_TABLE_AT_SPAN_PEAK, span->span);
        at_peak.from_ps = span->peak_time_ps;
        reply.follow_ups[reply.count++] = at_peak;
    }
    return reply;
}

/* Enter: the chart zoomed to the step's span; on the step it zoomed to,
 * back to the window the chart had before. A named span likewise. */
static struct pane_reply steps_zoom_chart(struct steps_pane *steps, struct viewer *viewer)
{
    steps_build(steps, viewer);
    size_t selected = steps->cursor.selected;
    if (selected >= steps_row_count(steps))
        return pane_reply_handled();
    const struct step_row *step = steps_step_at(steps, selected);
    const struct span_row *span = steps_span_at(steps, selected);
    char name[96];
    if (span) {
        char escaped[64];
        format_safe_bytes(profile_string(viewer->profile, span->name),
                          viewer->style.utf8 ? 0 : FORMAT_SAFE_ASCII, escaped, sizeof escaped);
        snprintf(name, sizeof name, "%s", escaped);
    } else {
        snprintf(name, sizeof name, step->is_none ? "the snapshots of no step" : "step %lld",
                 (long long)step->step_id);
    }
    if (selected == steps->zoomed) {
        steps->zoomed = SIZE_MAX;
        viewer_status(viewer, false, "chart zoomed back out from %s", name);
        struct pane_reply reply =
            pane_reply_follow(follow_up_zoom_to(steps->before_from, steps->before_to));
        reply.follow_ups[reply.count++] = follow_up_of(FOLLOW_UP_TABLE_UNPIN, 0);
        return reply;
    }
    steps->zoomed = selected;
    steps->before_from = viewer->time.from_ps;
    steps->before_to = viewer->time.to_ps;
    viewer_status(viewer, false, "chart zoomed to %s, the table at its peak (Enter again: back "
                                 "out)", name);
    if (span)
        return steps_zoom_span(span);
    struct pane_reply reply =
        pane_reply_follow(follow_up_zoom_to(step->start_time_ps, step->end_time_ps));
    if (!step->is_none && step->step_id >= 0) {
        struct follow_up at_peak = follow_up_of(FOLLOW_UP_TABLE_AT_STEP_PEAK, (size_t)step->step_id);
        at_peak.from_ps = step->peak_time_ps;
        reply.follow_ups[reply.count++] = at_peak;
    }
    return reply;
}

static const char *step_text(const struct viewer *viewer, struct pane *pane, size_t index,
                             char *buffer, size_t size)
{
    struct steps_pane *steps = steps_of(pane);
    steps_build(steps, viewer);
    struct text text = steps_cell(steps, viewer->profile, index, STEP_ID, &viewer->style, buffer,
                                  size);
    if (text.bytes != buffer && size > 0)
        snprintf(buffer, size, "%.*s", (int)text.length, text.bytes);
    return buffer;
}

static struct pane_reply steps_handle(struct pane *pane, struct viewer *viewer,
                                      enum request request)
{
    struct steps_pane *steps = steps_of(pane);
    steps_build(steps, viewer);
    size_t count = steps_row_count(steps);
    struct list_search_list searched = {&steps->cursor, pane, PANE_STEPS, count, step_text,
                                        FOLLOW_UP_NONE};
    if (list_search_handle(viewer, &searched, request))
        return pane_reply_handled();
    if (request == REQUEST_ENTER)
        return steps_zoom_chart(steps, viewer);
    return list_cursor_move(&steps->cursor, count, request) ? pane_reply_handled()
                                                            : pane_reply_ignored();
}

/* A click selects a step, a click on the selected one zooms to it. */
static struct pane_reply steps_click(struct pane *pane, struct viewer *viewer, int row,
                                     int column, bool again)
{
    (void)column;
    struct steps_pane *steps = steps_of(pane);
    size_t index;
    steps_build(steps, viewer);
    if (!list_cursor_item_at(&steps->cursor, steps_row_count(steps), row - 2, &index))
        return pane_reply_handled();
    if (again && index == steps->cursor.selected)
        return steps_zoom_chart(steps, viewer);
    steps->cursor.selected = index;
    return pane_reply_handled();
}

/* e: the steps, or the spans when a span is selected. */
static bool steps_export(struct pane *pane, const struct viewer *viewer,
                         struct export_request *request)
{
    const struct steps_pane *steps = steps_of(pane);
    if (!viewer->allocator)
        return false;
    bool span = steps->built == viewer->allocator && steps_span_at(steps, steps->cursor.selected);
    export_request_init(request, span ? EXPORT_VIEW_SPANS : EXPORT_VIEW_STEPS, viewer->profile,
                        viewer->allocator);
    return true;
}

static void steps_free(struct pane *pane)
{
    step_table_free(&steps_of(pane)->table);
    span_table_free(&steps_of(pane)->spans);
    pane_free_plain(pane);
}

static const struct pane_ops steps_ops = {
    .draw = steps_draw,
    .handle = steps_handle,
    .click = steps_click,
    .reset = steps_reset,
    .free = steps_free,
    .export = steps_export,
    .scope = KEY_SCOPE_STEPS,
    .moves_through_items = true,
};

struct pane *steps_pane_create(struct viewer *viewer)
{
    (void)viewer;
    struct pane *pane = pane_create(&steps_ops, sizeof(struct steps_pane));
    if (pane)
        steps_of(pane)->zoomed = SIZE_MAX;
    return pane;
}
