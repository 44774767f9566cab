/* chart_columns: the memory chart's data, one value per screen column, and
 * the arithmetic of its time window. No curses, so the tests check it
 * without a screen; used by the chart pane, the time window and the
 * HLO modules (durations). Never draws.
 *
 * A window [from_ps, to_ps] (inclusive) is cut into `width` columns;
 * column c starts at from + floor(c * span / width), span = to - from + 1.
 * Each column shows the largest stack+heap of the snapshots in its time
 * bucket, so a peak never disappears however far the chart is zoomed out.
 * Memory is a step function: a bucket with no snapshot carries the value
 * of the last snapshot before it. */
#ifndef MEMTOP_CHART_COLUMNS_H
#define MEMTOP_CHART_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"

/* A time range, both ends inclusive. */
struct chart_range {
    int64_t from_ps;
    int64_t to_ps;
};

/* A time range cut into columns. */
struct chart_window {
    int64_t from_ps;
    int64_t to_ps;
    int width; /* columns; 0 means nothing to draw */
};

struct chart_column {
    int64_t from_ps; /* the bucket, inclusive */
    int64_t to_ps;
    size_t snapshot; /* the bucket's largest stack+heap, or the one carried
                        into it; SIZE_MAX before the first snapshot */
    int64_t in_use;  /* stack+heap of that snapshot; 0 when none */
    bool carried;    /* no snapshot in the bucket: the value before it */
};

/* ---- columns ---- */

/* Writes window->width columns. The timeline must be sorted by time. */
void chart_columns_compute(const struct snapshot_columns *timeline,
                           const struct chart_window *window, struct chart_column *columns);

/* The snapshot with the largest stack+heap in [first, end), the first on
 * ties; SIZE_MAX when the range is empty. Every range maximum the chart
 * takes goes through here, so a faster structure can replace the scan. */
size_t chart_range_max(const struct snapshot_columns *timeline, size_t first, size_t end);

/* The first time of column `column` (clamped to [0, width - 1]). */
int64_t chart_column_start(const struct chart_window *window, int column);
/* The last time of column `column`: one before the next column starts
 * (never before its own start), to_ps for the last column. */
int64_t chart_column_end(const struct chart_window *window, int column);
/* The column whose bucket holds time_ps (the last such column when a
 * narrow window gives several columns the same time); -1 before the
 * window, width after it. */
int chart_column_of_time(const struct chart_window *window, int64_t time_ps);

/* ---- the window ---- */

/* to - from as an unsigned distance (0 when to < from). */
uint64_t chart_range_diff(int64_t from_ps, int64_t to_ps);
/* The smallest to - from a window of `width` columns may have: one
 * picosecond per column. */
uint64_t chart_minimum_diff(int width);
/* The window showing all of `data` (first to last snapshot), widened to
 * the minimum from its start (or back from INT64_MAX). */
struct chart_range chart_range_full(struct chart_range data, int width);
/* Moves `window` (keeping its length, or shrinking it to the full range)
 * so that it lies inside the full range of `data`. */
struct chart_range chart_range_clamp(struct chart_range window, struct chart_range data, int width);
/* The window zoomed in or out by `factor` around cursor_ps, which keeps
 * its place relative to the window, clamped to the data and to the
 * minimum length. Returns false when the window cannot change (already
 * as far in or out as it goes). */
bool chart_range_zoom(struct chart_range *window, struct chart_range data, int width,
                      int64_t cursor_ps, unsigned factor, bool zoom_in);
/* The window moved by `columns` columns (negative: back in time),
 * clamped to the data; false when it did not move. */
bool chart_range_scroll(struct chart_range *window, struct chart_range data, int width,
                        int columns);
/* The window moved (same length) so that it shows time_ps, centred on it
 * when it was outside; false when it did not move. */
bool chart_range_show(struct chart_range *window, struct chart_range data, int width,
                      int64_t time_ps);

/* ---- drawing helpers ---- */

/* Height of a bar in eighths of a row, 0..8 * rows: value / top of the
 * plot, rounded, at least one eighth for any value above 0. */
int chart_bar_eighths(int64_t value, int64_t top, int rows);
/* The eighths (0..8) of a bar `eighths` high inside the row `row` rows up
 * from the bottom. */
int chart_cell_eighths(int eighths, int row);
/* The glyph of a cell filled `eighths` (0..8) from the bottom: " ▁▂▃▄▅▆▇█"
 * in UTF-8; " ..:::##" style ASCII otherwise. */
const char *chart_bar_glyph(int eighths, bool utf8);

/* Y-axis ticks: 0, step, 2 * step, ... while <= top, at most max_ticks of
 * them, with step a 1, 2 or 5 times a power of ten of a 1024-based unit
 * (B, KiB, MiB, ...), so labels read "200.00 MiB". */
struct chart_scale {
    int64_t step;
    int count; /* ticks, 0 included */
};
struct chart_scale chart_scale_ticks(int64_t top, int max_ticks);

/* The bottom of an auto-ranged y-axis for values from `lowest` to `top`:
 * a multiple of the tick step at or below lowest, one step below it when
 * lowest is itself such a multiple (so the lowest bar still shows), and
 * never below 0 (0 when there is no range: lowest = top). */
int64_t chart_axis_bottom(int64_t lowest, int64_t top, int max_ticks);

/* Decimals of milliseconds that tell apart times step_ps apart (0..9). */
int chart_time_decimals(int64_t step_ps);

/* floor(a * b / divisor) without overflow; the result must fit in 64
 * bits (true when a <= divisor or b <= divisor). divisor 0 gives 0. */
uint64_t chart_multiply_divide(uint64_t a, uint64_t b, uint64_t divisor);
/* time_ps + offset and time_ps - offset, saturating at the int64 ends. */
int64_t chart_time_add(int64_t time_ps, uint64_t offset);
int64_t chart_time_subtract(int64_t time_ps, uint64_t offset);

#endif
