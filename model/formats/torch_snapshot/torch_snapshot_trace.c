/* torch_snapshot_trace: one list of device_traces replayed as its entries
 * come (see torch_snapshot_internal.h), so that the entries never sit in
 * memory: each becomes its timeline snapshot at once. The forward pass of
 * the spec's section 5 runs here too (the allocations open by address,
 * what each entry ends, the frees of allocations the trace does not
 * hold); what only the whole trace and the segments tell (the bytes live
 * and reserved before the first entry, the earliest time of all devices)
 * is added when the device is built (torch_snapshot_replay.c): until then
 * allocated and reserved are relative to it (the free bytes and the
 * running maximum are no columns: profile.h reads them from the reserved
 * bytes' changes and the allocated column).
 * Called by torch_snapshot_entries.c and torch_snapshot_pipe.c (a batch
 * of entries at a time: on the pickle reader's thread, or alone on the
 * replay thread), torch_snapshot_initial.c and torch_snapshot_replay.c
 * (the finished trace). Must not: read the pickle, touch the profile
 * builder, or anything of the load but its traces (the replay thread
 * runs it beside the reader). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "model/formats/torch_snapshot/torch_snapshot_internal.h"
#include "model/segments.h"
#include "model/util/array_grow.h"
#include "model/util/integer_map.h"
#include "model/util/saturating.h"

/* A first guess at a trace's length from the bytes left to read (an
 * entry takes more than this many): the columns are reserved untouched,
 * so a guess too long costs address space, not memory. */
#define ENTRY_BYTES_AT_LEAST 48
#define GUESS_MAX ((size_t)1 << 26)
#define NO_SLOT UINT32_MAX
/* How far ahead the replay fetches the open allocations' slots. */
#define PREFETCH_AHEAD 8

static int activity_of(uint8_t action)
{
    switch (action) {
    case TS_ALLOC: return MEMORY_ACTIVITY_ALLOCATION;
    case TS_FREE_COMPLETED: return MEMORY_ACTIVITY_DEALLOCATION;
    case TS_SEGMENT_ALLOC:
    case TS_SEGMENT_MAP: return MEMORY_ACTIVITY_RESERVATION;
    default: return MEMORY_ACTIVITY_UNKNOWN;
    }
}

static uint8_t segment_action_of(uint8_t action)
{
    switch (action) {
    case TS_ALLOC: return SEGMENT_ACTION_ALLOC;
    case TS_FREE_REQUESTED: return SEGMENT_ACTION_FREE_REQUESTED;
    case TS_FREE_COMPLETED: return SEGMENT_ACTION_FREE_COMPLETED;
    case TS_SEGMENT_ALLOC:
    case TS_SEGMENT_MAP: return SEGMENT_ACTION_SEGMENT_ALLOC;
    case TS_SEGMENT_FREE:
    case TS_SEGMENT_UNMAP: return SEGMENT_ACTION_SEGMENT_FREE;
    default: return SEGMENT_ACTION_NONE;
    }
}

/* Room for `more` entries in a trace (`left`: the bytes of the input
 * after them, for a first guess); false when memory runs out. */
static bool trace_reserve(struct ts_trace *trace, size_t more, size_t left)
{
    size_t need = trace->count + more;
    if (need < trace->count)
        return false;
    if (need <= trace->capacity)
        return true;
    size_t capacity;
    if (trace->capacity == 0) {
        size_t guess = left / ENTRY_BYTES_AT_LEAST;
        capacity = guess > GUESS_MAX ? GUESS_MAX : guess;
        if (capacity < 1024)
            capacity = 1024;
        if (capacity < need)
            capacity = need;
        /* The columns this format never fills (stack, fragmentation,
         * region, data type, shape; the site where no entry has frames)
         * cost no memory; those it never varies
         * (the step, none; the allocation bytes, the requested ones) are
         * left out. */
        if (!snapshot_columns_omit(&trace->columns, TS_OMITTED_COLUMNS) ||
            !snapshot_columns_enable_context(&trace->columns) ||
            !snapshot_columns_enable_site(&trace->columns) ||
            !snapshot_columns_reserve_zeroed(&trace->columns, capacity))
            return false;
    } else {
        capacity = trace->capacity * 2 > need ? trace->capacity * 2 : need;
        if (!snapshot_columns_grow_zeroed(&trace->columns, capacity))
            return false;
    }
    uint8_t *actions = realloc(trace->actions, capacity);
    if (!actions)
        return false;
    trace->actions = actions;
    trace->capacity = capacity;
    return true;
}

