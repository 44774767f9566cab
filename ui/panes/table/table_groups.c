/* table_groups: the allocations table's rows grouped by op scope,
 * location or file (see table_view.h): the groups of the query's rows
 * (model/query/row_groups.h), the cursor kept per level, opening and leaving a
 * group, and drawing the group lines. Called by table_pane.c; the open
 * group itself is the query's, which the pane asks the viewer to set. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/format.h"
#include "ui/panes/table/table_view.h"
#include "ui/viewer.h"

/* The groups' columns: what each holds, its share of the peak, how many
 * rows, and its name (the key's name as heading). */
enum { GROUP_TOTAL, GROUP_SHARE, GROUP_ROWS, GROUP_NAME, GROUP_COLUMNS };

static void group_fit_columns(enum row_group_key key, struct fit_column *fit)
{
    const struct fit_column columns[GROUP_COLUMNS] = {
        [GROUP_TOTAL] = {.heading = "total", .right_aligned = true},
        [GROUP_SHARE] = {.heading = "share", .right_aligned = true, .hide_rank = 2},
        [GROUP_ROWS] = {.heading = "rows", .right_aligned = true, .hide_rank = 1},
        [GROUP_NAME] = {.heading = row_group_key_name(key), .minimum = 12,
                        .shorten_middle = true},
    };
    memcpy(fit, columns, sizeof columns);
}

/* ---- which key, which level ---- */

enum row_group_key table_group_key(const struct table_pane *table, const struct viewer *viewer)
{
    enum row_group_key key = table->group_key;
    /* An XProf file's rows have no location, no module: nothing to
     * group by. */
    if (!row_group_key_recorded(&viewer->query.rows, key))
        return ROW_GROUP_NONE;
    return key;
}

const char *table_groups_open(const struct viewer *viewer)
{
    const char *within = viewer->query.rows.within;
    return within ? within : "";
}

/* The scope whose next level the groups are ("" at the top). */
static struct text table_groups_scope(const struct viewer *viewer, enum row_group_key key)
{
    return key == ROW_GROUP_OP_SCOPE ? allocation_table_within(&viewer->query.rows) : text_of("");
}

/* The selected item: NULL when there is none. */
static const struct row_group *selected_group(const struct table_pane *table)
{
    if (table->group_cursor.selected >= table->groups.count)
        return NULL;
    return &table->groups.groups[table->group_cursor.selected];
}

/* Remembers the selected item by name, for the next build. */
static void remember_group(struct table_pane *table, const struct viewer *viewer)
{
    const struct row_group *group = selected_group(table);
    free(table->selected_group);
    table->selected_group = NULL;
    if (!group)
        return;
    table->selected_group = malloc(group->name_length + 1);
    if (!table->selected_group)
        return;
    if (group->name_length)
        memcpy(table->selected_group, group->name, group->name_length);
    table->selected_group[group->name_length] = '\0';
    table->selected_group_length = group->name_length;
    const struct allocation_row *row =
        allocation_table_row(&viewer->query.rows, group->first_position);
    table->selected_group_row = group->single_row && row
                                    ? (size_t)(row - viewer->query.rows.source.rows)
                                    : SIZE_MAX;
}

/* After a build: the item remembered, else the first. */
static void restore_group(struct table_pane *table, const struct viewer *viewer)
{
    table->group_cursor.selected = 0;
    for (size_t i = 0; table->selected_group && i < table->groups.count; i++) {
        const struct row_group *group = &table->groups.groups[i];
        const struct allocation_row *row =
            allocation_table_row(&viewer->query.rows, group->first_position);
        size_t index = row ? (size_t)(row - viewer->query.rows.source.rows) : SIZE_MAX;
        if (group->name_length == table->selected_group_length &&
            memcmp(group->name, table->selected_group, group->name_length) == 0 &&
            (!group->single_row || index == table->selected_group_row)) {
            table->group_cursor.selected = i;
            return;
        }
    }
}

/* The groups of the level shown, built again when the rows changed. */
static void groups_update(struct table_pane *table, const struct viewer *viewer,
                          enum row_group_key key)
{
    if (table->groups_valid && table->groups.key == key &&
        table->groups_generation == viewer->query.generation)
        return;
    row_groups_free(&table->groups);
    /* Out of memory leaves no groups: the rows show instead. */
    row_groups_build(&table->groups, &viewer->query.rows, key, table_groups_scope(viewer, key));
    table->groups_valid = true;
    table->groups_generation = viewer->query.generation;
    restore_group(table, viewer);
}

bool table_groups_shown(struct table_pane *table, const struct viewer *viewer)
{
    enum row_group_key key = table_group_key(table, viewer);
    if (key == ROW_GROUP_NONE)
        return false;
    /* A location or a file open: its rows. */
    if (key != ROW_GROUP_OP_SCOPE && viewer->query.rows.within)
        return false;
    groups_update(table, viewer, key);
    /* A scope with no deeper scope in it: its rows. */
    return table->groups.group_count > 0;
}

void table_groups_free(struct table_pane *table)
{
    row_groups_free(&table->groups);
    table->groups_valid = false;
    free(table->selected_group);
    table->selected_group = NULL;
}

