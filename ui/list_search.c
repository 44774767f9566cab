/* list_search: see list_search.h. Matching folds ASCII case only: names
 * are host names, run folders and op names, mostly ASCII; other bytes
 * must be typed as they are. */
#include "config.h"

#include "ui/list_search.h"

#include <stdio.h>
#include <string.h>

#include "ui/viewer.h"

static char fold(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool holds(const char *text, const char *wanted)
{
    size_t length = strlen(wanted);
    for (; *text; text++) {
        size_t i = 0;
        while (i < length && text[i] && fold(text[i]) == fold(wanted[i]))
            i++;
        if (i == length)
            return true;
    }
    return length == 0;
}

/* The first item from `start` (included), going `direction`, holding
 * the text, round the end; false when none does. */
static bool search_from(const struct viewer *viewer, const struct list_search_list *list,
                        const char *wanted, size_t start, int direction, size_t *found)
{
    char buffer[512];
    for (size_t step = 0; step < list->count; step++) {
        size_t index = direction > 0 ? (start + step) % list->count
                                     : (start + list->count - step % list->count) % list->count;
        const char *text = list->item_text(viewer, list->pane, index, buffer, sizeof buffer);
        if (text && holds(text, wanted)) {
            *found = index;
            return true;
        }
    }
    return false;
}

/* "/w-1: t1v-n-0c5c7fd0-w-10 (2 of 3)" on the status line. */
static void say_where(struct viewer *viewer, const struct list_search_list *list,
                      const char *wanted, size_t index)
{
    char buffer[512], name[512];
    size_t matches = 0, place = 0;
    for (size_t i = 0; i < list->count; i++) {
        const char *text = list->item_text(viewer, list->pane, i, buffer, sizeof buffer);
        if (text && holds(text, wanted)) {
            matches++;
            if (i == index) {
                place = matches;
                snprintf(name, sizeof name, "%s", text);
            }
        }
    }
    viewer_status(viewer, false, "/%s: %s (%zu of %zu)", wanted, place ? name : "", place,
                  matches);
}

/* The cursor to `index`, and what moving there opens. */
static void move_to(struct viewer *viewer, const struct list_search_list *list, size_t index,
                    const char *wanted)
{
    list->cursor->selected = index;
    if (list->on_move != FOLLOW_UP_NONE) {
        struct follow_up follow_up = follow_up_of(list->on_move, index);
        viewer_follow_up(viewer, list->id, &follow_up);
    }
    say_where(viewer, list, wanted, index);
}

static struct list_search_list open_list(const struct list_search *search)
{
    return (struct list_search_list){search->cursor, search->pane, search->from, search->count,
                                     search->item_text, search->on_move};
}

static void search_changed(struct viewer *viewer, const char *text)
{
    struct list_search *search = &viewer->list_search;
    struct list_search_list list = open_list(search);
    size_t found;
    if (text[0] && search_from(viewer, &list, text, search->origin, 1, &found))
        search->cursor->selected = found;
    else
        search->cursor->selected = search->origin;
}

static void search_accepted(struct viewer *viewer, const char *text)
{
    struct list_search *search = &viewer->list_search;
    snprintf(search->text, sizeof search->text, "%s", text);
    struct list_search_list list = open_list(search);
    size_t found;
    if (!text[0])
        return;
    if (search_from(viewer, &list, text, search->origin, 1, &found))
        move_to(viewer, &list, found, text);
    else
        viewer_status(viewer, true, "no item holds '%s'", text);
}

static void search_cancelled(struct viewer *viewer, const char *text)
{
    (void)text;
    struct list_search *search = &viewer->list_search;
    search->cursor->selected = search->origin;
}

bool list_search_handle(struct viewer *viewer, const struct list_search_list *list,
                        enum request request)
{
    struct list_search *search = &viewer->list_search;
    if (request == REQUEST_FILTER) {
        search->cursor = list->cursor;
        search->pane = list->pane;
        search->count = list->count;
        search->item_text = list->item_text;
        search->on_move = list->on_move;
        search->from = list->id;
        search->origin = list->cursor->selected;
        viewer_prompt_begin(viewer, "search:", "", search_changed, search_accepted,
                            search_cancelled);
        return true;
    }
    if ((request != REQUEST_MATCH_NEXT && request != REQUEST_MATCH_PREVIOUS) ||
        !search->text[0])
        return false;
    int direction = request == REQUEST_MATCH_NEXT ? 1 : -1;
    size_t start = list->count ? (list->cursor->selected + list->count + (size_t)direction) %
                                     list->count
                               : 0;
    size_t found;
    if (list->count && search_from(viewer, list, search->text, start, direction, &found))
        move_to(viewer, list, found, search->text);
    else
        viewer_status(viewer, true, "no item holds '%s'", search->text);
    return true;
}
