#include "config.h"

#include "ui/viewer.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/query/allocation_columns.h"
#include "model/format.h"
#include "model/message_text.h"
#include "model/query/oom.h"
#include "model/util/saturating.h"
#include "ui/settings.h"
#include "ui/status_line.h"

void viewer_status(struct viewer *viewer, bool error, const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(viewer->status, sizeof viewer->status, format, arguments);
    va_end(arguments);
    viewer->status_length = strlen(viewer->status);
    viewer->status_is_error = error;
}

void viewer_status_bytes(struct viewer *viewer, bool error, struct text text)
{
    struct message_text line;
    message_text_start(&line, viewer->status, sizeof viewer->status);
    message_text_append_bytes(&line, text);
    viewer->status_length = line.length;
    viewer->status_is_error = error;
}

void viewer_status_clear(struct viewer *viewer)
{
    viewer->status[0] = '\0';
    viewer->status_length = 0;
    viewer->status_is_error = false;
}

void viewer_status_host_error(struct viewer *viewer, const struct host *host, const char *before,
                              const char *after)
{
    char buffer[sizeof viewer->status];
    struct message_text line;
    message_text_start(&line, buffer, sizeof buffer);
    message_text_append_text(&line, before);
    message_text_append_text(&line, host->name);
    message_text_append_text(&line, after);
    message_text_append_bytes(&line, load_error_message(&host->error));
    viewer_status_bytes(viewer, true, message_text_get(&line));
}

void viewer_prompt_begin(struct viewer *viewer, const char *label, const char *initial,
                         prompt_callback on_change, prompt_callback on_accept,
                         prompt_callback on_cancel)
{
    prompt_start(&viewer->prompt, label, initial, on_change, on_accept, on_cancel);
}

void viewer_prompt_one_key(struct viewer *viewer, const char *label, prompt_callback on_answer)
{
    prompt_start_one_key(&viewer->prompt, label, on_answer);
}

/* ---- panes: where they are and who has the focus ---- */

bool viewer_pane_available(const struct viewer *viewer, enum pane_id pane)
{
    return pane < PANE_COUNT && pane_table_row(pane)->available(viewer);
}

static bool viewer_focusable(const struct viewer *viewer, enum pane_id pane)
{
    return viewer_pane_available(viewer, pane) && pane_table_row(pane)->focusable;
}

bool viewer_pane_tabbed(const struct viewer *viewer, enum pane_id pane)
{
    const struct pane_row *row = pane_table_row(pane);
    if (pane >= PANE_COUNT || !row->in_table_area)
        return false;
    return viewer->layout.hlo_tabbed ||
           (viewer->layout.second_tabbed && row->place == LAYOUT_PLACE_HLO);
}

/* The tab in front where panes take turns: the focused one, else the
 * one focused last, else the first. */
static enum pane_id viewer_tab_front(const struct viewer *viewer)
{
    if (viewer_pane_tabbed(viewer, viewer->focus))
        return viewer->focus;
    if (viewer_pane_tabbed(viewer, viewer->table_front) &&
        viewer_pane_available(viewer, viewer->table_front))
        return viewer->table_front;
    for (enum pane_id id = 0; id < PANE_COUNT; id++)
        if (viewer_pane_tabbed(viewer, id) && viewer_pane_available(viewer, id))
            return id;
    return PANE_NONE;
}

const struct rect *viewer_pane_rect(const struct viewer *viewer, enum pane_id pane)
{
    if (!viewer_pane_available(viewer, pane))
        return NULL;
    if (viewer->zoomed != PANE_NONE)
        return pane == viewer->zoomed && !rect_is_empty(&viewer->layout.body)
                   ? &viewer->layout.body
                   : NULL;
    const struct pane_row *row = pane_table_row(pane);
    const struct rect *rect = layout_place_rect(&viewer->layout, row->place);
    if (viewer_pane_tabbed(viewer, pane)) {
        if (pane != viewer_tab_front(viewer))
            return NULL;
        if (viewer->layout.hlo_tabbed)
            rect = layout_place_rect(&viewer->layout, LAYOUT_PLACE_TABLE);
    }
    return rect_is_empty(rect) ? NULL : rect;
}

/* A pane zoomed with `z` follows the focus (Tab zooms the next pane);
 * a full-screen view of its own (the pod overview, not focusable in the
 * usual layout) keeps it. */
