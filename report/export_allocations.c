/* export_allocations: the allocations view as CSV (see export.h): the
 * rows of the request's allocations table in its order, one cell per
 * column of model/query/allocation_columns.h, or one row per group of
 * model/query/row_groups.h when the request groups them. Called by export.c's
 * export_write(); writes only through csv_writer, never opens files. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/query/allocation_columns.h"
#include "model/query/row_groups.h"
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
    case ALLOCATION_VALUE_FRACTION: csv_writer_double(writer, value->fraction); break;
    default: csv_writer_int(writer, value->integer); break;
    }
}

static void write_row(struct csv_writer *writer, const struct allocation_context *context,
                      const struct allocation_row *row)
{
    const struct allocation_column_info *columns = allocation_columns();
    for (size_t i = 0; i < ALLOCATION_COLUMN_COUNT; i++) {
        struct allocation_value value = columns[i].value(context, row);
        write_cell(writer, &columns[i], &value);
    }
    csv_writer_end_record(writer);
}

/* The table's rows grouped: KEY,total_bytes,share,rows, largest first. */
static size_t write_groups(struct csv_writer *writer, const struct allocation_table *table,
                           enum row_group_key key, struct text scope)
{
    struct row_groups groups;
    if (!row_groups_build(&groups, table, key, scope)) {
        csv_writer_fail(writer, ENOMEM);
        return 0;
    }
    csv_writer_text(writer, row_group_key_name(key));
    csv_writer_text(writer, "total_bytes");
    csv_writer_text(writer, "share");
    csv_writer_text(writer, "rows");
    csv_writer_end_record(writer);
    struct allocation_context context = allocation_table_context(table);
    size_t written = 0;
    for (size_t i = 0; i < groups.count && !writer->error; i++, written++) {
        const struct row_group *group = &groups.groups[i];
        char label[ALLOCATION_TABLE_LABEL_SIZE];
        const struct allocation_row *row = allocation_table_row(table, group->first_position);
        /* An op alone in its scope: its whole name (an unresolved row's label). */
        csv_writer_bytes(writer, group->single_row
                                     ? allocation_table_op_name(table, row, label, sizeof label)
                                     : text_make(group->name, group->name_length));
        csv_writer_int(writer, group->bytes);
        if (context.peak_bytes > 0)
            csv_writer_double(writer, (double)group->bytes / (double)context.peak_bytes);
        else
            csv_writer_empty(writer);
        csv_writer_int(writer, (int64_t)group->row_count);
        csv_writer_end_record(writer);
    }
    row_groups_free(&groups);
    return written;
}

size_t export_xprof_table(struct csv_writer *writer, const struct export_request *request)
{
    struct allocation_table table;
    struct allocation_row_source source = allocation_rows_xprof(request->profile, request->allocator);
    if (!allocation_table_init_source(&table, &source)) {
        csv_writer_fail(writer, ENOMEM);
        return 0;
    }
    write_header(writer);
    struct allocation_context context = allocation_table_context(&table);
    size_t written = 0;
    for (size_t i = 0; i < table.count && !writer->error; i++, written++)
        write_row(writer, &context, allocation_table_row(&table, i));
    allocation_table_free(&table);
    return written;
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
    size_t written = 0;
    if (request->group_by != ROW_GROUP_NONE) {
        written = write_groups(writer, table, request->group_by, request->group_scope);
        if (table == &own)
            allocation_table_free(&own);
        return written;
    }
    write_header(writer);
    struct allocation_context context = allocation_table_context(table);
    for (size_t i = 0; i < table->count && !writer->error; i++, written++)
        write_row(writer, &context, allocation_table_row(table, i));
    if (table == &own)
        allocation_table_free(&own);
    return written;
}
