/* breakdown_pane: under the summary, when the left column has room, what
 * the peak is made of: the rows the peak table shows (its filter applies)
 * summed by region and by data type, largest first, with their share.
 * Not focusable: it follows the table. Owns the sums, kept until the
 * allocator or the table's filter changes. */
#ifndef MEMTOP_BREAKDOWN_PANE_H
#define MEMTOP_BREAKDOWN_PANE_H

#include <stdbool.h>
#include <stddef.h>

#include <curses.h>

#include "model/allocation_table.h"
#include "model/peak_breakdown.h"
#include "ui/pane.h"

struct viewer;

struct breakdown_state {
    bool valid;
    /* What the sums are of. */
    const struct allocator *allocator;
    char filter[ALLOCATION_TABLE_FILTER_SIZE];
    size_t shown;
    struct peak_breakdown by_region;
    struct peak_breakdown by_data_type;
};

struct pane *breakdown_pane_create_by_region(struct viewer *viewer);
struct pane *breakdown_pane_create_by_data_type(struct viewer *viewer);
/* Forget the sums (the table's rows are going away). */
void breakdown_pane_free(struct viewer *viewer);

#endif