static bool viewer_zoom_follows_focus(const struct viewer *viewer)
{
    return viewer->zoomed != PANE_NONE && pane_table_row(viewer->zoomed)->focusable &&
           pane_table_row(viewer->zoomed)->place != LAYOUT_PLACE_BODY;
}

/* The focusable panes in table order: Tab walks them (a full-screen view
 * keeps the focus). */
static enum pane_id viewer_focus_from(const struct viewer *viewer, enum pane_id from,
                                      int direction)
{
    const int count = PANE_COUNT;
    if (viewer->zoomed != PANE_NONE && !viewer_zoom_follows_focus(viewer))
        return viewer->zoomed;
    for (int step = 1; step <= count; step++) {
        int next = (((int)from + direction * step) % count + count) % count;
        if (viewer_focusable(viewer, (enum pane_id)next))
            return (enum pane_id)next;
    }
    return from;
}

enum pane_id viewer_next_tab(const struct viewer *viewer, enum pane_id pane)
{
    if (!viewer_pane_tabbed(viewer, pane))
        return PANE_NONE;
    enum pane_id next = viewer_focus_from(viewer, pane, 1);
    return next > pane && viewer_pane_tabbed(viewer, next) ? next : PANE_NONE;
}

enum pane_id viewer_focus_neighbour(const struct viewer *viewer, int direction)
{
    return viewer_focus_from(viewer, viewer->focus, direction);
}

/* ---- settings that outlive the session ---- */

#define SETTING_SORT "table.sort"
#define SETTING_SORT_DESCENDING "table.sort_descending"
#define SETTING_ZOOMED_PANE "viewer.zoomed_pane"
#define SETTING_FILE_ORDER "file"

static void viewer_recall_sort(struct viewer *viewer, const struct settings *settings)
{
    const char *name = settings_get(settings, SETTING_SORT);
    enum table_column column = TABLE_COLUMN_FILE_ORDER;
    if (!name || (strcmp(name, SETTING_FILE_ORDER) != 0 &&
                  (!allocation_column_find(name, strlen(name), &column) ||
                   !allocation_column_sortable(column))))
        return;
    query_set_sort(&viewer->query, column,
                   settings_get_bool(settings, SETTING_SORT_DESCENDING,
                                     allocation_table_default_descending(column)));
}

/* The zoomed pane, by its name, when it is on screen and can be focused. */
static void viewer_recall_zoom(struct viewer *viewer, const struct settings *settings)
{
    const char *name = settings_get(settings, SETTING_ZOOMED_PANE);
    for (enum pane_id id = 0; name && id < PANE_COUNT; id++) {
        if (strcmp(pane_table_row(id)->name, name) != 0 || !viewer_focusable(viewer, id))
            continue;
        viewer_zoom(viewer, id);
    }
}

void viewer_recall_settings(struct viewer *viewer, const struct settings *settings)
{
    viewer_recall_sort(viewer, settings);
    live_view_recall(viewer, settings);
    for (enum pane_id id = 0; id < PANE_COUNT; id++) {
        struct pane *pane = viewer->panes[id];
        if (pane->ops->recall)
            pane->ops->recall(pane, viewer, settings);
    }
    if (!viewer_comparing(viewer))
        viewer_recall_zoom(viewer, settings);
}

void viewer_remember_settings(struct viewer *viewer, struct settings *settings)
{
    if (viewer->query.ready) {
        const struct allocation_column_info *column =
            allocation_column(viewer->query.rows.sort_column);
        settings_set(settings, SETTING_SORT, column ? column->csv_name : SETTING_FILE_ORDER);
        settings_set_bool(settings, SETTING_SORT_DESCENDING, viewer->query.rows.descending);
    }
    /* The zoom and the live table are the usual layout's: comparing
     * leaves them as they were. */
    if (!viewer_comparing(viewer)) {
        live_view_remember(viewer, settings);
        settings_set(settings, SETTING_ZOOMED_PANE, viewer_zoom_follows_focus(viewer)
                                                        ? pane_table_row(viewer->zoomed)->name
                                                        : "none");
    }
    for (enum pane_id id = 0; id < PANE_COUNT; id++) {
        struct pane *pane = viewer->panes[id];
        if (pane->ops->remember && pane_table_compares(id) == viewer_comparing(viewer))
            pane->ops->remember(pane, viewer, settings);
    }
}

