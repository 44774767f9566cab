/* row_detail: one allocation row in full, in a box over the screen
 * (every field, long values wrapped): the allocations table's detail
 * overlay, opened with Enter. Only draws; the table pane owns which row
 * is shown and moves it. */
#ifndef MEMTOP_ROW_DETAIL_H
#define MEMTOP_ROW_DETAIL_H

#include <stdbool.h>
#include <stddef.h>

#include <curses.h>

#include "model/query/allocation_table.h"
#include "ui/draw.h"

/* Draws row `position` of `rows` ("Allocation 3 of 191") centred in a
 * screen of height x width; false when there is no such row. */
bool row_detail_draw(WINDOW *window, int height, int width, const struct ui_style *style,
                     const struct allocation_table *rows, size_t position);

#endif
