#include "config.h"

#include "ui/panes/summary_pane.h"

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
    unsigned field; /* enum allocator_field: left out when the format lacks it */
};

/* The reference viewer's card, the window peak first: it is what people
 * come for, and what stays visible when the column is short. Its label
 * names the stack only where the format records one (field_label). */
static const struct summary_field fields[] = {
    {"Peak (stack+heap)", "Peak usage", FIELD_BYTES, true, 0},
    {"  of capacity", "  of cap.", FIELD_PERCENT, true, ALLOCATOR_FIELD_CAPACITY},
    {"  at", "  at", FIELD_TIME, true, 0},
    {"  stack", "  stack", FIELD_BYTES, false, ALLOCATOR_FIELD_STACK},
    {"  heap", "  heap", FIELD_BYTES, false, 0},
    {"  free", "  free", FIELD_BYTES, false, ALLOCATOR_FIELD_FREE},
    {"  fragmentation", "  frag.", FIELD_PERCENT, false, ALLOCATOR_FIELD_FRAGMENTATION},
    {"Capacity", "Capacity", FIELD_BYTES, false, ALLOCATOR_FIELD_CAPACITY},
    {"Lifetime peak heap", "Lifetime peak", FIELD_BYTES, false, 0},
    {"Allocations", "Allocs", FIELD_COUNT, false, 0},
    {"Deallocations", "Deallocs", FIELD_COUNT, false, 0},
    {"Snapshots", "Snapshots", FIELD_COUNT, false, 0},
    {"Rows live at peak", "Rows at peak", FIELD_COUNT, false, 0},
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

/* An allocator without a timeline (a Skyline report): the peak, what
 * the report says it was made of, its entries; no time, no counts. */
static const struct summary_field report_fields[] = {
    {"Peak (allocated)", "Peak usage", FIELD_BYTES, true, 0},
    {"  weights", "  weights", FIELD_BYTES, false, 0},
    {"  gradients", "  gradients", FIELD_BYTES, false, 0},
    {"  activations", "  activations", FIELD_BYTES, false, 0},
    {"  untracked", "  untracked", FIELD_BYTES, false, 0},
    {"Capacity", "Capacity", FIELD_BYTES, false, 0},
    {"Entries", "Entries", FIELD_COUNT, false, 0},
    {"Rows (with gradients)", "Rows", FIELD_COUNT, false, 0},
};
#define REPORT_FIELD_TOTAL (sizeof report_fields / sizeof *report_fields)

static void format_report_field(const struct allocator *allocator, size_t index, char *value,
                                size_t size)
{
    const struct allocator_summary *summary = &allocator->summary;
    const struct tracked_memory *tracked = &summary->tracked;
    switch (index) {
    case 0: format_bytes(summary->peak_bytes, value, size); break;
    case 1: format_bytes(tracked->weights_bytes, value, size); break;
    case 2: format_bytes(tracked->gradients_bytes, value, size); break;
    case 3: format_bytes(tracked->activations_bytes, value, size); break;
    case 4: format_bytes(tracked->untracked_bytes, value, size); break;
    case 5:
        if (summary->capacity_bytes > 0)
            format_bytes(summary->capacity_bytes, value, size);
        else
            snprintf(value, size, "unknown");
        break;
    case 6: snprintf(value, size, "%zu", tracked->entries); break;
    default: snprintf(value, size, "%zu", allocator->row_count); break;
    }
}

/* The fields of a card and how their values are written. */
struct summary_card {
    const struct summary_field *fields;
    size_t count;
    void (*format)(const struct allocator *allocator, size_t index, char *value, size_t size);
};

static const struct summary_card timeline_card = {fields, FIELD_TOTAL, format_field};
static const struct summary_card report_card = {report_fields, REPORT_FIELD_TOTAL,
                                                format_report_field};

/* A report's card for an allocator without a timeline whose kinds are
 * known; the reference viewer's for the others. */
static const struct summary_card *summary_card_for(const struct allocator *allocator)
{
    bool report = allocator->timeline_kind == TIMELINE_NONE && allocator->summary.tracked.known;
    return report ? &report_card : &timeline_card;
}

/* The fields a report without a timeline (an OOM log) has no value for:
 * the peak's time and the timeline's counts. */
static bool field_is_timed(size_t index)
{
    return index == 2 || index == 9 || index == 10 || index == 11;
}

/* The peak is stack + heap; a format without a stack (a trace) has the
 * heap alone, and the label says no more than the file does. */
static const char *field_label(const struct summary_field *field, const struct allocator *allocator)
{
    if (field == &fields[0] && !allocator_records(allocator, ALLOCATOR_FIELD_STACK))
        return allocator_word(allocator, ALLOCATOR_WORD_PEAK);
    if (!allocator->caching)
        return field->label;
    /* PyTorch's caching allocator, in its users' words (allocator_word). */
    if (field == &fields[4])
        return "  allocated";
    if (field == &fields[5])
        return "  reserved but free";
    if (field == &fields[8])
        return allocator_word(allocator, ALLOCATOR_WORD_LIFETIME_PEAK);
    return field->label;
}

/* In a narrow column: the short label, in the allocator's words too. */
static const char *field_short_label(const struct summary_field *field,
                                     const struct allocator *allocator)
{
    if (allocator->caching && field == &fields[4])
        return "  alloc.";
    if (allocator->caching && field == &fields[5])
        return "  rsv. free";
    return field->short_label;
}

static void draw_field(struct viewer *viewer, WINDOW *window, int y, int x, int width,
                       const struct allocator *allocator, size_t index)
{
    const struct ui_style *style = &viewer->style;
    const struct summary_card *card = summary_card_for(allocator);
    const struct summary_field *field = &card->fields[index];
    char value[64];
    card->format(allocator, index, value, sizeof value);
    int value_width = draw_text_width(value, style);
    /* The label depends on the width only, not the value, so it does not
     * change from one allocator to the next. */
    const char *label = field_label(field, allocator);
    size_t longest = strlen(field->label) > strlen(label) ? strlen(field->label) : strlen(label);
    if ((int)longest + 1 + WIDEST_VALUE > width)
        label = field_short_label(field, allocator);
    wattrset(window, style->dim);
    draw_text(window, y, x, width - value_width - 1, label, style);
    wattrset(window, field->is_peak ? style->peak : style->normal);
    draw_text_right(window, y, x, width, value, style);
    wattrset(window, style->normal);
}

static void draw_pair(struct viewer *viewer, WINDOW *window, int y, int x, int width,
                      const char *label, const char *value)
{
    const struct ui_style *style = &viewer->style;
    int value_width = draw_text_width(value, style);
    wattrset(window, style->dim);
    draw_text(window, y, x, width - value_width - 1, label, style);
    wattrset(window, style->normal);
    draw_text_right(window, y, x, width, value, style);
}

/* Where a trace that may begin late begins (a PyTorch memory snapshot's
 * ring buffer), and what was live then: the lines after the card. */
static int draw_trace_start(struct viewer *viewer, WINDOW *window, int y, int x, int width,
                            int lines, const struct trace_start *start)
{
    char value[48];
    int line = 0;
    if (!start->known || lines <= 0)
        return 0;
    if (start->times_are_entries)
        snprintf(value, sizeof value, "%zu entries", start->entries);
    else
        format_milliseconds(start->covered_ps, value, sizeof value);
    draw_pair(viewer, window, y + line++, x, width, "Trace covers", value);
    if (line < lines) {
        format_bytes(start->live_bytes, value, sizeof value);
        draw_pair(viewer, window, y + line++, x, width, "Live at its start", value);
    }
    if (line < lines) {
        snprintf(value, sizeof value, "%zu", start->live_count);
        draw_pair(viewer, window, y + line++, x, width, "  allocations", value);
    }
    return line;
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
    const struct summary_card *card = summary_card_for(allocator);
    int line = 1;
    for (size_t i = 0; i < card->count && line < height; i++)
        if ((!card->fields[i].field || allocator_records(allocator, card->fields[i].field)) &&
            !(card == &timeline_card && allocator->timeline_kind == TIMELINE_NONE &&
              field_is_timed(i)))
            draw_field(viewer, window, y + line++, x + 1, width - 1, allocator, i);
    draw_trace_start(viewer, window, y + line, x + 1, width - 1, height - line,
                     &allocator->summary.trace_start);
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
