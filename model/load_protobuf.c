/* load_protobuf: the binary MemoryProfile loader.
 *
 * The outer messages (MemoryProfile, its map entries, PerAllocatorMemoryProfile)
 * and every message inside them are walked straight from the input bytes,
 * into an xprof_draft (model/xprof_draft.h) that XProf's finishing turns
 * into the profile: a
 * 1 GB file is almost all snapshots, and decoding them through generated code
 * would cost a malloc per message and a copy per string. Inner messages are
 * decoded by small tables (field number -> member of a flat C struct).
 * protobuf-c is not used here: 1.4 replaces a repeated singular submessage
 * instead of merging it, and cuts strings at NUL; it is the tests' reference.
 *
 * Protobuf rules honoured: unknown fields are skipped, a later scalar wins,
 * a repeated submessage is merged, a known field with the wrong wire type is
 * refused. Every error names its byte offset in the input.
 *
 * For big files: strings are interned with a hint naming their field (see
 * string_table_intern_hinted), and the bytes read are released behind the
 * reader (see struct load_tracker), so the mapped file is never resident
 * as a whole.
 *
 * A big value's snapshot list is decoded on two threads, without a pass
 * over the value first: a worker takes the entries from the middle of the
 * value on, straight into their places in the columns (reserved from an
 * estimate, so never moved while it runs), with a string table of its own
 * whose ids are translated after it is joined. The result, errors
 * included, is the sequential decoder's (see "a long snapshot list on two
 * threads" below). */
#include "config.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/load_internal.h"
#include "model/string_table.h"
#include "model/xprof_draft.h"

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

/* The general case, and every error: kept out of line so that the one-byte
 * case below inlines into every caller. */
