#include "config.h"

#include "ui/layout.h"

#include <string.h>

/* The summary's title and its twelve fields. */
#define SUMMARY_WANTED_ROWS 13
/* A breakdown pane's title and two rows: less is not worth showing. */
#define BREAKDOWN_MIN_ROWS 3
/* Below this many rows each, the table and the HLO modules take turns. */
#define STACKED_MIN_ROWS 10

static int clamp(int value, int low, int high)
{
    if (value < low)
        return low;
    return value > high ? high : value;
}

static int min_int(int a, int b) { return a < b ? a : b; }

static struct rect rect_make(int y, int x, int height, int width)
{
    struct rect rect = {y, x, height, width};
    return rect;
}

/* How many items a list shows: all of them when there is room, else a
 * share that leaves the rest of the column usable (the list scrolls). */
static int list_rows(size_t count, int share)
{
    int items = count > 0 ? (count > 10000 ? 10000 : (int)count) : 1;
    return min_int(items, share);
}

/* The summary, and below it what the peak is made of when the column is
 * tall enough for both breakdowns; else the summary has all of it. */
static void layout_left_bottom(struct layout *layout, int y, int height, int width)
{
    int rest = height - SUMMARY_WANTED_ROWS;
    if (rest < 2 * BREAKDOWN_MIN_ROWS) {
        layout->summary = rect_make(y, 0, height, width);
        return;
    }
    layout->summary = rect_make(y, 0, SUMMARY_WANTED_ROWS, width);
    y += SUMMARY_WANTED_ROWS;
    int regions = rest / 2;
    layout->by_region = rect_make(y, 0, regions, width);
    layout->by_data_type = rect_make(y + regions, 0, rest - regions, width);
}

/* The runs list's rows: a share of the column that leaves the hosts,
 * the allocators and the summary theirs; 0 when not even a title and
 * one run fit. */
static int runs_rows(size_t run_count, int body, int hosts_height, size_t allocator_count)
{
    if (run_count < 2)
        return 0;
    int allocators = 1 + list_rows(allocator_count, 3);
    int room = body - hosts_height - allocators - 3; /* the summary's title and two rows */
    int height = 1 + list_rows(run_count, body / 5 > 2 ? body / 5 : 2);
    height = height < room ? height : room;
    return height >= 2 ? height : 0;
}

static void layout_left_column(struct layout *layout, int top, int body, int width,
                               size_t run_count, size_t host_count, size_t allocator_count)
{
    int y = top;
    int hosts_height = host_count > 1 ? 1 + list_rows(host_count, body / 4 > 3 ? body / 4 : 3) : 0;
    int runs_height = runs_rows(run_count, body, hosts_height, allocator_count);
    if (runs_height > 0) {
        layout->runs = rect_make(y, 0, runs_height, width);
        y += runs_height;
    }
    if (hosts_height > 0) {
        layout->hosts = rect_make(y, 0, hosts_height, width);
        y += hosts_height;
    }
    int rest = top + body - y;
    int share = rest - 1 - SUMMARY_WANTED_ROWS;
    int allocator_height = 1 + list_rows(allocator_count, share > 3 ? share : 3);
    layout->allocators = rect_make(y, 0, allocator_height, width);
    y += allocator_height;
    layout_left_bottom(layout, y, top + body - y, width);
}

static void layout_right_column(struct layout *layout, int top, int body, int x, int width,
                                int more_table_panes)
{
    int chart_height = clamp(body * 9 / 20, LAYOUT_MIN_CHART_ROWS, body - 5);
    layout->chart = rect_make(top, x, chart_height, width);
    int y = top + chart_height;
    int rest = top + body - y;
    layout->table = rect_make(y, x, rest, width);
    if (more_table_panes <= 0)
        return;
    /* The table keeps its place above the others: they share the
     * second place as tabs rather than each getting too few rows. */
    if (rest >= 2 * STACKED_MIN_ROWS) {
        int hlo_height = rest * 2 / 5;
        layout->table.height = rest - hlo_height;
        layout->hlo = rect_make(y + rest - hlo_height, x, hlo_height, width);
        layout->second_tabbed = more_table_panes > 1;
    } else {
        layout->hlo = layout->table;
        layout->hlo_tabbed = true;
    }
}

