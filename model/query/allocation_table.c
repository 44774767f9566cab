#include "config.h"

#include "model/query/allocation_table.h"

#include "model/stack_text.h"
#include "model/util/index_sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *allocation_table_column_name(enum table_column column)
{
    if (column == TABLE_COLUMN_FILE_ORDER)
        return "file order";
    const struct allocation_column_info *info = allocation_column(column);
    return info ? info->name : "";
}

bool allocation_table_default_descending(enum table_column column)
{
    const struct allocation_column_info *info = allocation_column(column);
    return info && info->compare && info->descending_first;
}

bool allocation_value_is_placeholder(const struct allocation_row *row, enum table_column column,
                                     struct text value)
{
    /* XProf's DT_INVALID says no type was recorded (JAX), and its special
     * rows (stack, allocated before the profile) carry the type INVALID
     * and the shape "unknown" by convention, not as data (issue 22). */
    if (column == TABLE_COLUMN_DATA_TYPE)
        return text_equal(value, text_of("INVALID"));
    return column == TABLE_COLUMN_TENSOR_SHAPE && row->origin == ROW_FROM_SPECIAL &&
           text_equal(value, text_of("unknown"));
}

bool allocation_table_column_filled(const struct allocation_table *table,
                                    enum table_column column)
{
    const struct allocation_column_info *info = allocation_column(column);
    if (!info)
        return column == TABLE_COLUMN_FILE_ORDER;
    struct allocation_context context = allocation_table_context(table);
    for (size_t i = 0; i < table->source.count; i++) {
        struct allocation_value value = info->value(&context, &table->source.rows[i]);
        /* A column of XProf's placeholders only is not shown (issue 22). */
        if (!value.absent && allocation_value_is_placeholder(&table->source.rows[i], column,
                                                             value.text))
            continue;
        if (!value.absent && (info->kind != ALLOCATION_VALUE_TEXT || value.text.length > 0))
            return true;
    }
    return false;
}

/* Where `column` is in `order`; -1 for file order or a column not there. */
static int sort_order_position(const enum table_column *order, size_t count,
                               enum table_column column)
{
    for (size_t i = 0; i < count; i++)
        if (order[i] == column)
            return (int)i;
    return -1;
}

enum table_column allocation_table_step_sort(const struct allocation_table *table,
                                             const enum table_column *order, size_t count,
                                             enum table_column column, int direction)
{
    int step = direction < 0 ? -1 : 1;
    int position = sort_order_position(order, count, column);
    /* File order sits past both ends: one step from it is an end. */
    if (position < 0)
        position = step > 0 ? -1 : (int)count;
    for (position += step; position >= 0 && position < (int)count; position += step) {
        enum table_column next = order[position];
        if (next != TABLE_COLUMN_FILE_ORDER && allocation_column_sortable(next) &&
            allocation_table_column_filled(table, next))
            return next;
    }
    return TABLE_COLUMN_FILE_ORDER;
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
    /* The context too (issue 22): `Adam` finds the rows made inside
     * Optimizer.step#Adam.step, whose own op is aten::empty. */
    const uint32_t texts[] = {row->op_name,      row->region_type, row->data_type,
                              row->tensor_shape, row->kind,        row->location,
                              row->context};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        if (texts[i] && allocation_table_matches(profile_string(table->profile, texts[i]),
                                                 table->filter))
            return true;
    return false;
}

bool allocation_table_row_shown(const struct allocation_table *table,
                                const struct allocation_row *row)
{
    if (table->min_bytes > 0 && allocation_row_bytes(row) < table->min_bytes)
        return false;
    if (table->within &&
        !row_group_contains(table->profile, table->within_key, allocation_table_within(table),
                            row))
        return false;
    return allocation_table_row_matches(table, row);
}

struct text allocation_table_within(const struct allocation_table *table)
{
    return text_make(table->within ? table->within : "", table->within_length);
}

