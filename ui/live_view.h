/* live_view: the allocations table following the chart's cursor (issue
 * 13). With it on, the query's rows are the allocations live at the
 * time the cursor stands for (time_window_shown_time: the snapshot the
 * readout describes); with a mark set in the time window, those of them
 * allocated after the mark: what grew. It owns the live-set indexes they
 * come from (model/query/live_set.h), one per allocator of the open profile,
 * each built the first time it is needed, and the rows the query
 * borrows.
 *
 * The viewer holds one (viewer->live) and calls live_view_sync() before
 * every frame, so the rows follow the cursor however it moved (keys, a
 * click, a follow-up), and recomputes only when the time, the mark or
 * the allocator changed. Keys reach it through viewer_input.c (L, m) and
 * Esc (the mark). A timeline that cannot answer (XProf's 1000-snapshot
 * sample, a report without a timeline) is said on the status line and
 * the table stays at the peak: never a wrong answer.
 *
 * Must not draw (beyond a status line message while an index builds),
 * nor keep anything of a profile the viewer no longer has open
 * (live_view_forget, before the open host changes). */
#ifndef MEMTOP_LIVE_VIEW_H
#define MEMTOP_LIVE_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "model/query/live_set.h"
#include "model/profile.h"
#include "ui/keys.h"

struct viewer;
struct settings;

/* Timelines at least this long show a message while their index builds
 * (about 0.15 s per 10 million snapshots). */
#define LIVE_VIEW_ANNOUNCE_SNAPSHOTS 1000000

struct live_view {
    /* The person asked for the table to follow the cursor (L). */
    bool following;
    /* The profile the indexes are of; NULL: none built. */
    const struct profile *profile;
    struct live_index_cache indexes;
    /* The rows the query shows while `shown`, and what they were
     * computed for. */
    struct live_rows rows;
    bool shown;
    const struct allocator *allocator;
    int64_t time_ps;
    bool grown;
    int64_t since_ps;
    /* The allocator whose timeline could not answer (said once; the
     * table stays at the peak for it). */
    const struct allocator *refused;
    /* `o` put the cursor on OOM `oom_index` of `oom_allocator` (at
     * oom_cursor_ps): the table shows what was live at it until the
     * cursor moves or another allocator opens. */
    bool at_oom;
    const struct allocator *oom_allocator;
    size_t oom_index;
    int64_t oom_cursor_ps;
    bool showing_oom; /* the query's rows are those at the OOM */
    /* The table held at a moment a person picked (Enter on a step: its
     * peak), named in its title; pinned NULL: none. Only for the
     * allocator it was picked on. */
    const struct allocator *pinned;
    int64_t pinned_ps;
    char pinned_name[48];
    bool shown_pinned; /* the rows shown are the pinned moment's */
};

void live_view_free(struct live_view *live);
/* The open profile is going: its indexes and rows go now. The query
 * must not show the rows any more (query_free or query_reset first). */
void live_view_forget(struct live_view *live);

/* L and m (and nothing else: false). L: the table at the peak or live
 * at the cursor; m: a mark at the cursor's time, or the mark cleared. */
bool live_view_handle(struct viewer *viewer, enum request request);
/* The table at time_ps of the open allocator, titled "at NAME (T)",
 * until unpinned, L, Esc or another allocator. */
void live_view_pin(struct viewer *viewer, int64_t time_ps, const char *name);
/* Back to what the table showed before; false when nothing was pinned. */
bool live_view_unpin(struct viewer *viewer);
/* Esc: clears the mark; false when there was none. */
bool live_view_clear_mark(struct viewer *viewer);
/* Before each frame: the query's rows for the cursor's time now. */
void live_view_sync(struct viewer *viewer);

/* o and O: the cursor to OOM `index` of the allocator shown, the table
 * live at it (ui/oom_view.c picks the OOM). */
void live_view_go_to_oom(struct viewer *viewer, size_t index);
/* The OOM the viewer stands on now (o put the cursor there and it did
 * not move), else NULL. */
const struct oom_event *live_view_oom(const struct viewer *viewer);
/* The rows live at time_ps on the allocator shown, from the viewer's
 * indexes (for the OOM card); not LIVE_OK when its timeline cannot say. */
enum live_status live_view_rows_at(struct viewer *viewer, int64_t time_ps,
                                   struct live_rows *rows);

/* Whether the table follows the cursor outlives the session. */
void live_view_recall(struct viewer *viewer, const struct settings *settings);
void live_view_remember(const struct viewer *viewer, struct settings *settings);

#endif
