/* table_rows: the allocations table's rows as drawn (see table_view.h):
 * which columns show, their cells and widths, the title with the sort,
 * filter and open group, and the note under the rows. Called by
 * table_pane.c; reads the query's rows and draws, changes nothing. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "model/query/allocation_columns.h"
#include "model/query/allocation_table.h"
#include "model/format.h"
#include "ui/panes/table/table_view.h"
#include "ui/text_fit.h"
#include "ui/viewer.h"

/* The columns as drawn, from the model's column table: sizes first,
 * where the eye finds them at a fixed place, read left to right as
 * "size x count = total, share of the peak"; the op name last, where it
 * takes whatever width is left. The pane decides only the order and who
 * gives way when it is narrow: text columns keep their natural width
 * and hide whole in hide order (the requested size mostly repeats the
 * size; the total makes the count readable without it; the op name is
 * what people read the table for, cut in its middle); only the location
 * shrinks, cut in its middle too so that ":line" stays. Names,
 * alignment, widths and values are the column table's. Columns only
 * some formats fill are not drawn when no row fills them (kind and
 * location for XProf files, module where no module is recorded;
 * requested size, count, region, type and
 * shape for Skyline's reports), and the total not without a count (a
 * report's entry is one tensor: its total is its size). */
struct shown_column {
    enum table_column id;
    int shrink_rank;
    int hide_rank;
    bool hide_when_empty;
    enum table_column shown_with; /* drawn only when this one is; FILE_ORDER: always */
};

#define ALWAYS TABLE_COLUMN_FILE_ORDER

static const struct shown_column shown_columns[TABLE_SHOWN_COUNT] = {
    {TABLE_COLUMN_ALLOCATION_BYTES, 0, 9, false, ALWAYS},
    {TABLE_COLUMN_REQUESTED_BYTES, 0, 1, true, ALWAYS},
    {TABLE_COLUMN_OCCURRENCES, 0, 3, true, ALWAYS},
    {TABLE_COLUMN_TOTAL_BYTES, 0, 0, true, TABLE_COLUMN_OCCURRENCES},
    {TABLE_COLUMN_SHARE, 0, 6, true, ALWAYS},
    {TABLE_COLUMN_KIND, 0, 7, true, ALWAYS},
    {TABLE_COLUMN_REGION_TYPE, 0, 2, true, ALWAYS},
    {TABLE_COLUMN_DATA_TYPE, 0, 4, true, ALWAYS},
    {TABLE_COLUMN_TENSOR_SHAPE, 0, 5, true, ALWAYS},
    {TABLE_COLUMN_MODULE, 2, 7, true, ALWAYS}, /* a PyTorch trace's nn.Module (issue 22) */
    {TABLE_COLUMN_LOCATION, 1, 8, true, ALWAYS},
    {TABLE_COLUMN_OP_NAME, 0, 0, false, ALWAYS},
};

size_t table_rows_drawn_order(const struct table_pane *table, enum table_column *order)
{
    size_t count = 0;
    for (size_t c = 0; c < TABLE_SHOWN_COUNT; c++)
        if (!shown_columns[c].hide_when_empty || table->natural[c] > 0)
            order[count++] = shown_columns[c].id;
    return count;
}

void table_rows_fit_columns(struct fit_column *fit)
{
    for (size_t c = 0; c < TABLE_SHOWN_COUNT; c++) {
        const struct allocation_column_info *info = allocation_column(shown_columns[c].id);
        enum table_column id = shown_columns[c].id;
        fit[c] = (struct fit_column){
            .heading = info->name,
            .right_aligned = info->right_aligned,
            .minimum = info->min_width,
            .maximum = info->max_width == INT_MAX ? 0 : info->max_width,
            .shrink_rank = shown_columns[c].shrink_rank,
            .hide_rank = shown_columns[c].hide_rank,
            .hide_when_empty = shown_columns[c].hide_when_empty,
            .shorten_middle = id == TABLE_COLUMN_OP_NAME || id == TABLE_COLUMN_LOCATION,
        };
    }
}

