#include "config.h"

#include "ui/viewer.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/format.h"
#include "model/message_text.h"
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

void viewer_status_host_error(struct viewer *viewer, const struct host *host)
{
    char buffer[sizeof viewer->status];
    struct message_text line;
    message_text_start(&line, buffer, sizeof buffer);
    message_text_append_text(&line, host->name);
    message_text_append_text(&line, ": ");
    message_text_append_bytes(&line, load_error_message(&host->error));
    viewer_status_bytes(viewer, true, message_text_get(&line));
}

void viewer_prompt_begin(struct viewer *viewer, const char *label, const char *initial,
                         prompt_callback on_change, prompt_callback on_accept,
                         prompt_callback on_cancel)
{
    prompt_start(&viewer->prompt, label, initial, on_change, on_accept, on_cancel);
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

const struct rect *viewer_pane_rect(const struct viewer *viewer, enum pane_id pane)
{
    if (!viewer_pane_available(viewer, pane))
        return NULL;
    const struct pane_row *row = pane_table_row(pane);
    const struct rect *rect = layout_place_rect(&viewer->layout, row->place);
    if (row->in_table_area && viewer->layout.hlo_tabbed) {
        if (pane != viewer->table_front)
            return NULL;
        rect = layout_place_rect(&viewer->layout, LAYOUT_PLACE_TABLE);
    }
    return rect_is_empty(rect) ? NULL : rect;
}

/* The focusable panes in table order: Tab walks them. */
static enum pane_id viewer_focus_from(const struct viewer *viewer, enum pane_id from,
                                      int direction)
{
    const int count = PANE_COUNT;
    for (int step = 1; step <= count; step++) {
        int next = (((int)from + direction * step) % count + count) % count;
        if (viewer_focusable(viewer, (enum pane_id)next))
            return (enum pane_id)next;
    }
    return from;
}

enum pane_id viewer_next_tab(const struct viewer *viewer, enum pane_id pane)
{
    if (!viewer->layout.hlo_tabbed || !pane_table_row(pane)->in_table_area)
        return PANE_NONE;
    enum pane_id next = viewer_focus_from(viewer, pane, 1);
    for (enum pane_id id = pane + 1; id < PANE_COUNT; id++)
        if (id == next && pane_table_row(id)->in_table_area)
            return id;
    return PANE_NONE;
}

enum pane_id viewer_focus_neighbour(const struct viewer *viewer, int direction)
{
    return viewer_focus_from(viewer, viewer->focus, direction);
}

void viewer_focus(struct viewer *viewer, enum pane_id pane)
{
    if (!viewer_focusable(viewer, pane))
        return;
    viewer->focus = pane;
    if (pane_table_row(pane)->in_table_area)
        viewer->table_front = pane;
}

/* A pane that went away (a host that failed to load) hands the focus to
 * the first that can take it; the table area's front tab likewise. */
static void viewer_fix_focus(struct viewer *viewer)
{
    if (!viewer_focusable(viewer, viewer->focus))
        viewer->focus = viewer_focus_from(viewer, PANE_COUNT - 1, 1);
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

/* Every pane starts over for what is open now; new_host when a host was
 * opened (again), not only another allocator shown. */
static void viewer_reset_panes(struct viewer *viewer, bool new_host)
{
    for (enum pane_id id = 0; id < PANE_COUNT; id++) {
        struct pane *pane = viewer->panes[id];
        if (pane->ops->reset)
            pane->ops->reset(pane, viewer, new_host);
    }
}

/* Allocator `index` of the open profile, with the whole of its timeline
 * in the time window and the query's rows built for it. */
static void viewer_show_allocator(struct viewer *viewer, size_t index)
{
    const struct profile *profile = viewer->profile;
    viewer->allocator_index = index;
    viewer->allocator = &profile->allocators[index];
    time_window_reset(&viewer->time, viewer->allocator);
    if (!query_reset(&viewer->query, profile, viewer->allocator))
        viewer_status(viewer, true, "out of memory: the allocations table is empty");
}

void viewer_select_allocator(struct viewer *viewer, size_t index)
{
    const struct profile *profile = viewer->profile;
    if (!profile || index >= profile->allocator_count)
        return;
    viewer_show_allocator(viewer, index);
    viewer_reset_panes(viewer, false);
}

/* "HOST: warning: FIRST (+N more)": what the load found odd, as main
 * prints it on stderr (all of them there; the first one here). */
static void viewer_status_load_warnings(struct viewer *viewer, const struct host *host,
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

struct load_progress {
    struct viewer *viewer;
    const char *name;
    int last_percent;
};

static void show_load_progress(void *context, uint64_t done, uint64_t total)
{
    struct load_progress *progress = context;
    int percent = total ? (int)(done * 100 / total) : 0;
    if (percent == progress->last_percent || !progress->viewer->terminal_ready)
        return;
    progress->last_percent = percent;
    char text[300];
    snprintf(text, sizeof text, "loading %s: %d%%", progress->name, percent);
    status_line_show_now(progress->viewer, text);
}

void viewer_select_host(struct viewer *viewer, size_t index)
{
    struct host_list *hosts = viewer->hosts;
    if (index >= hosts->count)
        return;
    struct host *host = &hosts->hosts[index];
    struct load_progress progress = {viewer, host->name, -1};
    struct load_options options = {.progress = show_load_progress, .progress_context = &progress};
    if (!host->attempted && viewer->terminal_ready)
        show_load_progress(&progress, 0, 1);
    const struct profile *profile = host_list_load(hosts, index, &options);

    /* The table's rows and the sums of them point into the old profile:
     * let go of them first. */
    query_free(&viewer->query);
    viewer->host_index = index;
    viewer->profile = profile;
    viewer->allocator = NULL;
    viewer->allocator_index = 0;
    if (!profile) {
        viewer_status_host_error(viewer, host);
    } else if (profile->allocator_count == 0) {
        viewer_status(viewer, true, "%s: the profile has no allocators", host->name);
    } else {
        if (profile->warning_count > 0)
            viewer_status_load_warnings(viewer, host, profile);
        viewer_show_allocator(viewer, 0);
    }
    if (!viewer->allocator)
        time_window_reset(&viewer->time, NULL);
    viewer_reset_panes(viewer, true);
    viewer_fix_focus(viewer);
}

void viewer_follow_up(struct viewer *viewer, enum pane_id from, const struct follow_up *follow_up)
{
    switch (follow_up->kind) {
    case FOLLOW_UP_JUMP_TO_TIME: viewer_jump_to_time(viewer, follow_up->from_ps); break;
    case FOLLOW_UP_ZOOM_TO: viewer_zoom_to(viewer, follow_up->from_ps, follow_up->to_ps); break;
    case FOLLOW_UP_FOCUS: viewer_focus(viewer, (enum pane_id)follow_up->pane); break;
    case FOLLOW_UP_FOCUS_SELF: viewer_focus(viewer, from); break;
    case FOLLOW_UP_OPEN_DETAIL:
        viewer->overlay = OVERLAY_DETAIL;
        viewer->overlay_pane = from;
        break;
    case FOLLOW_UP_SELECT_HOST: viewer_select_host(viewer, follow_up->index); break;
    case FOLLOW_UP_SELECT_ALLOCATOR: viewer_select_allocator(viewer, follow_up->index); break;
    default: break;
    }
}

/* ---- the session ---- */

bool viewer_init(struct viewer *viewer, struct host_list *hosts, const struct ui_options *options,
                 const struct ui_style *style)
{
    memset(viewer, 0, sizeof *viewer);
    viewer->hosts = hosts;
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
    for (enum pane_id id = 0; id < PANE_COUNT; id++) {
        struct pane *pane = viewer->panes[id];
        if (pane)
            pane->ops->free(pane);
        viewer->panes[id] = NULL;
    }
    query_free(&viewer->query);
}
