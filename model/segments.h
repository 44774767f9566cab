/* segments: a caching allocator's segments (the memory it reserved from
 * the device) and how full each is, at any point of its timeline, for
 * formats that record them (a PyTorch memory snapshot: the segments and
 * blocks when it was taken, and the trace entries that led there).
 *
 * Owns: the allocator's segment history as the loader hands it over
 * (the segments and blocks at the end; one action per timeline snapshot)
 * and the query that rewinds it to a snapshot the way memory_viz's
 * Allocator State History does: from the end, undoing entries (an alloc
 * removes its block, a completed free puts it back as pending-free, a
 * requested free makes it allocated again, a segment free puts the
 * segment back, a segment alloc removes it). Blocks put back have their
 * requested size: the trace knows no other.
 * Called by: format loaders (build), the segments pane and the segments
 * export (query). Must not: draw or write files. */
#ifndef MEMTOP_SEGMENTS_H
#define MEMTOP_SEGMENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"

enum segment_action {
    SEGMENT_ACTION_NONE,
    SEGMENT_ACTION_ALLOC,
    SEGMENT_ACTION_FREE_REQUESTED,
    SEGMENT_ACTION_FREE_COMPLETED,
    SEGMENT_ACTION_SEGMENT_ALLOC, /* segment_alloc and segment_map */
    SEGMENT_ACTION_SEGMENT_FREE,  /* segment_free and segment_unmap */
};

enum segment_block_state {
    SEGMENT_BLOCK_FREE,
    SEGMENT_BLOCK_ALLOCATED,
    SEGMENT_BLOCK_PENDING_FREE,
};

struct segment_record {
    uint64_t address;
    int64_t size;
    uint64_t stream;
    bool private_pool; /* a CUDA graph's or a MemPool's, not the default pool */
    bool expandable;
};

struct segment_block {
    uint64_t address;
    int64_t size;
    uint8_t state; /* enum segment_block_state */
};

/* What a loader hands over (the arrays become the history's). */
struct segment_history {
    struct segment_record *segments; /* at the end, any order */
    size_t segment_count;
    struct segment_block *blocks; /* active blocks at the end, any order */
    size_t block_count;
    /* One per timeline snapshot (enum segment_action); the snapshot's
     * address and requested_bytes say where and how much. */
    uint8_t *actions;
    size_t action_count;
};

void segment_history_free(struct segment_history *history);

/* One segment at a point of the timeline, as the pane and the export show it. */
struct segment_row {
    uint64_t address;
    int64_t size;
    uint64_t stream;
    bool private_pool;
    bool expandable;
    int64_t allocated_bytes;
    int64_t pending_free_bytes;
    int64_t free_bytes; /* size - allocated - pending */
    size_t blocks;      /* active ones */
    int64_t largest_free_bytes;
};

struct segment_rows {
    struct segment_row *rows; /* by address */
    size_t count;
    struct segment_row total; /* sums; largest_free_bytes the largest */
};

/* The segments after timeline snapshot `index` (SIZE_MAX: before the
 * first) of an allocator with a history; false when memory runs out or
 * the allocator has none (rows empty). */
bool segment_rows_at(const struct allocator *allocator, size_t index, struct segment_rows *rows);
void segment_rows_free(struct segment_rows *rows);

/* Whether the allocator records its segments. */
bool allocator_has_segments(const struct allocator *allocator);

#endif