/* ---- cells ---- */

/* A group's name as the level shows it: a scope or an op without the
 * open scope before it ("dense_58/" in "model/"), a row without a
 * location says so. Its bytes, made safe when drawn. */
static struct text group_name(const struct viewer *viewer, const struct row_group *group,
                              char *buffer, size_t size)
{
    const struct allocation_table *rows = &viewer->query.rows;
    size_t scope = rows->within_key == ROW_GROUP_OP_SCOPE ? rows->within_length : 0;
    if (group->single_row) {
        const struct allocation_row *row = allocation_table_row(rows, group->first_position);
        struct text name = allocation_table_op_name(rows, row, buffer, size);
        if (row->origin == ROW_UNRESOLVED || name.length < scope)
            return name;
        return text_make(name.bytes + scope, name.length - scope);
    }
    if (group->name_length == 0)
        return text_of(row_group_empty_name(group->key));
    if (scope > group->name_length)
        scope = 0;
    return text_make(group->name + scope, group->name_length - scope);
}

static struct text group_cell(const struct viewer *viewer, const struct row_group *group,
                              int column, char *buffer, size_t size)
{
    int64_t peak = viewer->allocator->summary.peak_bytes;
    switch (column) {
    case GROUP_TOTAL: return text_of(format_bytes(group->bytes, buffer, size));
    case GROUP_SHARE:
        if (peak <= 0)
            return text_of("");
        snprintf(buffer, size, "%.1f%%", (double)group->bytes / (double)peak * 100.0);
        return text_of(buffer);
    case GROUP_ROWS:
        snprintf(buffer, size, "%zu", group->row_count);
        return text_of(buffer);
    default: return group_name(viewer, group, buffer, size);
    }
}

struct measured_groups {
    const struct viewer *viewer;
    const struct row_groups *groups;
};

static struct text measured_group_cell(const void *context, size_t row, size_t column,
                                       char *buffer, size_t size)
{
    const struct measured_groups *measured = context;
    return group_cell(measured->viewer, &measured->groups->groups[row], (int)column, buffer,
                      size);
}

/* ---- drawing ---- */

static void draw_group(struct viewer *viewer, WINDOW *window, int y, int x, int width,
                       const struct fit_column *fit, const struct column_fit *layout,
                       const struct row_group *group, attr_t attr)
{
    const struct ui_style *style = &viewer->style;
    wattrset(window, attr);
    draw_blank(window, y, x, width);
    for (int c = 0; c < GROUP_COLUMNS; c++) {
        if (!layout->shown[c])
            continue;
        char buffer[512];
        struct text text = group_cell(viewer, group, c, buffer, sizeof buffer);
        /* Groups stand out from the rows among them. */
        attr_t cell_attr = c == GROUP_NAME && !group->single_row && attr == style->normal
                               ? style->normal | A_BOLD
                               : attr;
        wattrset(window, cell_attr);
        column_fit_draw_cell(window, y, x, fit, layout, (size_t)c, text, style);
    }
    wattrset(window, style->normal);
}

void table_groups_draw(struct table_pane *table, struct viewer *viewer,
                       const struct pane_area *area)
{
    WINDOW *window = area->window;
    int y = area->rect.y, x = area->rect.x, height = area->rect.height, width = area->rect.width;
    const struct ui_style *style = &viewer->style;
    struct fit_column fit[GROUP_COLUMNS];
    group_fit_columns(table->groups.key, fit);
    struct measured_groups measured = {viewer, &table->groups};
    column_fit_measure(GROUP_COLUMNS, table->groups.count, measured_group_cell, &measured, style,
                       table->group_natural);
    struct column_fit layout;
    column_fit_compute(fit, GROUP_COLUMNS, table->group_natural, 1, GROUP_TOTAL, width, &layout);
    /* Largest first, always: the arrow says so. */
    column_fit_draw_headings(window, y + 1, x, fit, GROUP_COLUMNS, &layout, GROUP_TOTAL, true,
                             style);
    int page_rows = height - 2;
    list_cursor_fit(&table->group_cursor, table->groups.count, page_rows);
    for (int r = 0; r < page_rows; r++) {
        size_t position = table->group_cursor.top + (size_t)r;
        if (position >= table->groups.count)
            break;
        attr_t attr = style->normal;
        if (position == table->group_cursor.selected)
            attr = area->focused ? style->selected : style->selected_unfocused;
        draw_group(viewer, window, y + 2 + r, x, width, fit, &layout,
                   &table->groups.groups[position], attr);
    }
    remember_group(table, viewer);
}

/* ---- keys ---- */

/* Opens the selected group: its rows (a location, a file) or its next
 * level (a scope). */
