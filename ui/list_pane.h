/* list_pane: the hosts list (shown with more than one host) and the
 * allocators list. Moving in the allocators list switches allocator at
 * once; in the hosts list Enter opens the host under the cursor, since
 * opening one may load a large file. */
#ifndef MEMTOP_LIST_PANE_H
#define MEMTOP_LIST_PANE_H

#include "ui/pane.h"

struct viewer;

struct pane *list_pane_create_hosts(struct viewer *viewer);
struct pane *list_pane_create_allocators(struct viewer *viewer);

#endif