void layout_compute(struct layout *layout, int rows, int cols, size_t host_count,
                    size_t allocator_count, int more_table_panes)
{
    layout_compute_with_runs(layout, rows, cols, 0, host_count, allocator_count,
                             more_table_panes);
}

void layout_compute_with_runs(struct layout *layout, int rows, int cols, size_t run_count,
                              size_t host_count, size_t allocator_count, int more_table_panes)
{
    memset(layout, 0, sizeof *layout);
    layout->rows = rows;
    layout->cols = cols;
    if (rows < LAYOUT_MIN_ROWS || cols < LAYOUT_MIN_COLS) {
        layout->too_small = true;
        return;
    }
    layout->header = rect_make(0, 0, 1, cols);
    layout->status = rect_make(rows - 1, 0, 1, cols);
    int top = 1, body = rows - 2;
    layout->body = rect_make(top, 0, body, cols);
    int left_width = clamp(cols / 3 + 2, 22, 36);
    layout_left_column(layout, top, body, left_width, run_count, host_count, allocator_count);
    layout->separator = rect_make(top, left_width, body, 1);
    layout_right_column(layout, top, body, left_width + 1, cols - left_width - 1,
                        more_table_panes);
}

void layout_share_breakdowns(struct layout *layout, int region_rows)
{
    struct rect *first = &layout->by_region, *second = &layout->by_data_type;
    if (rect_is_empty(first) || rect_is_empty(second))
        return;
    int total = first->height + second->height;
    first->height = clamp(region_rows, BREAKDOWN_MIN_ROWS, total - BREAKDOWN_MIN_ROWS);
    second->y = first->y + first->height;
    second->height = total - first->height;
}

void layout_drop_chart(struct layout *layout)
{
    if (rect_is_empty(&layout->chart))
        return;
    layout->table.y = layout->chart.y;
    layout->table.height += layout->chart.height;
    if (layout->hlo_tabbed)
        layout->hlo = layout->table;
    layout->chart = rect_make(0, 0, 0, 0);
}

void layout_drop_breakdowns(struct layout *layout)
{
    if (rect_is_empty(&layout->by_region))
        return;
    layout->summary.height += layout->by_region.height + layout->by_data_type.height;
    layout->by_region = layout->by_data_type = rect_make(0, 0, 0, 0);
}

void layout_keep_one_breakdown(struct layout *layout, bool keep_by_region)
{
    struct rect *first = &layout->by_region, *second = &layout->by_data_type;
    if (rect_is_empty(first) || rect_is_empty(second))
        return;
    struct rect both = rect_make(first->y, first->x, first->height + second->height, first->width);
    *first = keep_by_region ? both : rect_make(0, 0, 0, 0);
    *second = keep_by_region ? rect_make(0, 0, 0, 0) : both;
}

const struct rect *layout_place_rect(const struct layout *layout, enum layout_place place)
{
    switch (place) {
    case LAYOUT_PLACE_HOSTS: return &layout->hosts;
    case LAYOUT_PLACE_ALLOCATORS: return &layout->allocators;
    case LAYOUT_PLACE_SUMMARY: return &layout->summary;
    case LAYOUT_PLACE_BY_REGION: return &layout->by_region;
    case LAYOUT_PLACE_BY_DATA_TYPE: return &layout->by_data_type;
    case LAYOUT_PLACE_CHART: return &layout->chart;
    case LAYOUT_PLACE_TABLE: return &layout->table;
    case LAYOUT_PLACE_RUNS: return &layout->runs;
    case LAYOUT_PLACE_BODY: return &layout->body;
    default: return &layout->hlo;
    }
}

bool rect_is_empty(const struct rect *rect)
{
    return rect->height <= 0 || rect->width <= 0;
}

bool rect_contains(const struct rect *rect, int y, int x)
{
    return !rect_is_empty(rect) && y >= rect->y && y < rect->y + rect->height && x >= rect->x &&
           x < rect->x + rect->width;
}

bool rect_overlaps(const struct rect *a, const struct rect *b)
{
    if (rect_is_empty(a) || rect_is_empty(b))
        return false;
    return a->x < b->x + b->width && b->x < a->x + a->width && a->y < b->y + b->height &&
           b->y < a->y + a->height;
}
