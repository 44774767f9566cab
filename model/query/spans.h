/* spans: the named spans of time a file records (struct time_span: a
 * PyTorch memory snapshot's external_annotations) told for one
 * allocator, as steps.h tells its steps: when each ran, how long, the
 * memory at its peak and when, at its end, its allocations and frees.
 *
 * Definitions:
 * - A span's snapshots are those with start <= time <= end. The memory
 *   at its start is that of the last snapshot before it (carried in),
 *   when there is one.
 * - peak: the largest stack+heap of the memory carried in and of its
 *   snapshots; the first moment it is reached (the carried-in memory is
 *   reached at the span's start). peak_index is the snapshot that holds
 *   it (the one before the span when carried in), so the live set at
 *   peak_time_ps is what was live at the peak.
 * - end_bytes: stack+heap of the last snapshot at or before the end.
 * - allocations / deallocations: its ALLOCATION / DEALLOCATION snapshots.
 * - depth: how many rows listed before it are still running when it
 *   starts (a span inside ProfilerStep#3 is one deeper than it).
 * - A span with no snapshot at or before its end has no memory
 *   (has_memory false, bytes 0).
 * Rows are listed by start, a longer span first on equal starts.
 *
 * Owns: the table it builds. Called by the steps view (and tests).
 * Must not: change the profile, draw, print. */
#ifndef MEMTOP_SPANS_H
#define MEMTOP_SPANS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"

struct span_row {
    size_t span; /* index in profile->spans */
    uint32_t name;
    int64_t start_time_ps;
    int64_t end_time_ps;
    int64_t duration_ps;
    bool open_start, open_end; /* struct time_span's */
    bool has_memory;
    int64_t peak_bytes; /* stack + heap */
    int64_t peak_time_ps;
    size_t peak_index;
    int64_t end_bytes;
    size_t allocations;
    size_t deallocations;
    unsigned depth;
};

struct span_table {
    struct span_row *rows;
    size_t count;
};

/* Whether span `span` of the profile is on `allocator`'s timeline. */
bool span_belongs(const struct time_span *span, const struct allocator *allocator);
/* How many of the profile's spans are `allocator`'s (no table built). */
size_t span_count_of(const struct profile *profile, const struct allocator *allocator);
/* Builds the table of `allocator`'s spans; false when memory runs out
 * (the table is then empty but valid). O(s log s + the snapshots the
 * spans cover). */
bool span_table_build(struct span_table *table, const struct profile *profile,
                      const struct allocator *allocator);
void span_table_free(struct span_table *table);

#endif
