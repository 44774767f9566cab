/* torch_snapshot_replay: one device's allocator from its trace and its
 * segments (see torch_snapshot_internal.h), by the spec's section 5. The
 * trace was replayed as its entries came (torch_snapshot_trace.c), with
 * allocated and reserved relative to what was live and reserved before
 * the first entry; once torch_snapshot_initial.c has found that (the
 * frees of allocations the trace does not hold, the active blocks it
 * never allocated, the segments), one pass over the columns adds it and
 * turns time_us into time. memory_viz's counting throughout: requested
 * bytes, only free_completed ends an allocation. The rows are what was
 * live at the peak: the trace again up to there, by address.
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
#include "model/util/index_sort.h"
#include "model/util/saturating.h"
#include "model/segments.h"
#include "model/string_table.h"

/* ---- the timeline ---- */

/* A time_us as the timeline's time: since the earliest entry of any
 * device, or the entry index when the file has no times. */
static int64_t time_ps_of(const struct ts_load *load, size_t index, int64_t time_us)
{
    if (load->entries_without_time || !load->any_time)
        return (int64_t)index * 1000000; /* one entry a microsecond: said in a warning */
    int64_t since = saturating_subtract(time_us, load->earliest_time_us);
    return since > INT64_MAX / 1000000 ? INT64_MAX : since * 1000000;
}

/* The trace's columns as the device's timeline: what was live and
 * reserved before the first entry added, times made relative; false when
 * memory runs out. */
static bool finish_timeline(const struct device_replay *replay, struct snapshot_columns *timeline)
{
    const struct ts_load *load = replay->load;
    int64_t initial = replay->initial_bytes;
    for (size_t i = 0; i < timeline->count; i++) {
        timeline->time_ps[i] = time_ps_of(load, i, timeline->time_ps[i]);
        timeline->heap_bytes[i] = saturating_add(timeline->heap_bytes[i], initial);
    }
    for (size_t k = 0; k < timeline->reserved_change_count; k++)
        timeline->reserved_changes[k].reserved =
            saturating_add(timeline->reserved_changes[k].reserved, replay->reserved_start);
    return snapshot_columns_mark_peaks(timeline, initial);
}

/* A copy of a trace's columns, for a trace two devices share. */
static bool copy_columns(const struct snapshot_columns *from, struct snapshot_columns *to)
{
    return snapshot_columns_copy(from, to);
}

/* The device's timeline to the profile: the trace's columns (or a copy),
 * finished; a device without entries gets the snapshot's state as its
 * one point. */
static bool hand_over_timeline(struct device_replay *replay, struct ts_trace *trace,
                               bool last_use)
{
    struct profile_builder *builder = replay->load->builder;
    if (replay->count == 0) {
        int64_t room = saturating_subtract(replay->reserved_start, replay->initial_bytes);
        struct snapshot snapshot = {.heap_bytes = replay->initial_bytes,
                                    .free_bytes = room > 0 ? room : 0,
                                    .peak_bytes_in_use = replay->initial_bytes,
                                    .step_id = -1};
        return profile_builder_append_snapshot(builder, replay->allocator, &snapshot);
    }
    struct snapshot_columns columns;
    if (last_use) {
        columns = trace->columns;
        trace->columns = (struct snapshot_columns){0};
    } else if (!copy_columns(&trace->columns, &columns)) {
        snapshot_columns_free(&columns);
        return false;
    }
    if (!finish_timeline(replay, &columns)) {
        snapshot_columns_free(&columns);
        return false;
    }
    profile_builder_set_timeline(builder, replay->allocator, &columns);
    return true;
}

/* The trace's OOMs to the profile, each with the largest free block of
 * the segments at its entry (the first 16: a rewind each). */
static bool hand_over_ooms(struct device_replay *replay)
{
    const struct ts_load *load = replay->load;
    const struct ts_trace *trace = replay->trace;
    const struct allocator *allocator = &load->builder->profile->allocators[replay->allocator];
    bool ok = true;
    for (size_t k = 0; ok && trace && k < trace->oom_count; k++) {
        const struct ts_oom *oom = &trace->ooms[k];
        struct oom_event event = {
            .time_ps = allocator->timeline.time_ps[oom->entry],
            .requested_bytes = oom->requested,
            .allocated_bytes = saturating_add(oom->allocated, replay->initial_bytes),
            .reserved_bytes = saturating_add(oom->reserved, replay->reserved_start),
            .device_free_bytes = oom->device_free > INT64_MAX ? -1 : (int64_t)oom->device_free,
            .largest_free_bytes = -1,
            .op_name = allocator->timeline.op_name[oom->entry],
        };
        struct segment_rows rows;
        if (k < 16 && segment_rows_at(allocator, oom->entry, &rows)) {
            event.largest_free_bytes = rows.total.largest_free_bytes;
            segment_rows_free(&rows);
        }
        ok = profile_builder_add_oom(load->builder, replay->allocator, &event);
    }
    return ok;
}

