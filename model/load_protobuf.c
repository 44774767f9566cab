/* load_protobuf: the binary MemoryProfile loader.
 *
 * The outer messages (MemoryProfile, its map entries, PerAllocatorMemoryProfile)
 * and the snapshots are walked straight from the input bytes: a 1 GB file is
 * almost all snapshots, and decoding them through generated code would cost a
 * malloc per message and a copy per string. The small, rare submessages
 * (summary, active allocation, HLO module) go through protobuf-c.
 *
 * Protobuf rules honoured: unknown fields are skipped, a later scalar wins,
 * a repeated submessage is merged, a known field with the wrong wire type is
 * refused. Every error names its byte offset in the input. */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memory_profile.pb-c.h"
#include "model/load.h"
#include "model/profile.h"
#include "model/string_table.h"

/* ---- the wire format ---- */

enum wire_type {
    WIRE_VARINT = 0,
    WIRE_FIXED64 = 1,
    WIRE_LENGTH = 2,
    WIRE_GROUP_START = 3,
    WIRE_GROUP_END = 4,
    WIRE_FIXED32 = 5,
};

#define WIRE_VARINT_MAX_BYTES 10

/* The whole input; positions are absolute, so errors can name them. */
struct wire {
    const uint8_t *bytes;
    size_t size;
    struct load_error *error;
};

/* One field as read from the wire, value included. */
struct wire_field {
    size_t offset; /* of the tag */
    uint32_t number;
    unsigned type;
    uint64_t value;   /* varint, fixed64 or fixed32 */
    size_t start;     /* length-delimited payload: [start, end) */
    size_t end;
};

static enum load_status wire_fail_past_end(const struct wire *wire, size_t offset, size_t end,
                                           const char *what)
{
    if (end == wire->size)
        load_error_set(wire->error, "offset %zu: %s runs past the end of the data (%zu bytes)",
                       offset, what, wire->size);
    else
        load_error_set(wire->error,
                       "offset %zu: %s runs past the end of its message (at offset %zu)",
                       offset, what, end);
    return LOAD_BAD_INPUT;
}

static enum load_status wire_read_varint(const struct wire *wire, size_t *position, size_t end,
                                         uint64_t *value)
{
    size_t start = *position;
    uint64_t result = 0;
    for (unsigned index = 0; index < WIRE_VARINT_MAX_BYTES; index++) {
        if (start + index >= end)
            return wire_fail_past_end(wire, start, end, "varint");
        uint8_t byte = wire->bytes[start + index];
        /* Bits shifted past 64 in the tenth byte are dropped, as protobuf does. */
        result |= (uint64_t)(byte & 0x7f) << (7 * index);
        if (byte < 0x80) {
            *position = start + index + 1;
            *value = result;
            return LOAD_OK;
        }
    }
    load_error_set(wire->error, "offset %zu: varint longer than %d bytes", start,
                   WIRE_VARINT_MAX_BYTES);
    return LOAD_BAD_INPUT;
}

static enum load_status wire_read_fixed(const struct wire *wire, size_t *position, size_t end,
                                        unsigned width, uint64_t *value)
{
    if (end - *position < width)
        return wire_fail_past_end(wire, *position, end,
                                  width == 8 ? "fixed64 value" : "fixed32 value");
    uint64_t result = 0;
    for (unsigned index = 0; index < width; index++)
        result |= (uint64_t)wire->bytes[*position + index] << (8 * index);
    *position += width;
    *value = result;
    return LOAD_OK;
}

static enum load_status wire_read_length(const struct wire *wire, size_t *position, size_t end,
                                         struct wire_field *field)
{
    size_t length_offset = *position;
    uint64_t length;
    enum load_status status = wire_read_varint(wire, position, end, &length);
    if (status != LOAD_OK)
        return status;
    /* Compared as a count of remaining bytes, so a huge length cannot wrap. */
    if (length > (uint64_t)(end - *position)) {
        char what[48];
        snprintf(what, sizeof what, "length %" PRIu64, length);
        return wire_fail_past_end(wire, length_offset, end, what);
    }
    field->start = *position;
    field->end = *position + (size_t)length;
    *position = field->end;
    return LOAD_OK;
}

