/* pod_pane: the pod overview, a full-screen view (the pane zoomed to the
 * body) of every host x allocator of the open run: peak, capacity, share
 * of the capacity and peak time, sortable by each (s cycles the column,
 * r reverses), Enter to open that host on that allocator. Hosts not
 * loaded yet show how far their load is and sort last. Multi-host jobs
 * have 4-256 hosts: this is where the one that ran out shows.
 * Reads hosts through their published state (model/host_list.h); owns
 * its cursor and sort. Opening and closing are follow-ups. */
#ifndef MEMTOP_POD_PANE_H
#define MEMTOP_POD_PANE_H

#include <stdbool.h>

#include "ui/pane.h"

struct viewer;

struct pane *pod_pane_create(struct viewer *viewer);
/* On screen while the viewer zooms it (the o key). */
bool pod_pane_available(const struct viewer *viewer);

#endif
