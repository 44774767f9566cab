/* hosts_pane: the hosts list (shown with more than one host): each host
 * with its state as the background loader moves on ("loading 42%", a
 * failure) and, once loaded, the peak of the allocator the viewer shows
 * (the same memory id on every host) and its share of the capacity, so
 * the heaviest host stands out before any is opened. Enter opens the
 * host under the cursor; opening it is a follow-up the viewer carries
 * out, never done here. Owns its cursor; reads hosts only through their
 * published state (model/host_list.h). */
#ifndef MEMTOP_HOSTS_PANE_H
#define MEMTOP_HOSTS_PANE_H

#include <stddef.h>
#include <stdint.h>

#include "ui/pane.h"

struct viewer;

struct pane *hosts_pane_create(struct viewer *viewer);

#endif