/* ---- the rows at the peak ---- */

/* The names of the annotations of this device open at `time_us`,
 * joined; a sweep, so `time_us` never goes back between calls. */
static bool annotations_at(struct device_replay *replay, int64_t time_us, char *buffer,
                           size_t size)
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
        } else if (!note->start) {
            for (size_t j = replay->open_annotation_count; j-- > 0;)
                if (open[j] == note->name) {
                    memmove(open + j, open + j + 1,
                            (replay->open_annotation_count - j - 1) * sizeof *open);
                    replay->open_annotation_count--;
                    break;
                }
        }
    }
    size_t used = 0;
    buffer[0] = '\0';
    for (size_t j = 0; j < replay->open_annotation_count; j++) {
        struct text name = string_table_get(load->strings, open[j]);
        int n = snprintf(buffer + used, size - used, "%s%.*s", j ? " > " : "",
                         (int)name.length, name.bytes);
        if (n < 0 || (size_t)n >= size - used)
            break;
        used += (size_t)n;
    }
    return replay->open_annotation_count > 0;
}

/* The row's context: the entry's (compile context, metadata), the stream,
 * the annotations open when it was allocated (NULL: an allocation from
 * before the trace). */
static uint32_t row_context(struct device_replay *replay, const struct ts_open *allocation)
{
    struct ts_load *load = replay->load;
    /* An allocation of the trace: the device has one. */
    const struct snapshot_columns *columns = allocation ? &replay->trace->columns : NULL;
    size_t entry = allocation ? allocation->entry : 0;
    uint64_t stream = allocation ? allocation->stream : 0;
    char annotations[512], text[1024];
    struct text base = string_table_get(load->strings, allocation ? columns->context[entry] : 0);
    size_t used = 0;
    if (base.length)
        used = (size_t)snprintf(text, sizeof text, "%.*s", (int)base.length, base.bytes);
    if (stream && used < sizeof text)
        used += (size_t)snprintf(text + used, sizeof text - used, "%sstream 0x%llx",
                                 used ? "; " : "", (unsigned long long)stream);
    /* time_ps holds the entry's time_us until the timeline is finished. */
    if (allocation && !load->entries_without_time &&
        annotations_at(replay, columns->time_ps[entry], annotations, sizeof annotations) &&
        used < sizeof text)
        used += (size_t)snprintf(text + used, sizeof text - used, "%sin %s", used ? "; " : "",
                                 annotations);
    if (used >= sizeof text)
        used = sizeof text - 1;
    return string_table_intern(load->strings, text, used);
}

/* The device's active blocks (allocated or pending free) by address
 * (index in load->blocks + 1): the segments know each block's rounded
 * size. False when memory runs out. */
static bool blocks_by_address(const struct device_replay *replay, struct integer_map *map)
{
    const struct ts_load *load = replay->load;
    for (size_t s = 0; s < load->segment_count; s++) {
        const struct ts_segment *segment = &load->segments[s];
        if (segment->device != replay->device)
            continue;
        for (size_t b = segment->first_block; b < segment->first_block + segment->block_count; b++)
            if (load->blocks[b].state != TS_BLOCK_INACTIVE && b < UINT32_MAX &&
                !integer_map_put(map, load->blocks[b].address, (uint32_t)b + 1))
                return false;
    }
    return true;
}

/* The rounded block of an allocation still active when the snapshot was
 * taken (its block holds the same request at the same address); 0 when
 * the snapshot does not say. */
static int64_t block_bytes_of(const struct device_replay *replay, const struct integer_map *blocks,
                              uint64_t address, int64_t requested)
{
    const uint32_t *found = integer_map_find(blocks, address);
    if (!found)
        return 0;
    const struct ts_block *block = &replay->load->blocks[*found - 1];
    return block->requested == requested ? block->size : 0;
}

/* Whether a trace allocation live at the peak is still open at the end
 * (an allocation ended after the peak may share its address with a later
 * one: only the one still open has the snapshot's block). */
static bool still_open(const struct ts_trace *trace, const struct ts_open *allocation,
                       uint64_t address)
{
    const uint32_t *slot = integer_map_find(&trace->open, address);
    return slot && ts_trace_opened(trace, *slot)->entry == allocation->entry;
}

/* The row of an allocation of the trace (`allocation`) or of initial
 * allocation k (`allocation` NULL). */
