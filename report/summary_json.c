/* summary_json: --summary --json (see summary_report.h): each allocator's
 * peak, tracked memory and largest rows as JSON through json_writer, and
 * the error object a host that failed to load leaves. Called by main, one
 * host at a time; writes what the model computed, escapes every string
 * through json_writer and picks no exit code. */
#include "config.h"

#include "report/summary_report.h"

#include <math.h>

#include "model/query/allocation_columns.h"
#include "model/query/allocation_table.h"
#include "model/query/oom.h"
#include "report/json_writer.h"

/* A number the format may lack: null when `known` is false (the house
 * rule for fields a format does not have). */
static void json_member_int_or_null(struct json_writer *writer, const char *name, bool known,
                                    int64_t value)
{
    json_writer_key(writer, name);
    if (known)
        json_writer_int(writer, value);
    else
        json_writer_null(writer);
}

/* An allocator without a timeline (a Skyline report) has no time for
 * its peak and no lifetime peak; what else its format never measured
 * (free memory, fragmentation; a PyTorch trace's stack) is null too. */
static void json_peak(struct json_writer *writer, const struct allocator *allocator)
{
    const struct allocator_summary *summary = &allocator->summary;
    bool timed = allocator->timeline_kind != TIMELINE_NONE;
    json_writer_key(writer, "peak");
    json_writer_object_begin(writer);
    json_writer_member_int(writer, "bytes", summary->peak_bytes);
    json_member_int_or_null(writer, "time_ps", timed, summary->peak_time_ps);
    json_writer_member_int(writer, "heap_bytes", summary->peak.heap_bytes);
    json_member_int_or_null(writer, "stack_bytes",
                            allocator_records(allocator, ALLOCATOR_FIELD_STACK),
                            summary->peak.stack_bytes);
    json_member_int_or_null(writer, "free_bytes",
                            allocator_records(allocator, ALLOCATOR_FIELD_FREE),
                            summary->peak.free_bytes);
    json_writer_key(writer, "fragmentation");
    if (allocator_records(allocator, ALLOCATOR_FIELD_FRAGMENTATION))
        json_writer_double(writer, summary->peak.fragmentation);
    else
        json_writer_null(writer);
    json_writer_object_end(writer);
}

/* A byte count of an OOM: null where the file does not say (-1). */
static void json_oom_bytes(struct json_writer *writer, const char *name, int64_t value)
{
    json_member_int_or_null(writer, name, value >= 0, value);
}

/* "oom": the allocator's last out-of-memory error (null when it has
 * none), and "oom_count": how many it had. */
static void json_oom(struct json_writer *writer, const struct allocator *allocator)
{
    const struct oom_event *oom = allocator_last_oom(allocator);
    json_writer_key(writer, "oom");
    if (!oom) {
        json_writer_null(writer);
    } else {
        json_writer_object_begin(writer);
        json_member_int_or_null(writer, "time_ps", allocator->timeline_kind != TIMELINE_NONE,
                                oom->time_ps);
        json_oom_bytes(writer, "requested_bytes", oom->requested_bytes);
        json_oom_bytes(writer, "allocated_bytes", oom->allocated_bytes);
        json_oom_bytes(writer, "reserved_bytes", oom->reserved_bytes);
        json_oom_bytes(writer, "device_free_bytes", oom->device_free_bytes);
        json_oom_bytes(writer, "largest_free_bytes", oom->largest_free_bytes);
        json_writer_object_end(writer);
    }
    json_writer_member_unsigned(writer, "oom_count", allocator->oom_count);
}

/* What the memory was for, for formats that say (Skyline): the keys are
 * written only then, so other formats' JSON stays as it was. */
static void json_tracked(struct json_writer *writer, const struct tracked_memory *tracked)
{
    if (!tracked->known)
        return;
    json_writer_member_int(writer, "weights_bytes", tracked->weights_bytes);
    json_writer_member_int(writer, "gradients_bytes", tracked->gradients_bytes);
    json_writer_member_int(writer, "activations_bytes", tracked->activations_bytes);
    json_writer_member_int(writer, "untracked_bytes", tracked->untracked_bytes);
}

/* One row as an object: every column of the allocation column table
 * under its CSV name (a column the row has no value for is null), so the
 * JSON carries what the CSV does. */
static void json_row(struct json_writer *writer, const struct allocation_context *context,
                     const struct allocation_row *row)
{
    const struct allocation_column_info *columns = allocation_columns();
    json_writer_object_begin(writer);
    for (size_t c = 0; c < ALLOCATION_COLUMN_COUNT; c++) {
        struct allocation_value value = columns[c].value(context, row);
        json_writer_key(writer, columns[c].csv_name);
        if (value.absent) {
            json_writer_null(writer);
            continue;
        }
        switch (columns[c].kind) {
        case ALLOCATION_VALUE_TEXT: json_writer_bytes(writer, value.text); break;
        case ALLOCATION_VALUE_ADDRESS: json_writer_unsigned(writer, value.address); break;
        case ALLOCATION_VALUE_FRACTION: json_writer_double(writer, value.fraction); break;
        default: json_writer_int(writer, value.integer); break;
        }
    }
    json_writer_object_end(writer);
}

/* "top_rows": the largest rows at the peak, as the text report lists
 * them (largest first, ties in the file's order); an empty array when
 * memory runs out. */