void viewer_toggle_pane_zoom(struct viewer *viewer)
{
    bool zoom = viewer->zoomed == PANE_NONE;
    enum pane_id pane = zoom ? viewer->focus : viewer->zoomed;
    viewer_zoom(viewer, zoom ? viewer->focus : PANE_NONE);
    viewer_status(viewer, false, zoom ? "%s zoomed to the whole screen (z: back; Tab: the next pane)"
                                      : "%s back in its place",
                  pane_table_row(pane)->name);
}

void viewer_focus(struct viewer *viewer, enum pane_id pane)
{
    if (viewer_zoom_follows_focus(viewer) && viewer_focusable(viewer, pane))
        viewer->zoomed = pane; /* Tab zooms the next pane */
    else if (viewer->zoomed != PANE_NONE && pane != viewer->zoomed)
        viewer->zoomed = PANE_NONE; /* focusing another pane ends a full-screen view */
    if (!viewer_focusable(viewer, pane))
        return;
    viewer->focus = pane;
    viewer->focus_wanted = PANE_NONE;
    if (viewer_pane_tabbed(viewer, pane))
        viewer->table_front = pane;
}

void viewer_show_oom_card(struct viewer *viewer)
{
    if (viewer->zoomed != PANE_NONE || !viewer_pane_tabbed(viewer, PANE_OOM))
        return;
    if (viewer->layout.hlo_tabbed)
        viewer_focus(viewer, PANE_OOM);
    else
        viewer->table_front = PANE_OOM;
}

void viewer_zoom(struct viewer *viewer, enum pane_id pane)
{
    if (pane == viewer->zoomed)
        return;
    if (viewer->zoomed == PANE_NONE)
        viewer->focus_before_zoom = viewer->focus;
    enum pane_id back = viewer->focus_before_zoom;
    viewer->zoomed = pane;
    if (pane != PANE_NONE) {
        viewer->focus = pane;
        return;
    }
    viewer->focus = back;
    if (!viewer_focusable(viewer, back))
        viewer->focus = viewer_focus_from(viewer, PANE_COUNT - 1, 1);
}

/* A pane that went away (a host that failed to load) hands the focus to
 * the first that can take it; the table area's front tab likewise. */
static void viewer_fix_focus(struct viewer *viewer)
{
    if (viewer->focus_wanted != PANE_NONE && viewer_focusable(viewer, viewer->focus_wanted)) {
        viewer->focus = viewer->focus_wanted;
        viewer->focus_wanted = PANE_NONE;
    }
    if (!viewer_focusable(viewer, viewer->focus)) {
        if (viewer->focus_wanted == PANE_NONE)
            viewer->focus_wanted = viewer->focus;
        viewer->focus = viewer_focus_from(viewer, PANE_COUNT - 1, 1);
    }
    if (viewer_pane_available(viewer, viewer->table_front))
        return;
    for (enum pane_id id = 0; id < PANE_COUNT; id++) {
        if (pane_table_row(id)->in_table_area) {
            viewer->table_front = id;
            return;
        }
    }
}

/* ---- what is open ---- */

static const struct snapshot_columns *viewer_timeline(const struct viewer *viewer)
{
    if (!viewer->allocator || viewer->allocator->timeline.count == 0)
        return NULL;
    return &viewer->allocator->timeline;
}

static void viewer_jump_to_time(struct viewer *viewer, int64_t time_ps)
{
    const struct snapshot_columns *timeline = viewer_timeline(viewer);
    if (timeline)
        time_window_jump_to(&viewer->time, timeline, time_ps);
}

static void viewer_zoom_to(struct viewer *viewer, int64_t from_ps, int64_t to_ps)
{
    const struct snapshot_columns *timeline = viewer_timeline(viewer);
    if (!timeline) {
        viewer_status(viewer, false, "no memory timeline to zoom");
        return;
    }
    if (time_window_zoom_to(&viewer->time, timeline, from_ps, to_ps))
        return;
    char from[48], to[48];
    format_milliseconds_value(from_ps < to_ps ? from_ps : to_ps, 3, from, sizeof from);
    format_milliseconds_value(from_ps < to_ps ? to_ps : from_ps, 3, to, sizeof to);
    viewer_status(viewer, false, "no snapshot between %s and %s ms", from, to);
}

void viewer_reset_panes(struct viewer *viewer, bool new_host)
{
    for (enum pane_id id = 0; id < PANE_COUNT; id++) {
        struct pane *pane = viewer->panes[id];
        if (pane->ops->reset)
            pane->ops->reset(pane, viewer, new_host);
    }
}

