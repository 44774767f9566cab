#include "config.h"

#include "ui/pane.h"

#include <stdio.h>
#include <stdlib.h>

#include "ui/draw.h"

struct pane *pane_create(const struct pane_ops *ops, size_t size)
{
    struct pane *pane = calloc(1, size < sizeof *pane ? sizeof *pane : size);
    if (pane)
        pane->ops = ops;
    return pane;
}

void pane_free_plain(struct pane *pane)
{
    free(pane);
}

struct pane_reply pane_reply_handled(void)
{
    return (struct pane_reply){.handled = true};
}

struct pane_reply pane_reply_ignored(void)
{
    return (struct pane_reply){.handled = false};
}

void pane_reply_add(struct pane_reply *reply, struct follow_up follow_up)
{
    reply->handled = true;
    if (reply->count < PANE_REPLY_FOLLOW_UPS)
        reply->follow_ups[reply->count++] = follow_up;
}

struct pane_reply pane_reply_follow(struct follow_up follow_up)
{
    struct pane_reply reply = pane_reply_handled();
    pane_reply_add(&reply, follow_up);
    return reply;
}

struct follow_up follow_up_jump_to_time(int64_t time_ps)
{
    return (struct follow_up){.kind = FOLLOW_UP_JUMP_TO_TIME, .from_ps = time_ps,
                              .to_ps = time_ps};
}

struct follow_up follow_up_zoom_to(int64_t from_ps, int64_t to_ps)
{
    return (struct follow_up){.kind = FOLLOW_UP_ZOOM_TO, .from_ps = from_ps, .to_ps = to_ps};
}

struct follow_up follow_up_focus(int pane)
{
    return (struct follow_up){.kind = FOLLOW_UP_FOCUS, .pane = pane};
}

struct pane_reply pane_reply_list_request(struct list_cursor *cursor, size_t count,
                                          enum request request, enum follow_up_kind kind,
                                          bool *moved)
{
    *moved = false;
    if (request == REQUEST_ENTER)
        return pane_reply_follow(follow_up_of(kind, cursor->selected));
    if (!list_cursor_move(cursor, count, request))
        return pane_reply_ignored();
    *moved = true;
    return pane_reply_handled();
}

struct pane_reply pane_reply_list_click(struct list_cursor *cursor, size_t count, int row,
                                        enum follow_up_kind kind)
{
    size_t index;
    if (!list_cursor_item_at(cursor, count, row - 1, &index))
        return pane_reply_handled();
    cursor->selected = index;
    return pane_reply_follow(follow_up_of(kind, index));
}

struct follow_up follow_up_of(enum follow_up_kind kind, size_t index)
{
    return (struct follow_up){.kind = kind, .index = index};
}

void pane_draw_tab_hint(const struct pane_area *area, struct text title,
                        const struct ui_style *style)
{
    const struct rect *rect = &area->rect;
    if (!area->next_tab || rect->width < 60)
        return;
    char hint[96];
    snprintf(hint, sizeof hint, " Tab: %s ", area->next_tab);
    int hint_width = draw_text_width(hint, style);
    if (draw_bytes_width(title, style) + 2 + hint_width + 4 > rect->width)
        return;
    wattrset(area->window, style->dim);
    draw_text(area->window, rect->y, rect->x + rect->width - hint_width - 1, hint_width, hint,
              style);
    wattrset(area->window, style->normal);
}
