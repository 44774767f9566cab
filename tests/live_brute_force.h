/* live_brute_force: the definition of the live set read literally (a
 * replay from the start for every probe, sorting events by address),
 * the rows it implies, and the probe times the live-set tests ask at.
 * For tests/test_live_set only; slow on purpose (O(n log n) a probe). */
#ifndef MEMTOP_LIVE_BRUTE_FORCE_H
#define MEMTOP_LIVE_BRUTE_FORCE_H

#include <stddef.h>
#include <stdint.h>

#include "model/query/live_set.h"
#include "model/profile.h"

struct probes {
    int64_t *times; /* malloc'd; the caller frees */
    size_t count;
    size_t capacity;
};

/* The ends, before the first and after the last snapshot, the times of
 * random snapshots and 1 ps either side, halfway between neighbours,
 * random times in the span, and both sides of every checkpoint of
 * `index` (NULL: none). */
struct probes probes_for(const struct snapshot_columns *timeline, const struct live_index *index);

/* Asserts (cmocka) that live_index_allocations_at() equals the brute
 * force at every probe for checkpoints every 1, 2, 7, 100 snapshots, the
 * default and none but the first; that checkpoints are spaced as
 * promised; and, at two of those spacings, that the rows live at each
 * probe and what grew since another probe are the brute force's. */
void check_timeline_against_brute_force(const struct profile *profile,
                                        const struct allocator *allocator);

#endif
