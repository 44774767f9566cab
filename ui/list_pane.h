/* list_pane: the hosts list (shown with more than one host) and the
 * allocators list. Moving in the allocators list switches allocator at
 * once; in the hosts list Enter opens the host under the cursor, since
 * opening one may load a large file. */
#ifndef MEMTOP_LIST_PANE_H
#define MEMTOP_LIST_PANE_H

#include <stdbool.h>

#include <curses.h>

#include "ui/keys.h"
#include "ui/viewer.h"

void list_pane_draw_hosts(struct viewer *viewer, WINDOW *window, int y, int x, int height,
                          int width, bool focused);
void list_pane_draw_allocators(struct viewer *viewer, WINDOW *window, int y, int x, int height,
                               int width, bool focused);
/* pane is PANE_HOSTS or PANE_ALLOCATORS; true when the request was its. */
bool list_pane_handle(struct viewer *viewer, enum pane_kind pane, enum request request);
/* A click on visible item row `row` (0 = first item under the title). */
void list_pane_click(struct viewer *viewer, enum pane_kind pane, int row);

#endif
