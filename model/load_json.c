#include "config.h"

/* load_json: MemoryProfile as proto3 JSON (what XProf's MessageToJsonString
 * writes), read with cJSON into the builder calls of profile.h.
 *
 * A proto3 JSON reader must accept more than XProf writes: the .proto
 * field names besides lowerCamelCase, 64-bit integers as strings or bare
 * numbers, doubles as strings ("NaN", "Infinity"), enums by name or number,
 * null for "default", unknown keys. Each message has its own small reader
 * taking one cJSON object, so that a later streaming reader can hand them
 * one snapshot at a time. */

#include "model/load.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(LLONG_MAX == INT64_MAX && ULLONG_MAX == UINT64_MAX,
               "strtoll/strtoull must cover exactly the 64-bit range");

/* Where a value sits in the document: a chain of stack frames from the
 * value up to the root (NULL). Only an error turns it into text, so
 * descending costs three stores. */
struct json_path {
    const struct json_path *parent;
    const char *key; /* member name; NULL for an array element */
    size_t index;
};

struct json_reader {
    struct profile *profile;
    struct load_error *error;
};

/* ---- error messages ---- */

/* Bounded text in the error's buffer; what does not fit is dropped. */
struct message {
    char *text;
    size_t size;
    size_t length;
};

static void message_append(struct message *message, const char *bytes, size_t length)
{
    size_t room = message->size - 1 - message->length;
    if (length > room)
        length = room;
    memcpy(message->text + message->length, bytes, length);
    message->length += length;
    message->text[message->length] = '\0';
}

static void message_append_text(struct message *message, const char *text)
{
    message_append(message, text, strlen(text));
}

/* File text in a one-line message: control bytes could move the cursor of
 * the terminal that prints it, so they are escaped; at most `limit` bytes,
 * cut on a UTF-8 character boundary. */
static void message_append_escaped(struct message *message, const char *text, size_t limit)
{
    size_t length = strlen(text);
    bool cut = length > limit;
    if (cut) {
        length = limit;
        while (length > 0 && ((unsigned char)text[length] & 0xc0) == 0x80)
            length--;
    }
    for (size_t i = 0; i < length; i++) {
        unsigned char byte = (unsigned char)text[i];
        char escape[8];
        if (byte < 0x20 || byte == 0x7f) {
            snprintf(escape, sizeof escape, "\\x%02x", byte);
            message_append_text(message, escape);
        } else if (byte == '"' || byte == '\\') {
            escape[0] = '\\';
            escape[1] = (char)byte;
            message_append(message, escape, 2);
        } else {
            message_append(message, (const char *)&text[i], 1);
        }
    }
    if (cut)
        message_append_text(message, "...");
}

static void message_append_path(struct message *message, const struct json_path *path)
{
    if (!path)
        return;
    message_append_path(message, path->parent);
    if (path->key) {
        if (path->parent)
            message_append_text(message, ".");
        message_append_escaped(message, path->key, 64);
    } else {
        char index[32];
        snprintf(index, sizeof index, "[%zu]", path->index);
        message_append_text(message, index);
    }
}

static void message_append_value(struct message *message, const cJSON *value)
{
    char number[40];
    if (cJSON_IsString(value)) {
        message_append_text(message, "\"");
        message_append_escaped(message, value->valuestring, 40);
        message_append_text(message, "\"");
    } else if (cJSON_IsNumber(value)) {
        snprintf(number, sizeof number, "%.15g", value->valuedouble);
        if (strtod(number, NULL) != value->valuedouble)
            snprintf(number, sizeof number, "%.17g", value->valuedouble);
        message_append_text(message, number);
    } else if (cJSON_IsObject(value)) {
        message_append_text(message, "an object");
    } else if (cJSON_IsArray(value)) {
        message_append_text(message, "an array");
    } else if (cJSON_IsTrue(value)) {
        message_append_text(message, "true");
    } else if (cJSON_IsFalse(value)) {
        message_append_text(message, "false");
    } else {
        message_append_text(message, "null");
    }
}

