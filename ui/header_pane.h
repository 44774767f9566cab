/* header_pane: the top row: file, format, host, allocator, key hints. */
#ifndef MEMTOP_HEADER_PANE_H
#define MEMTOP_HEADER_PANE_H

#include <curses.h>

#include "ui/viewer.h"

void header_pane_draw(struct viewer *viewer, WINDOW *window, int y, int x, int width);

#endif
