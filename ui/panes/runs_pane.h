/* runs_pane: a log directory's runs (shown when it has several), newest
 * first: each run's name as XProf gives it and how many hosts hold a
 * memory profile; moving over a run says its date and which memory
 * sources each host has (XSpace, MemoryProfile JSON); Enter opens it,
 * as a follow-up the viewer carries out. Reads the viewer's log
 * directory (model/logdir.h), which never changes; owns its cursor. */
#ifndef MEMTOP_RUNS_PANE_H
#define MEMTOP_RUNS_PANE_H

#include <stdbool.h>

#include "ui/pane.h"

struct viewer;

struct pane *runs_pane_create(struct viewer *viewer);
bool runs_pane_available(const struct viewer *viewer);

#endif
