#include "config.h"

#include "ui/panes/table/row_detail.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/format.h"
#include "model/stack_text.h"

#define DETAIL_MAX_WIDTH 100
#define DETAIL_LABEL_WIDTH 12
#define DETAIL_MAX_FRAMES 64
#define DETAIL_BUFFER_SIZE 320

/* Lines of a detail value: text made safe, then cut into pieces of at
 * most `width` cells. Returns the number of lines; writes them when
 * draw is set. */
static int detail_value(const struct ui_style *style, WINDOW *window, int y, int x, int width,
                        int max_lines, struct text text, bool draw)
{
    char safe[2048];
    format_safe_bytes(text, style->utf8 ? 0 : FORMAT_SAFE_ASCII, safe, sizeof safe);
    if (width <= 0)
        return 1;
    const char *cursor = safe;
    int lines = 0;
    do {
        char line[2048];
        size_t used = 0;
        int cells = 0;
        while (*cursor) {
            uint32_t code_point;
            size_t length = format_utf8_decode(cursor, &code_point);
            if (length == 0)
                length = 1;
            char piece[8] = {0};
            memcpy(piece, cursor, length);
            int piece_cells = draw_text_width(piece, style);
            if (cells + piece_cells > width && cells > 0)
                break;
            memcpy(line + used, cursor, length);
            used += length;
            cells += piece_cells;
            cursor += length;
        }
        line[used] = '\0';
        if (draw && lines < max_lines)
            draw_text(window, y + lines, x, width, line, style);
        lines++;
    } while (*cursor);
    return lines;
}

struct detail_field {
    const char *label;
    struct text value; /* the profile's bytes, or ours */
};

/* ---- an entry of a report (Skyline): kind, location, the stack ---- */

/* "4.00 KiB (4096 bytes)", and for a size <= 0 why it is not counted. */
static const char *detail_entry_size(const struct allocation_row *row, char *buffer, size_t size)
{
    char bytes[FORMAT_BYTES_SIZE];
    snprintf(buffer, size, "%s (%lld bytes)%s", format_bytes(row->allocation_bytes, bytes,
                                                              sizeof bytes),
             (long long)row->allocation_bytes,
             !allocation_row_is_uncounted(row) ? ""
             : row->allocation_bytes == 0
                 ? "; not counted: a view, sharing its input's memory"
                 : "; not counted: memory grew when it was released (an in-place op)");
    return buffer;
}

/* The fields of a report's entry; the stack is split at its newlines,
 * one field per frame (each a view into the profile's string). */
static size_t detail_entry_fields(const struct allocation_table *rows,
                                  const struct allocation_row *row, struct detail_field *fields,
                                  size_t room, char (*buffers)[DETAIL_BUFFER_SIZE],
                                  struct stack_text *drawn)
{
    const struct profile *profile = rows->profile;
    size_t n = 0;
    fields[n++] = (struct detail_field){"Name", profile_string(profile, row->op_name)};
    fields[n++] = (struct detail_field){"Kind", profile_string(profile, row->kind)};
    fields[n++] = (struct detail_field){
        "Size", text_of(detail_entry_size(row, buffers[0], sizeof buffers[0]))};
    struct text location = profile_string(profile, row->location);
    fields[n++] = (struct detail_field){
        "Location", location.length ? location : text_of("no frame in the user's code")};
    struct text stack = stack_text_draw(profile, row->stack, drawn);
    size_t first_frame = n;
    for (size_t at = 0; at < stack.length && n < room; n++) {
        const char *end = memchr(stack.bytes + at, '\n', stack.length - at);
        size_t length = end ? (size_t)(end - stack.bytes) - at : stack.length - at;
        fields[n] = (struct detail_field){n == first_frame ? "Stack" : "",
                                          text_make(stack.bytes + at, length)};
        at += length + (end != NULL);
    }
    fields[n++] =
        (struct detail_field){"Origin", text_of("an entry of a report without a timeline")};
    return n;
}

/* ---- a row of a profile with a timeline (XProf) ---- */

/* A special row said in words (issue 22); NULL for the others. */
static const char *special_row_words(const struct allocation_table *rows,
                                     const struct allocation_row *row)
{
    if (row->origin != ROW_FROM_SPECIAL)
        return NULL;
    struct text name = profile_string(rows->profile, row->op_name);
    if (text_equal(name, text_of("allocated before the profile")))
        return "memory held when the profile began (weights, optimizer state, workspace): "
               "start profiling earlier, or take a snapshot, to see who";
    if (text_equal(name, text_of("unused preallocated device memory")))
        return "XProf's row for everything allocated before the peak's step (X: the "
               "allocations live at the peak instead)";
    if (text_equal(name, text_of("stack")))
        return "the allocator's stack reservation at the peak";
    return NULL;
}

