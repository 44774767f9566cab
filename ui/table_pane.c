#include "config.h"

#include "ui/table_pane.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "model/allocation_columns.h"
#include "model/allocation_table.h"
#include "model/format.h"
#include "ui/column_fit.h"
#include "ui/filter_prompt.h"
#include "ui/list_cursor.h"
#include "ui/row_detail.h"
#include "ui/viewer.h"

/* The columns as drawn, from the model's column table: sizes first,
 * where the eye finds them at a fixed place; the op name last, where it
 * takes whatever width is left. The pane decides only the order and who
 * gives way when it is narrow: text columns shrink first (shape, region,
 * type), then columns hide (the requested size mostly repeats the size;
 * the op name is what people read the table for). Headings, alignment,
 * widths and values are the column table's. Columns only some formats
 * fill are not drawn when no row fills them: kind and location (Skyline)
 * for XProf files; requested size, region, type and shape for Skyline's
 * reports, where the location is what people read beside the name. */
struct shown_column {
    enum table_column id;
    int shrink_rank;
    int hide_rank;
    bool hide_when_empty;
};

static const struct shown_column shown_columns[] = {
    {TABLE_COLUMN_ALLOCATION_BYTES, 0, 0, false},
    {TABLE_COLUMN_REQUESTED_BYTES, 0, 1, true},
    {TABLE_COLUMN_OCCURRENCES, 0, 5, true},
    {TABLE_COLUMN_KIND, 5, 7, true},
    {TABLE_COLUMN_REGION_TYPE, 2, 4, true},
    {TABLE_COLUMN_DATA_TYPE, 3, 2, true},
    {TABLE_COLUMN_TENSOR_SHAPE, 1, 3, true},
    {TABLE_COLUMN_LOCATION, 4, 6, true},
    {TABLE_COLUMN_OP_NAME, 0, 0, false},
};
#define SHOW_COUNT (sizeof shown_columns / sizeof *shown_columns)

struct table_pane {
    struct pane pane;
    struct list_cursor cursor; /* the selected row, by display position */
    /* The selected row (an index into the allocator's rows) when the
     * query was last seen: a filter or a sort keeps it selected. */
    size_t selected_row;
    unsigned query_generation;
    int natural[SHOW_COUNT]; /* each column's widest text, measured once per allocator */
    struct fit_column fit[SHOW_COUNT]; /* shown_columns as the fitter takes them */
};

/* shown_columns with the column table's headings and widths. */
static void table_fit_columns(struct fit_column *fit)
{
    for (size_t c = 0; c < SHOW_COUNT; c++) {
        const struct allocation_column_info *info = allocation_column(shown_columns[c].id);
        fit[c] = (struct fit_column){
            .heading = info->heading,
            .right_aligned = info->right_aligned,
            .minimum = info->min_width,
            .maximum = info->max_width == INT_MAX ? 0 : info->max_width,
            .shrink_rank = shown_columns[c].shrink_rank,
            .hide_rank = shown_columns[c].hide_rank,
            .hide_when_empty = shown_columns[c].hide_when_empty,
        };
    }
}

/* ---- cells ---- */

static const char *separator(const struct ui_style *style)
{
    return style->utf8 ? " \xc2\xb7 " : " - "; /* " · " */
}

/* The text of one cell; profile strings come back as they are (draw_bytes
 * makes them safe), numbers are written into buffer. */
static struct text cell_text(const struct allocation_table *rows, const struct allocation_row *row,
                             size_t column, char *buffer, size_t size)
{
    const struct allocation_column_info *info = allocation_column(shown_columns[column].id);
    if (info->id == TABLE_COLUMN_OP_NAME)
        return allocation_table_op_name(rows, row, buffer, size); /* names unresolved rows */
    struct allocation_value value = info->value(rows->profile, row);
    if (value.absent)
        return text_of("");
    switch (info->kind) {
    case ALLOCATION_VALUE_BYTES: return text_of(format_bytes(value.integer, buffer, size));
    case ALLOCATION_VALUE_INTEGER:
        snprintf(buffer, size, "%lld", (long long)value.integer);
        return text_of(buffer);
    case ALLOCATION_VALUE_ADDRESS:
        snprintf(buffer, size, "0x%llx", (unsigned long long)value.address);
        return text_of(buffer);
    default: return value.text;
    }
}

static struct text measured_cell(const void *context, size_t row, size_t column, char *buffer,
                                 size_t size)
{
    const struct allocation_table *rows = context;
    return cell_text(rows, &rows->source.rows[row], column, buffer, size);
}

/* Once per allocator: the widest text of each column over all its rows
 * (not only those the filter leaves), so the columns do not jump while
 * typing a filter. */