/* "a.b[3].c: expected a string, got 12" */
static enum load_status json_fail(struct json_reader *reader, const struct json_path *path,
                                  const char *expected, const cJSON *value)
{
    struct message message = {reader->error->message, sizeof reader->error->message, 0};
    message.text[0] = '\0';
    if (path)
        message_append_path(&message, path);
    else
        message_append_text(&message, "top level");
    message_append_text(&message, ": expected ");
    message_append_text(&message, expected);
    message_append_text(&message, ", got ");
    message_append_value(&message, value);
    return LOAD_BAD_INPUT;
}

static enum load_status json_no_memory(struct json_reader *reader)
{
    load_error_set(reader->error, "out of memory");
    return LOAD_NO_MEMORY;
}

/* ---- scalars ---- */

static bool text_is_digits(const char *text)
{
    if (*text == '\0')
        return false;
    for (; *text; text++)
        if (*text < '0' || *text > '9')
            return false;
    return true;
}

/* Decimal digits with an optional minus, as proto3 JSON quotes int64;
 * strtoll rejects what overflows. */
static bool text_to_int64(const char *text, int64_t *out)
{
    if (!text_is_digits(text[0] == '-' ? text + 1 : text))
        return false;
    errno = 0;
    long long value = strtoll(text, NULL, 10);
    if (errno == ERANGE)
        return false;
    *out = value;
    return true;
}

/* No minus at all: strtoull would wrap "-1" to the maximum. */
static bool text_to_uint64(const char *text, uint64_t *out)
{
    if (!text_is_digits(text))
        return false;
    errno = 0;
    unsigned long long value = strtoull(text, NULL, 10);
    if (errno == ERANGE)
        return false;
    *out = value;
    return true;
}

/* A bare number arrives as a double: only integral values inside the
 * range are integers (-2^63 and 2^63 are exact doubles). */
static bool number_to_int64(double number, int64_t *out)
{
    if (!(number >= -9223372036854775808.0 && number < 9223372036854775808.0))
        return false;
    int64_t value = (int64_t)number;
    if ((double)value != number)
        return false;
    *out = value;
    return true;
}

static bool number_to_uint64(double number, uint64_t *out)
{
    if (!(number >= 0.0 && number < 18446744073709551616.0))
        return false;
    uint64_t value = (uint64_t)number;
    if ((double)value != number)
        return false;
    *out = value;
    return true;
}

static bool value_to_int64(const cJSON *value, int64_t *out)
{
    if (cJSON_IsString(value))
        return text_to_int64(value->valuestring, out);
    return cJSON_IsNumber(value) && number_to_int64(value->valuedouble, out);
}

static bool value_to_int32(const cJSON *value, int32_t *out)
{
    int64_t wide;
    if (!value_to_int64(value, &wide) || wide < INT32_MIN || wide > INT32_MAX)
        return false;
    *out = (int32_t)wide;
    return true;
}

/* JSON's number grammar (leading zeros allowed): strtod alone would also
 * take "inf", "0x1p3" and leading blanks. */
static bool text_is_decimal_number(const char *text)
{
    const char *p = text;
    if (*p == '-')
        p++;
    const char *digits = p;
    while (*p >= '0' && *p <= '9')
        p++;
    if (p == digits)
        return false;
    if (*p == '.') {
        digits = ++p;
        while (*p >= '0' && *p <= '9')
            p++;
        if (p == digits)
            return false;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        digits = p;
        while (*p >= '0' && *p <= '9')
            p++;
        if (p == digits)
            return false;
    }
    return *p == '\0';
}

/* strtod reads the locale's decimal point, and the viewer sets a locale:
 * swap it in, as cJSON does for bare numbers. */
static bool text_to_double(const char *text, double *out)
{
    if (strcmp(text, "NaN") == 0) {
        *out = NAN;
        return true;
    }
    if (strcmp(text, "Infinity") == 0 || strcmp(text, "-Infinity") == 0) {
        *out = text[0] == '-' ? -INFINITY : INFINITY;
        return true;
    }
    char buffer[64];
    size_t length = strlen(text);
    if (!text_is_decimal_number(text) || length >= sizeof buffer)
        return false;
    memcpy(buffer, text, length + 1);
    char *point = strchr(buffer, '.');
    if (point)
        *point = localeconv()->decimal_point[0];
    char *end;
    double value = strtod(buffer, &end);
    if (*end != '\0' || isinf(value))
        return false;
    *out = value;
    return true;
}

