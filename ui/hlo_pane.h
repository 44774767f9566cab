/* hlo_pane: the profile's HLO modules; Enter zooms the chart to one. */
#ifndef MEMTOP_HLO_PANE_H
#define MEMTOP_HLO_PANE_H

#include <stdbool.h>
#include <stddef.h>

#include <curses.h>

#include "model/profile.h"
#include "ui/keys.h"
#include "ui/list_cursor.h"
#include "ui/pane.h"

struct viewer;

struct hlo_state {
    struct list_cursor cursor; /* the selected module */
    const struct profile *measured; /* whose modules natural[] measured */
    int natural[6];
};

void hlo_pane_reset(struct viewer *viewer);
struct pane *hlo_pane_create(struct viewer *viewer);
/* On screen when the profile has HLO modules and an allocator is shown. */
bool hlo_pane_available(const struct viewer *viewer);

#endif
