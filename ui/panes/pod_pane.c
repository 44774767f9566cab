#include "config.h"

#include "ui/panes/pod_pane.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/util/array_grow.h"
#include "model/format.h"
#include "model/util/index_sort.h"
#include "model/logdir.h"
#include "model/message_text.h"
#include "model/util/natural_order.h"
#include "ui/column_fit.h"
#include "ui/list_cursor.h"
#include "ui/viewer.h"

enum pod_column { POD_HOST, POD_ALLOCATOR, POD_PEAK, POD_CAPACITY, POD_SHARE, POD_TIME, POD_COUNT };

/* In this order on screen; the widths are pod_fit()'s (the names keep
 * their room, the numbers go when it is short). */
static const struct fit_column pod_columns[POD_COUNT] = {
    [POD_HOST] = {"Host", false, 12, 40, 0, 0},
    [POD_ALLOCATOR] = {"Allocator", false, 8, 24, 0, 0},
    [POD_PEAK] = {"Peak", true, 0, 0, 0, 0},
    [POD_CAPACITY] = {"Capacity", true, 0, 0, 0, 0},
    [POD_SHARE] = {"% cap", true, 0, 0, 0, 0},
    [POD_TIME] = {"Peak at ms", true, 0, 0, 0, 0},
};
/* Each column's name on the status line when s picks it. */
static const char *const sort_names[POD_COUNT] = {
    [POD_HOST] = "host",         [POD_ALLOCATOR] = "allocator", [POD_PEAK] = "peak",
    [POD_CAPACITY] = "capacity", [POD_SHARE] = "% of capacity", [POD_TIME] = "peak time"};

/* One row: allocator `allocator` of host `host`; NO_ALLOCATOR for a host
 * whose profile is not there (loading, waiting, failed). */
#define NO_ALLOCATOR SIZE_MAX
struct pod_row {
    size_t host, allocator;
};

struct pod_pane {
    struct pane pane;
    struct list_cursor cursor;
    enum pod_column sort;
    bool descending;
    struct pod_row *rows;
    size_t *order; /* rows in the sorted order */
    size_t *scratch;
    size_t count, capacity;
    struct pod_row selected; /* kept by identity while rows come and go */
    bool has_selection;
};

static struct pod_pane *pod_of(struct pane *pane)
{
    return (struct pod_pane *)pane;
}

bool pod_pane_available(const struct viewer *viewer)
{
    return viewer->zoomed == PANE_POD;
}

static const struct allocator *row_allocator(const struct viewer *viewer, const struct pod_row *row)
{
    if (row->allocator == NO_ALLOCATOR)
        return NULL;
    return &viewer->hosts->hosts[row->host].profile->allocators[row->allocator];
}

/* ---- the rows and their order ---- */

static bool pod_add(struct pod_pane *pod, size_t host, size_t allocator)
{
    if (!array_grow((void **)&pod->rows, &pod->capacity, pod->count, sizeof *pod->rows, 64))
        return false;
    pod->rows[pod->count++] = (struct pod_row){host, allocator};
    return true;
}

struct sort_context {
    const struct viewer *viewer;
    const struct pod_pane *pod;
};

static int compare_numbers(int64_t a, int64_t b)
{
    return a < b ? -1 : a > b;
}

/* The order of two rows of loaded hosts by the sort column, ascending. */
static int compare_by_column(const struct viewer *viewer, enum pod_column column,
                             const struct pod_row *a, const struct pod_row *b)
{
    const struct allocator *left = row_allocator(viewer, a), *right = row_allocator(viewer, b);
    const struct allocator_summary *x = &left->summary, *y = &right->summary;
    switch (column) {
    case POD_ALLOCATOR:
        return text_compare(profile_string(viewer->hosts->hosts[a->host].profile, left->id),
                            profile_string(viewer->hosts->hosts[b->host].profile, right->id));
    case POD_PEAK: return compare_numbers(x->peak_bytes, y->peak_bytes);
    case POD_CAPACITY: return compare_numbers(x->capacity_bytes, y->capacity_bytes);
    case POD_SHARE: {
        /* peak/capacity compared as a*d vs c*b, in doubles: exact enough
         * to order, and an unknown capacity sorts lowest. */
        double p = x->capacity_bytes > 0 ? (double)x->peak_bytes / (double)x->capacity_bytes : -1;
        double q = y->capacity_bytes > 0 ? (double)y->peak_bytes / (double)y->capacity_bytes : -1;
        return p < q ? -1 : p > q;
    }
    case POD_TIME: return compare_numbers(x->peak_time_ps, y->peak_time_ps);
    default: return 0;
    }
}