static bool add_row(struct device_replay *replay, const struct ts_open *allocation, size_t k,
                    uint32_t before_name, const struct integer_map *blocks,
                    struct allocation_row *rows, size_t *count)
{
    struct ts_load *load = replay->load;
    const struct snapshot_columns *columns = allocation ? &replay->trace->columns : NULL;
    const struct initial *initial = allocation ? NULL : &replay->initial[k];
    size_t entry = allocation ? allocation->entry : 0;
    struct ts_traceback traceback = {0};
    if (load->tracebacks)
        traceback = load->tracebacks[allocation ? allocation->traceback : initial->traceback];
    int64_t size = allocation ? allocation->size : initial->size;
    struct allocation_row row = {
        .origin = allocation ? ROW_FROM_SNAPSHOT : ROW_FROM_SPECIAL,
        .snapshot_index = allocation ? (int64_t)entry : -1,
        .special_index = allocation ? -1 : (int64_t)k,
        .occurrences = 1,
        .allocation_bytes = size,
        .requested_bytes = size,
        .op_name = traceback.function ? traceback.function : before_name,
        .step_id = -1,
        .address = allocation ? columns->address[entry] : initial->address,
        .activity = MEMORY_ACTIVITY_ALLOCATION,
        .has_time = allocation != NULL,
        .time_ps = allocation ? time_ps_of(load, entry, columns->time_ps[entry]) : 0,
        .location = traceback.location,
        .location_file = traceback.location_file,
        .location_line = traceback.location_line,
        .stack = traceback.stack,
        .context = row_context(replay, allocation),
    };
    /* A ghost (k at or past the unmatched frees) is one of the snapshot's
     * active blocks; an unmatched free's allocation ended in the trace. */
    size_t unmatched = replay->trace ? replay->trace->unmatched_count : 0;
    if (allocation ? still_open(replay->trace, allocation, row.address) : k >= unmatched)
        row.block_bytes = block_bytes_of(replay, blocks, row.address, size);
    rows[(*count)++] = row;
    return row.context != STRING_ID_NONE;
}

/* Larger first (as every format's table opens), then older first. */
static int row_order(const void *a, const void *b)
{
    const struct allocation_row *x = a, *y = b;
    if (x->allocation_bytes != y->allocation_bytes)
        return x->allocation_bytes < y->allocation_bytes ? 1 : -1;
    if (x->has_time != y->has_time)
        return x->has_time ? 1 : -1;
    return (x->time_ps > y->time_ps) - (x->time_ps < y->time_ps);
}

static bool row_before(const void *context, size_t a, size_t b)
{
    const struct allocation_row *rows = context;
    return row_order(&rows[a], &rows[b]) < 0;
}

static int compare_entries(const void *a, const void *b)
{
    uint32_t x = ((const struct ts_open *)a)->entry, y = ((const struct ts_open *)b)->entry;
    return (x > y) - (x < y);
}

/* The allocations of the trace live at the peak, in entry order: those
 * opened by then and still open at the end, and those the first replay
 * saw end after it. NULL when memory runs out. */
static struct ts_open *live_at(const struct device_replay *replay, size_t peak, size_t *live)
{
    const struct ts_trace *trace = replay->trace;
    size_t most = trace->open.count + trace->ended_after_peak_count;
    struct ts_open *allocations = malloc((most ? most : 1) * sizeof *allocations);
    *live = 0;
    for (size_t slot = 0; allocations && slot < trace->open.capacity; slot++) {
        if (!trace->open.slots[slot].used)
            continue;
        const struct ts_open *open = ts_trace_opened(trace, trace->open.slots[slot].value);
        if (open->entry <= peak)
            allocations[(*live)++] = *open;
    }
    for (size_t k = 0; allocations && k < trace->ended_after_peak_count; k++)
        allocations[(*live)++] = trace->ended_after_peak[k];
    if (allocations)
        qsort(allocations, *live, sizeof *allocations, compare_entries);
    return allocations;
}

