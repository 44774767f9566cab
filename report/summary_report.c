#include "config.h"

#include "report/summary_report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/allocation_table.h"
#include "model/format.h"

/* ---- text ---- */

/* Safe to print; "-" for an empty field so columns stay readable. */
static const char *safe(const struct profile *profile, uint32_t id, char *buffer, size_t size)
{
    const char *text = profile_text(profile, id);
    format_safe_text(text[0] ? text : "-", false, buffer, size);
    return buffer;
}

static void text_size_line(FILE *out, const char *label, int64_t bytes)
{
    char size[FORMAT_BYTES_SIZE];
    fprintf(out, "  %-28s %14s\n", label, format_bytes(bytes, size, sizeof size));
}

/* The largest rows first; rows of equal size keep the source's order
 * (XProf's). */
static void text_top_rows(FILE *out, const struct allocation_table *table)
{
    size_t shown = table->count < SUMMARY_REPORT_TOP_ROWS ? table->count : SUMMARY_REPORT_TOP_ROWS;
    for (size_t i = 0; i < shown; i++) {
        const struct allocation_row *row = allocation_table_row(table, i);
        char size[FORMAT_BYTES_SIZE], op[256], region[64], type[64], shape[128];
        if (row->origin == ROW_UNRESOLVED) {
            fprintf(out, "    %12s  x%-4" PRId64 " (unresolved: snapshot %" PRId64
                         ", special %" PRId64 ")\n",
                    "?", row->occurrences, row->snapshot_index, row->special_index);
            continue;
        }
        const struct profile *profile = table->profile;
        fprintf(out, "    %12s  x%-4" PRId64 " %s  %s  %s  %s\n",
                format_bytes(row->allocation_bytes, size, sizeof size), row->occurrences,
                safe(profile, row->op_name, op, sizeof op),
                safe(profile, row->region_type, region, sizeof region),
                safe(profile, row->data_type, type, sizeof type),
                safe(profile, row->tensor_shape, shape, sizeof shape));
    }
}

/* "Active allocations at peak: 3 rows", then the largest of them. */
static void text_rows(FILE *out, const struct profile *profile, const struct allocator *allocator)
{
    struct allocation_table table;
    bool ok = allocation_table_init(&table, profile, allocator);
    size_t count = table.source.count;
    fprintf(out, "  Active allocations %s: %zu row%s%s\n", table.source.label, count,
            count == 1 ? "" : "s", count > SUMMARY_REPORT_TOP_ROWS ? ", the largest:" : "");
    if (ok) {
        allocation_table_set_sort(&table, TABLE_COLUMN_ALLOCATION_BYTES, true);
        text_top_rows(out, &table);
    }
    allocation_table_free(&table);
}

static void text_allocator(FILE *out, const struct profile *profile,
                           const struct allocator *allocator)
{
    const struct allocator_summary *summary = &allocator->summary;
    char name[256], time[32], percent[32];
    fprintf(out, "\n%s\n", safe(profile, allocator->id, name, sizeof name));
    fprintf(out, "  %-28s %14zu%s\n", "Snapshots", allocator->timeline.count,
            allocator->timeline_sampled ? "  (XProf's sample: the counts below are of it)" : "");
    fprintf(out, "  %-28s %14zu\n", "Allocations", summary->allocations);
    fprintf(out, "  %-28s %14zu\n", "Deallocations", summary->deallocations);
    text_size_line(out, "Memory capacity", summary->capacity_bytes);
    text_size_line(out, "Lifetime peak heap usage", summary->lifetime_peak_bytes);
    text_size_line(out, "Peak memory usage", summary->peak_bytes);
    fprintf(out, "  %-28s %14s%s\n", "  at", format_milliseconds(summary->peak_time_ps, time,
                                                                  sizeof time),
            summary->derived ? "  (computed: the file has no summary)" : "");
    text_size_line(out, "  Stack reservation", summary->peak.stack_bytes);
    text_size_line(out, "  Heap allocation", summary->peak.heap_bytes);
    text_size_line(out, "  Free memory", summary->peak.free_bytes);
    fprintf(out, "  %-28s %14s\n", "  Fragmentation",
            format_percent(summary->peak.fragmentation, percent, sizeof percent));
    text_rows(out, profile, allocator);
}

