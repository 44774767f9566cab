/* chart_pane: memory over time for the selected allocator, with a cursor
 * and a readout line. Draws the viewer's time window (ui/time_window.h)
 * and moves it with its keys; owns only how it draws (free memory and
 * fragmentation shown or not) and the frame's columns. */
#ifndef MEMTOP_CHART_PANE_H
#define MEMTOP_CHART_PANE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <curses.h>

#include "ui/chart_columns.h"
#include "ui/keys.h"
#include "ui/pane.h"

struct viewer;

/* Plot columns drawn at most; a wider terminal gets a wider margin. */
#define CHART_MAX_COLUMNS 1024

struct chart_state {
    bool show_free;
    bool show_fragmentation;
    int last_plot_width;  /* columns of the plot at the last draw */
    int last_plot_offset; /* its first column, from the pane's left edge */
    /* The frame's columns: reused, so drawing allocates nothing. */
    struct chart_column columns[CHART_MAX_COLUMNS];
};

struct pane *chart_pane_create(struct viewer *viewer);

#endif
