#include "config.h"

#include "ui/panes/compare/compare_pairs_pane.h"

#include <string.h>

#include "report/compare_report.h"
#include "ui/panes/compare/compare_cells.h"
#include "ui/list_cursor.h"
#include "ui/viewer.h"

struct pairs_pane {
    struct pane pane;
    struct list_cursor cursor;
};

static struct pairs_pane *pairs_of(struct pane *pane)
{
    return (struct pairs_pane *)pane;
}

static size_t pair_count(const struct viewer *viewer)
{
    return viewer->compare.comparison.count;
}

/* One pair: a marker on the one shown, its memory id, and at the right
 * its peak's delta or the side it is on. */
static void draw_pair(const struct viewer *viewer, WINDOW *window, int y, int x, int width,
                      size_t index, bool focused)
{
    const struct ui_style *style = &viewer->style;
    const struct allocator_pair *pair = &viewer->compare.comparison.pairs[index];
    bool current = index == viewer->compare.pair_index;
    attr_t row = current ? (focused ? style->selected : style->selected_unfocused) : style->normal;
    wattrset(window, row);
    draw_blank(window, y, x, width);
    mvwaddstr(window, y, x, current ? (style->utf8 ? "\xe2\x96\xb8" : ">") : " ");
    char right[COMPARE_CELL_SIZE];
    int64_t delta;
    bool both = compare_field_delta(COMPARE_FIELD_PEAK, pair, &delta);
    if (both)
        compare_cell_delta(delta, true, true, style, right, sizeof right);
    else
        snprintf(right, sizeof right, "%s", pair->base ? "base only" : "new only");
    int right_width = draw_text_width(right, style);
    int name_width = width - 2 - right_width - 1;
    if (name_width < 4) {
        name_width = width - 2;
        right_width = 0;
    }
    char label[512];
    draw_bytes(window, y, x + 2, name_width,
               compare_pair_label(pair, viewer->profile, viewer->compare.profile, label,
                                  sizeof label),
               style);
    if (right_width > 0) {
        wattrset(window, current ? row : both ? compare_cell_delta_attr(delta, style) : style->dim);
        draw_text_right(window, y, x + width - right_width, right_width, right, style);
    }
    wattrset(window, style->normal);
}

static void pairs_draw(struct pane *pane, struct viewer *viewer, const struct pane_area *area)
{
    WINDOW *window = area->window;
    int y = area->rect.y, x = area->rect.x, height = area->rect.height, width = area->rect.width;
    const struct ui_style *style = &viewer->style;
    draw_pane_title(window, y, x, width, "Allocators", area->focused, style);
    if (width > 24) {
        wattrset(window, style->dim);
        draw_text_right(window, y, x, width - 1, " peak delta ", style);
        wattrset(window, style->normal);
    }
    size_t count = pair_count(viewer);
    if (count == 0) {
        wattrset(window, style->dim);
        if (height > 1)
            draw_text(window, y + 1, x + 2, width - 2, "(none in either profile)", style);
        wattrset(window, style->normal);
        return;
    }
    struct list_cursor *cursor = &pairs_of(pane)->cursor;
    cursor->selected = viewer->compare.pair_index;
    list_cursor_fit(cursor, count, height - 1);
    for (int row = 0; row + 1 < height && cursor->top + (size_t)row < count; row++)
        draw_pair(viewer, window, y + 1 + row, x, width, cursor->top + (size_t)row,
                  area->focused);
}

/* Moving switches the pair at once; Enter goes to the op table. */
static struct pane_reply pairs_handle(struct pane *pane, struct viewer *viewer,
                                      enum request request)
{
    if (request == REQUEST_ENTER)
        return pane_reply_follow(follow_up_focus(PANE_COMPARE_OPS));
    struct list_cursor moved = pairs_of(pane)->cursor;
    moved.selected = viewer->compare.pair_index;
    size_t count = pair_count(viewer);
    if (!list_cursor_move(&moved, count, request))
        return pane_reply_ignored();
    if (count > 0 && moved.selected != viewer->compare.pair_index)
        return pane_reply_follow(follow_up_of(FOLLOW_UP_SELECT_PAIR, moved.selected));
    return pane_reply_handled();
}

static struct pane_reply pairs_click(struct pane *pane, struct viewer *viewer, int row,
                                     int column, bool again)
{
    (void)column, (void)again;
    size_t index;
    if (!list_cursor_item_at(&pairs_of(pane)->cursor, pair_count(viewer), row - 1, &index))
        return pane_reply_handled();
    return pane_reply_follow(follow_up_of(FOLLOW_UP_SELECT_PAIR, index));
}

static bool pairs_export(struct pane *pane, const struct viewer *viewer,
                         struct export_request *request)
{
    (void)pane;
    return viewer_compare_export_request(viewer, request);
}

static const struct pane_ops pairs_ops = {
    .draw = pairs_draw,
    .handle = pairs_handle,
    .click = pairs_click,
    .free = pane_free_plain,
    .export = pairs_export,
    .scope = KEY_SCOPE_ALLOCATORS,
    .moves_through_items = true,
};

struct pane *compare_pairs_pane_create(struct viewer *viewer)
{
    (void)viewer;
    return pane_create(&pairs_ops, sizeof(struct pairs_pane));
}
