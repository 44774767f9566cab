/* export_compare: the compare view as CSV (see export.h): the ops at the
 * peak of BASE and NEW side by side with their deltas, as model/query/compare.h
 * matched them. Called by export.c's export_write(); writes only through
 * csv_writer and computes nothing the model has not. */
#include "config.h"

#include <errno.h>

#include "model/query/compare.h"
#include "report/csv_writer.h"
#include "report/export.h"

/* --export compare: what was live at each allocator's peak, by op name,
 * for the pair of allocators the request names (model/query/compare.h sums and
 * orders it: |delta| descending, then op name bytewise). */
static const char *const compare_columns[] = {
    "op_name", "base_bytes", "new_bytes", "delta_bytes", "base_count", "new_count",
};

static void write_op(struct csv_writer *writer, const struct op_delta *row)
{
    csv_writer_bytes(writer, op_delta_name(row)); /* a NUL in it too */
    csv_writer_int(writer, row->base_bytes);
    csv_writer_int(writer, row->new_bytes);
    csv_writer_int(writer, row->delta_bytes);
    csv_writer_int(writer, row->base_count);
    csv_writer_int(writer, row->new_count);
    csv_writer_end_record(writer);
}

size_t export_compare(struct csv_writer *writer, const struct export_request *request)
{
    struct op_comparison table;
    if (!op_comparison_build(&table, request->profile, request->allocator, request->new_profile,
                             request->new_allocator)) {
        csv_writer_fail(writer, ENOMEM);
        return 0;
    }
    csv_writer_record(writer, compare_columns, sizeof compare_columns / sizeof *compare_columns);
    size_t written = 0;
    for (size_t i = 0; i < table.count && !writer->error; i++, written++)
        write_op(writer, &table.rows[i]);
    op_comparison_free(&table);
    return written;
}
