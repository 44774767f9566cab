/* torch_snapshot_replay: one device's allocator from its trace entries and
 * its segments (see torch_snapshot_internal.h), by the spec's section 5:
 * a forward pass (torch_snapshot_initial.c) finds the allocations live
 * before the first entry (frees of allocations the trace does not hold,
 * and active blocks the trace never allocated); the replay then counts
 * requested bytes as memory_viz does (only free_completed ends an
 * allocation) and reserved bytes from the segment entries, back from the
 * segments the snapshot holds.
 * That forward pass, with a map of open addresses, links each entry to
 * the allocation it ends (`ends`); the timeline then needs no map. Each
 * entry's snapshot names its traceback's site and its context (the open
 * annotations, compile context, stream), so that the rows at any moment
 * say where and in what it was made. The allocations live before the
 * first entry go to the profile as the allocator's initial allocations,
 * and the rows at the peak are left to the builder's finish: the live
 * set at the peak (model/query/live_set.h), the same at any moment.
 * Called by torch_snapshot.c. Calls torch_snapshot_initial.c, never the
 * other way. Must not: read the pickle. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/format.h"
#include "model/formats/torch_snapshot/torch_snapshot_internal.h"
#include "model/load_internal.h"
#include "model/profile_builder.h"
#include "model/util/saturating.h"
#include "model/segments.h"
#include "model/string_table.h"

/* Entries ahead of the timeline replay whose ended allocation it fetches. */
#define PREFETCH_DISTANCE 16

/* ---- each entry's context ---- */

/* Brings the annotations of this device open at `time_us` up to date (a
 * sweep: `time_us` never goes back between calls), counting changes. */
static void annotations_advance(struct device_replay *replay, int64_t time_us)
{
    const struct ts_load *load = replay->load;
    uint32_t *open = replay->open_annotations;
    for (; replay->annotation_next < load->annotation_count; replay->annotation_next++) {
        const struct ts_annotation *note = &load->annotations[replay->annotation_next];
        if (note->time_us > time_us)
            break;
        if (note->device != replay->device)
            continue;
        if (note->start && replay->open_annotation_count < 16) {
            open[replay->open_annotation_count++] = note->name;
            replay->annotation_changes++;
        } else if (!note->start) {
            for (size_t j = replay->open_annotation_count; j-- > 0;)
                if (open[j] == note->name) {
                    memmove(open + j, open + j + 1,
                            (replay->open_annotation_count - j - 1) * sizeof *open);
                    replay->open_annotation_count--;
                    replay->annotation_changes++;
                    break;
                }
        }
    }
}

/* The names of the open annotations, joined with " > ". */
static void annotations_join(const struct device_replay *replay, char *buffer, size_t size)
{
    size_t used = 0;
    buffer[0] = '\0';
    for (size_t j = 0; j < replay->open_annotation_count; j++) {
        struct text name = string_table_get(replay->load->strings, replay->open_annotations[j]);
        int n = snprintf(buffer + used, size - used, "%s%.*s", j ? " > " : "",
                         (int)name.length, name.bytes);
        if (n < 0 || (size_t)n >= size - used)
            break;
        used += (size_t)n;
    }
}

/* Entry i's context, what its row (and the chart's readout, "in ...")
 * shows: the annotations open then (the enclosing record_function
 * ranges, outermost first, " > " between), the entry's own (compile
 * context, metadata), the stream, "; " between; made only when the
 * contexts kept lately have none of these parts. */
