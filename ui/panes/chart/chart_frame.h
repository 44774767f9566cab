/* chart_frame: one frame of a chart pane, as its drawing files share it:
 * where the parts go in the pane's rectangle, what the chart shows (an
 * allocator's timeline in a time window, cut into columns) and what was
 * worked out from the columns (the y range, the capacity line, the
 * peak's and the cursor's columns).
 *
 * Internal to the chart: chart_frame.c holds the arithmetic every part
 * needs (a column's value, a value's row); chart_pane.c fills the frame
 * once per draw and calls chart_plot.c (title, bars, axes, legend) and
 * chart_readout.c (what is under the cursor); chart_events.c draws the list of a column's events
 * (Enter); chart_marks.c what a person marked on the time axis (the span
 * since the mark, where steps start). They only draw: no state changes,
 * no status line. */
#ifndef MEMTOP_CHART_FRAME_H
#define MEMTOP_CHART_FRAME_H

#include <stdbool.h>
#include <stdint.h>

#include <curses.h>

#include "model/profile.h"
#include "model/query/steps.h"
#include "ui/chart_columns.h"
#include "ui/panes/chart/chart_pane.h"
#include "ui/draw.h"
#include "ui/list_cursor.h"
#include "ui/time_window.h"

/* Where the parts of the chart go inside its rectangle. */
struct chart_geometry {
    int x, width;
    int title_y;
    int plot_y, plot_rows;
    int gutter_width; /* y-axis labels, left of the plot; 0 when narrow */
    int plot_x, plot_width;
    int axis_y;               /* time labels; -1 when there is no room */
    int legend_y;             /* the legend line; -1 when there is no room */
    int readout_y, readout_rows;
};

/* Where a step starts in a plot column: the first such step's id. */
struct chart_step_mark {
    bool starts;
    int64_t step_id;
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
    /* The allocator's reserved memory as a line over the bars: shown,
     * and the timeline records it (allocator_records_reserved). */
    bool show_reserved;
    bool show_fragmentation;
    bool auto_axis;     /* the y-axis from the lowest value shown, not 0 */
    bool capacity_axis; /* the y-axis up to the capacity */
    /* A compared timeline over the bars (chart_overlay.c): the binding's
     * overlay, and its columns when it draws a line (else NULL). */
    const struct chart_overlay *overlay;
    const struct chart_column *line_columns;
    /* The plot's columns where steps start (g.plot_width of them); NULL:
     * the time axis shows times, not steps. */
    const struct chart_step_mark *step_marks;
    /* The plot's columns holding an out-of-memory error (g.plot_width of
     * them); NULL when the allocator has none in the window. */
    const bool *oom_marks;
    struct chart_geometry g;
    /* Worked out from the columns. */
    int64_t bottom;    /* the value at the bottom of the plot (0 unless auto) */
    int64_t top;       /* the value at the top of the bars */
    int bar_rows;      /* rows the bars use (the capacity's row above them aside) */
    /* The capacity line's row from the bottom, -1 when it is not drawn;
     * capacity_above: the capacity is past the bars' top, so it has the
     * plot's top row to itself and the axis is cut below it. */
    int capacity_row;
    bool capacity_above;
    int peak_column;   /* the largest in-use column; -1 when none */
    int cursor_column;
    /* The time window's mark: its column (-1 before the window, the
     * width after it), when marked; the span from it to the cursor is
     * shaded. */
    bool marked;
    int mark_column;
    double fragmentation_top; /* what the top of the plot means for fragmentation (0..1] */
};

/* The value a column's bar reaches: in use, plus free memory when shown. */
int64_t chart_frame_column_value(const struct chart_frame *frame,
                                 const struct chart_column *column);
/* The reserved bytes of a column's snapshot (0 before the first). */
int64_t chart_frame_column_reserved(const struct chart_frame *frame,
                                    const struct chart_column *column);
/* A fragmentation value worth plotting (finite, not negative). */
bool chart_frame_fragmentation_valid(double value);

/* The row (from the bottom, 0-based) where a bar of this value ends. */
int chart_frame_value_row(const struct chart_frame *frame, int64_t value);

/* ---- a compared timeline over the bars (chart_overlay.c) ---- */

