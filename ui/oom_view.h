/* oom_view: the keys of the out-of-memory post-mortem (issue 24): o goes
 * to the OOM (the last one first, the one that ended the job; again: the
 * next), O to the previous one. The chart's cursor goes there, the table
 * is held at what was live then while the cursor stays (a pin,
 * ui/live_view.h), the OOM card comes to the front (ui/oom_pane.h). An
 * allocator without an OOM hands over to the one with the latest
 * (model/query/oom.h's profile_oom_allocator).
 * Called by viewer_input.c; must not draw (a status line message aside). */
#ifndef MEMTOP_OOM_VIEW_H
#define MEMTOP_OOM_VIEW_H

#include <stdbool.h>

#include "ui/keys.h"

struct viewer;

/* o and O (false for any other request). */
bool oom_view_handle(struct viewer *viewer, enum request request);

#endif