/* How far past the first snapshot the time window must reach for the
 * allocator's last OOM to be on the chart (an OOM comes after the last
 * allocation that worked); 0 when it need not. */
static int64_t viewer_oom_span(const struct allocator *allocator)
{
    const struct oom_event *last = allocator_last_oom(allocator);
    const struct snapshot_columns *timeline = &allocator->timeline;
    if (!last || timeline->count == 0 ||
        last->time_ps <= snapshot_columns_time(timeline, timeline->count - 1))
        return 0;
    return saturating_subtract(last->time_ps, snapshot_columns_time(timeline, 0));
}

/* Allocator `index` of the open profile, with the whole of its timeline
 * in the time window and the query's rows built for it. */
static void viewer_show_allocator(struct viewer *viewer, size_t index)
{
    const struct profile *profile = viewer->profile;
    viewer->allocator_index = index;
    viewer->allocator = &profile->allocators[index];
    viewer->time.least_span_ps = viewer_oom_span(viewer->allocator);
    time_window_reset(&viewer->time, viewer->allocator);
    if (!query_reset(&viewer->query, profile, viewer->allocator))
        viewer_status(viewer, true, "out of memory: the allocations table is empty");
}

void viewer_select_allocator(struct viewer *viewer, size_t index)
{
    const struct profile *profile = viewer->profile;
    if (!profile || index >= profile->allocator_count)
        return;
    /* A person chose it: other hosts open on the same memory id. */
    viewer_keep_allocator(viewer, profile, index);
    viewer_show_allocator(viewer, index);
    viewer_reset_panes(viewer, false);
}

void viewer_status_load_warnings(struct viewer *viewer, const struct host *host,
                                        const struct profile *profile)
{
    char buffer[sizeof viewer->status];
    struct message_text line;
    message_text_start(&line, buffer, sizeof buffer);
    message_text_append_text(&line, host->name);
    message_text_append_text(&line, ": warning: ");
    message_text_append_bytes(&line, profile_string(profile, profile->warnings[0]));
    if (profile->warning_count > 1)
        message_text_append_format(&line, " (+%zu more)", profile->warning_count - 1);
    viewer_status_bytes(viewer, true, message_text_get(&line));
}

void viewer_open_host(struct viewer *viewer, size_t index)
{
    struct host *host = &viewer->hosts->hosts[index];
    bool loaded = host_state(host) == HOST_LOADED;
    const struct profile *profile = loaded ? host->profile : NULL;
    /* Chosen while the old allocator is still there to name its id. */
    size_t allocator = profile ? viewer_allocator_for(viewer, profile) : 0;
    /* The table's rows and the sums of them point into the old profile:
     * let go of them first, and of the live-set indexes of it. */
    query_free(&viewer->query);
    live_view_forget(&viewer->live);
    viewer->host_index = index;
    viewer->host_pending = !loaded;
    viewer->profile = profile;
    viewer->allocator = NULL;
    viewer->allocator_index = 0;
    if (!loaded) {
        ; /* the status line shows the load's progress */
    } else if (!profile) {
        viewer_status_host_error(viewer, host, "", ": ");
    } else if (profile->allocator_count == 0) {
        viewer_status(viewer, true, "%s: the profile has no allocators", host->name);
    } else {
        if (profile->warning_count > 0)
            viewer_status_load_warnings(viewer, host, profile);
        viewer_show_allocator(viewer, allocator);
    }
    if (!viewer->allocator)
        time_window_reset(&viewer->time, NULL);
    viewer_reset_panes(viewer, true);
    viewer_fix_focus(viewer);
}

/* The table held at the peak of a named span, titled "at NAME's peak"
 * (the name escaped, cut to fit). */
static void viewer_pin_span_peak(struct viewer *viewer, const struct follow_up *follow_up)
{
    if (!viewer->profile || follow_up->index >= viewer->profile->span_count)
        return;
    struct live_pin pin = {.time_ps = follow_up->from_ps,
                           .hold = LIVE_PIN_UNTIL_ESC,
                           .title = LIVE_PIN_TITLE_AT};
    char name[sizeof pin.name - 7];
    const struct time_span *span = &viewer->profile->spans[follow_up->index];
    format_safe_bytes(profile_string(viewer->profile, span->name),
                      viewer->style.utf8 ? 0 : FORMAT_SAFE_ASCII, name, sizeof name);
    snprintf(pin.name, sizeof pin.name, "%s's peak", name);
    viewer_jump_to_time(viewer, follow_up->from_ps);
    live_view_pin(viewer, &pin);
}

