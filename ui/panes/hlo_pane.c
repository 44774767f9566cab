#include "config.h"

#include "ui/panes/hlo_pane.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/timeline.h"
#include "model/format.h"
#include "model/util/index_sort.h"
#include "model/message_text.h"
#include "ui/chart_columns.h"
#include "ui/column_fit.h"
#include "ui/settings.h"
#include "ui/viewer.h"

/* Numbers first at fixed places, the name last where it gets the slack. */
enum hlo_column { HLO_ID, HLO_START, HLO_END, HLO_DURATION, HLO_DEVICE, HLO_NAME, HLO_COUNT };

/* Who gives way first when the pane is narrow: the end (start and
 * duration give it), the device, the duration. */
static const struct fit_column hlo_columns[HLO_COUNT] = {
    [HLO_ID] = {"Id", true, 0, 0, 0, 0},
    [HLO_START] = {"Start ms", true, 0, 0, 0, 0},
    [HLO_END] = {"End ms", true, 0, 0, 0, 1},
    [HLO_DURATION] = {"Dur ms", true, 0, 0, 0, 3},
    [HLO_DEVICE] = {"Device", false, 0, 24, 0, 2},
    [HLO_NAME] = {"Name", false, 12, 0, 0, 0},
};

/* No sort: the file's order (XProf's). */
#define HLO_FILE_ORDER HLO_COUNT

struct hlo_pane {
    struct pane pane;
    struct list_cursor cursor;      /* over order[]: the selected module */
    const struct profile *measured; /* whose modules natural[] measured */
    int natural[HLO_COUNT];
    /* The modules shown, in the order shown: the device filter, then the
     * sort. Built again when `ordered` is not the profile shown. */
    const struct profile *ordered;
    size_t *order, *scratch;
    size_t shown;
    int sort;        /* HLO_ID, HLO_START, HLO_DURATION or HLO_FILE_ORDER */
    bool descending;
    uint32_t device; /* the plane name shown; STRING_ID_NONE: every device */
    /* Enter zoomed the chart to this module (SIZE_MAX: none) from the
     * window [before_from, before_to]; Enter on it again goes back. */
    size_t zoomed;
    int64_t before_from, before_to;
};

static struct hlo_pane *hlo_of(struct pane *pane)
{
    return (struct hlo_pane *)pane;
}

/* A host opened: its modules from the first, every device, no zoom to
 * undo (another allocator keeps all that: the modules are the
 * profile's). */
static void hlo_reset(struct pane *pane, struct viewer *viewer, bool new_host)
{
    (void)viewer;
    struct hlo_pane *hlo = hlo_of(pane);
    if (!new_host)
        return;
    memset(&hlo->cursor, 0, sizeof hlo->cursor);
    hlo->measured = NULL;
    hlo->ordered = NULL;
    hlo->device = STRING_ID_NONE;
    hlo->zoomed = SIZE_MAX;
}

static size_t hlo_module_total(const struct viewer *viewer)
{
    return viewer->profile ? viewer->profile->hlo_module_count : 0;
}

/* ---- the order: device filter, then sort ---- */

static uint64_t hlo_duration(const struct hlo_module *module)
{
    return chart_range_diff(module->start_time_ps, module->end_time_ps);
}

struct hlo_sort_context {
    const struct hlo_module *modules;
    int sort;
    bool descending;
};

/* Whether module a comes before module b: by the sort's key, ties in
 * the file's order (the stable sort keeps it). */
static bool hlo_before(const void *context, size_t a, size_t b)
{
    const struct hlo_sort_context *sorting = context;
    const struct hlo_module *x = &sorting->modules[a], *y = &sorting->modules[b];
    int compared;
    switch (sorting->sort) {
    case HLO_ID: compared = (x->id > y->id) - (x->id < y->id); break;
    case HLO_START:
        compared = (x->start_time_ps > y->start_time_ps) - (x->start_time_ps < y->start_time_ps);
        break;
    default: compared = (hlo_duration(x) > hlo_duration(y)) - (hlo_duration(x) < hlo_duration(y));
    }
    return sorting->descending ? compared > 0 : compared < 0;
}

/* The modules shown, in order; the selection stays on its module when it
 * is still shown. None are shown when memory runs out. */
