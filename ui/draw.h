/* draw: the drawing helpers every pane uses: styles, and text from a
 * profile drawn safely (escaped, cut to width with an ellipsis). Called
 * by every pane and overlay; nothing from a file may reach the terminal
 * except through draw_bytes() or draw_text(). Holds no state and knows
 * no pane. */
#ifndef MEMTOP_DRAW_H
#define MEMTOP_DRAW_H

#include <stdbool.h>

#include <curses.h>

#include "model/util/text.h"

struct ui_style {
    bool utf8;  /* UTF-8 locale and not --ascii: block glyphs, "…" */
    bool color; /* colours on: terminal has them, no NO_COLOR/--no-color */
    attr_t normal;
    attr_t title;              /* pane titles */
    attr_t selected;           /* selection in the focused pane */
    attr_t selected_unfocused; /* selection elsewhere */
    attr_t dim;                /* labels, axes */
    attr_t heap;               /* chart: heap / in use */
    attr_t stack;
    attr_t free_memory;
    attr_t fragmentation;
    attr_t peak;
    attr_t capacity;
    attr_t cursor;
    attr_t error;
    /* Two profiles compared: the compared timeline's line, and a delta
     * that grew or shrank (an arrow says which without colour too). */
    attr_t compared;
    attr_t grew;
    attr_t shrank;
};

/* Fills the attributes for a terminal with (color) or without colours.
 * With colours it sets up colour pairs, so curses must be running. */
void draw_style_init(struct ui_style *style, bool utf8, bool color);

/* Draws text (any bytes, from a profile, NUL included) at y, x in at
 * most width cells: made safe with format_safe_bytes, cut with "…" ("~"
 * in ASCII) when it does not fit. Returns the cells used. Never draws
 * past width. */
int draw_bytes(WINDOW *window, int y, int x, int width, struct text text,
               const struct ui_style *style);
/* The same, right-aligned in [x, x + width). */
int draw_bytes_right(WINDOW *window, int y, int x, int width, struct text text,
                     const struct ui_style *style);
/* Display width in cells of text as draw_bytes would show it. */
int draw_bytes_width(struct text text, const struct ui_style *style);
/* The same three for NUL-terminated text (ours, or a file's name). */
/* The mark of a name cut short: "…", or "+" in ASCII ("~" is the
 * chart's mark of a cut axis there, and the two must not read alike). */
const char *draw_ellipsis(const struct ui_style *style);
int draw_text(WINDOW *window, int y, int x, int width, const char *text,
              const struct ui_style *style);
int draw_text_right(WINDOW *window, int y, int x, int width, const char *text,
                    const struct ui_style *style);
int draw_text_width(const char *text, const struct ui_style *style);
/* The cells the character at *text takes as draw_text shows it (made
 * safe: "\x1b" for ESC takes 4); advances *text past it. first: it
 * starts the text drawn (a combining mark there shows as its code
 * point). *text must not be at the end. */
int draw_character_cells(const char **text, const struct ui_style *style, bool first);
/* A box title "─ Title ─" style line across the top of a pane area
 * (the title raw: a profile's text in it is escaped here, once). */
void draw_pane_title_bytes(WINDOW *window, int y, int x, int width, struct text title,
                           bool focused, const struct ui_style *style);
void draw_pane_title(WINDOW *window, int y, int x, int width, const char *title, bool focused,
                     const struct ui_style *style);
/* Blanks [x, x + width) on row y with the window's current attributes
 * (a selected row's bar). */
void draw_blank(WINDOW *window, int y, int x, int width);

/* A blank box with a frame (box-drawing lines, or ASCII), for overlays. */
void draw_box(WINDOW *window, int y, int x, int height, int width, const struct ui_style *style);

#endif