static uint32_t entry_context(struct device_replay *replay, size_t i)
{
    struct ts_load *load = replay->load;
    const struct ts_entry *entry = &replay->entries[i];
    bool timed = !load->entries_without_time;
    if (timed)
        annotations_advance(replay, entry->time_us);
    uint64_t hash = ((uint64_t)entry->context * 0x9e3779b97f4a7c15u) ^ entry->stream;
    hash *= 0xbf58476d1ce4e5b9u;
    struct context_made *made = &replay->contexts[(hash >> 40) & (CONTEXTS_KEPT - 1)];
    if (made->changes == replay->annotation_changes + 1 && made->base == entry->context &&
        made->stream == entry->stream)
        return made->id;
    char text[1024];
    struct text base = string_table_get(load->strings, entry->context);
    text[0] = '\0';
    if (timed && replay->open_annotation_count > 0)
        annotations_join(replay, text, 512);
    size_t used = strlen(text);
    if (base.length && used < sizeof text)
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%.*s", used ? "; " : "",
                                 (int)base.length, base.bytes);
    if (entry->stream && used < sizeof text)
        used += (size_t)snprintf(text + used, sizeof text - used, "%sstream 0x%llx",
                                 used ? "; " : "", (unsigned long long)entry->stream);
    if (used >= sizeof text)
        used = sizeof text - 1;
    *made = (struct context_made){entry->stream, replay->annotation_changes + 1, entry->context,
                                  string_table_intern(load->strings, text, used)};
    return made->id;
}

/* ---- the replay ---- */

static int64_t entry_time_ps(const struct device_replay *replay, size_t index)
{
    const struct ts_load *load = replay->load;
    if (load->entries_without_time || !load->any_time)
        return (int64_t)index * 1000000; /* one entry a microsecond: said in a warning */
    int64_t since = saturating_subtract(replay->entries[index].time_us, load->earliest_time_us);
    return since > INT64_MAX / 1000000 ? INT64_MAX : since * 1000000;
}

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

/* The size of what `ends` names. */
static int64_t ended_size(const struct device_replay *replay, uint32_t value)
{
    return value & INITIAL_MARK ? replay->initial[value & ~INITIAL_MARK].size
                                : replay->entries[value].size;
}

static struct snapshot entry_snapshot(const struct device_replay *replay, size_t i,
                                      int64_t allocated, int64_t reserved, int64_t running_max,
                                      uint32_t context)
{
    const struct ts_entry *entry = &replay->entries[i];
    const struct ts_traceback *traceback =
        replay->load->tracebacks ? &replay->load->tracebacks[entry->traceback] : NULL;
    int64_t room = saturating_subtract(reserved, allocated);
    bool sized = entry->action != TS_OOM;
    return (struct snapshot){
        .time_ps = entry_time_ps(replay, i),
        .heap_bytes = allocated,
        .free_bytes = room > 0 ? room : 0,
        .peak_bytes_in_use = running_max,
        .activity = activity_of(entry->action),
        .requested_bytes = entry->size,
        .allocation_bytes = entry->size,
        .address = sized ? entry->address : 0,
        .step_id = -1,
        .op_name = traceback ? traceback->function : 0,
        .context = context,
        .site = traceback ? traceback->site : 0,
    };
}

/* An oom entry: the rounded request, CUDA's free memory, and the
 * allocator's own state then. */
static bool oom_record(struct device_replay *replay, size_t i, int64_t allocated,
                       int64_t reserved)
{
    const struct ts_entry *entry = &replay->entries[i];
    struct oom_event *ooms = realloc(replay->ooms, (replay->oom_count + 1) * sizeof *ooms);
    size_t *entries = ooms ? realloc(replay->oom_entries,
                                     (replay->oom_count + 1) * sizeof *entries)
                           : NULL;
    if (ooms)
        replay->ooms = ooms;
    if (!entries)
        return false;
    replay->oom_entries = entries;
    replay->oom_entries[replay->oom_count] = i;
    replay->ooms[replay->oom_count++] = (struct oom_event){
        .time_ps = entry_time_ps(replay, i),
        .requested_bytes = entry->size,
        .allocated_bytes = allocated,
        .reserved_bytes = reserved,
        .device_free_bytes = entry->address > INT64_MAX ? -1 : (int64_t)entry->address,
        .largest_free_bytes = -1,
        .op_name = replay->load->tracebacks ? replay->load->tracebacks[entry->traceback].function
                                            : 0,
    };
    return true;
}

