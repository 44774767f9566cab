/* viewer_input: a key or a mouse event, carried out (see viewer.h,
 * viewer_handle_key): an open prompt takes the key itself; otherwise the
 * key table (ui/keys.h) names the request, which an open overlay (help,
 * a row's detail) takes first, then the viewer's global requests, the
 * focused pane, the pane whose keys they are, and the live view. Called
 * by ui.c's loop; never draws: the next frame shows what changed. */
#include "config.h"

#include "ui/viewer.h"

#include <string.h>

#include <curses.h>

#include "ui/export_prompt.h"
#include "ui/filter_prompt.h"
#include "ui/go_to_prompt.h"
#include "ui/help_overlay.h"
#include "ui/oom_view.h"

/* Rows a mouse wheel notch scrolls. */
#define WHEEL_STEP 3

/* Carries out a pane's reply; whether the request was the pane's. */
static bool viewer_take_reply(struct viewer *viewer, enum pane_id pane,
                              const struct pane_reply *reply)
{
    for (size_t i = 0; i < reply->count; i++)
        viewer_follow_up(viewer, pane, &reply->follow_ups[i]);
    return reply->handled;
}

/* Offers a request to a pane that is on screen. */
static bool viewer_pane_handle(struct viewer *viewer, enum pane_id id, enum request request)
{
    if (!viewer_pane_available(viewer, id))
        return false;
    struct pane *pane = viewer->panes[id];
    if (!pane->ops->handle)
        return false;
    struct pane_reply reply = pane->ops->handle(pane, viewer, request);
    return viewer_take_reply(viewer, id, &reply);
}

/* The pane whose keys `scope` is, when they reach it unfocused: the
 * first row whose ops say so. */
static enum pane_id viewer_pane_of_scope(const struct viewer *viewer, enum key_scope scope)
{
    for (enum pane_id id = 0; id < PANE_COUNT; id++) {
        const struct pane_ops *ops = viewer->panes[id]->ops;
        if (ops->scope == scope && ops->keys_reach_it_unfocused &&
            viewer_pane_available(viewer, id))
            return id;
    }
    return PANE_NONE;
}

/* ---- keys ---- */

/* A one-key question ends with whatever key comes. */
static void viewer_prompt_answer(struct viewer *viewer, int key)
{
    struct prompt finished = viewer->prompt;
    viewer->prompt.active = false;
    char answer[2];
    prompt_one_key_answer(key, answer, sizeof answer);
    if (finished.on_accept)
        finished.on_accept(viewer, answer);
}

static void viewer_prompt_key(struct viewer *viewer, int key)
{
    struct prompt *prompt = &viewer->prompt;
    if (prompt->one_key) {
        viewer_prompt_answer(viewer, key);
        return;
    }
    enum prompt_outcome outcome = prompt_edit(prompt, key);
    switch (outcome) {
    case PROMPT_EDITED:
        if (prompt->on_change)
            prompt->on_change(viewer, prompt->text);
        return;
    case PROMPT_ACCEPTED:
    case PROMPT_CANCELLED: {
        /* Ends the prompt before the callback runs, so the callback may
         * start another one. */
        struct prompt finished = *prompt;
        prompt->active = false;
        prompt_callback callback =
            outcome == PROMPT_ACCEPTED ? finished.on_accept : finished.on_cancel;
        if (callback)
            callback(viewer, finished.text);
        return;
    }
    case PROMPT_MOVE:
        /* Moving through the rows a filter leaves, while typing it. */
        viewer_pane_handle(viewer, viewer->focus, keys_request_for(key));
        return;
    case PROMPT_REDRAW: viewer->redraw_all = true; return;
    default: return;
    }
}

