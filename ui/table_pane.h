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

struct viewer;

/* Widths the rows' text would like, measured once per allocator so the
 * columns do not jump while scrolling. */
struct table_natural_widths {
    int allocation;
    int requested;
    int occurrences;
    int region;
    int data_type;
    int shape;
    int op_name;
};

struct table_state {
    struct list_cursor cursor; /* the selected row, by display position */
    /* The selected row (an index into the allocator's rows) when the
     * query was last seen: a filter or a sort keeps it selected. */
    size_t selected_row;
    unsigned query_generation;
    struct table_natural_widths natural;
};

/* The first row selected, the columns measured: after the query's rows
 * were built for a new allocator. */
void table_pane_reset(struct viewer *viewer);
void table_pane_draw(struct viewer *viewer, WINDOW *window, int y, int x, int height, int width,
                     bool focused);
bool table_pane_handle(struct viewer *viewer, enum request request);
/* A mouse click on data row `row` (0: the first shown): selects it; a
 * click on the row already selected opens it as Enter does, when `again`
 * (the pane had the focus before the click). */
void table_pane_click(struct viewer *viewer, int row, bool again);
/* The OVERLAY_ROW_DETAIL overlay: the selected row in full. */
void table_pane_draw_detail(struct viewer *viewer, WINDOW *window, int height, int width);

#endif
