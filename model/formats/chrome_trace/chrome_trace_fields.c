#include "config.h"

#include "model/formats/chrome_trace/chrome_trace_fields.h"

#include <stddef.h>
#include <string.h>

#include "model/profile.h"

#define FIELD(type, name, kind, member) {name, CHROME_TRACE_##kind, offsetof(type, member)}
#define TABLE(array) {array, sizeof array / sizeof *array}

static const struct chrome_trace_field snapshot_fields[] = {
    FIELD(struct snapshot, "time_ps", INT64, time_ps),
    FIELD(struct snapshot, "heap_bytes", INT64, heap_bytes),
    FIELD(struct snapshot, "stack_bytes", INT64, stack_bytes),
    FIELD(struct snapshot, "free_bytes", INT64, free_bytes),
    FIELD(struct snapshot, "fragmentation", DOUBLE, fragmentation),
    FIELD(struct snapshot, "peak_bytes_in_use", INT64, peak_bytes_in_use),
    FIELD(struct snapshot, "activity", INT, activity),
    FIELD(struct snapshot, "requested_bytes", INT64, requested_bytes),
    FIELD(struct snapshot, "allocation_bytes", INT64, allocation_bytes),
    FIELD(struct snapshot, "address", UINT64, address),
    FIELD(struct snapshot, "step_id", INT64, step_id),
    FIELD(struct snapshot, "op_name", STRING, op_name),
    FIELD(struct snapshot, "region_type", STRING, region_type),
    FIELD(struct snapshot, "data_type", STRING, data_type),
    FIELD(struct snapshot, "tensor_shape", STRING, tensor_shape),
    FIELD(struct snapshot, "context", STRING, context),
};
const struct chrome_trace_fields chrome_trace_snapshot_fields = TABLE(snapshot_fields);

static const struct chrome_trace_field row_fields[] = {
    FIELD(struct allocation_row, "snapshot_index", INT64, snapshot_index),
    FIELD(struct allocation_row, "special_index", INT64, special_index),
    FIELD(struct allocation_row, "occurrences", INT64, occurrences),
    FIELD(struct allocation_row, "allocation_bytes", INT64, allocation_bytes),
    FIELD(struct allocation_row, "requested_bytes", INT64, requested_bytes),
    FIELD(struct allocation_row, "op_name", STRING, op_name),
    FIELD(struct allocation_row, "region_type", STRING, region_type),
    FIELD(struct allocation_row, "data_type", STRING, data_type),
    FIELD(struct allocation_row, "tensor_shape", STRING, tensor_shape),
    FIELD(struct allocation_row, "step_id", INT64, step_id),
    FIELD(struct allocation_row, "address", UINT64, address),
    FIELD(struct allocation_row, "activity", INT, activity),
    FIELD(struct allocation_row, "has_time", BOOL, has_time),
    FIELD(struct allocation_row, "time_ps", INT64, time_ps),
    FIELD(struct allocation_row, "context", STRING, context),
    FIELD(struct allocation_row, "kind", STRING, kind),
    FIELD(struct allocation_row, "module", STRING, module),
    FIELD(struct allocation_row, "location", STRING, location),
    FIELD(struct allocation_row, "location_file", STRING, location_file),
    FIELD(struct allocation_row, "location_line", INT64, location_line),
    FIELD(struct allocation_row, "stack", STACK, stack),
};
const struct chrome_trace_fields chrome_trace_row_fields = TABLE(row_fields);

static const struct chrome_trace_field summary_fields[] = {
    FIELD(struct allocator_summary, "capacity_bytes", INT64, capacity_bytes),
    FIELD(struct allocator_summary, "lifetime_peak_bytes", INT64, lifetime_peak_bytes),
    FIELD(struct allocator_summary, "peak_time_ps", INT64, peak_time_ps),
    FIELD(struct allocator_summary, "peak_stack_bytes", INT64, peak.stack_bytes),
    FIELD(struct allocator_summary, "peak_heap_bytes", INT64, peak.heap_bytes),
    FIELD(struct allocator_summary, "peak_free_bytes", INT64, peak.free_bytes),
    FIELD(struct allocator_summary, "peak_fragmentation", DOUBLE, peak.fragmentation),
    FIELD(struct allocator_summary, "peak_bytes_in_use", INT64, peak.peak_bytes_in_use),
    FIELD(struct allocator_summary, "summary_computed", BOOL, derived),
    FIELD(struct allocator_summary, "tracked", BOOL, tracked.known),
    FIELD(struct allocator_summary, "tracked_entries", SIZE, tracked.entries),
    FIELD(struct allocator_summary, "weights_bytes", INT64, tracked.weights_bytes),
    FIELD(struct allocator_summary, "gradients_bytes", INT64, tracked.gradients_bytes),
    FIELD(struct allocator_summary, "activations_bytes", INT64, tracked.activations_bytes),
    FIELD(struct allocator_summary, "untracked_bytes", INT64, tracked.untracked_bytes),
};
const struct chrome_trace_fields chrome_trace_summary_fields = TABLE(summary_fields);

static const struct chrome_trace_field hlo_fields[] = {
    FIELD(struct hlo_module, "id", INT64, id),
    FIELD(struct hlo_module, "plane_name", STRING, plane_name),
    FIELD(struct hlo_module, "start_time_ps", INT64, start_time_ps),
    FIELD(struct hlo_module, "end_time_ps", INT64, end_time_ps),
};
const struct chrome_trace_fields chrome_trace_hlo_fields = TABLE(hlo_fields);

/* ---- names of enum values ---- */

static const char *const origin_names[] = {
    [ROW_FROM_SNAPSHOT] = "snapshot",
    [ROW_FROM_SPECIAL] = "special",
    [ROW_UNRESOLVED] = "unresolved",
    [ROW_FROM_ENTRY] = "entry",
};

static const char *const timeline_names[] = {
    [TIMELINE_COMPLETE] = "complete",
    [TIMELINE_SAMPLED] = "sampled",
    [TIMELINE_NONE] = "none",
};

static const char *name_of(const char *const *names, size_t count, int value)
{
    return value >= 0 && (size_t)value < count ? names[value] : NULL;
}

static int value_of(const char *const *names, size_t count, const char *name, size_t length)
{
    for (size_t i = 0; i < count; i++)
        if (names[i] && strlen(names[i]) == length && memcmp(names[i], name, length) == 0)
            return (int)i;
    return -1;
}

#define COUNT(array) (sizeof array / sizeof *array)

/* By bit number of enum allocator_field. */
static const char *const unknown_field_names[] = {
    "stack", "free", "fragmentation", "capacity", "region", "data_type", "tensor_shape",
};
_Static_assert(1u << COUNT(unknown_field_names) == ALLOCATOR_FIELD_END,
               "every enum allocator_field bit has its name in the export");

const char *chrome_trace_origin_name(int origin)
{
    return name_of(origin_names, COUNT(origin_names), origin);
}

int chrome_trace_origin_value(const char *name, size_t length)
{
    return value_of(origin_names, COUNT(origin_names), name, length);
}

const char *chrome_trace_timeline_name(int kind)
{
    return name_of(timeline_names, COUNT(timeline_names), kind);
}

int chrome_trace_timeline_value(const char *name, size_t length)
{
    return value_of(timeline_names, COUNT(timeline_names), name, length);
}

const char *chrome_trace_unknown_field_name(int bit)
{
    return name_of(unknown_field_names, COUNT(unknown_field_names), bit);
}