static enum load_status json_read_int64(struct json_reader *reader, const cJSON *value,
                                        const struct json_path *path, int64_t *out)
{
    if (value_to_int64(value, out))
        return LOAD_OK;
    return json_fail(reader, path, "a 64-bit integer", value);
}

static enum load_status json_read_uint64(struct json_reader *reader, const cJSON *value,
                                         const struct json_path *path, uint64_t *out)
{
    if (cJSON_IsString(value) ? text_to_uint64(value->valuestring, out)
                              : cJSON_IsNumber(value) && number_to_uint64(value->valuedouble, out))
        return LOAD_OK;
    return json_fail(reader, path, "an unsigned 64-bit integer", value);
}

static enum load_status json_read_int32(struct json_reader *reader, const cJSON *value,
                                        const struct json_path *path, int32_t *out)
{
    if (value_to_int32(value, out))
        return LOAD_OK;
    return json_fail(reader, path, "a 32-bit integer", value);
}

/* A bare number that overflowed to infinity is refused like "1e999". */
static enum load_status json_read_double(struct json_reader *reader, const cJSON *value,
                                         const struct json_path *path, double *out)
{
    if (cJSON_IsNumber(value) && !isinf(value->valuedouble)) {
        *out = value->valuedouble;
        return LOAD_OK;
    }
    if (cJSON_IsString(value) && text_to_double(value->valuestring, out))
        return LOAD_OK;
    return json_fail(reader, path, "a number", value);
}

/* By name, or by number; numbers outside the enum are kept as they are. */
static enum load_status json_read_activity(struct json_reader *reader, const cJSON *value,
                                           const struct json_path *path, int *out)
{
    if (cJSON_IsString(value)) {
        for (int activity = MEMORY_ACTIVITY_UNKNOWN; activity <= MEMORY_ACTIVITY_EXPANSION;
             activity++) {
            if (strcmp(value->valuestring, memory_activity_name(activity)) == 0) {
                *out = activity;
                return LOAD_OK;
            }
        }
    }
    int32_t number;
    if (value_to_int32(value, &number)) {
        *out = number;
        return LOAD_OK;
    }
    return json_fail(reader, path, "a MemoryActivity name or number", value);
}

static enum load_status json_read_string(struct json_reader *reader, const cJSON *value,
                                         const struct json_path *path, uint32_t *out)
{
    if (!cJSON_IsString(value))
        return json_fail(reader, path, "a string", value);
    uint32_t id = string_table_intern(reader->profile->strings, value->valuestring,
                                      strlen(value->valuestring));
    if (id == STRING_ID_NONE)
        return json_no_memory(reader);
    *out = id;
    return LOAD_OK;
}

/* ---- scalar fields by table ---- */

enum json_kind {
    JSON_INT32,
    JSON_INT64,
    JSON_UINT64,
    JSON_DOUBLE,
    JSON_ACTIVITY,
    JSON_STRING,
};

/* One scalar field of a message and where it lands in the C struct. */
struct json_field {
    const char *json_name;  /* lowerCamelCase, as XProf writes it */
    const char *proto_name; /* as the .proto spells it */
    enum json_kind kind;
    size_t offset;
};

#define FIELD_COUNT(fields) (sizeof(fields) / sizeof(fields)[0])

static bool json_key_is(const cJSON *member, const char *json_name, const char *proto_name)
{
    return strcmp(member->string, json_name) == 0 || strcmp(member->string, proto_name) == 0;
}

