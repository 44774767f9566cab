#include "config.h"

#include "ui/viewer.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <curses.h>

#include "model/format.h"
#include "ui/filter_prompt.h"
#include "ui/help_overlay.h"
#include "ui/list_pane.h"
#include "ui/status_line.h"

/* The order Tab walks; panes not on screen are skipped. */
static const enum pane_kind focus_order[] = {PANE_HOSTS, PANE_ALLOCATORS, PANE_CHART, PANE_TABLE,
                                             PANE_HLO};
#define FOCUS_ORDER_COUNT (sizeof focus_order / sizeof *focus_order)

/* Rows a mouse wheel notch scrolls. */
#define WHEEL_STEP 3

void viewer_status(struct viewer *viewer, bool error, const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(viewer->status, sizeof viewer->status, format, arguments);
    va_end(arguments);
    viewer->status_is_error = error;
}

void viewer_prompt_begin(struct viewer *viewer, const char *label, const char *initial,
                         prompt_callback on_change, prompt_callback on_accept,
                         prompt_callback on_cancel)
{
    struct prompt *prompt = &viewer->prompt;
    memset(prompt, 0, sizeof *prompt);
    prompt->active = true;
    snprintf(prompt->label, sizeof prompt->label, "%s", label ? label : "");
    snprintf(prompt->text, sizeof prompt->text, "%s", initial ? initial : "");
    prompt->length = strlen(prompt->text);
    prompt->on_change = on_change;
    prompt->on_accept = on_accept;
    prompt->on_cancel = on_cancel;
}

bool viewer_pane_available(const struct viewer *viewer, enum pane_kind pane)
{
    switch (pane) {
    case PANE_HOSTS: return viewer->hosts->count > 1;
    case PANE_ALLOCATORS: return true;
    case PANE_CHART:
    case PANE_TABLE: return viewer->allocator != NULL;
    case PANE_HLO:
        return viewer->allocator != NULL && viewer->profile->hlo_module_count > 0;
    default: return false;
    }
}

void viewer_focus(struct viewer *viewer, enum pane_kind pane)
{
    if (!viewer_pane_available(viewer, pane))
        return;
    viewer->focus = pane;
    if (pane == PANE_TABLE || pane == PANE_HLO)
        viewer->table_tab = pane;
}

static void viewer_focus_step(struct viewer *viewer, int direction)
{
    const int count = (int)FOCUS_ORDER_COUNT;
    int current = 0;
    for (int i = 0; i < count; i++)
        if (focus_order[i] == viewer->focus)
            current = i;
    for (int step = 1; step <= count; step++) {
        int next = ((current + direction * step) % count + count) % count;
        if (viewer_pane_available(viewer, focus_order[next])) {
            viewer_focus(viewer, focus_order[next]);
            return;
        }
    }
}

/* Every pane that can, keeps the focus it had; a pane that went away
 * (a host that failed to load) hands it to a list. */
static void viewer_fix_focus(struct viewer *viewer)
{
    if (viewer_pane_available(viewer, viewer->focus))
        return;
    viewer->focus = viewer_pane_available(viewer, PANE_HOSTS) ? PANE_HOSTS : PANE_ALLOCATORS;
}

void viewer_select_allocator(struct viewer *viewer, size_t index)
{
    const struct profile *profile = viewer->profile;
    if (!profile || index >= profile->allocator_count)
        return;
    viewer->allocator_index = index;
    viewer->allocator = &profile->allocators[index];
    viewer->allocator_list.selected = index;
    time_window_reset(&viewer->time, viewer->allocator);
    if (!query_reset(&viewer->query, profile, viewer->allocator))
        viewer_status(viewer, true, "out of memory: the allocations table is empty");
    table_pane_reset(viewer);
}

static const struct snapshot_columns *viewer_timeline(const struct viewer *viewer)
{
    if (!viewer->allocator || viewer->allocator->timeline.count == 0)
        return NULL;
    return &viewer->allocator->timeline;
}

void viewer_jump_to_time(struct viewer *viewer, int64_t time_ps)
{
    const struct snapshot_columns *timeline = viewer_timeline(viewer);
    if (timeline)
        time_window_jump_to(&viewer->time, timeline, time_ps);
}

bool viewer_zoom_to(struct viewer *viewer, int64_t from_ps, int64_t to_ps)
{
    const struct snapshot_columns *timeline = viewer_timeline(viewer);
    if (!timeline) {
        viewer_status(viewer, false, "no memory timeline to zoom");
        return false;
    }
    if (time_window_zoom_to(&viewer->time, timeline, from_ps, to_ps))
        return true;
    char from[48], to[48];
    format_milliseconds_value(from_ps < to_ps ? from_ps : to_ps, 3, from, sizeof from);
    format_milliseconds_value(from_ps < to_ps ? to_ps : from_ps, 3, to, sizeof to);
    viewer_status(viewer, false, "no snapshot between %s and %s ms", from, to);
    return false;
}

