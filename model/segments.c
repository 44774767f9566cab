/* segments: the history's rewind and the rows (see segments.h). */
#include "config.h"

#include "model/segments.h"

#include <stdlib.h>
#include <string.h>

#include "model/util/array_grow.h"
#include "model/util/integer_map.h"

void segment_history_free(struct segment_history *history)
{
    if (!history)
        return;
    free(history->segments);
    free(history->blocks);
    free(history->actions);
    free(history);
}

bool allocator_has_segments(const struct allocator *allocator)
{
    return allocator && allocator->segments;
}

void segment_rows_free(struct segment_rows *rows)
{
    free(rows->rows);
    memset(rows, 0, sizeof *rows);
}

/* The state being rewound: blocks and segments, found by address. */
struct rewind {
    struct segment_block *blocks;
    size_t block_count, block_capacity;
    struct integer_map block_at; /* address -> index of a live block */
    struct segment_record *segments;
    bool *segment_alive;
    size_t segment_count, segment_capacity;
    struct integer_map segment_at;
};

static bool block_add(struct rewind *r, struct segment_block block)
{
    if (!array_grow((void **)&r->blocks, &r->block_capacity, r->block_count, sizeof *r->blocks,
                    256) ||
        !integer_map_put(&r->block_at, block.address, (uint32_t)r->block_count))
        return false;
    r->blocks[r->block_count++] = block;
    return true;
}

static bool segment_add(struct rewind *r, struct segment_record segment)
{
    size_t capacity = r->segment_capacity;
    if (!array_grow((void **)&r->segments, &r->segment_capacity, r->segment_count,
                    sizeof *r->segments, 64))
        return false;
    if (capacity != r->segment_capacity) {
        bool *alive = realloc(r->segment_alive, r->segment_capacity * sizeof *alive);
        if (!alive)
            return false;
        r->segment_alive = alive;
    }
    if (!integer_map_put(&r->segment_at, segment.address, (uint32_t)r->segment_count))
        return false;
    r->segment_alive[r->segment_count] = true;
    r->segments[r->segment_count++] = segment;
    return true;
}

/* Undoes snapshot k. */
static bool undo(struct rewind *r, const struct snapshot_columns *timeline, uint8_t action,
                 size_t k)
{
    uint64_t address = snapshot_columns_address(timeline, k);
    int64_t size = snapshot_columns_requested_bytes(timeline, k);
    uint32_t found;
    switch (action) {
    case SEGMENT_ACTION_ALLOC:
        if (integer_map_remove(&r->block_at, address, &found))
            r->blocks[found].state = SEGMENT_BLOCK_FREE;
        return true;
    case SEGMENT_ACTION_FREE_REQUESTED: {
        const uint32_t *at = integer_map_find(&r->block_at, address);
        if (at)
            r->blocks[*at].state = SEGMENT_BLOCK_ALLOCATED;
        return true;
    }
    case SEGMENT_ACTION_FREE_COMPLETED:
        if (integer_map_find(&r->block_at, address))
            return true;
        return block_add(r, (struct segment_block){address, size, SEGMENT_BLOCK_PENDING_FREE});
    case SEGMENT_ACTION_SEGMENT_ALLOC:
        if (integer_map_remove(&r->segment_at, address, &found))
            r->segment_alive[found] = false;
        return true;
    case SEGMENT_ACTION_SEGMENT_FREE:
        if (integer_map_find(&r->segment_at, address))
            return true;
        return segment_add(r, (struct segment_record){.address = address, .size = size});
    default:
        return true;
    }
}

static int by_address(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The alive segments as rows by address, then each live block counted
 * in the segment that holds it, gaps between blocks as free space. */
static bool rows_make(struct rewind *r, struct segment_rows *out)
{
    size_t count = 0;
    for (size_t s = 0; s < r->segment_count; s++)
        count += r->segment_alive[s];
    out->rows = calloc(count ? count : 1, sizeof *out->rows);
    struct segment_block *live = malloc((r->block_count ? r->block_count : 1) * sizeof *live);
    if (!out->rows || !live) {
        free(live);
        return false;
    }
    size_t n = 0, live_count = 0;
    for (size_t s = 0; s < r->segment_count; s++)
        if (r->segment_alive[s]) {
            const struct segment_record *segment = &r->segments[s];
            out->rows[n++] = (struct segment_row){.address = segment->address,
                                                  .size = segment->size,
                                                  .stream = segment->stream,
                                                  .private_pool = segment->private_pool,
                                                  .expandable = segment->expandable};
        }
    out->count = n;
    /* struct segment_row and struct segment_block begin with the address. */
    qsort(out->rows, n, sizeof *out->rows, by_address);
    for (size_t b = 0; b < r->block_count; b++)
        if (r->blocks[b].state != SEGMENT_BLOCK_FREE)
            live[live_count++] = r->blocks[b];
    qsort(live, live_count, sizeof *live, by_address);
    size_t b = 0;
    for (size_t s = 0; s < n; s++) {
        struct segment_row *row = &out->rows[s];
        uint64_t end = row->address + (uint64_t)row->size, at = row->address;
        while (b < live_count && live[b].address < row->address)
            b++; /* a block outside every segment: not counted */
        for (; b < live_count && live[b].address < end; b++) {
            const struct segment_block *block = &live[b];
            if (block->address > at && (int64_t)(block->address - at) > row->largest_free_bytes)
                row->largest_free_bytes = (int64_t)(block->address - at);
            if (block->state == SEGMENT_BLOCK_PENDING_FREE)
                row->pending_free_bytes += block->size;
            else
                row->allocated_bytes += block->size;
            row->blocks++;
            uint64_t block_end = block->address + (uint64_t)block->size;
            if (block_end > at)
                at = block_end;
        }
        if (end > at && (int64_t)(end - at) > row->largest_free_bytes)
            row->largest_free_bytes = (int64_t)(end - at);
        row->free_bytes = row->size - row->allocated_bytes - row->pending_free_bytes;
        out->total.size += row->size;
        out->total.allocated_bytes += row->allocated_bytes;
        out->total.pending_free_bytes += row->pending_free_bytes;
        out->total.free_bytes += row->free_bytes;
        out->total.blocks += row->blocks;
        if (row->largest_free_bytes > out->total.largest_free_bytes)
            out->total.largest_free_bytes = row->largest_free_bytes;
    }
    free(live);
    return true;
}

bool segment_rows_at(const struct allocator *allocator, size_t index, struct segment_rows *rows)
{
    memset(rows, 0, sizeof *rows);
    if (!allocator_has_segments(allocator))
        return false;
    const struct segment_history *history = allocator->segments;
    const struct snapshot_columns *timeline = &allocator->timeline;
    struct rewind r = {0};
    bool ok = true;
    for (size_t s = 0; ok && s < history->segment_count; s++)
        ok = segment_add(&r, history->segments[s]);
    for (size_t b = 0; ok && b < history->block_count; b++)
        ok = block_add(&r, history->blocks[b]);
    size_t count = history->action_count < timeline->count ? history->action_count
                                                           : timeline->count;
    size_t stop = index == SIZE_MAX ? 0 : index + 1;
    for (size_t k = count; ok && k-- > stop;)
        ok = undo(&r, timeline, history->actions[k], k);
    ok = ok && rows_make(&r, rows);
    free(r.blocks);
    free(r.segments);
    free(r.segment_alive);
    integer_map_free(&r.block_at);
    integer_map_free(&r.segment_at);
    if (!ok)
        segment_rows_free(rows);
    return ok;
}
