#include "config.h"

#include "ui/panes/runs_pane.h"

#include <stdio.h>
#include <string.h>

#include "ui/list_cursor.h"
#include "ui/viewer.h"

struct runs_pane {
    struct pane pane;
    struct list_cursor cursor;
};

static struct runs_pane *runs_of(struct pane *pane)
{
    return (struct runs_pane *)pane;
}

bool runs_pane_available(const struct viewer *viewer)
{
    return viewer->logdir && viewer->logdir->run_count > 1;
}

/* A run's name cut in its middle to `room` cells, keeping its first
 * directory and its end, where the capture's time is:
 * "train/…11_23_06_39_19". Names with other than printable ASCII are
 * left to draw_text, which cuts at the end. */
static const char *run_name_fitted(const char *name, int room, const struct ui_style *style,
                                   char *buffer, size_t size)
{
    size_t length = strlen(name);
    if (room < 8 || (int)length <= room)
        return name;
    for (size_t i = 0; i < length; i++)
        if (name[i] < 0x20 || name[i] > 0x7e)
            return name;
    size_t head = strcspn(name, "/");
    head = name[head] == '/' ? head + 1 : 0;
    if (head > (size_t)room / 3)
        head = (size_t)room / 3;
    size_t tail = (size_t)room - head - 1;
    snprintf(buffer, size, "%.*s%s%s", (int)head, name, style->utf8 ? "\xe2\x80\xa6" : "~",
             name + length - tail);
    return buffer;
}

static void draw_run(struct viewer *viewer, WINDOW *window, int y, int x, int width,
                     size_t index, size_t selected, bool focused)
{
    const struct ui_style *style = &viewer->style;
    const struct logdir_run *run = &viewer->logdir->runs[index];
    bool open = index == viewer->run_index;
    bool highlighted = focused ? index == selected : open;
    attr_t attr = highlighted ? (focused ? style->selected : style->selected_unfocused)
                              : style->normal;
    size_t hosts = logdir_run_memory_hosts(run);
    wattrset(window, hosts == 0 && !highlighted ? style->dim : attr);
    draw_blank(window, y, x, width);
    mvwaddstr(window, y, x, open ? (style->utf8 ? "\xe2\x96\xb8" : ">") : " ");
    char count[32];
    snprintf(count, sizeof count, width >= 30 ? "%zu host%s" : "%zu%s", hosts,
             width >= 30 ? (hosts == 1 ? "" : "s") : "");
    int count_width = (int)strlen(count);
    int room = width - 3 - count_width;
    char fitted[256];
    const char *name = run_name_fitted(run->name, room, style, fitted, sizeof fitted);
    int used = 2 + draw_text(window, y, x + 2, room, name, style);
    if (used + count_width + 1 <= width) {
        if (!highlighted)
            wattrset(window, style->dim);
        draw_text_right(window, y, x + width - count_width, count_width, count, style);
    }
    wattrset(window, style->normal);
}

static void runs_draw(struct pane *pane, struct viewer *viewer, const struct pane_area *area)
{
    WINDOW *window = area->window;
    int y = area->rect.y, x = area->rect.x, height = area->rect.height, width = area->rect.width;
    size_t count = viewer->logdir->run_count;
    char title[64];
    snprintf(title, sizeof title, "Runs (%zu)", count);
    draw_pane_title(window, y, x, width, title, area->focused, &viewer->style);
    struct list_cursor *cursor = &runs_of(pane)->cursor;
    list_cursor_fit(cursor, count, height - 1);
    for (int row = 0; row + 1 < height; row++) {
        size_t index = cursor->top + (size_t)row;
        if (index >= count)
            break;
        draw_run(viewer, window, y + 1 + row, x, width, index, cursor->selected, area->focused);
    }
}

/* "train/2026_11_23_06_39_19: 2026-11-23 06:39:19, 2 hosts: a (xplane,
 * memory_profile), b (xplane)" on the status line. */
static void run_cursor_moved(struct viewer *viewer, size_t index)
{
    const struct logdir_run *run = &viewer->logdir->runs[index];
    char text[sizeof viewer->status], date[32];
    size_t used = (size_t)snprintf(text, sizeof text, "%s", run->name);
    if (logdir_run_date(run, date, sizeof date))
        used += (size_t)snprintf(text + used, sizeof text - used, ": %s", date);
    size_t hosts = logdir_run_memory_hosts(run);
    used += (size_t)snprintf(text + used, sizeof text - used, ", %zu host%s", hosts,
                             hosts == 1 ? "" : "s");
    const char *separator = ": ";
    for (size_t h = 0; h < run->host_count && used < sizeof text; h++) {
        const struct run_host *host = &run->hosts[h];
        if (host->source_count == 0)
            continue;
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%s (", separator, host->name);
        for (size_t f = 0; f < host->source_count && used < sizeof text; f++) {
            const struct run_file *file = &host->files[f];
            used += (size_t)snprintf(text + used, sizeof text - used, "%s%s", f ? ", " : "",
                                     file->kind ? file->kind->short_name
                                               : profile_format_name(file->format));
        }
        if (used < sizeof text)
            used += (size_t)snprintf(text + used, sizeof text - used, ")");
        separator = ", ";
    }
    if (run->read_error && used < sizeof text)
        snprintf(text + used, sizeof text - used, " (cannot read it: %s)",
                 strerror(run->read_error));
    viewer_status(viewer, hosts == 0, "%s", text);
}

static struct pane_reply runs_handle(struct pane *pane, struct viewer *viewer,
                                     enum request request)
{
    struct list_cursor *cursor = &runs_of(pane)->cursor;
    bool moved;
    struct pane_reply reply = pane_reply_list_request(cursor, viewer->logdir->run_count, request,
                                                      FOLLOW_UP_SELECT_RUN, &moved);
    if (moved)
        run_cursor_moved(viewer, cursor->selected);
    return reply;
}

static struct pane_reply runs_click(struct pane *pane, struct viewer *viewer, int row, int column,
                                    bool again)
{
    (void)column, (void)again;
    return pane_reply_list_click(&runs_of(pane)->cursor, viewer->logdir->run_count, row,
                                 FOLLOW_UP_SELECT_RUN);
}

/* A host opened (a run opens with its first): the cursor on its run. */
static void runs_reset(struct pane *pane, struct viewer *viewer, bool new_host)
{
    if (new_host)
        runs_of(pane)->cursor.selected = viewer->run_index;
}

static const struct pane_ops runs_ops = {
    .draw = runs_draw,
    .handle = runs_handle,
    .click = runs_click,
    .reset = runs_reset,
    .free = pane_free_plain,
    .scope = KEY_SCOPE_RUNS,
    .moves_through_items = true,
};

struct pane *runs_pane_create(struct viewer *viewer)
{
    (void)viewer;
    return pane_create(&runs_ops, sizeof(struct runs_pane));
}
