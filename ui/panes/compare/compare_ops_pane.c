#include "config.h"

#include "ui/panes/compare/compare_ops_pane.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/util/index_sort.h"
#include "model/message_text.h"
#include "ui/column_fit.h"
#include "ui/panes/compare/compare_cells.h"
#include "ui/viewer.h"

/* Numbers at fixed places, the op name last where it gets the slack;
 * the counts give way first, then the base's bytes. */
enum ops_column { OPS_BASE, OPS_NEW, OPS_DELTA, OPS_BASE_COUNT, OPS_NEW_COUNT, OPS_NAME,
                  OPS_COUNT };

static const struct fit_column ops_columns[OPS_COUNT] = {
    [OPS_BASE] = {"Base", true, 0, 0, 0, 3},
    [OPS_NEW] = {"New", true, 0, 0, 0, 0},
    [OPS_DELTA] = {"Delta", true, 0, 0, 0, 0},
    [OPS_BASE_COUNT] = {"#base", true, 0, 0, 0, 1},
    [OPS_NEW_COUNT] = {"#new", true, 0, 0, 0, 2},
    [OPS_NAME] = {"Op name", false, 12, 0, 0, 0},
};

/* What s cycles through: the model's order (|delta|, largest first),
 * then by new bytes, by base bytes (largest first), by name (A first). */
enum ops_sort { SORT_DELTA, SORT_NEW, SORT_BASE, SORT_NAME, SORT_COUNT };
static const int sort_columns[SORT_COUNT] = {OPS_DELTA, OPS_NEW, OPS_BASE, OPS_NAME};
static const char *const sort_names[SORT_COUNT] = {"|delta|", "new bytes", "base bytes",
                                                   "op name"};

struct ops_pane {
    struct pane pane;
    struct list_cursor cursor; /* over order[] */
    enum ops_sort sort;
    bool reversed;
    /* The rows in the order shown; built again when `ordered` is not the
     * op table shown (another pair) or the sort changed (NULL). */
    const struct op_delta *ordered;
    size_t *order, *scratch;
    size_t count;
};

static struct ops_pane *ops_of(struct pane *pane)
{
    return (struct ops_pane *)pane;
}

/* ---- order ---- */

static int compare_bytes(int64_t a, int64_t b)
{
    return (a > b) - (a < b);
}

struct ops_sort_context {
    const struct op_delta *rows;
    enum ops_sort sort;
    bool reversed;
};

/* Whether row a comes before row b; ties keep the model's order. */
static bool ops_before(const void *context, size_t a, size_t b)
{
    const struct ops_sort_context *sorting = context;
    const struct op_delta *x = &sorting->rows[a], *y = &sorting->rows[b];
    int compared;
    switch (sorting->sort) {
    case SORT_NEW: compared = compare_bytes(y->new_bytes, x->new_bytes); break;
    case SORT_BASE: compared = compare_bytes(y->base_bytes, x->base_bytes); break;
    case SORT_NAME: compared = text_compare(op_delta_name(x), op_delta_name(y)); break;
    default: compared = compare_bytes((int64_t)a, (int64_t)b); break;
    }
    return sorting->reversed ? compared > 0 : compared < 0;
}

/* The rows of the op table shown, in order; none when memory runs out. */
static size_t ops_count(struct ops_pane *ops, const struct viewer *viewer)
{
    const struct op_comparison *table = &viewer->compare.ops;
    if (ops->ordered == table->rows && ops->count == table->count)
        return ops->count;
    free(ops->order);
    free(ops->scratch);
    ops->order = ops->scratch = NULL;
    ops->count = 0;
    ops->ordered = table->rows;
    if (table->count == 0)
        return 0;
    ops->order = malloc(table->count * sizeof *ops->order);
    ops->scratch = malloc(table->count * sizeof *ops->scratch);
    if (!ops->order || !ops->scratch)
        return 0;
    for (size_t i = 0; i < table->count; i++)
        ops->order[i] = i;
    struct ops_sort_context sorting = {table->rows, ops->sort, ops->reversed};
    index_sort_stable(ops->order, ops->scratch, table->count, ops_before, &sorting);
    ops->count = table->count;
    return ops->count;
}

static const struct op_delta *ops_row(const struct ops_pane *ops, const struct viewer *viewer,
                                      size_t position)
{
    return &viewer->compare.ops.rows[ops->order[position]];
}

/* ---- cells ---- */

struct ops_cells {
    const struct viewer *viewer;
    bool compact;
};

