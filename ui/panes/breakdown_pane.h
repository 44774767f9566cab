/* breakdown_pane: under the summary, when the left column has room, what
 * the peak is made of: the rows the peak table shows (its filter applies)
 * summed by region and by data type, largest first, with their share.
 * Not focusable: it follows the query (ui/query.h). Two instances of one
 * pane, told the key they sum by; each owns its sums, kept until the
 * allocator or the query's filter changes. */
#ifndef MEMTOP_BREAKDOWN_PANE_H
#define MEMTOP_BREAKDOWN_PANE_H

#include "ui/pane.h"

struct viewer;

struct pane *breakdown_pane_create_by_region(struct viewer *viewer);
struct pane *breakdown_pane_create_by_data_type(struct viewer *viewer);

#endif
