#include "config.h"

#include "model/allocation_table.h"

#include "model/index_sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *allocation_table_column_name(enum table_column column)
{
    switch (column) {
    case TABLE_COLUMN_FILE_ORDER: return "File order";
    case TABLE_COLUMN_OP_NAME: return "Op name";
    case TABLE_COLUMN_ALLOCATION_BYTES: return "Allocation";
    case TABLE_COLUMN_REQUESTED_BYTES: return "Requested";
    case TABLE_COLUMN_OCCURRENCES: return "Occurrences";
    case TABLE_COLUMN_REGION_TYPE: return "Region";
    case TABLE_COLUMN_DATA_TYPE: return "Data type";
    case TABLE_COLUMN_TENSOR_SHAPE: return "Shape";
    default: return "";
    }
}

enum table_column allocation_table_next_column(enum table_column column)
{
    switch (column) {
    case TABLE_COLUMN_FILE_ORDER: return TABLE_COLUMN_ALLOCATION_BYTES;
    case TABLE_COLUMN_ALLOCATION_BYTES: return TABLE_COLUMN_REQUESTED_BYTES;
    case TABLE_COLUMN_REQUESTED_BYTES: return TABLE_COLUMN_OCCURRENCES;
    case TABLE_COLUMN_OCCURRENCES: return TABLE_COLUMN_OP_NAME;
    case TABLE_COLUMN_OP_NAME: return TABLE_COLUMN_REGION_TYPE;
    case TABLE_COLUMN_REGION_TYPE: return TABLE_COLUMN_DATA_TYPE;
    case TABLE_COLUMN_DATA_TYPE: return TABLE_COLUMN_TENSOR_SHAPE;
    default: return TABLE_COLUMN_FILE_ORDER;
    }
}

bool allocation_table_default_descending(enum table_column column)
{
    return column == TABLE_COLUMN_ALLOCATION_BYTES || column == TABLE_COLUMN_REQUESTED_BYTES ||
           column == TABLE_COLUMN_OCCURRENCES;
}

static char fold_case(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

bool allocation_table_matches(const char *op_name, const char *filter)
{
    if (filter[0] == '\0')
        return true;
    for (const char *start = op_name; *start; start++) {
        size_t i = 0;
        while (filter[i] && start[i] && fold_case(start[i]) == fold_case(filter[i]))
            i++;
        if (filter[i] == '\0')
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
    return allocation_table_matches(profile_text(table->profile, row->op_name), table->filter);
}

const char *allocation_table_op_name(const struct allocation_table *table,
                                     const struct allocation_row *row, char *buffer,
                                     size_t size)
{
    if (row->origin != ROW_UNRESOLVED)
        return profile_text(table->profile, row->op_name);
    if (row->snapshot_index < 0)
        snprintf(buffer, size, "(unresolved: special %lld)", (long long)row->special_index);
    else
        snprintf(buffer, size, "(unresolved: snapshot %lld)", (long long)row->snapshot_index);
    return buffer;
}

size_t allocation_table_total(const struct allocation_table *table)
{
    return table->allocator && table->order ? table->allocator->row_count : 0;
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
        int64_t bytes = allocation_row_bytes(allocation_table_row(table, i));
        if (__builtin_add_overflow(total, bytes, &total))
            return bytes < 0 ? INT64_MIN : INT64_MAX;
    }
    return total;
}

/* ---- sorting ---- */

static int compare_numbers(int64_t a, int64_t b)
{
    return (a > b) - (a < b);
}

/* Case-insensitive first so "conv" sorts beside "Conv", then by bytes so
 * the order never depends on anything but the text. */
static int compare_text(const char *a, const char *b)
{
    for (size_t i = 0;; i++) {
        unsigned char fa = (unsigned char)fold_case(a[i]), fb = (unsigned char)fold_case(b[i]);
        if (fa != fb)
            return (fa > fb) - (fa < fb);
        if (a[i] == '\0')
            break;
    }
    int bytes = strcmp(a, b);
    return (bytes > 0) - (bytes < 0);
}

static int compare_strings(const struct allocation_table *table, uint32_t a, uint32_t b)
{
    if (a == b)
        return 0;
    return compare_text(profile_text(table->profile, a), profile_text(table->profile, b));
}

/* The order of two rows in the table's sort column, ascending. */
static int compare_rows(const struct allocation_table *table, size_t a, size_t b)
{
    const struct allocation_row *x = &table->allocator->rows[a];
    const struct allocation_row *y = &table->allocator->rows[b];
    switch (table->sort_column) {
    case TABLE_COLUMN_OP_NAME: return compare_strings(table, x->op_name, y->op_name);
    case TABLE_COLUMN_ALLOCATION_BYTES:
        return compare_numbers(x->allocation_bytes, y->allocation_bytes);
    case TABLE_COLUMN_REQUESTED_BYTES:
        return compare_numbers(x->requested_bytes, y->requested_bytes);
    case TABLE_COLUMN_OCCURRENCES: return compare_numbers(x->occurrences, y->occurrences);
    case TABLE_COLUMN_REGION_TYPE: return compare_strings(table, x->region_type, y->region_type);
    case TABLE_COLUMN_DATA_TYPE: return compare_strings(table, x->data_type, y->data_type);
    case TABLE_COLUMN_TENSOR_SHAPE:
        return compare_strings(table, x->tensor_shape, y->tensor_shape);
    default: return 0;
    }
}

/* Whether row a goes before row b: the sort column in the table's
 * direction, then the file's order (the stable tie-break). An
 * index_before_fn whose context is the table. */
static bool row_before(const void *context, size_t a, size_t b)
{
    const struct allocation_table *table = context;
    int order = compare_rows(table, a, b);
    if (table->descending)
        order = -order;
    return order != 0 ? order < 0 : a < b;
}

static void sort_rows(struct allocation_table *table, size_t count)
{
    index_sort_stable(table->sorted, table->scratch, count, row_before, table);
}

/* ---- the table ---- */

static void table_refilter(struct allocation_table *table)
{
    size_t total = allocation_table_total(table);
    table->count = 0;
    for (size_t i = 0; i < total; i++)
        if (allocation_table_row_matches(table, &table->allocator->rows[table->sorted[i]]))
            table->order[table->count++] = table->sorted[i];
}

bool allocation_table_init(struct allocation_table *table, const struct profile *profile,
                           const struct allocator *allocator)
{
    *table = (struct allocation_table){
        .profile = profile,
        .allocator = allocator,
        .sort_column = TABLE_COLUMN_FILE_ORDER,
    };
    size_t total = allocator ? allocator->row_count : 0;
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
    if (column < TABLE_COLUMN_FILE_ORDER || column >= TABLE_COLUMN_COUNT)
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
    return &table->allocator->rows[table->order[position]];
}
