#include "config.h"

#include "ui/panes/table/table_pane.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/query/allocation_columns.h"
#include "model/query/allocation_table.h"
#include "model/format.h"
#include "report/export.h"
#include "ui/filter_prompt.h"
#include "ui/panes/table/row_detail.h"
#include "ui/settings.h"
#include "ui/panes/table/table_view.h"
#include "ui/viewer.h"

/* The least sizes H steps through: XProf hides rows under 1 MiB and its
 * users miss them, so here it is a choice, off at first. */
static const int64_t table_min_sizes[] = {0, INT64_C(1) << 20, INT64_C(16) << 20,
                                          INT64_C(256) << 20, INT64_C(1) << 30};
#define MIN_SIZE_COUNT (sizeof table_min_sizes / sizeof *table_min_sizes)

#define SETTING_GROUP_BY "table.group_by"
#define SETTING_MIN_SIZE "table.min_size"

struct table_pane *table_of(struct pane *pane)
{
    return (struct table_pane *)pane;
}

/* ---- the selected row ---- */

/* The selected row as an index into the source's rows; SIZE_MAX none. */
static size_t table_selected_row(const struct table_pane *table, const struct viewer *viewer)
{
    if (table->cursor.selected >= viewer->query.rows.count)
        return SIZE_MAX;
    return viewer->query.rows.order[table->cursor.selected];
}

/* Selects the row with this source index when it is shown, else the first. */
static void table_select_row(struct table_pane *table, const struct viewer *viewer,
                             size_t row_index)
{
    table->cursor.selected = 0;
    for (size_t i = 0; i < viewer->query.rows.count && row_index != SIZE_MAX; i++) {
        if (viewer->query.rows.order[i] == row_index) {
            table->cursor.selected = i;
            break;
        }
    }
}

void table_follow_query(struct table_pane *table, const struct viewer *viewer)
{
    if (table->query_generation == viewer->query.generation)
        return;
    table_select_row(table, viewer, table->selected_row);
    table->query_generation = viewer->query.generation;
}

void table_remember_selection(struct table_pane *table, const struct viewer *viewer)
{
    table->selected_row = table_selected_row(table, viewer);
    table->query_generation = viewer->query.generation;
}

/* ---- reset ---- */

/* The query's rows were built for another allocator: the first row
 * selected, no group open, the columns measured again. */
static void table_reset(struct pane *pane, struct viewer *viewer, bool new_host)
{
    (void)new_host;
    struct table_pane *table = table_of(pane);
    if (viewer->query.rows.within)
        query_set_within(&viewer->query, ROW_GROUP_NONE, text_of(NULL));
    table_groups_free(table);
    table->cursor.selected = table->cursor.top = 0;
    table->group_cursor.selected = table->group_cursor.top = 0;
    table->scroll = 0;
    table_remember_selection(table, viewer);
    table_rows_measure(table, viewer);
}

/* ---- drawing ---- */

static void table_draw(struct pane *pane, struct viewer *viewer, const struct pane_area *area)
{
    struct table_pane *table = table_of(pane);
    WINDOW *window = area->window;
    int y = area->rect.y, x = area->rect.x, height = area->rect.height, width = area->rect.width;
    const struct ui_style *style = &viewer->style;
    if (height <= 0 || width <= 0)
        return;
    if (!viewer->allocator) {
        draw_pane_title(window, y, x, width, "Allocations", area->focused, style);
        return;
    }
    table_follow_query(table, viewer);
    char title[640];
    table_title(table, viewer, width, title, sizeof title);
    draw_pane_title(window, y, x, width, title, area->focused, style);
    pane_draw_tab_hint(area, text_of(title), style);
    if (height < 2)
        return;
    if (table_groups_shown(table, viewer))
        table_groups_draw(table, viewer, area);
    else
        table_rows_draw(table, viewer, area);
    table_remember_selection(table, viewer);
}

/* ---- requests ---- */

/* The chart's cursor to the selected row's time, when it has one. */
static void table_show_row_in_chart(const struct table_pane *table, const struct viewer *viewer,
                                    struct pane_reply *reply)
{
    const struct allocation_row *row =
        allocation_table_row(&viewer->query.rows, table->cursor.selected);
    if (row && row->has_time)
        pane_reply_add(reply, follow_up_jump_to_time(row->time_ps));
}

static void table_sort(struct table_pane *table, struct viewer *viewer, enum table_column column,
                       bool descending)
{
    query_set_sort(&viewer->query, column, descending);
    table_follow_query(table, viewer);
    if (column == TABLE_COLUMN_FILE_ORDER)
        viewer_status(viewer, false, descending ? "in reverse file order" : "in file order");
    else
        viewer_status(viewer, false, "sorted by %s, %s", allocation_table_column_name(column),
                      descending ? "descending" : "ascending");
}