static enum load_status wire_read_tag(const struct wire *wire, size_t *position, size_t end,
                                      struct wire_field *field)
{
    field->offset = *position;
    uint64_t tag;
    enum load_status status = wire_read_varint(wire, position, end, &tag);
    if (status != LOAD_OK)
        return status;
    if (tag > UINT32_MAX || tag >> 3 == 0) {
        load_error_set(wire->error, "offset %zu: invalid field number %" PRIu64, field->offset,
                       tag >> 3);
        return LOAD_BAD_INPUT;
    }
    field->number = (uint32_t)(tag >> 3);
    field->type = (unsigned)(tag & 7);
    return LOAD_OK;
}

/* Reads the next field and its value; the caller decides what it means. */
static enum load_status wire_read_field(const struct wire *wire, size_t *position, size_t end,
                                        struct wire_field *field)
{
    enum load_status status = wire_read_tag(wire, position, end, field);
    if (status != LOAD_OK)
        return status;
    switch (field->type) {
    case WIRE_VARINT:
        return wire_read_varint(wire, position, end, &field->value);
    case WIRE_FIXED64:
        return wire_read_fixed(wire, position, end, 8, &field->value);
    case WIRE_LENGTH:
        return wire_read_length(wire, position, end, field);
    case WIRE_FIXED32:
        return wire_read_fixed(wire, position, end, 4, &field->value);
    case WIRE_GROUP_START:
    case WIRE_GROUP_END:
        load_error_set(wire->error,
                       "offset %zu: field %" PRIu32 " has group wire type %u, not supported",
                       field->offset, field->number, field->type);
        return LOAD_BAD_INPUT;
    default:
        load_error_set(wire->error, "offset %zu: field %" PRIu32 " has invalid wire type %u",
                       field->offset, field->number, field->type);
        return LOAD_BAD_INPUT;
    }
}

static enum load_status wire_expect(const struct wire *wire, const struct wire_field *field,
                                    unsigned type, const char *name)
{
    if (field->type == type)
        return LOAD_OK;
    load_error_set(wire->error,
                   "offset %zu: field %" PRIu32 " (%s) has wire type %u, expected %u",
                   field->offset, field->number, name, field->type, type);
    return LOAD_BAD_INPUT;
}

/* Two's complement without relying on implementation-defined conversions. */
static int64_t wire_int64(uint64_t value)
{
    if (value <= INT64_MAX)
        return (int64_t)value;
    return -(int64_t)(UINT64_MAX - value) - 1;
}

/* int32 and enum fields keep the low 32 bits of their (sign-extended) varint. */
static int32_t wire_int32(uint64_t value)
{
    uint32_t low = (uint32_t)value;
    if (low <= INT32_MAX)
        return (int32_t)low;
    return -(int32_t)(UINT32_MAX - low) - 1;
}

