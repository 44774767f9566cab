/* list_pane: the allocators list. Moving in it switches allocator at
 * once (the hosts list, where Enter opens a host since opening one may
 * load a large file, is ui/hosts_pane.c). It owns its cursor; showing an
 * allocator is a follow-up the viewer carries out, never done here. */
#ifndef MEMTOP_LIST_PANE_H
#define MEMTOP_LIST_PANE_H

#include "ui/pane.h"

struct viewer;

struct pane *list_pane_create_allocators(struct viewer *viewer);

#endif
