/* export_chrome_trace: any profile as a Chrome trace, for Perfetto and
 * chrome://tracing, that memtop reads back as the same profile.
 *
 * What a trace viewer shows: one process per allocator (named by its id)
 * with a counter track "memory in use" and, where the format records
 * them, the parts (heap, stack, free) stacked in "memory parts"; one
 * instant event per snapshot on its "events" thread, named by its
 * activity, with the snapshot's fields in args; the HLO modules as
 * slices of one more process, one thread per program (and per lane where
 * modules overlap, since a thread's slices must nest). Times are
 * microseconds as trace viewers count them, from the profile's time 0.
 *
 * What makes it round-trip: a "memtop" member before traceEvents holds
 * what a trace has no place for (each allocator's summary, rows, timeline
 * kind and unknown fields; the profile's version), and each snapshot's
 * instant holds every field exactly (times in picoseconds, integers), by
 * the tables of model/formats/chrome_trace/chrome_trace_fields.h that the importer
 * (model/formats/chrome_trace/load_trace_memtop.c) reads. Strings are written as json_writer
 * writes them, whole (a NUL byte is \u0000): valid UTF-8 and safe on a
 * terminal (controls escaped, invalid UTF-8 as U+FFFD); a field whose
 * text is not valid UTF-8 also gets its bytes in hex (FIELD_hex), so that
 * it comes back as it was. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/formats/chrome_trace/chrome_trace_fields.h"
#include "model/stack_text.h"
#include "model/format.h"
#include "report/export.h"
#include "report/json_writer.h"

/* Allocator i is process i + 1; the HLO modules come after them. */
#define EVENTS_THREAD 1

/* Whether JSON holds the text as it is (a NUL byte is U+0000: it does). */
static bool text_is_utf8(struct text text)
{
    uint32_t code_point;
    for (size_t at = 0, length; at < text.length; at += length)
        if ((length = format_utf8_decode_bytes(text.bytes + at, text.length - at,
                                               &code_point)) == 0)
            return false;
    return true;
}

/* A string field; its bytes in hex too when JSON cannot hold them. */
static void write_text_field(struct json_writer *writer, const char *name, struct text text)
{
    json_writer_bytes(writer, text);
    if (text_is_utf8(text))
        return;
    char key[64], *hex = malloc(2 * text.length + 1);
    if (!hex) {
        writer->error = writer->error ? writer->error : ENOMEM;
        return;
    }
    for (size_t i = 0; i < text.length; i++)
        snprintf(hex + 2 * i, 3, "%02x", (unsigned char)text.bytes[i]);
    snprintf(key, sizeof key, "%s" CHROME_TRACE_HEX_SUFFIX, name);
    json_writer_member_string(writer, key, hex);
    free(hex);
}

static void write_fields(struct json_writer *writer, const struct profile *profile,
                         const struct chrome_trace_fields *table, const void *record)
{
    struct stack_text drawn = {0}; /* a stack kept as frames, made into text */
    for (size_t i = 0; i < table->count; i++) {
        const struct chrome_trace_field *field = &table->fields[i];
        const char *at = (const char *)record + field->offset;
        json_writer_key(writer, field->name);
        switch (field->kind) {
        case CHROME_TRACE_INT64: json_writer_int(writer, *(const int64_t *)(const void *)at); break;
        case CHROME_TRACE_UINT64:
            json_writer_unsigned(writer, *(const uint64_t *)(const void *)at);
            break;
        case CHROME_TRACE_INT: json_writer_int(writer, *(const int *)(const void *)at); break;
        case CHROME_TRACE_DOUBLE:
            json_writer_double(writer, *(const double *)(const void *)at);
            break;
        case CHROME_TRACE_BOOL: json_writer_bool(writer, *(const bool *)(const void *)at); break;
        case CHROME_TRACE_SIZE:
            json_writer_unsigned(writer, *(const size_t *)(const void *)at);
            break;
        case CHROME_TRACE_STRING:
            write_text_field(writer, field->name,
                             profile_string(profile, *(const uint32_t *)(const void *)at));
            break;
        case CHROME_TRACE_STACK:
            write_text_field(writer, field->name,
                             stack_text_draw(profile, *(const uint32_t *)(const void *)at,
                                             &drawn));
            break;
        }
    }
    stack_text_free(&drawn);
}

