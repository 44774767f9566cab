/* hlo_pane: the profile's HLO modules; Enter zooms the chart to one. */
#ifndef MEMTOP_HLO_PANE_H
#define MEMTOP_HLO_PANE_H

#include <stdbool.h>
#include <stddef.h>

#include <curses.h>

#include "ui/keys.h"
#include "ui/list_cursor.h"

struct viewer;

struct hlo_state {
    struct list_cursor cursor; /* the selected module */
};

void hlo_pane_reset(struct viewer *viewer);
void hlo_pane_draw(struct viewer *viewer, WINDOW *window, int y, int x, int height, int width,
                   bool focused);
bool hlo_pane_handle(struct viewer *viewer, enum request request);
/* A mouse click on row `row` (0: the first shown): selects it; a click on
 * the module already selected zooms the chart to it, as Enter does, when
 * `again` (the pane had the focus before the click). */
void hlo_pane_click(struct viewer *viewer, int row, bool again);

#endif