bool allocation_table_narrowed(const struct allocation_table *table)
{
    return table->filter[0] || table->min_bytes > 0 || table->within;
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

struct allocation_context allocation_table_context(const struct allocation_table *table)
{
    return (struct allocation_context){
        .profile = table->profile,
        .peak_bytes = table->allocator ? table->allocator->summary.peak_bytes : 0,
        .stack_text = table->stack_text,
    };
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

/* `sorted` holds 0..count-1: rows already in the column's order (the
 * table at the peak comes sorted by size, the viewer's and --summary's
 * first sort) keep it without a sort. */
static void sort_rows(struct allocation_table *table, size_t count)
{
    struct sort_context sort = {table, allocation_column(table->sort_column)->compare};
    size_t i = 1;
    while (i < count && !row_before(&sort, i, i - 1))
        i++;
    if (i < count)
        index_sort_stable(table->sorted, table->scratch, count, row_before, &sort);
}

/* ---- the table ---- */

static void table_refilter(struct allocation_table *table)
{
    size_t total = allocation_table_total(table);
    table->count = 0;
    table->unresolved_count = 0;
    for (size_t i = 0; i < total; i++) {
        const struct allocation_row *row = &table->source.rows[table->sorted[i]];
        if (!allocation_table_row_shown(table, row))
            continue;
        table->order[table->count++] = table->sorted[i];
        table->unresolved_count += row->origin == ROW_UNRESOLVED;
    }
}

struct allocation_row_source allocation_rows_at_peak(const struct profile *profile,
                                                     const struct allocator *allocator)
{
    return (struct allocation_row_source){
        .profile = profile,
        .allocator = allocator,
        .rows = allocator ? allocator->rows : NULL,
        .count = allocator ? allocator->row_count : 0,
        /* An OOM log's rows are the state at its OOM: it has no peak of
         * its own to tell apart. */
        .label = allocator && allocator->timeline_kind == TIMELINE_NONE && allocator->oom_count
                     ? "live at the OOM"
                 : allocator && allocator->rows_kind == ALLOCATOR_ROWS_LIVE ? "live at peak"
                                                                            : "at peak",
    };
}

struct allocation_row_source allocation_rows_xprof(const struct profile *profile,
                                                   const struct allocator *allocator)
{
    size_t count = 0;
    const struct allocation_row *rows = allocator ? allocator_xprof_rows(allocator, &count) : NULL;
    return (struct allocation_row_source){
        .profile = profile,
        .allocator = allocator,
        .rows = rows,
        .count = count,
        .label = "at peak, XProf's table",
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
    table->stack_text = calloc(1, sizeof *table->stack_text);
    if (!table->order || !table->sorted || !table->scratch || !table->stack_text) {
        allocation_table_free(table);
        return false;
    }
    for (size_t i = 0; i < total; i++)
        table->sorted[i] = i;
    table_refilter(table);
    return true;
}

bool allocation_table_init(struct allocation_table *table, const struct profile *profile,
                           const struct allocator *allocator)
{
    struct allocation_row_source source = allocation_rows_at_peak(profile, allocator);
    return allocation_table_init_source(table, &source);
}

bool allocation_table_init_xprof(struct allocation_table *table, const struct profile *profile,
                                 const struct allocator *allocator)
{
    struct allocation_row_source source = allocation_rows_xprof(profile, allocator);
    return allocation_table_init_source(table, &source);
}

void allocation_table_free(struct allocation_table *table)
{
    free(table->order);
    free(table->sorted);
    free(table->scratch);
    free(table->within);
    if (table->stack_text)
        stack_text_free(table->stack_text);
    free(table->stack_text);
    table->stack_text = NULL;
    table->order = table->sorted = table->scratch = NULL;
    table->within = NULL;
    table->within_length = 0;
    table->within_key = ROW_GROUP_NONE;
    table->count = table->unresolved_count = 0;
}

bool allocation_table_set_filter(struct allocation_table *table, const char *filter)
{
    snprintf(table->filter, sizeof table->filter, "%s", filter);
    if (!table->order)
        return false;
    table_refilter(table);
    return true;
}

void allocation_table_set_min_bytes(struct allocation_table *table, int64_t bytes)
{
    table->min_bytes = bytes > 0 ? bytes : 0;
    if (table->order)
        table_refilter(table);
}

bool allocation_table_set_within(struct allocation_table *table, enum row_group_key key,
                                 struct text name)
{
    /* Copied before the old name goes: `name` may be a part of it. */
    char *copy = key != ROW_GROUP_NONE ? malloc(name.length + 1) : NULL;
    bool ok = key == ROW_GROUP_NONE || copy;
    if (copy) {
        if (name.length)
            memcpy(copy, name.bytes, name.length);
        copy[name.length] = '\0'; /* for what shows it */
    }
    free(table->within);
    table->within = copy;
    table->within_length = copy ? name.length : 0;
    table->within_key = copy ? key : ROW_GROUP_NONE;
    if (table->order)
        table_refilter(table);
    return ok;
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
