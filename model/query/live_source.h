/* live_source: where the numbers of a live set point and how far a
 * query replays, shared by the checkpointed index (live_set.c) and the
 * one-shot queries (live_at_once.c) of model/query/live_set.h.
 * Called by: those two files only. Must not: be included outside
 * model/query/live_*.c (tests/test_layering.sh). */
#ifndef MEMTOP_QUERY_LIVE_SOURCE_H
#define MEMTOP_QUERY_LIVE_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"
#include "model/query/live_rows.h"
#include "model/timeline.h"

/* Where the numbers of the live set's allocations point (live_rows.h's
 * live_is_initial): the allocator's initial allocations first, then
 * the timeline. */
struct live_source {
    const struct snapshot_columns *timeline;
    const struct allocation_row *initial;
    size_t initial_count;
};

static inline struct live_source live_source_of(const struct allocator *allocator)
{
    return (struct live_source){&allocator->timeline, allocator->initial,
                                allocator->initial_count};
}

static inline uint64_t live_source_address(const struct live_source *source, uint32_t number)
{
    return live_is_initial(source->initial_count, number)
               ? source->initial[number].address
               : snapshot_columns_address(source->timeline, number - source->initial_count);
}

static inline int64_t live_source_bytes(const struct live_source *source, uint32_t number)
{
    return live_is_initial(source->initial_count, number)
               ? source->initial[number].allocation_bytes
               : snapshot_columns_allocation_bytes(source->timeline, number - source->initial_count);
}

/* Whether every allocation's number fits in 32 bits. */
static inline bool live_numbers_fit(const struct allocator *allocator)
{
    return allocator->initial_count < UINT32_MAX &&
           allocator->timeline.count < UINT32_MAX - allocator->initial_count;
}

/* How many snapshots have time <= time_ps: the replay's end. */
static inline size_t snapshots_until(const struct snapshot_columns *timeline, int64_t time_ps)
{
    return time_ps == INT64_MAX ? timeline->count : timeline_find_time(timeline, time_ps + 1);
}

#endif
