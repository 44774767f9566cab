/* peak_breakdown: what kind of memory a peak is made of. The rows a peak
 * table shows (after its filter) summed by region (temp, output,
 * persist/dynamic, ...) or by data type, largest first, each row counting
 * its size times its occurrences as the table's own total does.
 * Called by: the viewer's breakdown pane. Must not: draw. */
#ifndef MEMTOP_PEAK_BREAKDOWN_H
#define MEMTOP_PEAK_BREAKDOWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/query/allocation_table.h"

enum breakdown_key {
    BREAKDOWN_BY_REGION,
    BREAKDOWN_BY_DATA_TYPE,
};

struct breakdown_group {
    uint32_t name; /* string id of the region or data type; 0 when the rows had none */
    int64_t bytes; /* saturating */
};

struct peak_breakdown {
    struct breakdown_group *groups; /* largest first, equal sizes by name */
    size_t count;
    int64_t total_bytes; /* of every group (saturating) */
};

/* Sums the rows `table` shows by `key`; false when memory runs out (the
 * breakdown is then empty but valid). O(n log n) in the rows, so a file
 * with a different data type on every row costs no more than a sort. */
bool peak_breakdown_build(struct peak_breakdown *breakdown, const struct allocation_table *table,
                          enum breakdown_key key);
void peak_breakdown_free(struct peak_breakdown *breakdown);

#endif
