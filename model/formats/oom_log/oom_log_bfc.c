/* oom_log_bfc: the BFC allocator's dump (docs/formats/oom_log.md): the
 * header with the failed request and its op, the chunk walk, the
 * in-use chunks by size, the pool line, the Stats block. */
#include "config.h"

#include "model/formats/oom_log/oom_log_internal.h"

#include <stddef.h>
#include <string.h>

/* "Allocator (GPU_0_bfc) ran out of memory trying to allocate 488.28MiB
 * (rounded to 512000000)requested by op NAME". */
static bool bfc_header(struct oom_log_report *report, struct text body,
                       struct string_table *strings)
{
    struct text rest, name;
    if (oom_log_after(body, "Allocator (", &name)) {
        long end = oom_log_find(name, ") ran out of memory");
        if (end >= 0) {
            report->allocator = string_table_intern(strings, name.bytes, (size_t)end);
            if (report->allocator == STRING_ID_NONE)
                return false;
        }
    }
    int64_t bytes;
    if (oom_log_after(body, "(rounded to ", &rest) && oom_log_integer(rest, &bytes, NULL))
        report->requested = bytes;
    else if (oom_log_after(body, "trying to allocate ", &rest) && oom_log_size(rest, &bytes, NULL))
        report->requested = bytes;
    if (oom_log_after(body, "requested by op ", &rest)) {
        rest = oom_log_trim(rest);
        report->op = string_table_intern(strings, rest.bytes, rest.length);
        if (report->op == STRING_ID_NONE)
            return false;
    }
    return true;
}

/* "BFCAllocator dump for GPU_0_bfc": the name, when the header lacked it. */
static bool bfc_dump_name(struct oom_log_report *report, struct text body,
                          struct string_table *strings)
{
    struct text rest;
    if (report->allocator || !oom_log_after(body, "BFCAllocator dump for ", &rest))
        return true;
    rest = oom_log_trim(rest);
    report->allocator = string_table_intern(strings, rest.bytes, rest.length);
    return report->allocator != STRING_ID_NONE;
}

/* "InUse at 7f5936000000 of size 256 next 1", "Free  at ... of size N". */
static bool bfc_walk(struct oom_log_report *report, struct text body)
{
    struct text rest;
    bool in_use = oom_log_key(body, "InUse at ", NULL);
    if (!in_use && !oom_log_key(body, "Free  at ", NULL) &&
        !oom_log_key(body, "Free at ", NULL))
        return true;
    int64_t bytes;
    if (!oom_log_after(body, " of size ", &rest) || !oom_log_integer(rest, &bytes, NULL))
        return true;
    if (!in_use && bytes > report->largest_free)
        report->largest_free = bytes;
    struct oom_log_chunk chunk = {bytes, in_use};
    return oom_log_add_walk(report, &chunk);
}

/* "85 Chunks of size 256 totalling 21.2KiB". */
static bool bfc_chunks(struct oom_log_report *report, struct text body)
{
    struct text rest;
    struct oom_log_chunks chunks;
    long at = oom_log_find(body, " Chunks of size ");
    if (at <= 0)
        return true;
    size_t start = (size_t)at; /* the count: the digits before it */
    while (start > 0 && body.bytes[start - 1] >= '0' && body.bytes[start - 1] <= '9')
        start--;
    rest = text_make(body.bytes + at + 16, body.length - (size_t)at - 16);
    if (!oom_log_integer(text_make(body.bytes + start, (size_t)at - start), &chunks.count, NULL) ||
        !oom_log_integer(rest, &chunks.bytes, NULL))
        return true;
    return oom_log_add_chunks(report, &chunks);
}

/* "Total bytes in pool: 40231108608 memory_limit_: ..." (older:
 * "total_region_allocated_bytes_: N"). */
static void bfc_pool(struct oom_log_report *report, struct text body)
{
    struct text rest;
    int64_t bytes;
    if ((oom_log_after(body, "Total bytes in pool: ", &rest) ||
         oom_log_after(body, "total_region_allocated_bytes_: ", &rest)) &&
        oom_log_integer(rest, &bytes, NULL))
        report->reserved = bytes;
}

/* A line of the Stats block, "Limit:       40231108608". */
static bool bfc_stat(struct oom_log_report *report, struct text body,
                     struct string_table *strings)
{
    body = oom_log_trim(body);
    long colon = oom_log_find(body, ":");
    if (colon <= 0)
        return true;
    size_t start = (size_t)colon; /* the name: letters back from the colon */
    while (start > 0 && ((body.bytes[start - 1] >= 'A' && body.bytes[start - 1] <= 'Z') ||
                         (body.bytes[start - 1] >= 'a' && body.bytes[start - 1] <= 'z')))
        start--;
    struct text label = text_make(body.bytes + start, (size_t)colon - start);
    if (label.length == 0)
        return true;
    struct text value = oom_log_trim(text_make(body.bytes + colon + 1, body.length - colon - 1));
    int64_t number;
    size_t end;
    if (!oom_log_integer(value, &number, &end) || end != value.length)
        return true;
    static const struct {
        const char *name;
        size_t field;
    } fields[] = {
        {"Limit", offsetof(struct oom_log_report, capacity)},
        {"InUse", offsetof(struct oom_log_report, allocated)},
        {"MaxInUse", offsetof(struct oom_log_report, lifetime_peak)},
        {"LargestFreeBlock", offsetof(struct oom_log_report, largest_free)},
    };
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
        if (label.length == strlen(fields[i].name) &&
            memcmp(label.bytes, fields[i].name, label.length) == 0)
            *(int64_t *)((char *)report + fields[i].field) = number;
    return oom_log_add_note(report, strings, label, value);
}

bool oom_log_parse_bfc(const struct oom_log_lines *lines, size_t *at,
                       struct oom_log_reports *reports, struct string_table *strings)
{
    struct oom_log_report *report = oom_log_report_start(reports, OOM_LOG_BFC,
                                                         lines->lines[*at].number);
    if (!report)
        return false;
    bool ok = true, stats = false, dumped = false;
    for (size_t first = *at; ok && *at < lines->count; (*at)++) {
        struct text body = lines->lines[*at].body;
        enum oom_log_kind kind;
        if (oom_log_starts_report(body, &kind) && *at > first) {
            /* The dump of the allocator whose header opened the report
             * goes on; any other report (XLA's text after it) is not ours. */
            bool dump = kind == OOM_LOG_BFC && !dumped &&
                        oom_log_find(body, "BFCAllocator dump for ") >= 0;
            if (!dump)
                break;
        }
        if (oom_log_find(body, ") ran out of memory trying to allocate ") >= 0)
            ok = bfc_header(report, body, strings);
        if (oom_log_find(body, "BFCAllocator dump for ") >= 0) {
            dumped = true;
            ok = ok && bfc_dump_name(report, body, strings);
        }
        if (oom_log_key(body, "Stats:", NULL)) {
            stats = true;
            continue;
        }
        if (stats) {
            struct text trimmed = oom_log_trim(body);
            if (trimmed.length == 0 || oom_log_find(trimmed, ":") < 0) {
                stats = false;
            } else {
                ok = ok && bfc_stat(report, body, strings);
                continue;
            }
        }
        ok = ok && bfc_walk(report, body) && bfc_chunks(report, body);
        bfc_pool(report, body);
    }
    return ok;
}
