/* oom_log: the format row of out-of-memory logs, the probe, and the load:
 * the log's lines, the reports among them, the last one opened (see
 * oom_log_internal.h). */
#include "config.h"

#include "model/formats/oom_log/oom_log_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/util/array_grow.h"
#include "model/format.h"
#include "model/input_format.h"

/* What starts a report, by kind (any of them, anywhere in a line body). */
static const struct {
    const char *marker;
    enum oom_log_kind kind;
} report_markers[] = {
    {"Out of memory while trying to allocate ", OOM_LOG_XLA},
    {"Failed to allocate request for ", OOM_LOG_XLA},
    {"BufferAssignment OOM Debugging", OOM_LOG_XLA},
    {") ran out of memory trying to allocate ", OOM_LOG_BFC},
    {"BFCAllocator dump for ", OOM_LOG_BFC},
    {"CUDA out of memory. Tried to allocate ", OOM_LOG_TORCH},
};
#define REPORT_MARKER_COUNT (sizeof report_markers / sizeof *report_markers)

bool oom_log_starts_report(struct text body, enum oom_log_kind *kind)
{
    for (size_t i = 0; i < REPORT_MARKER_COUNT; i++) {
        if (oom_log_find(body, report_markers[i].marker) >= 0) {
            *kind = report_markers[i].kind;
            return true;
        }
    }
    return false;
}

const char *oom_log_kind_name(enum oom_log_kind kind)
{
    switch (kind) {
    case OOM_LOG_XLA: return "XLA buffer assignment report";
    case OOM_LOG_BFC: return "BFC allocator dump";
    default: return "PyTorch out-of-memory message";
    }
}

/* ---- report lists ---- */

void oom_log_reports_free(struct oom_log_reports *reports)
{
    for (size_t i = 0; i < reports->count; i++) {
        struct oom_log_report *report = &reports->list[i];
        free(report->buffers);
        free(report->chunks);
        free(report->notes);
        free(report->walk);
    }
    free(reports->list);
    memset(reports, 0, sizeof *reports);
}

struct oom_log_report *oom_log_report_start(struct oom_log_reports *reports,
                                            enum oom_log_kind kind, size_t number)
{
    if (!array_grow((void **)&reports->list, &reports->capacity, reports->count,
                    sizeof *reports->list, 4))
        return NULL;
    struct oom_log_report *report = &reports->list[reports->count++];
    *report = (struct oom_log_report){
        .kind = kind,
        .first_line = number,
        .requested = -1,
        .allocated = -1,
        .reserved = -1,
        .device_free = -1,
        .largest_free = -1,
        .capacity = -1,
        .lifetime_peak = -1,
        .total = -1,
    };
    return report;
}

#define LIST_ADD(report, name, count, capacity, value)                                      \
    ((report)->count >= OOM_LOG_MAX_ITEMS ||                                                \
     (array_grow((void **)&(report)->name, &(report)->capacity, (report)->count,           \
                 sizeof *(report)->name, 16) &&                                             \
      ((report)->name[(report)->count++] = *(value), true)))

bool oom_log_add_buffer(struct oom_log_report *report, const struct oom_log_buffer *buffer)
{
    return LIST_ADD(report, buffers, buffer_count, buffer_capacity, buffer);
}

bool oom_log_add_chunks(struct oom_log_report *report, const struct oom_log_chunks *chunks)
{
    return LIST_ADD(report, chunks, chunks_count, chunks_capacity, chunks);
}

bool oom_log_add_note(struct oom_log_report *report, struct string_table *strings,
                      struct text label, struct text value)
{
    struct oom_log_note note = {string_table_intern(strings, label.bytes, label.length),
                                string_table_intern(strings, value.bytes, value.length)};
    if (note.label == STRING_ID_NONE || note.value == STRING_ID_NONE)
        return false;
    return LIST_ADD(report, notes, note_count, note_capacity, &note);
}

bool oom_log_add_walk(struct oom_log_report *report, const struct oom_log_chunk *chunk)
{
    return LIST_ADD(report, walk, walk_count, walk_capacity, chunk);
}

/* ---- the probe ---- */

