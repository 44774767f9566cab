/* load_json: MemoryProfile as proto3 JSON (what XProf's MessageToJsonString
 * writes), into an xprof_draft (model/xprof_draft.h).
 *
 * The document's outline (the top-level object, the allocator map, each
 * allocator's object, the arrays in it) is walked in place by json_stream;
 * each value inside it (one snapshot, say) is parsed alone by cJSON and
 * read by the tables below through proto3_json, which knows what a proto3
 * JSON reader must accept. Memory stays near the size of the columns. */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "model/input_format.h"
#include "model/decode/json_stream.h"
#include "model/decode/json_string.h"
#include "model/decode/proto3_json.h"
#include "model/formats/memory_profile/xprof_draft.h"

/* ---- the messages ---- */

static const struct json_enum memory_activity_enum = {
    "MemoryActivity", memory_activity_name, MEMORY_ACTIVITY_EXPANSION + 1,
};

/* MemoryAggregationStats, onto a struct memory_stats: a summary's peak, or
 * a snapshot's stats (see SNAPSHOT_STATS_OFFSET). */
static const struct json_field stats_fields[] = {
    JSON_FIELD("stackReservedBytes", "stack_reserved_bytes", JSON_INT64, struct memory_stats,
               stack_bytes),
    JSON_FIELD("heapAllocatedBytes", "heap_allocated_bytes", JSON_INT64, struct memory_stats,
               heap_bytes),
    JSON_FIELD("freeMemoryBytes", "free_memory_bytes", JSON_INT64, struct memory_stats,
               free_bytes),
    JSON_FIELD("fragmentation", "fragmentation", JSON_DOUBLE, struct memory_stats,
               fragmentation),
    JSON_FIELD("peakBytesInUse", "peak_bytes_in_use", JSON_INT64, struct memory_stats,
               peak_bytes_in_use),
};
static const struct json_message stats_message = JSON_MESSAGE_OF(stats_fields);

/* MemoryActivityMetadata lands in a snapshot's metadata fields; alone, it
 * is a special allocation. */
static const struct json_field metadata_fields[] = {
    JSON_ENUM_FIELD("memoryActivity", "memory_activity", struct snapshot, activity,
                    memory_activity_enum),
    JSON_FIELD("requestedBytes", "requested_bytes", JSON_INT64, struct snapshot, requested_bytes),
    JSON_FIELD("allocationBytes", "allocation_bytes", JSON_INT64, struct snapshot,
               allocation_bytes),
    JSON_FIELD("address", "address", JSON_UINT64, struct snapshot, address),
    JSON_FIELD("tfOpName", "tf_op_name", JSON_STRING, struct snapshot, op_name),
    JSON_FIELD("stepId", "step_id", JSON_INT64, struct snapshot, step_id),
    JSON_FIELD("regionType", "region_type", JSON_STRING, struct snapshot, region_type),
    JSON_FIELD("dataType", "data_type", JSON_STRING, struct snapshot, data_type),
    JSON_FIELD("tensorShape", "tensor_shape", JSON_STRING, struct snapshot, tensor_shape),
};
static const struct json_message metadata_message = JSON_MESSAGE_OF(metadata_fields);

static const struct json_field snapshot_fields[] = {
    JSON_SUBMESSAGE_AT("aggregationStats", "aggregation_stats", stats_message,
                       SNAPSHOT_STATS_OFFSET),
    JSON_SUBMESSAGE("activityMetadata", "activity_metadata", metadata_message),
    JSON_FIELD("timeOffsetPs", "time_offset_ps", JSON_INT64, struct snapshot, time_ps),
};
static const struct json_message snapshot_message = JSON_MESSAGE_OF(snapshot_fields);

