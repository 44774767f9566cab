#include "config.h"

#include "ui/help_overlay.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "model/format.h"

#define HELP_MAX_WIDTH 80
#define KEY_COLUMN_WIDTH 12
/* The box's frame and margins: two cells each side. */
#define HELP_MARGIN 4

/* What the summary's fields mean, a sentence each, as the XProf page
 * says in its tooltips (the help's last section). ASCII only: the help
 * is drawn in --ascii too. */
static const char *const summary_fields[][2] = {
    {"Peak (stack+heap)",
     "the most memory in use at once within the profiling window (what the profiler "
     "recorded, not the whole job): the stack reservation plus the heap allocations at "
     "that moment."},
    {"of capacity",
     "the peak over the allocator's capacity; the rest is the headroom before an "
     "out-of-memory error."},
    {"at", "when the peak happened, in milliseconds from the start of the profile."},
    {"stack, heap",
     "the two parts of the peak: memory reserved for the stack (XLA's scratch space) and "
     "memory allocated on the heap (tensors)."},
    {"free", "memory the allocator held at the peak but had not handed out."},
    {"fragmentation",
     "how much of the free memory is in pieces too small for a large request: "
     "1 - (largest free block / free memory). Allocations can fail while memory is free "
     "when it is high."},
    {"Capacity", "all the memory the allocator manages (the device's, less what the "
                 "framework keeps back)."},
    {"Lifetime peak heap",
     "the most heap memory allocated at once since the allocator was created, which may "
     "be before the profiling window began: it can exceed the window's peak."},
    {"Allocations", "allocation and deallocation events in the window (of XProf's sample "
                    "of at most 1000 when the title says sampled)."},
    {"Snapshots", "the events on the chart's timeline."},
    {"Rows live at peak", "allocations live at the peak, as the allocations table lists "
                          "them."},
    {"derived", "in the title: the file had no summary, so memtop computed it from the "
                "timeline as XProf does."},
};
#define SUMMARY_FIELD_COUNT (sizeof summary_fields / sizeof *summary_fields)

/* What the chart draws, a sentence each. */
static const char *const chart_notes[] = {
    "The legend under the chart names each glyph: heap, stack (shaded), free memory, "
    "the capacity line, fragmentation dots and where the y-axis is cut.",
    "A column shows the largest memory in use of the events in its time; with many "
    "events the readout says \"largest of N\" and Enter lists them.",
    "An out-of-memory error the file records is marked on the plot's top row (its glyph "
    "in the legend); o goes there, and the OOM card says why the request failed: larger "
    "than all free memory, or fragmentation.",
};
#define CHART_NOTE_COUNT (sizeof chart_notes / sizeof *chart_notes)

/* One logical line of the help before it is wrapped: a heading, a key
 * and what it does, a field and what it means, or plain text. */
struct help_entry {
    bool heading;
    const char *label; /* the key column; NULL for text */
    const char *text;
};

static bool entry_set(struct help_entry *entry, bool heading, const char *label,
                      const char *text)
{
    entry->heading = heading;
    entry->label = label;
    entry->text = text;
    return true;
}

/* Entry `index`: the keys from the key table, scope by scope, then the
 * chart's notes and the summary's fields. false past the end. Blank
 * entries (text "") separate the sections. */
static bool help_entry(size_t index, struct help_entry *entry)
{
    size_t count;
    const struct key_binding *table = keys_table(&count);
    size_t at = 0;
    for (int scope = 0; scope < KEY_SCOPE_COUNT; scope++) {
        if (scope > 0 && at++ == index)
            return entry_set(entry, false, NULL, "");
        if (at++ == index)
            return entry_set(entry, true, NULL, keys_scope_name((enum key_scope)scope));
        for (size_t i = 0; i < count; i++)
            if ((int)table[i].scope == scope && at++ == index)
                return entry_set(entry, false, table[i].label, table[i].help);
    }
    static const char *const headings[] = {"The chart", "The summary"};
    for (int section = 0; section < 2; section++) {
        if (at++ == index)
            return entry_set(entry, false, NULL, "");
        if (at++ == index)
            return entry_set(entry, true, NULL, headings[section]);
        size_t items = section == 0 ? CHART_NOTE_COUNT : SUMMARY_FIELD_COUNT;
        if (index - at < items) {
            size_t item = index - at;
            return section == 0 ? entry_set(entry, false, NULL, chart_notes[item])
                                : entry_set(entry, false, summary_fields[item][0],
                                            summary_fields[item][1]);
        }
        at += items;
    }
    return false;
}

/* The end of the longest run of whole words of `text` that fits in
 * `width` cells (a word longer than the width is cut). */
