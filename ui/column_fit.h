/* column_fit: the columns of a table pane fitted to its width, from a
 * list of column descriptors (heading, alignment, least and largest
 * width, the order they shrink and hide in) and the widest text of each.
 * The last column takes what is left (names run long: it keeps two
 * fifths of the width, or what its widest text needs when less). When the width runs short, columns shrink in
 * their shrink order down to their least width, then hide in their hide
 * order. Which columns show never depends on the sort: a column the
 * caller keeps (the sorted one) is shown where it belongs even when it
 * would hide, taking its room from the last column only (then shrinking
 * itself, then, on a very narrow pane, hiding others). A pane scrolled
 * sideways leaves out its first columns, and the rest fit the room.
 *
 * Every table pane (the allocations, the HLO modules) fits its columns
 * here; a table of columns from the model (one descriptor per column)
 * plugs in as a list of descriptors. Draws only headings and cells where
 * the fit put them; holds no state. */
#ifndef MEMTOP_COLUMN_FIT_H
#define MEMTOP_COLUMN_FIT_H

#include <stdbool.h>
#include <stddef.h>

#include <curses.h>

#include "ui/draw.h"

#define COLUMN_FIT_MAX 16

struct fit_column {
    const char *heading;
    bool right_aligned;
    int minimum;     /* shrinks to this before it hides; for the last column,
                        the least it keeps */
    int maximum;     /* grows to at most this; 0: no limit */
    int shrink_rank; /* 1, 2, ...: who shrinks first when narrow; 0: never */
    int hide_rank;   /* 1, 2, ...: who hides first after that; 0: never */
    /* Not shown when no cell has text (natural width 0): a column only
     * some formats fill (a Skyline report has no region, XProf no
     * location). */
    bool hide_when_empty;
    /* A cell too narrow for its text is cut in the middle, keeping a
     * path's last components (ui/text_fit.h), not at its end. */
    bool shorten_middle;
};

/* Where each column goes, from the pane's left edge. */
struct column_fit {
    bool shown[COLUMN_FIT_MAX];
    int x[COLUMN_FIT_MAX];
    int width[COLUMN_FIT_MAX];
    size_t count;    /* columns fitted */
    size_t skipped;  /* first columns left out by a sideways scroll */
    int last_offset; /* cells of the last column's text scrolled off */
};

/* Gives each of `count` columns a place in `width` cells. natural[c]:
 * the widest text of column c; heading_extra: cells a heading needs
 * beside its text (a sort arrow); keep: a column that never hides (-1:
 * none). */
void column_fit_compute(const struct fit_column *columns, size_t count, const int *natural,
                        int heading_extra, int keep, int width, struct column_fit *fit);
/* The same scrolled sideways by `scroll` steps: a step leaves out the
 * first column still shown, and once only the last is left, 8 more
 * cells of its text. The scroll is cut to what the columns allow and
 * written back. */
void column_fit_compute_scrolled(const struct fit_column *columns, size_t count,
                                 const int *natural, int heading_extra, int keep, int width,
                                 int *scroll, struct column_fit *fit);

/* The text of cell (row, column): a profile's bytes, or numbers written
 * into buffer. */
typedef struct text (*column_fit_cell)(const void *context, size_t row, size_t column,
                                       char *buffer, size_t size);
/* natural[c] = the widest cell of column c over `rows` rows, as drawn. */
void column_fit_measure(size_t count, size_t rows, column_fit_cell cell, const void *context,
                        const struct ui_style *style, int *natural);

/* The headings on row y, the pane's left edge at x: the sorted column
 * (-1: none) with an arrow, in the title style. */
void column_fit_draw_headings(WINDOW *window, int y, int x, const struct fit_column *columns,
                              size_t count, const struct column_fit *fit, int sorted,
                              bool descending, const struct ui_style *style);
/* One cell, aligned as its column says, in the current attributes; the
 * last column's text past fit->last_offset, a middle-shortened column
 * cut in its middle. */
void column_fit_draw_cell(WINDOW *window, int y, int x, const struct fit_column *columns,
                          const struct column_fit *fit, size_t column, struct text text,
                          const struct ui_style *style);

#endif
