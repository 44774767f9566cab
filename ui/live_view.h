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
 * the allocator changed. It also holds the table at a moment someone
 * went to, a pin (struct live_pin: o to an OOM from ui/oom_view.c, Enter
 * on a step's peak through viewer.c's follow-up), titled with its name,
 * until what the pin says lets it go. Keys reach it through
 * viewer_input.c (L, m) and Esc (the mark, then a pin). A timeline that
 * cannot answer (XProf's 1000-snapshot sample, a report without a
 * timeline) is said on the status line and the table stays at the peak:
 * never a wrong answer.
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

/* What lets a pin go, besides another allocator opening. */
enum live_pin_hold {
    /* The cursor leaving where it was put, a mark, or a comparison (o:
     * the OOM). Kept without a timeline: the OOM card still names it. */
    LIVE_PIN_WHILE_CURSOR_STAYS,
    /* Esc, L or live_view_unpin (Enter on a step: its peak); only taken
     * where the timeline can answer, so it never swallows an Esc. */
    LIVE_PIN_UNTIL_ESC,
};

/* How the table's title names the moment. */
enum live_pin_title {
    LIVE_PIN_TITLE_AT,        /* "at step 4's peak (1.992 ms)" */
    LIVE_PIN_TITLE_LIVE_AT_ON /* "live at the OOM · cuda:0 · 12.031 ms" */
};

/* The allocations table held at a moment a person went to: the rows
 * live at time_ps on `allocator`, titled from `name`, until `hold` lets
 * go (or its timeline cannot answer: then it is let go at once, the
 * reason on the status line). One mechanism for every "go to" that
 * holds the table. */
struct live_pin {
    const struct allocator *allocator; /* set by live_view_pin; NULL: none */
    int64_t time_ps;
    int64_t cursor_ps; /* where the cursor stood when pinned (set by live_view_pin) */
    enum live_pin_hold hold;
    enum live_pin_title title;
    /* The allocator's OOM it stands on, counted from 1 as the status
     * line counts them; 0: none. */
    size_t oom_number;
    char name[48]; /* "step 4's peak", "the OOM" */
};

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
    /* The table held at a moment someone went to (see struct live_pin);
     * pin.allocator NULL: none. */
    struct live_pin pin;
    bool shown_pin; /* the rows shown are the pin's moment's */
};

void live_view_free(struct live_view *live);
/* The open profile is going: its indexes and rows go now. The query
 * must not show the rows any more (query_free or query_reset first). */
void live_view_forget(struct live_view *live);

/* L and m (and nothing else: false). L: the table at the peak or live
 * at the cursor; m: a mark at the cursor's time, or the mark cleared. */
bool live_view_handle(struct viewer *viewer, enum request request);
/* Holds the table at pin->time_ps of the open allocator (the caller has
 * put the cursor where it wants it), replacing any pin before. */
void live_view_pin(struct viewer *viewer, const struct live_pin *pin);
/* Esc and the like: lets go of a pin held until Esc, the table back to
 * what it showed before; false when there was none. */
bool live_view_unpin(struct viewer *viewer);
/* Esc: clears the mark; false when there was none. */
bool live_view_clear_mark(struct viewer *viewer);
/* Before each frame: the query's rows for the cursor's time now. */
void live_view_sync(struct viewer *viewer);

/* The OOM the viewer stands on now (a pin names it: o put the cursor
 * there and it did not move), else NULL. */
const struct oom_event *live_view_oom(const struct viewer *viewer);
/* The rows live at time_ps on the allocator shown, from the viewer's
 * indexes (for the OOM card); not LIVE_OK when its timeline cannot say. */
enum live_status live_view_rows_at(struct viewer *viewer, int64_t time_ps,
                                   struct live_rows *rows);

/* Whether the table follows the cursor outlives the session. */
void live_view_recall(struct viewer *viewer, const struct settings *settings);
void live_view_remember(const struct viewer *viewer, struct settings *settings);

#endif