/* MemoryProfileSummary. */
static const struct json_field summary_fields[] = {
    JSON_SUBMESSAGE_AT("peakStats", "peak_stats", stats_message,
                       offsetof(struct allocator_summary, peak)),
    JSON_FIELD("peakBytesUsageLifetime", "peak_bytes_usage_lifetime", JSON_INT64,
               struct allocator_summary, lifetime_peak_bytes),
    JSON_FIELD("peakStatsTimePs", "peak_stats_time_ps", JSON_INT64, struct allocator_summary,
               peak_time_ps),
    JSON_FIELD("memoryCapacity", "memory_capacity", JSON_INT64, struct allocator_summary,
               capacity_bytes),
};
static const struct json_message summary_message = JSON_MESSAGE_OF(summary_fields);

static const struct json_field active_fields[] = {
    JSON_FIELD("snapshotIndex", "snapshot_index", JSON_INT64, struct active_allocation,
               snapshot_index),
    JSON_FIELD("specialIndex", "special_index", JSON_INT64, struct active_allocation,
               special_index),
    JSON_FIELD("numOccurrences", "num_occurrences", JSON_INT64, struct active_allocation,
               occurrences),
};
static const struct json_message active_message = JSON_MESSAGE_OF(active_fields);

static const struct json_field hlo_module_fields[] = {
    JSON_FIELD("name", "name", JSON_STRING, struct hlo_module, name),
    JSON_FIELD("startTimePs", "start_time_ps", JSON_INT64, struct hlo_module, start_time_ps),
    JSON_FIELD("endTimePs", "end_time_ps", JSON_INT64, struct hlo_module, end_time_ps),
    JSON_FIELD("id", "id", JSON_INT64, struct hlo_module, id),
    JSON_FIELD("planeName", "plane_name", JSON_STRING, struct hlo_module, plane_name),
};
static const struct json_message hlo_module_message = JSON_MESSAGE_OF(hlo_module_fields);

/* The MemoryProfile's scalars; its map, memory ids and HLO modules are
 * read by the outline below. */
static const struct json_field profile_fields[] = {
    JSON_FIELD("numHosts", "num_hosts", JSON_INT32, struct xprof_draft, num_hosts),
    JSON_FIELD("version", "version", JSON_INT32, struct xprof_draft, version),
};
static const struct json_message profile_message = JSON_MESSAGE_OF(profile_fields);

/* ---- the loader ---- */

struct json_loader {
    struct json_stream stream;
    struct json_reader reader;
    struct xprof_draft *draft;
};

/* The repeated fields whose elements are streamed one by one. */
enum json_list_kind {
    LIST_SNAPSHOTS, /* memory_profile_snapshots */
    LIST_SAMPLED,   /* sampled_timeline_snapshots */
    LIST_SPECIALS,  /* special_allocations */
    LIST_ACTIVE,    /* active_allocations */
    LIST_HLO_MODULES,
};

struct json_list {
    struct json_loader *loader;
    enum json_list_kind kind;
    size_t allocator; /* for an allocator's lists */
};

static const struct json_message *const list_messages[] = {
    [LIST_SNAPSHOTS] = &snapshot_message, [LIST_SAMPLED] = &snapshot_message,
    [LIST_SPECIALS] = &metadata_message,  [LIST_ACTIVE] = &active_message,
    [LIST_HLO_MODULES] = &hlo_module_message,
};

/* One element of a list, read from a zeroed struct. */
union json_element {
    struct snapshot snapshot;
    struct active_allocation active;
    struct hlo_module module;
};

static bool json_list_store(const struct json_list *list, const union json_element *element)
{
    struct xprof_draft *draft = list->loader->draft;
    struct xprof_allocator *allocator =
        list->kind == LIST_HLO_MODULES ? NULL : &draft->allocators[list->allocator];
    switch (list->kind) {
    case LIST_SNAPSHOTS: return snapshot_columns_append(&allocator->snapshots, &element->snapshot);
    case LIST_SAMPLED: return snapshot_columns_append(&allocator->sampled, &element->snapshot);
    case LIST_SPECIALS: return snapshot_columns_append(&allocator->specials, &element->snapshot);
    case LIST_ACTIVE: return xprof_allocator_add_active(allocator, &element->active);
    case LIST_HLO_MODULES: return xprof_draft_add_hlo_module(draft, &element->module);
    }
    return true;
}