static enum load_status json_read_scalar(struct json_reader *reader, const cJSON *value,
                                         const struct json_path *path, enum json_kind kind,
                                         void *out)
{
    switch (kind) {
    case JSON_INT32: return json_read_int32(reader, value, path, out);
    case JSON_INT64: return json_read_int64(reader, value, path, out);
    case JSON_UINT64: return json_read_uint64(reader, value, path, out);
    case JSON_DOUBLE: return json_read_double(reader, value, path, out);
    case JSON_ACTIVITY: return json_read_activity(reader, value, path, out);
    case JSON_STRING: return json_read_string(reader, value, path, out);
    }
    return LOAD_OK;
}

/* Reads `member` into `out` when the table names it; unknown keys are
 * ignored, as proto3 JSON readers must. */
static enum load_status json_read_field(struct json_reader *reader, const cJSON *member,
                                        const struct json_path *path,
                                        const struct json_field *fields, size_t field_count,
                                        void *out)
{
    for (size_t i = 0; i < field_count; i++)
        if (json_key_is(member, fields[i].json_name, fields[i].proto_name))
            return json_read_scalar(reader, member, path, fields[i].kind,
                                    (char *)out + fields[i].offset);
    return LOAD_OK;
}

static enum load_status json_expect_object(struct json_reader *reader, const cJSON *value,
                                           const struct json_path *path)
{
    return cJSON_IsObject(value) ? LOAD_OK : json_fail(reader, path, "an object", value);
}

static enum load_status json_expect_array(struct json_reader *reader, const cJSON *value,
                                          const struct json_path *path)
{
    return cJSON_IsArray(value) ? LOAD_OK : json_fail(reader, path, "an array", value);
}

/* cJSON_GetArraySize() counts too, but returns an int. */
static size_t json_array_length(const cJSON *array)
{
    size_t length = 0;
    for (const cJSON *element = array->child; element; element = element->next)
        length++;
    return length;
}

/* ---- messages ---- */

static const struct json_field stats_fields[] = {
    {"stackReservedBytes", "stack_reserved_bytes", JSON_INT64,
     offsetof(struct memory_stats, stack_bytes)},
    {"heapAllocatedBytes", "heap_allocated_bytes", JSON_INT64,
     offsetof(struct memory_stats, heap_bytes)},
    {"freeMemoryBytes", "free_memory_bytes", JSON_INT64,
     offsetof(struct memory_stats, free_bytes)},
    {"fragmentation", "fragmentation", JSON_DOUBLE,
     offsetof(struct memory_stats, fragmentation)},
    {"peakBytesInUse", "peak_bytes_in_use", JSON_INT64,
     offsetof(struct memory_stats, peak_bytes_in_use)},
};

/* MemoryAggregationStats. Absent and null members keep their defaults,
 * here and in every message below. */
static enum load_status json_read_stats(struct json_reader *reader, const cJSON *object,
                                        const struct json_path *path, struct memory_stats *out)
{
    enum load_status status = json_expect_object(reader, object, path);
    const cJSON *member;
    cJSON_ArrayForEach(member, object) {
        if (status != LOAD_OK)
            break;
        if (cJSON_IsNull(member))
            continue;
        struct json_path field = {path, member->string, 0};
        status = json_read_field(reader, member, &field, stats_fields, FIELD_COUNT(stats_fields),
                                 out);
    }
    return status;
}

/* MemoryActivityMetadata lands in a snapshot's metadata fields. */
static const struct json_field metadata_fields[] = {
    {"memoryActivity", "memory_activity", JSON_ACTIVITY, offsetof(struct snapshot, activity)},
    {"requestedBytes", "requested_bytes", JSON_INT64, offsetof(struct snapshot, requested_bytes)},
    {"allocationBytes", "allocation_bytes", JSON_INT64,
     offsetof(struct snapshot, allocation_bytes)},
    {"address", "address", JSON_UINT64, offsetof(struct snapshot, address)},
    {"tfOpName", "tf_op_name", JSON_STRING, offsetof(struct snapshot, op_name)},
    {"stepId", "step_id", JSON_INT64, offsetof(struct snapshot, step_id)},
    {"regionType", "region_type", JSON_STRING, offsetof(struct snapshot, region_type)},
    {"dataType", "data_type", JSON_STRING, offsetof(struct snapshot, data_type)},
    {"tensorShape", "tensor_shape", JSON_STRING, offsetof(struct snapshot, tensor_shape)},
};

