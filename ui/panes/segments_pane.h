/* segments_pane: the caching allocator's segments at the chart's cursor
 * (model/segments.h), for formats that record them (PyTorch memory
 * snapshots): size, stream, pool, allocated, pending-free and free bytes,
 * active blocks and the largest free block of each, with the totals in
 * the title, so fragmentation is visible. A tab of the table area. */
#ifndef MEMTOP_SEGMENTS_PANE_H
#define MEMTOP_SEGMENTS_PANE_H

#include <stdbool.h>

#include "ui/pane.h"

struct viewer;

struct pane *segments_pane_create(struct viewer *viewer);
/* On screen when the allocator shown records its segments. */
bool segments_pane_available(const struct viewer *viewer);

#endif
