/* layout: where each pane goes for a terminal size. Pure arithmetic (no
 * curses), so the tests check every size without a terminal. ui.c lays
 * out each frame; a pane's row in the pane table names its place. Knows
 * the places, not the panes.
 *
 *   header                                          (1 row)
 *   runs (a log directory's, when   | chart
 *         there are several)        |
 *   hosts (only with several hosts) |
 *   allocators                      |
 *   summary                         | table  (the HLO modules and the
 *   at peak by region  (when there  |         steps below it, as tabs when
 *   at peak by type     is room)    |         both; or they all share its
 *                                   |         place as tabs)
 *   status line                                     (1 row)
 *
 * Each pane's rectangle includes its title row. A pane zoomed to the
 * whole screen (the pod overview) takes `body`: all but the header and
 * the status line. */
#ifndef MEMTOP_LAYOUT_H
#define MEMTOP_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

#define LAYOUT_MIN_ROWS 15
#define LAYOUT_MIN_COLS 60
#define LAYOUT_MIN_CHART_ROWS 8

struct rect {
    int y, x;
    int height, width; /* 0 and 0 for a pane that is not shown */
};

struct layout {
    int rows, cols;
    bool too_small; /* below LAYOUT_MIN_*: only a message is drawn */
    struct rect header;
    struct rect runs;  /* empty without several runs, or no room */
    struct rect hosts; /* empty with one host */
    struct rect allocators;
    struct rect summary;
    struct rect by_region;    /* empty when the column is too short */
    struct rect by_data_type; /* empty when the column is too short */
    struct rect separator; /* the vertical rule between the columns */
    struct rect chart;
    struct rect table;
    struct rect hlo; /* the table area's second place (the HLO modules or
                        the steps); empty without one; equal to table when
                        tabbed */
    /* The table area's panes (the table, the HLO modules, the steps)
     * take turns in one place, as tabs. */
    bool hlo_tabbed;
    /* The panes of the second place (the HLO modules and the steps, when
     * both are there) take turns in it as tabs, below the table. */
    bool second_tabbed;
    struct rect status;
    struct rect body; /* between the header and the status line */
};

/* The places panes go (a pane's row in ui/pane_table.c names its place). */
enum layout_place {
    LAYOUT_PLACE_HOSTS,
    LAYOUT_PLACE_ALLOCATORS,
    LAYOUT_PLACE_SUMMARY,
    LAYOUT_PLACE_BY_REGION,
    LAYOUT_PLACE_BY_DATA_TYPE,
    LAYOUT_PLACE_CHART,
    LAYOUT_PLACE_TABLE, /* the table area's first place: its tabs when tabbed */
    LAYOUT_PLACE_HLO,   /* its second place, below the first */
    LAYOUT_PLACE_RUNS,
    LAYOUT_PLACE_BODY,  /* the whole body: a zoomed pane's */
};

/* more_table_panes: how many panes besides the table want the table
 * area: they go below the table when both places get ten rows (two or
 * more taking turns there as tabs), else every pane of the area takes
 * turns in its whole place. */
void layout_compute(struct layout *layout, int rows, int cols, size_t host_count,
                    size_t allocator_count, int more_table_panes);
/* The same with a runs list above the hosts when run_count > 1. */
void layout_compute_with_runs(struct layout *layout, int rows, int cols, size_t run_count,
                              size_t host_count, size_t allocator_count, int more_table_panes);

/* Moves the line between the two breakdowns so that the first has
 * `region_rows` rows (its title included), as far as the second keeps a
 * title and two rows: they list a few groups each, and an even split
 * would leave a gap under a short first list. */
void layout_share_breakdowns(struct layout *layout, int region_rows);
/* The breakdowns are not shown (a report without regions): the summary
 * above them takes their rows. */
void layout_drop_breakdowns(struct layout *layout);
/* The chart has nothing to show (a report without a timeline): the
 * table area takes its rows. */
void layout_drop_chart(struct layout *layout);
/* One breakdown only (a format that records a region but no data type,
 * or the other way round): it takes the other's rows too. */
void layout_keep_one_breakdown(struct layout *layout, bool keep_by_region);

/* The rectangle of a place (its own, also when tabbed). */
const struct rect *layout_place_rect(const struct layout *layout, enum layout_place place);

bool rect_is_empty(const struct rect *rect);
bool rect_contains(const struct rect *rect, int y, int x);
bool rect_overlaps(const struct rect *a, const struct rect *b);

#endif