static enum load_status json_list_element(const struct json_stream *stream, void *context,
                                          const struct json_path *path, size_t *offset,
                                          size_t depth)
{
    const struct json_list *list = context;
    cJSON *item;
    enum load_status status = json_stream_parse_value(stream, offset, depth, &item);
    if (status != LOAD_OK)
        return status;
    union json_element element;
    memset(&element, 0, sizeof element);
    status = proto3_json_read_message(&list->loader->reader, item, path,
                                      list_messages[list->kind], &element);
    cJSON_Delete(item);
    if (status == LOAD_OK && !json_list_store(list, &element))
        status = json_no_memory(stream->error);
    return status;
}

/* ---- PerAllocatorMemoryProfile ---- */

/* Which of an allocator's lists `key` names; -1 none. */
static int json_allocator_list(const char *key)
{
    static const char *const names[][2] = {
        [LIST_SNAPSHOTS] = {"memoryProfileSnapshots", "memory_profile_snapshots"},
        [LIST_SAMPLED] = {"sampledTimelineSnapshots", "sampled_timeline_snapshots"},
        [LIST_SPECIALS] = {"specialAllocations", "special_allocations"},
        [LIST_ACTIVE] = {"activeAllocations", "active_allocations"},
    };
    for (int i = 0; i <= LIST_ACTIVE; i++)
        if (strcmp(key, names[i][0]) == 0 || strcmp(key, names[i][1]) == 0)
            return i;
    return -1;
}

/* A PerAllocatorMemoryProfile member that is not streamed. A list that
 * reaches here is no array (arrays are streamed); null keeps the default,
 * unknown members are ignored. */
static enum load_status json_read_allocator_member(struct json_loader *loader, const cJSON *member,
                                                   const struct json_path *path, size_t index)
{
    if (cJSON_IsNull(member))
        return LOAD_OK;
    if (json_allocator_list(member->string) >= 0)
        return proto3_json_expect_array(&loader->reader, member, path);
    if (!proto3_json_key_is(member->string, "profileSummary", "profile_summary"))
        return LOAD_OK;
    struct allocator_summary summary = {0};
    enum load_status status =
        proto3_json_read_message(&loader->reader, member, path, &summary_message, &summary);
    if (status == LOAD_OK)
        xprof_allocator_set_summary(&loader->draft->allocators[index], summary.capacity_bytes,
                                    summary.lifetime_peak_bytes, &summary.peak,
                                    summary.peak_time_ps);
    return status;
}

struct json_allocator {
    struct json_loader *loader;
    size_t index;
};

static enum load_status json_allocator_member(const struct json_stream *stream, void *context,
                                              const char *key, const struct json_path *path,
                                              size_t *offset, size_t depth)
{
    const struct json_allocator *allocator = context;
    int list = json_allocator_list(key);
    if (list >= 0 && json_stream_at(stream, *offset, '[')) {
        struct json_list target = {allocator->loader, (enum json_list_kind)list, allocator->index};
        return json_stream_array(stream, offset, depth, path, json_list_element, &target);
    }
    cJSON *item;
    enum load_status status = json_stream_member_value(stream, offset, depth, key, &item);
    if (status == LOAD_OK)
        status = json_read_allocator_member(allocator->loader, item, path, allocator->index);
    cJSON_Delete(item);
    return status;
}

/* One memoryProfilePerAllocator entry: key and PerAllocatorMemoryProfile.
 * A key given again starts its allocator afresh: the last entry wins. */
