/* generate_profile_encode: how the generator's bytes are spelled
 * (tests/generate_profile).
 *
 * The buffered output, protobuf wire encoding field by field as protobuf-c
 * packs proto3, and proto3 JSON as XProf prints it (or the snake_case and
 * numbers variants readers meet), for one snapshot at a time. */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/formats/memory_profile/generate_profile.h"

/* ---- output ---- */

void output_flush(struct output *out)
{
    if (out->used > 0 && fwrite(out->buffer, 1, out->used, out->file) != out->used)
        fatal("write failed");
    out->used = 0;
}

/* Room for `bytes` (at most OUTPUT_RESERVE_MAX) at the end of the buffer. */
char *output_reserve(struct output *out, size_t bytes)
{
    if (out->used + bytes > OUTPUT_BUFFER_SIZE)
        output_flush(out);
    return out->buffer + out->used;
}

void output_bytes(struct output *out, const void *bytes, size_t size)
{
    if (size == 0)
        return;
    if (size > OUTPUT_BUFFER_SIZE / 2) {
        output_flush(out);
        if (fwrite(bytes, 1, size, out->file) != size)
            fatal("write failed");
        return;
    }
    memcpy(output_reserve(out, size), bytes, size);
    out->used += size;
}

uint8_t *bytes_reserve(struct bytes *bytes, size_t more)
{
    if (bytes->size + more > bytes->capacity) {
        size_t capacity = bytes->capacity ? bytes->capacity : 4096;
        while (capacity < bytes->size + more)
            capacity *= 2;
        bytes->data = checked_realloc(bytes->data, capacity, 1);
        bytes->capacity = capacity;
    }
    return bytes->data + bytes->size;
}
/* ---- protobuf wire encoding, field by field as protobuf-c packs proto3 ---- */

uint8_t *put_varint(uint8_t *p, uint64_t value)
{
    while (value >= 0x80) {
        *p++ = (uint8_t)(value | 0x80);
        value >>= 7;
    }
    *p++ = (uint8_t)value;
    return p;
}

size_t varint_size(uint64_t value)
{
    size_t size = 1;
    while (value >= 0x80) {
        value >>= 7;
        size++;
    }
    return size;
}

uint8_t *put_tag(uint8_t *p, unsigned field, unsigned wire)
{
    return put_varint(p, (uint64_t)(field << 3 | wire));
}

/* int64, int32 and enums: negative values take ten bytes, zero none. */
uint8_t *put_int64(uint8_t *p, unsigned field, int64_t value)
{
    if (value == 0)
        return p;
    return put_varint(put_tag(p, field, WIRE_VARINT), (uint64_t)value);
}

uint8_t *put_uint64(uint8_t *p, unsigned field, uint64_t value)
{
    if (value == 0)
        return p;
    return put_varint(put_tag(p, field, WIRE_VARINT), value);
}

uint8_t *put_double(uint8_t *p, unsigned field, double value)
{
    if (value == 0.0)
        return p;
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    p = put_tag(p, field, WIRE_FIXED64);
    for (int i = 0; i < 8; i++)
        *p++ = (uint8_t)(bits >> (8 * i));
    return p;
}

uint8_t *put_string(uint8_t *p, unsigned field, const char *text, size_t length)
{
    if (length == 0)
        return p;
    p = put_varint(put_tag(p, field, WIRE_LENGTH), length);
    memcpy(p, text, length);
    return p + length;
}

/* A present submessage is written even when empty. */
uint8_t *put_message(uint8_t *p, unsigned field, const uint8_t *body, size_t length)
{
    p = put_varint(put_tag(p, field, WIRE_LENGTH), length);
    memcpy(p, body, length);
    return p + length;
}

struct memory_stats event_stats(const struct event *event)
{
    return (struct memory_stats){event->stack_bytes, event->heap_bytes, event->free_bytes,
                                 event->fragmentation, event->peak_bytes_in_use};
}

size_t encode_stats(uint8_t *out, const struct memory_stats *stats)
{
    uint8_t *p = out;
    p = put_int64(p, 1, stats->stack_bytes);
    p = put_int64(p, 2, stats->heap_bytes);
    p = put_int64(p, 3, stats->free_bytes);
    p = put_double(p, 4, stats->fragmentation);
    p = put_int64(p, 5, stats->peak_bytes_in_use);
    return (size_t)(p - out);
}

size_t encode_metadata(uint8_t *out, const struct event *event, const struct event_text *text)
{
    uint8_t *p = out;
    p = put_int64(p, 1, event->activity);
    p = put_int64(p, 2, event->requested_bytes);
    p = put_int64(p, 3, event->allocation_bytes);
    p = put_uint64(p, 4, event->address);
    p = put_string(p, 5, text->op, text->op_length);
    p = put_int64(p, 6, event->step_id);
    p = put_string(p, 7, text->region, strlen(text->region));
    p = put_string(p, 8, text->dtype, strlen(text->dtype));
    p = put_string(p, 9, text->shape, text->shape_length);
    return (size_t)(p - out);
}

