/* live_set: the live-set index of model/query/live_set.h: one replay of
 * an allocator's timeline with a checkpoint of the live set every
 * interval (varints of ascending numbers), queries that replay from the
 * checkpoint before their moment, and the cache of one index per
 * allocator the viewer keeps. The one-shot queries are live_at_once.c's.
 * Called by: the viewer, the reports, through live_set.h. Must not:
 * change the profile but its string table (the special rows' texts). */
#include "config.h"

#include "model/query/live_set.h"

#include "model/util/integer_map.h"
#include "model/query/live_rows.h"
#include "model/query/live_source.h"
#include "model/util/saturating.h"
#include "model/timeline.h"

#include <stdlib.h>
#include <string.h>

/* The live set after the first `position` snapshots, as `count` snapshot
 * indices stored ascending from entries[offset], each as its difference
 * from the one before (the first as itself) in a varint: 1 or 2 bytes
 * where a checkpoint holds thousands of allocations. */
struct live_checkpoint {
    size_t position;
    size_t offset;
    size_t count;
};

struct live_index {
    const struct profile *profile;
    const struct snapshot_columns *timeline;
    struct live_source source;
    const struct allocation_block *blocks; /* the allocator's allocation_blocks */
    size_t block_count;
    size_t interval;
    struct live_checkpoint *checkpoints;
    size_t checkpoint_count;
    size_t checkpoint_capacity;
    uint8_t *entries;
    size_t entry_bytes;
    size_t entry_capacity;
    struct live_special_texts texts;
    /* Query scratch: the replayed gap's last event per address (value:
     * the allocation's number + 1, 0 for a deallocation), and the live
     * allocations found (numbers). */
    struct integer_map window;
    uint32_t *live;
    size_t live_capacity;
};

const char *live_status_message(enum live_status status)
{
    switch (status) {
    case LIVE_OK: return "ok";
    case LIVE_SAMPLED_TIMELINE:
        return "live allocations need the full timeline; this file keeps XProf's "
               "1000-snapshot sample (open the run's .xplane.pb instead)";
    case LIVE_NO_TIMELINE: return "live allocations need a timeline; this report records none";
    case LIVE_NO_MEMORY: return "out of memory";
    }
    return "unknown status";
}

void live_rows_free(struct live_rows *rows)
{
    free(rows->rows);
    *rows = (struct live_rows){.as_of_index = -1};
}

/* ---- checkpoint entries: ascending indices as varint differences ---- */

static uint8_t *varint_put(uint8_t *out, uint32_t value)
{
    while (value >= 0x80) {
        *out++ = (uint8_t)(value | 0x80);
        value >>= 7;
    }
    *out++ = (uint8_t)value;
    return out;
}

static const uint8_t *varint_get(const uint8_t *in, uint32_t *value)
{
    uint32_t result = 0;
    for (unsigned shift = 0;; shift += 7) {
        uint8_t byte = *in++;
        result |= (uint32_t)(byte & 0x7f) << shift;
        if (byte < 0x80)
            break;
    }
    *value = result;
    return in;
}