static void hlo_order(struct hlo_pane *hlo, const struct viewer *viewer)
{
    const struct profile *profile = viewer->profile;
    if (hlo->ordered == profile)
        return;
    size_t selected = hlo->ordered == profile && hlo->cursor.selected < hlo->shown
                          ? hlo->order[hlo->cursor.selected]
                          : SIZE_MAX;
    free(hlo->order);
    free(hlo->scratch);
    hlo->order = hlo->scratch = NULL;
    hlo->shown = 0;
    hlo->ordered = profile;
    size_t total = hlo_module_total(viewer);
    if (total == 0)
        return;
    hlo->order = malloc(total * sizeof *hlo->order);
    hlo->scratch = malloc(total * sizeof *hlo->scratch);
    if (!hlo->order || !hlo->scratch) {
        free(hlo->order);
        free(hlo->scratch);
        hlo->order = hlo->scratch = NULL;
        return;
    }
    for (size_t i = 0; i < total; i++)
        if (hlo->device == STRING_ID_NONE || profile->hlo_modules[i].plane_name == hlo->device)
            hlo->order[hlo->shown++] = i;
    if (hlo->sort != HLO_FILE_ORDER) {
        struct hlo_sort_context sorting = {profile->hlo_modules, hlo->sort, hlo->descending};
        index_sort_stable(hlo->order, hlo->scratch, hlo->shown, hlo_before, &sorting);
    }
    for (size_t i = 0; i < hlo->shown; i++)
        if (hlo->order[i] == selected)
            hlo->cursor.selected = i;
}

/* Rows shown (after the device filter). */
static size_t hlo_count(struct hlo_pane *hlo, const struct viewer *viewer)
{
    hlo_order(hlo, viewer);
    return hlo->shown;
}

static const struct hlo_module *hlo_shown(const struct hlo_pane *hlo, const struct viewer *viewer,
                                          size_t row)
{
    return &viewer->profile->hlo_modules[hlo->order[row]];
}

static struct text hlo_cell(const struct viewer *viewer, const struct hlo_module *module,
                            enum hlo_column column, char *buffer, size_t size)
{
    switch (column) {
    case HLO_ID: snprintf(buffer, size, "%lld", (long long)module->id); return text_of(buffer);
    case HLO_START:
        return text_of(format_milliseconds_value(module->start_time_ps, 3, buffer, size));
    case HLO_END: return text_of(format_milliseconds_value(module->end_time_ps, 3, buffer, size));
    case HLO_DURATION: {
        uint64_t span = chart_range_diff(module->start_time_ps, module->end_time_ps);
        return text_of(format_milliseconds_value(span > INT64_MAX ? INT64_MAX : (int64_t)span, 3,
                                                 buffer, size));
    }
    case HLO_DEVICE: return profile_string(viewer->profile, module->plane_name);
    default: return profile_string(viewer->profile, module->name);
    }
}

/* Whether the module's span holds any snapshot of the memory timeline:
 * XProf's HLO times and memory times may come from different clocks. */
static bool hlo_on_timeline(const struct viewer *viewer, const struct hlo_module *module)
{
    if (!viewer->allocator)
        return false;
    size_t first, end;
    int64_t from = module->start_time_ps, to = module->end_time_ps;
    timeline_range(&viewer->allocator->timeline, from < to ? from : to, from < to ? to : from,
                   &first, &end);
    return first < end;
}

static struct text hlo_measured_cell(const void *context, size_t row, size_t column,
                                     char *buffer, size_t size)
{
    const struct viewer *viewer = context;
    return hlo_cell(viewer, &viewer->profile->hlo_modules[row], (enum hlo_column)column, buffer,
                    size);
}

/* The columns for the pane's width, from the widest text of each over
 * every module (measured once per profile). */
static void hlo_layout_compute(struct hlo_pane *hlo, const struct viewer *viewer, int width,
                               struct column_fit *layout)
{
    if (hlo->measured != viewer->profile) {
        column_fit_measure(HLO_COUNT, hlo_module_total(viewer), hlo_measured_cell, viewer,
                           &viewer->style, hlo->natural);
        hlo->measured = viewer->profile;
    }
    column_fit_compute(hlo_columns, HLO_COUNT, hlo->natural, 0, -1, width, layout);
}

/* "HLO modules (10)", "HLO modules (4 of 10 on GPU:0)", then how many
 * lie off the memory timeline. */
