/* export_summary: the summary view as CSV (see export.h): one row per
 * allocator with its peak, its time and what the model's summary knows.
 * Called by export.c's export_write(); writes only through csv_writer. */
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

/* A number of the timeline, or an empty cell (JSON's null) for an
 * allocator without one (a Skyline report). */
static void write_timed_int(struct csv_writer *writer, const struct allocator *allocator,
                            int64_t value)
{
    if (allocator->timeline_kind == TIMELINE_NONE)
        csv_writer_empty(writer);
    else
        csv_writer_int(writer, value);
}

static void write_allocator(struct csv_writer *writer, const struct profile *profile,
                            const struct allocator *allocator)
{
    const struct allocator_summary *summary = &allocator->summary;
    csv_writer_bytes(writer, profile_string(profile, allocator->id));
    csv_writer_unsigned(writer, allocator->timeline.count);
    csv_writer_unsigned(writer, summary->allocations);
    csv_writer_unsigned(writer, summary->deallocations);
    export_known_int(writer, !allocator_records(allocator, ALLOCATOR_FIELD_CAPACITY),
                     summary->capacity_bytes);
    write_timed_int(writer, allocator, summary->lifetime_peak_bytes);
    csv_writer_int(writer, summary->peak_bytes);
    write_timed_int(writer, allocator, summary->peak_time_ps);
    csv_writer_int(writer, summary->peak.heap_bytes);
    export_known_int(writer, !allocator_records(allocator, ALLOCATOR_FIELD_STACK),
                     summary->peak.stack_bytes);
    export_known_int(writer, !allocator_records(allocator, ALLOCATOR_FIELD_FREE),
                     summary->peak.free_bytes);
    export_known_double(writer, !allocator_records(allocator, ALLOCATOR_FIELD_FRAGMENTATION),
                        summary->peak.fragmentation);
    /* As --summary --json counts them: a report's entries. */
    size_t xprof_count = 0;
    allocator_xprof_rows(allocator, &xprof_count);
    csv_writer_unsigned(writer, summary->tracked.known ? summary->tracked.entries : xprof_count);
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
