#include "config.h"

#include "ui/query.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

/* A new source under the filter and the sort the query had. */
static bool query_set_source(struct query *query, enum query_kind kind,
                             const struct allocation_row_source *source, const char *label)
{
    char filter[ALLOCATION_TABLE_FILTER_SIZE] = "";
    enum table_column column = TABLE_COLUMN_FILE_ORDER;
    bool descending = false;
    int64_t min_bytes = 0;
    enum row_group_key within_key = ROW_GROUP_NONE;
    char *within = NULL; /* taken over from the old rows */
    size_t within_length = 0;
    if (query->ready) {
        snprintf(filter, sizeof filter, "%s", query->rows.filter);
        column = query->rows.sort_column;
        descending = query->rows.descending;
        min_bytes = query->rows.min_bytes;
        within_key = query->rows.within_key;
        within = query->rows.within;
        within_length = query->rows.within_length;
        query->rows.within = NULL;
    }
    /* A report without a timeline lists entries, not a moment: the
     * largest first, unless a person chose an order. */
    if (column == TABLE_COLUMN_FILE_ORDER && source->allocator &&
        source->allocator->timeline_kind == TIMELINE_NONE) {
        column = TABLE_COLUMN_TOTAL_BYTES;
        descending = true;
    }
    query->kind = kind;
    snprintf(query->label, sizeof query->label, "%s", label);
    snprintf(query->title, sizeof query->title, "Allocations %s", query->label);
    snprintf(query->short_title, sizeof query->short_title, "%s", query->label);
    query->short_title[0] = (char)toupper((unsigned char)query->short_title[0]);
    struct allocation_row_source labelled = *source;
    labelled.label = query->label;
    allocation_table_free(&query->rows);
    bool ok = allocation_table_init_source(&query->rows, &labelled);
    allocation_table_set_sort(&query->rows, column, descending);
    allocation_table_set_min_bytes(&query->rows, min_bytes);
    ok = allocation_table_set_within(&query->rows, within_key,
                                     text_make(within ? within : "", within_length)) && ok;
    free(within);
    allocation_table_set_filter(&query->rows, filter);
    query->ready = true;
    query->generation++;
    return ok;
}

/* XProf lists the peak step's allocations, and with ties the peak step
 * is not the one the peak's time falls in: the title says which step the
 * rows are, lest a table of special rows only look like a bug. Short
 * enough for the table beside an 80-column left column. */
static void query_title_peak_step(struct query *query, const struct allocator *allocator)
{
    int64_t rows_step, peak_time_step;
    if (!allocator)
        return;
    const struct allocator_summary *summary = &allocator->summary;
    bool xprof_shown = allocator->rows_kind != ALLOCATOR_ROWS_LIVE ||
                       (query->xprof && allocator->xprof_kept);
    rows_step = summary->rows_step;
    peak_time_step = summary->peak_time_step;
    if (!xprof_shown || !summary->one_step_rows || rows_step == peak_time_step)
        return;
    snprintf(query->title, sizeof query->title,
             "Allocations at peak (XProf's step %lld; peak in step %lld)", (long long)rows_step,
             (long long)peak_time_step);
    snprintf(query->short_title, sizeof query->short_title, "At peak (step %lld; peak in %lld)",
             (long long)rows_step, (long long)peak_time_step);
}

bool query_reset(struct query *query, const struct profile *profile,
                 const struct allocator *allocator)
{
    struct allocation_row_source source = query->xprof && allocator && allocator->xprof_kept
                                              ? allocation_rows_xprof(profile, allocator)
                                              : allocation_rows_at_peak(profile, allocator);
    bool ok = query_set_source(query, QUERY_AT_PEAK, &source, source.label);
    query_title_peak_step(query, allocator);
    return ok;
}

bool query_show(struct query *query, enum query_kind kind,
                const struct allocation_row_source *source, const char *label)
{
    return query_set_source(query, kind, source, label);
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

bool query_set_within(struct query *query, enum row_group_key key, struct text name)
{
    query->generation++;
    return allocation_table_set_within(&query->rows, key, name);
}

const char *query_filter(const struct query *query)
{
    return query->rows.filter;
}

const char *query_title(const struct query *query, bool wide)
{
    if (!query->ready)
        return wide ? "Allocations at peak" : "At peak";
    return wide ? query->title : query->short_title;
}