static struct text hlo_title(struct hlo_pane *hlo, const struct viewer *viewer, int width,
                             char *buffer, size_t size)
{
    size_t count = hlo_count(hlo, viewer), outside = 0;
    for (size_t i = 0; i < count; i++)
        outside += !hlo_on_timeline(viewer, hlo_shown(hlo, viewer, i));
    const char *separator = viewer->style.utf8 ? " \xc2\xb7 " : " - ";
    /* Raw: the device's name is escaped once, where the title is drawn. */
    struct message_text title;
    message_text_start(&title, buffer, size);
    if (hlo->device != STRING_ID_NONE) {
        message_text_append_format(&title, "HLO modules (%zu of %zu on ", count,
                                   hlo_module_total(viewer));
        message_text_append_cut(&title, profile_string(viewer->profile, hlo->device), 48);
        message_text_append_text(&title, ")");
    } else {
        message_text_append_format(&title, "HLO modules (%zu)", count);
    }
    if (outside == count && count > 0)
        message_text_append_format(&title, "%s%s", separator,
                                   width >= 70 ? "none overlap the memory timeline"
                                               : "off the timeline");
    else if (outside > 0)
        message_text_append_format(&title, "%s%zu off the memory timeline", separator,
                                   outside);
    return message_text_get(&title);
}

static void hlo_draw_row(struct viewer *viewer, WINDOW *window, int y, int x, int width,
                         const struct column_fit *layout, const struct hlo_module *module,
                         attr_t attr)
{
    const struct ui_style *style = &viewer->style;
    wattrset(window, attr);
    draw_blank(window, y, x, width);
    for (int c = 0; c < HLO_COUNT; c++) {
        if (!layout->shown[c])
            continue;
        char buffer[48];
        struct text text = hlo_cell(viewer, module, (enum hlo_column)c, buffer, sizeof buffer);
        column_fit_draw_cell(window, y, x, hlo_columns, layout, (size_t)c, text, style);
    }
    wattrset(window, style->normal);
}

static void hlo_draw(struct pane *pane, struct viewer *viewer, const struct pane_area *area)
{
    struct hlo_pane *hlo = hlo_of(pane);
    WINDOW *window = area->window;
    int y = area->rect.y, x = area->rect.x, height = area->rect.height, width = area->rect.width;
    bool focused = area->focused;
    const struct ui_style *style = &viewer->style;
    if (height <= 0 || width <= 0)
        return;
    char buffer[200];
    struct text title = hlo_title(hlo, viewer, width, buffer, sizeof buffer);
    draw_pane_title_bytes(window, y, x, width, title, focused, style);
    pane_draw_tab_hint(area, title, style);
    size_t count = hlo_count(hlo, viewer);
    if (height < 2 || count == 0)
        return;
    struct column_fit layout;
    hlo_layout_compute(hlo, viewer, width, &layout);
    column_fit_draw_headings(window, y + 1, x, hlo_columns, HLO_COUNT, &layout,
                             hlo->sort == HLO_FILE_ORDER ? -1 : hlo->sort, hlo->descending,
                             style);
    int page_rows = height - 2;
    list_cursor_fit(&hlo->cursor, count, page_rows);
    for (int r = 0; r < page_rows; r++) {
        size_t index = hlo->cursor.top + (size_t)r;
        if (index >= count)
            break;
        const struct hlo_module *module = hlo_shown(hlo, viewer, index);
        attr_t attr = hlo_on_timeline(viewer, module) ? style->normal : style->dim;
        if (index == hlo->cursor.selected)
            attr = focused ? style->selected : style->selected_unfocused;
        hlo_draw_row(viewer, window, y + 2 + r, x, width, &layout, module, attr);
    }
    wattrset(window, style->normal);
}

/* Enter: the chart zoomed to the module's span, when the span is on the
 * memory timeline; on the module it zoomed to, back to the window the
 * chart had before. */
