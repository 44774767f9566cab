/* list_search: `/` and n/N in the list panes (runs, hosts, allocators,
 * steps, HLO modules): `/` asks for a text on the status line and moves
 * the list's cursor to the first item holding it (ASCII letters in any
 * case) as it is typed; n and N go to the next and previous item that
 * holds it, round the end. Esc puts the cursor back where it was.
 * Called by those panes' handlers, which give their cursor, their item
 * count and how an item reads. The search state is the viewer's (one
 * prompt at a time): the pane that asked keeps the cursor it gave alive
 * while the viewer runs. Must not: draw, or open what the cursor lands
 * on except through the follow-up the pane names (the allocators list
 * shows an allocator as soon as its cursor moves). */
#ifndef MEMTOP_LIST_SEARCH_H
#define MEMTOP_LIST_SEARCH_H

#include <stdbool.h>
#include <stddef.h>

#include "ui/keys.h"
#include "ui/pane.h"
#include "ui/pane_table.h"

struct viewer;

/* How item `index` of the list reads (its name), into buffer or not. */
typedef const char *(*list_item_text_fn)(const struct viewer *viewer, struct pane *pane,
                                         size_t index, char *buffer, size_t size);

struct list_search {
    char text[128]; /* the text searched for last ("" none) */
    /* Of the search the prompt is open for: */
    struct list_cursor *cursor;
    struct pane *pane;
    size_t count;
    list_item_text_fn item_text;
    enum follow_up_kind on_move; /* FOLLOW_UP_NONE: moving opens nothing */
    enum pane_id from;
    size_t origin; /* the cursor before `/` */
};

/* The list a pane offers to search. */
struct list_search_list {
    struct list_cursor *cursor;
    struct pane *pane;
    enum pane_id id;
    size_t count;
    list_item_text_fn item_text;
    enum follow_up_kind on_move;
};

/* REQUEST_FILTER starts the search, REQUEST_MATCH_NEXT/PREVIOUS go on
 * with the last text: true when `request` was one of them (n/N with no
 * text searched yet are not: they go where they went before). */
bool list_search_handle(struct viewer *viewer, const struct list_search_list *list,
                        enum request request);

#endif
