/* export_spans: the spans view as CSV (see export.h): one allocator's
 * named spans (a PyTorch snapshot's external_annotations, a trace's user
 * annotations) as model/query/spans.h tells them.
 * Called by export.c's export_write(); writes only through csv_writer. */
#include "config.h"

#include <errno.h>

#include "model/query/spans.h"
#include "report/csv_writer.h"
#include "report/export.h"

static const char *const span_columns[] = {
    "name",        "start_time_ps", "end_time_ps", "duration_ps",   "peak_bytes",
    "peak_time_ps", "end_bytes",    "allocations", "deallocations", "depth",
    "starts_before_trace", "open_at_end",
};

static void write_span(struct csv_writer *writer, const struct profile *profile,
                       const struct span_row *span)
{
    csv_writer_bytes(writer, profile_string(profile, span->name));
    csv_writer_int(writer, span->start_time_ps);
    csv_writer_int(writer, span->end_time_ps);
    csv_writer_int(writer, span->duration_ps);
    /* A span before the first snapshot has no memory to tell: empty, not 0. */
    if (span->has_memory) {
        csv_writer_int(writer, span->peak_bytes);
        csv_writer_int(writer, span->peak_time_ps);
        csv_writer_int(writer, span->end_bytes);
    } else {
        csv_writer_empty(writer);
        csv_writer_empty(writer);
        csv_writer_empty(writer);
    }
    csv_writer_unsigned(writer, span->allocations);
    csv_writer_unsigned(writer, span->deallocations);
    csv_writer_unsigned(writer, span->depth);
    csv_writer_bool(writer, span->open_start);
    csv_writer_bool(writer, span->open_end);
    csv_writer_end_record(writer);
}

size_t export_spans(struct csv_writer *writer, const struct export_request *request)
{
    struct span_table table;
    if (!span_table_build(&table, request->profile, request->allocator)) {
        csv_writer_fail(writer, ENOMEM);
        return 0;
    }
    csv_writer_record(writer, span_columns, sizeof span_columns / sizeof *span_columns);
    size_t written = 0;
    for (size_t i = 0; i < table.count && !writer->error; i++, written++)
        write_span(writer, request->profile, &table.rows[i]);
    span_table_free(&table);
    return written;
}