static enum load_status json_read_metadata(struct json_reader *reader, const cJSON *object,
                                           const struct json_path *path, struct snapshot *out)
{
    enum load_status status = json_expect_object(reader, object, path);
    const cJSON *member;
    cJSON_ArrayForEach(member, object) {
        if (status != LOAD_OK)
            break;
        if (cJSON_IsNull(member))
            continue;
        struct json_path field = {path, member->string, 0};
        status = json_read_field(reader, member, &field, metadata_fields,
                                 FIELD_COUNT(metadata_fields), out);
    }
    return status;
}

static enum load_status json_read_snapshot_stats(struct json_reader *reader, const cJSON *object,
                                                 const struct json_path *path,
                                                 struct snapshot *out)
{
    struct memory_stats stats = {
        .stack_bytes = out->stack_bytes,
        .heap_bytes = out->heap_bytes,
        .free_bytes = out->free_bytes,
        .fragmentation = out->fragmentation,
        .peak_bytes_in_use = out->peak_bytes_in_use,
    };
    enum load_status status = json_read_stats(reader, object, path, &stats);
    out->stack_bytes = stats.stack_bytes;
    out->heap_bytes = stats.heap_bytes;
    out->free_bytes = stats.free_bytes;
    out->fragmentation = stats.fragmentation;
    out->peak_bytes_in_use = stats.peak_bytes_in_use;
    return status;
}

static const struct json_field snapshot_fields[] = {
    {"timeOffsetPs", "time_offset_ps", JSON_INT64, offsetof(struct snapshot, time_ps)},
};

/* One MemoryProfileSnapshot into *out (zeroed first). */
static enum load_status json_read_snapshot(struct json_reader *reader, const cJSON *object,
                                           const struct json_path *path, struct snapshot *out)
{
    *out = (struct snapshot){0};
    enum load_status status = json_expect_object(reader, object, path);
    const cJSON *member;
    cJSON_ArrayForEach(member, object) {
        if (status != LOAD_OK)
            break;
        if (cJSON_IsNull(member))
            continue;
        struct json_path field = {path, member->string, 0};
        if (json_key_is(member, "aggregationStats", "aggregation_stats"))
            status = json_read_snapshot_stats(reader, member, &field, out);
        else if (json_key_is(member, "activityMetadata", "activity_metadata"))
            status = json_read_metadata(reader, member, &field, out);
        else
            status = json_read_field(reader, member, &field, snapshot_fields,
                                     FIELD_COUNT(snapshot_fields), out);
    }
    return status;
}

/* A special allocation is bare metadata: a snapshot with no time or stats. */
static enum load_status json_read_special(struct json_reader *reader, const cJSON *object,
                                          const struct json_path *path, struct snapshot *out)
{
    *out = (struct snapshot){0};
    return json_read_metadata(reader, object, path, out);
}

typedef enum load_status (*json_snapshot_reader)(struct json_reader *reader,
                                                 const cJSON *object,
                                                 const struct json_path *path,
                                                 struct snapshot *out);

/* A repeated snapshot or special field, appended to `columns`. */
static enum load_status json_read_snapshot_list(struct json_reader *reader, const cJSON *array,
                                                const struct json_path *path,
                                                json_snapshot_reader read_one,
                                                struct snapshot_columns *columns)
{
    enum load_status status = json_expect_array(reader, array, path);
    if (status != LOAD_OK)
        return status;
    if (!snapshot_columns_reserve(columns, columns->count + json_array_length(array)))
        return json_no_memory(reader);
    size_t index = 0;
    const cJSON *element;
    cJSON_ArrayForEach(element, array) {
        struct json_path element_path = {path, NULL, index++};
        struct snapshot snapshot;
        status = read_one(reader, element, &element_path, &snapshot);
        if (status != LOAD_OK)
            return status;
        if (!snapshot_columns_append(columns, &snapshot))
            return json_no_memory(reader);
    }
    return LOAD_OK;
}

