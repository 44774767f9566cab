/* chart_pane: memory over time for the selected allocator, with a cursor
 * and a readout line. Owns the zoom window and the cursor. */
#ifndef MEMTOP_CHART_PANE_H
#define MEMTOP_CHART_PANE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <curses.h>

#include "ui/chart_columns.h"
#include "ui/keys.h"

struct viewer;

/* Plot columns drawn at most; a wider terminal gets a wider margin. */
#define CHART_MAX_COLUMNS 1024

struct chart_state {
    int64_t from_ps;      /* visible time window, inclusive */
    int64_t to_ps;
    int64_t cursor_ps;    /* time under the cursor */
    bool show_free;
    bool show_fragmentation;
    int last_plot_width;  /* columns of the plot at the last draw */
    int last_plot_offset; /* its first column, from the pane's left edge */
    /* The snapshot the readout shows after a jump (peak, a table row, a
     * search match); SIZE_MAX: the cursor column's largest. */
    size_t pinned;
    /* The frame's columns: reused, so drawing allocates nothing. */
    struct chart_column columns[CHART_MAX_COLUMNS];
};

/* Full time range, cursor at the peak; call when the allocator changes. */
void chart_pane_reset(struct viewer *viewer);
void chart_pane_draw(struct viewer *viewer, WINDOW *window, int y, int x, int height, int width,
                     bool focused);
/* true when the request was the chart's to handle. */
bool chart_pane_handle(struct viewer *viewer, enum request request);
/* A mouse click `column` cells from the pane's left edge: the cursor to
 * that column of the plot (a click beside the plot does nothing). */
void chart_pane_click(struct viewer *viewer, int column);
/* Cursor to the snapshot nearest time_ps, scrolling the window to show it. */
void chart_pane_jump_to_time(struct viewer *viewer, int64_t time_ps);
/* Zoom to [from_ps, to_ps]; false (and a status message) when it holds no snapshot. */
bool chart_pane_zoom_to(struct viewer *viewer, int64_t from_ps, int64_t to_ps);

#endif