static size_t help_fitting(const char *text, int width, const struct ui_style *style)
{
    size_t end = 0, last_space = 0;
    int cells = 0;
    while (text[end]) {
        uint32_t code_point;
        size_t length = format_utf8_decode(text + end, &code_point);
        if (length == 0)
            length = 1;
        char piece[8] = {0};
        memcpy(piece, text + end, length < sizeof piece ? length : sizeof piece - 1);
        int piece_cells = draw_text_width(piece, style);
        if (cells + piece_cells > width)
            return last_space ? last_space : end;
        if (text[end] == ' ')
            last_space = end;
        cells += piece_cells;
        end += length;
    }
    return end;
}

/* Wraps an entry to `width` cells: continuation lines indented under the
 * text, as a man page hangs its paragraphs. Calls `line` for each row
 * (when not NULL) and returns how many there are. */
static size_t help_wrap(const struct help_entry *entry, int width, const struct ui_style *style,
                        void (*line)(void *context, const struct help_entry *entry, bool first,
                                     const char *text, size_t length),
                        void *context)
{
    int indent = entry->label ? 2 + KEY_COLUMN_WIDTH + 1 : entry->heading ? 0 : 2;
    int room = width - indent;
    /* A label longer than its column starts the text on a row of its own. */
    bool label_alone = entry->label && (int)strlen(entry->label) > KEY_COLUMN_WIDTH;
    size_t rows = 0;
    if (label_alone) {
        if (line)
            line(context, entry, true, "", 0);
        rows++;
    }
    const char *text = entry->text;
    if (room < 8 || !text[0]) {
        if (line)
            line(context, entry, rows == 0, text, strlen(text));
        return rows + 1;
    }
    while (*text) {
        size_t length = help_fitting(text, room, style);
        if (length == 0)
            length = 1;
        if (line)
            line(context, entry, rows == 0, text, length);
        rows++;
        text += length;
        while (*text == ' ')
            text++;
    }
    return rows;
}

/* The width the help's text is wrapped to on a screen `cols` wide. */
static int help_text_width(int cols)
{
    int width = cols - 4 < HELP_MAX_WIDTH ? cols - 4 : HELP_MAX_WIDTH;
    return width - HELP_MARGIN;
}

static size_t help_line_count(int text_width, const struct ui_style *style)
{
    struct help_entry entry;
    size_t rows = 0;
    for (size_t i = 0; help_entry(i, &entry); i++)
        rows += help_wrap(&entry, text_width, style, NULL, NULL);
    return rows;
}

/* Draws the rows of the wrapped help from the overlay's scroll on. */
struct help_painter {
    WINDOW *window;
    const struct ui_style *style;
    int y, x, width;
    size_t row, first, visible; /* the row reached, the first shown, how many */
};

static void help_paint_line(void *context, const struct help_entry *entry, bool first,
                            const char *text, size_t length)
{
    struct help_painter *painter = context;
    size_t row = painter->row++;
    if (row < painter->first || row >= painter->first + painter->visible)
        return;
    int y = painter->y + (int)(row - painter->first);
    char piece[512];
    snprintf(piece, sizeof piece, "%.*s", (int)(length < sizeof piece ? length : sizeof piece - 1),
             text);
    WINDOW *window = painter->window;
    const struct ui_style *style = painter->style;
    if (entry->heading) {
        wattrset(window, style->title);
        draw_text(window, y, painter->x, painter->width, piece, style);
        return;
    }
    int indent = entry->label ? 2 + KEY_COLUMN_WIDTH + 1 : 2;
    if (entry->label && first) {
        wattrset(window, style->normal | A_BOLD);
        draw_text(window, y, painter->x + 2, painter->width - 2, entry->label, style);
    }
    wattrset(window, style->normal);
    draw_text(window, y, painter->x + indent, painter->width - indent, piece, style);
}

void help_overlay_draw(struct viewer *viewer, WINDOW *window, int rows, int cols)
{
    const struct ui_style *style = &viewer->style;
    int text_width = help_text_width(cols);
    size_t total = help_line_count(text_width, style);
    int width = text_width + HELP_MARGIN;
    int height = rows - 2;
    if ((size_t)height > total + 2)
        height = (int)total + 2;
    if (width < 20 || height < 5)
        return;
    int y = (rows - height) / 2, x = (cols - width) / 2;
    int visible = height - 2;
    list_cursor_fit_view(&viewer->help, total, visible);
    bool scrolls = total > (size_t)visible;

    wattrset(window, style->normal);
    draw_box(window, y, x, height, width, style);
    wattrset(window, style->title);
    draw_text(window, y, x + 2, width - 4, " memtop keys ", style);
    wattrset(window, style->dim);
    char footer[64];
    snprintf(footer, sizeof footer, " / search  %s  Esc close ", scrolls ? "j/k scroll" : "");
    draw_text_right(window, y + height - 1, x + 2, width - 4, footer, style);
    struct help_painter painter = {window, style, y + 1, x + 2, text_width, 0, viewer->help.top,
                                   (size_t)visible};
    struct help_entry entry;
    for (size_t i = 0; help_entry(i, &entry) && painter.row < painter.first + painter.visible; i++)
        help_wrap(&entry, text_width, style, help_paint_line, &painter);
    wattrset(window, style->normal);
}