/* ---- the "memtop" member ---- */

static void write_marker_allocator(struct json_writer *writer, const struct profile *profile,
                                   const struct allocator *allocator, int64_t pid)
{
    json_writer_object_begin(writer);
    json_writer_member_bytes(writer, "id", profile_string(profile, allocator->id));
    json_writer_member_int(writer, "pid", pid);
    const char *timeline = chrome_trace_timeline_name(allocator->timeline_kind);
    json_writer_member_string(writer, "timeline", timeline ? timeline : "complete");
    json_writer_key(writer, "unknown");
    json_writer_array_begin(writer);
    const char *name;
    for (int bit = 0; (name = chrome_trace_unknown_field_name(bit)) != NULL; bit++)
        if (allocator->unknown_fields & (1u << bit))
            json_writer_string(writer, name);
    json_writer_array_end(writer);
    json_writer_key(writer, "summary");
    json_writer_object_begin(writer);
    write_fields(writer, profile, &chrome_trace_summary_fields, &allocator->summary);
    json_writer_object_end(writer);
    /* XProf's table where the file had one (the live set is made again
     * from the timeline when read back), else the rows (issue 22). */
    size_t row_count = 0;
    const struct allocation_row *rows = allocator_xprof_rows(allocator, &row_count);
    bool xprof = allocator->xprof_kept || allocator->rows_kind == ALLOCATOR_ROWS_XPROF;
    json_writer_member_string(writer, "rows_kind",
                              xprof ? "xprof"
                              : allocator->rows_kind == ALLOCATOR_ROWS_LIVE ? "live"
                                                                            : "recorded");
    if (!xprof && allocator->rows_kind == ALLOCATOR_ROWS_LIVE)
        json_writer_member_unsigned(writer, "live_allocations", allocator->live_allocations);
    json_writer_key(writer, "rows");
    json_writer_array_begin(writer);
    for (size_t i = 0; i < row_count; i++) {
        json_writer_object_begin(writer);
        const char *origin = chrome_trace_origin_name(rows[i].origin);
        json_writer_member_string(writer, "origin", origin ? origin : "unresolved");
        write_fields(writer, profile, &chrome_trace_row_fields, &rows[i]);
        json_writer_object_end(writer);
    }
    json_writer_array_end(writer);
    json_writer_object_end(writer);
}

/* The allocators exported: all, or the request's one. */
struct exported {
    const struct allocator *const *allocators;
    size_t count;
};

static void write_marker(struct json_writer *writer, const struct profile *profile,
                         const struct exported *exported)
{
    json_writer_key(writer, "memtop");
    json_writer_object_begin(writer);
    json_writer_member_int(writer, "version", CHROME_TRACE_MEMTOP_VERSION);
    json_writer_member_string(writer, "source", profile->path);
    json_writer_member_string(writer, "source_format", profile_format_name(profile->format));
    if (profile->version_known) /* a trace's own export has none to give */
        json_writer_member_int(writer, "profile_version", profile->version);
    json_writer_member_int(writer, "hosts", profile->num_hosts);
    json_writer_member_int(writer, "hlo_pid", (int64_t)exported->count + 1);
    json_writer_key(writer, "allocators");
    json_writer_array_begin(writer);
    for (size_t i = 0; i < exported->count; i++)
        write_marker_allocator(writer, profile, exported->allocators[i], (int64_t)i + 1);
    json_writer_array_end(writer);
    json_writer_object_end(writer);
}

/* ---- events ---- */

static void event_begin(struct json_writer *writer, const char *phase, struct text name,
                        int64_t pid)
{
    json_writer_object_begin(writer);
    json_writer_member_string(writer, "ph", phase);
    json_writer_member_bytes(writer, "name", name);
    json_writer_member_int(writer, "pid", pid);
}

/* Microseconds, as trace viewers count (the exact picoseconds are in
 * the args where they matter). */
static void event_time(struct json_writer *writer, const char *key, int64_t time_ps)
{
    json_writer_member_double(writer, key, (double)time_ps / 1e6);
}