/* Hosts not loaded last whatever the direction; ties by host, then by
 * the allocator's place in its profile. */
static bool row_before(const void *context, size_t a_index, size_t b_index)
{
    const struct sort_context *sort = context;
    const struct pod_row *a = &sort->pod->rows[a_index], *b = &sort->pod->rows[b_index];
    bool a_loaded = a->allocator != NO_ALLOCATOR, b_loaded = b->allocator != NO_ALLOCATOR;
    if (a_loaded != b_loaded)
        return a_loaded;
    int order = 0;
    if (sort->pod->sort == POD_HOST)
        order = natural_compare(sort->viewer->hosts->hosts[a->host].name,
                                sort->viewer->hosts->hosts[b->host].name);
    else if (a_loaded)
        order = compare_by_column(sort->viewer, sort->pod->sort, a, b);
    if (sort->pod->descending && (a_loaded || sort->pod->sort == POD_HOST))
        order = -order;
    /* Ties in the list's order, whichever the direction. */
    if (order == 0)
        order = a->host != b->host ? (a->host < b->host ? -1 : 1)
                                   : (a->allocator < b->allocator ? -1 : a->allocator > b->allocator);
    return order < 0;
}

/* Every host x allocator, sorted, the selection on the same row as
 * before; false when memory runs out. */
static bool pod_build(struct pod_pane *pod, const struct viewer *viewer)
{
    pod->count = 0;
    const struct host_list *hosts = viewer->hosts;
    for (size_t h = 0; h < hosts->count; h++) {
        const struct host *host = &hosts->hosts[h];
        const struct profile *profile = host_state(host) == HOST_LOADED ? host->profile : NULL;
        size_t allocators = profile ? profile->allocator_count : 0;
        if (allocators == 0 && !pod_add(pod, h, NO_ALLOCATOR))
            return false;
        for (size_t a = 0; a < allocators; a++)
            if (!pod_add(pod, h, a))
                return false;
    }
    size_t *order = realloc(pod->order, (pod->capacity ? pod->capacity : 1) * sizeof *order);
    if (order)
        pod->order = order;
    size_t *scratch = realloc(pod->scratch, (pod->capacity ? pod->capacity : 1) * sizeof *scratch);
    if (scratch)
        pod->scratch = scratch;
    if (!order || !scratch)
        return false;
    for (size_t i = 0; i < pod->count; i++)
        pod->order[i] = i;
    struct sort_context context = {viewer, pod};
    index_sort_stable(pod->order, pod->scratch, pod->count, row_before, &context);
    for (size_t i = 0; pod->has_selection && i < pod->count; i++) {
        const struct pod_row *row = &pod->rows[pod->order[i]];
        if (row->host == pod->selected.host &&
            (row->allocator == pod->selected.allocator || row->allocator == NO_ALLOCATOR ||
             pod->selected.allocator == NO_ALLOCATOR)) {
            pod->cursor.selected = i;
            break;
        }
    }
    return true;
}

static void pod_remember(struct pod_pane *pod)
{
    pod->has_selection = pod->cursor.selected < pod->count;
    if (pod->has_selection)
        pod->selected = pod->rows[pod->order[pod->cursor.selected]];
}

/* ---- drawing ---- */

/* What a host without rows of its own says in the allocator column (a
 * load's message raw, as the loader gave it: the cell escapes it). */
static struct text host_state_text(const struct host *host, char *buffer, size_t size)
{
    struct message_text text;
    message_text_start(&text, buffer, size);
    switch (host_state(host)) {
    case HOST_LOADING:
        message_text_append_format(&text, "loading %d%%", host_load_percent(host));
        break;
    case HOST_LOADED:
        if (host->profile) {
            message_text_append_text(&text, "no allocators");
        } else {
            message_text_append_text(&text, "failed: ");
            message_text_append_bytes(&text, load_error_message(&host->error));
        }
        break;
    default: message_text_append_text(&text, "not loaded yet"); break;
    }
    return message_text_get(&text);
}

