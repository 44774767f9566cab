/* oom_pane: the post-mortem card of an out-of-memory error (issue 24), a
 * tab of the table area shown while the allocator has an OOM: the one
 * `o` went to, else its last. What it says is report/oom_card.h's (the
 * same card --summary prints); the top holders are those live at the OOM
 * where the timeline can say (ui/live_view.h), else those at the peak.
 * Draws and caches the card; takes no keys but o/O, which are the
 * viewer's (ui/oom_view.h). */
#ifndef MEMTOP_OOM_PANE_H
#define MEMTOP_OOM_PANE_H

#include <stdbool.h>

#include "ui/pane.h"

struct viewer;

struct pane *oom_pane_create(struct viewer *viewer);
/* On screen: one profile open whose allocator shown has an OOM. */
bool oom_pane_available(const struct viewer *viewer);

#endif
