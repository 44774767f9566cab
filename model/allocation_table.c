#include "config.h"

#include "model/allocation_table.h"

#include "model/index_sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *allocation_table_column_name(enum table_column column)
{
    if (column == TABLE_COLUMN_FILE_ORDER)
        return "File order";
    const struct allocation_column_info *info = allocation_column(column);
    return info ? info->name : "";
}

bool allocation_table_default_descending(enum table_column column)
{
    const struct allocation_column_info *info = allocation_column(column);
    return info && info->compare && info->descending_first;
}

/* The position of a column in the sort cycle: 0 for file order, then the
 * largest-first columns, then the A-to-Z ones. */
static int sort_cycle_position(enum table_column column)
{
    if (column == TABLE_COLUMN_FILE_ORDER)
        return 0;
    const struct allocation_column_info *info = allocation_column(column);
    if (!info || !info->compare)
        return -1;
    return 1 + (info->descending_first ? 0 : ALLOCATION_COLUMN_COUNT) + (int)column;
}

enum table_column allocation_table_next_column(enum table_column column)
{
    int position = sort_cycle_position(column);
    enum table_column next = TABLE_COLUMN_FILE_ORDER;
    int next_position = 0;
    for (int id = 0; id < ALLOCATION_COLUMN_COUNT; id++) {
        int candidate = sort_cycle_position((enum table_column)id);
        if (candidate > position && (next_position == 0 || candidate < next_position)) {
            next = (enum table_column)id;
            next_position = candidate;
        }
    }
    return next;
}

bool allocation_table_column_filled(const struct allocation_table *table,
                                    enum table_column column)
{
    const struct allocation_column_info *info = allocation_column(column);
    if (!info)
        return column == TABLE_COLUMN_FILE_ORDER;
    for (size_t i = 0; i < table->source.count; i++) {
        struct allocation_value value = info->value(table->profile, &table->source.rows[i]);
        if (!value.absent && (info->kind != ALLOCATION_VALUE_TEXT || value.text.length > 0))
            return true;
    }
    return false;
}

enum table_column allocation_table_next_filled_column(const struct allocation_table *table,
                                                      enum table_column column)
{
    enum table_column next = allocation_table_next_column(column);
    /* The cycle comes back to file order, which is always filled. */
    while (!allocation_table_column_filled(table, next))
        next = allocation_table_next_column(next);
    return next;
}