/* The OOMs to the profile, each with the largest free block of the
 * segments at its entry (the first 16: a rewind each). */
static bool hand_over_ooms(struct device_replay *replay)
{
    const struct allocator *allocator =
        &replay->load->builder->profile->allocators[replay->allocator];
    bool ok = true;
    for (size_t k = 0; ok && k < replay->oom_count; k++) {
        struct segment_rows rows;
        if (k < 16 && segment_rows_at(allocator, replay->oom_entries[k], &rows)) {
            replay->ooms[k].largest_free_bytes = rows.total.largest_free_bytes;
            segment_rows_free(&rows);
        }
        ok = profile_builder_add_oom(replay->load->builder, replay->allocator, &replay->ooms[k]);
    }
    return ok;
}

/* The timeline, one snapshot per entry (entry i is snapshot i); the index
 * of the first snapshot at the largest allocated. */
static bool replay_timeline(struct device_replay *replay, size_t *peak)
{
    int64_t allocated = replay->initial_bytes, reserved = replay->reserved_start;
    int64_t running_max = allocated, best = INT64_MIN;
    struct snapshot_columns *timeline =
        profile_builder_timeline(replay->load->builder, replay->allocator);
    /* A new allocator's columns: the ones this format never fills (stack,
     * fragmentation, region, data type, shape) cost no memory. */
    size_t slots = replay->count ? replay->count : 1;
    bool sparse = timeline->capacity == 0;
    /* The site column only where some entry has frames. */
    bool ok = snapshot_columns_enable_context(timeline) &&
              (replay->load->traceback_count <= 1 || snapshot_columns_enable_site(timeline)) &&
              (sparse ? snapshot_columns_reserve_zeroed(timeline, slots)
                      : snapshot_columns_reserve(timeline, slots));
    *peak = 0;
    for (size_t i = 0; ok && i < replay->count; i++) {
        const struct ts_entry *entry = &replay->entries[i];
        /* The allocation an entry ends is anywhere before it: fetch its
         * size a few entries ahead, or the loop waits on memory. */
        uint32_t ahead = i + PREFETCH_DISTANCE < replay->count
                             ? replay->ends[i + PREFETCH_DISTANCE]
                             : NO_END;
        if (ahead != NO_END && !(ahead & INITIAL_MARK))
            __builtin_prefetch(&replay->entries[ahead].size);
        if (replay->ends[i] != NO_END)
            allocated = saturating_subtract(allocated, ended_size(replay, replay->ends[i]));
        if (entry->action == TS_ALLOC)
            allocated = saturating_add(allocated, entry->size);
        if (entry->action == TS_SEGMENT_ALLOC || entry->action == TS_SEGMENT_MAP)
            reserved = saturating_add(reserved, entry->size);
        else if (entry->action == TS_SEGMENT_FREE || entry->action == TS_SEGMENT_UNMAP)
            reserved = saturating_subtract(reserved, entry->size);
        if (allocated > running_max)
            running_max = allocated;
        if (allocated > best) {
            best = allocated;
            *peak = i;
        }
        if (entry->action == TS_OOM && ok)
            ok = oom_record(replay, i, allocated, reserved);
        uint32_t context = ok ? entry_context(replay, i) : STRING_ID_NONE;
        ok = ok && context != STRING_ID_NONE;
        struct snapshot snapshot =
            entry_snapshot(replay, i, allocated, reserved, running_max, context);
        if (sparse && ok)
            snapshot_columns_append_sparse(timeline, &snapshot);
        else
            ok = ok && profile_builder_append_snapshot(replay->load->builder,
                                                       replay->allocator, &snapshot);
    }
    if (ok && replay->count == 0) {
        /* No trace: the snapshot's state is the one point there is. */
        int64_t room = saturating_subtract(reserved, allocated);
        struct snapshot snapshot = {.heap_bytes = allocated, .free_bytes = room > 0 ? room : 0,
                                    .peak_bytes_in_use = allocated, .step_id = -1};
        ok = profile_builder_append_snapshot(replay->load->builder, replay->allocator, &snapshot);
    }
    return ok;
}

