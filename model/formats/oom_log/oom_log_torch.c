/* oom_log_torch: PyTorch's "CUDA out of memory. Tried to allocate ..."
 * (docs/formats/oom_log.md), in its newer wording ("GPU 0 has a
 * total capacity of T of which F is free ... Of the allocated memory A is
 * allocated by PyTorch, and R is reserved by PyTorch but unallocated")
 * and the older one ("(GPU 0; T total capacity; A already allocated; F
 * free; R reserved in total by PyTorch)"). */
#include "config.h"

#include "model/formats/oom_log/oom_log_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/util/saturating.h"

/* The size after `before` (within text), or -1. */
static int64_t size_after(struct text text, const char *before)
{
    struct text rest;
    int64_t bytes;
    return oom_log_after(text, before, &rest) && oom_log_size(rest, &bytes, NULL) ? bytes : -1;
}

/* The size just before `after`: "15.78 GiB total capacity". */
static int64_t size_before(struct text text, const char *after)
{
    long at = oom_log_find(text, after);
    if (at <= 0)
        return -1;
    size_t start = (size_t)at;
    while (start > 0 && text.bytes[start - 1] == ' ')
        start--;
    while (start > 0 && ((text.bytes[start - 1] >= 'A' && text.bytes[start - 1] <= 'Z') ||
                         (text.bytes[start - 1] >= 'a' && text.bytes[start - 1] <= 'z')))
        start--;
    while (start > 0 && text.bytes[start - 1] == ' ')
        start--;
    while (start > 0 && ((text.bytes[start - 1] >= '0' && text.bytes[start - 1] <= '9') ||
                         text.bytes[start - 1] == '.'))
        start--;
    int64_t bytes;
    return oom_log_size(text_make(text.bytes + start, (size_t)at - start), &bytes, NULL) ? bytes
                                                                                         : -1;
}

bool oom_log_parse_torch(const struct oom_log_lines *lines, size_t *at,
                         struct oom_log_reports *reports, struct string_table *strings)
{
    struct oom_log_report *report = oom_log_report_start(reports, OOM_LOG_TORCH,
                                                         lines->lines[*at].number);
    if (!report)
        return false;
    /* The message, joined with the lines a terminal may have wrapped it
     * onto (up to the next report or 4 lines). */
    char joined[4096];
    size_t length = 0, end = *at;
    for (; end < lines->count && end < *at + 4; end++) {
        struct text body = lines->lines[end].body;
        enum oom_log_kind kind;
        if ((end > *at && oom_log_starts_report(body, &kind)) || length + 2 >= sizeof joined)
            break;
        size_t take = body.length < sizeof joined - length - 2 ? body.length
                                                               : sizeof joined - length - 2;
        memcpy(joined + length, body.bytes, take);
        length += take;
        joined[length++] = ' ';
    }
    struct text text = text_make(joined, length), rest;
    report->requested = size_after(text, "Tried to allocate ");
    int64_t gpu = 0;
    if (!oom_log_after(text, "GPU ", &rest) || !oom_log_integer(rest, &gpu, NULL))
        gpu = 0;
    char name[32];
    snprintf(name, sizeof name, "cuda:%lld", (long long)gpu);
    report->allocator = string_table_intern(strings, name, strlen(name));
    report->capacity = size_after(text, "total capacity of ");
    if (report->capacity < 0)
        report->capacity = size_before(text, " total capacity");
    report->device_free = size_after(text, " of which ");
    if (report->device_free < 0)
        report->device_free = size_before(text, " free;");
    int64_t allocated = size_after(text, "Of the allocated memory ");
    if (allocated < 0)
        allocated = size_before(text, " already allocated");
    report->allocated = allocated;
    int64_t unallocated = size_before(text, " is reserved by PyTorch but unallocated");
    int64_t reserved = size_before(text, " reserved in total by PyTorch");
    if (reserved >= 0)
        report->reserved = reserved;
    else if (allocated >= 0 && unallocated >= 0)
        report->reserved = saturating_add(allocated, unallocated);
    /* The request's own line, and those it took. */
    *at = end > *at + 1 ? end : *at + 1;
    return report->allocator != STRING_ID_NONE;
}
