/* query: which allocations a person asked to see: where the rows come
 * from (the allocator's rows at its peak, or rows computed for a time:
 * live at the chart cursor, grown since a mark), the filter, the least
 * size, the open group and the sort, and the rows they leave, in their
 * order.
 *
 * Shared state: it lives in the viewer, not in a pane. The table pane
 * shows the rows and edits the query with its keys (/ s r); the chart's
 * n/N search for the filter; the breakdowns sum the rows; the export
 * writes them; the status line shows the filter; the live view
 * (ui/live_view.h) switches the source. The filter and the sort carry
 * over from one source and one allocator to the next. No curses and no
 * viewer: it never draws and never writes the status line. */
#ifndef MEMTOP_QUERY_H
#define MEMTOP_QUERY_H

#include <stdbool.h>
#include <stddef.h>

#include "model/query/allocation_table.h"
#include "model/profile.h"

/* What the rows are. */
enum query_kind {
    QUERY_AT_PEAK, /* the allocator's rows at its peak (XProf's table) */
    QUERY_LIVE,    /* the allocations live at a time */
    QUERY_GROWN,   /* those of them allocated after an earlier time */
};

#define QUERY_LABEL_SIZE 96

struct query {
    struct allocation_table rows; /* after the filter, in the sort's order */
    bool ready;                   /* has a filter and a sort to carry over */
    /* Changes whenever the rows do: a pane holding a position in them
     * finds its row again. */
    unsigned generation;
    enum query_kind kind;
    /* What the rows are, for people ("at peak", "live at 12.345 ms"):
     * the rows' source label points here. */
    char label[QUERY_LABEL_SIZE];
    /* The table's titles from it: "Allocations at peak", "At peak". */
    char title[QUERY_LABEL_SIZE + 16];
    char short_title[QUERY_LABEL_SIZE];
    /* At the peak, XProf's own table rather than the live set (X, issue
     * 22); where the file has no other, the same rows either way. */
    bool xprof;
};

/* The rows of `allocator` (NULL: none) at its peak under the query's
 * filter and sort; false when memory runs out (the rows are then empty
 * but valid). */
bool query_reset(struct query *query, const struct profile *profile,
                 const struct allocator *allocator);
/* Rows computed elsewhere (kind QUERY_LIVE or QUERY_GROWN) under the
 * query's filter and sort, described by `label` ("live at 12.345 ms").
 * The query borrows source->rows: they must stay until the next
 * query_show, query_reset or query_free. false when memory runs out. */
bool query_show(struct query *query, enum query_kind kind,
                const struct allocation_row_source *source, const char *label);
/* Lets go of the rows (they point into the profile); the filter and the
 * sort stay. */
void query_free(struct query *query);

/* false when memory runs out (the filter is then not applied). */
bool query_set_filter(struct query *query, const char *filter);
/* Only rows holding at least `bytes` (0: all). */
void query_set_min_bytes(struct query *query, int64_t bytes);
/* Only the rows of group `name` of `key` (ROW_GROUP_NONE: all); false
 * when memory runs out (all rows are then shown). */
bool query_set_within(struct query *query, enum row_group_key key, struct text name);
void query_set_sort(struct query *query, enum table_column column, bool descending);

/* "" when there is no filter. */
const char *query_filter(const struct query *query);
/* The table's title for what the rows are: wide "Allocations live at
 * 12.345 ms", narrow "Live at 12.345 ms". */
const char *query_title(const struct query *query, bool wide);

#endif
