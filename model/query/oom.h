/* oom: questions about an allocator's out-of-memory errors (struct
 * oom_event in model/profile.h), asked by any pane, report or gate.
 *
 * Owns: finding an OOM by time (the last, the one at an instant, the
 * next and previous), the allocator a view should go to first, and the
 * post-mortem's arithmetic: memory reserved but free, all memory free,
 * and the verdict (the request was larger than everything free, or
 * enough was free but in blocks too small: fragmentation).
 * Called by: report/ (the --summary card and JSON), ui/ (the chart's
 * marker, `o`/`O`, the card pane) and the `g` prompt.
 * Must not: draw or print: it answers with numbers and enums. */
#ifndef MEMTOP_OOM_H
#define MEMTOP_OOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"

/* The allocator's last OOM (the one that ended the job), or NULL. */
const struct oom_event *allocator_last_oom(const struct allocator *allocator);
/* The first OOM at exactly `time_ps`, or NULL. */
const struct oom_event *allocator_oom_at(const struct allocator *allocator, int64_t time_ps);
/* The first OOM after `time_ps`, or NULL. */
const struct oom_event *allocator_oom_after(const struct allocator *allocator, int64_t time_ps);
/* The last OOM before `time_ps`, or NULL. */
const struct oom_event *allocator_oom_before(const struct allocator *allocator,
                                             int64_t time_ps);
/* The index of `oom` among allocator->ooms (it must be one of them). */
size_t allocator_oom_index(const struct allocator *allocator, const struct oom_event *oom);

/* The allocator a view opens on for the OOMs: among those with any, the
 * one whose last OOM is the latest (the first such in display order);
 * -1 when none has one. */
long profile_oom_allocator(const struct profile *profile);
/* Every allocator's OOMs together. */
size_t profile_oom_count(const struct profile *profile);

enum oom_verdict {
    OOM_VERDICT_UNKNOWN,      /* the file says too little to tell */
    OOM_VERDICT_TOO_LARGE,    /* larger than all free memory together */
    OOM_VERDICT_FRAGMENTED,   /* enough free in all, no free block large enough */
    /* The device's free memory is unknown: larger than what the
     * allocator held reserved but free, and the device gave no more. */
    OOM_VERDICT_LARGER_THAN_CACHED,
};

/* The numbers of the post-mortem card, -1 where unknown. */
struct oom_account {
    int64_t reserved_free_bytes; /* reserved - allocated (not negative) */
    int64_t free_bytes;          /* reserved_free + device_free: all free memory */
    int64_t capacity_bytes;      /* the allocator's capacity, where recorded */
    enum oom_verdict verdict;
};

/* The card's numbers for `oom` of `allocator` (whose capacity, if
 * recorded, bounds the free memory where the device's is unknown). */
struct oom_account oom_account_of(const struct allocator *allocator,
                                  const struct oom_event *oom);

/* An allocator's memory map (struct memory_block, where its format
 * walks its memory) in `width` cells, address order: each cell the share
 * of its bytes in use, 0..1 (a cell with no bytes reads 0). False when
 * the allocator has no map or its blocks hold no bytes. */
bool oom_memory_map_cells(const struct allocator *allocator, double *cells, int width);

/* What held the memory at an OOM: rows summed by where they were made
 * (the row's location, where the format records one) or else by op. */
struct oom_holder {
    uint32_t name;      /* string id: a location ("file:line") or an op name */
    bool is_location;
    int64_t bytes;      /* allocation bytes x occurrences, summed (saturating) */
    int64_t allocations; /* occurrences, summed */
};

/* The `max` largest holders among `rows` (largest first; ties by first
 * appearance) into `out`; returns how many. False-free: without memory
 * for the grouping it returns 0. */
size_t oom_top_holders(const struct allocation_row *rows, size_t count, struct oom_holder *out,
                       size_t max);

#endif
