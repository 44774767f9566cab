/* export_segments: --export segments, the allocator's segments at a point
 * of its timeline (model/segments.h), as export.h describes the columns.
 * Called by export.c. Must not: rewind anything itself. */
#include "config.h"

#include <errno.h>

#include "model/segments.h"
#include "model/timeline.h"
#include "report/csv_writer.h"
#include "report/export.h"

static const char *const segment_columns[] = {
    "address",   "size_bytes",         "stream",     "pool",
    "expandable", "allocated_bytes",   "pending_free_bytes", "free_bytes",
    "blocks",    "largest_free_bytes",
};

/* The snapshot the request names: the last at or before at_ps
 * (SIZE_MAX: before the first), or the peak's (the first at the
 * summary's peak). */
static size_t segments_index(const struct export_request *request)
{
    const struct allocator *allocator = request->allocator;
    const struct snapshot_columns *timeline = &allocator->timeline;
    if (request->has_at) {
        size_t index = SIZE_MAX;
        for (size_t i = 0;
             i < timeline->count && snapshot_columns_time(timeline, i) <= request->at_ps; i++)
            index = i;
        return index;
    }
    for (size_t i = 0; i < timeline->count; i++)
        if (snapshot_columns_time(timeline, i) == allocator->summary.peak_time_ps &&
            snapshot_columns_in_use(timeline, i) == allocator->summary.peak_bytes)
            return i;
    return timeline->count ? timeline->count - 1 : SIZE_MAX;
}

static void write_segment(struct csv_writer *writer, const struct segment_row *row)
{
    csv_writer_unsigned(writer, row->address);
    csv_writer_int(writer, row->size);
    csv_writer_unsigned(writer, row->stream);
    csv_writer_text(writer, row->private_pool ? "private" : "default");
    csv_writer_bool(writer, row->expandable);
    csv_writer_int(writer, row->allocated_bytes);
    csv_writer_int(writer, row->pending_free_bytes);
    csv_writer_int(writer, row->free_bytes);
    csv_writer_unsigned(writer, row->blocks);
    csv_writer_int(writer, row->largest_free_bytes);
    csv_writer_end_record(writer);
}

size_t export_segments(struct csv_writer *writer, const struct export_request *request)
{
    struct segment_rows rows;
    if (!segment_rows_at(request->allocator, segments_index(request), &rows)) {
        csv_writer_fail(writer, ENOMEM);
        return 0;
    }
    csv_writer_record(writer, segment_columns, sizeof segment_columns / sizeof *segment_columns);
    size_t written = 0;
    for (size_t i = 0; i < rows.count && !writer->error; i++, written++)
        write_segment(writer, &rows.rows[i]);
    segment_rows_free(&rows);
    return written;
}