struct load_progress {
    struct viewer *viewer;
    const char *name;
    int last_percent;
};

static void show_load_progress(void *context, uint64_t done, uint64_t total)
{
    struct load_progress *progress = context;
    int percent = total ? (int)(done * 100 / total) : 0;
    if (percent == progress->last_percent || !progress->viewer->terminal_ready)
        return;
    progress->last_percent = percent;
    char text[300];
    snprintf(text, sizeof text, "loading %s: %d%%", progress->name, percent);
    status_line_show_now(progress->viewer, text);
}

void viewer_select_host(struct viewer *viewer, size_t index)
{
    struct host_list *hosts = viewer->hosts;
    if (index >= hosts->count)
        return;
    struct host *host = &hosts->hosts[index];
    struct load_progress progress = {viewer, host->name, -1};
    struct load_options options = {.progress = show_load_progress, .progress_context = &progress};
    if (!host->attempted && viewer->terminal_ready)
        show_load_progress(&progress, 0, 1);
    const struct profile *profile = host_list_load(hosts, index, &options);

    /* The table's rows and the sums of them point into the old profile:
     * let go of them first. */
    query_free(&viewer->query);
    breakdown_pane_free(viewer);
    viewer->host_index = index;
    viewer->host_list.selected = index;
    viewer->profile = profile;
    viewer->allocator = NULL;
    viewer->allocator_index = 0;
    memset(&viewer->allocator_list, 0, sizeof viewer->allocator_list);
    if (!profile) {
        viewer_status(viewer, true, "%s: %s", host->name, host->error.message);
    } else if (profile->allocator_count == 0) {
        viewer_status(viewer, true, "%s: the profile has no allocators", host->name);
    } else {
        viewer_select_allocator(viewer, 0);
        hlo_pane_reset(viewer);
    }
    viewer_fix_focus(viewer);
    if (viewer->table_tab == PANE_HLO && !viewer_pane_available(viewer, PANE_HLO))
        viewer->table_tab = PANE_TABLE;
}

void viewer_init(struct viewer *viewer, struct host_list *hosts, const struct ui_options *options,
                 const struct ui_style *style)
{
    memset(viewer, 0, sizeof *viewer);
    viewer->hosts = hosts;
    viewer->options = *options;
    viewer->style = *style;
    viewer->focus = PANE_TABLE;
    viewer->table_tab = PANE_TABLE;
}

void viewer_free(struct viewer *viewer)
{
    query_free(&viewer->query);
    breakdown_pane_free(viewer);
}

static bool pane_handle(struct viewer *viewer, enum pane_kind pane, enum request request);

/* ---- the prompt: keys edit its text while it is active ---- */

static void prompt_changed(struct viewer *viewer)
{
    if (viewer->prompt.on_change)
        viewer->prompt.on_change(viewer, viewer->prompt.text);
}

/* Ends the prompt before the callback runs, so the callback may start
 * another one. */
static void prompt_finish(struct viewer *viewer, bool accept)
{
    struct prompt prompt = viewer->prompt;
    viewer->prompt.active = false;
    prompt_callback callback = accept ? prompt.on_accept : prompt.on_cancel;
    if (callback)
        callback(viewer, prompt.text);
}

static void prompt_delete_character(struct prompt *prompt)
{
    /* Back over UTF-8 continuation bytes to the start of the character. */
    while (prompt->length > 0) {
        unsigned char byte = (unsigned char)prompt->text[--prompt->length];
        if ((byte & 0xc0) != 0x80)
            break;
    }
    prompt->text[prompt->length] = '\0';
}

/* Bytes of a UTF-8 character arrive one key at a time: the filter waits
 * for the whole character, and a byte that cannot be UTF-8 is dropped. */
static bool prompt_last_character_complete(struct prompt *prompt)
{
    size_t start = prompt->length - 1;
    while (start > 0 && prompt->length - start < 4 &&
           ((unsigned char)prompt->text[start] & 0xc0) == 0x80)
        start--;
    unsigned char lead = (unsigned char)prompt->text[start];
    size_t expected = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    size_t have = prompt->length - start;
    if (lead >= 0xc0 && lead < 0xf8 && have < expected)
        return false; /* more to come */
    uint32_t code_point;
    if (have == expected && format_utf8_decode(prompt->text + start, &code_point) == have)
        return true;
    prompt->length = start; /* not UTF-8: drop it */
    prompt->text[start] = '\0';
    return false;
}

