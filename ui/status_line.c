#include "config.h"

#include "ui/status_line.h"

#include <stdio.h>
#include <string.h>

#include "model/format.h"
#include "model/query/oom.h"
#include "ui/keys.h"
#include "ui/pane_table.h"

/* The Tab hint: in a place whose panes take turns as tabs, the tab Tab
 * (or Shift-Tab) brings to the front; else "Tab pane". */
static void tab_hint(const struct viewer *viewer, char *text, size_t size)
{
    enum pane_id next = viewer_next_tab(viewer, viewer->focus);
    enum pane_id previous = viewer_focus_neighbour(viewer, -1);
    if (next != PANE_NONE)
        snprintf(text, size, "Tab %s", pane_table_row(next)->name);
    else if (viewer_pane_tabbed(viewer, viewer->focus) && previous < viewer->focus &&
             viewer_pane_tabbed(viewer, previous))
        snprintf(text, size, "Shift-Tab %s", pane_table_row(previous)->name);
    else
        snprintf(text, size, "Tab pane");
}

/* The keys that work anywhere worth a hint, after the pane's own: o
 * where the profile records an out-of-memory error, the pod overview's
 * with several hosts only. */
static size_t global_hints(const struct viewer *viewer, enum request *hints)
{
    size_t count = 0;
    hints[count++] = REQUEST_FOCUS_NEXT;
    hints[count++] = REQUEST_ALLOCATOR_NEXT;
    hints[count++] = REQUEST_HELP;
    bool one = !viewer_comparing(viewer);
    if (one && viewer->profile && profile_oom_count(viewer->profile) > 0)
        hints[count++] = REQUEST_OOM_NEXT;
    if (one && viewer->hosts->count >= 2 && viewer->zoomed == PANE_NONE)
        hints[count++] = REQUEST_POD_OVERVIEW;
    if (!one && viewer->compare.host_pairs >= 2)
        hints[count++] = REQUEST_COMPARE_HOST_NEXT;
    return count;
}

/* What the focused pane's keys are, for someone who has not read help:
 * from the key table, its movement keys when it moves through items,
 * its own keys, then a few keys that work anywhere. */
static void pane_hints(const struct viewer *viewer, char *line, size_t size)
{
    const struct pane_ops *ops = viewer->panes[viewer->focus]->ops;
    enum key_scope scopes[2];
    size_t count = 0;
    if (ops->moves_through_items)
        scopes[count++] = KEY_SCOPE_PANE;
    if (ops->scope != KEY_SCOPE_GLOBAL)
        scopes[count++] = ops->scope;
    char tab[64];
    tab_hint(viewer, tab, sizeof tab);
    enum request hints[8];
    size_t globals = global_hints(viewer, hints);
    keys_hint_line(scopes, count, hints, globals, tab, line, size);
}

/* Skips leading characters of text until the rest fits in width cells:
 * the end of a long prompt, where the typing happens, stays in view. */
static const char *tail_that_fits(const char *text, int width, const struct ui_style *style)
{
    while (*text && draw_text_width(text, style) > width) {
        uint32_t code_point;
        size_t length = format_utf8_decode(text, &code_point);
        text += length ? length : 1;
    }
    return text;
}

static int draw_prompt(struct viewer *viewer, WINDOW *window, int y, int x, int width)
{
    const struct ui_style *style = &viewer->style;
    const struct prompt *prompt = &viewer->prompt;
    wattrset(window, style->title);
    int used = draw_text(window, y, x, width, prompt->label, style);
    wattrset(window, style->normal);
    if (used < width)
        used += draw_text(window, y, x + used, 1, " ", style);
    int room = width - used - 1; /* a cell for the cursor */
    const char *shown = tail_that_fits(prompt->text, room, style);
    used += draw_text(window, y, x + used, room, shown, style);
    return x + used;
}

bool status_line_draw(struct viewer *viewer, WINDOW *window, int y, int x, int width,
                      int *cursor_x)
{
    const struct ui_style *style = &viewer->style;
    wattrset(window, style->normal);
    draw_blank(window, y, x, width);
    if (viewer->overlay == OVERLAY_HELP) {
        wattrset(window, style->dim);
        draw_text(window, y, x, width, "j/k scroll  Esc close", style);
        wattrset(window, style->normal);
        return false;
    }
    if (viewer->prompt.active) {
        *cursor_x = draw_prompt(viewer, window, y, x, width);
        return true;
    }
    if (viewer->status_length > 0 && viewer->status[0]) {
        wattrset(window, viewer->status_is_error ? style->error : style->normal);
        draw_bytes(window, y, x, width, text_make(viewer->status, viewer->status_length), style);
        wattrset(window, style->normal);
        return false;
    }
    int used = 0;
    if (viewer->allocator && query_filter(&viewer->query)[0]) {
        char filter[320];
        snprintf(filter, sizeof filter, "filter: %s (Esc clears)  ", query_filter(&viewer->query));
        wattrset(window, style->title);
        used = draw_text(window, y, x, width, filter, style);
    }
    char hints[512];
    pane_hints(viewer, hints, sizeof hints);
    wattrset(window, style->dim);
    draw_text(window, y, x + used, width - used, hints, style);
    wattrset(window, style->normal);
    return false;
}

void status_line_show_now(struct viewer *viewer, const char *text)
{
    int row = LINES - 1;
    if (row < 0)
        return;
    wattrset(stdscr, viewer->style.normal);
    draw_blank(stdscr, row, 0, COLS);
    draw_text(stdscr, row, 0, COLS, text, &viewer->style);
    wnoutrefresh(stdscr);
    doupdate();
}
