#include "config.h"

#include "ui/panes/hosts_pane.h"

#include <stdio.h>
#include <string.h>

#include "model/format.h"
#include "ui/list_cursor.h"
#include "ui/viewer.h"

struct hosts_pane {
    struct pane pane;
    struct list_cursor cursor;
};

static struct hosts_pane *hosts_of(struct pane *pane)
{
    return (struct hosts_pane *)pane;
}

static bool host_failed(const struct host *host)
{
    return host_state(host) == HOST_LOADED && !host->profile;
}

/* What the right end of a host's row says: its peak and capacity share
 * once loaded (the short form when room is short), the progress while
 * it loads, nothing before. */
static void host_state_text(const struct viewer *viewer, const struct host *host, bool short_form,
                            char *text, size_t size)
{
    text[0] = '\0';
    switch (host_state(host)) {
    case HOST_LOADING:
        snprintf(text, size, short_form ? "%d%%" : "loading %d%%", host_load_percent(host));
        return;
    case HOST_LOADED: break;
    default: return;
    }
    const struct profile *profile = host->profile;
    if (!profile || profile->allocator_count == 0)
        return;
    const struct allocator_summary *summary =
        &profile->allocators[viewer_allocator_for(viewer, profile)].summary;
    char peak[FORMAT_BYTES_SIZE], share[16];
    format_bytes(summary->peak_bytes, peak, sizeof peak);
    format_capacity_share(summary->peak_bytes, summary->capacity_bytes, share, sizeof share);
    if (short_form)
        snprintf(text, size, "%s", share[0] ? share : peak);
    else
        snprintf(text, size, "%s%s%4s", peak, share[0] ? " " : "", share);
}

/* The left edge of an item: a marker (or a blank) and a space. */
#define MARKER_WIDTH 2

static void draw_host(struct viewer *viewer, WINDOW *window, int y, int x, int width,
                      size_t index, size_t selected, bool focused)
{
    const struct ui_style *style = &viewer->style;
    const struct host *host = &viewer->hosts->hosts[index];
    bool open = index == viewer->host_index;
    bool highlighted = focused ? index == selected : open;
    attr_t attr = highlighted ? (focused ? style->selected : style->selected_unfocused)
                              : style->normal;
    bool failed = host_failed(host);
    wattrset(window, attr);
    draw_blank(window, y, x, width);
    if (failed && !highlighted)
        wattrset(window, style->error);
    const char *glyph = failed ? (style->utf8 ? "\xe2\x9c\x97" : "!")
                               : (style->utf8 ? "\xe2\x97\x8f" : "*");
    mvwaddstr(window, y, x, open || failed ? glyph : " ");
    int used = MARKER_WIDTH;
    /* The whole name first: the peak goes (the share stays) before the
     * name is cut. */
    char state[64];
    host_state_text(viewer, host, false, state, sizeof state);
    int state_width = draw_text_width(state, style);
    int name_width = draw_text_width(host->name, style);
    if (state_width && used + name_width + 1 + state_width > width) {
        host_state_text(viewer, host, true, state, sizeof state);
        state_width = draw_text_width(state, style);
    }
    int name_room = width - used - (state_width ? state_width + 1 : 0);
    used += draw_text(window, y, x + used, name_room, host->name, style);
    if (failed && used + 2 < width) {
        mvwaddstr(window, y, x + used, ": ");
        used += 2;
        draw_bytes(window, y, x + used, width - used, load_error_message(&host->error), style);
    } else if (state_width && used + state_width + 1 <= width) {
        wattrset(window, highlighted ? attr : style->dim);
        draw_text_right(window, y, x + width - state_width, state_width, state, style);
    }
    wattrset(window, style->normal);
}

static void hosts_draw(struct pane *pane, struct viewer *viewer, const struct pane_area *area)
{
    WINDOW *window = area->window;
    int y = area->rect.y, x = area->rect.x, height = area->rect.height, width = area->rect.width;
    bool focused = area->focused;
    size_t count = viewer->hosts->count, loaded = 0;
    for (size_t i = 0; i < count; i++)
        loaded += host_state(&viewer->hosts->hosts[i]) == HOST_LOADED;
    char title[64];
    if (loaded < count)
        snprintf(title, sizeof title, "Hosts (%zu, %zu loaded)", count, loaded);
    else
        snprintf(title, sizeof title, "Hosts (%zu)", count);
    draw_pane_title(window, y, x, width, title, focused, &viewer->style);
    struct list_cursor *position = &hosts_of(pane)->cursor;
    list_cursor_fit(position, count, height - 1);
    for (int row = 0; row + 1 < height; row++) {
        size_t index = position->top + (size_t)row;
        if (index >= count)
            break;
        draw_host(viewer, window, y + 1 + row, x, width, index, position->selected, focused);
    }
}

/* Says what Enter would do on the host under the cursor. */
static void host_cursor_moved(struct viewer *viewer, size_t selected)
{
    const struct host *host = &viewer->hosts->hosts[selected];
    if (selected == viewer->host_index)
        return;
    if (host_failed(host))
        viewer_status_host_error(viewer, host, "Enter opens ", ", which did not load: ");
    else
        viewer_status(viewer, false, "Enter opens %s", host->name);
}

static struct pane_reply hosts_handle(struct pane *pane, struct viewer *viewer,
                                      enum request request)
{
    struct list_cursor *cursor = &hosts_of(pane)->cursor;
    bool moved;
    struct pane_reply reply = pane_reply_list_request(cursor, viewer->hosts->count, request,
                                                      FOLLOW_UP_SELECT_HOST, &moved);
    if (moved)
        host_cursor_moved(viewer, cursor->selected);
    return reply;
}

static struct pane_reply hosts_click(struct pane *pane, struct viewer *viewer, int row,
                                     int column, bool again)
{
    (void)column, (void)again;
    return pane_reply_list_click(&hosts_of(pane)->cursor, viewer->hosts->count, row,
                                 FOLLOW_UP_SELECT_HOST);
}

/* A host opened: the cursor goes to it. */
static void hosts_reset(struct pane *pane, struct viewer *viewer, bool new_host)
{
    if (new_host)
        hosts_of(pane)->cursor.selected = viewer->host_index;
}

static const struct pane_ops hosts_ops = {
    .draw = hosts_draw,
    .handle = hosts_handle,
    .click = hosts_click,
    .reset = hosts_reset,
    .free = pane_free_plain,
    .scope = KEY_SCOPE_HOSTS,
    .moves_through_items = true,
};

struct pane *hosts_pane_create(struct viewer *viewer)
{
    (void)viewer;
    return pane_create(&hosts_ops, sizeof(struct hosts_pane));
}
