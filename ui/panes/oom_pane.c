#include "config.h"

#include "ui/panes/oom_pane.h"

#include <stdio.h>
#include <string.h>

#include "model/query/live_set.h"
#include "model/query/oom.h"
#include "report/oom_card.h"
#include "ui/viewer.h"

/* Past this width the facts go left, the verdict and holders right. */
#define OOM_PANE_TWO_COLUMNS 72
#define OOM_PANE_FACTS_WIDTH 30

struct oom_pane {
    struct pane pane;
    /* The card, and what it was built for. */
    struct oom_card card;
    const struct profile *profile;
    const struct allocator *allocator;
    size_t index;
    bool built;
};

static struct oom_pane *oom_of(struct pane *pane)
{
    return (struct oom_pane *)pane;
}

bool oom_pane_available(const struct viewer *viewer)
{
    return !viewer_comparing(viewer) && viewer->allocator && viewer->allocator->oom_count > 0;
}

/* The OOM to show: the one o went to, else the allocator's last. */
static const struct oom_event *oom_pane_event(const struct viewer *viewer)
{
    const struct oom_event *oom = live_view_oom(viewer);
    return oom ? oom : allocator_last_oom(viewer->allocator);
}

static void oom_pane_build(struct oom_pane *pane, struct viewer *viewer,
                           const struct oom_event *oom)
{
    const struct allocator *allocator = viewer->allocator;
    struct live_rows rows = {0};
    if (live_view_rows_at(viewer, oom->time_ps, &rows) == LIVE_OK)
        oom_card_build(&pane->card, viewer->profile, allocator, oom, rows.rows, rows.count, true);
    else
        oom_card_build(&pane->card, viewer->profile, allocator, oom, allocator->rows,
                       allocator->row_count, allocator->timeline_kind == TIMELINE_NONE);
    live_rows_free(&rows);
    pane->profile = viewer->profile;
    pane->allocator = allocator;
    pane->index = allocator_oom_index(allocator, oom);
    pane->built = true;
}

/* "Out of memory · 2.467 ms (1 of 3)" */
static void oom_pane_title(const struct oom_card *card, const struct ui_style *style,
                           char *title, size_t size)
{
    const char *dot = style->utf8 ? " \xc2\xb7 " : " - ";
    char count[48] = "";
    if (card->count > 1)
        snprintf(count, sizeof count, " (%zu of %zu)", card->number, card->count);
    snprintf(title, size, "Out of memory%s%s%s", card->when[0] ? dot : "", card->when, count);
}

static void draw_fact(WINDOW *window, int y, int x, int width, const struct oom_card_fact *fact,
                      const struct ui_style *style)
{
    wattrset(window, style->dim);
    draw_text(window, y, x, width, fact->label, style);
    wattrset(window, fact->emphasis ? style->error | A_BOLD : style->normal);
    draw_text_right(window, y, x, width, fact->value, style);
    wattrset(window, style->normal);
}

/* Our own text in lines of `width` cells, broken at spaces; returns the
 * next free row. */
static int draw_wrapped(WINDOW *window, int y, int end_y, int x, int width, const char *text,
                        const struct ui_style *style)
{
    while (*text && y < end_y && width > 0) {
        size_t length = strlen(text), cut = length;
        if (length > (size_t)width) {
            cut = (size_t)width;
            while (cut > 0 && text[cut] != ' ')
                cut--;
            if (cut == 0)
                cut = (size_t)width;
        }
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)cut, text);
        draw_text(window, y++, x, width, line, style);
        text += cut;
        while (*text == ' ')
            text++;
    }
    return y;
}

/* The verdict, then the holders; returns the next free row. */
static int draw_verdict_and_holders(struct viewer *viewer, const struct oom_card *card,
                                    WINDOW *window, int y, int end_y, int x, int width)
{
    const struct ui_style *style = &viewer->style;
    if (card->op_id && y < end_y) {
        wattrset(window, style->dim);
        int used = draw_text(window, y, x, width, "requested by ", style);
        wattrset(window, style->normal);
        draw_bytes(window, y++, x + used, width - used, profile_string(viewer->profile, card->op_id),
                   style);
    }
    wattrset(window, style->peak);
    y = draw_wrapped(window, y, end_y, x, width, card->verdict, style);
    wattrset(window, style->normal);
    if (card->holder_count == 0 || y + 1 >= end_y)
        return y;
    wattrset(window, style->dim);
    draw_text(window, y++, x, width, oom_card_holders_title(card), style);
    wattrset(window, style->normal);
    for (size_t i = 0; i < card->holder_count && y < end_y; i++, y++) {
        const struct oom_card_holder *holder = &card->holders[i];
        int used = draw_text_right(window, y, x, 11, holder->bytes, style);
        (void)used;
        struct text name = profile_string(viewer->profile, holder->name_id);
        if (name.length == 0)
            draw_text(window, y, x + 13, width - 13, "(no op)", style);
        else
            draw_bytes(window, y, x + 13, width - 13, name, style);
    }
    return y;
}