void summary_report_text(FILE *out, const struct profile *profile, const char *host)
{
    char path[1024];
    format_safe_text(profile->path, false, path, sizeof path);
    fprintf(out, "%s: %s%s, version %d, %zu allocator%s", path,
            profile->format == PROFILE_FORMAT_JSON ? "JSON" : "protobuf",
            profile->gzipped ? " (gzip)" : "", profile->version, profile->allocator_count,
            profile->allocator_count == 1 ? "" : "s");
    if (host) {
        char name[256];
        format_safe_text(host, false, name, sizeof name);
        fprintf(out, ", host %s", name);
    }
    if (profile->hlo_module_count)
        fprintf(out, ", %zu HLO modules", profile->hlo_module_count);
    fputc('\n', out);
    for (size_t i = 0; i < profile->allocator_count; i++)
        text_allocator(out, profile, &profile->allocators[i]);
}

/* ---- JSON ---- */

void summary_report_json_string(FILE *out, const char *text)
{
    fputc('"', out);
    while (*text) {
        uint32_t code_point;
        size_t length = format_utf8_decode(text, &code_point);
        if (length == 0) {
            fputs("\\ufffd", out); /* invalid UTF-8 */
            length = 1;
        } else if (code_point == '"' || code_point == '\\') {
            fputc('\\', out);
            fputc((int)code_point, out);
        } else if (code_point < 0x20 || (code_point >= 0x7f && code_point < 0xa0)) {
            fprintf(out, "\\u%04x", (unsigned)code_point);
        } else {
            fwrite(text, 1, length, out);
        }
        text += length;
    }
    fputc('"', out);
}

/* NaN and infinities are not JSON. */
static void json_double(FILE *out, double value)
{
    char text[32];
    fputs(isfinite(value) ? format_double(value, text, sizeof text) : "null", out);
}

static void json_allocator(FILE *out, const struct profile *profile,
                           const struct allocator *allocator)
{
    const struct allocator_summary *summary = &allocator->summary;
    fputs("{\"id\":", out);
    summary_report_json_string(out, profile_text(profile, allocator->id));
    fprintf(out,
            ",\"snapshots\":%zu,\"allocations\":%zu,\"deallocations\":%zu"
            ",\"capacity_bytes\":%" PRId64 ",\"lifetime_peak_bytes\":%" PRId64
            ",\"peak\":{\"bytes\":%" PRId64 ",\"time_ps\":%" PRId64 ",\"heap_bytes\":%" PRId64
            ",\"stack_bytes\":%" PRId64 ",\"free_bytes\":%" PRId64 ",\"fragmentation\":",
            allocator->timeline.count, summary->allocations, summary->deallocations,
            summary->capacity_bytes, summary->lifetime_peak_bytes, summary->peak_bytes,
            summary->peak_time_ps, summary->peak.heap_bytes, summary->peak.stack_bytes,
            summary->peak.free_bytes);
    json_double(out, summary->peak.fragmentation);
    fprintf(out, "},\"active_allocations\":%zu,\"summary_computed\":%s,\"timeline_sampled\":%s}",
            allocator->row_count, summary->derived ? "true" : "false",
            allocator->timeline_sampled ? "true" : "false");
}

static void json_host_and_file(FILE *out, const char *host, const char *path)
{
    fputs("{", out);
    if (host) {
        fputs("\"host\":", out);
        summary_report_json_string(out, host);
        fputc(',', out);
    }
    fputs("\"file\":", out);
    summary_report_json_string(out, path);
}

void summary_report_json_error(FILE *out, const char *path, const char *host, const char *error)
{
    json_host_and_file(out, host, path);
    fputs(",\"error\":", out);
    summary_report_json_string(out, error);
    fputs("}", out);
}

void summary_report_json(FILE *out, const struct profile *profile, const char *host)
{
    json_host_and_file(out, host, profile->path);
    fprintf(out, ",\"format\":\"%s\",\"gzip\":%s,\"version\":%d,\"hosts\":%d,\"hlo_modules\":%zu",
            profile_format_name(profile->format), profile->gzipped ? "true" : "false",
            profile->version, profile->num_hosts, profile->hlo_module_count);
    fputs(",\"allocators\":[", out);
    for (size_t i = 0; i < profile->allocator_count; i++) {
        if (i)
            fputc(',', out);
        json_allocator(out, profile, &profile->allocators[i]);
    }
    fputs("]}", out);
}