static struct pane_reply hlo_zoom_chart(struct hlo_pane *hlo, struct viewer *viewer)
{
    size_t selected = hlo->cursor.selected;
    if (selected >= hlo_count(hlo, viewer))
        return pane_reply_handled();
    size_t index = hlo->order[selected];
    const struct hlo_module *module = &viewer->profile->hlo_modules[index];
    if (index == hlo->zoomed) {
        hlo->zoomed = SIZE_MAX;
        viewer_status(viewer, false, "chart zoomed back out from module %lld",
                      (long long)module->id);
        return pane_reply_follow(follow_up_zoom_to(hlo->before_from, hlo->before_to));
    }
    if (!hlo_on_timeline(viewer, module)) {
        viewer_status(viewer, false,
                      "module %lld is outside the memory timeline (different clock?)",
                      (long long)module->id);
        return pane_reply_handled();
    }
    hlo->zoomed = index;
    hlo->before_from = viewer->time.from_ps;
    hlo->before_to = viewer->time.to_ps;
    /* Said now; a zoom that fails says why instead. */
    char buffer[sizeof viewer->status];
    struct message_text line;
    message_text_start(&line, buffer, sizeof buffer);
    message_text_append_format(&line, "chart zoomed to module %lld ", (long long)module->id);
    message_text_append_bytes(&line, profile_string(viewer->profile, module->name));
    message_text_append_text(&line, " (Enter again: back out)");
    viewer_status_bytes(viewer, false, message_text_get(&line));
    return pane_reply_follow(follow_up_zoom_to(module->start_time_ps, module->end_time_ps));
}

static void hlo_sort_status(const struct hlo_pane *hlo, struct viewer *viewer)
{
    static const char *const orders[][2] = {
        [HLO_ID] = {"by id, lowest first", "by id, highest first"},
        [HLO_START] = {"by start, earliest first", "by start, latest first"},
        [HLO_DURATION] = {"by duration, shortest first", "by duration, longest first"},
    };
    if (hlo->sort == HLO_FILE_ORDER)
        viewer_status(viewer, false, "HLO modules in the file's order (s sorts them)");
    else
        viewer_status(viewer, false, "HLO modules %s", orders[hlo->sort][hlo->descending]);
}

/* s: file order, then by id, start and duration (longest first); r
 * reverses a sort. */
static void hlo_sort(struct hlo_pane *hlo, struct viewer *viewer, bool reverse)
{
    if (reverse) {
        hlo->descending = !hlo->descending;
    } else {
        hlo->sort = hlo->sort == HLO_FILE_ORDER ? HLO_ID
                    : hlo->sort == HLO_ID       ? HLO_START
                    : hlo->sort == HLO_START    ? HLO_DURATION
                                                : HLO_FILE_ORDER;
        hlo->descending = hlo->sort == HLO_DURATION;
    }
    hlo->ordered = NULL;
    hlo_sort_status(hlo, viewer);
}

/* d: only the next device's modules, then every device's again. */
static void hlo_device_next(struct hlo_pane *hlo, struct viewer *viewer)
{
    const struct profile *profile = viewer->profile;
    size_t total = hlo_module_total(viewer), at = 0;
    /* The devices in the order their first module comes. */
    bool past = hlo->device == STRING_ID_NONE;
    uint32_t next = STRING_ID_NONE;
    for (at = 0; at < total && next == STRING_ID_NONE; at++) {
        uint32_t device = profile->hlo_modules[at].plane_name;
        bool seen = false;
        for (size_t k = 0; k < at && !seen; k++)
            seen = profile->hlo_modules[k].plane_name == device;
        if (seen)
            continue;
        if (past)
            next = device;
        past = past || device == hlo->device;
    }
    hlo->device = next;
    hlo->ordered = NULL;
    hlo->cursor.selected = 0;
    hlo->cursor.top = 0;
    if (next == STRING_ID_NONE) {
        viewer_status(viewer, false, "HLO modules of every device");
        return;
    }
    /* Raw: the status line escapes it, once. */
    char buffer[sizeof viewer->status];
    struct message_text line;
    message_text_start(&line, buffer, sizeof buffer);
    message_text_append_text(&line, "HLO modules on ");
    message_text_append_cut(&line, profile_string(profile, next), 48);
    message_text_append_text(&line, " only (d: the next device)");
    viewer_status_bytes(viewer, false, message_text_get(&line));
}

/* Rows start under the title and the column headings: a click selects a
 * module, a click on the selected one zooms to it as Enter does. */
static struct pane_reply hlo_click(struct pane *pane, struct viewer *viewer, int row, int column,
                                   bool again)
{
    (void)column;
    struct hlo_pane *hlo = hlo_of(pane);
    size_t index;
    if (!list_cursor_item_at(&hlo->cursor, hlo_count(hlo, viewer), row - 2, &index))
        return pane_reply_handled();
    if (again && index == hlo->cursor.selected)
        return hlo_zoom_chart(hlo, viewer);
    hlo->cursor.selected = index;
    return pane_reply_handled();
}