static void json_top_rows(struct json_writer *writer, const struct profile *profile,
                          const struct allocator *allocator,
                          const struct summary_report_options *options)
{
    struct allocation_table table;
    bool ok = summary_report_top_table(&table, profile, allocator, options->min_bytes);
    json_writer_key(writer, "top_rows");
    json_writer_array_begin(writer);
    if (ok) {
        struct allocation_context context = allocation_table_context(&table);
        for (size_t i = 0; i < table.count && i < options->top_rows; i++)
            json_row(writer, &context, allocation_table_row(&table, i));
    }
    json_writer_array_end(writer);
    allocation_table_free(&table);
}

static void json_allocator(struct json_writer *writer, const struct profile *profile,
                           const struct allocator *allocator,
                           const struct summary_report_options *options)
{
    const struct allocator_summary *summary = &allocator->summary;
    json_writer_object_begin(writer);
    json_writer_member_bytes(writer, "id", profile_string(profile, allocator->id));
    json_writer_member_unsigned(writer, "snapshots", allocator->timeline.count);
    json_writer_member_unsigned(writer, "allocations", summary->allocations);
    json_writer_member_unsigned(writer, "deallocations", summary->deallocations);
    json_member_int_or_null(writer, "capacity_bytes",
                            allocator_records(allocator, ALLOCATOR_FIELD_CAPACITY),
                            summary->capacity_bytes);
    json_member_int_or_null(writer, "lifetime_peak_bytes",
                            allocator->timeline_kind != TIMELINE_NONE,
                            summary->lifetime_peak_bytes);
    json_peak(writer, allocator);
    /* A report's entries: a weight and its gradient are one entry, two rows. */
    size_t xprof_count = 0;
    allocator_xprof_rows(allocator, &xprof_count);
    json_writer_member_unsigned(writer, "active_allocations",
                                summary->tracked.known ? summary->tracked.entries : xprof_count);
    /* The allocations live at the peak instant, behind top_rows (issue
     * 22); null where the rows are not the live set (a sampled file,
     * a report without a timeline). */
    json_writer_key(writer, "live_allocations");
    if (allocator->rows_kind == ALLOCATOR_ROWS_LIVE)
        json_writer_unsigned(writer, allocator->live_allocations);
    else
        json_writer_null(writer);
    json_tracked(writer, &summary->tracked);
    if (summary->trace_start.known) {
        const struct trace_start *start = &summary->trace_start;
        json_writer_member_unsigned(writer, "trace_entries", start->entries);
        json_writer_key(writer, "live_before_trace");
        json_writer_object_begin(writer);
        json_writer_member_int(writer, "bytes", start->live_bytes);
        json_writer_member_unsigned(writer, "allocations", start->live_count);
        json_writer_object_end(writer);
        json_member_int_or_null(writer, "trace_covers_ps", !start->times_are_entries,
                                start->covered_ps);
    }
    json_writer_member_bool(writer, "summary_computed", summary->derived);
    json_writer_member_bool(writer, "timeline_sampled", allocator->timeline_sampled);
    /* null when the capacity is unknown: the writer spells NaN so. */
    json_writer_member_double(writer, "utilization", summary_report_utilization(summary));
    json_top_rows(writer, profile, allocator, options);
    json_oom(writer, allocator);
    json_writer_object_end(writer);
}

/* Opens the host's object: "run" (for a run of a log directory), "host"
 * (when there are several, or a run) and "file". */
static void json_host_and_file(struct json_writer *writer, const char *run, const char *host,
                               const char *path)
{
    json_writer_object_begin(writer);
    if (run)
        json_writer_member_string(writer, "run", run);
    if (host)
        json_writer_member_string(writer, "host", host);
    json_writer_member_string(writer, "file", path);
}

void summary_report_json_error_in_run_to(struct json_writer *writer, const char *path,
                                         const char *run, const char *host, struct text error)
{
    json_host_and_file(writer, run, host, path);
    json_writer_member_bytes(writer, "error", error);
    json_writer_object_end(writer);
}

void summary_report_json_in_run_to(struct json_writer *writer, const struct profile *profile,
                                   const char *run, const char *host,
                                   const struct summary_report_options *options)
{
    const struct summary_report_options defaults = {SUMMARY_REPORT_TOP_ROWS, 0};
    if (!options)
        options = &defaults;
    json_host_and_file(writer, run, host, profile->path);
    json_writer_member_string(writer, "format", profile_format_name(profile->format));
    json_writer_member_bool(writer, "gzip", profile->gzipped);
    json_writer_member_int(writer, "version", profile->version);
    json_writer_member_int(writer, "hosts", profile->num_hosts);
    json_writer_member_unsigned(writer, "hlo_modules", profile->hlo_module_count);
    json_writer_key(writer, "allocators");
    json_writer_array_begin(writer);
    for (size_t i = 0; i < profile->allocator_count; i++)
        json_allocator(writer, profile, &profile->allocators[i], options);
    json_writer_array_end(writer);
    json_writer_object_end(writer);
}

void summary_report_json_to(struct json_writer *writer, const struct profile *profile,
                            const char *host, const struct summary_report_options *options)
{
    summary_report_json_in_run_to(writer, profile, NULL, host, options);
}

void summary_report_json_error_to(struct json_writer *writer, const char *path,
                                  const char *host, struct text error)
{
    summary_report_json_error_in_run_to(writer, path, NULL, host, error);
}

void summary_report_json(FILE *out, const struct profile *profile, const char *host)
{
    struct json_writer writer;
    json_writer_init(&writer, out);
    summary_report_json_to(&writer, profile, host, NULL);
}

void summary_report_json_error(FILE *out, const char *path, const char *host, struct text error)
{
    struct json_writer writer;
    json_writer_init(&writer, out);
    summary_report_json_error_to(&writer, path, host, error);
}

void summary_report_json_string(FILE *out, const char *text)
{
    json_write_string(out, text);
}