/* ---- the allocations live before the trace ---- */

/* They go to the profile, which starts every live set from them: the
 * table at the peak (made by the builder's finish), at the cursor, at a
 * span's peak, all from one definition (model/query/live_set.h). */
static bool hand_over_initial(struct device_replay *replay)
{
    struct ts_load *load = replay->load;
    uint32_t before = string_table_intern(load->strings, "<before the trace>", 18);
    struct allocation_row *rows =
        malloc((replay->initial_count ? replay->initial_count : 1) * sizeof *rows);
    bool ok = rows && before != STRING_ID_NONE;
    for (size_t k = 0; ok && k < replay->initial_count; k++) {
        const struct initial *initial = &replay->initial[k];
        struct ts_traceback traceback = {0};
        if (load->tracebacks)
            traceback = load->tracebacks[initial->traceback];
        rows[k] = (struct allocation_row){
            .allocation_bytes = initial->size,
            .requested_bytes = initial->size,
            .op_name = traceback.function ? traceback.function : before,
            .step_id = -1,
            .address = initial->address,
            .location = traceback.location,
            .location_file = traceback.location_file,
            .location_line = traceback.location_line,
            .stack = traceback.stack,
        };
    }
    ok = ok && profile_builder_set_initial_allocations(load->builder, replay->allocator, rows,
                                                       replay->initial_count);
    free(rows);
    if (ok)
        profile_builder_make_live_rows(load->builder, replay->allocator);
    return ok;
}

/* ---- the allocator ---- */

static void set_summary(struct device_replay *replay, size_t peak)
{
    const struct snapshot_columns *timeline =
        profile_builder_timeline(replay->load->builder, replay->allocator);
    struct allocator_summary summary = {.derived = true};
    if (timeline->count) {
        summary.peak = (struct memory_stats){
            .heap_bytes = timeline->heap_bytes[peak],
            .free_bytes = timeline->free_bytes[peak],
            .peak_bytes_in_use = timeline->peak_bytes_in_use[peak],
        };
        summary.peak_time_ps = timeline->time_ps[peak];
        summary.lifetime_peak_bytes = timeline->heap_bytes[peak];
    }
    summary.trace_start = (struct trace_start){
        .known = true,
        .entries = replay->count,
        .covered_ps = replay->count ? saturating_subtract(entry_time_ps(replay, replay->count - 1),
                                                          entry_time_ps(replay, 0))
                                    : 0,
        .times_are_entries = replay->load->entries_without_time || !replay->load->any_time,
        .live_bytes = replay->initial_bytes,
        .live_count = replay->initial_count,
    };
    profile_builder_set_summary(replay->load->builder, replay->allocator, &summary);
}

