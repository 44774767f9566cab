/* summary_pane: the reference viewer's summary card for the allocator:
 * the window peak (stack+heap, when, and its parts), capacity, the
 * lifetime peak, the allocation counts, and how much the file holds. */
#ifndef MEMTOP_SUMMARY_PANE_H
#define MEMTOP_SUMMARY_PANE_H

#include <stdbool.h>

#include <curses.h>

#include "ui/viewer.h"

void summary_pane_draw(struct viewer *viewer, WINDOW *window, int y, int x, int height,
                       int width);

#endif
