/* table_pane: the active allocations at the peak, as the viewer's query
 * (ui/query.h) filters and sorts them; its keys (/ s r n N) edit the
 * query and Enter opens the selected row in full (ui/row_detail.h) with
 * the chart's cursor on its time (a follow-up). Owns the selection,
 * which stays on its row when the query changes, and the columns'
 * widths (ui/column_fit.h). Never calls the chart. */
#ifndef MEMTOP_TABLE_PANE_H
#define MEMTOP_TABLE_PANE_H

#include "ui/pane.h"

struct viewer;

struct pane *table_pane_create(struct viewer *viewer);

#endif