/* Notes that the current entry ends the allocation entry `opened` made,
 * where that allocation was live at the running peak's time (made at or
 * before the last entry of that time), while such ends are kept: the
 * temporaries made and ended after the peak, most of the ends, are not
 * what the table at the peak needs. */
static void end_note(struct ts_trace *trace, uint32_t opened)
{
    if (trace->ends_lost || opened > trace->peak_last)
        return;
    if (trace->end_count >= trace->capacity / 4 + 1024 ||
        !array_grow((void **)&trace->ends, &trace->end_capacity, trace->end_count,
                    sizeof *trace->ends, 256)) {
        trace->ends_lost = true;
        return;
    }
    trace->ends[trace->end_count++] = (struct ts_end){(uint32_t)trace->count, opened};
}

/* Ends the allocation open at `address`, if any (false otherwise): its
 * size. */
static bool end_open(struct ts_trace *trace, uint64_t address, int64_t *size)
{
    uint32_t slot;
    if (!integer_map_remove(&trace->open, address, &slot))
        return false;
    *size = trace->opened[slot].size;
    end_note(trace, trace->opened[slot].entry);
    trace->opened[slot].entry = trace->free_slot;
    trace->free_slot = slot;
    return true;
}

/* Opens the allocation `entry` makes (none is open at its address). */
static bool open_add(struct ts_trace *trace, const struct ts_entry *entry)
{
    uint32_t slot = trace->free_slot;
    if (slot == NO_SLOT) {
        if (trace->opened_count >= NO_SLOT ||
            !array_grow((void **)&trace->opened, &trace->opened_capacity, trace->opened_count,
                        sizeof *trace->opened, 1024))
            return false;
        slot = (uint32_t)trace->opened_count++;
    } else {
        trace->free_slot = trace->opened[slot].entry;
    }
    trace->opened[slot] = (struct ts_open){(uint32_t)trace->count, entry->size};
    if (integer_map_put(&trace->open, entry->address, slot))
        return true;
    trace->opened[slot].entry = trace->free_slot;
    trace->free_slot = slot;
    return false;
}

const struct ts_open *ts_trace_opened(const struct ts_trace *trace, uint32_t slot)
{
    return &trace->opened[slot];
}

static bool unmatched_add(struct ts_trace *trace, const struct ts_entry *entry)
{
    if (!array_grow((void **)&trace->unmatched, &trace->unmatched_capacity,
                    trace->unmatched_count, sizeof *trace->unmatched, 64))
        return false;
    trace->unmatched[trace->unmatched_count++] =
        (struct ts_unmatched){entry->address, entry->size, trace->count};
    return true;
}

static bool stream_use_add(struct ts_trace *trace, const struct ts_entry *entry)
{
    if (!array_grow((void **)&trace->streams, &trace->stream_capacity, trace->stream_count,
                    sizeof *trace->streams, 64))
        return false;
    trace->streams[trace->stream_count++] =
        (struct ts_stream_use){(uint32_t)trace->count, entry->stream};
    return true;
}

static bool oom_add(struct ts_trace *trace, const struct ts_entry *entry)
{
    struct ts_oom *ooms = realloc(trace->ooms, (trace->oom_count + 1) * sizeof *ooms);
    if (!ooms)
        return false;
    trace->ooms = ooms;
    trace->ooms[trace->oom_count++] = (struct ts_oom){
        .entry = trace->count,
        .requested = entry->size,
        .device_free = entry->address,
        .allocated = trace->allocated,
        .reserved = trace->reserved,
    };
    return true;
}

