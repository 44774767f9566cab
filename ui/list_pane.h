/* list_pane: the hosts list (shown with more than one host) and the
 * allocators list, two panes in one file. Moving in the allocators list
 * switches allocator at once; in the hosts list Enter opens the host
 * under the cursor, since opening one may load a large file. Each owns
 * its cursor; opening a host or showing an allocator is a follow-up the
 * viewer carries out, never done here. */
#ifndef MEMTOP_LIST_PANE_H
#define MEMTOP_LIST_PANE_H

#include "ui/pane.h"

struct viewer;

struct pane *list_pane_create_hosts(struct viewer *viewer);
struct pane *list_pane_create_allocators(struct viewer *viewer);

#endif