static void viewer_step_allocator(struct viewer *viewer, int direction)
{
    if (viewer_comparing(viewer)) {
        viewer_step_pair(viewer, direction);
        return;
    }
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
 * mark, then the query's filter. */
static void viewer_cancel(struct viewer *viewer)
{
    if (viewer->overlay != OVERLAY_NONE) {
        viewer->overlay = OVERLAY_NONE;
        return;
    }
    if (viewer_pane_handle(viewer, viewer->focus, REQUEST_CANCEL))
        return;
    if (live_view_clear_mark(viewer))
        return;
    if (live_view_unpin(viewer)) {
        viewer_status(viewer, false, "the table is back to %s",
                      viewer->live.following ? "the cursor" : "the peak");
        return;
    }
    filter_prompt_clear(viewer);
}

static bool viewer_handle_global(struct viewer *viewer, enum request request)
{
    switch (request) {
    case REQUEST_QUIT: viewer->quit = true; return true;
    case REQUEST_HELP: help_overlay_open(viewer); return true;
    case REQUEST_CANCEL: viewer_cancel(viewer); return true;
    case REQUEST_REDRAW: viewer->redraw_all = true; return true;
    case REQUEST_FOCUS_NEXT: viewer_focus(viewer, viewer_focus_neighbour(viewer, 1)); return true;
    case REQUEST_FOCUS_PREVIOUS:
        viewer_focus(viewer, viewer_focus_neighbour(viewer, -1));
        return true;
    case REQUEST_ALLOCATOR_NEXT: viewer_step_allocator(viewer, 1); return true;
    case REQUEST_ALLOCATOR_PREVIOUS: viewer_step_allocator(viewer, -1); return true;
    case REQUEST_EXPORT: export_prompt_begin(viewer); return true;
    case REQUEST_POD_OVERVIEW:
        if (viewer_comparing(viewer))
            viewer_status(viewer, false, "no pod overview: two profiles are compared");
        else
            viewer_zoom(viewer, viewer->zoomed == PANE_POD ? PANE_NONE : PANE_POD);
        return true;
    case REQUEST_ZOOM_PANE: viewer_toggle_pane_zoom(viewer); return true;
    case REQUEST_COMPARE_HOST_NEXT: viewer_step_compare_host(viewer, 1); return true;
    case REQUEST_COMPARE_HOST_PREVIOUS: viewer_step_compare_host(viewer, -1); return true;
    case REQUEST_OOM_NEXT:
    case REQUEST_OOM_PREVIOUS: return oom_view_handle(viewer, request);
    case REQUEST_GO_TO: go_to_prompt_begin(viewer); return true;
    case REQUEST_RELOAD:
        if (viewer_comparing(viewer))
            viewer_status(viewer, false, "R reloads a log directory or files, not a comparison");
        else
            viewer_reload(viewer, false);
        return true;
    default: return false;
    }
}

/* A detail belongs to the pane that opened it: moving flips through its
 * items, the keys that close things close it. */
static void viewer_handle_detail(struct viewer *viewer, enum request request)
{
    switch (request) {
    case REQUEST_CANCEL:
    case REQUEST_ENTER:
    case REQUEST_QUIT: viewer->overlay = OVERLAY_NONE; return;
    case REQUEST_HELP:
    case REQUEST_REDRAW: viewer_handle_global(viewer, request); return;
    default:
        if (!viewer_pane_handle(viewer, viewer->overlay_pane, request) &&
            !viewer_pane_available(viewer, viewer->overlay_pane))
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
    if (viewer->overlay == OVERLAY_DETAIL) {
        viewer_handle_detail(viewer, request);
        return;
    }
    enum key_scope scope = keys_scope_of(request);
    if (scope == KEY_SCOPE_GLOBAL && viewer_handle_global(viewer, request))
        return;
    if (viewer_pane_handle(viewer, viewer->focus, request))
        return;
    /* A pane's own keys work from anywhere: p finds the peak even while
     * the table has the focus. */
    enum pane_id owner = viewer_pane_of_scope(viewer, scope);
    if (owner != PANE_NONE && owner != viewer->focus && viewer_pane_handle(viewer, owner, request))
        return;
    /* What the table's rows are and the mark are the viewer's: L and m
     * work from any pane. */
    live_view_handle(viewer, request);
}

/* ---- the mouse (only with --mouse) ---- */

static enum pane_id viewer_pane_at(const struct viewer *viewer, int y, int x)
{
    for (enum pane_id id = 0; id < PANE_COUNT; id++) {
        const struct rect *rect = viewer_pane_rect(viewer, id);
        if (rect && pane_table_row(id)->focusable && rect_contains(rect, y, x))
            return id;
    }
    return PANE_NONE;
}

static void viewer_handle_mouse(struct viewer *viewer)
{
    MEVENT event;
    if (getmouse(&event) != OK || viewer->overlay != OVERLAY_NONE || viewer->prompt.active)
        return;
    /* Releases are in the mask only so that curses queues them as events
     * of their own (see terminal.c); they do nothing here. */
    mmask_t clicks = BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED |
                     BUTTON1_TRIPLE_CLICKED;
    if (!(event.bstate & (clicks | BUTTON4_PRESSED | BUTTON5_PRESSED)))
        return;
    enum pane_id id = viewer_pane_at(viewer, event.y, event.x);
    if (id == PANE_NONE)
        return;
    bool again = viewer->focus == id;
    viewer_focus(viewer, id);
    if (event.bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED)) {
        enum request request = event.bstate & BUTTON4_PRESSED ? REQUEST_MOVE_UP : REQUEST_MOVE_DOWN;
        for (int i = 0; i < WHEEL_STEP; i++)
            viewer_pane_handle(viewer, id, request);
        return;
    }
    struct pane *pane = viewer->panes[id];
    const struct rect *area = viewer_pane_rect(viewer, id);
    if (!pane->ops->click || !area)
        return;
    int count = event.bstate & BUTTON1_TRIPLE_CLICKED ? 3
                : event.bstate & BUTTON1_DOUBLE_CLICKED ? 2
                                                         : 1;
    for (int i = 0; i < count && area && viewer->overlay == OVERLAY_NONE; i++, again = true) {
        struct pane_reply reply =
            pane->ops->click(pane, viewer, event.y - area->y, event.x - area->x, again);
        viewer_take_reply(viewer, id, &reply);
        area = viewer_pane_rect(viewer, id); /* a reply may lay the screen out anew */
    }
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
        viewer_prompt_key(viewer, key);
        return;
    }
    viewer_status_clear(viewer);
    viewer_handle_request(viewer, keys_request_for(key));
}