/* The MemoryProfileSnapshot body (without its own tag and length). */
size_t encode_snapshot(uint8_t *out, const struct event *event)
{
    struct event_text text;
    uint8_t stats[64], metadata[SNAPSHOT_BYTES_MAX / 2];
    tensor_text(&event->tensor, &text);
    struct memory_stats values = event_stats(event);
    size_t stats_length = encode_stats(stats, &values);
    size_t metadata_length = encode_metadata(metadata, event, &text);
    uint8_t *p = out;
    p = put_int64(p, 1, event->time_ps);
    p = put_message(p, 2, stats, stats_length);
    p = put_message(p, 3, metadata, metadata_length);
    return (size_t)(p - out);
}

/* Appends a length-delimited field `field` whose body is a snapshot. */
void bytes_put_snapshot(struct bytes *bytes, unsigned field, const struct event *event)
{
    uint8_t body[SNAPSHOT_BYTES_MAX];
    size_t length = encode_snapshot(body, event);
    uint8_t *p = bytes_reserve(bytes, length + 16);
    bytes->size += (size_t)(put_message(p, field, body, length) - p);
}

size_t snapshot_field_size(const struct event *event)
{
    uint8_t body[SNAPSHOT_BYTES_MAX];
    size_t length = encode_snapshot(body, event);
    return 1 + varint_size(length) + length;
}
/* ---- JSON: proto3 JSON as XProf prints it, or the variants readers meet ---- */

const char *const json_keys[KEY_COUNT][2] = {
    [KEY_PER_ALLOCATOR] = {"memoryProfilePerAllocator", "memory_profile_per_allocator"},
    [KEY_NUM_HOSTS] = {"numHosts", "num_hosts"},
    [KEY_MEMORY_IDS] = {"memoryIds", "memory_ids"},
    [KEY_VERSION] = {"version", "version"},
    [KEY_HLO_MODULES] = {"hloModules", "hlo_modules"},
    [KEY_SNAPSHOTS] = {"memoryProfileSnapshots", "memory_profile_snapshots"},
    [KEY_SUMMARY] = {"profileSummary", "profile_summary"},
    [KEY_ACTIVE] = {"activeAllocations", "active_allocations"},
    [KEY_SPECIAL] = {"specialAllocations", "special_allocations"},
    [KEY_SAMPLED] = {"sampledTimelineSnapshots", "sampled_timeline_snapshots"},
    [KEY_TIME] = {"timeOffsetPs", "time_offset_ps"},
    [KEY_STATS] = {"aggregationStats", "aggregation_stats"},
    [KEY_METADATA] = {"activityMetadata", "activity_metadata"},
    [KEY_STACK] = {"stackReservedBytes", "stack_reserved_bytes"},
    [KEY_HEAP] = {"heapAllocatedBytes", "heap_allocated_bytes"},
    [KEY_FREE] = {"freeMemoryBytes", "free_memory_bytes"},
    [KEY_FRAGMENTATION] = {"fragmentation", "fragmentation"},
    [KEY_PEAK] = {"peakBytesInUse", "peak_bytes_in_use"},
    [KEY_ACTIVITY] = {"memoryActivity", "memory_activity"},
    [KEY_REQUESTED] = {"requestedBytes", "requested_bytes"},
    [KEY_ALLOCATION] = {"allocationBytes", "allocation_bytes"},
    [KEY_ADDRESS] = {"address", "address"},
    [KEY_OP] = {"tfOpName", "tf_op_name"},
    [KEY_STEP] = {"stepId", "step_id"},
    [KEY_REGION] = {"regionType", "region_type"},
    [KEY_DTYPE] = {"dataType", "data_type"},
    [KEY_SHAPE] = {"tensorShape", "tensor_shape"},
    [KEY_LIFETIME] = {"peakBytesUsageLifetime", "peak_bytes_usage_lifetime"},
    [KEY_PEAK_STATS] = {"peakStats", "peak_stats"},
    [KEY_PEAK_TIME] = {"peakStatsTimePs", "peak_stats_time_ps"},
    [KEY_CAPACITY] = {"memoryCapacity", "memory_capacity"},
    [KEY_SNAPSHOT_INDEX] = {"snapshotIndex", "snapshot_index"},
    [KEY_SPECIAL_INDEX] = {"specialIndex", "special_index"},
    [KEY_OCCURRENCES] = {"numOccurrences", "num_occurrences"},
    [KEY_NAME] = {"name", "name"},
    [KEY_START] = {"startTimePs", "start_time_ps"},
    [KEY_END] = {"endTimePs", "end_time_ps"},
    [KEY_ID] = {"id", "id"},
    [KEY_PLANE] = {"planeName", "plane_name"},
};

const char *const activity_names[] = {"UNKNOWN_ACTIVITY", "ALLOCATION", "DEALLOCATION",
                                             "RESERVATION", "EXPANSION"};

