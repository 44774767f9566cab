/* hlo_pane: the profile's HLO modules; Enter asks the viewer to zoom the
 * time window to one (a follow-up; it never calls the chart). Owns its
 * selection and its columns' widths (ui/column_fit.h). */
#ifndef MEMTOP_HLO_PANE_H
#define MEMTOP_HLO_PANE_H

#include <stdbool.h>

#include "ui/pane.h"

struct viewer;

struct pane *hlo_pane_create(struct viewer *viewer);
/* On screen when the profile has HLO modules and an allocator is shown. */
bool hlo_pane_available(const struct viewer *viewer);

#endif
