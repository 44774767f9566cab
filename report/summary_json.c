#include "config.h"

#include "report/summary_report.h"

#include "report/json_writer.h"

static void json_peak(struct json_writer *writer, const struct allocator_summary *summary)
{
    json_writer_key(writer, "peak");
    json_writer_object_begin(writer);
    json_writer_member_int(writer, "bytes", summary->peak_bytes);
    json_writer_member_int(writer, "time_ps", summary->peak_time_ps);
    json_writer_member_int(writer, "heap_bytes", summary->peak.heap_bytes);
    json_writer_member_int(writer, "stack_bytes", summary->peak.stack_bytes);
    json_writer_member_int(writer, "free_bytes", summary->peak.free_bytes);
    json_writer_member_double(writer, "fragmentation", summary->peak.fragmentation);
    json_writer_object_end(writer);
}

static void json_allocator(struct json_writer *writer, const struct profile *profile,
                           const struct allocator *allocator)
{
    const struct allocator_summary *summary = &allocator->summary;
    json_writer_object_begin(writer);
    json_writer_member_bytes(writer, "id", profile_string(profile, allocator->id));
    json_writer_member_unsigned(writer, "snapshots", allocator->timeline.count);
    json_writer_member_unsigned(writer, "allocations", summary->allocations);
    json_writer_member_unsigned(writer, "deallocations", summary->deallocations);
    json_writer_member_int(writer, "capacity_bytes", summary->capacity_bytes);
    json_writer_member_int(writer, "lifetime_peak_bytes", summary->lifetime_peak_bytes);
    json_peak(writer, summary);
    json_writer_member_unsigned(writer, "active_allocations", allocator->row_count);
    json_writer_member_bool(writer, "summary_computed", summary->derived);
    json_writer_member_bool(writer, "timeline_sampled", allocator->timeline_sampled);
    json_writer_object_end(writer);
}

/* Opens the host's object: "host" (when there are several) and "file". */
static void json_host_and_file(struct json_writer *writer, const char *host, const char *path)
{
    json_writer_object_begin(writer);
    if (host)
        json_writer_member_string(writer, "host", host);
    json_writer_member_string(writer, "file", path);
}

void summary_report_json_error_to(struct json_writer *writer, const char *path,
                                  const char *host, struct text error)
{
    json_host_and_file(writer, host, path);
    json_writer_member_bytes(writer, "error", error);
    json_writer_object_end(writer);
}

void summary_report_json_to(struct json_writer *writer, const struct profile *profile,
                            const char *host)
{
    json_host_and_file(writer, host, profile->path);
    json_writer_member_string(writer, "format", profile_format_name(profile->format));
    json_writer_member_bool(writer, "gzip", profile->gzipped);
    json_writer_member_int(writer, "version", profile->version);
    json_writer_member_int(writer, "hosts", profile->num_hosts);
    json_writer_member_unsigned(writer, "hlo_modules", profile->hlo_module_count);
    json_writer_key(writer, "allocators");
    json_writer_array_begin(writer);
    for (size_t i = 0; i < profile->allocator_count; i++)
        json_allocator(writer, profile, &profile->allocators[i]);
    json_writer_array_end(writer);
    json_writer_object_end(writer);
}

void summary_report_json(FILE *out, const struct profile *profile, const char *host)
{
    struct json_writer writer;
    json_writer_init(&writer, out);
    summary_report_json_to(&writer, profile, host);
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
