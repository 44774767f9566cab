/* segments_pane: see segments_pane.h. The rows are rewound from the end
 * of the trace (model/segments.h) when the cursor's snapshot changes,
 * not on every frame. */
#include "config.h"

#include "ui/panes/segments_pane.h"

#include <stdio.h>
#include <string.h>

#include "model/format.h"
#include "model/segments.h"
#include "ui/column_fit.h"
#include "ui/viewer.h"

enum segment_column {
    SEGMENT_ADDRESS,
    SEGMENT_SIZE,
    SEGMENT_ALLOCATED,
    SEGMENT_PENDING,
    SEGMENT_FREE,
    SEGMENT_LARGEST_FREE,
    SEGMENT_BLOCKS,
    SEGMENT_POOL,
    SEGMENT_STREAM,
    SEGMENT_COLUMN_COUNT
};

/* Who gives way when narrow: the stream, the pool, the address, the blocks. */
static const struct fit_column segment_columns[SEGMENT_COLUMN_COUNT] = {
    [SEGMENT_ADDRESS] = {"Address", false, 0, 0, 0, 2},
    [SEGMENT_SIZE] = {"Size", true, 0, 0, 0, 0},
    [SEGMENT_ALLOCATED] = {"Allocated", true, 0, 0, 0, 0},
    [SEGMENT_PENDING] = {"Pending", true, 0, 0, 0, 0},
    [SEGMENT_FREE] = {"Free", true, 0, 0, 0, 0},
    [SEGMENT_LARGEST_FREE] = {"Largest free", true, 0, 0, 0, 0},
    [SEGMENT_BLOCKS] = {"Blocks", true, 0, 0, 0, 1},
    [SEGMENT_POOL] = {"Pool", false, 0, 0, 0, 3},
    [SEGMENT_STREAM] = {"Stream", false, 0, 0, 0, 4},
};

struct segments_pane {
    struct pane pane;
    struct list_cursor cursor;
    /* The rows of `built` after snapshot `built_index`. */
    const struct allocator *built;
    size_t built_index;
    struct segment_rows rows;
    int natural[SEGMENT_COLUMN_COUNT];
};

static struct segments_pane *segments_of(struct pane *pane)
{
    return (struct segments_pane *)pane;
}

bool segments_pane_available(const struct viewer *viewer)
{
    return allocator_has_segments(viewer->allocator);
}

static void segments_reset(struct pane *pane, struct viewer *viewer, bool new_host)
{
    (void)viewer;
    (void)new_host;
    struct segments_pane *segments = segments_of(pane);
    segment_rows_free(&segments->rows);
    segments->built = NULL;
    memset(&segments->cursor, 0, sizeof segments->cursor);
}

static const char *segment_cell(const struct segment_row *row, enum segment_column column,
                                char *buffer, size_t size)
{
    switch (column) {
    case SEGMENT_ADDRESS: snprintf(buffer, size, "0x%llx", (unsigned long long)row->address); break;
    case SEGMENT_SIZE: format_bytes(row->size, buffer, size); break;
    case SEGMENT_ALLOCATED: format_bytes(row->allocated_bytes, buffer, size); break;
    case SEGMENT_PENDING: format_bytes(row->pending_free_bytes, buffer, size); break;
    case SEGMENT_FREE: format_bytes(row->free_bytes, buffer, size); break;
    case SEGMENT_LARGEST_FREE: format_bytes(row->largest_free_bytes, buffer, size); break;
    case SEGMENT_BLOCKS: snprintf(buffer, size, "%zu", row->blocks); break;
    case SEGMENT_POOL: snprintf(buffer, size, "%s", row->private_pool ? "private" : "default"); break;
    default:
        if (row->stream)
            snprintf(buffer, size, "0x%llx", (unsigned long long)row->stream);
        else
            snprintf(buffer, size, "default");
        break;
    }
    return buffer;
}

static struct text segments_measured_cell(const void *context, size_t row, size_t column,
                                          char *buffer, size_t size)
{
    const struct segment_rows *rows = context;
    return text_of(segment_cell(&rows->rows[row], (enum segment_column)column, buffer, size));
}

/* The rows after the snapshot the chart's cursor shows. */
static const struct segment_rows *segments_rows(struct segments_pane *segments,
                                                const struct viewer *viewer)
{
    bool carried;
    size_t index = time_window_shown_snapshot(&viewer->time, &viewer->allocator->timeline,
                                              &carried);
    if (segments->built == viewer->allocator && segments->built_index == index)
        return &segments->rows;
    segment_rows_free(&segments->rows);
    segments->built = viewer->allocator;
    segments->built_index = index;
    if (segment_rows_at(viewer->allocator, index, &segments->rows))
        column_fit_measure(SEGMENT_COLUMN_COUNT, segments->rows.count, segments_measured_cell,
                           &segments->rows, &viewer->style, segments->natural);
    return &segments->rows;
}

