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

void breakdown_pane_draw(struct viewer *viewer, WINDOW *window, int y, int x, int height,
                         int width, enum breakdown_key key);
/* Rows the region breakdown would like: its title, its groups and a
 * blank line (0 without an allocator). */
int breakdown_pane_region_rows(struct viewer *viewer);
/* Forget the sums (the table's rows are going away). */
void breakdown_pane_free(struct viewer *viewer);

#endif
