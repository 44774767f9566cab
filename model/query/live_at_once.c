/* live_at_once: the live-set queries asked once, without an index
 * (model/query/live_set.h): the rows at a moment by one replay of the
 * addresses (the builder's table at the peak, on the allocator's own
 * thread at a load's end), and the rows of a set a loader found on its
 * own pass (XSpace).
 * Called by: the builder's finish, the loaders, through live_set.h.
 * A loader's replay may hand its own live set at the peak along
 * (live_rows_at_once_hinted): then only the initial allocations'
 * addresses are replayed.
 * Must not: keep anything between calls, or write the profile but its
 * string table (live_rows_at_once interns the special rows' texts;
 * live_rows_at_once_hinted writes nothing). */
#include "config.h"

#include "model/query/live_set.h"

#include <stdlib.h>
#include <string.h>

#include "model/query/live_rows.h"
#include "model/query/live_source.h"
#include "model/util/integer_map.h"
#include "model/util/saturating.h"

enum live_status live_rows_of_set(const struct profile *profile,
                                  const struct snapshot_columns *timeline, const uint32_t *live,
                                  size_t count, size_t end, struct live_rows *rows)
{
    rows->count = 0;
    struct live_special_texts texts;
    if (!live_special_texts_intern(profile->strings, &texts))
        return LIVE_NO_MEMORY;
    int64_t bytes = 0;
    for (size_t i = 0; i < count; i++)
        bytes = saturating_add(bytes, snapshot_columns_allocation_bytes(timeline, live[i]));
    struct live_rows_request request = {
        .profile = profile,
        .timeline = timeline,
        .texts = &texts,
        .live = live,
        .live_count = count,
        .end = end,
        .with_specials = true,
        .live_allocation_bytes = bytes,
    };
    return live_rows_make(&request, rows) ? LIVE_OK : LIVE_NO_MEMORY;
}

/* Sorts numbers ascending, 16 bits a pass (two passes); false when
 * memory runs out (the numbers are then as they were). */
static bool numbers_sort(uint32_t *numbers, size_t count)
{
    if (count < 2)
        return true;
    uint32_t *scratch = malloc(count * sizeof *scratch);
    size_t *counts = malloc((1u << 16) * sizeof *counts);
    if (!scratch || !counts) {
        free(scratch);
        free(counts);
        return false;
    }
    uint32_t *from = numbers, *to = scratch;
    for (unsigned shift = 0; shift < 32; shift += 16) {
        memset(counts, 0, (1u << 16) * sizeof *counts);
        for (size_t i = 0; i < count; i++)
            counts[from[i] >> shift & 0xffff]++;
        size_t at = 0;
        for (size_t d = 0; d < (1u << 16); d++) {
            size_t here = counts[d];
            counts[d] = at;
            at += here;
        }
        for (size_t i = 0; i < count; i++)
            to[counts[from[i] >> shift & 0xffff]++] = from[i];
        uint32_t *swap = from;
        from = to;
        to = swap;
    }
    free(scratch); /* two passes: the numbers are back where they began */
    free(counts);
    return true;
}

/* How far ahead live_set_at_once fetches the slots of the addresses to
 * come (the timeline's addresses are known ahead; a big map's slots are
 * cache misses). */
#define AT_ONCE_AHEAD 16

/* The live set after the first `end` snapshots, by one replay with no
 * checkpoints: the open allocations by address alone (an allocation at
 * an open address replaces the one there, as live_replay_allocate does),
 * collected from the map at the end into *live (the caller frees it; any
 * order). false when memory runs out. */
static bool live_set_at_once(const struct live_source *source, size_t end, uint32_t **live,
                             size_t *count)
{
    const struct snapshot_columns *timeline = source->timeline;
    struct integer_map open = {0};
    bool ok = true;
    for (size_t k = 0; ok && k < source->initial_count; k++)
        ok = integer_map_put(&open, source->initial[k].address, (uint32_t)k);
    for (size_t i = 0; ok && i < end; i++) {
        if (i + AT_ONCE_AHEAD < end &&
            timeline->activity[i + AT_ONCE_AHEAD] != MEMORY_ACTIVITY_UNKNOWN)
            integer_map_prefetch(&open, snapshot_columns_address(timeline, i + AT_ONCE_AHEAD));
        if (timeline->activity[i] == MEMORY_ACTIVITY_ALLOCATION)
            ok = integer_map_put(&open, snapshot_columns_address(timeline, i),
                                 (uint32_t)(i + source->initial_count));
        else if (timeline->activity[i] == MEMORY_ACTIVITY_DEALLOCATION)
            integer_map_remove(&open, snapshot_columns_address(timeline, i), NULL);
    }
    *count = 0;
    *live = ok ? malloc((open.count ? open.count : 1) * sizeof **live) : NULL;
    for (size_t slot = 0; *live && slot < open.capacity; slot++)
        if (open.slots[slot].used)
            (*live)[(*count)++] = open.slots[slot].value;
    integer_map_free(&open);
    /* In timeline order: the rows read the columns at these numbers
     * (hash order made each read a cache miss). */
    return *live != NULL && numbers_sort(*live, *count);
}

