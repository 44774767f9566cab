/* summary_text: --summary for people (see summary_report.h): each
 * allocator's peak, utilization and largest rows as aligned text lines,
 * every profile string through format_safe_text. Called by main, one host
 * at a time; writes what the model computed and picks no exit code. */
#include "config.h"

#include "report/summary_report.h"

#include <inttypes.h>
#include <math.h>

#include "model/query/allocation_table.h"
#include "model/format.h"
#include "model/query/oom.h"
#include "report/oom_card.h"

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

/* A size the format records, else "unknown" (enum allocator_field). */
static void text_known_size_line(FILE *out, const struct allocator *allocator, unsigned field,
                                 const char *label, int64_t bytes)
{
    if (!allocator_records(allocator, field))
        fprintf(out, "  %-28s %14s\n", label, "unknown");
    else
        text_size_line(out, label, bytes);
}

/* The largest rows first; rows of equal size keep the source's order
 * (XProf's). An unresolved row reads as the viewer's table shows it,
 * and a note under the list says once why. */
static void text_top_rows(FILE *out, const struct allocation_table *table, size_t top)
{
    size_t shown = table->count < top ? table->count : top;
    bool unresolved = false;
    /* The columns named once, over the rows ("-" in a row: not recorded). */
    if (shown > 0)
        fprintf(out, "    %12s  %-5s %s  %s  %s  %s\n", "size", "count", "op", "region", "type",
                "shape");
    for (size_t i = 0; i < shown; i++) {
        const struct allocation_row *row = allocation_table_row(table, i);
        char size[FORMAT_BYTES_SIZE], op[256], region[64], type[64], shape[128];
        if (row->origin == ROW_UNRESOLVED) {
            char label[ALLOCATION_TABLE_LABEL_SIZE];
            /* Our own words ("(unresolved: snapshot 0)"), nothing from the file. */
            struct text name = allocation_table_op_name(table, row, label, sizeof label);
            fprintf(out, "    %12s  x%-4" PRId64 " %.*s\n", "?", row->occurrences,
                    (int)name.length, name.bytes);
            unresolved = true;
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
    if (unresolved)
        fprintf(out, "    ? %s\n", ALLOCATION_TABLE_UNRESOLVED_NOTE);
}

/* ", 12 holding 1.00 MiB or more" when --min-size leaves rows out. */
static void text_least_size(FILE *out, const struct allocation_table *table, int64_t min_bytes)
{
    char size[FORMAT_BYTES_SIZE];
    if (min_bytes > 0)
        fprintf(out, ", %zu holding %s or more", table->count,
                format_bytes(min_bytes, size, sizeof size));
}

/* "Active allocations at peak: 3 rows", then the largest `top` of them. */
static void text_rows(FILE *out, const struct profile *profile, const struct allocator *allocator,
                      const struct summary_report_options *options)
{
    struct allocation_table table;
    size_t top = options->top_rows;
    bool ok = summary_report_top_table(&table, profile, allocator, options->min_bytes);
    size_t count = table.source.count;
    bool live = allocator && allocator->rows_kind == ALLOCATOR_ROWS_LIVE;
    fprintf(out, "  %s %s: %zu row%s", live ? "Allocations" : "Active allocations",
            table.source.label, count,
            count == 1 ? "" : "s");
    text_least_size(out, &table, options->min_bytes);
    fprintf(out, "%s\n", table.count > top && top > 0 ? ", the largest:" : "");
    if (ok)
        text_top_rows(out, &table, top);
    allocation_table_free(&table);
}

/* ---- a report without a timeline (Skyline's) ---- */

/* The largest rows with their kind and location; a size <= 0 (a view,
 * an in-place op) is marked, as the totals leave it out. */
static void text_entry_rows(FILE *out, const struct allocation_table *table, size_t top)
{
    size_t shown = table->count < top ? table->count : top;
    const struct profile *profile = table->profile;
    if (shown > 0)
        fprintf(out, "    %12s  %-10s  %s  %s\n", "size", "kind", "name", "location");
    for (size_t i = 0; i < shown; i++) {
        const struct allocation_row *row = allocation_table_row(table, i);
        char size[FORMAT_BYTES_SIZE], kind[64], name[256], location[256];
        fprintf(out, "    %12s  %-10s  %s  %s%s\n",
                format_bytes(row->allocation_bytes, size, sizeof size),
                safe(profile, row->kind, kind, sizeof kind),
                safe(profile, row->op_name, name, sizeof name),
                safe(profile, row->location, location, sizeof location),
                allocation_row_is_uncounted(row) ? "  (size <= 0: not counted)" : "");
    }
}

/* "Entries: 6 (8 rows: gradients are rows of their own), the largest:" */
static void text_entries(FILE *out, const struct profile *profile,
                         const struct allocator *allocator,
                         const struct summary_report_options *options)
{
    struct allocation_table table;
    size_t top = options->top_rows;
    bool ok = summary_report_top_table(&table, profile, allocator, options->min_bytes);
    size_t entries = allocator->summary.tracked.entries, rows = table.source.count;
    fprintf(out, "  Entries: %zu", entries);
    if (rows != entries)
        fprintf(out, " (%zu rows: gradients are rows of their own)", rows);
    text_least_size(out, &table, options->min_bytes);
    fprintf(out, "%s\n", table.count > top && top > 0 ? ", the largest:" : "");
    if (ok)
        text_entry_rows(out, &table, top);
    allocation_table_free(&table);
}

/* The peak, what the report says it was made of, and its entries; no
 * timeline, so no time, counts or free memory. */
static void text_allocator_without_timeline(FILE *out, const struct profile *profile,
                                            const struct allocator *allocator,
                                            const struct summary_report_options *options)
{
    const struct allocator_summary *summary = &allocator->summary;
    const struct tracked_memory *tracked = &summary->tracked;
    fprintf(out, "  %-28s %14s\n", "Timeline", "none in this format");
    if (summary->capacity_bytes > 0)
        text_size_line(out, "Memory capacity", summary->capacity_bytes);
    else
        fprintf(out, "  %-28s %14s\n", "Memory capacity", "unknown");
    text_size_line(out, "Peak memory usage", summary->peak_bytes);
    if (tracked->known) {
        text_size_line(out, "  Weights", tracked->weights_bytes);
        text_size_line(out, "  Gradients", tracked->gradients_bytes);
        text_size_line(out, "  Activations", tracked->activations_bytes);
        text_size_line(out, "  Untracked", tracked->untracked_bytes);
        text_entries(out, profile, allocator, options);
    } else {
        text_rows(out, profile, allocator, options);
    }
}

/* "0.93 %" of the capacity, or why there is none. */
static void text_utilization_line(FILE *out, const struct allocator_summary *summary)
{
    char percent[32];
    double utilization = summary_report_utilization(summary);
    fprintf(out, "  %-28s %14s\n", "  of capacity",
            isnan(utilization) ? "unknown" : format_percent(utilization, percent, sizeof percent));
}

/* The post-mortem card of the allocator's last OOM, when it has one. */
static void text_oom(FILE *out, const struct profile *profile, size_t index)
{
    const struct oom_event *oom = allocator_last_oom(&profile->allocators[index]);
    if (!oom)
        return;
    struct oom_card card;
    oom_card_build_for_report(&card, profile, index, oom);
    oom_card_print(out, &card, "  ");
}

/* Where a trace that may begin late begins, and what was live then. */
static void text_trace_start(FILE *out, const struct trace_start *start)
{
    if (!start->known)
        return;
    char span[32], bytes[32];
    fprintf(out, "  %-28s %14zu\n", "Trace entries", start->entries);
    if (start->times_are_entries)
        snprintf(span, sizeof span, "%zu entries", start->entries);
    else
        format_milliseconds(start->covered_ps, span, sizeof span);
    fprintf(out, "  %-28s %14s\n", "  covering", span);
    fprintf(out, "  %-28s %14s  (%zu allocations: made before recording, or dropped by the "
                 "ring buffer)\n",
            "  live before its start", format_bytes(start->live_bytes, bytes, sizeof bytes),
            start->live_count);
}

static void text_allocator(FILE *out, const struct profile *profile, size_t index,
                           const struct summary_report_options *options)
{
    const struct allocator *allocator = &profile->allocators[index];
    const struct allocator_summary *summary = &allocator->summary;
    char name[256], time[32], percent[32];
    fprintf(out, "\n%s\n", safe(profile, allocator->id, name, sizeof name));
    text_oom(out, profile, index);
    if (allocator->timeline_kind == TIMELINE_NONE) {
        text_allocator_without_timeline(out, profile, allocator, options);
        return;
    }
    fprintf(out, "  %-28s %14zu%s\n", "Snapshots", allocator->timeline.count,
            allocator->timeline_sampled ? "  (XProf's sample: the counts below are of it)" : "");
    fprintf(out, "  %-28s %14zu\n", "Allocations", summary->allocations);
    fprintf(out, "  %-28s %14zu\n", "Deallocations", summary->deallocations);
    text_known_size_line(out, allocator, ALLOCATOR_FIELD_CAPACITY, "Memory capacity",
                         summary->capacity_bytes);
    text_size_line(out, allocator_word(allocator, ALLOCATOR_WORD_LIFETIME_LINE),
                   summary->lifetime_peak_bytes);
    text_size_line(out, "Peak memory usage", summary->peak_bytes);
    text_utilization_line(out, summary);
    fprintf(out, "  %-28s %14s%s\n", "  at", format_milliseconds(summary->peak_time_ps, time,
                                                                  sizeof time),
            summary->derived ? "  (computed: the file has no summary)" : "");
    text_known_size_line(out, allocator, ALLOCATOR_FIELD_STACK, "  Stack reservation",
                         summary->peak.stack_bytes);
    char heap_line[48], free_line[48]; /* in the allocator's words */
    snprintf(heap_line, sizeof heap_line, "  %s",
             allocator_word(allocator, ALLOCATOR_WORD_HEAP_LINE));
    snprintf(free_line, sizeof free_line, "  %s",
             allocator_word(allocator, ALLOCATOR_WORD_FREE_LINE));
    text_size_line(out, heap_line, summary->peak.heap_bytes);
    text_known_size_line(out, allocator, ALLOCATOR_FIELD_FREE, free_line,
                         summary->peak.free_bytes);
    fprintf(out, "  %-28s %14s\n", "  Fragmentation",
            !allocator_records(allocator, ALLOCATOR_FIELD_FRAGMENTATION)
                ? "unknown"
                : format_percent(summary->peak.fragmentation, percent, sizeof percent));
    text_trace_start(out, &summary->trace_start);
    text_rows(out, profile, allocator, options);
}

void summary_report_text(FILE *out, const struct profile *profile, const char *host)
{
    summary_report_text_with(out, profile, host, NULL);
}

void summary_report_text_with(FILE *out, const struct profile *profile, const char *host,
                              const struct summary_report_options *options)
{
    static const struct summary_report_options defaults = {SUMMARY_REPORT_TOP_ROWS, 0};
    if (!options)
        options = &defaults;
    char path[1024];
    format_safe_text(profile->path, false, path, sizeof path);
    fprintf(out, "%s: %s%s", path,
            profile->format == PROFILE_FORMAT_JSON       ? "JSON"
            : profile->format == PROFILE_FORMAT_PROTOBUF ? "protobuf"
                                                         : profile_format_name(profile->format),
            profile->gzipped ? " (gzip)" : "");
    /* A version only where it means something (not a trace's or XSpace's). */
    if (profile->version_known)
        fprintf(out, ", version %d", profile->version);
    fprintf(out, ", %zu allocator%s", profile->allocator_count,
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
        text_allocator(out, profile, i, options);
}

void summary_report_text_error(FILE *out, const char *path, const char *host, struct text error)
{
    char safe_path[1024], name[256], message[4 * 512 + 1];
    format_safe_text(path, false, safe_path, sizeof safe_path);
    format_safe_text(host ? host : "", false, name, sizeof name);
    if (error.length > 512)
        error.length = 512;
    format_safe_bytes(error, 0, message, sizeof message);
    fprintf(out, "%s: not loaded%s%s%s: %s\n", safe_path, host ? " (host " : "", name,
            host ? ")" : "", message);
}
