#include "config.h"

#include "report/csv_writer.h"
#include "report/export.h"

/* The --summary --json fields of one allocator, the peak object flattened. */
static const char *const summary_columns[] = {
    "allocator", "snapshots", "allocations", "deallocations", "capacity_bytes",
    "lifetime_peak_bytes", "peak_bytes", "peak_time_ps", "peak_heap_bytes", "peak_stack_bytes",
    "peak_free_bytes", "peak_fragmentation", "active_allocations", "summary_computed",
    "timeline_sampled",
};

static void write_allocator(struct csv_writer *writer, const struct profile *profile,
                            const struct allocator *allocator)
{
    const struct allocator_summary *summary = &allocator->summary;
    csv_writer_bytes(writer, profile_string(profile, allocator->id));
    csv_writer_unsigned(writer, allocator->timeline.count);
    csv_writer_unsigned(writer, summary->allocations);
    csv_writer_unsigned(writer, summary->deallocations);
    csv_writer_int(writer, summary->capacity_bytes);
    csv_writer_int(writer, summary->lifetime_peak_bytes);
    csv_writer_int(writer, summary->peak_bytes);
    csv_writer_int(writer, summary->peak_time_ps);
    csv_writer_int(writer, summary->peak.heap_bytes);
    csv_writer_int(writer, summary->peak.stack_bytes);
    csv_writer_int(writer, summary->peak.free_bytes);
    csv_writer_double(writer, summary->peak.fragmentation);
    csv_writer_unsigned(writer, allocator->row_count);
    csv_writer_bool(writer, summary->derived);
    csv_writer_bool(writer, allocator->timeline_sampled);
    csv_writer_end_record(writer);
}

size_t export_summary(struct csv_writer *writer, const struct export_request *request)
{
    const struct profile *profile = request->profile;
    csv_writer_record(writer, summary_columns, sizeof summary_columns / sizeof *summary_columns);
    if (request->allocator) {
        write_allocator(writer, profile, request->allocator);
        return 1;
    }
    size_t written = 0;
    for (size_t i = 0; i < profile->allocator_count && !writer->error; i++, written++)
        write_allocator(writer, profile, &profile->allocators[i]);
    return written;
}
