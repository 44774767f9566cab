/* export_steps: the steps view as CSV (see export.h): one allocator's
 * steps as model/query/steps.h tells them (start, end, peak, memory at its end).
 * Called by export.c's export_write(); writes only through csv_writer. */
#include "config.h"

#include <errno.h>

#include "model/query/steps.h"
#include "report/csv_writer.h"
#include "report/export.h"

/* --export steps: one record per step of the request's allocator, in
 * the order model/query/steps.h lists them (by first appearance, step -1
 * last). */
static const char *const step_columns[] = {
    "step_id",   "start_time_ps", "end_time_ps", "peak_bytes",      "peak_time_ps",
    "end_bytes", "allocations",   "deallocations", "end_delta_bytes",
};

static void write_step(struct csv_writer *writer, const struct step_row *step)
{
    csv_writer_int(writer, step->step_id);
    csv_writer_int(writer, step->start_time_ps);
    csv_writer_int(writer, step->end_time_ps);
    csv_writer_int(writer, step->peak_bytes);
    csv_writer_int(writer, step->peak_time_ps);
    csv_writer_int(writer, step->end_bytes);
    csv_writer_unsigned(writer, step->allocations);
    csv_writer_unsigned(writer, step->deallocations);
    /* The first step has no step before it, and the snapshots outside
     * any step (-1) are not one: no change to tell, not a change of 0. */
    if (step->has_previous)
        csv_writer_int(writer, step->end_delta_bytes);
    else
        csv_writer_empty(writer);
    csv_writer_end_record(writer);
}

size_t export_steps(struct csv_writer *writer, const struct export_request *request)
{
    struct step_table table;
    if (!step_table_build(&table, request->allocator)) {
        csv_writer_fail(writer, ENOMEM);
        return 0;
    }
    csv_writer_record(writer, step_columns, sizeof step_columns / sizeof *step_columns);
    size_t written = 0;
    for (size_t i = 0; i < table.count && !writer->error; i++, written++)
        write_step(writer, &table.rows[i]);
    step_table_free(&table);
    return written;
}
