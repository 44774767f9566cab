/* compare_pairs_pane: --compare's allocators: the pairs matched by
 * memory id, each with its peak's delta ("▲+1.25G"), or "base only" /
 * "new only" for an allocator one profile lacks. Moving switches the
 * pair at once (a follow-up the viewer carries out), Enter focuses the
 * op table, e exports it. Owns its cursor only. */
#ifndef MEMTOP_COMPARE_PAIRS_PANE_H
#define MEMTOP_COMPARE_PAIRS_PANE_H

#include "ui/pane.h"

struct viewer;

struct pane *compare_pairs_pane_create(struct viewer *viewer);

#endif