/* process_name and the like: {"ph":"M","name":NAME,"pid":P[,"tid":T],"args":{KEY:VALUE}},
 * VALUE a text (a profile's, with its length) or a number. */
static void metadata_begin(struct json_writer *writer, const char *name, int64_t pid,
                           int64_t tid)
{
    event_begin(writer, "M", text_of(name), pid);
    if (tid >= 0)
        json_writer_member_int(writer, "tid", tid);
    json_writer_key(writer, "args");
    json_writer_object_begin(writer);
}

static void write_metadata_text(struct json_writer *writer, const char *name, int64_t pid,
                                int64_t tid, const char *key, struct text text)
{
    metadata_begin(writer, name, pid, tid);
    json_writer_member_bytes(writer, key, text);
    json_writer_object_end(writer);
    json_writer_object_end(writer);
}

static void write_metadata_number(struct json_writer *writer, const char *name, int64_t pid,
                                  const char *key, int64_t number)
{
    metadata_begin(writer, name, pid, -1);
    json_writer_member_int(writer, key, number);
    json_writer_object_end(writer);
    json_writer_object_end(writer);
}

/* The counters of snapshot i: in use, then the parts the format has. */
static size_t write_counters(struct json_writer *writer, const struct allocator *allocator,
                             size_t i, int64_t pid)
{
    const struct snapshot_columns *timeline = &allocator->timeline;
    unsigned unknown = allocator->unknown_fields;
    event_begin(writer, "C", text_of("memory"), pid);
    event_time(writer, "ts", snapshot_columns_time(timeline, i));
    json_writer_key(writer, "args");
    json_writer_object_begin(writer);
    json_writer_member_int(writer, "in use", snapshot_columns_in_use(timeline, i));
    json_writer_object_end(writer);
    json_writer_object_end(writer);
    if ((unknown & ALLOCATOR_FIELD_STACK) && (unknown & ALLOCATOR_FIELD_FREE))
        return 1; /* heap alone is what is in use */
    event_begin(writer, "C", text_of("memory parts"), pid);
    event_time(writer, "ts", snapshot_columns_time(timeline, i));
    json_writer_key(writer, "args");
    json_writer_object_begin(writer);
    json_writer_member_int(writer, "heap", timeline->heap_bytes[i]);
    if (!(unknown & ALLOCATOR_FIELD_STACK))
        json_writer_member_int(writer, "stack", snapshot_columns_stack_bytes(timeline, i));
    if (!(unknown & ALLOCATOR_FIELD_FREE))
        json_writer_member_int(writer, "free", snapshot_columns_free_bytes(timeline, i));
    json_writer_object_end(writer);
    json_writer_object_end(writer);
    return 2;
}

/* Snapshot i as an instant of its allocator's events thread. */
static void write_instant(struct json_writer *writer, const struct profile *profile,
                          const struct snapshot_columns *timeline, size_t i, int64_t pid)
{
    struct snapshot snapshot;
    snapshot_columns_get(timeline, i, &snapshot);
    event_begin(writer, "i", text_of(memory_activity_label(snapshot.activity)), pid);
    json_writer_member_string(writer, "cat", "memtop");
    json_writer_member_string(writer, "s", "t");
    json_writer_member_int(writer, "tid", EVENTS_THREAD);
    event_time(writer, "ts", snapshot.time_ps);
    json_writer_key(writer, "args");
    json_writer_object_begin(writer);
    write_fields(writer, profile, &chrome_trace_snapshot_fields, &snapshot);
    json_writer_object_end(writer);
    json_writer_object_end(writer);
}

static size_t write_allocator(struct json_writer *writer, const struct profile *profile,
                              const struct allocator *allocator, int64_t pid)
{
    write_metadata_text(writer, "process_name", pid, -1, "name",
                        profile_string(profile, allocator->id));
    write_metadata_number(writer, "process_sort_index", pid, "sort_index", pid);
    write_metadata_text(writer, "thread_name", pid, EVENTS_THREAD, "name", text_of("events"));
    size_t events = 3;
    for (size_t i = 0; i < allocator->timeline.count && !writer->error; i++) {
        events += write_counters(writer, allocator, i, pid);
        write_instant(writer, profile, &allocator->timeline, i, pid);
        events++;
    }
    return events;
}