/* ---- cells ---- */

static const char *separator(const struct ui_style *style)
{
    return style->utf8 ? " \xc2\xb7 " : " - "; /* " · " */
}

/* "1 MiB" for a whole number of a unit, else as format_bytes writes it. */
static const char *format_whole_bytes(int64_t bytes, char *buffer, size_t size)
{
    static const char *const units[] = {"GiB", "MiB", "KiB"};
    for (int u = 0; u < 3; u++) {
        int64_t unit = INT64_C(1) << (10 * (3 - u));
        if (bytes >= unit && bytes % unit == 0) {
            snprintf(buffer, size, "%lld %s", (long long)(bytes / unit), units[u]);
            return buffer;
        }
    }
    return format_bytes(bytes, buffer, size);
}

/* "37.1%" */
static const char *format_share(double fraction, char *buffer, size_t size)
{
    snprintf(buffer, size, "%.1f%%", fraction * 100.0);
    return buffer;
}

/* The text of one cell; profile strings come back as they are
 * (draw_bytes makes them safe), numbers are written into buffer. An
 * unresolved row's sizes are unknown: "?", as the text summary says. */
static struct text cell_text(const struct allocation_table *rows,
                             const struct allocation_context *context,
                             const struct allocation_row *row, size_t column, char *buffer,
                             size_t size)
{
    const struct allocation_column_info *info = allocation_column(shown_columns[column].id);
    if (info->id == TABLE_COLUMN_OP_NAME)
        return allocation_table_op_name(rows, row, buffer, size); /* names unresolved rows */
    struct allocation_value value = info->value(context, row);
    if (value.absent)
        return text_of("");
    bool unknown = row->origin == ROW_UNRESOLVED;
    switch (info->kind) {
    case ALLOCATION_VALUE_BYTES:
        return text_of(unknown ? "?" : format_bytes(value.integer, buffer, size));
    case ALLOCATION_VALUE_FRACTION:
        return text_of(unknown ? "?" : format_share(value.fraction, buffer, size));
    case ALLOCATION_VALUE_INTEGER:
        snprintf(buffer, size, "%lld", (long long)value.integer);
        return text_of(buffer);
    case ALLOCATION_VALUE_ADDRESS:
        snprintf(buffer, size, "0x%llx", (unsigned long long)value.address);
        return text_of(buffer);
    default: /* XProf's placeholders (INVALID, a special row's "unknown") read as none */
        return allocation_value_is_placeholder(row, info->id, value.text) ? text_of("")
                                                                          : value.text;
    }
}

struct measured {
    const struct allocation_table *rows;
    struct allocation_context context;
};

static struct text measured_cell(const void *context, size_t row, size_t column, char *buffer,
                                 size_t size)
{
    const struct measured *measured = context;
    return cell_text(measured->rows, &measured->context, &measured->rows->source.rows[row],
                     column, buffer, size);
}

/* The widest text of each column over all the source's rows (not only
 * those the filter leaves), so the columns do not jump while typing a
 * filter; a column drawn only with another is empty without it. */
void table_rows_measure(struct table_pane *table, const struct viewer *viewer)
{
    const struct allocation_table *rows = &viewer->query.rows;
    struct measured measured = {rows, allocation_table_context(rows)};
    column_fit_measure(TABLE_SHOWN_COUNT, allocation_table_total(rows), measured_cell, &measured,
                       &viewer->style, table->natural);
    for (size_t c = 0; c < TABLE_SHOWN_COUNT; c++) /* not recorded: empty, so hidden */
        if (!allocation_column_recorded(rows->allocator, shown_columns[c].id) ||
            ((shown_columns[c].id == TABLE_COLUMN_DATA_TYPE ||
              shown_columns[c].id == TABLE_COLUMN_TENSOR_SHAPE) &&
             !allocation_table_column_filled(rows, shown_columns[c].id)))
            table->natural[c] = 0; /* XProf's placeholders only: none (issue 22) */
    table->measured_rows = rows->source.rows;
    table->measured_count = allocation_table_total(rows);
    for (size_t c = 0; c < TABLE_SHOWN_COUNT; c++) {
        enum table_column with = shown_columns[c].shown_with;
        for (size_t other = 0; with != ALWAYS && other < TABLE_SHOWN_COUNT; other++)
            if (shown_columns[other].id == with && table->natural[other] == 0)
                table->natural[c] = 0;
    }
}