/* Where in the code the row was made (issue 22): the module, the user's
 * line and the stack, one frame a line (a stack kept as frames made
 * into text in `drawn`, which the fields then point into); returns how
 * many fields. */
static size_t detail_place(const struct profile *profile, const struct allocation_row *row,
                           struct detail_field *fields, size_t room, struct stack_text *drawn)
{
    size_t n = 0;
    struct text module = profile_string(profile, row->module);
    if (module.length > 0 && n < room)
        fields[n++] = (struct detail_field){"Module", module};
    struct text location = profile_string(profile, row->location);
    if (location.length > 0 && n < room)
        fields[n++] = (struct detail_field){"Location", location};
    struct text stack = stack_text_draw(profile, row->stack, drawn);
    size_t first_frame = n;
    for (size_t at = 0; at < stack.length && n < room; n++) {
        const char *end = memchr(stack.bytes + at, '\n', stack.length - at);
        size_t length = end ? (size_t)(end - stack.bytes) - at : stack.length - at;
        fields[n] = (struct detail_field){n == first_frame ? "Stack" : "",
                                          text_make(stack.bytes + at, length)};
        at += length + 1;
    }
    return n;
}

static size_t detail_fields(const struct allocation_table *rows, const struct allocation_row *row,
                            struct detail_field *fields, size_t room,
                            char (*buffers)[DETAIL_BUFFER_SIZE], struct stack_text *drawn)
{
    const struct profile *profile = rows->profile;
    size_t n = 0;
    char bytes[FORMAT_BYTES_SIZE];
    fields[n++] = (struct detail_field){
        "Op name", allocation_table_op_name(rows, row, buffers[0], sizeof buffers[0])};
    snprintf(buffers[1], sizeof buffers[1], "%s (%lld bytes)",
             format_bytes(row->allocation_bytes, bytes, sizeof bytes),
             (long long)row->allocation_bytes);
    fields[n++] = (struct detail_field){"Size", text_of(buffers[1])};
    snprintf(buffers[2], sizeof buffers[2], "%s (%lld bytes)",
             format_bytes(row->requested_bytes, bytes, sizeof bytes),
             (long long)row->requested_bytes);
    fields[n++] = (struct detail_field){"Requested", text_of(buffers[2])};
    /* The allocator's own block, where the file knows it (a PyTorch
     * snapshot's rounded block): what the caching allocator holds for it. */
    if (row->block_bytes > 0) {
        snprintf(buffers[8], sizeof buffers[8], "%s (%lld bytes), the allocator's rounded block",
                 format_bytes(row->block_bytes, bytes, sizeof bytes),
                 (long long)row->block_bytes);
        fields[n++] = (struct detail_field){"Block", text_of(buffers[8])};
    }
    /* What the row holds, and of the peak: "2, in all 96.00 MiB, 1.3 % of the peak". */
    char total[FORMAT_BYTES_SIZE], share[48] = "";
    int64_t peak = rows->allocator ? rows->allocator->summary.peak_bytes : 0;
    if (peak > 0)
        snprintf(share, sizeof share, ", %.1f %% of the peak",
                 (double)allocation_row_bytes(row) / (double)peak * 100.0);
    snprintf(buffers[3], sizeof buffers[3], "%lld, in all %s%s", (long long)row->occurrences,
             format_bytes(allocation_row_bytes(row), total, sizeof total), share);
    fields[n++] = (struct detail_field){"Count", text_of(buffers[3])};
    const char *words = special_row_words(rows, row);
    if (words)
        fields[n++] = (struct detail_field){"What", text_of(words)};
    /* Only what the file records: no empty fields, no XProf placeholders
     * on the special rows (INVALID, unknown, address 0). */
    const struct detail_field recorded[] = {
        {"Region", profile_string(profile, row->region_type)},
        {"Data type", profile_string(profile, row->data_type)},
        {"Shape", profile_string(profile, row->tensor_shape)},
    };
    for (size_t i = 0; i < sizeof recorded / sizeof recorded[0]; i++)
        if (recorded[i].value.length > 0 && !(words && i > 0))
            fields[n++] = recorded[i];
    fields[n++] = (struct detail_field){"Activity", text_of(memory_activity_label(row->activity))};
    snprintf(buffers[4], sizeof buffers[4], "0x%llx", (unsigned long long)row->address);
    if (row->origin != ROW_FROM_SPECIAL || row->address != 0)
        fields[n++] = (struct detail_field){"Address", text_of(buffers[4])};
    if (row->step_id >= 0)
        snprintf(buffers[5], sizeof buffers[5], "%lld", (long long)row->step_id);
    else
        snprintf(buffers[5], sizeof buffers[5], "none");
    fields[n++] = (struct detail_field){"Step", text_of(buffers[5])};
    /* An allocation live when the timeline began (struct allocator's
     * initial: a special row with an address, a PyTorch snapshot's
     * `<before the trace>`) is said so rather than as a special row. */
    bool initial = row->origin == ROW_FROM_SPECIAL && row->address != 0 && !row->has_time;
    if (row->has_time) {
        format_milliseconds(row->time_ps, buffers[6], sizeof buffers[6]);
    } else {
        snprintf(buffers[6], sizeof buffers[6], "%s",
                 initial ? "before the timeline (live when it began)" : "not on the timeline");
    }
    fields[n++] = (struct detail_field){"Time", text_of(buffers[6])};
    switch (row->origin) {
    case ROW_FROM_SNAPSHOT:
        snprintf(buffers[7], sizeof buffers[7], "snapshot %lld", (long long)row->snapshot_index);
        break;
    case ROW_FROM_SPECIAL:
        snprintf(buffers[7], sizeof buffers[7],
                 initial ? "allocation %lld of those live when the timeline began"
                         : "special allocation %lld",
                 (long long)row->special_index);
        break;
    default:
        snprintf(buffers[7], sizeof buffers[7],
                 "unresolved (snapshot index %lld, special index %lld): %s",
                 (long long)row->snapshot_index, (long long)row->special_index,
                 ALLOCATION_TABLE_UNRESOLVED_NOTE + strlen("unresolved: "));
        break;
    }
    fields[n++] = (struct detail_field){"Origin", text_of(buffers[7])};
    /* Where it happened, for formats that say (the enclosing ops). */
    struct text context = profile_string(profile, row->context);
    if (context.length > 0)
        fields[n++] = (struct detail_field){"Context", context};
    return n + detail_place(profile, row, fields + n, room - n, drawn);
}