static void table_measure(struct table_pane *table, const struct viewer *viewer)
{
    column_fit_measure(SHOW_COUNT, allocation_table_total(&viewer->query.rows), measured_cell,
                       &viewer->query.rows, &viewer->style, table->natural);
    for (size_t c = 0; c < SHOW_COUNT; c++) /* not recorded: empty, so hidden */
        if (!allocation_column_recorded(viewer->query.rows.allocator, shown_columns[c].id))
            table->natural[c] = 0;
}

/* The column showing the sort, which never hides; -1 in file order. */
static int table_sorted_column(const struct viewer *viewer)
{
    for (size_t c = 0; c < SHOW_COUNT; c++)
        if (shown_columns[c].id == viewer->query.rows.sort_column)
            return (int)c;
    return -1;
}

static void table_layout_compute(const struct table_pane *table, const struct viewer *viewer,
                                 int width, struct column_fit *layout)
{
    /* A heading has a cell for the sort arrow. */
    column_fit_compute(table->fit, SHOW_COUNT, table->natural, 1,
                       table_sorted_column(viewer), width, layout);
}

/* ---- selection ---- */

static struct table_pane *table_of(struct pane *pane)
{
    return (struct table_pane *)pane;
}

/* The selected row as an index into the allocator's rows; SIZE_MAX none. */
static size_t table_selected_row(const struct table_pane *table, const struct viewer *viewer)
{
    if (table->cursor.selected >= viewer->query.rows.count)
        return SIZE_MAX;
    return viewer->query.rows.order[table->cursor.selected];
}

/* Selects the row with this allocator index when it is shown, else the first. */
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

/* ---- reset ---- */

/* The rows changed under the selection (a filter, a sort): the same row
 * stays selected when it is still shown, else the first. */
static void table_follow_query(struct table_pane *table, const struct viewer *viewer)
{
    if (table->query_generation == viewer->query.generation)
        return;
    table_select_row(table, viewer, table->selected_row);
    table->query_generation = viewer->query.generation;
}

/* Remembers the selected row, for when the rows change under it. */
static void table_remember(struct table_pane *table, const struct viewer *viewer)
{
    table->selected_row = table_selected_row(table, viewer);
    table->query_generation = viewer->query.generation;
}

/* The query's rows were built for another allocator: the first row
 * selected, the columns measured again. */
static void table_reset(struct pane *pane, struct viewer *viewer, bool new_host)
{
    (void)new_host;
    struct table_pane *table = table_of(pane);
    table->cursor.selected = table->cursor.top = 0;
    table_remember(table, viewer);
    table_measure(table, viewer);
}

/* ---- drawing ---- */

static void table_title(struct viewer *viewer, int width, char *title, size_t size)
{
    const struct allocation_table *rows = &viewer->query.rows;
    const struct ui_style *style = &viewer->style;
    /* A report without a timeline lists what it holds, not a moment. */
    bool entries = viewer->allocator->timeline_kind == TIMELINE_NONE;
    const char *name = entries ? "Entries" : query_title(&viewer->query, width >= 60);
    char shown[FORMAT_BYTES_SIZE], peak[FORMAT_BYTES_SIZE], counts[320];
    format_bytes(allocation_table_shown_bytes(rows), shown, sizeof shown);
    format_bytes(viewer->allocator->summary.peak_bytes, peak, sizeof peak);
    if (rows->filter[0])
        snprintf(counts, sizeof counts, "%s%sfilter: %s (%zu of %zu rows)", name, separator(style),
                 rows->filter, rows->count, allocation_table_total(rows));
    else
        snprintf(counts, sizeof counts, "%s (%zu)", name, rows->count);
    snprintf(title, size, "%s%s%s of %s", counts, separator(style), shown, peak);
    if (draw_text_width(title, style) + 4 > width)
        snprintf(title, size, "%s", counts);
}

static void draw_row(const struct table_pane *table, struct viewer *viewer, WINDOW *window, int y,
                     int x, int width, const struct column_fit *layout,
                     const struct allocation_row *row, attr_t attr)
{
    const struct ui_style *style = &viewer->style;
    wattrset(window, attr);
    draw_blank(window, y, x, width);
    for (size_t c = 0; c < SHOW_COUNT; c++) {
        if (!layout->shown[c])
            continue;
        char buffer[ALLOCATION_TABLE_LABEL_SIZE];
        struct text text = cell_text(&viewer->query.rows, row, c, buffer, sizeof buffer);
        bool unresolved = shown_columns[c].id == TABLE_COLUMN_OP_NAME &&
                          row->origin == ROW_UNRESOLVED;
        attr_t cell_attr = unresolved && attr == style->normal ? style->error : attr;
        /* A size <= 0 (a view, an in-place op) is shown but not counted. */
        if (allocation_row_is_uncounted(row) && attr == style->normal)
            cell_attr = style->dim;
        wattrset(window, cell_attr);
        column_fit_draw_cell(window, y, x, table->fit, layout, c, text, style);
    }
    wattrset(window, style->normal);
}

