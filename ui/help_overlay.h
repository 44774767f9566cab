/* help_overlay: the keys, from the key table, in a box over the panes.
 * The viewer opens it (?) at the focused pane's keys and hands it every
 * request while it shows; it scrolls with a list cursor, searches itself
 * (/, n, N) and closes itself. Knows no pane but the focused one's key
 * scope. */
#ifndef MEMTOP_HELP_OVERLAY_H
#define MEMTOP_HELP_OVERLAY_H

#include <stdbool.h>

#include <curses.h>

#include "ui/keys.h"
#include "ui/viewer.h"

void help_overlay_draw(struct viewer *viewer, WINDOW *window, int rows, int cols);
/* Opens it scrolled to the focused pane's keys. */
void help_overlay_open(struct viewer *viewer);
/* Scrolls or closes the overlay; every key is the overlay's while it shows. */
void help_overlay_handle(struct viewer *viewer, enum request request);

#endif