void viewer_follow_up(struct viewer *viewer, enum pane_id from, const struct follow_up *follow_up)
{
    switch (follow_up->kind) {
    case FOLLOW_UP_JUMP_TO_TIME: viewer_jump_to_time(viewer, follow_up->from_ps); break;
    case FOLLOW_UP_TABLE_AT_STEP_PEAK: {
        struct live_pin pin = {.time_ps = follow_up->from_ps,
                               .hold = LIVE_PIN_UNTIL_ESC,
                               .title = LIVE_PIN_TITLE_AT};
        snprintf(pin.name, sizeof pin.name, "step %zu's peak", follow_up->index);
        viewer_jump_to_time(viewer, follow_up->from_ps);
        live_view_pin(viewer, &pin);
        break;
    }
    case FOLLOW_UP_TABLE_AT_SPAN_PEAK: viewer_pin_span_peak(viewer, follow_up); break;
    case FOLLOW_UP_TABLE_UNPIN: live_view_unpin(viewer); break;
    case FOLLOW_UP_ZOOM_TO: viewer_zoom_to(viewer, follow_up->from_ps, follow_up->to_ps); break;
    case FOLLOW_UP_FOCUS: viewer_focus(viewer, (enum pane_id)follow_up->pane); break;
    case FOLLOW_UP_FOCUS_SELF: viewer_focus(viewer, from); break;
    case FOLLOW_UP_OPEN_DETAIL:
        viewer->overlay = OVERLAY_DETAIL;
        viewer->overlay_pane = from;
        break;
    case FOLLOW_UP_SELECT_HOST: viewer_select_host(viewer, follow_up->index); break;
    case FOLLOW_UP_SELECT_ALLOCATOR: viewer_select_allocator(viewer, follow_up->index); break;
    case FOLLOW_UP_SELECT_RUN: viewer_select_run(viewer, follow_up->index); break;
    case FOLLOW_UP_ZOOM_PANE: viewer_zoom(viewer, (enum pane_id)follow_up->pane); break;
    case FOLLOW_UP_SELECT_HOST_ALLOCATOR:
        viewer_zoom(viewer, PANE_NONE);
        viewer_select_host_allocator(viewer, follow_up->index, follow_up->item);
        break;
    case FOLLOW_UP_SELECT_PAIR: viewer_select_pair(viewer, follow_up->index); break;
    default: break;
    }
}

/* ---- the session ---- */

bool viewer_init(struct viewer *viewer, const struct ui_session *session,
                 const struct ui_options *options, const struct ui_style *style)
{
    memset(viewer, 0, sizeof *viewer);
    viewer->hosts = session->hosts;
    viewer->logdir = session->logdir && session->logdir->run_count ? session->logdir : NULL;
    viewer->run_index = viewer->main_run = session->run_index;
    viewer->run_errors = session->run_errors;
    viewer->zoomed = viewer->focus_before_zoom = viewer->focus_wanted = PANE_NONE;
    if (viewer->logdir) {
        viewer->run_hosts = calloc(viewer->logdir->run_count, sizeof *viewer->run_hosts);
        if (!viewer->run_hosts)
            return false;
        viewer->run_hosts[viewer->main_run] = session->hosts;
    }
    viewer->options = *options;
    viewer->style = *style;
    viewer->focus = PANE_TABLE;
    viewer->table_front = PANE_TABLE;
    viewer->overlay_pane = PANE_NONE;
    for (enum pane_id id = 0; id < PANE_COUNT; id++) {
        viewer->panes[id] = pane_table_row(id)->create(viewer);
        if (!viewer->panes[id]) {
            viewer_free(viewer);
            return false;
        }
    }
    return true;
}

void viewer_free(struct viewer *viewer)
{
    /* Its indexes read their profile as they go: before the runs' hosts. */
    live_view_free(&viewer->live);
    viewer_stop_loading(viewer);
    for (enum pane_id id = 0; id < PANE_COUNT; id++) {
        struct pane *pane = viewer->panes[id];
        if (pane)
            pane->ops->free(pane);
        viewer->panes[id] = NULL;
    }
    query_free(&viewer->query);
    viewer_compare_free(viewer);
    free(viewer->kept_allocator);
    viewer->kept_allocator = NULL;
    viewer->kept_allocator_length = 0;
}
