#include "config.h"

#include "report/summary_report.h"

#include "report/json_writer.h"

static void json_peak(struct json_writer *writer, const struct allocator_summary *summary)
{
    json_writer_key(writer, "peak");
    json_writer_object_begin(writer);
    json_writer_key(writer, "bytes");
    json_writer_int(writer, summary->peak_bytes);
    json_writer_key(writer, "time_ps");
    json_writer_int(writer, summary->peak_time_ps);
    json_writer_key(writer, "heap_bytes");
    json_writer_int(writer, summary->peak.heap_bytes);
    json_writer_key(writer, "stack_bytes");
    json_writer_int(writer, summary->peak.stack_bytes);
    json_writer_key(writer, "free_bytes");
    json_writer_int(writer, summary->peak.free_bytes);
    json_writer_key(writer, "fragmentation");
    json_writer_double(writer, summary->peak.fragmentation);
    json_writer_object_end(writer);
}

static void json_allocator(struct json_writer *writer, const struct profile *profile,
                           const struct allocator *allocator)
{
    const struct allocator_summary *summary = &allocator->summary;
    json_writer_object_begin(writer);
    json_writer_key(writer, "id");
    json_writer_string(writer, profile_text(profile, allocator->id));
    json_writer_key(writer, "snapshots");
    json_writer_unsigned(writer, allocator->timeline.count);
    json_writer_key(writer, "allocations");
    json_writer_unsigned(writer, summary->allocations);
    json_writer_key(writer, "deallocations");
    json_writer_unsigned(writer, summary->deallocations);
    json_writer_key(writer, "capacity_bytes");
    json_writer_int(writer, summary->capacity_bytes);
    json_writer_key(writer, "lifetime_peak_bytes");
    json_writer_int(writer, summary->lifetime_peak_bytes);
    json_peak(writer, summary);
    json_writer_key(writer, "active_allocations");
    json_writer_unsigned(writer, allocator->row_count);
    json_writer_key(writer, "summary_computed");
    json_writer_bool(writer, summary->derived);
    json_writer_key(writer, "timeline_sampled");
    json_writer_bool(writer, allocator->timeline_sampled);
    json_writer_object_end(writer);
}

/* Opens the host's object: "host" (when there are several) and "file". */
static void json_host_and_file(struct json_writer *writer, const char *host, const char *path)
{
    json_writer_object_begin(writer);
    if (host) {
        json_writer_key(writer, "host");
        json_writer_string(writer, host);
    }
    json_writer_key(writer, "file");
    json_writer_string(writer, path);
}

void summary_report_json_error_to(struct json_writer *writer, const char *path,
                                  const char *host, const char *error)
{
    json_host_and_file(writer, host, path);
    json_writer_key(writer, "error");
    json_writer_string(writer, error);
    json_writer_object_end(writer);
}

void summary_report_json_to(struct json_writer *writer, const struct profile *profile,
                            const char *host)
{
    json_host_and_file(writer, host, profile->path);
    json_writer_key(writer, "format");
    json_writer_string(writer, profile_format_name(profile->format));
    json_writer_key(writer, "gzip");
    json_writer_bool(writer, profile->gzipped);
    json_writer_key(writer, "version");
    json_writer_int(writer, profile->version);
    json_writer_key(writer, "hosts");
    json_writer_int(writer, profile->num_hosts);
    json_writer_key(writer, "hlo_modules");
    json_writer_unsigned(writer, profile->hlo_module_count);
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

void summary_report_json_error(FILE *out, const char *path, const char *host, const char *error)
{
    struct json_writer writer;
    json_writer_init(&writer, out);
    summary_report_json_error_to(&writer, path, host, error);
}

void summary_report_json_string(FILE *out, const char *text)
{
    json_write_string(out, text);
}