static double wire_double(uint64_t bits)
{
    double value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

/* ---- the loader's state ---- */

/* Every profile_summary seen for one allocator, concatenated: parsing the
 * concatenation is exactly protobuf's merge of repeated submessages. */
struct summary_bytes {
    uint8_t *bytes;
    size_t size;
};

struct protobuf_loader {
    struct wire wire;
    struct profile *profile;
    struct summary_bytes *summaries; /* indexed like profile->allocators */
    size_t summary_capacity;
    ProtobufCAllocator unpack_allocator;
    bool unpack_out_of_memory; /* tells protobuf-c's NULL apart: memory, not input */
};

static enum load_status protobuf_fail_memory(struct protobuf_loader *loader, size_t offset)
{
    load_error_set(loader->wire.error, "offset %zu: out of memory", offset);
    return LOAD_NO_MEMORY;
}

static void *protobuf_unpack_alloc(void *context, size_t size)
{
    struct protobuf_loader *loader = context;
    void *memory = malloc(size ? size : 1);
    if (memory == NULL)
        loader->unpack_out_of_memory = true;
    return memory;
}

static void protobuf_unpack_free(void *context, void *memory)
{
    (void)context;
    free(memory);
}

static void protobuf_loader_init(struct protobuf_loader *loader, const uint8_t *bytes,
                                 size_t size, struct profile *profile, struct load_error *error)
{
    memset(loader, 0, sizeof *loader);
    loader->wire = (struct wire){ .bytes = bytes, .size = size, .error = error };
    loader->profile = profile;
    loader->unpack_allocator.alloc = protobuf_unpack_alloc;
    loader->unpack_allocator.free = protobuf_unpack_free;
    loader->unpack_allocator.allocator_data = loader;
}

static void protobuf_loader_free(struct protobuf_loader *loader)
{
    for (size_t index = 0; index < loader->summary_capacity; index++)
        free(loader->summaries[index].bytes);
    free(loader->summaries);
}

/* A protobuf-c unpack returned NULL: say whether memory or the input failed. */
static enum load_status protobuf_fail_unpack(struct protobuf_loader *loader,
                                             const struct wire_field *field, const char *type)
{
    if (loader->unpack_out_of_memory)
        return protobuf_fail_memory(loader, field->offset);
    load_error_set(loader->wire.error, "offset %zu: %s (%zu bytes) is not a valid message",
                   field->start, type, field->end - field->start);
    return LOAD_BAD_INPUT;
}

/* ---- snapshots, decoded by table straight into a struct snapshot ---- */

enum snapshot_kind {
    KIND_NONE, /* not a field of this message: skipped */
    KIND_INT64,
    KIND_UINT64,
    KIND_DOUBLE,
    KIND_ENUM,
    KIND_STRING,
    KIND_MESSAGE,
};

struct snapshot_message;

struct snapshot_field {
    enum snapshot_kind kind;
    const char *name;
    size_t member; /* offsetof(struct snapshot, ...) */
    const struct snapshot_message *message; /* KIND_MESSAGE: its fields */
};

struct snapshot_message {
    size_t field_count; /* fields[] is indexed by field number */
    const struct snapshot_field *fields;
};

#define SNAPSHOT_FIELD(kind, name, member) { kind, name, offsetof(struct snapshot, member), NULL }

static const struct snapshot_field stats_fields[] = {
    [1] = SNAPSHOT_FIELD(KIND_INT64, "stack_reserved_bytes", stack_bytes),
    [2] = SNAPSHOT_FIELD(KIND_INT64, "heap_allocated_bytes", heap_bytes),
    [3] = SNAPSHOT_FIELD(KIND_INT64, "free_memory_bytes", free_bytes),
    [4] = SNAPSHOT_FIELD(KIND_DOUBLE, "fragmentation", fragmentation),
    [5] = SNAPSHOT_FIELD(KIND_INT64, "peak_bytes_in_use", peak_bytes_in_use),
};

static const struct snapshot_field metadata_fields[] = {
    [1] = SNAPSHOT_FIELD(KIND_ENUM, "memory_activity", activity),
    [2] = SNAPSHOT_FIELD(KIND_INT64, "requested_bytes", requested_bytes),
    [3] = SNAPSHOT_FIELD(KIND_INT64, "allocation_bytes", allocation_bytes),
    [4] = SNAPSHOT_FIELD(KIND_UINT64, "address", address),
    [5] = SNAPSHOT_FIELD(KIND_STRING, "tf_op_name", op_name),
    [6] = SNAPSHOT_FIELD(KIND_INT64, "step_id", step_id),
    [7] = SNAPSHOT_FIELD(KIND_STRING, "region_type", region_type),
    [8] = SNAPSHOT_FIELD(KIND_STRING, "data_type", data_type),
    [9] = SNAPSHOT_FIELD(KIND_STRING, "tensor_shape", tensor_shape),
};

static const struct snapshot_message stats_message = {
    sizeof stats_fields / sizeof stats_fields[0], stats_fields
};
static const struct snapshot_message metadata_message = {
    sizeof metadata_fields / sizeof metadata_fields[0], metadata_fields
};

static const struct snapshot_field snapshot_fields[] = {
    [1] = SNAPSHOT_FIELD(KIND_INT64, "time_offset_ps", time_ps),
    [2] = { KIND_MESSAGE, "aggregation_stats", 0, &stats_message },
    [3] = { KIND_MESSAGE, "activity_metadata", 0, &metadata_message },
};

static const struct snapshot_message snapshot_message = {
    sizeof snapshot_fields / sizeof snapshot_fields[0], snapshot_fields
};

static unsigned snapshot_kind_wire_type(enum snapshot_kind kind)
{
    switch (kind) {
    case KIND_DOUBLE:
        return WIRE_FIXED64;
    case KIND_STRING:
    case KIND_MESSAGE:
        return WIRE_LENGTH;
    default:
        return WIRE_VARINT;
    }
}

static enum load_status protobuf_read_snapshot_fields(struct protobuf_loader *loader,
                                                      size_t position, size_t end,
                                                      const struct snapshot_message *message,
                                                      struct snapshot *snapshot);

static enum load_status protobuf_store_snapshot_field(struct protobuf_loader *loader,
                                                      const struct snapshot_field *spec,
                                                      const struct wire_field *field,
                                                      struct snapshot *snapshot)
{
    char *member = (char *)snapshot + spec->member;
    int64_t int64_value = wire_int64(field->value);
    int enum_value = wire_int32(field->value);
    double double_value = wire_double(field->value);
    uint32_t string_id;
    switch (spec->kind) {
    case KIND_INT64:
        memcpy(member, &int64_value, sizeof int64_value);
        return LOAD_OK;
    case KIND_UINT64:
        memcpy(member, &field->value, sizeof field->value);
        return LOAD_OK;
    case KIND_DOUBLE:
        memcpy(member, &double_value, sizeof double_value);
        return LOAD_OK;
    case KIND_ENUM:
        memcpy(member, &enum_value, sizeof enum_value);
        return LOAD_OK;
    case KIND_STRING:
        string_id = string_table_intern(loader->profile->strings,
                                        (const char *)loader->wire.bytes + field->start,
                                        field->end - field->start);
        if (string_id == STRING_ID_NONE)
            return protobuf_fail_memory(loader, field->offset);
        memcpy(member, &string_id, sizeof string_id);
        return LOAD_OK;
    case KIND_MESSAGE:
        /* The submessage's fields land in the same flat snapshot, so a
         * repeated submessage merges the way protobuf merges it. */
        return protobuf_read_snapshot_fields(loader, field->start, field->end, spec->message,
                                             snapshot);
    default:
        return LOAD_OK;
    }
}

static enum load_status protobuf_read_snapshot_fields(struct protobuf_loader *loader,
                                                      size_t position, size_t end,
                                                      const struct snapshot_message *message,
                                                      struct snapshot *snapshot)
{
    struct wire_field field;
    while (position < end) {
        enum load_status status = wire_read_field(&loader->wire, &position, end, &field);
        if (status != LOAD_OK)
            return status;
        if (field.number >= message->field_count)
            continue;
        const struct snapshot_field *spec = &message->fields[field.number];
        if (spec->kind == KIND_NONE)
            continue;
        status = wire_expect(&loader->wire, &field, snapshot_kind_wire_type(spec->kind),
                             spec->name);
        if (status == LOAD_OK)
            status = protobuf_store_snapshot_field(loader, spec, &field, snapshot);
        if (status != LOAD_OK)
            return status;
    }
    return LOAD_OK;
}

/* Appends one MemoryProfileSnapshot (message = snapshot_message) or one
 * MemoryActivityMetadata (message = metadata_message, time and stats 0). */
static enum load_status protobuf_append_snapshot(struct protobuf_loader *loader,
                                                 const struct wire_field *field,
                                                 const struct snapshot_message *message,
                                                 struct snapshot_columns *columns)
{
    struct snapshot snapshot = { 0 };
    enum load_status status =
        protobuf_read_snapshot_fields(loader, field->start, field->end, message, &snapshot);
    if (status != LOAD_OK)
        return status;
    if (!snapshot_columns_append(columns, &snapshot))
        return protobuf_fail_memory(loader, field->offset);
    return LOAD_OK;
}

/* ---- the small submessages, through protobuf-c ---- */

static struct memory_stats protobuf_memory_stats(const Tensorflow__Profiler__MemoryAggregationStats *stats)
{
    struct memory_stats result = { 0 };
    if (stats != NULL) {
        result.stack_bytes = stats->stack_reserved_bytes;
        result.heap_bytes = stats->heap_allocated_bytes;
        result.free_bytes = stats->free_memory_bytes;
        result.fragmentation = stats->fragmentation;
        result.peak_bytes_in_use = stats->peak_bytes_in_use;
    }
    return result;
}

static bool protobuf_reserve_summaries(struct protobuf_loader *loader, size_t index)
{
    if (index < loader->summary_capacity)
        return true;
    size_t capacity = loader->summary_capacity ? loader->summary_capacity : 4;
    while (capacity <= index)
        capacity *= 2;
    struct summary_bytes *grown = realloc(loader->summaries, capacity * sizeof *grown);
    if (grown == NULL)
        return false;
    memset(grown + loader->summary_capacity, 0,
           (capacity - loader->summary_capacity) * sizeof *grown);
    loader->summaries = grown;
    loader->summary_capacity = capacity;
    return true;
}

static bool protobuf_append_summary_bytes(struct protobuf_loader *loader, size_t index,
                                          const struct wire_field *field)
{
    size_t length = field->end - field->start;
    if (!protobuf_reserve_summaries(loader, index))
        return false;
    struct summary_bytes *summary = &loader->summaries[index];
    if (length == 0)
        return true;
    uint8_t *grown = realloc(summary->bytes, summary->size + length);
    if (grown == NULL)
        return false;
    memcpy(grown + summary->size, loader->wire.bytes + field->start, length);
    summary->bytes = grown;
    summary->size += length;
    return true;
}

/* Each profile_summary seen so far for this allocator is parsed again as one
 * message: cheap (summaries are tiny, rarely repeated) and exact. */
static enum load_status protobuf_read_summary(struct protobuf_loader *loader, size_t index,
                                              const struct wire_field *field)
{
    static const uint8_t no_bytes[1];
    if (!protobuf_append_summary_bytes(loader, index, field))
        return protobuf_fail_memory(loader, field->offset);
    const struct summary_bytes *bytes = &loader->summaries[index];
    loader->unpack_out_of_memory = false;
    Tensorflow__Profiler__MemoryProfileSummary *summary =
        tensorflow__profiler__memory_profile_summary__unpack(
            &loader->unpack_allocator, bytes->size, bytes->bytes ? bytes->bytes : no_bytes);
    if (summary == NULL)
        return protobuf_fail_unpack(loader, field, "MemoryProfileSummary");
    struct memory_stats peak = protobuf_memory_stats(summary->peak_stats);
    struct allocator *allocator = &loader->profile->allocators[index];
    allocator_set_summary(allocator, summary->memory_capacity, summary->peak_bytes_usage_lifetime,
                          &peak, summary->peak_stats_time_ps);
    allocator->raw_has_summary = true;
    tensorflow__profiler__memory_profile_summary__free_unpacked(summary,
                                                                &loader->unpack_allocator);
    return LOAD_OK;
}

static enum load_status protobuf_read_active(struct protobuf_loader *loader,
                                             struct allocator *allocator,
                                             const struct wire_field *field)
{
    loader->unpack_out_of_memory = false;
    Tensorflow__Profiler__ActiveAllocation *message =
        tensorflow__profiler__active_allocation__unpack(&loader->unpack_allocator,
                                                        field->end - field->start,
                                                        loader->wire.bytes + field->start);
    if (message == NULL)
        return protobuf_fail_unpack(loader, field, "ActiveAllocation");
    struct active_allocation active = {
        .snapshot_index = message->snapshot_index,
        .special_index = message->special_index,
        .occurrences = message->num_occurrences,
    };
    tensorflow__profiler__active_allocation__free_unpacked(message, &loader->unpack_allocator);
    if (!allocator_add_active(allocator, &active))
        return protobuf_fail_memory(loader, field->offset);
    return LOAD_OK;
}

static bool protobuf_add_hlo_module(struct protobuf_loader *loader,
                                    const Tensorflow__Profiler__HloModule *message)
{
    struct string_table *strings = loader->profile->strings;
    struct hlo_module module = {
        .id = message->id,
        .name = string_table_intern(strings, message->name, strlen(message->name)),
        .plane_name = string_table_intern(strings, message->plane_name,
                                          strlen(message->plane_name)),
        .start_time_ps = message->start_time_ps,
        .end_time_ps = message->end_time_ps,
    };
    if (module.name == STRING_ID_NONE || module.plane_name == STRING_ID_NONE)
        return false;
    return profile_add_hlo_module(loader->profile, &module);
}

static enum load_status protobuf_read_hlo_module(struct protobuf_loader *loader,
                                                 const struct wire_field *field)
{
    loader->unpack_out_of_memory = false;
    Tensorflow__Profiler__HloModule *message =
        tensorflow__profiler__hlo_module__unpack(&loader->unpack_allocator,
                                                 field->end - field->start,
                                                 loader->wire.bytes + field->start);
    if (message == NULL)
        return protobuf_fail_unpack(loader, field, "HloModule");
    bool added = protobuf_add_hlo_module(loader, message);
    tensorflow__profiler__hlo_module__free_unpacked(message, &loader->unpack_allocator);
    return added ? LOAD_OK : protobuf_fail_memory(loader, field->offset);
}

/* ---- PerAllocatorMemoryProfile ---- */

/* The cheap pre-pass: count the snapshots by skipping them, so the columns
 * are reserved once and exactly instead of doubling past the need. */
static enum load_status protobuf_count_snapshots(const struct wire *wire, size_t position,
                                                 size_t end, size_t *timeline, size_t *sampled)
{
    struct wire_field field;
    *timeline = 0;
    *sampled = 0;
    while (position < end) {
        enum load_status status = wire_read_field(wire, &position, end, &field);
        if (status != LOAD_OK)
            return status;
        if (field.number == 1)
            (*timeline)++;
        else if (field.number == 5)
            (*sampled)++;
    }
    return LOAD_OK;
}

static bool protobuf_reserve_more(struct snapshot_columns *columns, size_t more)
{
    if (more == 0)
        return true;
    if (more > SIZE_MAX - columns->count)
        return false;
    return snapshot_columns_reserve(columns, columns->count + more);
}

static enum load_status protobuf_reserve_snapshots(struct protobuf_loader *loader, size_t index,
                                                   size_t start, size_t end)
{
    size_t timeline, sampled;
    enum load_status status =
        protobuf_count_snapshots(&loader->wire, start, end, &timeline, &sampled);
    if (status != LOAD_OK)
        return status;
    struct allocator *allocator = &loader->profile->allocators[index];
    if (!protobuf_reserve_more(&allocator->raw_snapshots, timeline) ||
        !protobuf_reserve_more(&allocator->raw_sampled, sampled))
        return protobuf_fail_memory(loader, start);
    return LOAD_OK;
}

static const char *const allocator_field_names[] = {
    [1] = "memory_profile_snapshots",
    [2] = "profile_summary",
    [3] = "active_allocations",
    [4] = "special_allocations",
    [5] = "sampled_timeline_snapshots",
};

static enum load_status protobuf_read_allocator_field(struct protobuf_loader *loader,
                                                      size_t index,
                                                      const struct wire_field *field)
{
    struct allocator *allocator = &loader->profile->allocators[index];
    switch (field->number) {
    case 1:
        return protobuf_append_snapshot(loader, field, &snapshot_message,
                                        &allocator->raw_snapshots);
    case 2:
        return protobuf_read_summary(loader, index, field);
    case 3:
        return protobuf_read_active(loader, allocator, field);
    case 4:
        return protobuf_append_snapshot(loader, field, &metadata_message,
                                        &allocator->raw_specials);
    case 5:
        return protobuf_append_snapshot(loader, field, &snapshot_message,
                                        &allocator->raw_sampled);
    default:
        return LOAD_OK;
    }
}

/* One PerAllocatorMemoryProfile, merged into allocator `index`. */
static enum load_status protobuf_read_allocator(struct protobuf_loader *loader, size_t index,
                                                size_t position, size_t end)
{
    enum load_status status = protobuf_reserve_snapshots(loader, index, position, end);
    struct wire_field field;
    while (status == LOAD_OK && position < end) {
        status = wire_read_field(&loader->wire, &position, end, &field);
        if (status != LOAD_OK || field.number > 5)
            continue;
        status = wire_expect(&loader->wire, &field, WIRE_LENGTH,
                             allocator_field_names[field.number]);
        if (status == LOAD_OK)
            status = protobuf_read_allocator_field(loader, index, &field);
    }
    return status;
}

/* ---- MemoryProfile ---- */

/* The map entry's key (field 1, the last one wins; "" when missing), found
 * first because the value may come before it. */
static enum load_status protobuf_find_map_key(const struct wire *wire, size_t position,
                                              size_t end, size_t *key_start, size_t *key_end)
{
    struct wire_field field;
    *key_start = *key_end = position;
    while (position < end) {
        enum load_status status = wire_read_field(wire, &position, end, &field);
        if (status == LOAD_OK && field.number == 1)
            status = wire_expect(wire, &field, WIRE_LENGTH, "key");
        else if (status == LOAD_OK && field.number == 2)
            status = wire_expect(wire, &field, WIRE_LENGTH, "value");
        if (status != LOAD_OK)
            return status;
        if (field.number == 1) {
            *key_start = field.start;
            *key_end = field.end;
        }
    }
    return LOAD_OK;
}

/* One memory_profile_per_allocator entry; every value it holds (a repeated
 * value merges) goes into the allocator named by its key. */
static enum load_status protobuf_read_map_entry(struct protobuf_loader *loader,
                                                const struct wire_field *entry)
{
    size_t key_start, key_end;
    enum load_status status =
        protobuf_find_map_key(&loader->wire, entry->start, entry->end, &key_start, &key_end);
    if (status != LOAD_OK)
        return status;
    struct allocator *allocator = profile_add_allocator(
        loader->profile, (const char *)loader->wire.bytes + key_start, key_end - key_start);
    if (allocator == NULL)
        return protobuf_fail_memory(loader, entry->offset);
    size_t index = (size_t)(allocator - loader->profile->allocators);
    size_t position = entry->start;
    struct wire_field field;
    while (status == LOAD_OK && position < entry->end) {
        status = wire_read_field(&loader->wire, &position, entry->end, &field);
        if (status == LOAD_OK && field.number == 2)
            status = protobuf_read_allocator(loader, index, field.start, field.end);
    }
    return status;
}

static enum load_status protobuf_read_memory_id(struct protobuf_loader *loader,
                                                const struct wire_field *field)
{
    if (!profile_add_memory_id(loader->profile,
                               (const char *)loader->wire.bytes + field->start,
                               field->end - field->start))
        return protobuf_fail_memory(loader, field->offset);
    return LOAD_OK;
}

static const char *const profile_field_names[] = {
    [1] = "memory_profile_per_allocator",
    [2] = "num_hosts",
    [3] = "memory_ids",
    [5] = "version",
    [6] = "hlo_modules",
};

static const unsigned profile_field_types[] = {
    [1] = WIRE_LENGTH, [2] = WIRE_VARINT, [3] = WIRE_LENGTH, [5] = WIRE_VARINT, [6] = WIRE_LENGTH,
};

static enum load_status protobuf_read_profile_field(struct protobuf_loader *loader,
                                                    const struct wire_field *field)
{
    switch (field->number) {
    case 1:
        return protobuf_read_map_entry(loader, field);
    case 2:
        loader->profile->num_hosts = wire_int32(field->value);
        return LOAD_OK;
    case 3:
        return protobuf_read_memory_id(loader, field);
    case 5:
        loader->profile->version = wire_int32(field->value);
        return LOAD_OK;
    case 6:
        return protobuf_read_hlo_module(loader, field);
    default:
        return LOAD_OK;
    }
}

static enum load_status protobuf_read_profile(struct protobuf_loader *loader)
{
    size_t position = 0;
    size_t end = loader->wire.size;
    struct wire_field field;
    enum load_status status = LOAD_OK;
    while (status == LOAD_OK && position < end) {
        status = wire_read_field(&loader->wire, &position, end, &field);
        /* Field 4 is reserved: skipped like any unknown field. */
        if (status != LOAD_OK || field.number > 6 || field.number == 4)
            continue;
        status = wire_expect(&loader->wire, &field, profile_field_types[field.number],
                             profile_field_names[field.number]);
        if (status == LOAD_OK)
            status = protobuf_read_profile_field(loader, &field);
    }
    return status;
}

enum load_status load_protobuf(const uint8_t *bytes, size_t size, struct profile *profile,
                               struct load_error *error)
{
    struct protobuf_loader loader;
    protobuf_loader_init(&loader, bytes, size, profile, error);
    enum load_status status = protobuf_read_profile(&loader);
    protobuf_loader_free(&loader);
    return status;
}