static void table_draw(struct pane *pane, struct viewer *viewer, const struct pane_area *area)
{
    struct table_pane *table = table_of(pane);
    WINDOW *window = area->window;
    int y = area->rect.y, x = area->rect.x, height = area->rect.height, width = area->rect.width;
    bool focused = area->focused;
    const struct ui_style *style = &viewer->style;
    if (height <= 0 || width <= 0)
        return;
    if (!viewer->allocator) {
        draw_pane_title(window, y, x, width, "Allocations at peak", focused, style);
        return;
    }
    table_follow_query(table, viewer);
    char title[512];
    table_title(viewer, width, title, sizeof title);
    draw_pane_title(window, y, x, width, title, focused, style);
    pane_draw_tab_hint(area, text_of(title), style);
    if (height < 2)
        return;
    struct column_fit layout;
    table_layout_compute(table, viewer, width, &layout);
    column_fit_draw_headings(window, y + 1, x, table->fit, SHOW_COUNT, &layout,
                             table_sorted_column(viewer), viewer->query.rows.descending, style);
    int page_rows = height - 2;
    const struct allocation_table *rows = &viewer->query.rows;
    if (rows->count == 0) {
        char message[320];
        if (allocation_table_total(rows) == 0)
            snprintf(message, sizeof message, "no active allocations at the peak in this file");
        else
            snprintf(message, sizeof message, "no op name contains \"%s\" (Esc clears the filter)",
                     rows->filter);
        wattrset(window, style->dim);
        if (height > 2)
            draw_text(window, y + 2, x + 2, width - 2, message, style);
        wattrset(window, style->normal);
        return;
    }
    list_cursor_fit(&table->cursor, rows->count, page_rows);
    for (int r = 0; r < page_rows; r++) {
        size_t position = table->cursor.top + (size_t)r;
        const struct allocation_row *row = allocation_table_row(rows, position);
        if (!row)
            break;
        attr_t attr = style->normal;
        if (position == table->cursor.selected)
            attr = focused ? style->selected : style->selected_unfocused;
        draw_row(table, viewer, window, y + 2 + r, x, width, &layout, row, attr);
    }
    table_remember(table, viewer);
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

/* n/N: the next matching row, wrapping. With a filter every row shown
 * matches, so this steps through them. */
static void table_match(struct table_pane *table, struct viewer *viewer, bool forward)
{
    size_t count = viewer->query.rows.count;
    if (!viewer->query.rows.filter[0]) {
        viewer_status(viewer, false, "no filter: / filters op names");
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

static struct pane_reply table_handle_request(struct table_pane *table, struct viewer *viewer,
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
    case REQUEST_SORT_NEXT: {
        enum table_column column = allocation_table_next_filled_column(rows, rows->sort_column);
        table_sort(table, viewer, column, allocation_table_default_descending(column));
        return reply;
    }
    case REQUEST_SORT_REVERSE:
        table_sort(table, viewer, rows->sort_column, !rows->descending);
        return reply;
    case REQUEST_FILTER:
        /* The filter narrows this table: it takes the focus. */
        filter_prompt_begin(viewer);
        return pane_reply_follow(follow_up_of(FOLLOW_UP_FOCUS_SELF, 0));
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
    struct pane_reply reply = table_handle_request(table, viewer, request);
    table_remember(table, viewer);
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
    if (!list_cursor_item_at(&table->cursor, viewer->query.rows.count, row - 2, &position))
        return pane_reply_handled();
    if (again && position == table->cursor.selected)
        return table_handle(pane, viewer, REQUEST_ENTER);
    table->cursor.selected = position;
    table_remember(table, viewer);
    return pane_reply_handled();
}

/* The rows as the table shows them: the query's filter and order. */
static bool table_export(struct pane *pane, const struct viewer *viewer,
                         struct export_request *request)
{
    (void)pane;
    if (!viewer->allocator)
        return false;
    export_request_init(request, EXPORT_VIEW_ALLOCATIONS, viewer->profile, viewer->allocator);
    request->table = &viewer->query.rows;
    return true;
}

/* Enter: the selected row in full, over the screen; moving in it moves
 * the selection. */
static void table_draw_detail(struct pane *pane, struct viewer *viewer, WINDOW *window,
                              int height, int width)
{
    struct table_pane *table = table_of(pane);
    table_follow_query(table, viewer);
    if (!row_detail_draw(window, height, width, &viewer->style, &viewer->query.rows,
                         table->cursor.selected))
        viewer->overlay = OVERLAY_NONE;
}

static const struct pane_ops table_ops = {
    .draw = table_draw,
    .handle = table_handle,
    .click = table_click,
    .reset = table_reset,
    .free = pane_free_plain,
    .export = table_export,
    .draw_detail = table_draw_detail,
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
    table_fit_columns(table->fit);
    return &table->pane;
}