/* Text, not JSON (a trace may quote these words) nor binary. */
static unsigned oom_log_probe(const uint8_t *bytes, size_t size)
{
    size_t at = 0;
    while (at < size && (bytes[at] == ' ' || bytes[at] == '\t' || bytes[at] == '\r' ||
                         bytes[at] == '\n'))
        at++;
    if (at >= size || bytes[at] == '{')
        return PROBE_NO;
    if (bytes[at] == '[') { /* a JSON array of events, or a log line's "[2024-..." */
        size_t next = at + 1;
        while (next < size && (bytes[next] == ' ' || bytes[next] == '\n' || bytes[next] == '\r' ||
                               bytes[next] == '\t'))
            next++;
        if (next >= size || bytes[next] == '{' || bytes[next] == ']')
            return PROBE_NO;
    }
    /* A log is text: a control byte in its head other than the blanks, a
     * backspace or a terminal's escape (coloured logs) says binary (a
     * protobuf's tags and lengths), so a profile of any size is not
     * searched for the markers below. */
    size_t head = size < 4096 ? size : 4096;
    for (size_t i = 0; i < head; i++)
        if (bytes[i] < 0x20 && bytes[i] != '\t' && bytes[i] != '\n' && bytes[i] != '\r' &&
            bytes[i] != '\f' && bytes[i] != '\v' && bytes[i] != '\b' && bytes[i] != 0x1b)
            return PROBE_NO;
    struct text text = text_make((const char *)bytes, size);
    for (size_t i = 0; i < REPORT_MARKER_COUNT; i++)
        if (oom_log_find(text, report_markers[i].marker) >= 0)
            return PROBE_CERTAIN;
    return PROBE_NO;
}

/* ---- the load ---- */

static bool parse_reports(const struct oom_log_lines *lines, struct oom_log_reports *reports,
                          struct string_table *strings)
{
    bool ok = true;
    for (size_t at = 0; ok && at < lines->count;) {
        enum oom_log_kind kind;
        if (!oom_log_starts_report(lines->lines[at].body, &kind)) {
            at++;
            continue;
        }
        size_t before = at;
        ok = kind == OOM_LOG_XLA   ? oom_log_parse_xla(lines, &at, reports, strings)
             : kind == OOM_LOG_BFC ? oom_log_parse_bfc(lines, &at, reports, strings)
                                   : oom_log_parse_torch(lines, &at, reports, strings);
        if (at <= before)
            at = before + 1; /* every parser moves on, but never trust it */
    }
    return ok;
}

/* "line 12: another out-of-memory report, a BFC allocator dump
 * (GPU_0_bfc, 488.28 MiB requested); memtop shows the last one (line 80)". */
static bool warn_other(struct profile_builder *builder, const struct oom_log_report *report,
                       const struct oom_log_report *shown)
{
    char buffer[512], request[FORMAT_BYTES_SIZE] = "an unknown size";
    if (report->requested >= 0)
        format_bytes(report->requested, request, sizeof request);
    struct text name = report->allocator
                           ? string_table_get(profile_builder_strings(builder), report->allocator)
                           : text_of("");
    char safe[128];
    format_safe_bytes(name, 0, safe, sizeof safe);
    snprintf(buffer, sizeof buffer,
             "line %zu: another out-of-memory report, a %s (%s%s%s requested); memtop shows "
             "the last one (line %zu)",
             report->first_line, oom_log_kind_name(report->kind), safe, name.length ? ", " : "",
             request, shown->first_line);
    return profile_builder_add_warning(builder, buffer);
}

static enum load_status oom_log_load(const struct load_input *input,
                                     struct profile_builder *builder, struct load_error *error)
{
    struct oom_log_lines lines;
    struct oom_log_reports reports = {0};
    if (!oom_log_lines_split(input->bytes, input->size, &lines))
        return LOAD_NO_MEMORY;
    bool ok = parse_reports(&lines, &reports, profile_builder_strings(builder));
    enum load_status status = ok ? LOAD_OK : LOAD_NO_MEMORY;
    if (ok && reports.count == 0) {
        load_error_set(error, "no out-of-memory report in this log");
        status = LOAD_BAD_INPUT;
    } else if (ok) {
        const struct oom_log_report *shown = &reports.list[reports.count - 1];
        ok = oom_log_build(shown, builder);
        for (size_t i = 0; ok && i + 1 < reports.count; i++)
            ok = warn_other(builder, &reports.list[i], shown);
        status = ok ? LOAD_OK : LOAD_NO_MEMORY;
    }
    oom_log_reports_free(&reports);
    oom_log_lines_free(&lines);
    return status;
}

/* None: a log is found by its content only, never taken from a
 * directory of profiles by its name. */
static const char *const oom_log_suffixes[] = {NULL};

const struct input_format oom_log_format = {
    .name = "oom-log",
    .description = "an out-of-memory report in a log: XLA's BufferAssignment report, the BFC "
                   "allocator's dump, PyTorch's CUDA out-of-memory message",
    .probe = oom_log_probe,
    .load = oom_log_load,
    .suffixes = oom_log_suffixes,
};
