#include "config.h"

#include "ui/live_view.h"

#include <stdio.h>

#include "model/format.h"
#include "ui/settings.h"
#include "ui/status_line.h"
#include "ui/viewer.h"

#define SETTING_FOLLOWS_CURSOR "table.follows_cursor"

void live_view_free(struct live_view *live)
{
    live_view_forget(live);
    live_rows_free(&live->rows);
}

/* The indexes and what was computed from them go; a pin stays. */
static void live_view_drop_indexes(struct live_view *live)
{
    /* The cache reads its profile as it frees: before the profile goes. */
    if (live->profile)
        live_index_cache_free(&live->indexes);
    live->profile = NULL;
    live->shown = false;
    live->allocator = NULL;
    live->refused = NULL;
}

void live_view_forget(struct live_view *live)
{
    live_view_drop_indexes(live);
    live->pin.allocator = NULL;
    live->shown_pin = false;
}

/* The allocator shown, when it has a timeline to ask about. */
static const struct snapshot_columns *live_timeline(const struct viewer *viewer)
{
    if (!viewer->allocator || viewer->allocator->timeline.count == 0)
        return NULL;
    return &viewer->allocator->timeline;
}

/* The index of the allocator shown: built now the first time, with a
 * word on the status line while a long timeline is replayed. */
static enum live_status live_view_index(struct viewer *viewer, struct live_index **index)
{
    struct live_view *live = &viewer->live;
    if (live->profile != viewer->profile) {
        /* The first index of this profile: a pin made before it stays. */
        live_view_drop_indexes(live);
        live_index_cache_init(&live->indexes, viewer->profile);
        live->profile = viewer->profile;
    }
    bool built = live->indexes.indexes && live->indexes.indexes[viewer->allocator_index];
    if (!built && viewer->terminal_ready &&
        viewer->allocator->timeline.count >= LIVE_VIEW_ANNOUNCE_SNAPSHOTS)
        status_line_show_now(viewer, "indexing the timeline for the allocations live at any "
                                     "time...");
    return live_index_cache_get(&live->indexes, viewer->allocator_index, index);
}

/* A timeline that cannot answer: said, and the table at the peak. */
static void live_view_refuse(struct viewer *viewer, enum live_status status)
{
    struct live_view *live = &viewer->live;
    live->refused = viewer->allocator;
    live->pin.allocator = NULL; /* a moment it cannot show is not held */
    viewer->time.marked = false;
    viewer_status(viewer, true, "%s", live_status_message(status));
    if (live->shown && !query_reset(&viewer->query, viewer->profile, viewer->allocator))
        viewer_status(viewer, true, "out of memory: the allocations table is empty");
    live->shown = false;
}

/* Whether the allocator shown can give live rows; says why not. */
static bool live_view_can_answer(struct viewer *viewer)
{
    if (!viewer->allocator || !viewer->profile)
        return false;
    struct live_index *index;
    enum live_status status = live_view_index(viewer, &index);
    if (status == LIVE_OK)
        return true;
    live_view_refuse(viewer, status);
    return false;
}

/* A pin's title: "at step 5's peak (439.599 ms)", "live at the OOM ·
 * cuda:0 · 12.031 ms". */
static void live_view_pin_label(const struct viewer *viewer, char *label, size_t size)
{
    const struct live_pin *pin = &viewer->live.pin;
    if (pin->title == LIVE_PIN_TITLE_AT) {
        char at[64];
        time_window_text(&viewer->time, viewer->live.time_ps, at, sizeof at);
        size_t used = (size_t)snprintf(label, size, "at %s", pin->name);
        if (used < size)
            snprintf(label + used, size - used, " (%s)", at);
        return;
    }
    const char *dot = viewer->style.utf8 ? " \xc2\xb7 " : " - ";
    char id[40], at[24];
    time_window_text(&viewer->time, viewer->live.time_ps, at, sizeof at);
    format_safe_bytes(profile_string(viewer->profile, viewer->allocator->id),
                      viewer->style.utf8 ? 0 : FORMAT_SAFE_ASCII, id, sizeof id);
    size_t used = (size_t)snprintf(label, size, "live at %s%s", pin->name, dot);
    if (used < size)
        snprintf(label + used, size - used, "%s%s%s", id, dot, at);
}

/* "live at 12.345 ms", "grown since 1.000 ms: +300.00 MiB", or a pin's. */
static void live_view_label(const struct viewer *viewer, char *label, size_t size)
{
    const struct live_view *live = &viewer->live;
    char at[64], total[FORMAT_BYTES_SIZE];
    if (!live->grown && live->shown_pin) {
        live_view_pin_label(viewer, label, size);
        return;
    }
    if (!live->grown) {
        time_window_text(&viewer->time, live->time_ps, at, sizeof at);
        snprintf(label, size, "live at %s", at);
        return;
    }
    time_window_text(&viewer->time, live->since_ps, at, sizeof at);
    snprintf(label, size, "grown since %s: +%s", at,
             format_bytes(live->rows.total_bytes, total, sizeof total));
}

