/* time_window: the time a viewer looks at: the window of the timeline
 * the chart shows and the cursor in it, and what moves them (scrolling,
 * zooming, jumping to a time, to the peak, to a span).
 *
 * Shared state: it lives in the viewer, not in a pane. The chart draws
 * it and moves it with its keys; other panes ask the viewer to move it
 * (a follow-up "jump to time T", "zoom to [a, b]") and the viewer does it
 * here; the export of the chart writes the window. A chart instance is
 * told which time_window it shows, so two charts may share one or have
 * one each. No curses and no viewer: the tests drive it without a
 * screen. It never writes the status line; its results say what
 * happened and the caller words it. */
#ifndef MEMTOP_TIME_WINDOW_H
#define MEMTOP_TIME_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"
#include "ui/chart_columns.h"

/* Plot columns assumed before the first frame has measured them. */
#define TIME_WINDOW_DEFAULT_COLUMNS 80

struct time_window {
    int64_t from_ps;   /* the visible window, both ends inclusive */
    int64_t to_ps;
    int64_t cursor_ps; /* the time under the cursor */
    /* The snapshot the readout shows after a jump (the peak, a table
     * row, a search match); SIZE_MAX: the cursor column's largest. */
    size_t pinned;
    /* Plot columns at the last draw (0 before the first): zooming and
     * scrolling work in columns. */
    int columns;
    /* Above 0: the data the window moves over reaches at least this far
     * past the timeline's first snapshot (two profiles compared: the
     * other timeline lasts longer). Set before time_window_reset(). */
    int64_t least_span_ps;
    /* A second time a person marked (ui/live_view.h): the allocations
     * table then shows what grew between it and the cursor, and the
     * chart shades the span. A new allocator forgets it. */
    bool marked;
    int64_t mark_ps;
};

/* What a move did, for the status line. */
enum time_window_move {
    TIME_WINDOW_MOVED,
    TIME_WINDOW_AT_START, /* already at the start of the timeline */
    TIME_WINDOW_AT_END,
};

/* The columns to work in: the last draw's, or the default. */
int time_window_columns(const struct time_window *time);
/* The times the window moves over: the timeline's first to last
 * snapshot, or further as least_span_ps says. The timeline is not empty. */
struct chart_range time_window_data(const struct time_window *time,
                                    const struct snapshot_columns *timeline);

/* The whole timeline, cursor on the summary's peak; for a new allocator
 * (an empty timeline leaves everything 0). */
void time_window_reset(struct time_window *time, const struct allocator *allocator);
/* Keeps the window inside the data with at least a picosecond per
 * column (a wider terminal may need a wider window than the last frame
 * had) and forgets a pinned snapshot the cursor left. */
void time_window_fit(struct time_window *time, const struct snapshot_columns *timeline);

/* The cursor `delta` columns on; past an edge the window scrolls. */
enum time_window_move time_window_move(struct time_window *time,
                                       const struct snapshot_columns *timeline, int delta);
/* Home/End: to the window's edge, or when already there, to the
 * timeline's. */
void time_window_move_to_edge(struct time_window *time, const struct snapshot_columns *timeline,
                              bool last);
/* Twice closer (or farther) around the cursor; false when it cannot:
 * zooming in stops once no column holds two snapshots of different
 * times (one snapshot per column), or at a picosecond per column. */
bool time_window_zoom(struct time_window *time, const struct snapshot_columns *timeline,
                      bool zoom_in);
/* Whether no column of the window holds snapshots of two different
 * times: zooming in would show nothing new. */
bool time_window_one_snapshot_per_column(const struct time_window *time,
                                         const struct snapshot_columns *timeline);
/* The whole timeline, the cursor kept where it can stay. */
void time_window_show_all(struct time_window *time, const struct snapshot_columns *timeline);
/* Cursor to the summary's peak, the window scrolled (never zoomed) to
 * show it; the peak's snapshot, SIZE_MAX when the timeline is empty. */
size_t time_window_jump_to_peak(struct time_window *time, const struct allocator *allocator);
/* Cursor to the snapshot nearest time_ps, the window scrolled to show
 * it; pinned when the timeline has that exact time. */
void time_window_jump_to(struct time_window *time, const struct snapshot_columns *timeline,
                         int64_t time_ps);
/* Cursor to the snapshot after (direction 1) or before (-1) the one it
 * shows (a pinned one, else the cursor's time), the window scrolled to
 * show it: every event in turn, ties included. */
enum time_window_move time_window_step_event(struct time_window *time,
                                             const struct snapshot_columns *timeline,
                                             int direction);
/* The snapshot the cursor shows (what the chart's readout describes): the
 * pinned one, else the largest of the cursor's column, else (*carried
 * true) the last one before the column; SIZE_MAX before the first. */
size_t time_window_shown_snapshot(const struct time_window *time,
                                  const struct snapshot_columns *timeline, bool *carried);
/* The time the cursor stands for: the shown snapshot's, or the cursor's
 * own in a column with no event of its own (the state is the same). */
int64_t time_window_shown_time(const struct time_window *time,
                               const struct snapshot_columns *timeline);
/* The snapshots in the cursor's column: [*first, *end). */
void time_window_cursor_events(const struct time_window *time,
                               const struct snapshot_columns *timeline, size_t *first,
                               size_t *end);
/* Cursor to snapshot `index`, the window scrolled to show it. */
void time_window_show_snapshot(struct time_window *time, const struct snapshot_columns *timeline,
                               size_t index);
/* The window to [from_ps, to_ps] (either order), the cursor on its
 * largest snapshot; false when the span holds no snapshot. */
bool time_window_zoom_to(struct time_window *time, const struct snapshot_columns *timeline,
                         int64_t from_ps, int64_t to_ps);
/* Cursor to plot column `column` (a click). */
void time_window_set_column(struct time_window *time, int column);

/* "12.345 ms": milliseconds with enough decimals to tell the window's
 * columns apart (3 at least). */
char *time_window_text(const struct time_window *time, int64_t time_ps, char *buffer,
                       size_t size);

#endif