static char fold(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Whether `text` holds `wanted`, ASCII letters in any case. */
static bool holds(const char *text, const char *wanted)
{
    size_t length = strlen(wanted);
    for (; text && *text; text++) {
        size_t i = 0;
        while (i < length && text[i] && fold(text[i]) == fold(wanted[i]))
            i++;
        if (i == length)
            return true;
    }
    return false;
}

/* The first row of the entry that is the scope heading `heading`; or,
 * heading NULL, of the first entry holding `wanted` from row `from` on
 * (direction 1), or the last before it (-1), round the end; false when
 * there is none. */
static bool help_find_row(const struct viewer *viewer, const char *heading, const char *wanted,
                          size_t from, int direction, size_t *found)
{
    int width = help_text_width(viewer->layout.cols);
    struct help_entry entry;
    size_t row = 0, first = SIZE_MAX, last = SIZE_MAX, before = SIZE_MAX, next = SIZE_MAX;
    for (size_t i = 0; help_entry(i, &entry); i++) {
        bool match = heading ? entry.heading && strcmp(entry.text, heading) == 0
                             : holds(entry.label, wanted) || holds(entry.text, wanted);
        if (match) {
            if (first == SIZE_MAX)
                first = row;
            last = row;
            if (row >= from && next == SIZE_MAX)
                next = row;
            if (row < from)
                before = row;
        }
        row += help_wrap(&entry, width, &viewer->style, NULL, NULL);
    }
    if (first == SIZE_MAX)
        return false;
    if (heading)
        *found = first;
    else if (direction > 0)
        *found = next != SIZE_MAX ? next : first;
    else
        *found = before != SIZE_MAX ? before : last;
    return true;
}

void help_overlay_open(struct viewer *viewer)
{
    viewer->overlay = OVERLAY_HELP;
    memset(&viewer->help, 0, sizeof viewer->help);
    const struct pane *focused = viewer->focus < PANE_COUNT ? viewer->panes[viewer->focus] : NULL;
    size_t row;
    if (focused && focused->ops->scope != KEY_SCOPE_GLOBAL &&
        help_find_row(viewer, keys_scope_name(focused->ops->scope), NULL, 0, 1, &row))
        viewer->help.top = row;
}

/* The help scrolled to the entry holding `wanted` from row `from`. */
static void help_search_go(struct viewer *viewer, const char *wanted, size_t from, int direction)
{
    size_t row;
    if (!wanted[0])
        return;
    if (help_find_row(viewer, NULL, wanted, from, direction, &row))
        viewer->help.top = row;
    else
        viewer_status(viewer, true, "the help does not say '%s'", wanted);
}

static void help_search_changed(struct viewer *viewer, const char *text)
{
    viewer->help.top = viewer->help_search_origin;
    help_search_go(viewer, text, viewer->help_search_origin, 1);
}

static void help_search_accepted(struct viewer *viewer, const char *text)
{
    snprintf(viewer->help_search, sizeof viewer->help_search, "%s", text);
}

static void help_search_cancelled(struct viewer *viewer, const char *text)
{
    (void)text;
    viewer->help.top = viewer->help_search_origin;
}

void help_overlay_handle(struct viewer *viewer, enum request request)
{
    size_t total = help_line_count(help_text_width(viewer->layout.cols), &viewer->style);
    if (list_cursor_scroll(&viewer->help, total, request))
        return;
    switch (request) {
    case REQUEST_FILTER:
        viewer->help_search_origin = viewer->help.top;
        viewer_prompt_begin(viewer, "search the help:", "", help_search_changed,
                            help_search_accepted, help_search_cancelled);
        break;
    case REQUEST_MATCH_NEXT:
    case REQUEST_MATCH_PREVIOUS:
        if (request == REQUEST_MATCH_NEXT)
            help_search_go(viewer, viewer->help_search, viewer->help.top + 1, 1);
        else
            help_search_go(viewer, viewer->help_search, viewer->help.top, -1);
        break;
    case REQUEST_REDRAW: viewer->redraw_all = true; break;
    case REQUEST_QUIT:
    case REQUEST_CANCEL:
    case REQUEST_HELP:
    case REQUEST_ENTER: viewer->overlay = OVERLAY_NONE; break;
    default: break;
    }
}