/* The column showing the sort, which is always drawn; -1 in file order. */
static int table_sorted_column(const struct viewer *viewer)
{
    for (size_t c = 0; c < TABLE_SHOWN_COUNT; c++)
        if (shown_columns[c].id == viewer->query.rows.sort_column)
            return (int)c;
    return -1;
}

/* ---- the title ---- */

/* The title's parts, each present or not, longest form first. */
struct title_parts {
    const char *name;     /* "Allocations at peak", "At peak", "Entries" */
    const char *grouping; /* "by scope", "in model/dense_58/", "" */
    char filter[320];     /* "filter: dense (12 of 293 rows)", "" */
    char counts[64];      /* "(293)", "(12 of 293)" */
    char compact[32];     /* "(293)", "(12)" */
    char least[48];       /* "≥1 MiB", "" */
    char bytes[96];       /* "540.00 MiB of 7.17 GiB" */
};

/* Which parts a form of the title has. */
struct title_form {
    bool long_name, filter, least, grouping, full_counts, counts;
};

static void title_join(const struct title_parts *parts, const struct ui_style *style,
                       const struct title_form *form, char *title, size_t size)
{
    const char *dot = separator(style);
    bool counted = form->filter && parts->filter[0];
    bool grouped = form->grouping && parts->grouping[0];
    bool has_least = form->least && parts->least[0];
    const char *counts = counted ? parts->filter
                         : !form->counts ? ""
                         : form->full_counts ? parts->counts
                                             : parts->compact;
    snprintf(title, size, "%s%s%s%s%s%s%s%s%s", parts->name, grouped ? " " : "",
             grouped ? parts->grouping : "", counts[0] ? (counted ? dot : " ") : "", counts,
             has_least ? dot : "", has_least ? parts->least : "", dot, parts->bytes);
}

/* The fewest cells an open group's name is cut to in the title. */
#define TITLE_GROUP_LEAST 10

/* "in model/dense_58/", the name in at most `cells` cells. */
static void title_open_group(const char *within, int cells, const struct ui_style *style,
                             char *group, size_t size)
{
    char fitted[64];
    snprintf(group, size, "in %s", text_fit_middle(within, cells, style, fitted, sizeof fitted));
}