/* MemoryProfileSummary, gathered before it goes to allocator_set_summary. */
struct json_summary {
    int64_t lifetime_peak_bytes;
    struct memory_stats peak;
    int64_t peak_time_ps;
    int64_t capacity_bytes;
};

static const struct json_field summary_fields[] = {
    {"peakBytesUsageLifetime", "peak_bytes_usage_lifetime", JSON_INT64,
     offsetof(struct json_summary, lifetime_peak_bytes)},
    {"peakStatsTimePs", "peak_stats_time_ps", JSON_INT64,
     offsetof(struct json_summary, peak_time_ps)},
    {"memoryCapacity", "memory_capacity", JSON_INT64,
     offsetof(struct json_summary, capacity_bytes)},
};

static enum load_status json_read_summary(struct json_reader *reader, const cJSON *object,
                                          const struct json_path *path,
                                          struct allocator *allocator)
{
    struct json_summary summary = {0};
    enum load_status status = json_expect_object(reader, object, path);
    const cJSON *member;
    cJSON_ArrayForEach(member, object) {
        if (status != LOAD_OK)
            break;
        if (cJSON_IsNull(member))
            continue;
        struct json_path field = {path, member->string, 0};
        if (json_key_is(member, "peakStats", "peak_stats"))
            status = json_read_stats(reader, member, &field, &summary.peak);
        else
            status = json_read_field(reader, member, &field, summary_fields,
                                     FIELD_COUNT(summary_fields), &summary);
    }
    if (status != LOAD_OK)
        return status;
    allocator_set_summary(allocator, summary.capacity_bytes, summary.lifetime_peak_bytes,
                          &summary.peak, summary.peak_time_ps);
    allocator->raw_has_summary = true;
    return LOAD_OK;
}

static const struct json_field active_fields[] = {
    {"snapshotIndex", "snapshot_index", JSON_INT64,
     offsetof(struct active_allocation, snapshot_index)},
    {"specialIndex", "special_index", JSON_INT64,
     offsetof(struct active_allocation, special_index)},
    {"numOccurrences", "num_occurrences", JSON_INT64,
     offsetof(struct active_allocation, occurrences)},
};

static enum load_status json_read_active(struct json_reader *reader, const cJSON *object,
                                         const struct json_path *path,
                                         struct active_allocation *out)
{
    *out = (struct active_allocation){0};
    enum load_status status = json_expect_object(reader, object, path);
    const cJSON *member;
    cJSON_ArrayForEach(member, object) {
        if (status != LOAD_OK)
            break;
        if (cJSON_IsNull(member))
            continue;
        struct json_path field = {path, member->string, 0};
        status = json_read_field(reader, member, &field, active_fields,
                                 FIELD_COUNT(active_fields), out);
    }
    return status;
}

static enum load_status json_read_active_list(struct json_reader *reader, const cJSON *array,
                                              const struct json_path *path,
                                              struct allocator *allocator)
{
    enum load_status status = json_expect_array(reader, array, path);
    size_t index = 0;
    const cJSON *element;
    cJSON_ArrayForEach(element, array) {
        if (status != LOAD_OK)
            break;
        struct json_path element_path = {path, NULL, index++};
        struct active_allocation active;
        status = json_read_active(reader, element, &element_path, &active);
        if (status == LOAD_OK && !allocator_add_active(allocator, &active))
            status = json_no_memory(reader);
    }
    return status;
}

/* PerAllocatorMemoryProfile: the value of one memoryProfilePerAllocator
 * entry, merged into the allocator of that key. */
