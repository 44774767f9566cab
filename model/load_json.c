#include "config.h"

/* load_json: MemoryProfile as proto3 JSON (what XProf's MessageToJsonString
 * writes), read with cJSON into an xprof_draft (model/xprof_draft.h).
 *
 * A proto3 JSON reader must accept more than XProf writes: the .proto
 * field names besides lowerCamelCase, 64-bit integers as strings or bare
 * numbers, doubles as strings ("NaN", "Infinity"), enums by name or number,
 * null for "default", unknown keys. Each message has its own small reader
 * taking one cJSON object; the streaming scanner at the end walks the
 * document's outline in place and hands them one value (one snapshot, say)
 * at a time, so memory stays near the size of the columns. */

#include "model/load_internal.h"
#include "model/xprof_draft.h"

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
    struct xprof_draft *draft;
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

/* `hint` names the field for the string table (its place in the struct). */
static enum load_status json_read_string(struct json_reader *reader, const cJSON *value,
                                         const struct json_path *path, unsigned hint,
                                         uint32_t *out)
{
    if (!cJSON_IsString(value))
        return json_fail(reader, path, "a string", value);
    uint32_t id = string_table_intern_hinted(xprof_draft_strings(reader->draft), hint,
                                             value->valuestring,
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

/* The first bytes differ for most names tried: no call then. */
static bool json_key_is(const cJSON *member, const char *json_name, const char *proto_name)
{
    const char *key = member->string;
    return (key[0] == json_name[0] && strcmp(key, json_name) == 0) ||
           (key[0] == proto_name[0] && strcmp(key, proto_name) == 0);
}

static enum load_status json_read_scalar(struct json_reader *reader, const cJSON *value,
                                         const struct json_path *path, enum json_kind kind,
                                         size_t offset, void *out)
{
    switch (kind) {
    case JSON_INT32: return json_read_int32(reader, value, path, out);
    case JSON_INT64: return json_read_int64(reader, value, path, out);
    case JSON_UINT64: return json_read_uint64(reader, value, path, out);
    case JSON_DOUBLE: return json_read_double(reader, value, path, out);
    case JSON_ACTIVITY: return json_read_activity(reader, value, path, out);
    case JSON_STRING:
        return json_read_string(reader, value, path, (unsigned)(offset / sizeof(uint32_t)), out);
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
            return json_read_scalar(reader, member, path, fields[i].kind, fields[i].offset,
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

/* MemoryProfileSummary, gathered before it goes to xprof_allocator_set_summary. */
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
                                          struct xprof_allocator *allocator)
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
    xprof_allocator_set_summary(allocator, summary.capacity_bytes, summary.lifetime_peak_bytes,
                                &summary.peak, summary.peak_time_ps);
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
                                              struct xprof_allocator *allocator)
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
        if (status == LOAD_OK && !xprof_allocator_add_active(allocator, &active))
            status = json_no_memory(reader);
    }
    return status;
}

/* One member of a PerAllocatorMemoryProfile (the value of one
 * memoryProfilePerAllocator entry), merged into its allocator. Null
 * members keep the defaults; unknown ones are ignored. */
static enum load_status json_read_allocator_member(struct json_reader *reader,
                                                   const cJSON *member,
                                                   const struct json_path *path,
                                                   struct xprof_allocator *allocator)
{
    if (cJSON_IsNull(member))
        return LOAD_OK;
    if (json_key_is(member, "memoryProfileSnapshots", "memory_profile_snapshots"))
        return json_read_snapshot_list(reader, member, path, json_read_snapshot,
                                       &allocator->snapshots);
    if (json_key_is(member, "sampledTimelineSnapshots", "sampled_timeline_snapshots"))
        return json_read_snapshot_list(reader, member, path, json_read_snapshot,
                                       &allocator->sampled);
    if (json_key_is(member, "specialAllocations", "special_allocations"))
        return json_read_snapshot_list(reader, member, path, json_read_special,
                                       &allocator->specials);
    if (json_key_is(member, "activeAllocations", "active_allocations"))
        return json_read_active_list(reader, member, path, allocator);
    if (json_key_is(member, "profileSummary", "profile_summary"))
        return json_read_summary(reader, member, path, allocator);
    return LOAD_OK;
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
        else if (!xprof_draft_add_memory_id(reader->draft, element->valuestring,
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
        if (status == LOAD_OK && !xprof_draft_add_hlo_module(reader->draft, &module))
            status = json_no_memory(reader);
    }
    return status;
}

static const struct json_field profile_fields[] = {
    {"numHosts", "num_hosts", JSON_INT32, offsetof(struct xprof_draft, num_hosts)},
    {"version", "version", JSON_INT32, offsetof(struct xprof_draft, version)},
};

/* One member of the top-level MemoryProfile object. */
static enum load_status json_read_profile_member(struct json_reader *reader, const cJSON *member,
                                                 const struct json_path *path)
{
    if (cJSON_IsNull(member))
        return LOAD_OK;
    if (json_key_is(member, "memoryProfilePerAllocator", "memory_profile_per_allocator"))
        return json_expect_object(reader, member, path); /* an object is streamed */
    if (json_key_is(member, "memoryIds", "memory_ids"))
        return json_read_memory_ids(reader, member, path);
    if (json_key_is(member, "hloModules", "hlo_modules"))
        return json_read_hlo_module_list(reader, member, path);
    return json_read_field(reader, member, path, profile_fields, FIELD_COUNT(profile_fields),
                           reader->draft);
}

/* ---- parsing values with cJSON ---- */

/* cJSON reports a failed malloc as a failed parse; this tells them apart. */
static _Thread_local bool json_allocation_failed;

static void *json_allocate(size_t size)
{
    void *memory = malloc(size);
    if (!memory)
        json_allocation_failed = true;
    return memory;
}

/* The only blanks allowed after the document (cJSON's own rule inside it
 * is wider, see scan_skip_whitespace). */
static size_t json_skip_blanks(const char *text, size_t size, size_t offset)
{
    while (offset < size && (text[offset] == ' ' || text[offset] == '\t' ||
                             text[offset] == '\n' || text[offset] == '\r'))
        offset++;
    return offset;
}

/* ---- streaming: the document's outline walked in place ---- */

/* A MemoryProfile is a few small objects around one to three huge arrays
 * of snapshots. Parsed whole, cJSON holds a tree of six times the file.
 * So the scanner below walks the outline in place (the top-level object,
 * the allocator map, each allocator's object, the arrays in it) and hands
 * every value inside it, one snapshot say, to cJSON on its own; the
 * message readers above then read that value as before. Memory is the
 * columns and one snapshot's tree.
 *
 * Errors read as they did when cJSON parsed the whole text: the outline
 * follows cJSON's rules (what is whitespace, how deep it nests, the offset
 * it names for each kind of error), and a value parsed alone gets its
 * offsets moved back into the document. Reading goes in document order,
 * so a wrong value before a syntax error is now the error reported. */

#define JSON_NESTING_LIMIT CJSON_NESTING_LIMIT

struct json_scanner {
    const char *text;
    size_t size;
    struct json_reader *reader;
    struct load_tracker *tracker; /* may be NULL */
};

static enum load_status scan_fail(const struct json_scanner *scanner, size_t offset)
{
    /* cJSON names the last byte for an error at the end of the text. */
    if (offset >= scanner->size && scanner->size > 0)
        offset = scanner->size - 1;
    load_error_set(scanner->reader->error, "offset %zu: invalid JSON", offset);
    return LOAD_BAD_INPUT;
}

static bool scan_at(const struct json_scanner *scanner, size_t offset, char expected)
{
    return offset < scanner->size && scanner->text[offset] == expected;
}

/* cJSON's whitespace is every byte up to the space; reaching the end, it
 * stops on the last byte, and so errors there name the last byte. */
static size_t scan_skip_whitespace(const struct json_scanner *scanner, size_t offset)
{
    if (offset >= scanner->size)
        return offset;
    while (offset < scanner->size && (unsigned char)scanner->text[offset] <= ' ')
        offset++;
    return offset == scanner->size ? offset - 1 : offset;
}

/* The closing quote of the string opening at `offset`: the first quote
 * not escaped, that is not after an odd run of backslashes (cJSON skips
 * the byte after each backslash). False when the text ends first. */
static bool scan_string_end(const struct json_scanner *scanner, size_t offset, size_t *close)
{
    const char *text = scanner->text;
    size_t from = offset + 1;
    while (from < scanner->size) {
        const char *quote = memchr(text + from, '"', scanner->size - from);
        if (!quote)
            return false;
        size_t at = (size_t)(quote - text);
        size_t backslashes = 0;
        while (at - backslashes > offset + 1 && text[at - backslashes - 1] == '\\')
            backslashes++;
        if (backslashes % 2 == 0) {
            *close = at;
            return true;
        }
        from = at + 1;
    }
    return false;
}

/* Bytes that continue a number or a literal; cJSON decides if they make one. */
static bool scan_is_scalar_byte(char byte)
{
    return (unsigned char)byte > ' ' && !strchr("{}[],:\"", byte);
}

/* What a value can start with; anything else is an error right there. */
static bool scan_is_value_start(char byte)
{
    return byte != '\0' && strchr("\"{[-0123456789tfn", byte);
}

enum scan_end {
    SCAN_COMPLETE,   /* [offset, end) holds a value (cJSON checks its inside) */
    SCAN_INCOMPLETE, /* the text ends inside it */
    SCAN_MISMATCH,   /* a closing bracket at `end` closes the wrong kind */
    SCAN_TOO_DEEP,   /* the bracket at `end` nests past cJSON's limit */
};

/* Brackets whose kind the scanner remembers: one bit each. */
#define SCAN_STACK_WORDS ((JSON_NESTING_LIMIT + 63) / 64)

/* Where the value at `offset` (nested `depth` deep) ends, from its
 * brackets and strings alone. */
static enum scan_end scan_value_end(const struct json_scanner *scanner, size_t offset,
                                    size_t depth, size_t *end)
{
    const char *text = scanner->text;
    size_t close;
    *end = scanner->size;
    if (text[offset] == '"') {
        if (!scan_string_end(scanner, offset, &close))
            return SCAN_INCOMPLETE;
        *end = close + 1;
        return SCAN_COMPLETE;
    }
    if (text[offset] != '{' && text[offset] != '[') {
        size_t at = offset;
        while (at < scanner->size && scan_is_scalar_byte(text[at]))
            at++;
        *end = at;
        return SCAN_COMPLETE;
    }
    uint64_t is_object[SCAN_STACK_WORDS] = {0};
    size_t level = 0;
    for (size_t at = offset; at < scanner->size; at++) {
        char byte = text[at];
        if (byte == '"') {
            if (!scan_string_end(scanner, at, &close))
                return SCAN_INCOMPLETE;
            at = close;
        } else if (byte == '{' || byte == '[') {
            if (depth + level >= JSON_NESTING_LIMIT) {
                *end = at;
                return SCAN_TOO_DEEP;
            }
            uint64_t bit = (uint64_t)1 << (level % 64);
            is_object[level / 64] = byte == '{' ? is_object[level / 64] | bit
                                                : is_object[level / 64] & ~bit;
            level++;
        } else if (byte == '}' || byte == ']') {
            level--;
            bool object = (is_object[level / 64] >> (level % 64)) & 1;
            if (object != (byte == '}')) {
                *end = at;
                return SCAN_MISMATCH;
            }
            if (level == 0) {
                *end = at + 1;
                return SCAN_COMPLETE;
            }
        }
    }
    return SCAN_INCOMPLETE;
}

/* cJSON on the bytes [start, end) alone. On success *item is the value and
 * *stop the offset after it; on failure *stop is where cJSON stopped. */
static enum load_status scan_cjson(const struct json_scanner *scanner, size_t start, size_t end,
                                   cJSON **item, size_t *stop)
{
    const char *text = scanner->text + start;
    size_t length = end - start;
    char *copy = NULL;
    /* cJSON 1.7.15 may read a byte past the length on a value cut short,
     * and past the text's end there may be no byte at all. */
    if (end == scanner->size) {
        copy = malloc(length + 1);
        if (!copy)
            return json_no_memory(scanner->reader);
        memcpy(copy, text, length);
        copy[length] = '\0';
        text = copy;
    }
    json_allocation_failed = false;
    const char *parse_end = NULL;
    *item = cJSON_ParseWithLengthOpts(text, length, &parse_end, false);
    *stop = start + (parse_end ? (size_t)(parse_end - text) : 0);
    free(copy);
    if (!*item && json_allocation_failed)
        return json_no_memory(scanner->reader);
    return LOAD_OK;
}

/* Parses the value at *offset (nested `depth` deep) with cJSON into *item,
 * which the caller deletes; *offset moves past it. */
static enum load_status scan_parse_value(const struct json_scanner *scanner, size_t *offset,
                                         size_t depth, cJSON **item)
{
    size_t start = *offset;
    *item = NULL;
    if (start >= scanner->size || !scan_is_value_start(scanner->text[start]))
        return scan_fail(scanner, start);
    size_t end;
    enum scan_end kind = scan_value_end(scanner, start, depth, &end);
    /* cJSON names the byte after a missing key ("{"a":1,}" fails one past
     * the brace), so it gets one byte more than the value, two past a
     * wrong bracket; at a bracket too deep it stops at that bracket. */
    size_t parse_end = end;
    if (kind == SCAN_COMPLETE || kind == SCAN_MISMATCH) {
        size_t extra = kind == SCAN_COMPLETE ? 1 : 2;
        parse_end = scanner->size - end > extra ? end + extra : scanner->size;
    } else if (kind == SCAN_TOO_DEEP) {
        parse_end = end + 1;
    }
    size_t stop;
    enum load_status status = scan_cjson(scanner, start, parse_end, item, &stop);
    if (status != LOAD_OK)
        return status;
    if (kind == SCAN_COMPLETE && *item && stop == end) {
        *offset = end;
        return LOAD_OK;
    }
    cJSON_Delete(*item);
    *item = NULL;
    if (kind == SCAN_TOO_DEEP && stop > end)
        stop = end;
    return scan_fail(scanner, stop);
}

/* A member's name: the string at *offset, unescaped by cJSON. */
static enum load_status scan_key(const struct json_scanner *scanner, size_t *offset, cJSON **key)
{
    size_t start = *offset, close;
    *key = NULL;
    /* cJSON names the byte after a key that is no string. */
    if (!scan_at(scanner, start, '"'))
        return scan_fail(scanner, start + 1);
    size_t end = scan_string_end(scanner, start, &close) ? close + 1 : scanner->size;
    size_t stop;
    enum load_status status = scan_cjson(scanner, start, end, key, &stop);
    if (status != LOAD_OK)
        return status;
    if (!*key || stop != end) {
        cJSON_Delete(*key);
        *key = NULL;
        return scan_fail(scanner, stop);
    }
    *offset = end;
    return LOAD_OK;
}

/* Called for each member of a walked object with its name, its path and
 * the offset of its value, which it moves past the value. */
typedef enum load_status (*scan_member_fn)(const struct json_scanner *scanner, void *context,
                                           const char *key, const struct json_path *path,
                                           size_t *offset, size_t depth);
/* The same for each element of a walked array. */
typedef enum load_status (*scan_element_fn)(const struct json_scanner *scanner, void *context,
                                            const struct json_path *path, size_t *offset,
                                            size_t depth);

/* The start of an object or array at *offset, as cJSON takes it: true
 * when empty (and *offset is past it). */
static enum load_status scan_open(const struct json_scanner *scanner, size_t *offset,
                                  size_t depth, char close, bool *empty)
{
    if (depth >= JSON_NESTING_LIMIT)
        return scan_fail(scanner, *offset);
    size_t at = scan_skip_whitespace(scanner, *offset + 1);
    *empty = scan_at(scanner, at, close);
    if (*empty) {
        *offset = at + 1;
        return LOAD_OK;
    }
    if (at >= scanner->size)
        return scan_fail(scanner, at - 1);
    *offset = at - 1; /* before the first member, like after a comma */
    return LOAD_OK;
}

/* After a member or element: a comma (true: another follows) or the
 * closing bracket (*offset moves past it). */
static enum load_status scan_next(const struct json_scanner *scanner, size_t *offset, char close,
                                  bool *more)
{
    size_t at = scan_skip_whitespace(scanner, *offset);
    *more = scan_at(scanner, at, ',');
    if (*more) {
        *offset = at;
        return LOAD_OK;
    }
    if (!scan_at(scanner, at, close))
        return scan_fail(scanner, at);
    *offset = at + 1;
    return LOAD_OK;
}

/* Walks the object at *offset (`path` names it); *offset moves past it. */
static enum load_status scan_object(const struct json_scanner *scanner, size_t *offset,
                                    size_t depth, const struct json_path *path,
                                    scan_member_fn member, void *context)
{
    bool empty, more = true;
    enum load_status status = scan_open(scanner, offset, depth, '}', &empty);
    while (status == LOAD_OK && !empty && more) {
        size_t at = scan_skip_whitespace(scanner, *offset + 1);
        cJSON *key;
        status = scan_key(scanner, &at, &key);
        if (status != LOAD_OK)
            break;
        at = scan_skip_whitespace(scanner, at);
        if (!scan_at(scanner, at, ':')) {
            cJSON_Delete(key);
            return scan_fail(scanner, at);
        }
        at = scan_skip_whitespace(scanner, at + 1);
        struct json_path member_path = {path, key->valuestring, 0};
        status = member(scanner, context, key->valuestring, &member_path, &at, depth + 1);
        cJSON_Delete(key);
        if (status == LOAD_OK)
            status = scan_next(scanner, &at, '}', &more);
        *offset = at;
        load_tracker_advance(scanner->tracker, at);
    }
    return status;
}

/* Walks the array at *offset (`path` names it); *offset moves past it. */
static enum load_status scan_array(const struct json_scanner *scanner, size_t *offset,
                                   size_t depth, const struct json_path *path,
                                   scan_element_fn element, void *context)
{
    bool empty, more = true;
    enum load_status status = scan_open(scanner, offset, depth, ']', &empty);
    for (size_t index = 0; status == LOAD_OK && !empty && more; index++) {
        size_t at = scan_skip_whitespace(scanner, *offset + 1);
        struct json_path element_path = {path, NULL, index};
        status = element(scanner, context, &element_path, &at, depth + 1);
        if (status == LOAD_OK)
            status = scan_next(scanner, &at, ']', &more);
        *offset = at;
        load_tracker_advance(scanner->tracker, at);
    }
    return status;
}

/* The value at *offset parsed alone, named `key` as a member, for the
 * message readers; the caller deletes it. */
static enum load_status scan_member_value(const struct json_scanner *scanner, size_t *offset,
                                          size_t depth, const char *key, cJSON **item)
{
    enum load_status status = scan_parse_value(scanner, offset, depth, item);
    if (status == LOAD_OK) {
        /* Borrowed: cJSON_Delete leaves a constant name alone. */
        (*item)->string = (char *)key;
        (*item)->type |= cJSON_StringIsConst;
    }
    return status;
}

/* ---- the outline of a MemoryProfile ---- */

/* Where the elements of a snapshot array go. */
struct scan_snapshots {
    size_t allocator;
    size_t column; /* 0 memory_profile_snapshots, 1 sampled, 2 special */
};

static struct snapshot_columns *scan_columns(const struct json_scanner *scanner,
                                             const struct scan_snapshots *target)
{
    struct xprof_allocator *allocator = &scanner->reader->draft->allocators[target->allocator];
    struct snapshot_columns *columns[] = {&allocator->snapshots, &allocator->sampled,
                                          &allocator->specials};
    return columns[target->column];
}

static enum load_status scan_snapshot(const struct json_scanner *scanner, void *context,
                                      const struct json_path *path, size_t *offset, size_t depth)
{
    const struct scan_snapshots *target = context;
    cJSON *item;
    enum load_status status = scan_parse_value(scanner, offset, depth, &item);
    if (status != LOAD_OK)
        return status;
    struct snapshot snapshot;
    status = target->column == 2 ? json_read_special(scanner->reader, item, path, &snapshot)
                                 : json_read_snapshot(scanner->reader, item, path, &snapshot);
    cJSON_Delete(item);
    if (status == LOAD_OK && !snapshot_columns_append(scan_columns(scanner, target), &snapshot))
        status = json_no_memory(scanner->reader);
    return status;
}

static enum load_status scan_active(const struct json_scanner *scanner, void *context,
                                    const struct json_path *path, size_t *offset, size_t depth)
{
    const size_t *allocator = context;
    cJSON *item;
    enum load_status status = scan_parse_value(scanner, offset, depth, &item);
    if (status != LOAD_OK)
        return status;
    struct active_allocation active;
    status = json_read_active(scanner->reader, item, path, &active);
    cJSON_Delete(item);
    if (status == LOAD_OK &&
        !xprof_allocator_add_active(&scanner->reader->draft->allocators[*allocator], &active))
        status = json_no_memory(scanner->reader);
    return status;
}

/* Which of an allocator's arrays `key` names: 0..2 as in scan_snapshots,
 * 3 activeAllocations, -1 none. */
static int scan_allocator_array(const char *key)
{
    static const char *const names[][2] = {
        {"memoryProfileSnapshots", "memory_profile_snapshots"},
        {"sampledTimelineSnapshots", "sampled_timeline_snapshots"},
        {"specialAllocations", "special_allocations"},
        {"activeAllocations", "active_allocations"},
    };
    for (int i = 0; i < 4; i++)
        if (strcmp(key, names[i][0]) == 0 || strcmp(key, names[i][1]) == 0)
            return i;
    return -1;
}

static enum load_status scan_allocator_member(const struct json_scanner *scanner, void *context,
                                              const char *key, const struct json_path *path,
                                              size_t *offset, size_t depth)
{
    size_t allocator = *(const size_t *)context;
    int array = scan_allocator_array(key);
    if (array >= 0 && scan_at(scanner, *offset, '[')) {
        if (array == 3)
            return scan_array(scanner, offset, depth, path, scan_active, &allocator);
        struct scan_snapshots target = {allocator, (size_t)array};
        return scan_array(scanner, offset, depth, path, scan_snapshot, &target);
    }
    cJSON *item;
    enum load_status status = scan_member_value(scanner, offset, depth, key, &item);
    if (status == LOAD_OK)
        status = json_read_allocator_member(scanner->reader, item, path,
                                            &scanner->reader->draft->allocators[allocator]);
    cJSON_Delete(item);
    return status;
}

/* One memoryProfilePerAllocator entry: key and PerAllocatorMemoryProfile. */
static enum load_status scan_allocator(const struct json_scanner *scanner, void *context,
                                       const char *key, const struct json_path *path,
                                       size_t *offset, size_t depth)
{
    (void)context;
    if (scan_at(scanner, *offset, '{')) {
        size_t index;
        if (!xprof_draft_begin_entry(scanner->reader->draft, key, strlen(key), &index))
            return json_no_memory(scanner->reader);
        return scan_object(scanner, offset, depth, path, scan_allocator_member, &index);
    }
    cJSON *item;
    enum load_status status = scan_parse_value(scanner, offset, depth, &item);
    if (status == LOAD_OK)
        status = json_expect_object(scanner->reader, item, path);
    cJSON_Delete(item);
    return status;
}

static enum load_status scan_hlo_module(const struct json_scanner *scanner, void *context,
                                        const struct json_path *path, size_t *offset,
                                        size_t depth)
{
    (void)context;
    cJSON *item;
    enum load_status status = scan_parse_value(scanner, offset, depth, &item);
    if (status != LOAD_OK)
        return status;
    struct hlo_module module;
    status = json_read_hlo_module(scanner->reader, item, path, &module);
    cJSON_Delete(item);
    if (status == LOAD_OK && !xprof_draft_add_hlo_module(scanner->reader->draft, &module))
        status = json_no_memory(scanner->reader);
    return status;
}

static enum load_status scan_profile_member(const struct json_scanner *scanner, void *context,
                                            const char *key, const struct json_path *path,
                                            size_t *offset, size_t depth)
{
    (void)context;
    if ((strcmp(key, "memoryProfilePerAllocator") == 0 ||
         strcmp(key, "memory_profile_per_allocator") == 0) &&
        scan_at(scanner, *offset, '{'))
        return scan_object(scanner, offset, depth, path, scan_allocator, NULL);
    if ((strcmp(key, "hloModules") == 0 || strcmp(key, "hlo_modules") == 0) &&
        scan_at(scanner, *offset, '['))
        return scan_array(scanner, offset, depth, path, scan_hlo_module, NULL);
    cJSON *item;
    enum load_status status = scan_member_value(scanner, offset, depth, key, &item);
    if (status == LOAD_OK)
        status = json_read_profile_member(scanner->reader, item, path);
    cJSON_Delete(item);
    return status;
}

/* Some tools wrap the object in a one-element array: the first element
 * is read when it is an object; the others only parsed and counted. */
struct scan_wrapper {
    size_t count;
    bool object;  /* the first element was an object, read as the profile */
    cJSON *first; /* the first element otherwise */
};

static enum load_status scan_wrapped(const struct json_scanner *scanner, void *context,
                                     const struct json_path *path, size_t *offset, size_t depth)
{
    (void)path;
    struct scan_wrapper *wrapper = context;
    if (wrapper->count++ == 0 && scan_at(scanner, *offset, '{')) {
        wrapper->object = true;
        return scan_object(scanner, offset, depth, NULL, scan_profile_member, NULL);
    }
    cJSON *item;
    enum load_status status = scan_parse_value(scanner, offset, depth, &item);
    if (wrapper->count == 1)
        wrapper->first = item;
    else
        cJSON_Delete(item);
    return status;
}

/* The top level: the profile object, or the array wrapping it, then
 * nothing but blanks. Anything else is no MemoryProfile. */
static enum load_status scan_document(const struct json_scanner *scanner)
{
    if (scanner->size == 0)
        return scan_fail(scanner, 0);
    size_t offset = 0;
    if (scanner->size > 4 && memcmp(scanner->text, "\xef\xbb\xbf", 3) == 0)
        offset = 3;
    offset = scan_skip_whitespace(scanner, offset);
    struct scan_wrapper wrapper = {0};
    cJSON *top = NULL;
    bool object = scan_at(scanner, offset, '{');
    enum load_status status;
    if (object) {
        status = scan_object(scanner, &offset, 0, NULL, scan_profile_member, NULL);
    } else if (scan_at(scanner, offset, '[')) {
        status = scan_array(scanner, &offset, 0, NULL, scan_wrapped, &wrapper);
        object = wrapper.count == 1 && wrapper.object;
        top = wrapper.first;
        if (!object && wrapper.count != 1) {
            /* Not one element: the array itself is what the file has. */
            cJSON_Delete(top);
            top = cJSON_CreateArray();
        }
    } else {
        status = scan_parse_value(scanner, &offset, 0, &top);
    }
    if (status == LOAD_OK) {
        offset = json_skip_blanks(scanner->text, scanner->size, offset);
        if (offset != scanner->size) {
            load_error_set(scanner->reader->error, "offset %zu: invalid JSON", offset);
            status = LOAD_BAD_INPUT;
        }
    }
    if (status == LOAD_OK && !object)
        status = top ? json_fail(scanner->reader, NULL, "a MemoryProfile object", top)
                     : json_no_memory(scanner->reader);
    cJSON_Delete(top);
    return status;
}

enum load_status load_json_tracked(const uint8_t *bytes, size_t size, struct xprof_draft *draft,
                                   struct load_tracker *tracker, struct load_error *error)
{
    struct load_error unused;
    struct json_reader reader = {draft, error ? error : &unused};
    cJSON_InitHooks(&(cJSON_Hooks){.malloc_fn = json_allocate, .free_fn = free});
    struct json_scanner scanner = {(const char *)bytes, size, &reader, tracker};
    return scan_document(&scanner);
}

enum load_status load_json(const uint8_t *bytes, size_t size, struct xprof_draft *draft,
                           struct load_error *error)
{
    return load_json_tracked(bytes, size, draft, NULL, error);
}