/* ---- HLO modules: a process of their own, a thread per program ---- */

/* The lane (thread) of each module: the first of its program's lanes
 * whose last module ended by its start, or a new one. */
static void hlo_lanes(const struct profile *profile, int64_t *lane, uint32_t *lane_plane,
                      int64_t *lane_end, size_t *lane_count)
{
    *lane_count = 0;
    for (size_t m = 0; m < profile->hlo_module_count; m++) {
        const struct hlo_module *module = &profile->hlo_modules[m];
        size_t l = 0;
        while (l < *lane_count &&
               (lane_plane[l] != module->plane_name || lane_end[l] > module->start_time_ps))
            l++;
        if (l == *lane_count) {
            lane_plane[l] = module->plane_name;
            (*lane_count)++;
        }
        lane_end[l] = module->end_time_ps > module->start_time_ps ? module->end_time_ps
                                                                  : module->start_time_ps;
        lane[m] = (int64_t)l + 1;
    }
}

static size_t write_hlo_modules(struct json_writer *writer, const struct profile *profile,
                                int64_t pid)
{
    size_t count = profile->hlo_module_count;
    if (count == 0)
        return 0;
    int64_t *lane = malloc(count * sizeof *lane);
    uint32_t *lane_plane = malloc(count * sizeof *lane_plane);
    int64_t *lane_end = malloc(count * sizeof *lane_end);
    size_t lanes = 0, events = 0;
    if (!lane || !lane_plane || !lane_end) {
        writer->error = writer->error ? writer->error : ENOMEM;
    } else {
        hlo_lanes(profile, lane, lane_plane, lane_end, &lanes);
        write_metadata_text(writer, "process_name", pid, -1, "name", text_of("HLO modules"));
        write_metadata_number(writer, "process_sort_index", pid, "sort_index", pid);
        for (size_t l = 0; l < lanes; l++) {
            struct text plane = profile_string(profile, lane_plane[l]);
            write_metadata_text(writer, "thread_name", pid, (int64_t)l + 1, "name",
                                plane.length ? plane : text_of("modules"));
        }
        events = 2 + lanes;
        for (size_t m = 0; m < count && !writer->error; m++, events++) {
            const struct hlo_module *module = &profile->hlo_modules[m];
            event_begin(writer, "X", profile_string(profile, module->name), pid);
            json_writer_member_string(writer, "cat", "memtop_hlo");
            json_writer_member_int(writer, "tid", lane[m]);
            event_time(writer, "ts", module->start_time_ps);
            event_time(writer, "dur", module->end_time_ps > module->start_time_ps
                                          ? module->end_time_ps - module->start_time_ps
                                          : 0);
            json_writer_key(writer, "args");
            json_writer_object_begin(writer);
            write_fields(writer, profile, &chrome_trace_hlo_fields, module);
            json_writer_object_end(writer);
            json_writer_object_end(writer);
        }
    }
    free(lane);
    free(lane_plane);
    free(lane_end);
    return events;
}

size_t export_chrome_trace(struct json_writer *writer, const struct export_request *request)
{
    const struct profile *profile = request->profile;
    const struct allocator *one[1] = {request->allocator};
    const struct allocator **all = NULL;
    struct exported exported = {one, 1};
    if (!request->allocator) {
        all = malloc((profile->allocator_count ? profile->allocator_count : 1) * sizeof *all);
        if (!all) {
            writer->error = ENOMEM;
            return 0;
        }
        for (size_t i = 0; i < profile->allocator_count; i++)
            all[i] = &profile->allocators[i];
        exported = (struct exported){all, profile->allocator_count};
    }
    json_writer_object_begin(writer);
    write_marker(writer, profile, &exported);
    json_writer_member_string(writer, "displayTimeUnit", "ns");
    json_writer_key(writer, "traceEvents");
    json_writer_array_begin(writer);
    size_t events = 0;
    for (size_t i = 0; i < exported.count && !writer->error; i++)
        events += write_allocator(writer, profile, exported.allocators[i], (int64_t)i + 1);
    events += write_hlo_modules(writer, profile, (int64_t)exported.count + 1);
    json_writer_array_end(writer);
    json_writer_object_end(writer);
    free(all);
    return events;
}
