/* chart_frame: one frame of a chart pane, as its drawing files share it:
 * where the parts go in the pane's rectangle, what the chart shows (an
 * allocator's timeline in a time window, cut into columns) and what was
 * worked out from the columns (the top of the plot, the peak's and the
 * cursor's columns).
 *
 * Internal to the chart: chart_pane.c fills it once per draw and calls
 * chart_plot.c (title, bars, axes) and chart_readout.c (what is under the
 * cursor). They only draw: no state changes, no status line. */
#ifndef MEMTOP_CHART_FRAME_H
#define MEMTOP_CHART_FRAME_H

#include <stdbool.h>
#include <stdint.h>

#include <curses.h>

#include "model/profile.h"
#include "ui/chart_columns.h"
#include "ui/draw.h"
#include "ui/time_window.h"

/* Where the parts of the chart go inside its rectangle. */
struct chart_geometry {
    int x, width;
    int title_y;
    int plot_y, plot_rows;
    int gutter_width; /* y-axis labels, left of the plot; 0 when narrow */
    int plot_x, plot_width;
    int right_x, right_width; /* fragmentation axis, when shown */
    int axis_y;               /* time labels; -1 when there is no room */
    int readout_y, readout_rows;
};

struct chart_frame {
    WINDOW *window;
    const struct ui_style *style;
    bool focused;
    const struct profile *profile;
    const struct allocator *allocator;
    const struct snapshot_columns *timeline; /* not empty */
    const struct time_window *time;
    const struct chart_column *columns; /* g.plot_width of them */
    bool show_free;
    bool show_fragmentation;
    struct chart_geometry g;
    /* Worked out from the columns. */
    int64_t top;       /* the value at the top of the plot */
    int peak_column;   /* the largest in-use column; -1 when none */
    int cursor_column;
    double fragmentation_top; /* the right axis's top (0..1] */
};

/* The value a column's bar reaches: in use, plus free memory when shown. */
int64_t chart_frame_column_value(const struct chart_frame *frame,
                                 const struct chart_column *column);
/* A fragmentation value worth plotting (finite, not negative). */
bool chart_frame_fragmentation_valid(double value);

/* The title rule, the bars, the y axis, the fragmentation axis and the
 * time axis (chart_plot.c). */
void chart_plot_draw(const struct chart_frame *frame);
/* The lines under the plot: the cursor's time and memory, then the
 * event there (chart_readout.c). */
void chart_readout_draw(const struct chart_frame *frame);

#endif