static struct text pod_cell(const struct viewer *viewer, const struct pod_row *row,
                            enum pod_column column, char *buffer, size_t size)
{
    const struct host *host = &viewer->hosts->hosts[row->host];
    const struct allocator *allocator = row_allocator(viewer, row);
    if (column == POD_HOST)
        return text_of(host->name);
    if (!allocator)
        return column == POD_ALLOCATOR ? host_state_text(host, buffer, size) : text_of("");
    const struct allocator_summary *summary = &allocator->summary;
    switch (column) {
    case POD_ALLOCATOR: return profile_string(host->profile, allocator->id);
    case POD_PEAK: return text_of(format_bytes(summary->peak_bytes, buffer, size));
    case POD_CAPACITY:
        return text_of(summary->capacity_bytes > 0
                           ? format_bytes(summary->capacity_bytes, buffer, size)
                           : "-");
    case POD_SHARE:
        format_capacity_share(summary->peak_bytes, summary->capacity_bytes, buffer, size);
        return text_of(buffer[0] ? buffer : "-");
    default: return text_of(format_milliseconds_value(summary->peak_time_ps, 3, buffer, size));
    }
}

struct measure_context {
    const struct viewer *viewer;
    const struct pod_pane *pod;
};

static struct text pod_measured_cell(const void *context, size_t row, size_t column,
                                     char *buffer, size_t size)
{
    const struct measure_context *measure = context;
    return pod_cell(measure->viewer, &measure->pod->rows[row], (enum pod_column)column, buffer,
                    size);
}

#define POD_GAP 2

/* Every column at its widest text (names up to their maximum); when
 * the width is short, the peak time goes, then the capacity (unless
 * sorted by), then the names shrink to their minimum. */
static void pod_fit(const int *natural, int width, enum pod_column sorted, struct column_fit *fit)
{
    static const enum pod_column hide_order[] = {POD_TIME, POD_CAPACITY};
    memset(fit, 0, sizeof *fit);
    int total = 1 - POD_GAP;
    for (size_t c = 0; c < POD_COUNT; c++) {
        const struct fit_column *column = &pod_columns[c];
        int heading = (int)strlen(column->heading) + 1; /* the sort arrow */
        int wanted = natural[c] > heading ? natural[c] : heading;
        if (column->maximum && wanted > column->maximum)
            wanted = column->maximum;
        fit->width[c] = wanted;
        fit->shown[c] = true;
        total += wanted + POD_GAP;
    }
    for (size_t i = 0; i < 2 && total > width; i++) {
        if (hide_order[i] == sorted)
            continue;
        fit->shown[hide_order[i]] = false;
        total -= fit->width[hide_order[i]] + POD_GAP;
    }
    for (size_t c = POD_HOST; c <= POD_ALLOCATOR && total > width; c++) {
        int give = fit->width[c] - pod_columns[c].minimum;
        give = give < total - width ? give : total - width;
        if (give > 0) {
            fit->width[c] -= give;
            total -= give;
        }
    }
    int x = 1;
    for (size_t c = 0; c < POD_COUNT; c++) {
        if (!fit->shown[c])
            continue;
        fit->x[c] = x;
        x += fit->width[c] + POD_GAP;
    }
}

static void pod_title(const struct pod_pane *pod, const struct viewer *viewer, char *title,
                      size_t size)
{
    const char *run = viewer->hosts->run ? viewer->hosts->run : "";
    (void)pod;
    snprintf(title, size, "Pod overview%s%s: %zu host%s x allocators", run[0] ? " of " : "", run,
             viewer->hosts->count, viewer->hosts->count == 1 ? "" : "s");
}

static void pod_draw_row(const struct viewer *viewer, WINDOW *window, int y, int x, int width,
                         const struct column_fit *fit, const struct pod_row *row, attr_t attr)
{
    const struct ui_style *style = &viewer->style;
    wattrset(window, attr);
    draw_blank(window, y, x, width);
    for (size_t c = 0; c < POD_COUNT; c++) {
        if (!fit->shown[c])
            continue;
        char buffer[LOAD_ERROR_SIZE + 16];
        struct text text = pod_cell(viewer, row, (enum pod_column)c, buffer, sizeof buffer);
        column_fit_draw_cell(window, y, x, pod_columns, fit, c, text, style);
    }
    wattrset(window, style->normal);
}