void table_title(const struct table_pane *table, const struct viewer *viewer, int width,
                 char *title, size_t size)
{
    const struct allocation_table *rows = &viewer->query.rows;
    const struct ui_style *style = &viewer->style;
    struct title_parts parts;
    /* A report without a timeline lists what it holds, not a moment. */
    bool entries = viewer->allocator->timeline_kind == TIMELINE_NONE &&
                   viewer->allocator->oom_count == 0;
    /* What the rows are, as the query's source names them ("Allocations
     * at peak", "Allocations live at 12.345 ms"; narrow: "Live at ..."). */
    const char *long_name = entries ? "Entries" : query_title(&viewer->query, true);
    const char *short_name = entries ? "Entries" : query_title(&viewer->query, false);
    char group[96] = "";
    enum row_group_key key = table_group_key(table, viewer);
    if (rows->within)
        title_open_group(rows->within, 40, style, group, sizeof group);
    else if (key != ROW_GROUP_NONE)
        snprintf(group, sizeof group, "by %s", row_group_key_name(key));
    parts.grouping = group;
    size_t total = allocation_table_total(rows);
    bool narrowed = allocation_table_narrowed(rows);
    snprintf(parts.counts, sizeof parts.counts, narrowed ? "(%zu of %zu)" : "(%zu)", rows->count,
             total);
    snprintf(parts.compact, sizeof parts.compact, "(%zu)", rows->count);
    parts.filter[0] = '\0';
    if (rows->filter[0])
        snprintf(parts.filter, sizeof parts.filter, "filter: %s (%zu of %zu rows)", rows->filter,
                 rows->count, total);
    parts.least[0] = '\0';
    if (rows->min_bytes > 0) {
        char least[FORMAT_BYTES_SIZE];
        snprintf(parts.least, sizeof parts.least, "%s%s", style->utf8 ? "\xe2\x89\xa5" : ">=",
                 format_whole_bytes(rows->min_bytes, least, sizeof least));
    }
    char shown[FORMAT_BYTES_SIZE], peak[FORMAT_BYTES_SIZE];
    snprintf(parts.bytes, sizeof parts.bytes, "%s of %s",
             format_bytes(allocation_table_shown_bytes(rows), shown, sizeof shown),
             format_bytes(viewer->allocator->summary.peak_bytes, peak, sizeof peak));
    /* Less and less, until it fits: the total always stays. */
    static const struct title_form forms[] = {
        {true, true, true, true, true, true},     {false, true, true, true, true, true},
        {false, false, true, true, true, true},   {false, false, true, true, false, true},
        {false, false, true, true, false, false}, {false, false, true, false, false, true},
        {false, false, false, false, false, true},
    };
    size_t count = sizeof forms / sizeof *forms;
    for (size_t f = 0; f < count; f++) {
        parts.name = forms[f].long_name ? long_name : short_name;
        title_join(&parts, style, &forms[f], title, size);
        int over = draw_text_width(title, style) + 4 - width;
        if (over <= 0)
            return;
        /* Before a form without the open group: its name cut in its
         * middle, so that the title still says which group this is. */
        bool last_with_group = forms[f].grouping && f + 1 < count && !forms[f + 1].grouping;
        int name_cells = rows->within ? draw_text_width(rows->within, style) : 0;
        if (last_with_group && rows->within && name_cells - over >= TITLE_GROUP_LEAST) {
            title_open_group(rows->within, name_cells - over, style, group, sizeof group);
            title_join(&parts, style, &forms[f], title, size);
            if (draw_text_width(title, style) + 4 <= width)
                return;
            title_open_group(rows->within, 40, style, group, sizeof group);
        }
    }
}

/* ---- drawing ---- */