/* s, >, <: the sort to the next or previous column as drawn. */
static void table_step_sort(struct table_pane *table, struct viewer *viewer, int direction)
{
    enum table_column order[TABLE_SHOWN_COUNT];
    size_t count = table_rows_drawn_order(table, order);
    const struct allocation_table *rows = &viewer->query.rows;
    enum table_column column =
        allocation_table_step_sort(rows, order, count, rows->sort_column, direction);
    table_sort(table, viewer, column, allocation_table_default_descending(column));
}

/* n/N: the next matching row, wrapping. With a filter every row shown
 * matches, so this steps through them. */
static void table_match(struct table_pane *table, struct viewer *viewer, bool forward)
{
    size_t count = viewer->query.rows.count;
    if (!viewer->query.rows.filter[0]) {
        viewer_status(viewer, false, "no filter: / filters op names, regions, types and shapes");
        return;
    }
    for (size_t step = 1; step <= count; step++) {
        size_t selected = table->cursor.selected;
        size_t position = forward ? (selected + step) % count
                                  : (selected + count - step % count) % count;
        const struct allocation_row *row = allocation_table_row(&viewer->query.rows, position);
        if (allocation_table_row_matches(&viewer->query.rows, row)) {
            if (forward ? position <= selected : position >= selected)
                viewer_status(viewer, false, "search wrapped");
            table->cursor.selected = position;
            return;
        }
    }
    viewer_status(viewer, false, "no row matches \"%s\"", viewer->query.rows.filter);
}

/* H: the next least size. */
static void table_next_min_size(struct table_pane *table, struct viewer *viewer)
{
    table->min_size = (table->min_size + 1) % MIN_SIZE_COUNT;
    int64_t bytes = table_min_sizes[table->min_size];
    query_set_min_bytes(&viewer->query, bytes);
    table_follow_query(table, viewer);
    const struct allocation_table *rows = &viewer->query.rows;
    char least[FORMAT_BYTES_SIZE];
    if (bytes == 0)
        viewer_status(viewer, false, "every row shown, whatever its size");
    else
        viewer_status(viewer, false, "rows holding less than %s hidden: %zu of %zu shown (H: more)",
                      format_bytes(bytes, least, sizeof least), rows->count,
                      allocation_table_total(rows));
}

/* h/l: the table sideways; h at its left edge leaves the open group. */
static void table_scroll(struct table_pane *table, struct viewer *viewer, int direction)
{
    if (direction < 0 && table->scroll == 0) {
        if (!table_groups_up(table, viewer))
            viewer_status(viewer, false, "the table is not scrolled (l scrolls it)");
        return;
    }
    table->scroll += direction; /* the next draw cuts it to what the columns allow */
}

/* The requests of the table, whether it shows rows or groups. */
static bool table_handle_common(struct table_pane *table, struct viewer *viewer,
                                enum request request)
{
    const struct allocation_table *rows = &viewer->query.rows;
    switch (request) {
    case REQUEST_SORT_NEXT: table_step_sort(table, viewer, 1); return true;
    case REQUEST_SORT_PREVIOUS: table_step_sort(table, viewer, -1); return true;
    case REQUEST_SORT_REVERSE:
        table_sort(table, viewer, rows->sort_column, !rows->descending);
        return true;
    case REQUEST_MIN_SIZE_NEXT: table_next_min_size(table, viewer); return true;
    case REQUEST_GROUP_NEXT: table_groups_next_key(table, viewer); return true;
    case REQUEST_GROUP_UP:
        if (!table_groups_up(table, viewer))
            viewer_status(viewer, false, "no group is open (t groups the rows)");
        return true;
    case REQUEST_MOVE_LEFT: table_scroll(table, viewer, -1); return true;
    case REQUEST_MOVE_RIGHT: table_scroll(table, viewer, 1); return true;
    default: return false;
    }
}

static struct pane_reply table_handle_rows(struct table_pane *table, struct viewer *viewer,
                                           enum request request)
{
    const struct allocation_table *rows = &viewer->query.rows;
    struct pane_reply reply = pane_reply_handled();
    if (list_cursor_move(&table->cursor, rows->count, request)) {
        if (viewer->overlay == OVERLAY_DETAIL)
            table_show_row_in_chart(table, viewer, &reply);
        return reply;
    }
    switch (request) {
    case REQUEST_ENTER:
        if (!allocation_table_row(rows, table->cursor.selected))
            return reply;
        pane_reply_add(&reply, follow_up_of(FOLLOW_UP_OPEN_DETAIL, 0));
        table_show_row_in_chart(table, viewer, &reply);
        return reply;
    case REQUEST_MATCH_NEXT: table_match(table, viewer, true); return reply;
    case REQUEST_MATCH_PREVIOUS: table_match(table, viewer, false); return reply;
    default: return pane_reply_ignored();
    }
}

