/* export_timeline: the timeline view as CSV (see export.h): one row per
 * snapshot of an allocator's timeline, in time order, cut to the
 * request's --from/--to window (model/timeline.h finds its ends).
 * Called by export.c's export_write(); writes only through csv_writer. */
#include "config.h"

#include "model/timeline.h"
#include "report/csv_writer.h"
#include "report/export.h"

static const char *const timeline_columns[] = {
    "time_ps", "time_ms", "heap_bytes", "stack_bytes", "free_bytes", "fragmentation",
    "peak_bytes_in_use", "activity", "requested_bytes", "allocation_bytes", "address",
    "op_name", "step_id", "region_type", "data_type", "tensor_shape",
};

/* Picoseconds per millisecond is 10^9: time_ms is time_ps with the
 * decimal point nine places in. */
#define MILLISECOND_DECIMALS 9

/* `peak`: snapshot i's running peak (the rows are written in order, so
 * a timeline without the peak column is not searched for each). */
static void write_snapshot(struct csv_writer *writer, const struct profile *profile,
                           const struct allocator *allocator, size_t i, int64_t peak)
{
    const struct snapshot_columns *timeline = &allocator->timeline;
    csv_writer_int(writer, snapshot_columns_time(timeline, i));
    csv_writer_fixed_point(writer, snapshot_columns_time(timeline, i), MILLISECOND_DECIMALS);
    csv_writer_int(writer, timeline->heap_bytes[i]);
    export_known_int(writer, !allocator_records(allocator, ALLOCATOR_FIELD_STACK),
                     snapshot_columns_stack_bytes(timeline, i));
    export_known_int(writer, !allocator_records(allocator, ALLOCATOR_FIELD_FREE),
                     snapshot_columns_free_bytes(timeline, i));
    export_known_double(writer, !allocator_records(allocator, ALLOCATOR_FIELD_FRAGMENTATION),
                        timeline->fragmentation[i]);
    csv_writer_int(writer, peak);
    csv_writer_text(writer, memory_activity_name(timeline->activity[i]));
    csv_writer_int(writer, snapshot_columns_requested_bytes(timeline, i));
    csv_writer_int(writer, snapshot_columns_allocation_bytes(timeline, i));
    csv_writer_unsigned(writer, snapshot_columns_address(timeline, i));
    csv_writer_bytes(writer, profile_string(profile, snapshot_columns_op_name(timeline, i)));
    csv_writer_int(writer, snapshot_columns_step_id(timeline, i));
    csv_writer_bytes(writer, profile_string(profile, snapshot_columns_region_type(timeline, i)));
    csv_writer_bytes(writer, profile_string(profile, snapshot_columns_data_type(timeline, i)));
    csv_writer_bytes(writer, profile_string(profile, snapshot_columns_tensor_shape(timeline, i)));
    csv_writer_end_record(writer);
}

size_t export_timeline(struct csv_writer *writer, const struct export_request *request)
{
    const struct snapshot_columns *timeline = &request->allocator->timeline;
    csv_writer_record(writer, timeline_columns,
                      sizeof timeline_columns / sizeof *timeline_columns);
    size_t first, end;
    timeline_range(timeline, request->from_ps, request->to_ps, &first, &end);
    size_t written = 0;
    int64_t peak = 0;
    for (size_t i = first; i < end && !writer->error; i++, written++) {
        int64_t in_use = snapshot_columns_in_use(timeline, i);
        if (timeline->peak_bytes_in_use || i == first)
            peak = snapshot_columns_peak_bytes_in_use(timeline, i);
        else if (in_use > peak)
            peak = in_use; /* the running maximum, as the column would hold */
        write_snapshot(writer, request->profile, request->allocator, i, peak);
    }
    return written;
}