static enum load_status json_allocator_entry(const struct json_stream *stream, void *context,
                                             const char *key, const struct json_path *path,
                                             size_t *offset, size_t depth)
{
    (void)key; /* it may hold a NUL: the path has all of it */
    struct json_loader *loader = context;
    if (json_stream_at(stream, *offset, '{')) {
        struct json_allocator allocator = {loader, 0};
        struct text id = json_path_key(path);
        if (!xprof_draft_begin_entry(loader->draft, id.bytes, id.length, &allocator.index))
            return json_no_memory(stream->error);
        return json_stream_object(stream, offset, depth, path, json_allocator_member, &allocator);
    }
    cJSON *item;
    enum load_status status = json_stream_parse_value(stream, offset, depth, &item);
    if (status == LOAD_OK)
        status = proto3_json_expect_object(&loader->reader, item, path);
    cJSON_Delete(item);
    return status;
}

/* ---- MemoryProfile ---- */

static enum load_status json_read_memory_ids(struct json_loader *loader, const cJSON *array,
                                             const struct json_path *path)
{
    enum load_status status = proto3_json_expect_array(&loader->reader, array, path);
    size_t index = 0;
    const cJSON *element;
    cJSON_ArrayForEach(element, array) {
        if (status != LOAD_OK)
            break;
        struct json_path element_path = {path, NULL, index++, 0};
        struct text id = json_string_text(element);
        if (!cJSON_IsString(element))
            status = json_fail(loader->reader.error, &element_path, "a string", element);
        else if (!xprof_draft_add_memory_id(loader->draft, id.bytes, id.length))
            status = json_no_memory(loader->reader.error);
    }
    return status;
}

/* A member of the MemoryProfile that is not streamed: the map and the
 * HLO modules reach here only when they are not an object or array. */
static enum load_status json_read_profile_member(struct json_loader *loader, const cJSON *member,
                                                 const struct json_path *path)
{
    const char *key = member->string;
    if (cJSON_IsNull(member))
        return LOAD_OK;
    if (proto3_json_key_is(key, "memoryProfilePerAllocator", "memory_profile_per_allocator"))
        return proto3_json_expect_object(&loader->reader, member, path);
    if (proto3_json_key_is(key, "memoryIds", "memory_ids"))
        return json_read_memory_ids(loader, member, path);
    if (proto3_json_key_is(key, "hloModules", "hlo_modules"))
        return proto3_json_expect_array(&loader->reader, member, path);
    return proto3_json_read_member(&loader->reader, member, path, &profile_message,
                                   loader->draft);
}

static enum load_status json_profile_member(const struct json_stream *stream, void *context,
                                            const char *key, const struct json_path *path,
                                            size_t *offset, size_t depth)
{
    struct json_loader *loader = context;
    if ((strcmp(key, "memoryProfilePerAllocator") == 0 ||
         strcmp(key, "memory_profile_per_allocator") == 0) &&
        json_stream_at(stream, *offset, '{'))
        return json_stream_object(stream, offset, depth, path, json_allocator_entry, loader);
    if ((strcmp(key, "hloModules") == 0 || strcmp(key, "hlo_modules") == 0) &&
        json_stream_at(stream, *offset, '[')) {
        struct json_list modules = {loader, LIST_HLO_MODULES, 0};
        return json_stream_array(stream, offset, depth, path, json_list_element, &modules);
    }
    cJSON *item;
    enum load_status status = json_stream_member_value(stream, offset, depth, key, &item);
    if (status == LOAD_OK)
        status = json_read_profile_member(loader, item, path);
    cJSON_Delete(item);
    return status;
}

/* Some tools wrap the object in a one-element array: the first element
 * is read when it is an object; the others only parsed and counted. */
struct json_wrapper {
    struct json_loader *loader;
    size_t count;
    bool object;  /* the first element was an object, read as the profile */
    cJSON *first; /* the first element otherwise */
};

