#include "config.h"

#include "ui/panes/list_pane.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/format.h"
#include "report/summary_report.h"
#include "ui/list_cursor.h"
#include "ui/viewer.h"

/* A list pane: its cursor, and what it last started over for. */
struct list_pane {
    struct pane pane;
    struct list_cursor cursor;
};

static struct list_pane *list_of(struct pane *pane)
{
    return (struct list_pane *)pane;
}

/* The left edge of an item: a marker (or a blank) and a space; a marker
 * shows what is current without colour or reverse video. */
#define MARKER_WIDTH 2
/* "100%", "0.9%": the peak's share of the capacity. */
#define LIST_SHARE_WIDTH 4
static int draw_marker(WINDOW *window, int y, int x, bool marked, const char *glyph)
{
    mvwaddstr(window, y, x, marked ? glyph : " ");
    return MARKER_WIDTH;
}

/* ---- allocators ---- */

static void draw_allocator(struct viewer *viewer, WINDOW *window, int y, int x, int width,
                           size_t index, bool focused)
{
    const struct ui_style *style = &viewer->style;
    const struct allocator *allocator = &viewer->profile->allocators[index];
    bool current = index == viewer->allocator_index;
    attr_t attr = current ? (focused ? style->selected : style->selected_unfocused) : style->normal;
    wattrset(window, attr);
    draw_blank(window, y, x, width);
    int used = draw_marker(window, y, x, current, style->utf8 ? "\xe2\x96\xb8" : ">");
    /* The peak and its share of the capacity ("7.17 GiB  49%"), the
     * share first to go when the name needs the room. */
    char peak[FORMAT_BYTES_SIZE], share[16] = "";
    format_bytes(allocator->summary.peak_bytes, peak, sizeof peak);
    double utilization = summary_report_utilization(&allocator->summary);
    if (!isnan(utilization))
        snprintf(share, sizeof share, utilization < 0.1 ? "%.1f%%" : "%.0f%%",
                 utilization * 100.0);
    int peak_width = draw_text_width(peak, style), share_width = LIST_SHARE_WIDTH;
    int name_width = width - used - peak_width - 1 - share_width - 1;
    if (name_width < 8) {
        share_width = 0;
        name_width = width - used - peak_width - 1;
    }
    if (name_width < 4) { /* too narrow for both: the name wins */
        name_width = width - used;
        peak_width = 0;
    }
    draw_bytes(window, y, x + used, name_width, profile_string(viewer->profile, allocator->id),
               style);
    int right = x + width;
    if (share_width > 0) {
        draw_text_right(window, y, right - share_width, share_width, share, style);
        right -= share_width + 1;
    }
    if (peak_width > 0)
        draw_text_right(window, y, right - peak_width, peak_width, peak, style);
    wattrset(window, style->normal);
}

/* Whether the allocators list has room for the capacity share: as
 * draw_allocator decides, with the widest peak. */
static bool allocators_show_share(int width)
{
    return width - MARKER_WIDTH - 10 - 1 - LIST_SHARE_WIDTH - 1 >= 8;
}

static void allocators_draw(struct pane *pane, struct viewer *viewer,
                            const struct pane_area *area)
{
    WINDOW *window = area->window;
    int y = area->rect.y, x = area->rect.x, height = area->rect.height, width = area->rect.width;
    bool focused = area->focused;
    const struct ui_style *style = &viewer->style;
    draw_pane_title(window, y, x, width, "Allocators", focused, style);
    if (width > 14) {
        bool share = allocators_show_share(width);
        wattrset(window, style->dim);
        draw_text_right(window, y, x + width - 7 - (share ? LIST_SHARE_WIDTH + 1 : 0), 6,
                        " peak ", style);
        if (share)
            draw_text_right(window, y, x + width - LIST_SHARE_WIDTH - 1, LIST_SHARE_WIDTH + 1,
                            " cap ", style);
        wattrset(window, style->normal);
    }
    const struct profile *profile = viewer->profile;
    if (!profile || profile->allocator_count == 0) {
        wattrset(window, style->dim);
        if (height > 1)
            draw_text(window, y + 1, x + 2, width - 2, profile ? "(none)" : "(not loaded)", style);
        wattrset(window, style->normal);
        return;
    }
    struct list_cursor *position = &list_of(pane)->cursor;
    position->selected = viewer->allocator_index;
    list_cursor_fit(position, profile->allocator_count, height - 1);
    for (int row = 0; row + 1 < height; row++) {
        size_t index = position->top + (size_t)row;
        if (index >= profile->allocator_count)
            break;
        draw_allocator(viewer, window, y + 1 + row, x, width, index, focused);
    }
}

/* ---- keys ---- */

static struct pane_reply allocators_handle(struct pane *pane, struct viewer *viewer,
                                           enum request request)
{
    const struct profile *profile = viewer->profile;
    size_t count = profile ? profile->allocator_count : 0;
    if (request == REQUEST_ENTER)
        return pane_reply_follow(follow_up_focus(PANE_TABLE));
    /* Moving switches the allocator at once: the cursor is the current
     * allocator's place. */
    struct list_cursor moved = list_of(pane)->cursor;
    moved.selected = viewer->allocator_index;
    if (!list_cursor_move(&moved, count, request))
        return pane_reply_ignored();
    if (count > 0 && moved.selected != viewer->allocator_index)
        return pane_reply_follow(follow_up_of(FOLLOW_UP_SELECT_ALLOCATOR, moved.selected));
    return pane_reply_handled();
}

/* Items start under the title row. */
static struct pane_reply allocators_click(struct pane *pane, struct viewer *viewer, int row,
                                          int column, bool again)
{
    (void)column, (void)again;
    size_t count = viewer->profile ? viewer->profile->allocator_count : 0;
    size_t index;
    if (!list_cursor_item_at(&list_of(pane)->cursor, count, row - 1, &index))
        return pane_reply_handled();
    return pane_reply_follow(follow_up_of(FOLLOW_UP_SELECT_ALLOCATOR, index));
}

/* A host opened: its allocators from the top (another allocator of the
 * same host keeps the list where it is). */
static void allocators_reset(struct pane *pane, struct viewer *viewer, bool new_host)
{
    (void)viewer;
    if (new_host)
        memset(&list_of(pane)->cursor, 0, sizeof list_of(pane)->cursor);
}

static const struct pane_ops allocators_ops = {
    .draw = allocators_draw,
    .handle = allocators_handle,
    .click = allocators_click,
    .reset = allocators_reset,
    .free = pane_free_plain,
    .scope = KEY_SCOPE_ALLOCATORS,
    .moves_through_items = true,
};

struct pane *list_pane_create_allocators(struct viewer *viewer)
{
    (void)viewer;
    return pane_create(&allocators_ops, sizeof(struct list_pane));
}