static void open_group(struct table_pane *table, struct viewer *viewer,
                       const struct row_group *group)
{
    enum row_group_key key = table->groups.key;
    if (!query_set_within(&viewer->query, key, text_make(group->name, group->name_length))) {
        viewer_status(viewer, true, "out of memory: the group was not opened");
        return;
    }
    table->cursor.selected = table->cursor.top = 0;
    table->group_cursor.selected = table->group_cursor.top = 0;
    table->scroll = 0;
    table_remember_selection(table, viewer);
    char bytes[FORMAT_BYTES_SIZE];
    viewer_status(viewer, false, "%zu rows, %s (Backspace: back to the groups)",
                  group->row_count, format_bytes(group->bytes, bytes, sizeof bytes));
}

size_t table_groups_selected_position(struct table_pane *table, const struct viewer *viewer)
{
    if (!table_groups_shown(table, viewer))
        return SIZE_MAX;
    const struct row_group *group = selected_group(table);
    return group && group->single_row ? group->first_position : SIZE_MAX;
}

static struct pane_reply group_enter(struct table_pane *table, struct viewer *viewer)
{
    const struct row_group *group = selected_group(table);
    if (!group)
        return pane_reply_handled();
    if (!group->single_row) {
        open_group(table, viewer, group);
        return pane_reply_handled();
    }
    struct pane_reply reply = pane_reply_follow(follow_up_of(FOLLOW_UP_OPEN_DETAIL, 0));
    const struct allocation_row *row =
        allocation_table_row(&viewer->query.rows, group->first_position);
    if (row && row->has_time)
        pane_reply_add(&reply, follow_up_jump_to_time(row->time_ps));
    return reply;
}

struct pane_reply table_groups_handle(struct table_pane *table, struct viewer *viewer,
                                      enum request request)
{
    if (list_cursor_move(&table->group_cursor, table->groups.count, request)) {
        remember_group(table, viewer);
        return pane_reply_handled();
    }
    if (request == REQUEST_ENTER)
        return group_enter(table, viewer);
    return pane_reply_ignored();
}

bool table_groups_click(struct table_pane *table, struct viewer *viewer, int row, bool again,
                        struct pane_reply *reply)
{
    size_t position;
    if (!list_cursor_item_at(&table->group_cursor, table->groups.count, row - 2, &position))
        return false;
    if (again && position == table->group_cursor.selected) {
        *reply = group_enter(table, viewer);
        return true;
    }
    table->group_cursor.selected = position;
    remember_group(table, viewer);
    return true;
}

bool table_groups_up(struct table_pane *table, struct viewer *viewer)
{
    const struct allocation_table *rows = &viewer->query.rows;
    if (!rows->within)
        return false;
    /* The group left behind is selected among its siblings. */
    struct text open = allocation_table_within(rows);
    char *left = malloc(open.length + 1);
    if (!left)
        return false;
    if (open.length)
        memcpy(left, open.bytes, open.length);
    left[open.length] = '\0';
    enum row_group_key key = rows->within_key;
    size_t parent = key == ROW_GROUP_OP_SCOPE ? row_group_scope_up(open) : 0;
    query_set_within(&viewer->query, parent ? key : ROW_GROUP_NONE, text_make(left, parent));
    free(table->selected_group);
    table->selected_group = left;
    table->selected_group_length = open.length;
    table->selected_group_row = SIZE_MAX;
    table->groups_valid = false;
    table->scroll = 0;
    viewer_status(viewer, false, "%s", parent ? rows->within : "back to the groups");
    return true;
}

/* The keys t steps through, after "none", each taken only where the
 * rows record it (row_group_key_recorded). Rows that name their line of
 * code (Skyline's, PyTorch's) group by it first: "which line holds the
 * memory" is one keypress; their op names seldom have scopes. */
static const enum row_group_key key_cycle[] = {
    ROW_GROUP_NONE, ROW_GROUP_LOCATION, ROW_GROUP_FILE,   ROW_GROUP_FUNCTION,
    ROW_GROUP_MODULE, ROW_GROUP_OP_SCOPE, ROW_GROUP_OP,
};
#define KEY_COUNT (sizeof key_cycle / sizeof *key_cycle)

/* The recorded key after `key` in key_cycle, wrapping to none. */
static enum row_group_key key_after(const struct allocation_table *rows, enum row_group_key key)
{
    size_t at = 0;
    while (at < KEY_COUNT && key_cycle[at] != key)
        at++;
    for (size_t step = 1; step <= KEY_COUNT; step++) {
        enum row_group_key next = key_cycle[(at + step) % KEY_COUNT];
        if (next == ROW_GROUP_NONE || row_group_key_recorded(rows, next))
            return next;
    }
    return ROW_GROUP_NONE;
}

void table_groups_next_key(struct table_pane *table, struct viewer *viewer)
{
    enum row_group_key key = key_after(&viewer->query.rows, table_group_key(table, viewer));
    table->group_key = key;
    query_set_within(&viewer->query, ROW_GROUP_NONE, text_of(NULL));
    table_groups_free(table);
    table->group_cursor.selected = table->group_cursor.top = 0;
    table->scroll = 0;
    if (key == ROW_GROUP_NONE)
        viewer_status(viewer, false, "not grouped: every row");
    else
        viewer_status(viewer, false, "grouped by %s, largest first: Enter opens a group, "
                                     "Backspace goes back",
                      row_group_key_name(key));
}
