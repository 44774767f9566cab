/* spans: see spans.h. The memory of each span comes from the timeline's
 * binary searches and block maxima (model/timeline.h), so a long span
 * costs O(log n) for its peak; counting its events walks it. */
#include "config.h"

#include "model/query/spans.h"

#include <stdlib.h>

#include "model/timeline.h"
#include "model/util/saturating.h"

/* Depth is counted up to this many enclosing spans. */
#define SPAN_DEPTH_MAX 64

bool span_belongs(const struct time_span *span, const struct allocator *allocator)
{
    return allocator && (span->allocator == STRING_ID_NONE || span->allocator == allocator->id);
}

size_t span_count_of(const struct profile *profile, const struct allocator *allocator)
{
    size_t count = 0;
    for (size_t i = 0; profile && i < profile->span_count; i++)
        count += span_belongs(&profile->spans[i], allocator);
    return count;
}

/* The peak, the end and the counts of one span over the timeline. */
static void span_measure(struct span_row *row, const struct snapshot_columns *timeline)
{
    size_t first, end;
    timeline_range(timeline, row->start_time_ps, row->end_time_ps, &first, &end);
    /* The memory carried in: the last snapshot before the span. */
    size_t carried = first > 0 ? first - 1 : SIZE_MAX;
    size_t peak = timeline_max_in_use(timeline, first, end);
    if (carried != SIZE_MAX &&
        (peak == SIZE_MAX ||
         snapshot_columns_in_use(timeline, carried) > snapshot_columns_in_use(timeline, peak))) {
        peak = carried;
        row->peak_time_ps = row->start_time_ps;
    } else if (peak != SIZE_MAX) {
        row->peak_time_ps = snapshot_columns_time(timeline, peak);
    }
    if (peak == SIZE_MAX)
        return;
    row->has_memory = true;
    row->peak_index = peak;
    row->peak_bytes = snapshot_columns_in_use(timeline, peak);
    row->end_bytes = snapshot_columns_in_use(timeline, end > first ? end - 1 : carried);
    for (size_t i = first; i < end; i++) {
        row->allocations += timeline->activity[i] == MEMORY_ACTIVITY_ALLOCATION;
        row->deallocations += timeline->activity[i] == MEMORY_ACTIVITY_DEALLOCATION;
    }
}

static int span_order(const void *a, const void *b)
{
    const struct span_row *x = a, *y = b;
    if (x->start_time_ps != y->start_time_ps)
        return x->start_time_ps < y->start_time_ps ? -1 : 1;
    if (x->end_time_ps != y->end_time_ps) /* the enclosing one first */
        return x->end_time_ps > y->end_time_ps ? -1 : 1;
    return (x->span > y->span) - (x->span < y->span);
}

/* Each row's depth: the rows before it still running when it starts. */
static void span_depths(struct span_table *table)
{
    int64_t ends[SPAN_DEPTH_MAX];
    size_t open = 0;
    for (size_t i = 0; i < table->count; i++) {
        struct span_row *row = &table->rows[i];
        while (open > 0 && ends[open - 1] < row->start_time_ps)
            open--;
        row->depth = (unsigned)open;
        if (open < SPAN_DEPTH_MAX)
            ends[open++] = row->end_time_ps;
    }
}

bool span_table_build(struct span_table *table, const struct profile *profile,
                      const struct allocator *allocator)
{
    *table = (struct span_table){0};
    size_t count = span_count_of(profile, allocator);
    if (count == 0)
        return true;
    table->rows = calloc(count, sizeof *table->rows);
    if (!table->rows)
        return false;
    for (size_t i = 0; i < profile->span_count; i++) {
        const struct time_span *span = &profile->spans[i];
        if (!span_belongs(span, allocator))
            continue;
        struct span_row *row = &table->rows[table->count++];
        *row = (struct span_row){
            .span = i,
            .name = span->name,
            .start_time_ps = span->start_ps,
            .end_time_ps = span->end_ps >= span->start_ps ? span->end_ps : span->start_ps,
            .open_start = span->open_start,
            .open_end = span->open_end,
            .peak_index = SIZE_MAX,
        };
        row->duration_ps = saturating_subtract(row->end_time_ps, row->start_time_ps);
        if (allocator->timeline_kind != TIMELINE_NONE && allocator->timeline.count > 0)
            span_measure(row, &allocator->timeline);
    }
    qsort(table->rows, table->count, sizeof *table->rows, span_order);
    span_depths(table);
    return true;
}

void span_table_free(struct span_table *table)
{
    free(table->rows);
    table->rows = NULL;
    table->count = 0;
}
