/* index_sort: a stable sort of an array of indices by the caller's order,
 * shared by the profile builder (snapshots by time), the allocation table
 * (rows by a column), the loaders and the panes. Bottom-up merge sort:
 * stable, O(n log n) at worst, no recursion, with a scratch array of the
 * same length. Must not: allocate in index_sort_stable (the caller gives
 * the scratch, so a pane re-sorting on each key press allocates nothing);
 * index_sort_order is the one-off form that allocates what it returns. */
#ifndef MEMTOP_INDEX_SORT_H
#define MEMTOP_INDEX_SORT_H

#include <stdbool.h>
#include <stddef.h>

/* true when index a must come strictly before index b. */
typedef bool (*index_before_fn)(const void *context, size_t a, size_t b);

void index_sort_stable(size_t *indices, size_t *scratch, size_t count, index_before_fn before,
                       const void *context);
/* Indices 0..count-1 sorted stably by `before`, in a new array the caller
 * frees (its scratch already given back); NULL when memory runs out. */
size_t *index_sort_order(size_t count, index_before_fn before, const void *context);

#endif
