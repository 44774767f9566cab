/* torch_snapshot_replay: one device's allocator from its trace and its
 * segments (see torch_snapshot_internal.h), by the spec's section 5. The
 * trace was replayed as its entries came (torch_snapshot_trace.c), with
 * allocated and reserved relative to what was live and reserved before
 * the first entry; once torch_snapshot_initial.c has found that (the
 * frees of allocations the trace does not hold, the active blocks it
 * never allocated, the segments), one pass over the columns adds it and
 * turns time_us into time, and each entry's context gets the annotations
 * open then and its stream (torch_snapshot_contexts.c). memory_viz's
 * counting throughout: requested bytes, only
 * free_completed ends an allocation. The allocations live before the
 * first entry go to the profile as the allocator's initial allocations,
 * and the rows at the peak are left to the builder's finish: the live set
 * at the peak (model/query/live_set.h), the same at any moment.
 * Called by torch_snapshot.c. Calls torch_snapshot_initial.c and
 * torch_snapshot_contexts.c, never the other way. Must not: read the pickle. */
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

/* ---- the timeline ---- */

/* The trace's columns as the device's timeline: what was live and
 * reserved before the first entry added, the times (time_us, 4 bytes
 * each: SNAPSHOT_NARROW_TIME) as picoseconds since the earliest entry of
 * any device, or the entry index when the file has no times (one entry a
 * microsecond: said in a warning); false when memory runs out. */
static bool finish_timeline(const struct device_replay *replay, struct snapshot_columns *timeline)
{
    const struct ts_load *load = replay->load;
    bool timed = !load->entries_without_time && load->any_time;
    if (!(timed ? snapshot_columns_scale_times(timeline, load->earliest_time_us, 1000000)
                : snapshot_columns_count_times(timeline, 1000000)))
        return false;
    int64_t initial = replay->initial_bytes;
    for (size_t i = 0; i < timeline->count; i++)
        timeline->heap_bytes[i] = saturating_add(timeline->heap_bytes[i], initial);
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
    /* Nothing appends to it now: its maps of keys and its room go before
     * the contexts are written and the next device is made (the peak). */
    snapshot_columns_fit(&columns);
    /* The contexts, written in runs (a tenth of the column's room). */
    if (!ts_finish_contexts(replay, &columns) || !finish_timeline(replay, &columns)) {
        snapshot_columns_free(&columns);
        return false;
    }
    if (last_use) { /* the streams were for the contexts */
        free(trace->streams);
        trace->streams = NULL;
        trace->stream_count = trace->stream_capacity = 0;
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
            .time_ps = snapshot_columns_time(&allocator->timeline, oom->entry),
            .requested_bytes = oom->requested,
            .allocated_bytes = saturating_add(oom->allocated, replay->initial_bytes),
            .reserved_bytes = saturating_add(oom->reserved, replay->reserved_start),
            .device_free_bytes = oom->device_free > INT64_MAX ? -1 : (int64_t)oom->device_free,
            .largest_free_bytes = -1,
            .op_name = snapshot_columns_op_name(&allocator->timeline, oom->entry),
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

/* ---- the allocations live before the trace, and the blocks ---- */

/* The rounded block of an allocation still active when the snapshot was
 * taken (its block holds the same request at the same address); 0 when
 * the snapshot does not say. */
static int64_t block_bytes_of(const struct device_replay *replay, uint64_t address,
                              int64_t requested)
{
    const uint32_t *found = integer_map_find(&replay->active, address);
    if (!found)
        return 0;
    const struct ts_block *block = &replay->load->blocks[*found];
    return block->requested == requested ? block->size : 0;
}

/* The blocks of the trace's allocations still open at the end (only
 * those the snapshot's segments hold: ts_find_initial found them), for
 * their rows at any moment. */
static bool hand_over_blocks(struct device_replay *replay)
{
    return !replay->trace ||
           profile_builder_set_allocation_blocks(replay->load->builder, replay->allocator,
                                                 replay->held, replay->held_count);
}

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
    /* A ghost (at or past the unmatched frees) is one of the snapshot's
     * active blocks; an unmatched free's allocation ended in the trace. */
    size_t unmatched = replay->trace ? replay->trace->unmatched_count : 0;
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
            .block_bytes = k >= unmatched
                               ? block_bytes_of(replay, initial->address, initial->size)
                               : 0,
        };
    }
    ok = ok && profile_builder_set_initial_allocations(load->builder, replay->allocator, rows,
                                                       replay->initial_count) &&
         hand_over_blocks(replay);
    free(rows);
    if (ok)
        profile_builder_make_live_rows(load->builder, replay->allocator);
    return ok;
}

/* What the trace's replay found live at the peak, handed to the builder
 * with the rows asked of it: the table at the peak then needs no second
 * replay of every address (where the replay did not keep it, the
 * builder's finish replays). */
static void hint_peak_live(struct device_replay *replay)
{
    const struct ts_load *load = replay->load;
    size_t end, count;
    uint32_t *live;
    if (replay->trace &&
        ts_trace_peak_live(replay->trace, load->entries_without_time || !load->any_time, &end,
                           &live, &count))
        profile_builder_hint_peak_live(load->builder, replay->allocator, end, live, count);
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
        summary.peak_time_ps = snapshot_columns_time(timeline, peak);
        summary.lifetime_peak_bytes = timeline->heap_bytes[peak];
    }
    summary.trace_start = (struct trace_start){
        .known = true,
        .entries = replay->count,
        .covered_ps = replay->count
                          ? saturating_subtract(snapshot_columns_time(timeline, replay->count - 1),
                                                snapshot_columns_time(timeline, 0))
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
        format_milliseconds(snapshot_columns_time(timeline, oom->entry), time, sizeof time);
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
        ok = hand_over_initial(&replay);
        if (ok)
            hint_peak_live(&replay);
        if (ok && trace && last_use)
            ts_trace_drop_open(trace);
        ok = ok && hand_over_timeline(&replay, trace, last_use) &&
             hand_over_segments(&replay, trace, last_use) && hand_over_ooms(&replay) &&
             warn_device(&replay, name);
    }
    if (ok)
        set_summary(&replay, peak);
    free(replay.initial);
    free(replay.held);
    integer_map_free(&replay.active);
    return ok ? LOAD_OK : ts_no_memory(load);
}
