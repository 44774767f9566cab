/* query: which allocations a person asked to see: the filter, the least
 * size, the open group and the sort, and the current allocator's rows at
 * the peak that they leave, in their order.
 *
 * Shared state: it lives in the viewer, not in a pane. The table pane
 * shows the rows and edits the query with its keys (/ s r); the chart's
 * n/N search for the filter; the breakdowns sum the rows; the export
 * writes them; the status line shows the filter. The filter and the sort
 * carry over from one allocator to the next. No curses and no viewer:
 * it never draws and never writes the status line. */
#ifndef MEMTOP_QUERY_H
#define MEMTOP_QUERY_H

#include <stdbool.h>
#include <stddef.h>

#include "model/allocation_table.h"
#include "model/profile.h"

struct query {
    struct allocation_table rows; /* after the filter, in the sort's order */
    bool ready;                   /* has a filter and a sort to carry over */
    /* Changes whenever the rows do: a pane holding a position in them
     * finds its row again. */
    unsigned generation;
};

/* The rows of `allocator` (NULL: none) under the query's filter and sort;
 * false when memory runs out (the rows are then empty but valid). */
bool query_reset(struct query *query, const struct profile *profile,
                 const struct allocator *allocator);
/* Lets go of the rows (they point into the profile); the filter and the
 * sort stay. */
void query_free(struct query *query);

/* false when memory runs out (the filter is then not applied). */
bool query_set_filter(struct query *query, const char *filter);
/* Only rows holding at least `bytes` (0: all). */
void query_set_min_bytes(struct query *query, int64_t bytes);
/* Only the rows of group `name` of `key` (ROW_GROUP_NONE: all); false
 * when memory runs out (all rows are then shown). */
bool query_set_within(struct query *query, enum row_group_key key, const char *name);
void query_set_sort(struct query *query, enum table_column column, bool descending);

/* "" when there is no filter. */
const char *query_filter(const struct query *query);

#endif