static void draw_row(const struct table_pane *table, struct viewer *viewer, WINDOW *window, int y,
                     int x, int width, const struct column_fit *layout,
                     const struct allocation_context *context, const struct allocation_row *row,
                     attr_t attr)
{
    const struct ui_style *style = &viewer->style;
    wattrset(window, attr);
    draw_blank(window, y, x, width);
    for (size_t c = 0; c < TABLE_SHOWN_COUNT; c++) {
        if (!layout->shown[c])
            continue;
        char buffer[ALLOCATION_TABLE_LABEL_SIZE];
        struct text text = cell_text(&viewer->query.rows, context, row, c, buffer, sizeof buffer);
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

/* What an empty table says: why no row is shown. */
static void draw_empty(const struct viewer *viewer, WINDOW *window, int y, int x, int width)
{
    const struct allocation_table *rows = &viewer->query.rows;
    const struct ui_style *style = &viewer->style;
    char message[400], least[FORMAT_BYTES_SIZE];
    if (allocation_table_total(rows) == 0)
        snprintf(message, sizeof message, "no allocations %s in this file", rows->source.label);
    else if (rows->filter[0])
        snprintf(message, sizeof message,
                 "no row's op, region, type or shape contains \"%s\" (Esc clears the filter)",
                 rows->filter);
    else if (rows->min_bytes > 0)
        snprintf(message, sizeof message, "no row holds %s or more (H shows them all)",
                 format_whole_bytes(rows->min_bytes, least, sizeof least));
    else
        snprintf(message, sizeof message, "no row here (Backspace: back to the groups)");
    wattrset(window, style->dim);
    draw_text(window, y, x + 2, width - 2, message, style);
    wattrset(window, style->normal);
}

/* The unresolved note in lines of at most `width` cells, broken
 * between words; returns how many (at most `room`), starting each in
 * lines[] (NUL-terminated copies). */
#define NOTE_LINES 3
static int note_lines(int width, int room, char lines[NOTE_LINES][160])
{
    const char *note = "? " ALLOCATION_TABLE_UNRESOLVED_NOTE;
    int count = 0;
    while (*note && count < room && count < NOTE_LINES) {
        size_t length = strlen(note), fits = length;
        if ((int)length > width) {
            fits = (size_t)(width > 0 ? width : 1);
            while (fits > 1 && note[fits] != ' ')
                fits--;
        }
        if (fits >= sizeof lines[0])
            fits = sizeof lines[0] - 1;
        memcpy(lines[count], note, fits);
        lines[count][fits] = '\0';
        count++;
        note += fits;
        while (*note == ' ')
            note++;
    }
    return count;
}

/* Under the rows, once: why some rows have no op and no size (on as
 * many lines as the pane can spare, up to three). */
static int draw_unresolved_note(const struct viewer *viewer, WINDOW *window, int bottom, int x,
                                int width, int room)
{
    const struct ui_style *style = &viewer->style;
    char lines[NOTE_LINES][160];
    int count = note_lines(width - 1, room, lines);
    wattrset(window, style->dim);
    for (int i = 0; i < count; i++) {
        draw_blank(window, bottom - count + 1 + i, x, width);
        draw_text(window, bottom - count + 1 + i, x + 1, width - 1, lines[i], style);
    }
    wattrset(window, style->normal);
    return count;
}

/* A scrolled table says so at the left of its headings. */
static void draw_scroll_marker(const struct column_fit *layout, const struct ui_style *style,
                               WINDOW *window, int y, int x)
{
    if (layout->skipped == 0 && layout->last_offset == 0)
        return;
    wattrset(window, style->title);
    mvwaddstr(window, y, x, style->utf8 ? "\xe2\x97\x82" : "<"); /* ◂ */
    wattrset(window, style->normal);
}

void table_rows_draw(struct table_pane *table, struct viewer *viewer, const struct pane_area *area)
{
    WINDOW *window = area->window;
    int y = area->rect.y, x = area->rect.x, height = area->rect.height, width = area->rect.width;
    const struct ui_style *style = &viewer->style;
    const struct allocation_table *rows = &viewer->query.rows;
    /* Another source (live rows at another time): measured again. */
    if (table->measured_rows != rows->source.rows ||
        table->measured_count != allocation_table_total(rows))
        table_rows_measure(table, viewer);
    int sorted = table_sorted_column(viewer);
    struct column_fit layout;
    column_fit_compute_scrolled(table->fit, TABLE_SHOWN_COUNT, table->natural, 1, sorted, width,
                                &table->scroll, &layout);
    column_fit_draw_headings(window, y + 1, x, table->fit, TABLE_SHOWN_COUNT, &layout, sorted,
                             rows->descending, style);
    draw_scroll_marker(&layout, style, window, y + 1, x);
    if (rows->count == 0) {
        if (height > 2)
            draw_empty(viewer, window, y + 2, x, width);
        return;
    }
    int page_rows = height - 2;
    /* The note takes lines the rows do not need, at least one. */
    int note = 0;
    if (rows->unresolved_count > 0 && page_rows > 3) {
        int spare = page_rows - (int)(rows->count < (size_t)page_rows ? rows->count : 0);
        note = draw_unresolved_note(viewer, window, y + height - 1, x, width,
                                    spare > 1 ? spare - 1 : 1);
        page_rows -= note;
    }
    list_cursor_fit(&table->cursor, rows->count, page_rows);
    struct allocation_context context = allocation_table_context(rows);
    for (int r = 0; r < page_rows; r++) {
        size_t position = table->cursor.top + (size_t)r;
        const struct allocation_row *row = allocation_table_row(rows, position);
        if (!row)
            break;
        attr_t attr = style->normal;
        if (position == table->cursor.selected)
            attr = area->focused ? style->selected : style->selected_unfocused;
        draw_row(table, viewer, window, y + 2 + r, x, width, &layout, &context, row, attr);
    }
}