/* The forward pass over one entry: what it ends, what it opens. */
static bool trace_step(struct ts_trace *trace, const struct ts_entry *entry)
{
    int64_t ended;
    switch (entry->action) {
    case TS_ALLOC:
        /* An alloc at an address still open ends the one there (a free
         * the trace lost). */
        if (end_open(trace, entry->address, &ended))
            trace->allocated = saturating_subtract(trace->allocated, ended);
        trace->allocated = saturating_add(trace->allocated, entry->size);
        return open_add(trace, entry);
    case TS_FREE_COMPLETED:
        if (!end_open(trace, entry->address, &ended)) {
            ended = entry->size;
            if (!unmatched_add(trace, entry))
                return false;
        }
        trace->allocated = saturating_subtract(trace->allocated, ended);
        return true;
    case TS_SEGMENT_ALLOC:
    case TS_SEGMENT_MAP:
        trace->reserved = saturating_add(trace->reserved, entry->size);
        return true;
    case TS_SEGMENT_FREE:
    case TS_SEGMENT_UNMAP:
        trace->reserved = saturating_subtract(trace->reserved, entry->size);
        return true;
    default:
        return true;
    }
}

/* Replays one entry into a trace with room for it; false when memory
 * runs out. */
static bool trace_add(struct ts_trace *trace, const struct ts_entry *entry, uint32_t op_name,
                      uint32_t site)
{
    if (trace->count == 0)
        trace->free_slot = NO_SLOT;
    if (trace->count >= trace->capacity || trace->count >= TS_MAX_ENTRIES ||
        !trace_step(trace, entry))
        return false;
    if (trace->count && entry->time_us < trace->last_time_us)
        trace->times_back = true;
    trace->last_time_us = entry->time_us;
    trace->own_contexts |= entry->context != STRING_ID_EMPTY;
    if (trace->count == 0 || trace->allocated > trace->best) {
        trace->best = trace->allocated;
        trace->peak = trace->peak_last = trace->count;
        trace->peak_time_us = entry->time_us;
        /* What this entry ended came before the peak, as all before. */
        trace->end_count = 0;
        trace->ends_lost = false;
    } else if (trace->peak_last + 1 == trace->count && entry->time_us == trace->peak_time_us) {
        trace->peak_last = trace->count;
    }
    if (entry->action == TS_OOM && !oom_add(trace, entry))
        return false;
    if (entry->action == TS_ALLOC && entry->stream != 0 && !stream_use_add(trace, entry))
        return false;
    /* The free bytes are reserved - allocated: the reserved bytes are kept
     * where they change (segment entries), not a column. */
    const struct snapshot_columns *columns = &trace->columns;
    if ((columns->reserved_change_count == 0 ||
         columns->reserved_changes[columns->reserved_change_count - 1].reserved !=
             trace->reserved) &&
        !snapshot_columns_reserved_change(&trace->columns, trace->count, trace->reserved))
        return false;
    struct snapshot snapshot = {
        .time_ps = entry->time_us,
        .heap_bytes = trace->allocated,
        .activity = activity_of(entry->action),
        .requested_bytes = entry->size,
        .allocation_bytes = entry->size,
        .address = entry->action != TS_OOM ? entry->address : 0,
        .step_id = -1,
        .op_name = op_name,
        .context = entry->context,
        .site = site,
    };
    snapshot_columns_append_sparse(&trace->columns, &snapshot);
    if (trace->columns.lost)
        return false;
    trace->actions[trace->count] = segment_action_of(entry->action);
    trace->count++;
    return true;
}

