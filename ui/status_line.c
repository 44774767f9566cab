#include "config.h"

#include "ui/status_line.h"

#include <stdio.h>
#include <string.h>

#include "model/format.h"

/* What the focused pane's keys are, for someone who has not read help. */
static const char *pane_hints(const struct viewer *viewer)
{
    if (!viewer->allocator && viewer->focus != PANE_HOSTS)
        return "Tab pane  ? help  q quit";
    switch (viewer->focus) {
    case PANE_HOSTS: return "j/k move  Enter open host  Tab pane  ? help";
    case PANE_ALLOCATORS: return "j/k or [ ] allocator  Enter table  Tab pane  ? help";
    case PANE_CHART:
        return "h/l cursor  +/- zoom  0 all  p peak  f free  F frag  [ ] allocator  Tab pane";
    case PANE_TABLE:
        if (viewer->layout.hlo_tabbed)
            return "j/k row  Enter detail  / filter  s sort  [ ] allocator  Tab HLO modules";
        return "j/k row  Enter detail  / filter  s sort  r reverse  [ ] allocator  Tab pane";
    case PANE_HLO:
        if (viewer->layout.hlo_tabbed)
            return "j/k module  Enter zoom the chart to it  Shift-Tab allocations  ? help";
        return "j/k module  Enter zoom the chart to it  Tab pane  ? help";
    default: return "Tab pane  ? help  q quit";
    }
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
    if (viewer->status[0]) {
        wattrset(window, viewer->status_is_error ? style->error : style->normal);
        draw_text(window, y, x, width, viewer->status, style);
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
    wattrset(window, style->dim);
    draw_text(window, y, x + used, width - used, pane_hints(viewer), style);
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