static enum load_status json_read_allocator(struct json_reader *reader, const cJSON *entry,
                                            const struct json_path *path)
{
    enum load_status status = json_expect_object(reader, entry, path);
    if (status != LOAD_OK)
        return status;
    struct allocator *allocator =
        profile_add_allocator(reader->profile, entry->string, strlen(entry->string));
    if (!allocator)
        return json_no_memory(reader);
    const cJSON *member;
    cJSON_ArrayForEach(member, entry) {
        if (status != LOAD_OK)
            break;
        if (cJSON_IsNull(member))
            continue;
        struct json_path field = {path, member->string, 0};
        if (json_key_is(member, "memoryProfileSnapshots", "memory_profile_snapshots"))
            status = json_read_snapshot_list(reader, member, &field, json_read_snapshot,
                                             &allocator->raw_snapshots);
        else if (json_key_is(member, "sampledTimelineSnapshots", "sampled_timeline_snapshots"))
            status = json_read_snapshot_list(reader, member, &field, json_read_snapshot,
                                             &allocator->raw_sampled);
        else if (json_key_is(member, "specialAllocations", "special_allocations"))
            status = json_read_snapshot_list(reader, member, &field, json_read_special,
                                             &allocator->raw_specials);
        else if (json_key_is(member, "activeAllocations", "active_allocations"))
            status = json_read_active_list(reader, member, &field, allocator);
        else if (json_key_is(member, "profileSummary", "profile_summary"))
            status = json_read_summary(reader, member, &field, allocator);
    }
    return status;
}

/* The map, in document order (the map has none; memoryIds gives it). */
static enum load_status json_read_allocator_map(struct json_reader *reader, const cJSON *object,
                                                const struct json_path *path)
{
    enum load_status status = json_expect_object(reader, object, path);
    const cJSON *entry;
    cJSON_ArrayForEach(entry, object) {
        if (status != LOAD_OK)
            break;
        struct json_path entry_path = {path, entry->string, 0};
        status = json_read_allocator(reader, entry, &entry_path);
    }
    return status;
}

static enum load_status json_read_memory_ids(struct json_reader *reader, const cJSON *array,
                                             const struct json_path *path)
{
    enum load_status status = json_expect_array(reader, array, path);
    size_t index = 0;
    const cJSON *element;
    cJSON_ArrayForEach(element, array) {
        if (status != LOAD_OK)
            break;
        struct json_path element_path = {path, NULL, index++};
        if (!cJSON_IsString(element))
            status = json_fail(reader, &element_path, "a string", element);
        else if (!profile_add_memory_id(reader->profile, element->valuestring,
                                        strlen(element->valuestring)))
            status = json_no_memory(reader);
    }
    return status;
}

static const struct json_field hlo_module_fields[] = {
    {"name", "name", JSON_STRING, offsetof(struct hlo_module, name)},
    {"startTimePs", "start_time_ps", JSON_INT64, offsetof(struct hlo_module, start_time_ps)},
    {"endTimePs", "end_time_ps", JSON_INT64, offsetof(struct hlo_module, end_time_ps)},
    {"id", "id", JSON_INT64, offsetof(struct hlo_module, id)},
    {"planeName", "plane_name", JSON_STRING, offsetof(struct hlo_module, plane_name)},
};

static enum load_status json_read_hlo_module(struct json_reader *reader, const cJSON *object,
                                             const struct json_path *path,
                                             struct hlo_module *out)
{
    *out = (struct hlo_module){0};
    enum load_status status = json_expect_object(reader, object, path);
    const cJSON *member;
    cJSON_ArrayForEach(member, object) {
        if (status != LOAD_OK)
            break;
        if (cJSON_IsNull(member))
            continue;
        struct json_path field = {path, member->string, 0};
        status = json_read_field(reader, member, &field, hlo_module_fields,
                                 FIELD_COUNT(hlo_module_fields), out);
    }
    return status;
}

static enum load_status json_read_hlo_module_list(struct json_reader *reader, const cJSON *array,
                                                  const struct json_path *path)
{
    enum load_status status = json_expect_array(reader, array, path);
    size_t index = 0;
    const cJSON *element;
    cJSON_ArrayForEach(element, array) {
        if (status != LOAD_OK)
            break;
        struct json_path element_path = {path, NULL, index++};
        struct hlo_module module;
        status = json_read_hlo_module(reader, element, &element_path, &module);
        if (status == LOAD_OK && !profile_add_hlo_module(reader->profile, &module))
            status = json_no_memory(reader);
    }
    return status;
}