enum live_status live_rows_at_once(const struct profile *profile, const struct allocator *allocator,
                                   int64_t time_ps, struct live_rows *rows)
{
    rows->count = 0;
    struct live_special_texts texts;
    if (!live_special_texts_intern(profile->strings, &texts))
        return LIVE_NO_MEMORY;
    return live_rows_at_once_hinted(profile, allocator, time_ps, &texts, NULL, rows);
}

/* The live set after the first `end` snapshots from a loader's hint: the
 * initial allocations the timeline's first `end` snapshots leave alone
 * (the last of several at one address; an ALLOCATION or a DEALLOCATION
 * at its address ends it, as in live_set_at_once), then the hint's
 * timeline indices as numbers; *live in any order (the caller frees it).
 * false when memory runs out. */
static bool live_set_hinted(const struct live_source *source, size_t end,
                            const struct live_timeline_hint *hint, uint32_t **live, size_t *count)
{
    const struct snapshot_columns *timeline = source->timeline;
    struct integer_map initial = {0};
    bool ok = true;
    for (size_t k = 0; ok && k < source->initial_count; k++)
        ok = integer_map_put(&initial, source->initial[k].address, (uint32_t)k);
    for (size_t i = 0; ok && initial.count && i < end; i++)
        if (timeline->activity[i] == MEMORY_ACTIVITY_ALLOCATION ||
            timeline->activity[i] == MEMORY_ACTIVITY_DEALLOCATION)
            integer_map_remove(&initial, snapshot_columns_address(timeline, i), NULL);
    size_t total = initial.count + hint->count;
    *count = 0;
    *live = ok ? malloc((total ? total : 1) * sizeof **live) : NULL;
    for (size_t slot = 0; *live && slot < initial.capacity; slot++)
        if (initial.slots[slot].used)
            (*live)[(*count)++] = initial.slots[slot].value;
    for (size_t k = 0; *live && k < hint->count; k++)
        (*live)[(*count)++] = hint->live[k] + (uint32_t)source->initial_count;
    integer_map_free(&initial);
    return *live != NULL && numbers_sort(*live, *count);
}

enum live_status live_rows_at_once_hinted(const struct profile *profile,
                                          const struct allocator *allocator, int64_t time_ps,
                                          const struct live_special_texts *texts,
                                          const struct live_timeline_hint *hint,
                                          struct live_rows *rows)
{
    rows->count = 0;
    if (allocator->timeline_sampled)
        return LIVE_SAMPLED_TIMELINE;
    if (allocator->timeline_kind == TIMELINE_NONE)
        return LIVE_NO_TIMELINE;
    const struct snapshot_columns *timeline = &allocator->timeline;
    if (!live_numbers_fit(allocator))
        return LIVE_NO_MEMORY;
    struct live_source source = live_source_of(allocator);
    size_t end = snapshots_until(timeline, time_ps);
    uint32_t *live = NULL;
    size_t count = 0;
    /* A hint's indices are numbers once the initial allocations are
     * counted: they must fit as the replay's do. */
    bool hinted = hint && hint->end == end && hint->end <= timeline->count;
    for (size_t k = 0; hinted && k < hint->count; k++)
        hinted = hint->live[k] < end;
    bool ok = hinted ? live_set_hinted(&source, end, hint, &live, &count)
                     : live_set_at_once(&source, end, &live, &count);
    int64_t bytes = 0;
    for (size_t i = 0; ok && i < count; i++)
        bytes = saturating_add(bytes, live_source_bytes(&source, live[i]));
    struct live_rows_request request = {
        .profile = profile,
        .timeline = timeline,
        .initial = allocator->initial,
        .initial_count = allocator->initial_count,
        .blocks = allocator->allocation_blocks,
        .block_count = allocator->allocation_block_count,
        .texts = texts,
        .live = live,
        .live_count = count,
        .end = end,
        .with_specials = true,
        .live_allocation_bytes = bytes,
    };
    ok = ok && live_rows_make(&request, rows);
    free(live);
    return ok ? LIVE_OK : LIVE_NO_MEMORY;
}