static bool replay_rows(struct device_replay *replay, size_t peak)
{
    size_t live_entries = 0;
    struct ts_open *entries = replay->count ? live_at(replay, peak, &live_entries) : NULL;
    bool ok = !replay->count || entries;
    /* The frees of allocations the trace does not hold come first among
     * the initial ones: each ends its allocation at its entry. */
    size_t unmatched = replay->trace ? replay->trace->unmatched_count : 0;
    size_t live = live_entries;
    for (size_t k = 0; k < replay->initial_count; k++)
        live += k >= unmatched || replay->trace->unmatched[k].entry > peak;
    uint32_t before = string_table_intern(replay->load->strings, "<before the trace>", 18);
    struct allocation_row *rows = ok ? malloc((live ? live : 1) * sizeof *rows) : NULL;
    size_t count = 0;
    struct integer_map blocks = {0};
    ok = ok && rows && before != STRING_ID_NONE && blocks_by_address(replay, &blocks);
    for (size_t k = 0; ok && k < replay->initial_count; k++)
        if (k >= unmatched || replay->trace->unmatched[k].entry > peak)
            ok = add_row(replay, NULL, k, before, &blocks, rows, &count);
    /* In entry order: the annotations are swept once. */
    for (size_t i = 0; ok && i < live_entries; i++)
        ok = add_row(replay, &entries[i], 0, before, &blocks, rows, &count);
    integer_map_free(&blocks);
    free(entries);
    /* Sorted by index, not in place: qsort would take a second copy of the
     * rows (hundreds of thousands of them at a big snapshot's peak). */
    size_t *order = ok ? malloc((count ? count : 1) * sizeof *order) : NULL;
    size_t *scratch = order ? malloc((count ? count : 1) * sizeof *scratch) : NULL;
    ok = ok && scratch;
    if (ok) {
        for (size_t i = 0; i < count; i++)
            order[i] = i;
        index_sort_stable(order, scratch, count, row_before, rows);
    }
    free(scratch);
    ok = ok && profile_builder_reserve_rows(replay->load->builder, replay->allocator, count);
    for (size_t i = 0; ok && i < count; i++)
        ok = profile_builder_add_row(replay->load->builder, replay->allocator, &rows[order[i]]);
    free(order);
    free(rows);
    if (ok)
        profile_builder_set_live_rows(replay->load->builder, replay->allocator, live);
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
            .free_bytes = snapshot_columns_free_bytes(timeline, peak),
            .peak_bytes_in_use = snapshot_columns_peak_bytes_in_use(timeline, peak),
        };
        summary.peak_time_ps = timeline->time_ps[peak];
        summary.lifetime_peak_bytes = timeline->heap_bytes[peak];
    }
    summary.trace_start = (struct trace_start){
        .known = true,
        .entries = replay->count,
        .covered_ps = replay->count ? saturating_subtract(timeline->time_ps[replay->count - 1],
                                                          timeline->time_ps[0])
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
    const struct snapshot_columns *timeline =
        profile_builder_timeline(load->builder, replay->allocator);
    char line[256];
    for (size_t k = 0; replay->trace && k < replay->trace->oom_count; k++) {
        const struct ts_oom *oom = &replay->trace->ooms[k];
        char time[48], requested[32], free_bytes[32];
        format_milliseconds(timeline->time_ps[oom->entry], time, sizeof time);
        format_bytes(oom->requested, requested, sizeof requested);
        format_bytes((int64_t)oom->device_free, free_bytes, sizeof free_bytes);
        snprintf(line, sizeof line,
                 "the trace records an out-of-memory error at %s (entry %zu) on %s: %s "
                 "requested, %s free on the device",
                 time, oom->entry, name, requested, free_bytes);
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

/* The device's segments and active blocks at the end, and what each
 * entry did to them, for the segments pane and export. */
static bool hand_over_segments(struct device_replay *replay, struct ts_trace *trace,
                               bool last_use)
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
        if (replay->count && last_use) {
            history->actions = trace->actions;
            trace->actions = NULL;
        } else {
            history->actions = calloc(replay->count ? replay->count : 1, 1);
            if (history->actions && replay->count)
                memcpy(history->actions, trace->actions, replay->count);
        }
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
    history->action_count = replay->count ? replay->count : 1;
    profile_builder_set_segments(load->builder, replay->allocator, history);
    return true;
}

enum load_status ts_build_device(struct ts_load *load, int64_t device, struct ts_trace *trace,
                                 bool last_use)
{
    char name[32];
    snprintf(name, sizeof name, "cuda:%lld", (long long)device);
    struct device_replay replay = {
        .load = load,
        .device = device,
        .trace = trace && trace->count ? trace : NULL,
        .count = trace ? trace->count : 0,
    };
    bool created;
    size_t peak = replay.trace ? trace->peak : 0;
    bool ok = profile_builder_allocator(load->builder, name, strlen(name), &replay.allocator,
                                        &created) &&
              ts_find_initial(&replay);
    if (ok) {
        profile_builder_set_unknown_fields(
            load->builder, replay.allocator,
            ALLOCATOR_FIELD_STACK | ALLOCATOR_FIELD_FRAGMENTATION | ALLOCATOR_FIELD_CAPACITY |
                ALLOCATOR_FIELD_REGION | ALLOCATOR_FIELD_DATA_TYPE |
                ALLOCATOR_FIELD_TENSOR_SHAPE);
        profile_builder_set_caching(load->builder, replay.allocator);
        /* The rows first: they read the trace's times as the file has them. */
        ok = replay_rows(&replay, peak) && hand_over_timeline(&replay, trace, last_use) &&
             hand_over_segments(&replay, trace, last_use) && hand_over_ooms(&replay) &&
             warn_device(&replay, name);
    }
    if (ok)
        set_summary(&replay, peak);
    free(replay.initial);
    return ok ? LOAD_OK : ts_no_memory(load);
}
