/* status_line: the bottom row: a prompt being typed, else the last
 * message, else the filter and the focused pane's hints, made from the
 * key table (ui/keys.h) for the pane's key scope. Part of the frame, not
 * a pane; ui.c draws it and the viewer shows load progress through it.
 * Only reads the viewer. */
#ifndef MEMTOP_STATUS_LINE_H
#define MEMTOP_STATUS_LINE_H

#include <stdbool.h>

#include <curses.h>

#include "ui/viewer.h"

/* Draws the row; with a prompt active, returns true and the cursor's
 * column in *cursor_x. */
bool status_line_draw(struct viewer *viewer, WINDOW *window, int y, int x, int width,
                      int *cursor_x);
/* Puts text on the last screen row at once (during a long load). */
void status_line_show_now(struct viewer *viewer, const char *text);

#endif
