#include "config.h"

#include "ui/list_cursor.h"

/* Rows a page moves: one less than shown, so the last row of one page is
 * the first of the next and the eye keeps its place. */
static size_t page_step(const struct list_cursor *cursor)
{
    return cursor->shown_rows > 1 ? (size_t)cursor->shown_rows - 1 : 1;
}

static size_t shown_rows(int rows)
{
    return rows > 0 ? (size_t)rows : 1;
}

/* The new position of `at` in [0, last] for a movement request; false
 * when the request is not a movement. */
static bool moved_position(size_t at, size_t last, size_t step, enum request request,
                           size_t *moved)
{
    switch (request) {
    case REQUEST_MOVE_UP: *moved = at > 0 ? at - 1 : 0; return true;
    case REQUEST_MOVE_DOWN: *moved = at < last ? at + 1 : last; return true;
    case REQUEST_PAGE_UP: *moved = at > step ? at - step : 0; return true;
    case REQUEST_PAGE_DOWN: *moved = last - at > step ? at + step : last; return true;
    case REQUEST_FIRST: *moved = 0; return true;
    case REQUEST_LAST: *moved = last; return true;
    default: return false;
    }
}

bool list_cursor_move(struct list_cursor *cursor, size_t count, enum request request)
{
    size_t last = count > 0 ? count - 1 : 0;
    size_t selected = cursor->selected < last ? cursor->selected : last;
    if (!moved_position(selected, last, page_step(cursor), request, &cursor->selected))
        return false;
    list_cursor_fit(cursor, count, cursor->shown_rows);
    return true;
}

bool list_cursor_scroll(struct list_cursor *cursor, size_t count, enum request request)
{
    size_t rows = shown_rows(cursor->shown_rows);
    size_t last_top = count > rows ? count - rows : 0;
    size_t top = cursor->top < last_top ? cursor->top : last_top;
    return moved_position(top, last_top, page_step(cursor), request, &cursor->top);
}

void list_cursor_fit(struct list_cursor *cursor, size_t count, int rows)
{
    cursor->shown_rows = rows;
    size_t visible = shown_rows(rows);
    if (count == 0) {
        cursor->selected = cursor->top = 0;
        return;
    }
    if (cursor->selected >= count)
        cursor->selected = count - 1;
    if (cursor->selected < cursor->top)
        cursor->top = cursor->selected;
    if (cursor->selected >= cursor->top + visible)
        cursor->top = cursor->selected - visible + 1;
    if (cursor->top + visible > count)
        cursor->top = count > visible ? count - visible : 0;
}

void list_cursor_fit_view(struct list_cursor *cursor, size_t count, int rows)
{
    cursor->shown_rows = rows;
    size_t visible = shown_rows(rows);
    size_t last_top = count > visible ? count - visible : 0;
    if (cursor->top > last_top)
        cursor->top = last_top;
}

bool list_cursor_item_at(const struct list_cursor *cursor, size_t count, int row, size_t *item)
{
    if (row < 0 || cursor->top + (size_t)row >= count)
        return false;
    *item = cursor->top + (size_t)row;
    return true;
}
