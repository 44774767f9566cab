/* table_view: the allocations table pane's own pieces, shared by its
 * three files and by nobody else: table_pane.c (the pane: keys, the
 * selection, settings, export), table_rows.c (the rows: columns, cells,
 * the title, the note under them) and table_groups.c (the rows grouped
 * by op scope, location or file, ncdu-style).
 *
 * The pane shows either rows (the query's: ungrouped, or the rows of an
 * open group) or groups (the level of a grouping). The open group is
 * the query's (allocation_table_set_within), so the title, the totals,
 * the export and the breakdowns follow it; the grouping key and the
 * cursors are the pane's. Works on whatever rows the query's source
 * gives (at the peak, live at a time): never on an allocator's rows. */
#ifndef MEMTOP_TABLE_VIEW_H
#define MEMTOP_TABLE_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/query/allocation_table.h"
#include "model/query/row_groups.h"
#include "ui/column_fit.h"
#include "ui/list_cursor.h"
#include "ui/pane.h"

struct viewer;

/* The rows' columns as drawn (table_rows.c's shown_columns). */
#define TABLE_SHOWN_COUNT 12

struct table_pane {
    struct pane pane;
    /* ---- rows ---- */
    struct list_cursor cursor; /* the selected row, by display position */
    /* The selected row (an index into the source's rows) when the query
     * was last seen: a filter or a sort keeps it selected. */
    size_t selected_row;
    unsigned query_generation;
    int natural[TABLE_SHOWN_COUNT]; /* each column's widest text, measured once per source */
    const struct allocation_row *measured_rows; /* the source measured */
    size_t measured_count;
    struct fit_column fit[TABLE_SHOWN_COUNT];
    int scroll; /* sideways steps (column_fit_compute_scrolled) */
    /* ---- groups ---- */
    enum row_group_key group_key; /* ROW_GROUP_NONE: not grouped */
    struct row_groups groups;     /* the level shown, for groups_generation */
    bool groups_valid;
    unsigned groups_generation;
    struct list_cursor group_cursor;
    /* The selected group by name (malloc'd, selected_group_length
     * bytes; NULL: none), and for a
     * single row its index in the source: the selection survives a
     * rebuild. */
    char *selected_group;
    size_t selected_group_length;
    size_t selected_group_row;
    int group_natural[4];
    /* ---- the least size shown: an index into table_min_sizes ---- */
    size_t min_size;
};

/* ---- table_pane.c ---- */
struct table_pane *table_of(struct pane *pane);
/* The rows changed under the selection: the same row stays selected. */
void table_follow_query(struct table_pane *table, const struct viewer *viewer);
/* Remembers the selected row, for when the rows change under it. */
void table_remember_selection(struct table_pane *table, const struct viewer *viewer);

/* ---- table_rows.c: the rows ---- */
/* The columns' descriptors, from the model's column table. */
void table_rows_fit_columns(struct fit_column *fit);
/* Once per source: each column's widest text over all its rows. */
void table_rows_measure(struct table_pane *table, const struct viewer *viewer);
/* Draws the headings and rows under the title (y: the title's row). */
void table_rows_draw(struct table_pane *table, struct viewer *viewer, const struct pane_area *area);
/* The columns the rows have, left to right (TABLE_SHOWN_COUNT at most),
 * as the sort keys step through them; returns how many. */
size_t table_rows_drawn_order(const struct table_pane *table, enum table_column *order);
/* The title: what the rows are, how many, their total (kept at any
 * width), the threshold, the grouping and the filter as room allows. */
void table_title(const struct table_pane *table, const struct viewer *viewer, int width,
                 char *title, size_t size);

/* ---- table_groups.c: the groups ---- */
/* Whether the pane shows groups now (else rows): grouped, at a level
 * that has groups. Builds them when the query changed. */
bool table_groups_shown(struct table_pane *table, const struct viewer *viewer);
/* The key the pane groups by now: its own, or none when the rows have
 * no such thing (no location in an XProf file). */
enum row_group_key table_group_key(const struct table_pane *table, const struct viewer *viewer);
void table_groups_draw(struct table_pane *table, struct viewer *viewer,
                       const struct pane_area *area);
/* Keys on the groups: movement, Enter (open a group; a single row's
 * detail), a click. */
struct pane_reply table_groups_handle(struct table_pane *table, struct viewer *viewer,
                                      enum request request);
bool table_groups_click(struct table_pane *table, struct viewer *viewer, int row, bool again,
                        struct pane_reply *reply);
/* Out of the open group, the group left selected; false when none is open. */
bool table_groups_up(struct table_pane *table, struct viewer *viewer);
/* t: the next grouping. */
void table_groups_next_key(struct table_pane *table, struct viewer *viewer);
/* The open group's name ("" when none). */
const char *table_groups_open(const struct viewer *viewer);
/* The row a detail shows from the groups (a single row's); SIZE_MAX none. */
size_t table_groups_selected_position(struct table_pane *table, const struct viewer *viewer);
void table_groups_free(struct table_pane *table);

#endif
