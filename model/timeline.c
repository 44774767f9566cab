#include "config.h"

#include "model/timeline.h"

#include <stdlib.h>

size_t timeline_find_time(const struct snapshot_columns *timeline, int64_t time_ps)
{
    size_t low = 0, high = timeline->count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (snapshot_columns_time(timeline, middle) < time_ps)
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}

/* Distance between two times without signed overflow. */
static uint64_t time_distance(int64_t a, int64_t b)
{
    return a > b ? (uint64_t)a - (uint64_t)b : (uint64_t)b - (uint64_t)a;
}

size_t timeline_nearest(const struct snapshot_columns *timeline, int64_t time_ps)
{
    if (timeline->count == 0)
        return SIZE_MAX;
    size_t after = timeline_find_time(timeline, time_ps);
    if (after == timeline->count)
        return timeline_find_time(timeline, snapshot_columns_time(timeline, after - 1));
    if (after == 0)
        return 0;
    size_t before = after - 1;
    if (time_distance(snapshot_columns_time(timeline, before), time_ps) <=
        time_distance(snapshot_columns_time(timeline, after), time_ps))
        return timeline_find_time(timeline, snapshot_columns_time(timeline, before));
    return after;
}

void timeline_range(const struct snapshot_columns *timeline, int64_t from_ps, int64_t to_ps,
                    size_t *first, size_t *end)
{
    *first = timeline_find_time(timeline, from_ps);
    if (from_ps > to_ps) {
        *end = *first;
        return;
    }
    *end = to_ps == INT64_MAX ? timeline->count : timeline_find_time(timeline, to_ps + 1);
}

/* ---- the range-maximum index ---- */

/* Level k holds the largest stack+heap of each block of 64^(k+1)
 * snapshots; levels stop once one has at most 64 blocks, so a query reads
 * at most 2 * 63 entries per level and 64 in the top one. 64 keeps the
 * index at 1/63 of one column and each read inside one or two cache
 * lines. A 64-bit count needs at most 10 levels. */
#define INDEX_FANOUT 64
#define INDEX_MAX_LEVELS 11

/* One allocation (the levels follow the header), so that freeing the
 * columns frees it with free() and profile.c never calls back here. */
struct timeline_index {
    size_t count; /* snapshots it was built for */
    size_t level_count;
    size_t sizes[INDEX_MAX_LEVELS];
    int64_t *levels[INDEX_MAX_LEVELS]; /* into values */
    int64_t values[];
};

static int64_t index_block_max(const int64_t *values, size_t first, size_t end)
{
    int64_t best = values[first];
    for (size_t i = first + 1; i < end; i++)
        if (values[i] > best)
            best = values[i];
    return best;
}

static void index_fill_first_level(const struct snapshot_columns *timeline, int64_t *level)
{
    for (size_t block = 0; block * INDEX_FANOUT < timeline->count; block++) {
        size_t first = block * INDEX_FANOUT;
        size_t end = first + INDEX_FANOUT < timeline->count ? first + INDEX_FANOUT
                                                             : timeline->count;
        int64_t best = snapshot_columns_in_use(timeline, first);
        for (size_t i = first + 1; i < end; i++) {
            int64_t in_use = snapshot_columns_in_use(timeline, i);
            if (in_use > best)
                best = in_use;
        }
        level[block] = best;
    }
}

bool timeline_index_build(struct snapshot_columns *timeline)
{
    free(timeline->index);
    timeline->index = NULL;
    struct timeline_index shape = {.count = timeline->count};
    size_t total = 0;
    for (size_t below = timeline->count; below > INDEX_FANOUT; shape.level_count++) {
        below = (below + INDEX_FANOUT - 1) / INDEX_FANOUT;
        shape.sizes[shape.level_count] = below;
        total += below;
    }
    struct timeline_index *index = malloc(sizeof *index + total * sizeof *index->values);
    if (!index)
        return false;
    *index = shape;
    if (total > 0) {
        int64_t *values = index->values;
        for (size_t level = 0; level < index->level_count; level++) {
            index->levels[level] = values;
            values += index->sizes[level];
        }
        index_fill_first_level(timeline, index->levels[0]);
        for (size_t level = 1; level < index->level_count; level++) {
            const int64_t *below = index->levels[level - 1];
            size_t below_size = index->sizes[level - 1];
            for (size_t block = 0; block < index->sizes[level]; block++) {
                size_t first = block * INDEX_FANOUT;
                size_t end = first + INDEX_FANOUT < below_size ? first + INDEX_FANOUT : below_size;
                index->levels[level][block] = index_block_max(below, first, end);
            }
        }
    }
    timeline->index = index;
    return true;
}

/* The best candidate so far: a snapshot (level SIZE_MAX) or a block. */
struct range_best {
    bool found;
    int64_t value;
    size_t level;
    size_t position;
};

/* Candidates come in order of position, so keeping only a strictly larger
 * one keeps the first of equals. */
static void range_consider(struct range_best *best, int64_t value, size_t level, size_t position)
{
    if (!best->found || value > best->value)
        *best = (struct range_best){true, value, level, position};
}

/* The maximum of [first, end) from whole blocks of the levels below
 * `levels`, and single snapshots at the edges. */
static void range_query(const struct snapshot_columns *timeline,
                        const struct timeline_index *index, size_t levels, size_t first,
                        size_t end, struct range_best *best)
{
    if (levels == 0) {
        for (size_t i = first; i < end; i++)
            range_consider(best, snapshot_columns_in_use(timeline, i), SIZE_MAX, i);
        return;
    }
    size_t span = 1;
    for (size_t level = 0; level < levels; level++)
        span *= INDEX_FANOUT;
    size_t block_first = first / span + (first % span != 0);
    size_t block_end = end / span;
    if (block_first >= block_end) {
        range_query(timeline, index, levels - 1, first, end, best);
        return;
    }
    range_query(timeline, index, levels - 1, first, block_first * span, best);
    for (size_t block = block_first; block < block_end; block++)
        range_consider(best, index->levels[levels - 1][block], levels - 1, block);
    range_query(timeline, index, levels - 1, block_end * span, end, best);
}

/* The first snapshot inside block `position` of `level` whose stack+heap
 * is the block's maximum `value`. */
static size_t range_descend(const struct snapshot_columns *timeline,
                            const struct timeline_index *index, size_t level, size_t position,
                            int64_t value)
{
    for (;;) {
        size_t first = position * INDEX_FANOUT;
        if (level == 0) {
            for (size_t i = first; i < timeline->count; i++)
                if (snapshot_columns_in_use(timeline, i) == value)
                    return i;
            return first; /* not reached: the block holds its maximum */
        }
        const int64_t *below = index->levels[level - 1];
        size_t child = first;
        while (child + 1 < index->sizes[level - 1] && below[child] != value)
            child++;
        level--;
        position = child;
    }
}

size_t timeline_max_in_use(const struct snapshot_columns *timeline, size_t first, size_t end)
{
    if (end > timeline->count)
        end = timeline->count;
    if (first >= end)
        return SIZE_MAX;
    /* No index, or one built for other data: levels none, a plain scan. */
    const struct timeline_index none = {.count = timeline->count};
    const struct timeline_index *index = timeline->index;
    if (!index || index->count != timeline->count)
        index = &none;
    struct range_best best = {0};
    range_query(timeline, index, index->level_count, first, end, &best);
    if (best.level == SIZE_MAX)
        return best.position;
    return range_descend(timeline, index, best.level, best.position, best.value);
}
