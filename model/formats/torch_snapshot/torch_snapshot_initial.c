/* torch_snapshot_initial: one device's state before its first trace entry
 * (see torch_snapshot_internal.h), the forward pass of the spec's section 5:
 * what each entry ends (`ends`: a free_completed ends its allocation, an
 * alloc at an address still open ends the one there), the allocations live
 * before the trace (frees of allocations the trace does not hold, and
 * active blocks the trace never allocated), the check that what the trace
 * leaves live is in the snapshot, and the reserved bytes at the start
 * (the segments' total, back over the segment entries).
 * Called by torch_snapshot_replay.c (ts_build_device), before its replay.
 * Must not: read the pickle, touch the profile builder, or call back into
 * the replay. */
#include "config.h"

#include <stdlib.h>

#include "model/formats/torch_snapshot/torch_snapshot_internal.h"
#include "model/util/array_grow.h"
#include "model/util/integer_map.h"
#include "model/util/saturating.h"

static bool initial_add(struct device_replay *replay, struct initial initial)
{
    if (!array_grow((void **)&replay->initial, &replay->initial_capacity, replay->initial_count,
                    sizeof *replay->initial, 64))
        return false;
    replay->initial[replay->initial_count++] = initial;
    replay->initial_bytes = saturating_add(replay->initial_bytes, initial.size);
    return true;
}

static bool block_is_active(const struct ts_block *block)
{
    return block->state != TS_BLOCK_INACTIVE;
}

/* Forward pass: what each entry ends, the unmatched frees; then the
 * snapshot's active blocks the trace leaves unopened (ghosts); and the
 * check that what the trace leaves live is in the snapshot. */
bool ts_find_initial(struct device_replay *replay)
{
    struct ts_load *load = replay->load;
    struct integer_map open = {0};
    replay->ends = malloc((replay->count ? replay->count : 1) * sizeof *replay->ends);
    bool ok = replay->ends != NULL;
    for (size_t i = 0; ok && i < replay->count; i++) {
        const struct ts_entry *entry = &replay->entries[i];
        uint32_t found;
        replay->ends[i] = NO_END;
        if (entry->action == TS_ALLOC) {
            if (integer_map_remove(&open, entry->address, &found))
                replay->ends[i] = found;
            ok = integer_map_put(&open, entry->address, (uint32_t)i);
        } else if (entry->action == TS_FREE_COMPLETED) {
            if (integer_map_remove(&open, entry->address, &found)) {
                replay->ends[i] = found;
            } else {
                replay->ends[i] = INITIAL_MARK | (uint32_t)replay->initial_count;
                ok = initial_add(replay, (struct initial){entry->address, entry->size, 0, false});
            }
        }
    }
    struct integer_map active = {0};
    for (size_t s = 0; ok && s < load->segment_count; s++) {
        const struct ts_segment *segment = &load->segments[s];
        if (segment->device != replay->device)
            continue;
        replay->reserved_end = saturating_add(replay->reserved_end, segment->total_size);
        for (size_t b = 0; ok && b < segment->block_count; b++) {
            const struct ts_block *block = &load->blocks[segment->first_block + b];
            if (!block_is_active(block))
                continue;
            ok = integer_map_put(&active, block->address, (uint32_t)(segment->first_block + b));
            if (ok && !integer_map_find(&open, block->address))
                ok = initial_add(replay, (struct initial){block->address, block->requested,
                                                          block->traceback, true});
        }
    }
    for (size_t slot = 0; ok && slot < open.capacity; slot++) {
        if (!open.slots[slot].used)
            continue;
        const uint32_t *block = integer_map_find(&active, open.slots[slot].key);
        const struct ts_entry *entry = &replay->entries[open.slots[slot].value];
        if (!block || load->blocks[*block].requested != entry->size)
            replay->not_in_snapshot++;
    }
    integer_map_free(&open);
    integer_map_free(&active);
    return ok;
}

void ts_find_reserved_start(struct device_replay *replay)
{
    int64_t reserved = replay->reserved_end;
    for (size_t i = 0; i < replay->count; i++) {
        const struct ts_entry *entry = &replay->entries[i];
        if (entry->action == TS_SEGMENT_ALLOC || entry->action == TS_SEGMENT_MAP)
            reserved = saturating_subtract(reserved, entry->size);
        else if (entry->action == TS_SEGMENT_FREE || entry->action == TS_SEGMENT_UNMAP)
            reserved = saturating_add(reserved, entry->size);
    }
    replay->reserved_start = reserved;
}