static void pod_draw(struct pane *pane, struct viewer *viewer, const struct pane_area *area)
{
    struct pod_pane *pod = pod_of(pane);
    WINDOW *window = area->window;
    int y = area->rect.y, x = area->rect.x, height = area->rect.height, width = area->rect.width;
    const struct ui_style *style = &viewer->style;
    char title[512];
    bool built = pod_build(pod, viewer);
    pod_title(pod, viewer, title, sizeof title);
    draw_pane_title(window, y, x, width, title, area->focused, style);
    if (!built) {
        draw_text(window, y + 1, x + 2, width - 2, "out of memory", style);
        return;
    }
    int natural[POD_COUNT];
    struct measure_context measure = {viewer, pod};
    column_fit_measure(POD_COUNT, pod->count, pod_measured_cell, &measure, style, natural);
    struct column_fit fit;
    pod_fit(natural, width, pod->sort, &fit);
    if (height < 3)
        return;
    column_fit_draw_headings(window, y + 1, x, pod_columns, POD_COUNT, &fit, (int)pod->sort,
                             pod->descending, style);
    list_cursor_fit(&pod->cursor, pod->count, height - 2);
    for (int r = 0; r + 2 < height; r++) {
        size_t index = pod->cursor.top + (size_t)r;
        if (index >= pod->count)
            break;
        const struct pod_row *row = &pod->rows[pod->order[index]];
        attr_t attr = row->allocator == NO_ALLOCATOR ? style->dim : style->normal;
        if (index == pod->cursor.selected)
            attr = area->focused ? style->selected : style->selected_unfocused;
        pod_draw_row(viewer, window, y + 2 + r, x, width, &fit, row, attr);
    }
    pod_remember(pod);
}

/* ---- keys ---- */

/* Enter: that host on that allocator, the usual layout back. */
static struct pane_reply pod_open(struct pod_pane *pod)
{
    if (pod->cursor.selected >= pod->count)
        return pane_reply_handled();
    const struct pod_row *row = &pod->rows[pod->order[pod->cursor.selected]];
    struct follow_up open = follow_up_of(FOLLOW_UP_SELECT_HOST_ALLOCATOR, row->host);
    open.item = row->allocator;
    struct pane_reply reply = pane_reply_follow(open);
    pane_reply_add(&reply, follow_up_focus(PANE_TABLE));
    return reply;
}

static struct pane_reply pod_handle(struct pane *pane, struct viewer *viewer,
                                    enum request request)
{
    struct pod_pane *pod = pod_of(pane);
    if (!pod_build(pod, viewer))
        return pane_reply_handled();
    switch (request) {
    case REQUEST_ENTER: return pod_open(pod);
    case REQUEST_CANCEL: {
        struct follow_up close = follow_up_of(FOLLOW_UP_ZOOM_PANE, 0);
        close.pane = PANE_NONE;
        return pane_reply_follow(close);
    }
    case REQUEST_SORT_NEXT:
        pod->sort = (enum pod_column)((pod->sort + 1) % POD_COUNT);
        /* Sizes and shares read best largest first, names and times in order. */
        pod->descending = pod->sort == POD_PEAK || pod->sort == POD_CAPACITY ||
                          pod->sort == POD_SHARE;
        viewer_status(viewer, false, "pod overview sorted by %s", sort_names[pod->sort]);
        return pane_reply_handled();
    case REQUEST_SORT_REVERSE: pod->descending = !pod->descending; return pane_reply_handled();
    default: break;
    }
    if (!list_cursor_move(&pod->cursor, pod->count, request))
        return pane_reply_ignored();
    pod_remember(pod);
    return pane_reply_handled();
}

/* Rows start under the title and the headings; a second click on the
 * selected row opens it. */
static struct pane_reply pod_click(struct pane *pane, struct viewer *viewer, int row, int column,
                                   bool again)
{
    (void)column;
    struct pod_pane *pod = pod_of(pane);
    size_t index;
    if (!pod_build(pod, viewer) || !list_cursor_item_at(&pod->cursor, pod->count, row - 2, &index))
        return pane_reply_handled();
    if (again && index == pod->cursor.selected)
        return pod_open(pod);
    pod->cursor.selected = index;
    pod_remember(pod);
    return pane_reply_handled();
}

static void pod_free(struct pane *pane)
{
    struct pod_pane *pod = pod_of(pane);
    free(pod->rows);
    free(pod->order);
    free(pod->scratch);
    pane_free_plain(pane);
}

static const struct pane_ops pod_ops = {
    .draw = pod_draw,
    .handle = pod_handle,
    .click = pod_click,
    .free = pod_free,
    .scope = KEY_SCOPE_POD,
    .moves_through_items = true,
};

struct pane *pod_pane_create(struct viewer *viewer)
{
    (void)viewer;
    return pane_create(&pod_ops, sizeof(struct pod_pane));
}
