#include "config.h"

#include "ui/query.h"

#include <stdio.h>
#include <stdlib.h>

bool query_reset(struct query *query, const struct profile *profile,
                 const struct allocator *allocator)
{
    char filter[ALLOCATION_TABLE_FILTER_SIZE] = "";
    enum table_column column = TABLE_COLUMN_FILE_ORDER;
    bool descending = false;
    int64_t min_bytes = 0;
    enum row_group_key within_key = ROW_GROUP_NONE;
    char *within = NULL; /* taken over from the old rows */
    if (query->ready) {
        snprintf(filter, sizeof filter, "%s", query->rows.filter);
        column = query->rows.sort_column;
        descending = query->rows.descending;
        min_bytes = query->rows.min_bytes;
        within_key = query->rows.within_key;
        within = query->rows.within;
        query->rows.within = NULL;
    }
    allocation_table_free(&query->rows);
    bool ok = allocation_table_init(&query->rows, profile, allocator);
    allocation_table_set_sort(&query->rows, column, descending);
    allocation_table_set_min_bytes(&query->rows, min_bytes);
    ok = allocation_table_set_within(&query->rows, within_key, within) && ok;
    free(within);
    allocation_table_set_filter(&query->rows, filter);
    query->ready = true;
    query->generation++;
    return ok;
}

void query_free(struct query *query)
{
    /* The filter and sort survive in the struct; only the rows go. */
    allocation_table_free(&query->rows);
    query->generation++;
}

bool query_set_filter(struct query *query, const char *filter)
{
    query->generation++;
    return allocation_table_set_filter(&query->rows, filter);
}

void query_set_sort(struct query *query, enum table_column column, bool descending)
{
    allocation_table_set_sort(&query->rows, column, descending);
    query->generation++;
}

void query_set_min_bytes(struct query *query, int64_t bytes)
{
    allocation_table_set_min_bytes(&query->rows, bytes);
    query->generation++;
}

bool query_set_within(struct query *query, enum row_group_key key, const char *name)
{
    query->generation++;
    return allocation_table_set_within(&query->rows, key, name);
}

const char *query_filter(const struct query *query)
{
    return query->rows.filter;
}
