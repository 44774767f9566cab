#include "config.h"

#include "ui/breakdown_pane.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/format.h"
#include "model/saturating.h"
#include "ui/draw.h"
#include "ui/viewer.h"

/* Share columns ("100 %") when the pane is at least this wide. */
#define SHARE_MIN_WIDTH 28

void breakdown_pane_free(struct viewer *viewer)
{
    struct breakdown_state *breakdown = &viewer->breakdown;
    peak_breakdown_free(&breakdown->by_region);
    peak_breakdown_free(&breakdown->by_data_type);
    memset(breakdown, 0, sizeof *breakdown);
}

/* The sums of what the table shows now, built again only when the
 * allocator or the filter changed (the sort does not change a sum). */
static void breakdown_update(struct viewer *viewer)
{
    struct breakdown_state *breakdown = &viewer->breakdown;
    const struct allocation_table *rows = &viewer->query.rows;
    if (breakdown->valid && breakdown->allocator == rows->allocator &&
        breakdown->shown == rows->count && strcmp(breakdown->filter, rows->filter) == 0)
        return;
    breakdown_pane_free(viewer);
    /* Out of memory leaves them empty: the pane then shows no rows. */
    peak_breakdown_build(&breakdown->by_region, rows, BREAKDOWN_BY_REGION);
    peak_breakdown_build(&breakdown->by_data_type, rows, BREAKDOWN_BY_DATA_TYPE);
    breakdown->allocator = rows->allocator;
    breakdown->shown = rows->count;
    snprintf(breakdown->filter, sizeof breakdown->filter, "%s", rows->filter);
    breakdown->valid = true;
}

struct breakdown_pane {
    struct pane pane;
    enum breakdown_key key;
};

/* The region breakdown's wish: its title, its groups and a blank line
 * (0 without an allocator). */
static int breakdown_wanted_rows(struct pane *pane, struct viewer *viewer)
{
    (void)pane;
    if (!viewer->allocator)
        return 0;
    breakdown_update(viewer);
    size_t count = viewer->breakdown.by_region.count;
    return count > 1000 ? 1000 : (int)count + 2;
}

static void draw_group(struct viewer *viewer, WINDOW *window, int y, int x, int width,
                       const char *name, int64_t bytes, int64_t total, attr_t name_attr)
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
    wattrset(window, name[0] ? name_attr : style->dim);
    draw_text(window, y, x, width - value_width - 1, name[0] ? name : "(none)", style);
    wattrset(window, style->normal);
    draw_text_right(window, y, x, width, value, style);
}

static void breakdown_draw(struct pane *pane, struct viewer *viewer, const struct pane_area *area)
{
    enum breakdown_key key = ((struct breakdown_pane *)pane)->key;
    WINDOW *window = area->window;
    int y = area->rect.y, x = area->rect.x, height = area->rect.height, width = area->rect.width;
    const struct ui_style *style = &viewer->style;
    if (height <= 0 || width <= 0)
        return;
    bool filtered = viewer->query.rows.filter[0] != '\0';
    const char *title = key == BREAKDOWN_BY_REGION
                            ? (filtered ? "At peak by region (filter)" : "At peak by region")
                            : (filtered ? "At peak by type (filter)" : "At peak by type");
    draw_pane_title(window, y, x, width, title, false, style);
    if (!viewer->allocator)
        return;
    breakdown_update(viewer);
    const struct peak_breakdown *sums = key == BREAKDOWN_BY_REGION
                                            ? &viewer->breakdown.by_region
                                            : &viewer->breakdown.by_data_type;
    int rows = height - 1;
    if (rows <= 0)
        return;
    size_t shown = sums->count <= (size_t)rows ? sums->count : (size_t)rows - 1;
    for (size_t i = 0; i < shown; i++)
        draw_group(viewer, window, y + 1 + (int)i, x + 1, width - 1,
                   profile_text(viewer->profile, sums->groups[i].name), sums->groups[i].bytes,
                   sums->total_bytes, style->normal);
    if (shown == sums->count)
        return;
    /* What does not fit, summed on the last line. */
    int64_t rest = 0;
    for (size_t i = shown; i < sums->count; i++)
        rest = saturating_add(rest, sums->groups[i].bytes);
    char name[48];
    snprintf(name, sizeof name, "%zu more", sums->count - shown);
    draw_group(viewer, window, y + rows, x + 1, width - 1, name, rest, sums->total_bytes,
               style->dim);
}

static void breakdown_free(struct pane *pane)
{
    free(pane);
}

static const struct pane_ops by_region_ops = {
    .draw = breakdown_draw,
    .free = breakdown_free,
    .wanted_rows = breakdown_wanted_rows,
    .scope = KEY_SCOPE_GLOBAL,
};

static const struct pane_ops by_data_type_ops = {
    .draw = breakdown_draw,
    .free = breakdown_free,
    .scope = KEY_SCOPE_GLOBAL,
};

static struct pane *breakdown_create(const struct pane_ops *ops, enum breakdown_key key)
{
    struct breakdown_pane *breakdown = calloc(1, sizeof *breakdown);
    if (!breakdown)
        return NULL;
    breakdown->pane.ops = ops;
    breakdown->key = key;
    return &breakdown->pane;
}

struct pane *breakdown_pane_create_by_region(struct viewer *viewer)
{
    (void)viewer;
    return breakdown_create(&by_region_ops, BREAKDOWN_BY_REGION);
}

struct pane *breakdown_pane_create_by_data_type(struct viewer *viewer)
{
    (void)viewer;
    return breakdown_create(&by_data_type_ops, BREAKDOWN_BY_DATA_TYPE);
}