static bool warn_device(struct device_replay *replay, const char *name)
{
    struct ts_load *load = replay->load;
    char line[256];
    for (size_t i = 0; i < replay->count; i++) {
        const struct ts_entry *entry = &replay->entries[i];
        if (entry->action != TS_OOM)
            continue;
        char time[48], requested[32], free_bytes[32];
        format_milliseconds(entry_time_ps(replay, i), time, sizeof time);
        format_bytes(entry->size, requested, sizeof requested);
        format_bytes((int64_t)entry->address, free_bytes, sizeof free_bytes);
        snprintf(line, sizeof line,
                 "the trace records an out-of-memory error at %s (entry %zu) on %s: %s "
                 "requested, %s free on the device",
                 time, i, name, requested, free_bytes);
        if (!profile_builder_add_warning(load->builder, line))
            return false;
    }
    if (replay->not_in_snapshot) {
        snprintf(line, sizeof line,
                 "%s: %zu allocations the trace leaves live are not the snapshot's active "
                 "blocks (entries dropped with skip_actions?)",
                 name, replay->not_in_snapshot);
        if (!profile_builder_add_warning(load->builder, line))
            return false;
    }
    return true;
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

/* The device's segments and active blocks at the end, and what each
 * entry did to them, for the segments pane and export. */
static bool hand_over_segments(struct device_replay *replay)
{
    const struct ts_load *load = replay->load;
    struct segment_history *history = calloc(1, sizeof *history);
    size_t segments = 0, blocks = 0;
    for (size_t s = 0; s < load->segment_count; s++)
        if (load->segments[s].device == replay->device) {
            segments++;
            blocks += load->segments[s].block_count;
        }
    if (history) {
        history->segments = malloc((segments ? segments : 1) * sizeof *history->segments);
        history->blocks = malloc((blocks ? blocks : 1) * sizeof *history->blocks);
        history->actions = calloc(replay->count ? replay->count : 1, 1);
    }
    if (!history || !history->segments || !history->blocks || !history->actions) {
        segment_history_free(history);
        return false;
    }
    for (size_t s = 0; s < load->segment_count; s++) {
        const struct ts_segment *segment = &load->segments[s];
        if (segment->device != replay->device)
            continue;
        history->segments[history->segment_count++] = (struct segment_record){
            segment->address, segment->total_size, segment->stream, segment->private_pool,
            segment->expandable};
        for (size_t b = 0; b < segment->block_count; b++) {
            const struct ts_block *block = &load->blocks[segment->first_block + b];
            if (block->state != TS_BLOCK_INACTIVE)
                history->blocks[history->block_count++] = (struct segment_block){
                    block->address, block->size,
                    block->state == TS_BLOCK_PENDING_FREE ? SEGMENT_BLOCK_PENDING_FREE
                                                          : SEGMENT_BLOCK_ALLOCATED};
        }
    }
    for (size_t i = 0; i < replay->count; i++)
        history->actions[i] = segment_action_of(replay->entries[i].action);
    history->action_count = replay->count ? replay->count : 1;
    profile_builder_set_segments(load->builder, replay->allocator, history);
    return true;
}

enum load_status ts_build_device(struct ts_load *load, int64_t device,
                                 const struct ts_trace *trace)
{
    char name[32];
    snprintf(name, sizeof name, "cuda:%lld", (long long)device);
    struct device_replay replay = {
        .load = load,
        .device = device,
        .entries = trace ? trace->entries : NULL,
        .count = trace ? trace->count : 0,
    };
    if (replay.count >= INITIAL_MARK)
        return ts_bad(load, "%s has %zu trace entries, more than memtop reads", name,
                      replay.count);
    bool created;
    size_t peak = 0;
    bool ok = profile_builder_allocator(load->builder, name, strlen(name), &replay.allocator,
                                        &created) &&
              ts_find_initial(&replay);
    if (ok) {
        ts_find_reserved_start(&replay);
        profile_builder_set_unknown_fields(
            load->builder, replay.allocator,
            ALLOCATOR_FIELD_STACK | ALLOCATOR_FIELD_FRAGMENTATION | ALLOCATOR_FIELD_CAPACITY |
                ALLOCATOR_FIELD_REGION | ALLOCATOR_FIELD_DATA_TYPE |
                ALLOCATOR_FIELD_TENSOR_SHAPE);
        profile_builder_set_caching(load->builder, replay.allocator);
        ok = replay_timeline(&replay, &peak) && hand_over_initial(&replay) &&
             hand_over_segments(&replay) && hand_over_ooms(&replay) &&
             warn_device(&replay, name);
    }
    if (ok)
        set_summary(&replay, peak);
    free(replay.initial);
    free(replay.ends);
    free(replay.ooms);
    free(replay.oom_entries);
    return ok ? LOAD_OK : ts_no_memory(load);
}
