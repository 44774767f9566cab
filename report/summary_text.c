#include "config.h"

#include "report/summary_report.h"

#include <inttypes.h>

#include "model/allocation_table.h"
#include "model/format.h"

/* Safe to print; "-" for an empty field so columns stay readable. */
static const char *safe(const struct profile *profile, uint32_t id, char *buffer, size_t size)
{
    struct text text = profile_string(profile, id);
    format_safe_bytes(text.length ? text : text_of("-"), 0, buffer, size);
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