/* A cell raw (the op name may hold a NUL): column_fit escapes it once. */
static struct text ops_cell_text(const struct op_delta *row, enum ops_column column,
                                 bool compact, const struct ui_style *style, char *buffer,
                                 size_t size)
{
    switch (column) {
    case OPS_BASE: return text_of(compare_cell_value(row->base_bytes, true, compact, buffer, size));
    case OPS_NEW: return text_of(compare_cell_value(row->new_bytes, true, compact, buffer, size));
    case OPS_DELTA:
        return text_of(compare_cell_delta(row->delta_bytes, true, compact, style, buffer, size));
    case OPS_BASE_COUNT:
        return text_of(compare_cell_value(row->base_count, false, compact, buffer, size));
    case OPS_NEW_COUNT:
        return text_of(compare_cell_value(row->new_count, false, compact, buffer, size));
    default: return op_delta_name(row);
    }
}

static struct text ops_measured_cell(const void *context, size_t row, size_t column,
                                     char *buffer, size_t size)
{
    const struct ops_cells *cells = context;
    const struct viewer *viewer = cells->viewer;
    return ops_cell_text(&viewer->compare.ops.rows[row], (enum ops_column)column, cells->compact,
                         &viewer->style, buffer, size);
}

/* The columns in full when every number fits, else compact ("1.25G"). */
static bool ops_layout(const struct viewer *viewer, int width, struct column_fit *fit)
{
    int natural[OPS_COUNT];
    for (int compact = 0; compact < 2; compact++) {
        struct ops_cells cells = {viewer, compact};
        column_fit_measure(OPS_COUNT, viewer->compare.ops.count, ops_measured_cell, &cells,
                           &viewer->style, natural);
        column_fit_compute(ops_columns, OPS_COUNT, natural, 1, OPS_DELTA, width, fit);
        bool all = true;
        for (int c = 0; c < OPS_COUNT; c++)
            all = all && fit->shown[c];
        if (all)
            return compact;
    }
    return true;
}

/* ---- drawing ---- */

static void ops_draw_row(const struct viewer *viewer, WINDOW *window, int y, int x, int width,
                         const struct column_fit *fit, bool compact, const struct op_delta *row,
                         attr_t attr)
{
    const struct ui_style *style = &viewer->style;
    wattrset(window, attr);
    draw_blank(window, y, x, width);
    for (int c = 0; c < OPS_COUNT; c++) {
        if (!fit->shown[c])
            continue;
        char buffer[COMPARE_CELL_SIZE];
        struct text text = ops_cell_text(row, (enum ops_column)c, compact, style, buffer,
                                         sizeof buffer);
        if (c == OPS_DELTA && attr == style->normal)
            wattrset(window, compare_cell_delta_attr(row->delta_bytes, style));
        column_fit_draw_cell(window, y, x, ops_columns, fit, (size_t)c, text, style);
        wattrset(window, attr);
    }
    wattrset(window, style->normal);
}

static void ops_draw(struct pane *pane, struct viewer *viewer, const struct pane_area *area)
{
    struct ops_pane *ops = ops_of(pane);
    WINDOW *window = area->window;
    int y = area->rect.y, x = area->rect.x, height = area->rect.height, width = area->rect.width;
    const struct ui_style *style = &viewer->style;
    size_t count = ops_count(ops, viewer);
    char title[96];
    snprintf(title, sizeof title, "Live at each peak, by op (%zu) %s %s", count,
             style->utf8 ? "\xc2\xb7" : "-", sort_names[ops->sort]);
    draw_pane_title(window, y, x, width, title, area->focused, style);
    pane_draw_tab_hint(area, text_of(title), style);
    if (height < 3)
        return;
    if (count == 0) {
        wattrset(window, style->dim);
        draw_text(window, y + 1, x + 2, width - 2,
                  viewer_pair(viewer) ? "no rows at either peak" : "no allocator", style);
        wattrset(window, style->normal);
        return;
    }
    struct column_fit fit;
    bool compact = ops_layout(viewer, width, &fit);
    bool descending = ops->sort == SORT_NAME ? ops->reversed : !ops->reversed;
    column_fit_draw_headings(window, y + 1, x, ops_columns, OPS_COUNT, &fit,
                             sort_columns[ops->sort], descending, style);
    int rows = height - 2;
    list_cursor_fit(&ops->cursor, count, rows);
    for (int r = 0; r < rows && ops->cursor.top + (size_t)r < count; r++) {
        size_t position = ops->cursor.top + (size_t)r;
        attr_t attr = position != ops->cursor.selected ? style->normal
                      : area->focused                  ? style->selected
                                                       : style->selected_unfocused;
        ops_draw_row(viewer, window, y + 2 + r, x, width, &fit, compact,
                     ops_row(ops, viewer, position), attr);
    }
}

