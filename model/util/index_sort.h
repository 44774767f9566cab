/* index_sort: a stable sort of an array of indices by the caller's order,
 * shared by the profile builder (snapshots by time) and the allocation
 * table (rows by a column). Bottom-up merge sort: stable, O(n log n) at
 * worst, no recursion, with a scratch array of the same length from the
 * caller. Must not: allocate (the caller gives the scratch). */
#ifndef MEMTOP_INDEX_SORT_H
#define MEMTOP_INDEX_SORT_H

#include <stdbool.h>
#include <stddef.h>

/* true when index a must come strictly before index b. */
typedef bool (*index_before_fn)(const void *context, size_t a, size_t b);

void index_sort_stable(size_t *indices, size_t *scratch, size_t count, index_before_fn before,
                       const void *context);

#endif