static const char *hlo_text(const struct viewer *viewer, struct pane *pane, size_t index,
                            char *buffer, size_t size)
{
    struct text name = profile_string(viewer->profile, hlo_shown(hlo_of(pane), viewer, index)->name);
    size_t length = name.length < size - 1 ? name.length : size - 1;
    memcpy(buffer, name.bytes, length);
    buffer[length] = '\0';
    return buffer;
}

static struct pane_reply hlo_handle(struct pane *pane, struct viewer *viewer,
                                    enum request request)
{
    struct hlo_pane *hlo = hlo_of(pane);
    struct list_search_list searched = {&hlo->cursor, pane, PANE_HLO, hlo_count(hlo, viewer),
                                        hlo_text, FOLLOW_UP_NONE};
    if (list_search_handle(viewer, &searched, request))
        return pane_reply_handled();
    switch (request) {
    case REQUEST_ENTER: return hlo_zoom_chart(hlo, viewer);
    case REQUEST_SORT_NEXT:
    case REQUEST_SORT_REVERSE:
        hlo_sort(hlo, viewer, request == REQUEST_SORT_REVERSE);
        return pane_reply_handled();
    case REQUEST_DEVICE_NEXT: hlo_device_next(hlo, viewer); return pane_reply_handled();
    default:
        return list_cursor_move(&hlo->cursor, hlo_count(hlo, viewer), request)
                   ? pane_reply_handled()
                   : pane_reply_ignored();
    }
}

static const char *const hlo_sort_names[] = {
    [HLO_ID] = "id", [HLO_START] = "start", [HLO_DURATION] = "duration",
    [HLO_FILE_ORDER] = "file",
};

/* The sort outlives the session (the device filter is the profile's). */
static void hlo_recall(struct pane *pane, struct viewer *viewer, const struct settings *settings)
{
    (void)viewer;
    struct hlo_pane *hlo = hlo_of(pane);
    const char *name = settings_get(settings, "hlo.sort");
    for (int sort = 0; name && sort <= HLO_FILE_ORDER; sort++) {
        if (hlo_sort_names[sort] && strcmp(hlo_sort_names[sort], name) == 0) {
            hlo->sort = sort;
            hlo->descending = settings_get_bool(settings, "hlo.descending", false);
            hlo->ordered = NULL;
        }
    }
}

static void hlo_remember(struct pane *pane, const struct viewer *viewer,
                         struct settings *settings)
{
    (void)viewer;
    const struct hlo_pane *hlo = hlo_of(pane);
    settings_set(settings, "hlo.sort", hlo_sort_names[hlo->sort]);
    settings_set_bool(settings, "hlo.descending", hlo->descending);
}

static void hlo_free(struct pane *pane)
{
    struct hlo_pane *hlo = hlo_of(pane);
    free(hlo->order);
    free(hlo->scratch);
    pane_free_plain(pane);
}

static bool hlo_export(struct pane *pane, const struct viewer *viewer,
                       struct export_request *request)
{
    (void)pane;
    export_request_init(request, EXPORT_VIEW_HLO, viewer->profile, viewer->allocator);
    return true;
}

static const struct pane_ops hlo_ops = {
    .draw = hlo_draw,
    .handle = hlo_handle,
    .click = hlo_click,
    .reset = hlo_reset,
    .free = hlo_free,
    .recall = hlo_recall,
    .remember = hlo_remember,
    .export = hlo_export,
    .scope = KEY_SCOPE_HLO,
    .moves_through_items = true,
};

struct pane *hlo_pane_create(struct viewer *viewer)
{
    (void)viewer;
    struct pane *pane = pane_create(&hlo_ops, sizeof(struct hlo_pane));
    if (pane) {
        struct hlo_pane *hlo = hlo_of(pane);
        hlo->sort = HLO_FILE_ORDER;
        hlo->device = STRING_ID_NONE;
        hlo->zoomed = SIZE_MAX;
    }
    return pane;
}

bool hlo_pane_available(const struct viewer *viewer)
{
    return viewer->allocator != NULL && viewer->profile->hlo_module_count > 0;
}