static const struct json_field profile_fields[] = {
    {"numHosts", "num_hosts", JSON_INT32, offsetof(struct profile, num_hosts)},
    {"version", "version", JSON_INT32, offsetof(struct profile, version)},
};

/* MemoryProfile: the top-level object. */
static enum load_status json_read_profile(struct json_reader *reader, const cJSON *object)
{
    enum load_status status = LOAD_OK;
    const cJSON *member;
    cJSON_ArrayForEach(member, object) {
        if (status != LOAD_OK)
            break;
        if (cJSON_IsNull(member))
            continue;
        struct json_path field = {NULL, member->string, 0};
        if (json_key_is(member, "memoryProfilePerAllocator", "memory_profile_per_allocator"))
            status = json_read_allocator_map(reader, member, &field);
        else if (json_key_is(member, "memoryIds", "memory_ids"))
            status = json_read_memory_ids(reader, member, &field);
        else if (json_key_is(member, "hloModules", "hlo_modules"))
            status = json_read_hlo_module_list(reader, member, &field);
        else
            status = json_read_field(reader, member, &field, profile_fields,
                                     FIELD_COUNT(profile_fields), reader->profile);
    }
    return status;
}

/* Some tools wrap the object in a one-element array. */
static enum load_status json_read_document(struct json_reader *reader, const cJSON *root)
{
    const cJSON *object = root;
    if (cJSON_IsArray(root) && root->child && !root->child->next)
        object = root->child;
    if (!cJSON_IsObject(object))
        return json_fail(reader, NULL, "a MemoryProfile object", object);
    return json_read_profile(reader, object);
}

/* ---- parsing ---- */

/* cJSON reports a failed malloc as a failed parse; this tells them apart. */
static _Thread_local bool json_allocation_failed;

static void *json_allocate(size_t size)
{
    void *memory = malloc(size);
    if (!memory)
        json_allocation_failed = true;
    return memory;
}

static size_t json_skip_blanks(const char *text, size_t size, size_t offset)
{
    while (offset < size && (text[offset] == ' ' || text[offset] == '\t' ||
                             text[offset] == '\n' || text[offset] == '\r'))
        offset++;
    return offset;
}

/* Parses the whole buffer into *root; "offset N: invalid JSON" on a syntax
 * error (the nesting limit included) or trailing data. The text must have
 * a NUL at text[size]: cJSON before 1.7.17 reads one byte past the length
 * it is given on some truncated inputs. */
static enum load_status json_parse(const char *text, size_t size, cJSON **root,
                                   struct load_error *error)
{
    cJSON_InitHooks(&(cJSON_Hooks){.malloc_fn = json_allocate, .free_fn = free});
    json_allocation_failed = false;
    const char *end = NULL;
    *root = cJSON_ParseWithLengthOpts(text, size, &end, false);
    size_t offset = end ? (size_t)(end - text) : 0;
    if (*root)
        offset = json_skip_blanks(text, size, offset);
    if (*root && offset == size)
        return LOAD_OK;
    cJSON_Delete(*root);
    *root = NULL;
    if (json_allocation_failed) {
        load_error_set(error, "out of memory");
        return LOAD_NO_MEMORY;
    }
    load_error_set(error, "offset %zu: invalid JSON", offset);
    return LOAD_BAD_INPUT;
}

enum load_status load_json(const uint8_t *bytes, size_t size, struct profile *profile,
                           struct load_error *error)
{
    struct load_error unused;
    struct json_reader reader = {profile, error ? error : &unused};
    /* The caller's bytes may be a mapping that ends exactly at a page end,
     * so cJSON parses a NUL-terminated copy. */
    char *text = size < SIZE_MAX ? malloc(size + 1) : NULL;
    if (!text)
        return json_no_memory(&reader);
    if (size)
        memcpy(text, bytes, size);
    text[size] = '\0';
    cJSON *root;
    enum load_status status = json_parse(text, size, &root, reader.error);
    free(text);
    if (status == LOAD_OK)
        status = json_read_document(&reader, root);
    cJSON_Delete(root);
    return status;
}