static char fold_case(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

bool allocation_table_matches(struct text op_name, const char *filter)
{
    size_t filter_length = strlen(filter);
    if (filter_length == 0)
        return true;
    for (size_t start = 0; start + filter_length <= op_name.length; start++) {
        size_t i = 0;
        while (i < filter_length && fold_case(op_name.bytes[start + i]) == fold_case(filter[i]))
            i++;
        if (i == filter_length)
            return true;
    }
    return false;
}

bool allocation_table_row_matches(const struct allocation_table *table,
                                  const struct allocation_row *row)
{
    if (table->filter[0] == '\0')
        return true;
    if (row->origin == ROW_UNRESOLVED)
        return false;
    return allocation_table_matches(profile_string(table->profile, row->op_name), table->filter);
}

struct text allocation_table_op_name(const struct allocation_table *table,
                                     const struct allocation_row *row, char *buffer,
                                     size_t size)
{
    if (row->origin != ROW_UNRESOLVED)
        return profile_string(table->profile, row->op_name);
    if (row->snapshot_index < 0)
        snprintf(buffer, size, "(unresolved: special %lld)", (long long)row->special_index);
    else
        snprintf(buffer, size, "(unresolved: snapshot %lld)", (long long)row->snapshot_index);
    return text_of(buffer);
}

size_t allocation_table_total(const struct allocation_table *table)
{
    return table->order ? table->source.count : 0;
}

int64_t allocation_row_bytes(const struct allocation_row *row)
{
    int64_t occurrences = row->occurrences > 0 ? row->occurrences : 1;
    int64_t bytes;
    if (__builtin_mul_overflow(row->allocation_bytes, occurrences, &bytes))
        return row->allocation_bytes < 0 ? INT64_MIN : INT64_MAX;
    return bytes;
}

int64_t allocation_table_shown_bytes(const struct allocation_table *table)
{
    int64_t total = 0;
    for (size_t i = 0; i < table->count; i++) {
        const struct allocation_row *row = allocation_table_row(table, i);
        if (allocation_row_is_uncounted(row))
            continue; /* as the report's own totals leave it out */
        int64_t bytes = allocation_row_bytes(row);
        if (__builtin_add_overflow(total, bytes, &total))
            return bytes < 0 ? INT64_MIN : INT64_MAX;
    }
    return total;
}

/* ---- sorting ---- */

/* What row_before needs: the table and its sort column's comparison,
 * looked up once per sort rather than once per comparison. */
struct sort_context {
    const struct allocation_table *table;
    allocation_compare_fn *compare;
};

/* Whether row a goes before row b: the sort column in the table's
 * direction, then the source's order (the stable tie-break). An
 * index_before_fn whose context is a sort_context. */
static bool row_before(const void *context, size_t a, size_t b)
{
    const struct sort_context *sort = context;
    const struct allocation_table *table = sort->table;
    int order = sort->compare(table->profile, &table->source.rows[a], &table->source.rows[b]);
    if (table->descending)
        order = -order;
    return order != 0 ? order < 0 : a < b;
}

static void sort_rows(struct allocation_table *table, size_t count)
{
    struct sort_context sort = {table, allocation_column(table->sort_column)->compare};
    index_sort_stable(table->sorted, table->scratch, count, row_before, &sort);
}

/* ---- the table ---- */

static void table_refilter(struct allocation_table *table)
{
    size_t total = allocation_table_total(table);
    table->count = 0;
    for (size_t i = 0; i < total; i++)
        if (allocation_table_row_matches(table, &table->source.rows[table->sorted[i]]))
            table->order[table->count++] = table->sorted[i];
}

struct allocation_row_source allocation_rows_at_peak(const struct profile *profile,
                                                     const struct allocator *allocator)
{
    return (struct allocation_row_source){
        .profile = profile,
        .allocator = allocator,
        .rows = allocator ? allocator->rows : NULL,
        .count = allocator ? allocator->row_count : 0,
        .label = "at peak",
    };
}

bool allocation_table_init_source(struct allocation_table *table,
                                  const struct allocation_row_source *source)
{
    *table = (struct allocation_table){
        .source = *source,
        .profile = source->profile,
        .allocator = source->allocator,
        .sort_column = TABLE_COLUMN_FILE_ORDER,
    };
    size_t total = source->rows ? source->count : 0;
    table->source.count = total;
    /* One element at least, so a table with no rows still has its arrays
     * and allocation_table_total() can tell "no rows" from "no memory". */
    size_t size = (total ? total : 1) * sizeof(size_t);
    table->order = malloc(size);
    table->sorted = malloc(size);
    table->scratch = malloc(size);
    if (!table->order || !table->sorted || !table->scratch) {
        allocation_table_free(table);
        return false;
    }
    for (size_t i = 0; i < total; i++)
        table->sorted[i] = table->order[i] = i;
    table->count = total;
    return true;
}

bool allocation_table_init(struct allocation_table *table, const struct profile *profile,
                           const struct allocator *allocator)
{
    struct allocation_row_source source = allocation_rows_at_peak(profile, allocator);
    return allocation_table_init_source(table, &source);
}

void allocation_table_free(struct allocation_table *table)
{
    free(table->order);
    free(table->sorted);
    free(table->scratch);
    table->order = table->sorted = table->scratch = NULL;
    table->count = 0;
}

bool allocation_table_set_filter(struct allocation_table *table, const char *filter)
{
    snprintf(table->filter, sizeof table->filter, "%s", filter);
    if (!table->order)
        return false;
    table_refilter(table);
    return true;
}

void allocation_table_set_sort(struct allocation_table *table, enum table_column column,
                               bool descending)
{
    if (!allocation_column_sortable(column))
        column = TABLE_COLUMN_FILE_ORDER;
    table->sort_column = column;
    table->descending = descending;
    size_t total = allocation_table_total(table);
    if (total == 0)
        return;
    for (size_t i = 0; i < total; i++)
        table->sorted[i] = descending && column == TABLE_COLUMN_FILE_ORDER ? total - 1 - i : i;
    if (column != TABLE_COLUMN_FILE_ORDER)
        sort_rows(table, total);
    table_refilter(table);
}

const struct allocation_row *allocation_table_row(const struct allocation_table *table,
                                                  size_t position)
{
    if (position >= table->count)
        return NULL;
    return &table->source.rows[table->order[position]];
}
