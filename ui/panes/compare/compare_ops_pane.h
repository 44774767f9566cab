/* compare_ops_pane: --compare's op table: what was live at each
 * profile's peak, grouped by op name (model/query/compare.h): base bytes, new
 * bytes, delta (with an arrow), base count, new count, largest |delta|
 * first; s sorts by new, base or name instead, r reverses, Enter puts
 * the op's exact numbers on the status line, e exports the table as
 * --export compare writes it. Numbers go compact when the pane is
 * narrow. Owns its cursor and order; the table is the viewer's. */
#ifndef MEMTOP_COMPARE_OPS_PANE_H
#define MEMTOP_COMPARE_OPS_PANE_H

#include "ui/pane.h"

struct viewer;

struct pane *compare_ops_pane_create(struct viewer *viewer);

#endif
