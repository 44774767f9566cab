/* summary_pane: the reference viewer's summary card for the allocator:
 * the window peak (stack+heap, when, and its parts), capacity, the
 * lifetime peak, the allocation counts, and how much the file holds.
 * Draws only: no keys, no focus, no state. */
#ifndef MEMTOP_SUMMARY_PANE_H
#define MEMTOP_SUMMARY_PANE_H

#include "ui/pane.h"

struct viewer;

struct pane *summary_pane_create(struct viewer *viewer);

#endif