static enum load_status json_wrapped(const struct json_stream *stream, void *context,
                                     const struct json_path *path, size_t *offset, size_t depth)
{
    (void)path;
    struct json_wrapper *wrapper = context;
    if (wrapper->count++ == 0 && json_stream_at(stream, *offset, '{')) {
        wrapper->object = true;
        return json_stream_object(stream, offset, depth, NULL, json_profile_member,
                                  wrapper->loader);
    }
    cJSON *item;
    enum load_status status = json_stream_parse_value(stream, offset, depth, &item);
    if (wrapper->count == 1)
        wrapper->first = item;
    else
        cJSON_Delete(item);
    return status;
}

/* The top level: the profile object, or the array wrapping it, then
 * nothing but blanks. Anything else is no MemoryProfile. */
static enum load_status json_read_document(struct json_loader *loader)
{
    const struct json_stream *stream = &loader->stream;
    if (stream->size == 0)
        return json_stream_fail(stream, 0);
    size_t offset = json_stream_start(stream);
    struct json_wrapper wrapper = {loader, 0, false, NULL};
    cJSON *top = NULL;
    bool object = json_stream_at(stream, offset, '{');
    enum load_status status;
    if (object) {
        status = json_stream_object(stream, &offset, 0, NULL, json_profile_member, loader);
    } else if (json_stream_at(stream, offset, '[')) {
        status = json_stream_array(stream, &offset, 0, NULL, json_wrapped, &wrapper);
        object = wrapper.count == 1 && wrapper.object;
        top = wrapper.first;
        if (!object && wrapper.count != 1) {
            /* Not one element: the array itself is what the file has. */
            cJSON_Delete(top);
            top = cJSON_CreateArray();
        }
    } else {
        status = json_stream_parse_value(stream, &offset, 0, &top);
    }
    if (status == LOAD_OK)
        status = json_stream_finish(stream, offset);
    if (status == LOAD_OK && !object)
        status = top ? json_fail(stream->error, NULL, "a MemoryProfile object", top)
                     : json_no_memory(stream->error);
    cJSON_Delete(top);
    return status;
}

enum load_status load_json_tracked(const uint8_t *bytes, size_t size, struct xprof_draft *draft,
                                   struct load_tracker *tracker, struct load_error *error)
{
    struct load_error unused;
    struct json_loader loader = {.draft = draft};
    json_stream_init(&loader.stream, bytes, size, error ? error : &unused, tracker);
    loader.reader = (struct json_reader){loader.stream.error, xprof_draft_strings(draft)};
    return json_read_document(&loader);
}

enum load_status load_json(const uint8_t *bytes, size_t size, struct xprof_draft *draft,
                           struct load_error *error)
{
    return load_json_tracked(bytes, size, draft, NULL, error);
}

/* ---- the row of the format table ---- */

/* JSON when the first byte past blanks (and a UTF-8 byte order mark) opens
 * an object or an array. A protobuf MemoryProfile starts with a field tag:
 * '{' (0x7b) would be field 15 with wire type 3, which it never has. */
static unsigned json_probe(const uint8_t *bytes, size_t size)
{
    size_t i = 0;
    if (size >= 3 && bytes[0] == 0xef && bytes[1] == 0xbb && bytes[2] == 0xbf)
        i = 3;
    while (i < size && (bytes[i] == ' ' || bytes[i] == '\t' || bytes[i] == '\n' || bytes[i] == '\r'))
        i++;
    return i < size && (bytes[i] == '{' || bytes[i] == '[') ? PROBE_LIKELY : PROBE_NO;
}

static enum load_status json_load(const struct load_input *input, struct profile_builder *builder,
                                  struct load_error *error)
{
    return xprof_draft_load(input, builder, load_json_tracked, error);
}

static const char *const json_suffixes[] = {".json", ".json.gz", NULL};

const struct input_format memory_profile_json_format = {
    .name = "json",
    .description = "MemoryProfile, proto3 JSON (XProf's .memory_profile.json)",
    .probe = json_probe,
    .load = json_load,
    .suffixes = json_suffixes,
    .host_before_first_dot = true,
};
