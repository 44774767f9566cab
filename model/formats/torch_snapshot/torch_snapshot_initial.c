/* torch_snapshot_initial: one device's state before its first trace entry
 * (see torch_snapshot_internal.h), by the spec's section 5: the
 * allocations live before the trace (the frees of allocations the trace
 * does not hold, which the first replay collected as the entries came,
 * and the active blocks the trace never allocated), the check that what
 * the trace leaves live is in the snapshot (and the blocks of what is),
 * and the reserved bytes at the start (the segments' total, back over
 * the segment entries).
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

/* How far ahead the passes below fetch map slots (their keys are known
 * ahead; the maps, megabytes, are cache misses). */
#define AHEAD 16

/* The device's active blocks by address into replay->active (room for
 * all at once), and the ghosts among them: those no open allocation of
 * the trace holds. */
static bool blocks_pass(struct device_replay *replay)
{
    const struct ts_trace *trace = replay->trace;
    struct ts_load *load = replay->load;
    struct integer_map *active = &replay->active;
    size_t blocks = 0;
    for (size_t s = 0; s < load->segment_count; s++)
        if (load->segments[s].device == replay->device) {
            replay->reserved_end =
                saturating_add(replay->reserved_end, load->segments[s].total_size);
            blocks += load->segments[s].block_count;
        }
    bool ok = integer_map_reserve(active, blocks);
    for (size_t s = 0; ok && s < load->segment_count; s++) {
        const struct ts_segment *segment = &load->segments[s];
        if (segment->device != replay->device || segment->block_count == 0)
            continue; /* (no blocks at all: load->blocks may be NULL) */
        const struct ts_block *first = &load->blocks[segment->first_block];
        for (size_t b = 0; ok && b < segment->block_count; b++) {
            if (b + AHEAD < segment->block_count) {
                integer_map_prefetch(active, first[b + AHEAD].address);
                if (trace)
                    snapshot_columns_prefetch_address(&trace->columns, first[b + AHEAD].address);
            }
            const struct ts_block *block = &first[b];
            if (!block_is_active(block))
                continue;
            ok = segment->first_block + b < UINT32_MAX &&
                 integer_map_put(active, block->address, (uint32_t)(segment->first_block + b));
            if (ok && !(trace && ts_trace_open_at(trace, block->address)))
                ok = initial_add(replay, (struct initial){block->address, block->requested,
                                                          block->traceback, true});
        }
    }
    return ok;
}

/* Each allocation the trace leaves open against the active block at its
 * address: one of the same request is its block (replay->held, for the
 * rows' rounded sizes), none is counted in not_in_snapshot. */
static bool open_pass(struct device_replay *replay)
{
    const struct ts_load *load = replay->load;
    const struct ts_trace *trace = replay->trace;
    const struct integer_map *active = &replay->active;
    replay->held = malloc((trace->open_count ? trace->open_count : 1) * sizeof *replay->held);
    if (!replay->held)
        return false;
    size_t keys = ts_trace_key_count(trace);
    for (size_t key = 0; key < keys; key++) {
        if (key + AHEAD < keys && trace->open_by_key[key + AHEAD].made)
            integer_map_prefetch(active, ts_trace_key_address(trace, key + AHEAD));
        const struct ts_open *opened = &trace->open_by_key[key];
        if (!opened->made)
            continue;
        const uint32_t *block = integer_map_find(active, ts_trace_key_address(trace, key));
        if (!block || load->blocks[*block].requested != opened->size)
            replay->not_in_snapshot++;
        else if (load->blocks[*block].size > 0)
            replay->held[replay->held_count++] =
                (struct allocation_block){opened->made - 1, load->blocks[*block].size};
    }
    return true;
}

bool ts_find_initial(struct device_replay *replay)
{
    const struct ts_trace *trace = replay->trace;
    bool ok = true;
    for (size_t k = 0; ok && trace && k < trace->unmatched_count; k++)
        ok = initial_add(replay, (struct initial){trace->unmatched[k].address,
                                                  trace->unmatched[k].size, 0, false});
    ok = ok && blocks_pass(replay) && (!trace || open_pass(replay));
    replay->reserved_start =
        trace ? saturating_subtract(replay->reserved_end, trace->reserved) : replay->reserved_end;
    return ok;
}