static void prompt_handle_key(struct viewer *viewer, int key)
{
    struct prompt *prompt = &viewer->prompt;
    switch (key) {
    case KEY_CODE_ESCAPE: prompt_finish(viewer, false); return;
    case '\n':
    case '\r':
    case KEY_ENTER: prompt_finish(viewer, true); return;
    case KEY_BACKSPACE:
    case 127:
    case KEY_CODE_CONTROL('h'):
        if (prompt->length == 0)
            return;
        prompt_delete_character(prompt);
        prompt_changed(viewer);
        return;
    case KEY_CODE_CONTROL('u'):
        prompt->length = 0;
        prompt->text[0] = '\0';
        prompt_changed(viewer);
        return;
    case KEY_CODE_CONTROL('l'): viewer->redraw_all = true; return;
    case KEY_UP:
    case KEY_DOWN:
    case KEY_PPAGE:
    case KEY_NPAGE:
        /* Moving through the rows a filter leaves, while typing it. */
        pane_handle(viewer, viewer->focus, keys_request_for(key));
        return;
    default: break;
    }
    /* Bytes of UTF-8 characters arrive one by one and are kept as bytes;
     * other curses keys (arrows, F-keys) are not text. */
    if (key < 0x20 || key > 0xff || key == 0x7f)
        return;
    if (prompt->length + 1 >= sizeof prompt->text)
        return;
    prompt->text[prompt->length++] = (char)key;
    prompt->text[prompt->length] = '\0';
    if (key >= 0x80 && !prompt_last_character_complete(prompt))
        return;
    prompt_changed(viewer);
}

/* ---- dispatch ---- */

static bool pane_handle(struct viewer *viewer, enum pane_kind pane, enum request request)
{
    if (!viewer_pane_available(viewer, pane))
        return false;
    switch (pane) {
    case PANE_HOSTS:
    case PANE_ALLOCATORS: return list_pane_handle(viewer, pane, request);
    case PANE_CHART: return chart_pane_handle(viewer, request);
    case PANE_TABLE: return table_pane_handle(viewer, request);
    case PANE_HLO: return hlo_pane_handle(viewer, request);
    default: return false;
    }
}

static void viewer_step_allocator(struct viewer *viewer, int direction)
{
    if (!viewer->profile || viewer->profile->allocator_count < 2) {
        viewer_status(viewer, false, "this profile has one allocator");
        return;
    }
    size_t count = viewer->profile->allocator_count;
    size_t current = viewer->allocator_index;
    viewer_select_allocator(viewer, direction > 0 ? (current + 1) % count
                                                  : (current + count - 1) % count);
}

/* Esc: the innermost thing open closes; outside everything it clears the
 * table's filter. */
static void viewer_cancel(struct viewer *viewer)
{
    if (viewer->overlay != OVERLAY_NONE) {
        viewer->overlay = OVERLAY_NONE;
        return;
    }
    if (pane_handle(viewer, viewer->focus, REQUEST_CANCEL))
        return;
    filter_prompt_clear(viewer);
}

static bool viewer_handle_global(struct viewer *viewer, enum request request)
{
    switch (request) {
    case REQUEST_QUIT: viewer->quit = true; return true;
    case REQUEST_HELP:
        viewer->overlay = OVERLAY_HELP;
        memset(&viewer->help, 0, sizeof viewer->help);
        return true;
    case REQUEST_CANCEL: viewer_cancel(viewer); return true;
    case REQUEST_REDRAW: viewer->redraw_all = true; return true;
    case REQUEST_FOCUS_NEXT: viewer_focus_step(viewer, 1); return true;
    case REQUEST_FOCUS_PREVIOUS: viewer_focus_step(viewer, -1); return true;
    case REQUEST_ALLOCATOR_NEXT: viewer_step_allocator(viewer, 1); return true;
    case REQUEST_ALLOCATOR_PREVIOUS: viewer_step_allocator(viewer, -1); return true;
    case REQUEST_EXPORT: export_prompt_begin(viewer); return true;
    default: return false;
    }
}

/* The row detail belongs to the table: moving flips through rows, the
 * keys that close things close it. */
static void viewer_handle_detail(struct viewer *viewer, enum request request)
{
    switch (request) {
    case REQUEST_CANCEL:
    case REQUEST_ENTER:
    case REQUEST_QUIT: viewer->overlay = OVERLAY_NONE; return;
    case REQUEST_HELP:
    case REQUEST_REDRAW: viewer_handle_global(viewer, request); return;
    default:
        if (viewer->allocator)
            table_pane_handle(viewer, request);
        else
            viewer->overlay = OVERLAY_NONE;
        return;
    }
}

