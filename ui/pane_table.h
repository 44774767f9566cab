/* pane_table: the panes of the viewer, one row each: how an instance is
 * made, where it goes in the layout, whether it is a tab of the table
 * area, whether Tab can focus it, and when it is on screen. The viewer
 * creates, draws, focuses and dispatches to panes by walking this table,
 * so adding a pane is its file and a row here (and its id).
 *
 * Rows are in drawing and Tab order. Read by the viewer, the frame
 * (ui.c) and the status line; it holds no state. */
#ifndef MEMTOP_PANE_TABLE_H
#define MEMTOP_PANE_TABLE_H

#include <stdbool.h>

#include "ui/layout.h"
#include "ui/pane.h"

struct viewer;

enum pane_id {
    PANE_RUNS,       /* only with a log directory of several runs */
    PANE_HOSTS,      /* only when there is more than one host */
    PANE_ALLOCATORS,
    PANE_SUMMARY,
    PANE_BY_REGION,
    PANE_BY_DATA_TYPE,
    PANE_CHART,
    PANE_TABLE,
    PANE_HLO,        /* only when the profile has HLO modules */
    PANE_STEPS,      /* only when the allocator's timeline has steps */
    PANE_OOM,        /* only when the allocator has an out-of-memory error */
    PANE_SEGMENTS,   /* only when the allocator records its segments */
    PANE_POD,        /* the pod overview: only zoomed to the whole body */
    /* --compare's panes (only then, and then instead of the ones above) */
    PANE_COMPARE_PAIRS,
    PANE_COMPARE_SUMMARY,
    PANE_COMPARE_CHART,
    PANE_COMPARE_OPS,
    PANE_COUNT,
    PANE_NONE = PANE_COUNT
};

struct pane_row {
    /* Its name as a tab shows it ("HLO modules"). */
    const char *name;
    /* A new instance showing what the viewer has open; NULL when memory
     * runs out. */
    struct pane *(*create)(struct viewer *viewer);
    enum layout_place place;
    /* A tab of the table area: when the layout has too few rows for each
     * of them, they take turns in its first place and the focused one is
     * in front. */
    bool in_table_area;
    bool focusable;
    /* On screen now (its place may still be empty at a small size). */
    bool (*available)(const struct viewer *viewer);
};

const struct pane_row *pane_table_row(enum pane_id id);
/* Whether a pane is one of --compare's (PANE_COMPARE_*): the viewer
 * shows either those or the others, and remembers only the shown ones'
 * settings (two charts would write the same keys). */
bool pane_table_compares(enum pane_id id);

#endif