void json_raw(struct json *json, const char *text, size_t length)
{
    output_bytes(json->out, text, length);
}

void json_char(struct json *json, char c)
{
    *output_reserve(json->out, 1) = c;
    json->out->used++;
}

/* `"key":`, preceded by a comma unless `first`. */
void json_key(struct json *json, enum json_key key, bool first)
{
    const char *name = json_keys[key][json->style == JSON_SNAKE ? 1 : 0];
    size_t length = strlen(name);
    char *p = output_reserve(json->out, length + 4);
    char *start = p;
    if (!first)
        *p++ = ',';
    *p++ = '"';
    memcpy(p, name, length);
    p += length;
    *p++ = '"';
    *p++ = ':';
    json->out->used += (size_t)(p - start);
}

/* int64 and uint64 are strings in proto3 JSON (numbers in the numbers style). */
void json_int64(struct json *json, int64_t value)
{
    char *p = output_reserve(json->out, 24);
    char *start = p;
    bool quoted = json->style != JSON_NUMBERS;
    if (quoted)
        *p++ = '"';
    p += format_int64(p, value);
    if (quoted)
        *p++ = '"';
    json->out->used += (size_t)(p - start);
}

void json_uint64(struct json *json, uint64_t value)
{
    char *p = output_reserve(json->out, 24);
    char *start = p;
    bool quoted = json->style != JSON_NUMBERS;
    if (quoted)
        *p++ = '"';
    p += format_uint64(p, value);
    if (quoted)
        *p++ = '"';
    json->out->used += (size_t)(p - start);
}

void json_int32(struct json *json, int32_t value)
{
    char *p = output_reserve(json->out, 16);
    json->out->used += format_int64(p, value);
}

/* The shortest of %.15g and %.17g that reads back to the same double. */
void json_double(struct json *json, double value)
{
    char text[40];
    snprintf(text, sizeof text, "%.15g", value);
    if (strtod(text, NULL) != value)
        snprintf(text, sizeof text, "%.17g", value);
    json_raw(json, text, strlen(text));
}

void json_string(struct json *json, const char *text, size_t length)
{
    json_char(json, '"');
    for (size_t i = 0; i < length; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '"' || c == '\\') {
            json_char(json, '\\');
            json_char(json, (char)c);
        } else if (c < 0x20) {
            char escape[8];
            snprintf(escape, sizeof escape, "\\u%04x", c);
            json_raw(json, escape, 6);
        } else {
            json_char(json, (char)c);
        }
    }
    json_char(json, '"');
}

void json_enum(struct json *json, int activity)
{
    if (json->style == JSON_NUMBERS) {
        json_int32(json, activity);
        return;
    }
    const char *name = activity >= 0 && activity <= 4 ? activity_names[activity] : "UNKNOWN_ACTIVITY";
    json_string(json, name, strlen(name));
}

void json_stats(struct json *json, const struct memory_stats *stats)
{
    json_char(json, '{');
    json_key(json, KEY_STACK, true);
    json_int64(json, stats->stack_bytes);
    json_key(json, KEY_HEAP, false);
    json_int64(json, stats->heap_bytes);
    json_key(json, KEY_FREE, false);
    json_int64(json, stats->free_bytes);
    json_key(json, KEY_FRAGMENTATION, false);
    json_double(json, stats->fragmentation);
    json_key(json, KEY_PEAK, false);
    json_int64(json, stats->peak_bytes_in_use);
    json_char(json, '}');
}

void json_metadata(struct json *json, const struct event *event)
{
    struct event_text text;
    tensor_text(&event->tensor, &text);
    json_char(json, '{');
    json_key(json, KEY_ACTIVITY, true);
    json_enum(json, event->activity);
    json_key(json, KEY_REQUESTED, false);
    json_int64(json, event->requested_bytes);
    json_key(json, KEY_ALLOCATION, false);
    json_int64(json, event->allocation_bytes);
    json_key(json, KEY_ADDRESS, false);
    json_uint64(json, event->address);
    json_key(json, KEY_OP, false);
    json_string(json, text.op, text.op_length);
    json_key(json, KEY_STEP, false);
    json_int64(json, event->step_id);
    json_key(json, KEY_REGION, false);
    json_string(json, text.region, strlen(text.region));
    json_key(json, KEY_DTYPE, false);
    json_string(json, text.dtype, strlen(text.dtype));
    json_key(json, KEY_SHAPE, false);
    json_string(json, text.shape, text.shape_length);
    json_char(json, '}');
}

void json_snapshot(struct json *json, const struct event *event)
{
    json_char(json, '{');
    json_key(json, KEY_TIME, true);
    json_int64(json, event->time_ps);
    json_key(json, KEY_STATS, false);
    struct memory_stats stats = event_stats(event);
    json_stats(json, &stats);
    json_key(json, KEY_METADATA, false);
    json_metadata(json, event);
    json_char(json, '}');
}