static struct pane_reply table_handle(struct pane *pane, struct viewer *viewer,
                                      enum request request)
{
    struct table_pane *table = table_of(pane);
    if (!viewer->allocator)
        return pane_reply_ignored();
    table_follow_query(table, viewer);
    struct pane_reply reply = pane_reply_handled();
    if (request == REQUEST_FILTER) {
        /* The filter narrows this table: it takes the focus. */
        filter_prompt_begin(viewer);
        reply = pane_reply_follow(follow_up_of(FOLLOW_UP_FOCUS_SELF, 0));
    } else if (!table_handle_common(table, viewer, request)) {
        reply = table_groups_shown(table, viewer) ? table_groups_handle(table, viewer, request)
                                                  : table_handle_rows(table, viewer, request);
    }
    table_remember_selection(table, viewer);
    return reply;
}

/* Rows start under the title and the column headings: a click selects
 * one, a click on the selected row opens it as Enter does. */
static struct pane_reply table_click(struct pane *pane, struct viewer *viewer, int row, int column,
                                     bool again)
{
    (void)column;
    struct table_pane *table = table_of(pane);
    size_t position;
    if (!viewer->allocator)
        return pane_reply_handled();
    table_follow_query(table, viewer);
    struct pane_reply reply = pane_reply_handled();
    if (table_groups_shown(table, viewer)) {
        table_groups_click(table, viewer, row, again, &reply);
        return reply;
    }
    if (!list_cursor_item_at(&table->cursor, viewer->query.rows.count, row - 2, &position))
        return reply;
    if (again && position == table->cursor.selected)
        return table_handle(pane, viewer, REQUEST_ENTER);
    table->cursor.selected = position;
    table_remember_selection(table, viewer);
    return reply;
}

/* What the table shows: its groups, or its rows (the query's filter,
 * least size, open group and order). */
static bool table_export(struct pane *pane, const struct viewer *viewer,
                         struct export_request *request)
{
    struct table_pane *table = table_of(pane);
    if (!viewer->allocator)
        return false;
    export_request_init(request, EXPORT_VIEW_ALLOCATIONS, viewer->profile, viewer->allocator);
    request->table = &viewer->query.rows;
    if (table_groups_shown(table, viewer)) {
        request->group_by = table->groups.key;
        request->group_scope = allocation_table_within(&viewer->query.rows);
    }
    return true;
}

/* Enter: the selected row in full, over the screen; moving in it moves
 * the selection (off a single row of the groups, it closes). */
static void table_draw_detail(struct pane *pane, struct viewer *viewer, WINDOW *window,
                              int height, int width)
{
    struct table_pane *table = table_of(pane);
    table_follow_query(table, viewer);
    size_t position = table_groups_shown(table, viewer)
                          ? table_groups_selected_position(table, viewer)
                          : table->cursor.selected;
    if (position == SIZE_MAX ||
        !row_detail_draw(window, height, width, &viewer->style, &viewer->query.rows, position))
        viewer->overlay = OVERLAY_NONE;
}

/* ---- settings ---- */

static void table_recall(struct pane *pane, struct viewer *viewer, const struct settings *settings)
{
    struct table_pane *table = table_of(pane);
    enum row_group_key key;
    const char *group_by = settings_get(settings, SETTING_GROUP_BY);
    if (group_by && row_group_key_parse(group_by, &key))
        table->group_key = key;
    const char *min_size = settings_get(settings, SETTING_MIN_SIZE);
    for (size_t i = 0; min_size && i < MIN_SIZE_COUNT; i++) {
        char text[32];
        snprintf(text, sizeof text, "%lld", (long long)table_min_sizes[i]);
        if (strcmp(text, min_size) == 0)
            table->min_size = i;
    }
    query_set_min_bytes(&viewer->query, table_min_sizes[table->min_size]);
}

static void table_remember(struct pane *pane, const struct viewer *viewer,
                           struct settings *settings)
{
    (void)viewer;
    struct table_pane *table = table_of(pane);
    char bytes[32];
    snprintf(bytes, sizeof bytes, "%lld", (long long)table_min_sizes[table->min_size]);
    settings_set(settings, SETTING_GROUP_BY, row_group_key_name(table->group_key));
    settings_set(settings, SETTING_MIN_SIZE, bytes);
}

static void table_free(struct pane *pane)
{
    table_groups_free(table_of(pane));
    pane_free_plain(pane);
}

static const struct pane_ops table_ops = {
    .draw = table_draw,
    .handle = table_handle,
    .click = table_click,
    .reset = table_reset,
    .free = table_free,
    .export = table_export,
    .draw_detail = table_draw_detail,
    .recall = table_recall,
    .remember = table_remember,
    .scope = KEY_SCOPE_TABLE,
    .keys_reach_it_unfocused = true,
    .moves_through_items = true,
};

struct pane *table_pane_create(struct viewer *viewer)
{
    (void)viewer;
    struct table_pane *table = (struct table_pane *)pane_create(&table_ops, sizeof *table);
    if (!table)
        return NULL;
    table_rows_fit_columns(table->fit);
    return &table->pane;
}
