/* oom_log_xla: XLA's BufferAssignment report (docs/formats/oom_log.md):
 * the failed request, the stats lines, the peak buffers. */
#include "config.h"

#include "model/formats/oom_log/oom_log_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t intern(struct string_table *strings, struct text text)
{
    return string_table_intern(strings, text.bytes, text.length);
}

/* The request of the report's first line: "... trying to allocate N
 * bytes." or ROCm's "Failed to allocate request for 154.06GiB
 * (165425291480B)". */
static void xla_request(struct oom_log_report *report, struct text body)
{
    struct text rest;
    int64_t bytes;
    if (oom_log_after(body, "Out of memory while trying to allocate ", &rest) &&
        oom_log_integer(rest, &bytes, NULL))
        report->requested = bytes;
    else if (oom_log_after(body, "Failed to allocate request for ", &rest) &&
             oom_log_after(rest, "(", &rest) && oom_log_size(rest, &bytes, NULL))
        report->requested = bytes;
}

/* The device, where the log says it ("device ordinal 0", "device:GPU:0"). */
static bool xla_device(struct oom_log_report *report, struct text body,
                       struct string_table *strings)
{
    struct text rest;
    int64_t ordinal;
    char name[48];
    if (oom_log_after(body, "device ordinal ", &rest) && oom_log_integer(rest, &ordinal, NULL)) {
        snprintf(name, sizeof name, "device %lld", (long long)ordinal);
    } else if (oom_log_after(body, "/device:", &rest)) {
        size_t length = 0;
        while (length < rest.length && length < 32 && rest.bytes[length] != ' ' &&
               rest.bytes[length] != ',' && rest.bytes[length] != ')')
            length++;
        snprintf(name, sizeof name, "%.*s", (int)length, rest.bytes);
    } else {
        return true;
    }
    report->allocator = string_table_intern(strings, name, strlen(name));
    return report->allocator != STRING_ID_NONE;
}

/* "             parameter allocation:    6.00MiB" (and " (x.xx%)"). */
static bool xla_stat(struct oom_log_report *report, struct text body,
                     struct string_table *strings)
{
    long colon = oom_log_find(body, ": ");
    if (colon <= 0)
        return true;
    /* The label: its words back from the colon, up to the padding
     * (two blanks) or whatever prefix the line had. */
    size_t start = (size_t)colon;
    while (start > 0) {
        char c = body.bytes[start - 1];
        bool word = (c >= 'a' && c <= 'z') || c == '_';
        bool single_space = c == ' ' && start > 1 && body.bytes[start - 2] != ' ';
        if (!word && !single_space)
            break;
        start--;
    }
    struct text label = oom_log_trim(text_make(body.bytes + start, (size_t)colon - start));
    struct text value = oom_log_trim(text_make(body.bytes + colon + 2, body.length - colon - 2));
    int64_t bytes;
    if (label.length == 0 || !oom_log_size(value, &bytes, NULL))
        return true;
    if (label.length == 16 && memcmp(label.bytes, "total allocation", 16) == 0)
        report->total = bytes;
    return oom_log_add_note(report, strings, label, value);
}

/* The value of key="value" in an Operator line, or empty. */
static struct text operator_value(struct text text, const char *key)
{
    char pattern[32];
    snprintf(pattern, sizeof pattern, "%s=\"", key);
    struct text rest;
    if (!oom_log_after(text, pattern, &rest))
        return text_make(rest.bytes, 0);
    long end = oom_log_find(rest, "\"");
    return text_make(rest.bytes, end < 0 ? rest.length : (size_t)end);
}

/* The Operator's text, joined over the lines a long op name was wrapped
 * onto (until the quotes balance, or another field begins). */
static size_t operator_text(const struct oom_log_lines *lines, size_t at, struct text first,
                            char **joined, size_t *length)
{
    size_t quotes = 0, capacity = first.length + 1;
    char *text = malloc(capacity);
    if (!text)
        return at;
    memcpy(text, first.bytes, first.length);
    *length = first.length;
    for (size_t i = 0; i < first.length; i++)
        quotes += first.bytes[i] == '"';
    while (quotes % 2 && at + 1 < lines->count) {
        struct text next = oom_log_trim(lines->lines[at + 1].body);
        if (oom_log_key(next, "XLA Label:", NULL) || oom_log_key(next, "Shape:", NULL) ||
            oom_log_key(next, "=====", NULL) || next.length == 0)
            break;
        char *grown = realloc(text, *length + next.length + 1);
        if (!grown)
            break;
        text = grown;
        memcpy(text + *length, next.bytes, next.length);
        *length += next.length;
        for (size_t i = 0; i < next.length; i++)
            quotes += next.bytes[i] == '"';
        at++;
    }
    *joined = text;
    return at;
}

static bool xla_operator(struct oom_log_buffer *buffer, struct text operator,
                         struct string_table *strings)
{
    struct text op = operator_value(operator, "op_name");
    struct text file = operator_value(operator, "source_file");
    if (file.length > ((size_t)1 << 20)) /* a path longer than any: cut, not trusted */
        file.length = (size_t)1 << 20;
    struct text rest;
    int64_t line = 0;
    if (oom_log_after(operator, "source_line=", &rest))
        oom_log_integer(rest, &line, NULL);
    buffer->op_name = intern(strings, op);
    buffer->location_file = intern(strings, file);
    buffer->location_line = file.length ? line : 0;
    char *location = malloc(file.length + 24);
    if (!location)
        return false;
    int length = file.length ? snprintf(location, file.length + 24, "%.*s:%lld",
                                        (int)file.length, file.bytes, (long long)line)
                             : 0;
    buffer->location = string_table_intern(strings, location, (size_t)length);
    free(location);
    return buffer->op_name != STRING_ID_NONE && buffer->location != STRING_ID_NONE &&
           buffer->location_file != STRING_ID_NONE;
}