static int compare_indices(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* ---- building: one replay with a dense live set ---- */

/* The live set during the build: the numbers of the live allocations
 * in no order, and each live address's position among them (a free
 * moves the last one into the hole). */
struct live_replay {
    struct integer_map positions;
    uint32_t *live;
    size_t count;
    size_t capacity;
    uint32_t *sorted; /* scratch for a checkpoint, `capacity` long */
};

static void live_replay_free(struct live_replay *replay)
{
    integer_map_free(&replay->positions);
    free(replay->live);
    free(replay->sorted);
}

static bool live_replay_allocate(struct live_replay *replay, uint64_t address, uint32_t index)
{
    uint32_t *position = integer_map_find(&replay->positions, address);
    if (position) {
        replay->live[*position] = index; /* the address is reused: replace */
        return true;
    }
    size_t capacity = replay->capacity;
    if (!live_array_reserve((void **)&replay->live, &replay->capacity, replay->count + 1,
                       sizeof *replay->live))
        return false;
    if (replay->capacity != capacity) {
        free(replay->sorted);
        replay->sorted = malloc(replay->capacity * sizeof *replay->sorted);
        if (!replay->sorted)
            return false;
    }
    if (!integer_map_put(&replay->positions, address, (uint32_t)replay->count))
        return false;
    replay->live[replay->count++] = index;
    return true;
}

static void live_replay_free_address(struct live_replay *replay,
                                     const struct live_source *source, uint64_t address)
{
    uint32_t position;
    if (!integer_map_remove(&replay->positions, address, &position))
        return; /* never allocated (or already freed): nothing to free */
    uint32_t last = replay->live[--replay->count];
    if (position == replay->count)
        return;
    replay->live[position] = last;
    *integer_map_find(&replay->positions, live_source_address(source, last)) = position;
}

/* The state before the first snapshot: the initial allocations live. */
static bool live_replay_seed(struct live_replay *replay, const struct live_source *source)
{
    for (size_t k = 0; k < source->initial_count; k++)
        if (!live_replay_allocate(replay, source->initial[k].address, (uint32_t)k))
            return false;
    return true;
}

static bool live_replay_apply(struct live_replay *replay, const struct live_source *source,
                              size_t index)
{
    const struct snapshot_columns *timeline = source->timeline;
    if (timeline->activity[index] == MEMORY_ACTIVITY_ALLOCATION)
        return live_replay_allocate(replay, snapshot_columns_address(timeline, index),
                                    (uint32_t)(index + source->initial_count));
    if (timeline->activity[index] == MEMORY_ACTIVITY_DEALLOCATION)
        live_replay_free_address(replay, source, snapshot_columns_address(timeline, index));
    return true;
}

/* Stores the replay's live set as the checkpoint at `position`. */
static bool live_index_add_checkpoint(struct live_index *index, struct live_replay *replay,
                                      size_t position)
{
    size_t count = replay->count;
    if (!live_array_reserve((void **)&index->checkpoints, &index->checkpoint_capacity,
                       index->checkpoint_count + 1, sizeof *index->checkpoints) ||
        !live_array_reserve((void **)&index->entries, &index->entry_capacity,
                       index->entry_bytes + count * 5, 1))
        return false;
    if (count > 0) {
        memcpy(replay->sorted, replay->live, count * sizeof *replay->sorted);
        qsort(replay->sorted, count, sizeof *replay->sorted, compare_indices);
    }
    index->checkpoints[index->checkpoint_count++] =
        (struct live_checkpoint){position, index->entry_bytes, count};
    /* An empty checkpoint writes nothing (entries may still be NULL). */
    if (count == 0)
        return true;
    uint8_t *out = index->entries + index->entry_bytes;
    uint32_t previous = 0;
    for (size_t i = 0; i < count; i++) {
        out = varint_put(out, replay->sorted[i] - previous);
        previous = replay->sorted[i];
    }
    index->entry_bytes = (size_t)(out - index->entries);
    return true;
}

/* A checkpoint at 0, then one whenever max(interval, live allocations at
 * the last checkpoint) snapshots have gone by: a checkpoint of L entries
 * is paid for by a gap of at least L snapshots, so all of them together
 * hold fewer entries than the timeline has snapshots, while a query
 * replays at most the gap. */
static bool live_index_replay(struct live_index *index)
{
    const struct snapshot_columns *timeline = index->timeline;
    struct live_replay replay = {0};
    bool ok = live_replay_seed(&replay, &index->source);
    size_t next = 0;
    for (size_t i = 0; ok && i <= timeline->count; i++) {
        if (i == next) {
            ok = live_index_add_checkpoint(index, &replay, i);
            next = i + (replay.count > index->interval ? replay.count : index->interval);
        }
        if (ok && i < timeline->count)
            ok = live_replay_apply(&replay, &index->source, i);
    }
    live_replay_free(&replay);
    if (ok) { /* give back the room the estimates left */
        uint8_t *entries = realloc(index->entries, index->entry_bytes ? index->entry_bytes : 1);
        if (entries) {
            index->entries = entries;
            index->entry_capacity = index->entry_bytes ? index->entry_bytes : 1;
        }
    }
    return ok;
}

enum live_status live_index_build(const struct profile *profile, const struct allocator *allocator,
                                  size_t interval, struct live_index **out)
{
    *out = NULL;
    if (allocator->timeline_sampled)
        return LIVE_SAMPLED_TIMELINE;
    if (allocator->timeline_kind == TIMELINE_NONE)
        return LIVE_NO_TIMELINE;
    /* Numbers are stored in 32 bits; such a timeline would need hundreds
     * of gigabytes of columns anyway. */
    if (!live_numbers_fit(allocator))
        return LIVE_NO_MEMORY;
    struct live_index *index = calloc(1, sizeof *index);
    if (!index)
        return LIVE_NO_MEMORY;
    index->profile = profile;
    index->timeline = &allocator->timeline;
    index->source = live_source_of(allocator);
    index->blocks = allocator->allocation_blocks;
    index->block_count = allocator->allocation_block_count;
    index->interval = interval ? interval : LIVE_INDEX_DEFAULT_INTERVAL;
    if (index->interval > allocator->timeline.count)
        index->interval = allocator->timeline.count + 1; /* one checkpoint, at 0 */
    if (!live_special_texts_intern(profile->strings, &index->texts) ||
        !live_index_replay(index)) {
        live_index_free(index);
        return LIVE_NO_MEMORY;
    }
    *out = index;
    return LIVE_OK;
}

void live_index_free(struct live_index *index)
{
    if (!index)
        return;
    free(index->checkpoints);
    free(index->entries);
    integer_map_free(&index->window);
    free(index->live);
    free(index);
}

size_t live_index_checkpoint_count(const struct live_index *index)
{
    return index->checkpoint_count;
}

size_t live_index_checkpoint_position(const struct live_index *index, size_t checkpoint)
{
    return index->checkpoints[checkpoint].position;
}

size_t live_index_checkpoint_bytes(const struct live_index *index)
{
    return index->entry_capacity + index->checkpoint_capacity * sizeof *index->checkpoints;
}

/* ---- queries ---- */

/* The last checkpoint at or before `end` (the first is at 0). */
static const struct live_checkpoint *live_index_checkpoint_before(const struct live_index *index,
                                                                  size_t end)
{
    size_t low = 0, high = index->checkpoint_count; /* answer in [low, high) */
    while (high - low > 1) {
        size_t middle = low + (high - low) / 2;
        if (index->checkpoints[middle].position <= end)
            low = middle;
        else
            high = middle;
    }
    return &index->checkpoints[low];
}

/* Replays [from, end) into the window: each address's last event. */
static bool live_index_replay_window(struct live_index *index, size_t from, size_t end)
{
    const struct snapshot_columns *timeline = index->timeline;
    size_t initial = index->source.initial_count;
    if (!integer_map_reset(&index->window, end - from))
        return false;
    for (size_t i = from; i < end; i++) {
        int activity = timeline->activity[i];
        if (activity == MEMORY_ACTIVITY_ALLOCATION)
            integer_map_put(&index->window, snapshot_columns_address(timeline, i),
                            (uint32_t)(i + initial) + 1);
        else if (activity == MEMORY_ACTIVITY_DEALLOCATION)
            integer_map_put(&index->window, snapshot_columns_address(timeline, i), 0);
        /* the map has room for every event of the gap: puts cannot fail */
    }
    return true;
}

/* Fills index->live with the allocations live after `end` snapshots
 * whose number is at least `first`, in no particular order; *count gets
 * how many, *bytes the sum of every live allocation's size (those below
 * `first` included). */
static bool live_index_collect(struct live_index *index, size_t end, size_t first, size_t *count,
                               int64_t *bytes)
{
    const struct live_source *source = &index->source;
    const struct live_checkpoint *checkpoint = live_index_checkpoint_before(index, end);
    if (!live_index_replay_window(index, checkpoint->position, end) ||
        !live_array_reserve((void **)&index->live, &index->live_capacity,
                       checkpoint->count + (end - checkpoint->position), sizeof *index->live))
        return false;
    size_t found = 0;
    int64_t sum = 0;
    const uint8_t *in = index->entries + checkpoint->offset;
    uint32_t number = 0;
    for (size_t i = 0; i < checkpoint->count; i++) {
        uint32_t step;
        in = varint_get(in, &step);
        number += step;
        if (integer_map_find(&index->window, live_source_address(source, number)))
            continue; /* the gap decides this address's fate */
        sum = saturating_add(sum, live_source_bytes(source, number));
        if (number >= first)
            index->live[found++] = number;
    }
    const struct integer_map *window = &index->window;
    for (size_t slot = 0; slot < window->capacity; slot++) {
        if (!window->slots[slot].used || window->slots[slot].value == 0)
            continue;
        uint32_t allocated = window->slots[slot].value - 1;
        sum = saturating_add(sum, live_source_bytes(source, allocated));
        if (allocated >= first)
            index->live[found++] = allocated;
    }
    *count = found;
    *bytes = sum;
    return true;
}

static enum live_status live_index_query(struct live_index *index, size_t end, size_t first,
                                         bool with_specials, struct live_rows *rows)
{
    size_t count;
    int64_t bytes;
    if (!live_index_collect(index, end, first, &count, &bytes)) {
        rows->count = 0;
        return LIVE_NO_MEMORY;
    }
    struct live_rows_request request = {
        .profile = index->profile,
        .timeline = index->timeline,
        .initial = index->source.initial,
        .initial_count = index->source.initial_count,
        .blocks = index->blocks,
        .block_count = index->block_count,
        .texts = &index->texts,
        .live = index->live,
        .live_count = count,
        .end = end,
        .with_specials = with_specials,
        .live_allocation_bytes = bytes,
    };
    return live_rows_make(&request, rows) ? LIVE_OK : LIVE_NO_MEMORY;
}

enum live_status live_index_rows_at(struct live_index *index, int64_t time_ps,
                                    struct live_rows *rows)
{
    return live_index_query(index, snapshots_until(index->timeline, time_ps), 0, true, rows);
}

enum live_status live_index_rows_grown(struct live_index *index, int64_t since_ps,
                                       int64_t time_ps, struct live_rows *rows)
{
    size_t end = snapshots_until(index->timeline, time_ps);
    size_t first = snapshots_until(index->timeline, since_ps);
    /* Allocated after since_ps means a timeline index from `first` on
     * (never an initial allocation: it was live before the timeline);
     * none is below `end` when since_ps >= time_ps. */
    return live_index_query(index, end, first + index->source.initial_count, false, rows);
}

enum live_status live_index_allocations_at(struct live_index *index, int64_t time_ps,
                                           size_t **indices, size_t *count)
{
    *indices = NULL;
    *count = 0;
    size_t found;
    int64_t bytes;
    if (!live_index_collect(index, snapshots_until(index->timeline, time_ps), 0, &found, &bytes))
        return LIVE_NO_MEMORY;
    if (found == 0)
        return LIVE_OK;
    qsort(index->live, found, sizeof *index->live, compare_indices);
    *indices = malloc(found * sizeof **indices);
    if (!*indices)
        return LIVE_NO_MEMORY;
    for (size_t i = 0; i < found; i++)
        (*indices)[i] = index->live[i];
    *count = found;
    return LIVE_OK;
}

/* ---- one index per allocator, built when first asked for ---- */

void live_index_cache_init(struct live_index_cache *cache, const struct profile *profile)
{
    *cache = (struct live_index_cache){.profile = profile};
}

enum live_status live_index_cache_get(struct live_index_cache *cache, size_t allocator_index,
                                      struct live_index **index)
{
    *index = NULL;
    if (!cache->indexes) {
        cache->indexes = calloc(cache->profile->allocator_count ? cache->profile->allocator_count
                                                                : 1,
                                sizeof *cache->indexes);
        if (!cache->indexes)
            return LIVE_NO_MEMORY;
    }
    if (!cache->indexes[allocator_index]) {
        enum live_status status =
            live_index_build(cache->profile, &cache->profile->allocators[allocator_index],
                             cache->interval, &cache->indexes[allocator_index]);
        if (status != LIVE_OK)
            return status;
    }
    *index = cache->indexes[allocator_index];
    return LIVE_OK;
}

void live_index_cache_free(struct live_index_cache *cache)
{
    if (cache->indexes)
        for (size_t i = 0; i < cache->profile->allocator_count; i++)
            live_index_free(cache->indexes[i]);
    free(cache->indexes);
    cache->indexes = NULL;
}