/* The rows for the cursor's time (and the mark) into the query. */
static void live_view_show(struct viewer *viewer, int64_t time_ps, bool pinned)
{
    struct live_view *live = &viewer->live;
    struct live_index *index;
    enum live_status status = live_view_index(viewer, &index);
    bool grown = viewer->time.marked;
    if (status == LIVE_OK)
        status = grown ? live_index_rows_grown(index, viewer->time.mark_ps, time_ps, &live->rows)
                       : live_index_rows_at(index, time_ps, &live->rows);
    if (status != LIVE_OK) {
        live_view_refuse(viewer, status);
        return;
    }
    live->shown = true;
    live->allocator = viewer->allocator;
    live->time_ps = time_ps;
    live->grown = grown;
    live->since_ps = viewer->time.mark_ps;
    live->shown_pin = pinned;
    char label[QUERY_LABEL_SIZE];
    live_view_label(viewer, label, sizeof label);
    struct allocation_row_source source = {viewer->profile, viewer->allocator, live->rows.rows,
                                           live->rows.count, label};
    if (!query_show(&viewer->query, grown ? QUERY_GROWN : QUERY_LIVE, &source, label))
        viewer_status(viewer, true, "out of memory: the allocations table is empty");
}

/* Whether a pin still holds; one whose hold broke is let go, and the
 * rows it showed are computed again (for the cursor, or the peak). */
static bool live_view_pin_holds(struct viewer *viewer)
{
    struct live_view *live = &viewer->live;
    const struct live_pin *pin = &live->pin;
    if (!pin->allocator)
        return false;
    bool holds = pin->allocator == viewer->allocator;
    if (pin->hold == LIVE_PIN_WHILE_CURSOR_STAYS)
        holds = holds && viewer->time.cursor_ps == pin->cursor_ps && !viewer->time.marked &&
                !viewer_comparing(viewer);
    if (holds)
        return true;
    live->pin.allocator = NULL;
    if (pin->hold == LIVE_PIN_WHILE_CURSOR_STAYS && live->shown_pin) {
        live->shown_pin = false;
        live->allocator = NULL;
    }
    return false;
}

/* A pin held while the cursor stays: its rows (once; without a timeline
 * the table stays as it is). True while it holds the table. */
static bool live_view_sync_cursor_pin(struct viewer *viewer)
{
    struct live_view *live = &viewer->live;
    if (!live_view_pin_holds(viewer) || live->pin.hold != LIVE_PIN_WHILE_CURSOR_STAYS)
        return false;
    if (!live->shown_pin && live_timeline(viewer))
        live_view_show(viewer, live->pin.time_ps, true);
    return live->pin.allocator != NULL;
}

const struct oom_event *live_view_oom(const struct viewer *viewer)
{
    const struct live_pin *pin = &viewer->live.pin;
    if (!pin->allocator || pin->allocator != viewer->allocator || pin->oom_number == 0 ||
        pin->oom_number > viewer->allocator->oom_count)
        return NULL;
    return &viewer->allocator->ooms[pin->oom_number - 1];
}

enum live_status live_view_rows_at(struct viewer *viewer, int64_t time_ps,
                                   struct live_rows *rows)
{
    if (!live_timeline(viewer) || viewer->allocator->timeline_kind != TIMELINE_COMPLETE)
        return LIVE_NO_TIMELINE;
    struct live_index *index;
    enum live_status status = live_view_index(viewer, &index);
    return status == LIVE_OK ? live_index_rows_at(index, time_ps, rows) : status;
}

void live_view_sync(struct viewer *viewer)
{
    struct live_view *live = &viewer->live;
    if (live_view_sync_cursor_pin(viewer))
        return;
    const struct snapshot_columns *timeline = live_timeline(viewer);
    bool pinned = live->pin.allocator != NULL;
    bool wanted = (live->following || viewer->time.marked || pinned) && timeline &&
                  live->refused != viewer->allocator && !viewer_comparing(viewer);
    if (!wanted) {
        if (live->shown && viewer->allocator &&
            !query_reset(&viewer->query, viewer->profile, viewer->allocator))
            viewer_status(viewer, true, "out of memory: the allocations table is empty");
        live->shown = false;
        return;
    }
    /* A row shown in full stays the row it was while its detail is open
     * (Enter and moving in it move the cursor to the row's time). */
    if (live->shown && viewer->overlay == OVERLAY_DETAIL && viewer->overlay_pane == PANE_TABLE)
        return;
    int64_t time_ps = time_window_shown_time(&viewer->time, timeline);
    if (pinned && !live->following)
        time_ps = live->pin.time_ps;
    bool grown = viewer->time.marked;
    bool at_pin = pinned && time_ps == live->pin.time_ps;
    if (live->shown && live->allocator == viewer->allocator && live->time_ps == time_ps &&
        live->grown == grown && (!grown || live->since_ps == viewer->time.mark_ps) &&
        live->shown_pin == at_pin)
        return;
    live_view_show(viewer, time_ps, at_pin);
}