/* The memory map (a BFC allocator's chunk walk): one cell per slice of
 * the address space, in use, free or both; returns the next free row. */
static int draw_memory_map(struct viewer *viewer, WINDOW *window, int y, int end_y, int x,
                           int width)
{
    const struct ui_style *style = &viewer->style;
    double cells[256];
    if (width > 256)
        width = 256;
    if (y + 1 >= end_y || width < 8 || !oom_memory_map_cells(viewer->allocator, cells, width))
        return y;
    wattrset(window, style->dim);
    draw_text(window, y++, x, width,
              style->utf8 ? "Memory map (\xe2\x96\x88 in use, \xc2\xb7 free)"
                          : "Memory map (# in use, . free)",
              style);
    for (int c = 0; c < width; c++) {
        bool used = cells[c] >= 0.999, free_cell = cells[c] <= 0.001;
        wattrset(window, free_cell ? style->dim : style->heap);
        mvwaddstr(window, y, x + c,
                  style->utf8 ? (used ? "\xe2\x96\x88" : free_cell ? "\xc2\xb7" : "\xe2\x96\x92")
                              : (used ? "#" : free_cell ? "." : "+"));
    }
    wattrset(window, style->normal);
    return y + 1;
}

/* The format's own summary lines, as the file wrote them. */
static int draw_notes(const struct oom_card *card, const struct ui_style *style, WINDOW *window,
                      int y, int end_y, int x, int width)
{
    for (size_t i = 0; i < card->note_count && y < end_y; i++, y++) {
        wattrset(window, style->dim);
        draw_text(window, y, x, width, card->notes[i].label, style);
        wattrset(window, style->normal);
        draw_text_right(window, y, x, width, card->notes[i].value, style);
    }
    return y;
}

static void oom_pane_draw(struct pane *pane, struct viewer *viewer, const struct pane_area *area)
{
    struct oom_pane *oom_pane = oom_of(pane);
    const struct ui_style *style = &viewer->style;
    WINDOW *window = area->window;
    int y = area->rect.y, x = area->rect.x, height = area->rect.height, width = area->rect.width;
    if (!oom_pane_available(viewer) || height <= 0)
        return;
    const struct oom_event *oom = oom_pane_event(viewer);
    if (!oom_pane->built || oom_pane->profile != viewer->profile ||
        oom_pane->allocator != viewer->allocator ||
        oom_pane->index != allocator_oom_index(viewer->allocator, oom))
        oom_pane_build(oom_pane, viewer, oom);
    const struct oom_card *card = &oom_pane->card;
    char title[128];
    oom_pane_title(card, style, title, sizeof title);
    draw_pane_title(window, y, x, width, title, area->focused, style);
    int end_y = y + height, inner = width - 2;
    bool two = width >= OOM_PANE_TWO_COLUMNS;
    int facts_width = two || inner > OOM_PANE_FACTS_WIDTH ? OOM_PANE_FACTS_WIDTH : inner;
    int row = y + 1;
    for (size_t i = 0; i < card->fact_count && row < end_y; i++)
        draw_fact(window, row++, x + 1, facts_width, &card->facts[i], style);
    if (two) {
        int right = draw_verdict_and_holders(viewer, card, window, y + 1, end_y,
                                             x + facts_width + 4, width - facts_width - 5);
        row = draw_notes(card, style, window, row, end_y, x + 1, facts_width);
        draw_memory_map(viewer, window, row > right ? row : right, end_y, x + 1, inner);
    } else {
        row = draw_verdict_and_holders(viewer, card, window, row, end_y, x + 1, inner);
        row = draw_memory_map(viewer, window, row, end_y, x + 1, inner);
        draw_notes(card, style, window, row, end_y, x + 1, facts_width);
    }
}

static void oom_pane_reset(struct pane *pane, struct viewer *viewer, bool new_host)
{
    (void)viewer;
    (void)new_host;
    oom_of(pane)->built = false;
}

static const struct pane_ops oom_pane_ops = {
    .draw = oom_pane_draw,
    .reset = oom_pane_reset,
    .free = pane_free_plain,
    .scope = KEY_SCOPE_GLOBAL,
};

struct pane *oom_pane_create(struct viewer *viewer)
{
    (void)viewer;
    return pane_create(&oom_pane_ops, sizeof(struct oom_pane));
}
