/* oom_log_build: one report of an OOM log into the profile builder: one
 * allocator without a timeline, its rows (XLA's peak buffers, the BFC's
 * in-use chunks by size), its notes (the report's own summary lines), its
 * memory map (the BFC's chunk walk), its summary and its one OOM. */
#include "config.h"

#include "model/formats/oom_log/oom_log_internal.h"

#include <string.h>

#include "model/util/saturating.h"

/* The allocator's name: the report's, else what it is. */
static bool build_allocator(const struct oom_log_report *report, struct profile_builder *builder,
                            size_t *index)
{
    struct text name = report->allocator
                           ? string_table_get(profile_builder_strings(builder), report->allocator)
                           : text_of(report->kind == OOM_LOG_XLA ? "XLA" : "device");
    bool created;
    return profile_builder_allocator(builder, name.bytes, name.length, index, &created);
}

static bool build_buffers(const struct oom_log_report *report, struct profile_builder *builder,
                          size_t index, int64_t *sum)
{
    bool ok = profile_builder_reserve_rows(builder, index, report->buffer_count);
    for (size_t i = 0; ok && i < report->buffer_count; i++) {
        const struct oom_log_buffer *buffer = &report->buffers[i];
        struct allocation_row row = {
            .origin = ROW_FROM_ENTRY,
            .snapshot_index = -1,
            .special_index = -1,
            .occurrences = 1,
            .allocation_bytes = buffer->bytes,
            .requested_bytes = buffer->bytes,
            .op_name = buffer->op_name,
            .data_type = buffer->data_type,
            .tensor_shape = buffer->shape,
            .step_id = -1,
            .activity = MEMORY_ACTIVITY_ALLOCATION,
            .kind = buffer->label,
            .location = buffer->location,
            .location_file = buffer->location_file,
            .location_line = buffer->location_line,
            .stack = buffer->location,
        };
        *sum = saturating_add(*sum, buffer->bytes);
        ok = profile_builder_add_row(builder, index, &row);
    }
    return ok;
}

/* The in-use chunks by size; from the walk when the summary lines are
 * missing. */
static bool build_chunks(const struct oom_log_report *report, struct profile_builder *builder,
                         size_t index, int64_t *sum)
{
    struct string_table *strings = profile_builder_strings(builder);
    uint32_t name = string_table_intern(strings, "in-use chunks", 13);
    if (name == STRING_ID_NONE)
        return false;
    bool ok = true;
    /* The dump lists them smallest first: the rows go largest first. */
    for (size_t i = 0; ok && i < report->chunks_count; i++) {
        const struct oom_log_chunks *chunks = &report->chunks[report->chunks_count - 1 - i];
        struct allocation_row row = {
            .origin = ROW_FROM_ENTRY,
            .snapshot_index = -1,
            .special_index = -1,
            .occurrences = chunks->count,
            .allocation_bytes = chunks->bytes,
            .requested_bytes = chunks->bytes,
            .op_name = name,
            .step_id = -1,
            .activity = MEMORY_ACTIVITY_ALLOCATION,
        };
        int64_t total = chunks->bytes > 0 && chunks->count > INT64_MAX / chunks->bytes
                            ? INT64_MAX
                            : chunks->count * chunks->bytes;
        *sum = saturating_add(*sum, total);
        ok = profile_builder_add_row(builder, index, &row);
    }
    return ok;
}

static bool build_notes_and_map(const struct oom_log_report *report,
                                struct profile_builder *builder, size_t index)
{
    bool ok = true;
    for (size_t i = 0; ok && i < report->note_count; i++) {
        struct allocator_note note = {report->notes[i].label, report->notes[i].value};
        ok = profile_builder_add_note(builder, index, &note);
    }
    for (size_t i = 0; ok && i < report->walk_count; i++) {
        struct memory_block block = {report->walk[i].bytes, report->walk[i].in_use};
        ok = profile_builder_add_memory_block(builder, index, &block);
    }
    return ok;
}

bool oom_log_build(const struct oom_log_report *report, struct profile_builder *builder)
{
    size_t index;
    if (!build_allocator(report, builder, &index))
        return false;
    int64_t sum = 0;
    if (!build_buffers(report, builder, index, &sum) ||
        !build_chunks(report, builder, index, &sum) ||
        !build_notes_and_map(report, builder, index))
        return false;
    profile_builder_set_timeline_kind(builder, index, TIMELINE_NONE);
    unsigned unknown = ALLOCATOR_FIELD_STACK | ALLOCATOR_FIELD_FREE |
                       ALLOCATOR_FIELD_FRAGMENTATION | ALLOCATOR_FIELD_REGION;
    if (report->capacity <= 0)
        unknown |= ALLOCATOR_FIELD_CAPACITY;
    if (report->kind != OOM_LOG_XLA)
        unknown |= ALLOCATOR_FIELD_DATA_TYPE | ALLOCATOR_FIELD_TENSOR_SHAPE;
    profile_builder_set_unknown_fields(builder, index, unknown);
    /* The peak: what the allocator held at the OOM (XLA: the plan's
     * total allocation), else the rows' sum. */
    int64_t peak = report->kind == OOM_LOG_XLA ? report->total : report->allocated;
    if (peak < 0)
        peak = sum;
    struct allocator_summary summary = {
        .capacity_bytes = report->capacity > 0 ? report->capacity : 0,
        .lifetime_peak_bytes = report->lifetime_peak >= 0 ? report->lifetime_peak : peak,
        .peak = {.heap_bytes = peak},
    };
    profile_builder_set_summary(builder, index, &summary);
    struct oom_event oom = {
        .time_ps = 0,
        .requested_bytes = report->requested,
        .allocated_bytes = report->allocated,
        .reserved_bytes = report->reserved,
        .device_free_bytes = report->device_free,
        .largest_free_bytes = report->largest_free,
        .op_name = report->op,
    };
    return profile_builder_add_oom(builder, index, &oom);
}