void live_view_pin(struct viewer *viewer, const struct live_pin *pin)
{
    struct live_view *live = &viewer->live;
    live->refused = NULL;
    if (live->shown_pin) {
        live->shown_pin = false;
        live->allocator = NULL; /* the pin before's rows: computed again */
    }
    live->pin.allocator = NULL;
    if (pin->hold == LIVE_PIN_UNTIL_ESC && (!live_timeline(viewer) || !live_view_can_answer(viewer)))
        return;
    live->pin = *pin;
    live->pin.allocator = viewer->allocator;
    live->pin.cursor_ps = viewer->time.cursor_ps;
}

bool live_view_unpin(struct viewer *viewer)
{
    struct live_pin *pin = &viewer->live.pin;
    if (!pin->allocator || pin->hold != LIVE_PIN_UNTIL_ESC)
        return false;
    pin->allocator = NULL;
    return true;
}

/* L: at the peak (XProf's table) or live at the cursor. */
static void live_view_toggle(struct viewer *viewer)
{
    struct live_view *live = &viewer->live;
    live_view_unpin(viewer);
    if (live->following) {
        live->following = false;
        viewer_status(viewer, false, viewer->time.marked
                                         ? "the table shows what grew since the mark (m clears it)"
                                         : "the table shows the allocations at the peak");
        return;
    }
    live->refused = NULL; /* asked again: try again */
    if (!live_timeline(viewer)) {
        viewer_status(viewer, true, "no timeline to follow: this allocator has no snapshots");
        return;
    }
    if (!live_view_can_answer(viewer))
        return;
    live->following = true;
    viewer_status(viewer, false, "the table follows the chart's cursor: the allocations live "
                                 "then (L: at the peak again)");
}

/* m: a mark at the cursor's time, or none. */
static void live_view_toggle_mark(struct viewer *viewer)
{
    struct time_window *time = &viewer->time;
    const struct snapshot_columns *timeline = live_timeline(viewer);
    if (time->marked) {
        live_view_clear_mark(viewer);
        return;
    }
    viewer->live.refused = NULL;
    if (!timeline) {
        viewer_status(viewer, true, "no timeline to mark: this allocator has no snapshots");
        return;
    }
    if (!live_view_can_answer(viewer))
        return;
    time->marked = true;
    time->mark_ps = time_window_shown_time(time, timeline);
    char at[64];
    viewer_status(viewer, false, "mark at %s: the table shows what grew since it, up to the "
                                 "cursor (m or Esc clears it)",
                  time_window_text(time, time->mark_ps, at, sizeof at));
}

bool live_view_clear_mark(struct viewer *viewer)
{
    if (!viewer->time.marked)
        return false;
    viewer->time.marked = false;
    viewer_status(viewer, false, viewer->live.following
                                     ? "mark cleared: the table shows the allocations live at "
                                       "the cursor"
                                     : "mark cleared: the table shows the allocations at the peak");
    return true;
}

/* X: at the peak, XProf's own table or the live set (issue 22). */
static void live_view_toggle_xprof(struct viewer *viewer)
{
    const struct allocator *allocator = viewer->allocator;
    if (!allocator || !allocator->xprof_kept) {
        viewer_status(viewer, false,
                      allocator && allocator->rows_kind == ALLOCATOR_ROWS_XPROF
                          ? "this file keeps only XProf's table at the peak (a sampled timeline)"
                          : "this file has no XProf table: the table at the peak is what was "
                            "live then");
        return;
    }
    viewer->query.xprof = !viewer->query.xprof;
    viewer->live.following = false;
    live_view_clear_mark(viewer);
    if (!query_reset(&viewer->query, viewer->profile, allocator))
        viewer_status(viewer, true, "out of memory");
    else
        viewer_status(viewer, false, viewer->query.xprof
                                         ? "XProf's table at the peak: its peak step's "
                                           "allocations, older memory in one row (X: live)"
                                         : "the allocations live at the peak instant (X: XProf's "
                                           "table)");
}

bool live_view_handle(struct viewer *viewer, enum request request)
{
    if (request == REQUEST_XPROF_TABLE) {
        live_view_toggle_xprof(viewer);
        return true;
    }
    bool ours = request == REQUEST_LIVE_TOGGLE || request == REQUEST_MARK;
    /* Two profiles compared have no allocations table to switch. */
    if (ours && viewer_comparing(viewer)) {
        viewer_status(viewer, false, "L and m show one profile's live allocations: open it alone");
        return true;
    }
    switch (request) {
    case REQUEST_LIVE_TOGGLE: live_view_toggle(viewer); return true;
    case REQUEST_MARK: live_view_toggle_mark(viewer); return true;
    default: return false;
    }
}

void live_view_recall(struct viewer *viewer, const struct settings *settings)
{
    viewer->live.following =
        settings_get_bool(settings, SETTING_FOLLOWS_CURSOR, viewer->live.following);
}

void live_view_remember(const struct viewer *viewer, struct settings *settings)
{
    settings_set_bool(settings, SETTING_FOLLOWS_CURSOR, viewer->live.following);
}
