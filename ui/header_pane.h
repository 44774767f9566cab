/* header_pane: the top row: file, format, host, allocator, key hints.
 * Part of the frame, not a row of the pane table (it takes no keys and
 * no focus); ui.c draws it. Only reads the viewer. */
#ifndef MEMTOP_HEADER_PANE_H
#define MEMTOP_HEADER_PANE_H

#include <curses.h>

#include "ui/viewer.h"

void header_pane_draw(struct viewer *viewer, WINDOW *window, int y, int x, int width);

#endif
