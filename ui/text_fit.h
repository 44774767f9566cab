/* text_fit: one text from a profile in fewer cells than it needs, as a
 * table's cell shows it: an op name cut in its middle so that its end,
 * which tells ops apart, stays ("gradients/…/dense_58/MatMul"), or the
 * text past its first cells (a column scrolled sideways).
 *
 * Works on display cells as draw_text shows the text (UTF-8, wide
 * characters, and the escapes draw_text writes for controls: "\x1b"
 * takes four cells), and cuts only between characters. What it returns
 * is still raw text, for draw_text to make safe. Called by the table
 * pane through column_fit; pure: no curses, no state. */
#ifndef MEMTOP_TEXT_FIT_H
#define MEMTOP_TEXT_FIT_H

#include <stddef.h>

#include "ui/draw.h"

/* `text` in at most `cells` cells: the text itself when it fits, else
 * written into buffer (size bytes) with an ellipsis ("…", "~" in ASCII)
 * for what is left out:
 *   - a path ("a/b/c/d") keeps its first component and as many of its
 *     last ones as fit ("a/…/c/d"); when not even the last one fits
 *     beside the first, the last ones alone ("…/c/d"); a last component
 *     that does not fit alone keeps its end ("…atMul");
 *   - other text keeps its start, as draw_text would ("unused
 *     preallocated d…").
 * Returns text or buffer; "" when cells < 1. */
const char *text_fit_middle(const char *text, int cells, const struct ui_style *style,
                            char *buffer, size_t size);

/* The text past its first `cells` cells (never cutting a character: a
 * character across the edge is left out whole). */
const char *text_fit_skip(const char *text, int cells, const struct ui_style *style);

#endif