/* "Segments (8) · 112.00 MiB: 89.19 MiB allocated, 0 B pending, 22.81 MiB free, largest 10.00 MiB". */
static void segments_title(const struct segment_rows *rows, const struct viewer *viewer,
                           char *title, size_t size)
{
    const char *separator = viewer->style.utf8 ? " \xc2\xb7 " : " - ";
    char total[FORMAT_BYTES_SIZE], allocated[FORMAT_BYTES_SIZE], pending[FORMAT_BYTES_SIZE],
        free_bytes[FORMAT_BYTES_SIZE], largest[FORMAT_BYTES_SIZE];
    snprintf(title, size, "Segments (%zu)%s%s: %s allocated, %s pending, %s free, largest %s",
             rows->count, separator, format_bytes(rows->total.size, total, sizeof total),
             format_bytes(rows->total.allocated_bytes, allocated, sizeof allocated),
             format_bytes(rows->total.pending_free_bytes, pending, sizeof pending),
             format_bytes(rows->total.free_bytes, free_bytes, sizeof free_bytes),
             format_bytes(rows->total.largest_free_bytes, largest, sizeof largest));
}

static void segments_draw(struct pane *pane, struct viewer *viewer, const struct pane_area *area)
{
    struct segments_pane *segments = segments_of(pane);
    WINDOW *window = area->window;
    int y = area->rect.y, x = area->rect.x, height = area->rect.height, width = area->rect.width;
    const struct ui_style *style = &viewer->style;
    if (height <= 0 || width <= 0 || !allocator_has_segments(viewer->allocator))
        return;
    const struct segment_rows *rows = segments_rows(segments, viewer);
    char title[256];
    segments_title(rows, viewer, title, sizeof title);
    draw_pane_title(window, y, x, width, title, area->focused, style);
    pane_draw_tab_hint(area, text_of(title), style);
    if (height < 2 || rows->count == 0)
        return;
    struct column_fit layout;
    column_fit_compute(segment_columns, SEGMENT_COLUMN_COUNT, segments->natural, 0, -1, width,
                       &layout);
    column_fit_draw_headings(window, y + 1, x, segment_columns, SEGMENT_COLUMN_COUNT, &layout, -1,
                             false, style);
    int page_rows = height - 2;
    list_cursor_fit(&segments->cursor, rows->count, page_rows);
    for (int r = 0; r < page_rows; r++) {
        size_t index = segments->cursor.top + (size_t)r;
        if (index >= rows->count)
            break;
        attr_t attr = style->normal;
        if (index == segments->cursor.selected)
            attr = area->focused ? style->selected : style->selected_unfocused;
        wattrset(window, attr);
        draw_blank(window, y + 2 + r, x, width);
        for (int c = 0; c < SEGMENT_COLUMN_COUNT; c++) {
            if (!layout.shown[c])
                continue;
            char buffer[48];
            const char *text =
                segment_cell(&rows->rows[index], (enum segment_column)c, buffer, sizeof buffer);
            column_fit_draw_cell(window, y + 2 + r, x, segment_columns, &layout, (size_t)c,
                                 text_of(text), style);
        }
        wattrset(window, style->normal);
    }
}

static struct pane_reply segments_handle(struct pane *pane, struct viewer *viewer,
                                         enum request request)
{
    struct segments_pane *segments = segments_of(pane);
    size_t count = segments_rows(segments, viewer)->count;
    return list_cursor_move(&segments->cursor, count, request) ? pane_reply_handled()
                                                               : pane_reply_ignored();
}

static struct pane_reply segments_click(struct pane *pane, struct viewer *viewer, int row,
                                        int column, bool again)
{
    (void)column;
    (void)again;
    struct segments_pane *segments = segments_of(pane);
    size_t index;
    if (list_cursor_item_at(&segments->cursor, segments_rows(segments, viewer)->count, row - 2,
                            &index))
        segments->cursor.selected = index;
    return pane_reply_handled();
}

/* e: the segments at the cursor's time. */
static bool segments_export(struct pane *pane, const struct viewer *viewer,
                            struct export_request *request)
{
    (void)pane;
    if (!allocator_has_segments(viewer->allocator))
        return false;
    export_request_init(request, EXPORT_VIEW_SEGMENTS, viewer->profile, viewer->allocator);
    request->has_at = true;
    request->at_ps = time_window_shown_time(&viewer->time, &viewer->allocator->timeline);
    return true;
}

static void segments_free(struct pane *pane)
{
    segment_rows_free(&segments_of(pane)->rows);
    pane_free_plain(pane);
}

static const struct pane_ops segments_ops = {
    .draw = segments_draw,
    .handle = segments_handle,
    .click = segments_click,
    .reset = segments_reset,
    .free = segments_free,
    .export = segments_export,
    .scope = KEY_SCOPE_PANE,
    .moves_through_items = true,
};

struct pane *segments_pane_create(struct viewer *viewer)
{
    (void)viewer;
    return pane_create(&segments_ops, sizeof(struct segments_pane));
}
