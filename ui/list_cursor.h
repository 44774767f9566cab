/* list_cursor: where a person is in a list: the selected item and the
 * first item shown, moved by the movement requests (up, down, a page,
 * first, last) and kept on screen. Every pane and overlay that scrolls
 * (hosts, allocators, the allocations table, the HLO modules, the help)
 * moves through one, so paging means the same everywhere.
 *
 * Owned by the pane that embeds it; the pane says how many items there
 * are and how many rows it showed. Knows nothing of curses or of what
 * the items are, and never draws. */
#ifndef MEMTOP_LIST_CURSOR_H
#define MEMTOP_LIST_CURSOR_H

#include <stdbool.h>
#include <stddef.h>

#include "ui/keys.h"

struct list_cursor {
    size_t selected; /* the selected item (0 when the list is empty) */
    size_t top;      /* the first item shown */
    int shown_rows;  /* item rows at the last draw: a page is one less */
};

/* Moves the selection for a movement request and keeps it in view;
 * false (nothing changed) for any other request. */
bool list_cursor_move(struct list_cursor *cursor, size_t count, enum request request);
/* The same for a list without a selection (text to read): the view
 * moves. */
bool list_cursor_scroll(struct list_cursor *cursor, size_t count, enum request request);

/* Before drawing `rows` item rows: remembers them for paging, keeps the
 * selection inside [0, count) and in view. */
void list_cursor_fit(struct list_cursor *cursor, size_t count, int rows);
/* The same for a list without a selection: the view stays inside. */
void list_cursor_fit_view(struct list_cursor *cursor, size_t count, int rows);

/* The item on shown row `row` (0: the first item row); false when the
 * row holds none (a click below the last item). */
bool list_cursor_item_at(const struct list_cursor *cursor, size_t count, int row, size_t *item);

#endif
