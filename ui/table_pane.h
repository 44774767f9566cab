/* table_pane: the active allocations at the peak, as the viewer's query
 * (ui/query.h) filters and sorts them; its keys edit the query. Owns the
 * selection and the columns' widths. */
#ifndef MEMTOP_TABLE_PANE_H
#define MEMTOP_TABLE_PANE_H

#include <stdbool.h>
#include <stddef.h>

#include <curses.h>

#include "model/allocation_table.h"
#include "ui/keys.h"
#include "ui/list_cursor.h"
#include "ui/pane.h"

struct viewer;

struct table_state {
    struct list_cursor cursor; /* the selected row, by display position */
    /* The selected row (an index into the allocator's rows) when the
     * query was last seen: a filter or a sort keeps it selected. */
    size_t selected_row;
    unsigned query_generation;
    int natural[7]; /* each column's widest text, measured once per allocator */
};

/* The first row selected, the columns measured: after the query's rows
 * were built for a new allocator. */
void table_pane_reset(struct viewer *viewer);
struct pane *table_pane_create(struct viewer *viewer);

#endif