static void viewer_handle_request(struct viewer *viewer, enum request request)
{
    if (request == REQUEST_NONE)
        return;
    if (viewer->overlay == OVERLAY_HELP) {
        help_overlay_handle(viewer, request);
        return;
    }
    if (viewer->overlay == OVERLAY_ROW_DETAIL) {
        viewer_handle_detail(viewer, request);
        return;
    }
    enum key_scope scope = keys_scope_of(request);
    if (scope == KEY_SCOPE_GLOBAL && viewer_handle_global(viewer, request))
        return;
    if (pane_handle(viewer, viewer->focus, request))
        return;
    /* A chart or table key works from anywhere: p finds the peak even
     * while the table has the focus. Filtering moves the focus to the
     * table, whose rows the filter narrows. */
    if (scope == KEY_SCOPE_CHART) {
        pane_handle(viewer, PANE_CHART, request);
    } else if (scope == KEY_SCOPE_TABLE && viewer_pane_available(viewer, PANE_TABLE)) {
        if (request == REQUEST_FILTER)
            viewer_focus(viewer, PANE_TABLE);
        table_pane_handle(viewer, request);
    }
}

/* ---- the mouse (only with --mouse) ---- */

static enum pane_kind viewer_pane_at(const struct viewer *viewer, int y, int x)
{
    const struct layout *layout = &viewer->layout;
    if (rect_contains(&layout->hosts, y, x))
        return PANE_HOSTS;
    if (rect_contains(&layout->allocators, y, x))
        return PANE_ALLOCATORS;
    if (rect_contains(&layout->chart, y, x))
        return PANE_CHART;
    if (layout->hlo_tabbed && rect_contains(&layout->table, y, x))
        return viewer->table_tab;
    if (rect_contains(&layout->table, y, x))
        return PANE_TABLE;
    if (rect_contains(&layout->hlo, y, x))
        return PANE_HLO;
    return PANE_COUNT;
}

static const struct rect *viewer_pane_rect(const struct viewer *viewer, enum pane_kind pane)
{
    if (viewer->layout.hlo_tabbed && (pane == PANE_TABLE || pane == PANE_HLO))
        return &viewer->layout.table; /* the two share it as tabs */
    switch (pane) {
    case PANE_HOSTS: return &viewer->layout.hosts;
    case PANE_ALLOCATORS: return &viewer->layout.allocators;
    case PANE_CHART: return &viewer->layout.chart;
    case PANE_TABLE: return &viewer->layout.table;
    case PANE_HLO: return &viewer->layout.hlo;
    default: return &viewer->layout.summary;
    }
}

static void viewer_handle_mouse(struct viewer *viewer)
{
    MEVENT event;
    if (getmouse(&event) != OK || viewer->overlay != OVERLAY_NONE || viewer->prompt.active)
        return;
    enum pane_kind pane = viewer_pane_at(viewer, event.y, event.x);
    if (pane == PANE_COUNT || !viewer_pane_available(viewer, pane))
        return;
    bool again = viewer->focus == pane;
    viewer_focus(viewer, pane);
    if (event.bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED)) {
        enum request request = event.bstate & BUTTON4_PRESSED ? REQUEST_MOVE_UP : REQUEST_MOVE_DOWN;
        for (int i = 0; i < WHEEL_STEP; i++)
            pane_handle(viewer, pane, request);
        return;
    }
    /* Lists have their rows under the title line, tables under the title
     * and the column headings. */
    const struct rect *area = viewer_pane_rect(viewer, pane);
    if (pane == PANE_HOSTS || pane == PANE_ALLOCATORS)
        list_pane_click(viewer, pane, event.y - area->y - 1);
    else if (pane == PANE_CHART)
        chart_pane_click(viewer, event.x - area->x);
    else if (pane == PANE_TABLE)
        table_pane_click(viewer, event.y - area->y - 2, again);
    else if (pane == PANE_HLO)
        hlo_pane_click(viewer, event.y - area->y - 2, again);
}

void viewer_handle_key(struct viewer *viewer, int key)
{
    if (key == KEY_RESIZE)
        return; /* the next frame lays out the new size */
    if (key == KEY_MOUSE) {
        viewer_handle_mouse(viewer);
        return;
    }
    if (viewer->prompt.active) {
        prompt_handle_key(viewer, key);
        return;
    }
    viewer->status[0] = '\0';
    viewer->status_is_error = false;
    viewer_handle_request(viewer, keys_request_for(key));
}