bool row_detail_draw(WINDOW *window, int height, int width, const struct ui_style *style,
                     const struct allocation_table *rows, size_t position)
{
    const struct allocation_row *row = allocation_table_row(rows, position);
    if (!row)
        return false;
    int box_width = width - 4 < DETAIL_MAX_WIDTH ? width - 4 : DETAIL_MAX_WIDTH;
    if (box_width < 30 || height < 7)
        return true;
    int value_x = 2 + DETAIL_LABEL_WIDTH + 1;
    int value_width = box_width - value_x - 2;
    /* A stack longer than the screen is cut by the box anyway. */
    struct detail_field fields[16 + DETAIL_MAX_FRAMES];
    char buffers[9][DETAIL_BUFFER_SIZE];
    struct stack_text drawn = {0}; /* the stack's text, while the fields are drawn */
    size_t count =
        row->origin == ROW_FROM_ENTRY
            ? detail_entry_fields(rows, row, fields, 15 + DETAIL_MAX_FRAMES, buffers, &drawn)
            : detail_fields(rows, row, fields, 15 + DETAIL_MAX_FRAMES, buffers, &drawn);
    int needed = 0;
    for (size_t i = 0; i < count; i++)
        needed += detail_value(style, window, 0, 0, value_width, 0, fields[i].value, false);
    int box_height = needed + 2 < height - 2 ? needed + 2 : height - 2;
    int top = (height - box_height) / 2, left = (width - box_width) / 2;

    wattrset(window, style->normal);
    draw_box(window, top, left, box_height, box_width, style);
    char title[64];
    snprintf(title, sizeof title, " Allocation %zu of %zu ", position + 1, rows->count);
    wattrset(window, style->title);
    draw_text(window, top, left + 2, box_width - 4, title, style);
    wattrset(window, style->dim);
    draw_text_right(window, top + box_height - 1, left + 2, box_width - 4,
                    " j/k previous/next  Esc close ", style);
    int y = top + 1, last = top + box_height - 1;
    for (size_t i = 0; i < count && y < last; i++) {
        wattrset(window, style->dim);
        draw_text(window, y, left + 2, DETAIL_LABEL_WIDTH, fields[i].label, style);
        wattrset(window, i == 0 ? style->normal | A_BOLD : style->normal);
        y += detail_value(style, window, y, left + value_x, value_width, last - y,
                          fields[i].value, true);
    }
    wattrset(window, style->normal);
    stack_text_free(&drawn);
    return true;
}

