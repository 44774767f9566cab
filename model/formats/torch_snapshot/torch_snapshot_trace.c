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
#include "model/util/saturating.h"

/* A first guess at a trace's length from the bytes left to read (an
 * entry takes more than this many): the columns are reserved untouched,
 * so a guess too long costs address space, not memory. */
#define ENTRY_BYTES_AT_LEAST 48
#define GUESS_MAX ((size_t)1 << 26)
/* How far ahead the replay fetches the address keys' slots (and, half
 * way, what is open at the keys). */
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

/* Ends the allocation open at the address of key `key`, if any (false
 * otherwise): its size. */
static bool end_open(struct ts_trace *trace, uint32_t key, int64_t *size)
{
    if (key >= trace->open_key_capacity || !trace->open_by_key[key].made)
        return false;
    struct ts_open *open = &trace->open_by_key[key];
    *size = open->size;
    end_note(trace, open->made - 1);
    open->made = 0;
    trace->open_count--;
    return true;
}

/* Room in open_by_key for key `key` (the new room holds nothing open). */
static bool open_room(struct ts_trace *trace, uint32_t key)
{
    if (key < trace->open_key_capacity)
        return true;
    size_t capacity = trace->open_key_capacity ? trace->open_key_capacity : 1024;
    while (capacity <= key)
        capacity *= 2;
    struct ts_open *grown = realloc(trace->open_by_key, capacity * sizeof *grown);
    if (!grown)
        return false;
    memset(grown + trace->open_key_capacity, 0,
           (capacity - trace->open_key_capacity) * sizeof *grown);
    trace->open_by_key = grown;
    trace->open_key_capacity = capacity;
    return true;
}

/* Opens the allocation `entry` makes at the address of key `key` (none
 * is open there). */
static bool open_add(struct ts_trace *trace, const struct ts_entry *entry, uint32_t key)
{
    if (!open_room(trace, key))
        return false;
    trace->open_by_key[key] = (struct ts_open){(uint32_t)trace->count + 1, entry->size};
    trace->open_count++;
    return true;
}

const struct ts_open *ts_trace_open_at(const struct ts_trace *trace, uint64_t address)
{
    uint32_t key = snapshot_columns_find_address_key(&trace->columns, address);
    if ((key == 0 && address != 0) || key >= trace->open_key_capacity ||
        !trace->open_by_key[key].made)
        return NULL;
    return &trace->open_by_key[key];
}

size_t ts_trace_key_count(const struct ts_trace *trace)
{
    return trace->open_key_capacity < trace->columns.address_count
               ? trace->open_key_capacity
               : trace->columns.address_count;
}

uint64_t ts_trace_key_address(const struct ts_trace *trace, size_t key)
{
    return trace->columns.addresses[key];
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

/* The forward pass over one entry (its address's key `key`): what it
 * ends, what it opens. */
static bool trace_step(struct ts_trace *trace, const struct ts_entry *entry, uint32_t key)
{
    int64_t ended;
    switch (entry->action) {
    case TS_ALLOC:
        /* An alloc at an address still open ends the one there (a free
         * the trace lost). */
        if (end_open(trace, key, &ended))
            trace->allocated = saturating_subtract(trace->allocated, ended);
        trace->allocated = saturating_add(trace->allocated, entry->size);
        return open_add(trace, entry, key);
    case TS_FREE_COMPLETED:
        if (!end_open(trace, key, &ended)) {
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
    /* The address's key first: the open allocations are kept by it, and
     * the append below takes it without a second lookup. An oom entry's
     * address is the device's free bytes: no address (key 0). */
    uint32_t key = 0;
    if (trace->count >= trace->capacity || trace->count >= TS_MAX_ENTRIES ||
        (entry->action != TS_OOM &&
         !snapshot_columns_address_key(&trace->columns, entry->address, &key)) ||
        !trace_step(trace, entry, key))
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
    /* The addresses are known ahead: the slots of their keys are fetched
     * early (the map of the addresses is too big to stay in the
     * processor's caches while the pickle streams by). */
    for (size_t i = 0; i < batch->count && i < PREFETCH_AHEAD; i++)
        snapshot_columns_prefetch_address(&trace->columns, batch->entries[i].address);
    for (size_t i = 0; i < batch->count; i++) {
        if (i + PREFETCH_AHEAD < batch->count)
            snapshot_columns_prefetch_address(&trace->columns,
                                              batch->entries[i + PREFETCH_AHEAD].address);
        /* Half way there, the key's slot is at hand: what is open at the
         * key is fetched too. */
        if (i + PREFETCH_AHEAD / 2 < batch->count) {
            uint32_t key = snapshot_columns_find_address_key(
                &trace->columns, batch->entries[i + PREFETCH_AHEAD / 2].address);
            if (key && key < trace->open_key_capacity)
                __builtin_prefetch(&trace->open_by_key[key]);
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
    *live = malloc((trace->open_count + trace->end_count + 1) * sizeof **live);
    if (!*live)
        return false;
    /* Open at the end and made by then, or made by then and ended since. */
    for (size_t key = 0; key < trace->open_key_capacity; key++) {
        uint32_t made = trace->open_by_key[key].made;
        if (made && made - 1 < at)
            (*live)[(*count)++] = made - 1;
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
    free(trace->open_by_key);
    trace->open_by_key = NULL;
    trace->open_key_capacity = trace->open_count = 0;
    free(trace->unmatched);
    trace->unmatched = NULL;
    trace->unmatched_count = trace->unmatched_capacity = 0;
}

void ts_trace_free(struct ts_trace *trace)
{
    snapshot_columns_free(&trace->columns);
    free(trace->actions);
    free(trace->open_by_key);
    free(trace->unmatched);
    free(trace->ooms);
    free(trace->streams);
    free(trace->ends);
    const struct pickle_object *list = trace->list;
    *trace = (struct ts_trace){.list = list};
}
