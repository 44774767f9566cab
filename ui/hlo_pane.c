#include "config.h"

#include "ui/hlo_pane.h"

#include <stdio.h>
#include <string.h>

#include "model/timeline.h"
#include "model/format.h"
#include "model/message_text.h"
#include "ui/chart_columns.h"
#include "ui/column_fit.h"
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

struct hlo_pane {
    struct pane pane;
    struct list_cursor cursor;      /* the selected module */
    const struct profile *measured; /* whose modules natural[] measured */
    int natural[HLO_COUNT];
};

static struct hlo_pane *hlo_of(struct pane *pane)
{
    return (struct hlo_pane *)pane;
}

/* A host opened: its modules from the first (another allocator keeps
 * the selection: the modules are the profile's). */
static void hlo_reset(struct pane *pane, struct viewer *viewer, bool new_host)
{
    (void)viewer;
    struct hlo_pane *hlo = hlo_of(pane);
    if (!new_host)
        return;
    memset(&hlo->cursor, 0, sizeof hlo->cursor);
    hlo->measured = NULL;
}

static size_t hlo_count(const struct viewer *viewer)
{
    return viewer->profile ? viewer->profile->hlo_module_count : 0;
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
        column_fit_measure(HLO_COUNT, hlo_count(viewer), hlo_measured_cell, viewer,
                           &viewer->style, hlo->natural);
        hlo->measured = viewer->profile;
    }
    column_fit_compute(hlo_columns, HLO_COUNT, hlo->natural, 0, -1, width, layout);
}

static void hlo_title(const struct viewer *viewer, int width, char *title, size_t size)
{
    size_t count = hlo_count(viewer), outside = 0;
    for (size_t i = 0; i < count; i++)
        outside += !hlo_on_timeline(viewer, &viewer->profile->hlo_modules[i]);
    int used = snprintf(title, size, "HLO modules (%zu)", count);
    const char *separator = viewer->style.utf8 ? " \xc2\xb7 " : " - ";
    if (outside == count && count > 0)
        snprintf(title + used, size - (size_t)used, "%s%s", separator,
                 width >= 70 ? "none overlap the memory timeline" : "off the timeline");
    else if (outside > 0)
        snprintf(title + used, size - (size_t)used, "%s%zu off the memory timeline", separator,
                 outside);
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
    char title[160];
    hlo_title(viewer, width, title, sizeof title);
    draw_pane_title(window, y, x, width, title, focused, style);
    pane_draw_tab_hint(area, title, style);
    size_t count = hlo_count(viewer);
    if (height < 2 || count == 0)
        return;
    struct column_fit layout;
    hlo_layout_compute(hlo, viewer, width, &layout);
    column_fit_draw_headings(window, y + 1, x, hlo_columns, HLO_COUNT, &layout, -1, false, style);
    int page_rows = height - 2;
    list_cursor_fit(&hlo->cursor, count, page_rows);
    for (int r = 0; r < page_rows; r++) {
        size_t index = hlo->cursor.top + (size_t)r;
        if (index >= count)
            break;
        const struct hlo_module *module = &viewer->profile->hlo_modules[index];
        attr_t attr = hlo_on_timeline(viewer, module) ? style->normal : style->dim;
        if (index == hlo->cursor.selected)
            attr = focused ? style->selected : style->selected_unfocused;
        hlo_draw_row(viewer, window, y + 2 + r, x, width, &layout, module, attr);
    }
    wattrset(window, style->normal);
}

/* Enter: the chart zoomed to the module's span, when the span is on the
 * memory timeline. */
static struct pane_reply hlo_zoom_chart(const struct hlo_pane *hlo, struct viewer *viewer)
{
    size_t selected = hlo->cursor.selected;
    if (selected >= hlo_count(viewer))
        return pane_reply_handled();
    const struct hlo_module *module = &viewer->profile->hlo_modules[selected];
    if (!hlo_on_timeline(viewer, module)) {
        viewer_status(viewer, false,
                      "module %lld is outside the memory timeline (different clock?)",
                      (long long)module->id);
        return pane_reply_handled();
    }
    /* Said now; a zoom that fails says why instead. */
    char buffer[sizeof viewer->status];
    struct message_text line;
    message_text_start(&line, buffer, sizeof buffer);
    message_text_append_format(&line, "chart zoomed to module %lld ", (long long)module->id);
    message_text_append_bytes(&line, profile_string(viewer->profile, module->name));
    viewer_status_bytes(viewer, false, message_text_get(&line));
    return pane_reply_follow(follow_up_zoom_to(module->start_time_ps, module->end_time_ps));
}

/* Rows start under the title and the column headings: a click selects a
 * module, a click on the selected one zooms to it as Enter does. */
static struct pane_reply hlo_click(struct pane *pane, struct viewer *viewer, int row, int column,
                                   bool again)
{
    (void)column;
    struct hlo_pane *hlo = hlo_of(pane);
    size_t index;
    if (!list_cursor_item_at(&hlo->cursor, hlo_count(viewer), row - 2, &index))
        return pane_reply_handled();
    if (again && index == hlo->cursor.selected)
        return hlo_zoom_chart(hlo, viewer);
    hlo->cursor.selected = index;
    return pane_reply_handled();
}

static struct pane_reply hlo_handle(struct pane *pane, struct viewer *viewer,
                                    enum request request)
{
    struct hlo_pane *hlo = hlo_of(pane);
    if (request == REQUEST_ENTER)
        return hlo_zoom_chart(hlo, viewer);
    return list_cursor_move(&hlo->cursor, hlo_count(viewer), request)
               ? pane_reply_handled()
               : pane_reply_ignored();
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
    .free = pane_free_plain,
    .export = hlo_export,
    .scope = KEY_SCOPE_HLO,
    .moves_through_items = true,
};

struct pane *hlo_pane_create(struct viewer *viewer)
{
    (void)viewer;
    return pane_create(&hlo_ops, sizeof(struct hlo_pane));
}

bool hlo_pane_available(const struct viewer *viewer)
{
    return viewer->allocator != NULL && viewer->profile->hlo_module_count > 0;
}
