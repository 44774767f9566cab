#include "config.h"

#include "ui/panes/breakdown_pane.h"

#include <stdio.h>
#include <stdlib.h>

#include "model/query/allocation_table.h"
#include "model/format.h"
#include "model/query/peak_breakdown.h"
#include "model/util/saturating.h"
#include "ui/draw.h"
#include "ui/viewer.h"

/* Share columns ("100 %") when the pane is at least this wide. */
#define SHARE_MIN_WIDTH 28

struct breakdown_pane {
    struct pane pane;
    enum breakdown_key key;
    bool valid;
    /* What the sums are of: the query's rows of that generation. */
    const struct allocator *allocator;
    unsigned generation; /* the query's: a filter, a least size, an open group, a source */
    struct peak_breakdown sums;
};

static struct breakdown_pane *breakdown_of(struct pane *pane)
{
    return (struct breakdown_pane *)pane;
}

/* Forgets the sums: the rows they were made of are going away. */
static void breakdown_forget(struct breakdown_pane *breakdown)
{
    peak_breakdown_free(&breakdown->sums);
    breakdown->valid = false;
    breakdown->allocator = NULL;
}

/* The sums of what the table shows now, built again only when its rows
 * changed (another allocator, filter or source: the rows live at the
 * cursor change as it moves). */
static void breakdown_update(struct breakdown_pane *breakdown, const struct viewer *viewer)
{
    const struct allocation_table *rows = &viewer->query.rows;
    if (breakdown->valid && breakdown->allocator == rows->allocator &&
        breakdown->generation == viewer->query.generation)
        return;
    breakdown_forget(breakdown);
    /* Out of memory leaves them empty: the pane then shows no rows. */
    peak_breakdown_build(&breakdown->sums, rows, breakdown->key);
    breakdown->allocator = rows->allocator;
    breakdown->generation = viewer->query.generation;
    breakdown->valid = true;
}

/* The region breakdown's wish: its title, its groups and a blank line
 * (0 without an allocator). */
static int breakdown_wanted_rows(struct pane *pane, struct viewer *viewer)
{
    struct breakdown_pane *breakdown = breakdown_of(pane);
    if (!viewer->allocator)
        return 0;
    breakdown_update(breakdown, viewer);
    size_t count = breakdown->sums.count;
    return count > 1000 ? 1000 : (int)count + 2;
}

static void draw_group(struct viewer *viewer, WINDOW *window, int y, int x, int width,
                       struct text name, int64_t bytes, int64_t total, attr_t name_attr)
{
    const struct ui_style *style = &viewer->style;
    char value[64], size[32];
    format_bytes(bytes, size, sizeof size);
    if (width >= SHARE_MIN_WIDTH && total > 0 && bytes >= 0) {
        int share = (int)((double)bytes / (double)total * 100.0 + 0.5);
        snprintf(value, sizeof value, "%s %3d %%", size, share);
    } else {
        snprintf(value, sizeof value, "%s", size);
    }
    int value_width = draw_text_width(value, style);
    wattrset(window, name.length ? name_attr : style->dim);
    draw_bytes(window, y, x, width - value_width - 1, name.length ? name : text_of("(none)"),
               style);
    wattrset(window, style->normal);
    draw_text_right(window, y, x, width, value, style);
}

static void breakdown_draw(struct pane *pane, struct viewer *viewer, const struct pane_area *area)
{
    struct breakdown_pane *breakdown = breakdown_of(pane);
    enum breakdown_key key = breakdown->key;
    WINDOW *window = area->window;
    int y = area->rect.y, x = area->rect.x, height = area->rect.height, width = area->rect.width;
    const struct ui_style *style = &viewer->style;
    if (height <= 0 || width <= 0)
        return;
    /* What the table's rows are: at the peak, live at the cursor, grown;
     * "(filter)" when a filter, a least size or an open group leaves
     * fewer of them. */
    static const char *const kinds[] = {[QUERY_AT_PEAK] = "At peak", [QUERY_LIVE] = "Live",
                                        [QUERY_GROWN] = "Grown"};
    char title[64];
    snprintf(title, sizeof title, "%s by %s%s", kinds[viewer->query.kind],
             key == BREAKDOWN_BY_REGION ? "region" : "type",
             allocation_table_narrowed(&viewer->query.rows) ? " (filter)" : "");
    draw_pane_title(window, y, x, width, title, false, style);
    if (!viewer->allocator)
        return;
    breakdown_update(breakdown, viewer);
    const struct peak_breakdown *sums = &breakdown->sums;
    int rows = height - 1;
    if (rows <= 0)
        return;
    size_t shown = sums->count <= (size_t)rows ? sums->count : (size_t)rows - 1;
    for (size_t i = 0; i < shown; i++)
        draw_group(viewer, window, y + 1 + (int)i, x + 1, width - 1,
                   profile_string(viewer->profile, sums->groups[i].name), sums->groups[i].bytes,
                   sums->total_bytes, style->normal);
    if (shown == sums->count)
        return;
    /* What does not fit, summed on the last line. */
    int64_t rest = 0;
    for (size_t i = shown; i < sums->count; i++)
        rest = saturating_add(rest, sums->groups[i].bytes);
    char name[48];
    snprintf(name, sizeof name, "%zu more", sums->count - shown);
    draw_group(viewer, window, y + rows, x + 1, width - 1, text_of(name), rest, sums->total_bytes,
               style->dim);
}

/* Another allocator or host: the rows summed are going away. */
static void breakdown_reset(struct pane *pane, struct viewer *viewer, bool new_host)
{
    (void)viewer, (void)new_host;
    breakdown_forget(breakdown_of(pane));
}

static void breakdown_free(struct pane *pane)
{
    breakdown_forget(breakdown_of(pane));
    free(pane);
}

static const struct pane_ops breakdown_ops = {
    .draw = breakdown_draw,
    .reset = breakdown_reset,
    .free = breakdown_free,
    .wanted_rows = breakdown_wanted_rows,
    .scope = KEY_SCOPE_GLOBAL,
};

/* Two instances of one pane, told which key they sum by. */
static struct pane *breakdown_create(enum breakdown_key key)
{
    struct pane *pane = pane_create(&breakdown_ops, sizeof(struct breakdown_pane));
    if (pane)
        breakdown_of(pane)->key = key;
    return pane;
}

struct pane *breakdown_pane_create_by_region(struct viewer *viewer)
{
    (void)viewer;
    return breakdown_create(BREAKDOWN_BY_REGION);
}

struct pane *breakdown_pane_create_by_data_type(struct viewer *viewer)
{
    (void)viewer;
    return breakdown_create(BREAKDOWN_BY_DATA_TYPE);
}
