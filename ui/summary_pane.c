#include "config.h"

#include "ui/summary_pane.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/format.h"
#include "report/summary_report.h"
#include "ui/viewer.h"

enum field_kind { FIELD_BYTES, FIELD_TIME, FIELD_PERCENT, FIELD_COUNT };

struct summary_field {
    const char *label;       /* when it fits */
    const char *short_label; /* in a narrow column */
    enum field_kind kind;
    bool is_peak; /* drawn in the peak style */
};

/* The reference viewer's card, the window peak first: it is what people
 * come for, and what stays visible when the column is short. */
static const struct summary_field fields[] = {
    {"Peak (stack+heap)", "Peak usage", FIELD_BYTES, true},
    {"  of capacity", "  of cap.", FIELD_PERCENT, true},
    {"  at", "  at", FIELD_TIME, true},
    {"  stack", "  stack", FIELD_BYTES, false},
    {"  heap", "  heap", FIELD_BYTES, false},
    {"  free", "  free", FIELD_BYTES, false},
    {"  fragmentation", "  frag.", FIELD_PERCENT, false},
    {"Capacity", "Capacity", FIELD_BYTES, false},
    {"Lifetime peak heap", "Lifetime peak", FIELD_BYTES, false},
    {"Allocations", "Allocs", FIELD_COUNT, false},
    {"Deallocations", "Deallocs", FIELD_COUNT, false},
    {"Snapshots", "Snapshots", FIELD_COUNT, false},
    {"Rows live at peak", "Rows at peak", FIELD_COUNT, false},
};
#define FIELD_TOTAL (sizeof fields / sizeof *fields)
/* "1023.99 GiB", "12345.678 ms": the widest values people see. */
#define WIDEST_VALUE 11

static void format_field(const struct allocator *allocator, size_t index, char *value,
                         size_t size)
{
    const struct allocator_summary *summary = &allocator->summary;
    const struct memory_stats *peak = &summary->peak;
    double utilization = summary_report_utilization(summary);
    switch (index) {
    case 0: format_bytes(summary->peak_bytes, value, size); break;
    case 1:
        if (isnan(utilization))
            snprintf(value, size, "unknown");
        else
            format_percent(utilization, value, size);
        break;
    case 2: format_milliseconds(summary->peak_time_ps, value, size); break;
    case 3: format_bytes(peak->stack_bytes, value, size); break;
    case 4: format_bytes(peak->heap_bytes, value, size); break;
    case 5: format_bytes(peak->free_bytes, value, size); break;
    case 6: format_percent(peak->fragmentation, value, size); break;
    case 7: format_bytes(summary->capacity_bytes, value, size); break;
    case 8: format_bytes(summary->lifetime_peak_bytes, value, size); break;
    case 9: snprintf(value, size, "%zu", summary->allocations); break;
    case 10: snprintf(value, size, "%zu", summary->deallocations); break;
    case 11: snprintf(value, size, "%zu", allocator->timeline.count); break;
    default: snprintf(value, size, "%zu", allocator->row_count); break;
    }
}

static void draw_field(struct viewer *viewer, WINDOW *window, int y, int x, int width,
                       const struct allocator *allocator, size_t index)
{
    const struct ui_style *style = &viewer->style;
    char value[64];
    format_field(allocator, index, value, sizeof value);
    int value_width = draw_text_width(value, style);
    /* The label depends on the width only, not the value, so it does not
     * change from one allocator to the next. */
    const char *label = fields[index].label;
    if ((int)strlen(label) + 1 + WIDEST_VALUE > width)
        label = fields[index].short_label;
    wattrset(window, style->dim);
    draw_text(window, y, x, width - value_width - 1, label, style);
    wattrset(window, fields[index].is_peak ? style->peak : style->normal);
    draw_text_right(window, y, x, width, value, style);
    wattrset(window, style->normal);
}

static void summary_draw(struct pane *pane, struct viewer *viewer, const struct pane_area *area)
{
    (void)pane;
    WINDOW *window = area->window;
    int y = area->rect.y, x = area->rect.x, height = area->rect.height, width = area->rect.width;
    const struct ui_style *style = &viewer->style;
    const struct allocator *allocator = viewer->allocator;
    bool derived = allocator && allocator->summary.derived;
    bool sampled = allocator && allocator->timeline_sampled;
    /* A summary memtop computed is marked (the file did not have one), and
     * so is a sampled timeline, whose allocation counts are the sample's. */
    const char *title = derived && sampled ? "Summary (derived, sampled)"
                        : derived          ? "Summary (derived)"
                        : sampled          ? "Summary (sampled)"
                                           : "Summary";
    draw_pane_title(window, y, x, width, title, false, style);
    if (!allocator)
        return;
    for (size_t i = 0; i < FIELD_TOTAL && (int)i + 1 < height; i++)
        draw_field(viewer, window, y + 1 + (int)i, x + 1, width - 1, allocator, i);
}

static const struct pane_ops summary_ops = {
    .draw = summary_draw,
    .free = pane_free_plain,
    .scope = KEY_SCOPE_GLOBAL,
};

struct pane *summary_pane_create(struct viewer *viewer)
{
    (void)viewer;
    return pane_create(&summary_ops, sizeof(struct pane));
}
