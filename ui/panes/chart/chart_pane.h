/* chart_pane: memory over time for one allocator, with a cursor and a
 * readout of what is under it. A chart instance is told what it shows:
 * which profile and allocator (slots it reads, so it follows when they
 * change) and which time window it draws and moves with its keys. The
 * viewer's chart shows what the viewer has open in the viewer's time
 * window; a second instance (another profile, compared) is another
 * binding, not another copy of the code; a compared timeline is drawn
 * over the bars when the binding has an overlay.
 *
 * Owns how it draws (free memory, fragmentation shown or not) and the
 * frame's columns. Never changes what is open; its keys move only its
 * time window. Drawing is in chart_plot.c and chart_readout.c. */
#ifndef MEMTOP_CHART_PANE_H
#define MEMTOP_CHART_PANE_H

#include "model/profile.h"
#include "ui/pane.h"
#include "ui/time_window.h"

struct viewer;

/* Plot columns drawn at most; a wider terminal gets a wider margin. */
#define CHART_MAX_COLUMNS 1024

/* A second timeline over a chart's bars (two profiles compared): drawn
 * as a line of its own glyph, aligned with the bars at their first
 * snapshots; the y range covers both and the legend names each. The
 * binder owns it and may change it between frames. */
struct chart_overlay {
    const struct profile *profile;
    const struct allocator *allocator; /* NULL: no line (one side only) */
    const char *line_name;             /* the legend's name of the line */
    const char *bars_name;             /* and of the bars */
    const char *title;                 /* instead of "Memory" */
};

struct chart_binding {
    const struct profile *const *profile;
    const struct allocator *const *allocator; /* *allocator may be NULL */
    struct time_window *time;
    const struct chart_overlay *overlay; /* NULL: a chart of one timeline */
};

/* A chart of what the viewer has open, in the viewer's time window. */
struct pane *chart_pane_create(struct viewer *viewer);
/* A chart of whatever the binding points at. */
struct pane *chart_pane_create_bound(struct chart_binding binding);

#endif