static enum load_status wire_read_varint_slow(const struct wire *wire, size_t *position,
                                              size_t end, uint64_t *value)
{
    size_t start = *position;
    uint64_t result = 0;
    if (end - start >= WIRE_VARINT_MAX_BYTES) {
        /* Room for the longest varint: no bounds check per byte. */
        const uint8_t *bytes = wire->bytes + start;
        for (unsigned index = 0; index < WIRE_VARINT_MAX_BYTES; index++) {
            result |= (uint64_t)(bytes[index] & 0x7f) << (7 * index);
            if (bytes[index] < 0x80) {
                *position = start + index + 1;
                *value = result;
                return LOAD_OK;
            }
        }
        load_error_set(wire->error, "offset %zu: varint longer than %d bytes", start,
                       WIRE_VARINT_MAX_BYTES);
        return LOAD_BAD_INPUT;
    }
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

/* Most varints (tags, small numbers) are one byte, and the length of a
 * snapshot is two. The readers below are forced inline: they run for every
 * field of every snapshot. */
static inline __attribute__((always_inline)) enum load_status
wire_read_varint(const struct wire *wire, size_t *position, size_t end, uint64_t *value)
{
    size_t start = *position;
    const uint8_t *bytes = wire->bytes + start;
    if (start < end && bytes[0] < 0x80) {
        *value = bytes[0];
        *position = start + 1;
        return LOAD_OK;
    }
    if (end - start >= 2 && bytes[1] < 0x80) {
        *value = (uint64_t)(bytes[0] & 0x7f) | (uint64_t)bytes[1] << 7;
        *position = start + 2;
        return LOAD_OK;
    }
    return wire_read_varint_slow(wire, position, end, value);
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

static inline __attribute__((always_inline)) enum load_status
wire_read_length(const struct wire *wire, size_t *position, size_t end, struct wire_field *field)
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

static inline __attribute__((always_inline)) enum load_status
wire_read_tag(const struct wire *wire, size_t *position, size_t end, struct wire_field *field)
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
static inline __attribute__((always_inline)) enum load_status
wire_read_field(const struct wire *wire, size_t *position, size_t end, struct wire_field *field)
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

struct protobuf_loader {
    struct wire wire;
    struct xprof_draft *draft;    /* NULL in the worker thread */
    struct string_table *strings; /* the draft's, or the worker's own */
    struct load_tracker *tracker; /* may be NULL */
};

static enum load_status protobuf_fail_memory(struct protobuf_loader *loader, size_t offset)
{
    load_error_set(loader->wire.error, "offset %zu: out of memory", offset);
    return LOAD_NO_MEMORY;
}

/* ---- messages decoded by table straight into a flat C struct ---- */

enum field_kind {
    KIND_NONE, /* not a field of this message: skipped */
    KIND_INT64,
    KIND_UINT64,
    KIND_DOUBLE,
    KIND_ENUM,
    KIND_STRING, /* interned; the member is a uint32_t string id */
    KIND_MESSAGE,
};

struct message_spec;

struct field_spec {
    enum field_kind kind;
    const char *name;
    size_t member; /* offset of the member in the target struct */
    const struct message_spec *message; /* KIND_MESSAGE: its fields */
};

struct message_spec {
    size_t field_count; /* fields[] is indexed by field number */
    const struct field_spec *fields;
};

#define FIELD(kind, name, type, member) { kind, name, offsetof(type, member), NULL }
#define SUBMESSAGE(name, spec) { KIND_MESSAGE, name, 0, &spec }
#define MESSAGE_SPEC(fields) { sizeof fields / sizeof fields[0], fields }

/* MemoryProfileSnapshot and its submessages, into struct snapshot. */
static const struct field_spec stats_fields[] = {
    [1] = FIELD(KIND_INT64, "stack_reserved_bytes", struct snapshot, stack_bytes),
    [2] = FIELD(KIND_INT64, "heap_allocated_bytes", struct snapshot, heap_bytes),
    [3] = FIELD(KIND_INT64, "free_memory_bytes", struct snapshot, free_bytes),
    [4] = FIELD(KIND_DOUBLE, "fragmentation", struct snapshot, fragmentation),
    [5] = FIELD(KIND_INT64, "peak_bytes_in_use", struct snapshot, peak_bytes_in_use),
};
static const struct message_spec stats_message = MESSAGE_SPEC(stats_fields);

static const struct field_spec metadata_fields[] = {
    [1] = FIELD(KIND_ENUM, "memory_activity", struct snapshot, activity),
    [2] = FIELD(KIND_INT64, "requested_bytes", struct snapshot, requested_bytes),
    [3] = FIELD(KIND_INT64, "allocation_bytes", struct snapshot, allocation_bytes),
    [4] = FIELD(KIND_UINT64, "address", struct snapshot, address),
    [5] = FIELD(KIND_STRING, "tf_op_name", struct snapshot, op_name),
    [6] = FIELD(KIND_INT64, "step_id", struct snapshot, step_id),
    [7] = FIELD(KIND_STRING, "region_type", struct snapshot, region_type),
    [8] = FIELD(KIND_STRING, "data_type", struct snapshot, data_type),
    [9] = FIELD(KIND_STRING, "tensor_shape", struct snapshot, tensor_shape),
};
static const struct message_spec metadata_message = MESSAGE_SPEC(metadata_fields);

static const struct field_spec snapshot_fields[] = {
    [1] = FIELD(KIND_INT64, "time_offset_ps", struct snapshot, time_ps),
    [2] = SUBMESSAGE("aggregation_stats", stats_message),
    [3] = SUBMESSAGE("activity_metadata", metadata_message),
};
static const struct message_spec snapshot_message = MESSAGE_SPEC(snapshot_fields);

/* MemoryProfileSummary, into struct allocator_summary. */
static const struct field_spec peak_stats_fields[] = {
    [1] = FIELD(KIND_INT64, "stack_reserved_bytes", struct allocator_summary, peak.stack_bytes),
    [2] = FIELD(KIND_INT64, "heap_allocated_bytes", struct allocator_summary, peak.heap_bytes),
    [3] = FIELD(KIND_INT64, "free_memory_bytes", struct allocator_summary, peak.free_bytes),
    [4] = FIELD(KIND_DOUBLE, "fragmentation", struct allocator_summary, peak.fragmentation),
    [5] = FIELD(KIND_INT64, "peak_bytes_in_use", struct allocator_summary,
                peak.peak_bytes_in_use),
};
static const struct message_spec peak_stats_message = MESSAGE_SPEC(peak_stats_fields);

static const struct field_spec summary_fields[] = {
    [1] = FIELD(KIND_INT64, "peak_bytes_usage_lifetime", struct allocator_summary,
                lifetime_peak_bytes),
    [2] = SUBMESSAGE("peak_stats", peak_stats_message),
    [3] = FIELD(KIND_INT64, "peak_stats_time_ps", struct allocator_summary, peak_time_ps),
    [4] = FIELD(KIND_INT64, "memory_capacity", struct allocator_summary, capacity_bytes),
};
static const struct message_spec summary_message = MESSAGE_SPEC(summary_fields);

static const struct field_spec active_fields[] = {
    [1] = FIELD(KIND_INT64, "snapshot_index", struct active_allocation, snapshot_index),
    [2] = FIELD(KIND_INT64, "special_index", struct active_allocation, special_index),
    [3] = FIELD(KIND_INT64, "num_occurrences", struct active_allocation, occurrences),
};
static const struct message_spec active_message = MESSAGE_SPEC(active_fields);

static const struct field_spec hlo_module_fields[] = {
    [1] = FIELD(KIND_STRING, "name", struct hlo_module, name),
    [2] = FIELD(KIND_INT64, "start_time_ps", struct hlo_module, start_time_ps),
    [3] = FIELD(KIND_INT64, "end_time_ps", struct hlo_module, end_time_ps),
    [4] = FIELD(KIND_INT64, "id", struct hlo_module, id),
    [5] = FIELD(KIND_STRING, "plane_name", struct hlo_module, plane_name),
};
static const struct message_spec hlo_module_message = MESSAGE_SPEC(hlo_module_fields);

static unsigned field_kind_wire_type(enum field_kind kind)
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

static enum load_status protobuf_read_fields(struct protobuf_loader *loader, size_t position,
                                             size_t end, const struct message_spec *message,
                                             void *target);

static enum load_status protobuf_store_string(struct protobuf_loader *loader,
                                              const struct field_spec *spec,
                                              const struct wire_field *field, char *member)
{
    /* The member's place names the field: a hint for the string table. */
    uint32_t string_id = string_table_intern_hinted(
        loader->strings, (unsigned)(spec->member / sizeof(uint32_t)),
        (const char *)loader->wire.bytes + field->start, field->end - field->start);
    if (string_id == STRING_ID_NONE)
        return protobuf_fail_memory(loader, field->offset);
    memcpy(member, &string_id, sizeof string_id);
    return LOAD_OK;
}

static enum load_status protobuf_store_field(struct protobuf_loader *loader,
                                             const struct field_spec *spec,
                                             const struct wire_field *field, void *target)
{
    char *member = (char *)target + spec->member;
    int64_t int64_value = wire_int64(field->value);
    int enum_value = wire_int32(field->value);
    double double_value = wire_double(field->value);
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
        return protobuf_store_string(loader, spec, field, member);
    case KIND_MESSAGE:
        /* The submessage's fields land in the same flat struct, so a
         * repeated submessage merges the way protobuf merges it. */
        return protobuf_read_fields(loader, field->start, field->end, spec->message, target);
    default:
        return LOAD_OK;
    }
}

/* Decodes one message onto `target`: fields it does not carry keep their
 * values, which is protobuf's merge when `target` already holds some. */
static enum load_status protobuf_read_fields(struct protobuf_loader *loader, size_t position,
                                             size_t end, const struct message_spec *message,
                                             void *target)
{
    struct wire_field field;
    while (position < end) {
        enum load_status status = wire_read_field(&loader->wire, &position, end, &field);
        if (status != LOAD_OK)
            return status;
        if (field.number >= message->field_count)
            continue;
        const struct field_spec *spec = &message->fields[field.number];
        if (spec->kind == KIND_NONE)
            continue;
        status = wire_expect(&loader->wire, &field, field_kind_wire_type(spec->kind),
                             spec->name);
        if (status == LOAD_OK)
            status = protobuf_store_field(loader, spec, &field, target);
        if (status != LOAD_OK)
            return status;
    }
    return LOAD_OK;
}

/* ---- one MemoryProfileSnapshot in its usual layout ---- */

/* Nearly every snapshot is written the same way: each known field at most
 * once, in field-number order, with one-byte tags. Such a snapshot is
 * decoded here without the tables; anything else (another field, another
 * wire type, a repeated or reordered field, a bad length) makes the fast
 * path give up on the WHOLE snapshot before it has changed anything, and
 * the table decoder then gives exactly its own result or error. */

static bool protobuf_fast_path = true;

void load_protobuf_set_fast_path(bool enabled)
{
    protobuf_fast_path = enabled;
}

static inline __attribute__((always_inline)) bool
fast_read_varint(const uint8_t *bytes, size_t *position, size_t end, uint64_t *value)
{
    size_t at = *position;
    uint64_t result = 0;
    /* Ten bytes at most; bits past 64 dropped, as wire_read_varint does. */
    for (unsigned shift = 0; shift < 70; shift += 7) {
        if (at >= end)
            return false;
        uint8_t byte = bytes[at++];
        result |= (uint64_t)(byte & 0x7f) << shift;
        if (byte < 0x80) {
            *position = at;
            *value = result;
            return true;
        }
    }
    return false;
}

/* An int64 field with one-byte tag `tag`, if it is next; `member` is left
 * alone when it is not. False only when the field is there but bad. */
static inline __attribute__((always_inline)) bool
fast_read_int64_field(const uint8_t *bytes, size_t *position, size_t end, uint8_t tag,
                      int64_t *member)
{
    if (*position >= end || bytes[*position] != tag)
        return true;
    size_t at = *position + 1;
    uint64_t value;
    if (!fast_read_varint(bytes, &at, end, &value))
        return false;
    *position = at;
    *member = wire_int64(value);
    return true;
}

/* The same for a length-delimited field: its payload is [*start, *stop). */
static inline __attribute__((always_inline)) bool
fast_read_length_field(const uint8_t *bytes, size_t *position, size_t end, uint8_t tag,
                       size_t *start, size_t *stop)
{
    if (*position >= end || bytes[*position] != tag)
        return true;
    size_t at = *position + 1;
    uint64_t length;
    if (!fast_read_varint(bytes, &at, end, &length) || length > (uint64_t)(end - at))
        return false;
    *start = at;
    *stop = at + (size_t)length;
    *position = *stop;
    return true;
}

static inline __attribute__((always_inline)) bool
fast_read_stats(const uint8_t *bytes, size_t position, size_t end, struct snapshot *snapshot)
{
    if (!fast_read_int64_field(bytes, &position, end, 0x08, &snapshot->stack_bytes) ||
        !fast_read_int64_field(bytes, &position, end, 0x10, &snapshot->heap_bytes) ||
        !fast_read_int64_field(bytes, &position, end, 0x18, &snapshot->free_bytes))
        return false;
    if (position < end && bytes[position] == 0x21) {
        if (end - position < 9)
            return false;
        uint64_t bits = 0;
        for (unsigned index = 0; index < 8; index++)
            bits |= (uint64_t)bytes[position + 1 + index] << (8 * index);
        snapshot->fragmentation = wire_double(bits);
        position += 9;
    }
    if (!fast_read_int64_field(bytes, &position, end, 0x28, &snapshot->peak_bytes_in_use))
        return false;
    return position == end;
}

/* Where the metadata's strings are, in field order; a stop of 0 means
 * absent (a payload never starts at offset 0). */
struct fast_strings {
    size_t start[4];
    size_t stop[4];
};

static inline __attribute__((always_inline)) bool
fast_read_metadata(const uint8_t *bytes, size_t position, size_t end, struct snapshot *snapshot,
                   struct fast_strings *strings)
{
    if (position < end && bytes[position] == 0x08) {
        uint64_t activity;
        position++;
        if (!fast_read_varint(bytes, &position, end, &activity))
            return false;
        snapshot->activity = wire_int32(activity);
    }
    if (!fast_read_int64_field(bytes, &position, end, 0x10, &snapshot->requested_bytes) ||
        !fast_read_int64_field(bytes, &position, end, 0x18, &snapshot->allocation_bytes))
        return false;
    if (position < end && bytes[position] == 0x20) {
        position++;
        if (!fast_read_varint(bytes, &position, end, &snapshot->address))
            return false;
    }
    if (!fast_read_length_field(bytes, &position, end, 0x2a, &strings->start[0],
                                &strings->stop[0]) ||
        !fast_read_int64_field(bytes, &position, end, 0x30, &snapshot->step_id) ||
        !fast_read_length_field(bytes, &position, end, 0x3a, &strings->start[1],
                                &strings->stop[1]) ||
        !fast_read_length_field(bytes, &position, end, 0x42, &strings->start[2],
                                &strings->stop[2]) ||
        !fast_read_length_field(bytes, &position, end, 0x4a, &strings->start[3],
                                &strings->stop[3]))
        return false;
    return position == end;
}

/* The string members in field order, with the hints the table decoder
 * gives them (their place in struct snapshot). */
static const size_t fast_string_members[4] = {
    offsetof(struct snapshot, op_name),
    offsetof(struct snapshot, region_type),
    offsetof(struct snapshot, data_type),
    offsetof(struct snapshot, tensor_shape),
};

/* Decodes onto a zeroed `snapshot`; on false, it may hold some fields. */
static bool protobuf_read_snapshot_fast(struct protobuf_loader *loader, size_t position,
                                        size_t end, struct snapshot *snapshot)
{
    const uint8_t *bytes = loader->wire.bytes;
    struct fast_strings strings = { { 0 }, { 0 } };
    size_t start = 0, stop = 0;
    if (!fast_read_int64_field(bytes, &position, end, 0x08, &snapshot->time_ps))
        return false;
    if (position < end && bytes[position] == 0x12) {
        if (!fast_read_length_field(bytes, &position, end, 0x12, &start, &stop) ||
            !fast_read_stats(bytes, start, stop, snapshot))
            return false;
    }
    if (position < end && bytes[position] == 0x1a) {
        if (!fast_read_length_field(bytes, &position, end, 0x1a, &start, &stop) ||
            !fast_read_metadata(bytes, start, stop, snapshot, &strings))
            return false;
    }
    if (position != end)
        return false;
    for (unsigned index = 0; index < 4; index++) {
        if (strings.stop[index] == 0)
            continue; /* id 0, as the table decoder leaves it */
        size_t member = fast_string_members[index];
        uint32_t string_id = string_table_intern_hinted(
            loader->strings, (unsigned)(member / sizeof(uint32_t)),
            (const char *)bytes + strings.start[index], strings.stop[index] - strings.start[index]);
        /* Out of memory: the table decoder says so, at its own offset. */
        if (string_id == STRING_ID_NONE)
            return false;
        memcpy((char *)snapshot + member, &string_id, sizeof string_id);
    }
    return true;
}

/* One MemoryProfileSnapshot from [start, end) onto a zeroed `snapshot`. */
static enum load_status protobuf_read_snapshot(struct protobuf_loader *loader, size_t start,
                                               size_t end, struct snapshot *snapshot)
{
    if (protobuf_fast_path && protobuf_read_snapshot_fast(loader, start, end, snapshot))
        return LOAD_OK;
    *snapshot = (struct snapshot){ 0 };
    return protobuf_read_fields(loader, start, end, &snapshot_message, snapshot);
}

/* ---- the PerAllocatorMemoryProfile fields ---- */

/* Appends one MemoryProfileSnapshot (message = snapshot_message) or one
 * MemoryActivityMetadata (message = metadata_message, time and stats 0). */
static enum load_status protobuf_append_snapshot(struct protobuf_loader *loader,
                                                 const struct wire_field *field,
                                                 const struct message_spec *message,
                                                 struct snapshot_columns *columns)
{
    struct snapshot snapshot = { 0 };
    enum load_status status =
        message == &snapshot_message
            ? protobuf_read_snapshot(loader, field->start, field->end, &snapshot)
            : protobuf_read_fields(loader, field->start, field->end, message, &snapshot);
    if (status != LOAD_OK)
        return status;
    if (!snapshot_columns_append(columns, &snapshot))
        return protobuf_fail_memory(loader, field->offset);
    return LOAD_OK;
}

/* A profile_summary seen again (in the same value or under a repeated key)
 * merges into the one before, as protobuf merges a repeated submessage. */
static enum load_status protobuf_read_summary(struct protobuf_loader *loader,
                                              struct xprof_allocator *allocator,
                                              const struct wire_field *field)
{
    struct allocator_summary summary = { 0 };
    if (allocator->has_summary)
        summary = allocator->summary;
    enum load_status status =
        protobuf_read_fields(loader, field->start, field->end, &summary_message, &summary);
    if (status != LOAD_OK)
        return status;
    xprof_allocator_set_summary(allocator, summary.capacity_bytes, summary.lifetime_peak_bytes,
                                &summary.peak, summary.peak_time_ps);
    return LOAD_OK;
}

static enum load_status protobuf_read_active(struct protobuf_loader *loader,
                                             struct xprof_allocator *allocator,
                                             const struct wire_field *field)
{
    struct active_allocation active = { 0 };
    enum load_status status =
        protobuf_read_fields(loader, field->start, field->end, &active_message, &active);
    if (status != LOAD_OK)
        return status;
    if (!xprof_allocator_add_active(allocator, &active))
        return protobuf_fail_memory(loader, field->offset);
    return LOAD_OK;
}

static enum load_status protobuf_read_hlo_module(struct protobuf_loader *loader,
                                                 const struct wire_field *field)
{
    struct hlo_module module = { 0 };
    enum load_status status =
        protobuf_read_fields(loader, field->start, field->end, &hlo_module_message, &module);
    if (status != LOAD_OK)
        return status;
    if (!xprof_draft_add_hlo_module(loader->draft, &module))
        return protobuf_fail_memory(loader, field->offset);
    return LOAD_OK;
}

/* ---- PerAllocatorMemoryProfile ---- */

static const char *const allocator_field_names[] = {
    [1] = "memory_profile_snapshots",
    [2] = "profile_summary",
    [3] = "active_allocations",
    [4] = "special_allocations",
    [5] = "sampled_timeline_snapshots",
};

static size_t protobuf_parallel_threshold = LOAD_PROTOBUF_PARALLEL_THRESHOLD;

void load_protobuf_set_parallel_threshold(size_t threshold)
{
    protobuf_parallel_threshold = threshold ? threshold : LOAD_PROTOBUF_PARALLEL_THRESHOLD;
}

/* ---- a long snapshot list on two threads ---- */

/* A big value is shared without a pass over it first: the main thread
 * decodes it from its start, as one thread would; a worker walks the same
 * fields without decoding them up to the list's first entry past the
 * value's middle (the entries it counts on the way are the index of that
 * entry in the columns) and decodes the list from there on, straight into
 * the columns the main thread reserved from an estimate of its length.
 * The columns do not move while the worker runs: when the main thread
 * would have to grow them, it stops the worker first.
 *
 * The worker never reports an error. It stops at the first entry it cannot
 * store (bad bytes, no room left, no memory) and the main thread, having
 * taken over its entries, decodes on from there: whatever went wrong is
 * found again, and reported, exactly as one thread reports it. */

/* The main thread's part is a little more than half (half and a 20th):
 * the worker walks that part before it decodes its own. The estimate of
 * the list's length comes from its first entries. */
enum { SPLIT_EXTRA_SHARE = 20, SPLIT_SAMPLE_ENTRIES = 256, SPLIT_SAMPLE_FIELDS = 65536 };

struct protobuf_worker {
    pthread_t thread;
    struct protobuf_loader loader; /* no draft, no tracker, its own strings */
    struct load_error error;       /* the worker's wire errors go here, unread */
    uint32_t number;               /* the list split: 1 or 5 */
    size_t start, middle, end;     /* of the value */
    struct snapshot_columns *columns;
    size_t base;     /* columns->count when the value began */
    size_t capacity; /* columns->capacity, fixed while the worker runs */
    /* The tracker's release, called from the worker: it only drops pages. */
    void (*release)(void *context, size_t from, size_t to);
    void *release_context;
    size_t page_size;
    atomic_bool cancelled;
    atomic_size_t reached; /* for progress: where the worker's decoding is */
    /* Set by the worker; read after the join. */
    bool has_split;
    size_t split;       /* the list's first entry at or past middle */
    size_t first_index; /* its index in the columns */
    size_t stored;      /* entries decoded into [first_index, first_index + stored) */
    size_t stop;        /* the list's first entry from split on not decoded; end if none */
    size_t resume;      /* the first other field from split on; end if none */
};

/* The list most of the value's first entries belong to, and room for it in
 * its columns: the value's size over the entries' average size, plus a
 * quarter. Room not used costs address space only (its pages are never
 * touched). False when there is no list to split or no room to be had. */
static bool protobuf_reserve_split(const struct protobuf_loader *loader,
                                   struct xprof_allocator *allocator, size_t start, size_t end,
                                   struct protobuf_worker *worker)
{
    struct load_error ignored;
    const struct wire wire = { loader->wire.bytes, loader->wire.size, &ignored };
    size_t count[6] = { 0 }, bytes[6] = { 0 }, position = start;
    struct wire_field field;
    for (size_t fields = 0; fields < SPLIT_SAMPLE_FIELDS && position < end; fields++) {
        if (wire_read_field(&wire, &position, end, &field) != LOAD_OK)
            break;
        if (field.number != 1 && field.number != 5)
            continue;
        count[field.number]++;
        bytes[field.number] += position - field.offset;
        if (count[field.number] == SPLIT_SAMPLE_ENTRIES)
            break;
    }
    uint32_t number = count[5] > count[1] ? 5 : 1;
    if (count[number] == 0)
        return false;
    size_t length = (end - start) / (bytes[number] / count[number]);
    size_t most = (end - start) / 2 + 1; /* an entry takes two bytes at least */
    length = length + length / 4 + 16 < most ? length + length / 4 + 16 : most;
    struct snapshot_columns *columns =
        number == 1 ? &allocator->snapshots : &allocator->sampled;
    if (length > SIZE_MAX - columns->count ||
        !snapshot_columns_reserve(columns, columns->count + length))
        return false;
    worker->number = number;
    worker->start = start;
    worker->middle = start + (end - start) / 2 + (end - start) / SPLIT_EXTRA_SHARE;
    worker->end = end;
    worker->columns = columns;
    worker->base = columns->count;
    worker->capacity = columns->capacity;
    return true;
}

static bool protobuf_worker_cancelled(struct protobuf_worker *worker)
{
    return atomic_load_explicit(&worker->cancelled, memory_order_relaxed);
}

/* Skips the main thread's part, counting the list's entries in it. */
static bool protobuf_worker_find_split(struct protobuf_worker *worker)
{
    const struct wire *wire = &worker->loader.wire;
    size_t position = worker->start, entries = 0;
    struct wire_field field;
    for (size_t fields = 0; position < worker->end; fields++) {
        if (fields % 4096 == 0 && protobuf_worker_cancelled(worker))
            return false;
        if (wire_read_field(wire, &position, worker->end, &field) != LOAD_OK)
            return false; /* the main thread meets it first */
        if (field.number != worker->number)
            continue;
        if (field.offset >= worker->middle) {
            worker->has_split = true;
            worker->split = field.offset;
            worker->first_index = worker->base + entries;
            return true;
        }
        entries++;
    }
    return false;
}

/* Drops whole pages of the worker's own part behind it, as the tracker
 * does behind the main thread. */
static void protobuf_worker_release(struct protobuf_worker *worker, size_t *released,
                                    size_t position)
{
    if (!worker->release || position < *released ||
        position - *released < LOAD_TRACKER_STEP)
        return;
    worker->release(worker->release_context, *released, position);
    *released = position - position % worker->page_size;
}

/* The list's entries from the split on, until one cannot be stored. */
static void protobuf_worker_decode(struct protobuf_worker *worker)
{
    struct protobuf_loader *loader = &worker->loader;
    size_t position = worker->split, index = worker->first_index;
    /* Rounded up: the page holding the split is the main thread's too. */
    size_t released = position + (worker->page_size - position % worker->page_size);
    worker->stop = worker->resume = worker->end;
    while (position < worker->end && !protobuf_worker_cancelled(worker)) {
        struct wire_field field = { .offset = position };
        struct snapshot snapshot = { 0 };
        if (wire_read_field(&loader->wire, &position, worker->end, &field) != LOAD_OK) {
            worker->stop = field.offset;
            break;
        }
        if (field.number != worker->number) {
            if (worker->resume == worker->end)
                worker->resume = field.offset;
            continue;
        }
        if (index >= worker->capacity || field.type != WIRE_LENGTH ||
            protobuf_read_snapshot(loader, field.start, field.end, &snapshot) != LOAD_OK) {
            worker->stop = field.offset;
            break;
        }
        snapshot_columns_set(worker->columns, index++, &snapshot);
        protobuf_worker_release(worker, &released, position);
        if (index % 1024 == 0)
            atomic_store_explicit(&worker->reached, position, memory_order_relaxed);
    }
    worker->stored = index - worker->first_index;
}

static void *protobuf_worker_run(void *argument)
{
    struct protobuf_worker *worker = argument;
    if (protobuf_worker_find_split(worker))
        protobuf_worker_decode(worker);
    return NULL;
}

/* NULL when the value is not worth a worker or one cannot be had (no
 * estimate, out of memory, no thread): one thread decodes it all. */
static struct protobuf_worker *protobuf_worker_start(const struct protobuf_loader *loader,
                                                     size_t index, size_t start, size_t end)
{
    if (end - start < protobuf_parallel_threshold)
        return NULL;
    struct protobuf_worker *worker = calloc(1, sizeof *worker);
    if (!worker)
        return NULL;
    if (!protobuf_reserve_split(loader, &loader->draft->allocators[index], start, end,
                                worker)) {
        free(worker);
        return NULL;
    }
    worker->loader = (struct protobuf_loader){
        .wire = { .bytes = loader->wire.bytes, .size = loader->wire.size,
                  .error = &worker->error },
        .strings = string_table_new(),
    };
    if (loader->tracker) {
        worker->release = loader->tracker->release;
        worker->release_context = loader->tracker->release_context;
    }
    long page_size = sysconf(_SC_PAGESIZE);
    worker->page_size = page_size > 0 ? (size_t)page_size : 4096;
    atomic_init(&worker->cancelled, false);
    atomic_init(&worker->reached, 0);
    if (worker->loader.strings &&
        pthread_create(&worker->thread, NULL, protobuf_worker_run, worker) == 0)
        return worker;
    string_table_free(worker->loader.strings);
    free(worker);
    return NULL;
}

static void protobuf_worker_free(struct protobuf_worker *worker)
{
    string_table_free(worker->loader.strings);
    free(worker);
}

/* Stops the worker and forgets what it did: its entries lie past the
 * columns' count, where the main thread overwrites them. */
static void protobuf_worker_cancel(struct protobuf_worker *worker)
{
    atomic_store_explicit(&worker->cancelled, true, memory_order_relaxed);
    pthread_join(worker->thread, NULL);
    protobuf_worker_free(worker);
}

/* The worker's entries become the columns' next ones, their string ids
 * the profile's. */
static bool protobuf_worker_adopt(struct protobuf_loader *loader,
                                  const struct protobuf_worker *worker)
{
    const struct string_table *strings = worker->loader.strings;
    size_t count = string_table_count(strings);
    uint32_t *ids = malloc(count * sizeof *ids);
    if (!ids || !string_table_merge(loader->strings, strings, ids)) {
        free(ids);
        return false;
    }
    struct snapshot_columns *columns = worker->columns;
    size_t end_index = worker->first_index + worker->stored;
    for (size_t i = worker->first_index; i < end_index; i++) {
        columns->op_name[i] = ids[columns->op_name[i]];
        columns->region_type[i] = ids[columns->region_type[i]];
        columns->data_type[i] = ids[columns->data_type[i]];
        columns->tensor_shape[i] = ids[columns->tensor_shape[i]];
    }
    columns->count = end_index;
    free(ids);
    return true;
}

/* The entries of the list the main thread leaves alone: those in
 * [from, to), the worker's. */
struct protobuf_taken {
    uint32_t number;
    size_t from;
    size_t to;
};

/* The main thread has reached the split at `offset`: it joins the worker,
 * takes its entries over and returns where to go on (the worker's first
 * field that is not one of them). `offset` again if nothing can be taken. */
static size_t protobuf_worker_hand_over(struct protobuf_loader *loader,
                                        struct protobuf_worker *worker, size_t offset,
                                        struct protobuf_taken *taken)
{
    pthread_join(worker->thread, NULL);
    size_t next = offset;
    if (worker->has_split && worker->split == offset &&
        worker->first_index == worker->columns->count && worker->stored > 0 &&
        protobuf_worker_adopt(loader, worker)) {
        *taken = (struct protobuf_taken){ worker->number, offset, worker->stop };
        next = worker->resume < worker->stop ? worker->resume : worker->stop;
    }
    protobuf_worker_free(worker);
    return next;
}

/* ---- the main thread's part of a value ---- */

static enum load_status protobuf_read_allocator_field(struct protobuf_loader *loader,
                                                      size_t index,
                                                      const struct wire_field *field)
{
    struct xprof_allocator *allocator = &loader->draft->allocators[index];
    switch (field->number) {
    case 1:
        return protobuf_append_snapshot(loader, field, &snapshot_message,
                                        &allocator->snapshots);
    case 2:
        return protobuf_read_summary(loader, allocator, field);
    case 3:
        return protobuf_read_active(loader, allocator, field);
    case 4:
        return protobuf_append_snapshot(loader, field, &metadata_message,
                                        &allocator->specials);
    case 5:
        return protobuf_append_snapshot(loader, field, &snapshot_message,
                                        &allocator->sampled);
    default:
        return LOAD_OK;
    }
}

/* Progress counts the worker's bytes too (it runs from the middle, its
 * start give or take an entry), or the bar would stop at the middle until
 * the worker is joined. Pages are released behind each thread by itself. */
static void protobuf_track(struct protobuf_loader *loader, struct protobuf_worker *worker,
                           size_t position)
{
    if (!worker) {
        load_tracker_advance(loader->tracker, position);
        return;
    }
    size_t reached = atomic_load_explicit(&worker->reached, memory_order_relaxed);
    size_t done = position + (reached > worker->middle ? reached - worker->middle : 0);
    load_tracker_release(loader->tracker, position);
    load_tracker_report(loader->tracker, done < worker->end ? done : worker->end);
}

/* One PerAllocatorMemoryProfile, merged into allocator `index`, every
 * field in file order; the worker (if one starts) takes the list's entries
 * from the middle on. */
static enum load_status protobuf_read_allocator(struct protobuf_loader *loader, size_t index,
                                                size_t position, size_t end)
{
    struct protobuf_worker *worker = protobuf_worker_start(loader, index, position, end);
    struct protobuf_taken taken = { 0 };
    struct wire_field field;
    enum load_status status = LOAD_OK;
    while (status == LOAD_OK && position < end) {
        status = wire_read_field(&loader->wire, &position, end, &field);
        if (status != LOAD_OK || field.number > 5)
            continue;
        if (field.number == taken.number && field.offset >= taken.from &&
            field.offset < taken.to)
            continue;
        if (worker && field.number == worker->number) {
            if (field.offset >= worker->middle) {
                position = protobuf_worker_hand_over(loader, worker, field.offset, &taken);
                worker = NULL;
                continue;
            }
            /* Growing the columns would move them under the worker. */
            if (worker->columns->count == worker->capacity) {
                protobuf_worker_cancel(worker);
                worker = NULL;
            }
        }
        status = wire_expect(&loader->wire, &field, WIRE_LENGTH,
                             allocator_field_names[field.number]);
        if (status == LOAD_OK)
            status = protobuf_read_allocator_field(loader, index, &field);
        protobuf_track(loader, worker, position);
    }
    if (worker)
        protobuf_worker_cancel(worker);
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
    size_t index;
    if (!xprof_draft_begin_entry(loader->draft, (const char *)loader->wire.bytes + key_start,
                                 key_end - key_start, &index))
        return protobuf_fail_memory(loader, entry->offset);
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
    if (!xprof_draft_add_memory_id(loader->draft, (const char *)loader->wire.bytes + field->start,
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
        loader->draft->num_hosts = wire_int32(field->value);
        return LOAD_OK;
    case 3:
        return protobuf_read_memory_id(loader, field);
    case 5:
        loader->draft->version = wire_int32(field->value);
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
        load_tracker_advance(loader->tracker, position);
    }
    return status;
}

enum load_status load_protobuf_tracked(const uint8_t *bytes, size_t size,
                                       struct xprof_draft *draft, struct load_tracker *tracker,
                                       struct load_error *error)
{
    struct protobuf_loader loader = {
        .wire = { .bytes = bytes, .size = size, .error = error },
        .draft = draft,
        .strings = xprof_draft_strings(draft),
        .tracker = tracker,
    };
    return protobuf_read_profile(&loader);
}

enum load_status load_protobuf(const uint8_t *bytes, size_t size, struct xprof_draft *draft,
                               struct load_error *error)
{
    return load_protobuf_tracked(bytes, size, draft, NULL, error);
}