/* The overlay's line, one column per plot column, its first snapshot at
 * the bars' first; the columns past each timeline's last snapshot left
 * empty (bars included), since the window may reach past the shorter
 * one. false (nothing computed) when there is no line to draw. */
bool chart_overlay_compute(const struct chart_overlay *overlay,
                           const struct snapshot_columns *bars, const struct chart_window *plot,
                           struct chart_column *line_columns, struct chart_column *bar_columns);
/* The line's largest and smallest values into the frame's range. */
void chart_overlay_range(const struct chart_frame *frame, int64_t *top, int64_t *lowest);
/* The line: its glyph on the row of its value in each column. */
void chart_overlay_draw_line(const struct chart_frame *frame);
/* "━" (UTF-8) or "o": the line's glyph, for the legend too. */
const char *chart_overlay_glyph(const struct ui_style *style);

/* (chart_memory_map.c) An allocator without a timeline whose format
 * walks its memory: its memory map in the chart's rectangle; false when
 * it has none (or no room), and nothing was drawn. */
bool chart_memory_map_draw(const struct allocator *allocator, WINDOW *window,
                           const struct rect *rect, bool focused, const struct ui_style *style);

/* The title rule, the bars, the y axis, the time axis and the legend
 * (chart_plot.c). */
void chart_plot_draw(const struct chart_frame *frame);
/* The lines under the plot: the cursor's time and memory, then the
 * event there (chart_readout.c). */
void chart_readout_draw(const struct chart_frame *frame);

/* (chart_marks.c) A chart's steps, for the boundaries on its time axis:
 * those of `of`, built the first time they are shown for it. */
struct chart_steps {
    const struct allocator *of;
    struct step_table table;
    struct chart_step_mark marks[CHART_MAX_COLUMNS];
};
/* Where the steps of `allocator` start in the plot's columns; NULL when
 * they cannot be built (no memory). */
const struct chart_step_mark *chart_steps_marks(struct chart_steps *steps,
                                                const struct allocator *allocator,
                                                const struct chart_window *plot);
/* Lets go of the steps (another allocator, the chart's end). */
void chart_steps_forget(struct chart_steps *steps);
/* What an empty cell of plot column c shows: the span since the mark
 * shaded, a step's start; NULL: nothing. */
const char *chart_marks_empty_glyph(const struct chart_frame *frame, int c);
/* The time axis with the steps' ids where they start, instead of times;
 * the mark's column marked on it. */
void chart_marks_draw_steps_axis(const struct chart_frame *frame);
void chart_marks_draw_mark(const struct chart_frame *frame);
/* The allocator's out-of-memory errors in the plot's columns (marks:
 * CHART_MAX_COLUMNS of them); false when none is in the window. */
bool chart_marks_find_ooms(const struct allocator *allocator, const struct chart_window *plot,
                           bool *marks);
/* Their glyph on the plot's top row, over whatever is there. */
void chart_marks_draw_ooms(const struct chart_frame *frame);
/* The legend's items for them; false when one did not fit. */
bool chart_marks_legend(const struct chart_frame *frame,
                        bool (*item)(const struct chart_frame *frame, int *x, const char *glyph,
                                     attr_t attr, const char *label),
                        int *x);

/* The events of one column, listed over the screen (Enter on the chart):
 * which snapshots, and the one selected. */
struct chart_event_list {
    size_t first, count;      /* the snapshots [first, first + count) */
    struct list_cursor cursor; /* over them */
};
/* The list of the cursor's column, the event the readout shows
 * selected; false when the column holds none (chart_events.c). */
bool chart_events_open(struct chart_event_list *list, const struct time_window *time,
                       const struct snapshot_columns *timeline);
/* A movement request in the list: another event selected, the time
 * window's cursor on it; false for any other request. */
bool chart_events_move(struct chart_event_list *list, struct time_window *time,
                       const struct snapshot_columns *timeline, enum request request);
/* Draws the list in a box over the screen, keeping its selection in
 * view. */
void chart_events_draw(struct chart_event_list *list, const struct profile *profile,
                       const struct snapshot_columns *timeline, const struct time_window *time,
                       WINDOW *window, int rows, int cols, const struct ui_style *style);

#endif