struct ts_trace *ts_trace_find(struct ts_load *load, const struct pickle_object *list,
                               bool create)
{
    for (size_t i = load->trace_count; i-- > 0;)
        if (load->traces[i].list == list)
            return &load->traces[i];
    if (!create || !array_grow((void **)&load->traces, &load->trace_capacity, load->trace_count,
                               sizeof *load->traces, 8))
        return NULL;
    struct ts_trace *trace = &load->traces[load->trace_count++];
    *trace = (struct ts_trace){.list = list};
    return trace;
}

bool ts_replay_batch(struct ts_load *load, const struct ts_batch *batch)
{
    struct ts_trace *trace = ts_trace_find(load, batch->list, true);
    if (!trace || !trace_reserve(trace, batch->count, batch->bytes_left))
        return false;
    /* The addresses are known ahead: their slots of the open allocations
     * are fetched early (the map is too big to stay in the processor's
     * caches while the pickle streams by). */
    for (size_t i = 0; i < batch->count && i < PREFETCH_AHEAD; i++) {
        integer_map_prefetch(&trace->open, batch->entries[i].address);
        snapshot_columns_prefetch_address(&trace->columns, batch->entries[i].address);
    }
    for (size_t i = 0; i < batch->count; i++) {
        if (i + PREFETCH_AHEAD < batch->count) {
            uint64_t ahead = batch->entries[i + PREFETCH_AHEAD].address;
            integer_map_prefetch(&trace->open, ahead);
            /* and the slot of the columns' key of the address */
            snapshot_columns_prefetch_address(&trace->columns, ahead);
        }
        /* Half way there, the slot is at hand: the open allocation it
         * names (a free list hands slots out in no order) is fetched too. */
        if (i + PREFETCH_AHEAD / 2 < batch->count) {
            const uint32_t *slot =
                integer_map_find(&trace->open, batch->entries[i + PREFETCH_AHEAD / 2].address);
            if (slot)
                __builtin_prefetch(&trace->opened[*slot]);
        }
        if (!trace_add(trace, &batch->entries[i], batch->op_names[i], batch->sites[i]))
            return false;
    }
    return true;
}

bool ts_trace_peak_live(const struct ts_trace *trace, bool times_are_indices, size_t *end,
                        uint32_t **live, size_t *count)
{
    if (trace->ends_lost || trace->count == 0)
        return false;
    size_t at = (times_are_indices ? trace->peak : trace->peak_last) + 1;
    *end = at;
    *count = 0;
    *live = malloc((trace->open.count + trace->end_count + 1) * sizeof **live);
    if (!*live)
        return false;
    /* Open at the end and made by then, or made by then and ended since. */
    for (size_t slot = 0; slot < trace->open.capacity; slot++)
        if (trace->open.slots[slot].used) {
            uint32_t opened = trace->opened[trace->open.slots[slot].value].entry;
            if (opened < at)
                (*live)[(*count)++] = opened;
        }
    for (size_t k = 0; k < trace->end_count; k++)
        if (trace->ends[k].entry >= at && trace->ends[k].opened < at)
            (*live)[(*count)++] = trace->ends[k].opened;
    return true;
}

void ts_trace_drop_open(struct ts_trace *trace)
{
    free(trace->ends);
    trace->ends = NULL;
    trace->end_count = trace->end_capacity = 0;
    integer_map_free(&trace->open);
    free(trace->opened);
    trace->opened = NULL;
    trace->opened_count = trace->opened_capacity = 0;
    trace->free_slot = 0;
    free(trace->unmatched);
    trace->unmatched = NULL;
    trace->unmatched_count = trace->unmatched_capacity = 0;
}

void ts_trace_free(struct ts_trace *trace)
{
    snapshot_columns_free(&trace->columns);
    free(trace->actions);
    integer_map_free(&trace->open);
    free(trace->unmatched);
    free(trace->ooms);
    free(trace->opened);
    free(trace->streams);
    free(trace->ends);
    const struct pickle_object *list = trace->list;
    *trace = (struct ts_trace){.list = list};
}
