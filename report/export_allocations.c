#include "config.h"

#include <errno.h>

#include "model/allocation_columns.h"
#include "report/csv_writer.h"
#include "report/export.h"

/* The header and every cell come from the column table, in its order. */
static void write_header(struct csv_writer *writer)
{
    const struct allocation_column_info *columns = allocation_columns();
    for (size_t i = 0; i < ALLOCATION_COLUMN_COUNT; i++)
        csv_writer_text(writer, columns[i].csv_name);
    csv_writer_end_record(writer);
}

static void write_cell(struct csv_writer *writer, const struct allocation_column_info *column,
                       const struct allocation_value *value)
{
    if (value->absent) {
        csv_writer_empty(writer);
        return;
    }
    switch (column->kind) {
    case ALLOCATION_VALUE_TEXT: csv_writer_bytes(writer, value->text); break;
    case ALLOCATION_VALUE_ADDRESS: csv_writer_unsigned(writer, value->address); break;
    default: csv_writer_int(writer, value->integer); break;
    }
}

static void write_row(struct csv_writer *writer, const struct profile *profile,
                      const struct allocation_row *row)
{
    const struct allocation_column_info *columns = allocation_columns();
    for (size_t i = 0; i < ALLOCATION_COLUMN_COUNT; i++) {
        struct allocation_value value = columns[i].value(profile, row);
        write_cell(writer, &columns[i], &value);
    }
    csv_writer_end_record(writer);
}

size_t export_allocations(struct csv_writer *writer, const struct export_request *request)
{
    /* Without a table, the rows at the peak in the file's order (XProf's). */
    struct allocation_table own;
    const struct allocation_table *table = request->table;
    if (!table) {
        if (!allocation_table_init(&own, request->profile, request->allocator)) {
            csv_writer_fail(writer, ENOMEM);
            return 0;
        }
        table = &own;
    }
    write_header(writer);
    size_t written = 0;
    for (size_t i = 0; i < table->count && !writer->error; i++, written++)
        write_row(writer, table->profile, allocation_table_row(table, i));
    if (table == &own)
        allocation_table_free(&own);
    return written;
}
