#include "config.h"

#include "report/csv_writer.h"
#include "report/export.h"

static const char *const allocation_columns[] = {
    "op_name", "allocation_bytes", "requested_bytes", "occurrences", "region_type", "data_type",
    "tensor_shape", "step_id", "time_ps", "address", "activity", "origin", "snapshot_index",
    "special_index",
};

static const char *origin_name(enum row_origin origin)
{
    switch (origin) {
    case ROW_FROM_SNAPSHOT: return "snapshot";
    case ROW_FROM_SPECIAL: return "special";
    default: return "unresolved";
    }
}

static void write_row(struct csv_writer *writer, const struct profile *profile,
                      const struct allocation_row *row)
{
    csv_writer_text(writer, profile_text(profile, row->op_name));
    csv_writer_int(writer, row->allocation_bytes);
    csv_writer_int(writer, row->requested_bytes);
    csv_writer_int(writer, row->occurrences);
    csv_writer_text(writer, profile_text(profile, row->region_type));
    csv_writer_text(writer, profile_text(profile, row->data_type));
    csv_writer_text(writer, profile_text(profile, row->tensor_shape));
    csv_writer_int(writer, row->step_id);
    if (row->has_time)
        csv_writer_int(writer, row->time_ps);
    else
        csv_writer_empty(writer);
    csv_writer_unsigned(writer, row->address);
    csv_writer_text(writer, memory_activity_name(row->activity));
    csv_writer_text(writer, origin_name(row->origin));
    csv_writer_int(writer, row->snapshot_index);
    csv_writer_int(writer, row->special_index);
    csv_writer_end_record(writer);
}

size_t export_allocations(struct csv_writer *writer, const struct export_request *request)
{
    const struct allocation_table *table = request->table;
    const struct allocator *allocator = request->allocator;
    csv_writer_record(writer, allocation_columns,
                      sizeof allocation_columns / sizeof *allocation_columns);
    size_t count = table ? table->count : allocator->row_count;
    size_t written = 0;
    for (size_t i = 0; i < count && !writer->error; i++) {
        const struct allocation_row *row =
            table ? allocation_table_row(table, i) : &allocator->rows[i];
        if (!row)
            continue;
        write_row(writer, request->profile, row);
        written++;
    }
    return written;
}
