/* timeline: binary searches over a time-sorted snapshot_columns, the only
 * way views find snapshots by time (never by scanning), and the index of
 * block maxima that makes "the peak in this window" cheap.
 * Called by: the chart and table panes, exporters, the profile builder
 * (which builds each timeline's index). Must not: change a timeline. */
#ifndef MEMTOP_TIMELINE_H
#define MEMTOP_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"

/* Index of the first snapshot with time >= time_ps; count when none. */
size_t timeline_find_time(const struct snapshot_columns *timeline, int64_t time_ps);

/* Index of the snapshot whose time is nearest time_ps (the earlier one on
 * ties, the first of equal times); SIZE_MAX when the timeline is empty. */
size_t timeline_nearest(const struct snapshot_columns *timeline, int64_t time_ps);

/* The snapshots with from_ps <= time <= to_ps, as the half-open index range
 * [*first, *end). Empty (first == end) when none or from_ps > to_ps. */
void timeline_range(const struct snapshot_columns *timeline, int64_t from_ps, int64_t to_ps,
                    size_t *first, size_t *end);

/* Index of the snapshot with the largest stack+heap in [first, end), the
 * first on ties; SIZE_MAX when the range is empty. With the timeline's
 * index (profile_builder_finish() builds it) this takes O(log n) steps of at most
 * 64 reads each, whatever the range: a chart of a 10M-snapshot timeline
 * costs a few hundred of them per column instead of a scan. Without one
 * it scans the range. */
size_t timeline_max_in_use(const struct snapshot_columns *timeline, size_t first, size_t end);

/* Builds timeline->index: the largest stack+heap of every block of 64
 * snapshots, of every 64 such blocks, and so on (about 1/63 of one
 * column). The timeline must not change afterwards except by appending,
 * which drops the index. False only when memory runs out. */
bool timeline_index_build(struct snapshot_columns *timeline);
/* The index is one allocation: model/profile.c frees it with free() along
 * with the columns, so calls run one way (timeline.c uses profile.c). */

#endif