/* "f32[4096,128,3]": the type before the bracket, the dimensions. */
static bool xla_shape(struct oom_log_buffer *buffer, struct text shape,
                      struct string_table *strings)
{
    shape = oom_log_trim(shape);
    long bracket = oom_log_find(shape, "[");
    size_t type_length = bracket > 0 ? (size_t)bracket : 0;
    buffer->data_type = intern(strings, text_make(shape.bytes, type_length));
    buffer->shape = intern(strings, text_make(shape.bytes + type_length, shape.length - type_length));
    return buffer->data_type != STRING_ID_NONE && buffer->shape != STRING_ID_NONE;
}

enum xla_part { XLA_HEAD, XLA_STATS, XLA_BUFFERS };

/* One line of the buffers part; *in_buffer whether a buffer is open. */
static bool xla_buffer_line(const struct oom_log_lines *lines, size_t *at,
                            struct oom_log_report *report, struct oom_log_buffer *buffer,
                            bool *in_buffer, struct string_table *strings)
{
    struct text body = lines->lines[*at].body, rest;
    bool ok = true;
    if (oom_log_key(body, "Buffer ", &rest) && rest.length && rest.bytes[0] >= '0' &&
        rest.bytes[0] <= '9' && !oom_log_key(body, "Operator:", NULL)) {
        if (*in_buffer)
            ok = oom_log_add_buffer(report, buffer);
        *buffer = (struct oom_log_buffer){0};
        *in_buffer = true;
    } else if (oom_log_key(body, "Size:", &rest)) {
        oom_log_size(rest, &buffer->bytes, NULL);
    } else if (oom_log_key(body, "Operator:", &rest)) {
        char *joined = NULL;
        size_t length = 0;
        *at = operator_text(lines, *at, rest, &joined, &length);
        ok = joined && xla_operator(buffer, text_make(joined, length), strings);
        free(joined);
    } else if (oom_log_key(body, "Entry Parameter Subshape:", &rest)) {
        buffer->label = string_table_intern(strings, "entry parameter", 15);
        ok = buffer->label != STRING_ID_NONE && xla_shape(buffer, rest, strings);
    } else if (oom_log_key(body, "XLA Label:", &rest)) {
        buffer->label = intern(strings, oom_log_trim(rest));
        ok = buffer->label != STRING_ID_NONE;
    } else if (oom_log_key(body, "Shape:", &rest)) {
        ok = xla_shape(buffer, rest, strings);
    } else if (oom_log_key(body, "=====", NULL)) {
        if (*in_buffer)
            ok = oom_log_add_buffer(report, buffer);
        *in_buffer = false;
    }
    return ok;
}

/* Whether a line of the buffers part belongs to the report. */
static bool xla_buffers_go_on(struct text body)
{
    struct text trimmed = oom_log_trim(body);
    /* A blank line, or one that is only a log prefix ("... worker-0 |"). */
    char last = trimmed.length ? trimmed.bytes[trimmed.length - 1] : ' ';
    return trimmed.length == 0 || last == '|' || last == ']' || last == ':' || oom_log_key(body, "Buffer ", NULL) ||
           oom_log_key(body, "Size:", NULL) || oom_log_key(body, "Operator:", NULL) ||
           oom_log_key(body, "Entry Parameter Subshape:", NULL) ||
           oom_log_key(body, "XLA Label:", NULL) || oom_log_key(body, "Shape:", NULL) ||
           oom_log_key(body, "=====", NULL);
}

bool oom_log_parse_xla(const struct oom_log_lines *lines, size_t *at,
                       struct oom_log_reports *reports, struct string_table *strings)
{
    struct oom_log_report *report = oom_log_report_start(reports, OOM_LOG_XLA,
                                                         lines->lines[*at].number);
    if (!report)
        return false;
    enum xla_part part = XLA_HEAD;
    struct oom_log_buffer buffer = {0};
    bool in_buffer = false, ok = true, started = false;
    for (; ok && *at < lines->count; (*at)++) {
        struct text body = lines->lines[*at].body;
        enum oom_log_kind kind;
        /* Another report begins: a new failure (its own first line), or
         * the BFC dump that often precedes XLA's text. */
        bool debugging = oom_log_find(body, "BufferAssignment OOM Debugging") >= 0;
        if (started && oom_log_starts_report(body, &kind) && !(debugging && part == XLA_HEAD))
            break;
        started = true;
        if (part == XLA_HEAD) {
            xla_request(report, body);
            ok = xla_device(report, body, strings);
            if (oom_log_find(body, "BufferAssignment stats:") >= 0)
                part = XLA_STATS;
            else if (oom_log_find(body, "Peak buffers:") >= 0)
                part = XLA_BUFFERS;
            else if (!debugging && *at > 0 && report->requested >= 0 &&
                     lines->lines[*at].number > report->first_line + 3)
                break; /* a first line alone, the rest not in the log */
        } else if (part == XLA_STATS) {
            if (oom_log_find(body, "Peak buffers:") >= 0)
                part = XLA_BUFFERS;
            else if (oom_log_find(body, " allocation:") >= 0 ||
                     oom_log_find(body, " fragmentation:") >= 0)
                ok = xla_stat(report, body, strings);
            else if (oom_log_trim(body).length)
                break;
        } else {
            if (!xla_buffers_go_on(body))
                break;
            ok = xla_buffer_line(lines, at, report, &buffer, &in_buffer, strings);
        }
    }
    if (ok && in_buffer)
        ok = oom_log_add_buffer(report, &buffer);
    return ok;
}