/* ---- keys ---- */

/* s: the next sort (r reverses it); the selection goes to the top. */
static void ops_sort(struct ops_pane *ops, struct viewer *viewer, bool reverse)
{
    if (reverse) {
        ops->reversed = !ops->reversed;
    } else {
        ops->sort = (enum ops_sort)((ops->sort + 1) % SORT_COUNT);
        ops->reversed = false;
    }
    ops->ordered = NULL;
    memset(&ops->cursor, 0, sizeof ops->cursor);
    bool ascending = ops->sort == SORT_NAME ? !ops->reversed : ops->reversed;
    viewer_status(viewer, false, "ops by %s, %s first", sort_names[ops->sort],
                  ops->sort == SORT_NAME ? (ascending ? "A" : "Z")
                                         : (ascending ? "smallest" : "largest"));
}

/* Enter: the op's numbers in full on the status line. */
static void ops_show_exact(struct ops_pane *ops, struct viewer *viewer)
{
    if (ops->cursor.selected >= ops_count(ops, viewer))
        return;
    const struct op_delta *row = ops_row(ops, viewer, ops->cursor.selected);
    /* The name raw, NUL bytes and all: the status line escapes it once. */
    char buffer[sizeof viewer->status];
    struct message_text line;
    message_text_start(&line, buffer, sizeof buffer);
    message_text_append_cut(&line, op_delta_name(row), 200);
    message_text_append_format(&line,
                               ": base %" PRId64 " B x%" PRId64 ", new %" PRId64 " B x%" PRId64
                               ", delta %+" PRId64 " B",
                               row->base_bytes, row->base_count, row->new_bytes, row->new_count,
                               row->delta_bytes);
    viewer_status_bytes(viewer, false, message_text_get(&line));
}

static struct pane_reply ops_handle(struct pane *pane, struct viewer *viewer,
                                    enum request request)
{
    struct ops_pane *ops = ops_of(pane);
    switch (request) {
    case REQUEST_SORT_NEXT:
    case REQUEST_SORT_REVERSE:
        ops_sort(ops, viewer, request == REQUEST_SORT_REVERSE);
        return pane_reply_handled();
    case REQUEST_ENTER: ops_show_exact(ops, viewer); return pane_reply_handled();
    default:
        return list_cursor_move(&ops->cursor, ops_count(ops, viewer), request)
                   ? pane_reply_handled()
                   : pane_reply_ignored();
    }
}

/* Rows start under the title and the headings. */
static struct pane_reply ops_click(struct pane *pane, struct viewer *viewer, int row, int column,
                                   bool again)
{
    (void)column;
    struct ops_pane *ops = ops_of(pane);
    size_t index;
    if (!list_cursor_item_at(&ops->cursor, ops_count(ops, viewer), row - 2, &index))
        return pane_reply_handled();
    if (again && index == ops->cursor.selected)
        ops_show_exact(ops, viewer);
    ops->cursor.selected = index;
    return pane_reply_handled();
}

/* Another pair: its table from the top, the sort kept. */
static void ops_reset(struct pane *pane, struct viewer *viewer, bool new_host)
{
    (void)viewer, (void)new_host;
    struct ops_pane *ops = ops_of(pane);
    memset(&ops->cursor, 0, sizeof ops->cursor);
    ops->ordered = NULL;
}

static bool ops_export(struct pane *pane, const struct viewer *viewer,
                       struct export_request *request)
{
    (void)pane;
    return viewer_compare_export_request(viewer, request);
}

static void ops_free(struct pane *pane)
{
    struct ops_pane *ops = ops_of(pane);
    free(ops->order);
    free(ops->scratch);
    pane_free_plain(pane);
}

static const struct pane_ops compare_ops_ops = {
    .draw = ops_draw,
    .handle = ops_handle,
    .click = ops_click,
    .reset = ops_reset,
    .free = ops_free,
    .export = ops_export,
    .scope = KEY_SCOPE_COMPARE,
    .moves_through_items = true,
};

struct pane *compare_ops_pane_create(struct viewer *viewer)
{
    (void)viewer;
    return pane_create(&compare_ops_ops, sizeof(struct ops_pane));
}
