/* torch_snapshot_initial: one device's state before its first trace entry
 * (see torch_snapshot_internal.h), by the spec's section 5: the
 * allocations live before the trace (the frees of allocations the trace
 * does not hold, which the first replay collected as the entries came,
 * and the active blocks the trace never allocated), the check that what
 * the trace leaves live is in the snapshot, and the reserved bytes at the
 * start (the segments' total, back over the segment entries).
 * Called by torch_snapshot_replay.c (ts_build_device), before it finishes
 * the timeline. Must not: read the pickle, touch the profile builder, or
 * call back into the replay. */
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

bool ts_find_initial(struct device_replay *replay)
{
    struct ts_load *load = replay->load;
    const struct ts_trace *trace = replay->trace;
    static const struct integer_map none = {0};
    const struct integer_map *open = trace ? &trace->open : &none;
    bool ok = true;
    for (size_t k = 0; ok && trace && k < trace->unmatched_count; k++)
        ok = initial_add(replay, (struct initial){trace->unmatched[k].address,
                                                  trace->unmatched[k].size, 0, false});
    /* The device's active blocks by address (their index in load->blocks),
     * kept for the blocks of the rows (torch_snapshot_replay.c); room for
     * every block of its segments at once. */
    struct integer_map *active = &replay->active;
    size_t blocks = 0;
    for (size_t s = 0; s < load->segment_count; s++)
        if (load->segments[s].device == replay->device)
            blocks += load->segments[s].block_count;
    ok = ok && integer_map_reserve(active, blocks);
    for (size_t s = 0; ok && s < load->segment_count; s++) {
        const struct ts_segment *segment = &load->segments[s];
        if (segment->device != replay->device)
            continue;
        replay->reserved_end = saturating_add(replay->reserved_end, segment->total_size);
        for (size_t b = 0; ok && b < segment->block_count; b++) {
            const struct ts_block *block = &load->blocks[segment->first_block + b];
            if (!block_is_active(block))
                continue;
            ok = segment->first_block + b < UINT32_MAX &&
                 integer_map_put(active, block->address, (uint32_t)(segment->first_block + b));
            if (ok && !integer_map_find(open, block->address))
                ok = initial_add(replay, (struct initial){block->address, block->requested,
                                                          block->traceback, true});
        }
    }
    for (size_t slot = 0; ok && slot < open->capacity; slot++) {
        if (!open->slots[slot].used)
            continue;
        const uint32_t *block = integer_map_find(active, open->slots[slot].key);
        int64_t size = ts_trace_opened(trace, open->slots[slot].value)->size;
        if (!block || load->blocks[*block].requested != size)
            replay->not_in_snapshot++;
    }
    replay->reserved_start =
        trace ? saturating_subtract(replay->reserved_end, trace->reserved) : replay->reserved_end;
    return ok;
}
