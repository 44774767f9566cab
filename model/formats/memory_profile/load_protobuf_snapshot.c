/* load_protobuf_snapshot: one MemoryProfileSnapshot, the message a
 * gigabyte file is almost made of.
 *
 * Snapshots are decoded straight from the input bytes into a struct
 * snapshot: decoding them through generated code would cost a malloc per
 * message and a copy per string. The tables below give the protobuf rules
 * (see protobuf_table.h); the fast path after them takes the usual layout
 * without the tables and gives up, before it changes anything, on
 * anything else. */
#include "config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "model/formats/memory_profile/memory_profile_internal.h"

/* ---- the tables: MemoryProfileSnapshot and its submessages ---- */

/* MemoryAggregationStats, onto a struct memory_stats: a summary's peak, or
 * a snapshot's stats (see SNAPSHOT_STATS_OFFSET). */
static const struct protobuf_field_spec stats_fields[] = {
    [1] = PROTOBUF_FIELD(PROTOBUF_INT64, "stack_reserved_bytes", struct memory_stats, stack_bytes),
    [2] = PROTOBUF_FIELD(PROTOBUF_INT64, "heap_allocated_bytes", struct memory_stats, heap_bytes),
    [3] = PROTOBUF_FIELD(PROTOBUF_INT64, "free_memory_bytes", struct memory_stats, free_bytes),
    [4] = PROTOBUF_FIELD(PROTOBUF_DOUBLE, "fragmentation", struct memory_stats, fragmentation),
    [5] = PROTOBUF_FIELD(PROTOBUF_INT64, "peak_bytes_in_use", struct memory_stats,
                         peak_bytes_in_use),
};
const struct protobuf_message_spec protobuf_stats_message = PROTOBUF_MESSAGE_SPEC(stats_fields);

static const struct protobuf_field_spec metadata_fields[] = {
    [1] = PROTOBUF_FIELD(PROTOBUF_ENUM, "memory_activity", struct snapshot, activity),
    [2] = PROTOBUF_FIELD(PROTOBUF_INT64, "requested_bytes", struct snapshot, requested_bytes),
    [3] = PROTOBUF_FIELD(PROTOBUF_INT64, "allocation_bytes", struct snapshot, allocation_bytes),
    [4] = PROTOBUF_FIELD(PROTOBUF_UINT64, "address", struct snapshot, address),
    [5] = PROTOBUF_FIELD(PROTOBUF_STRING, "tf_op_name", struct snapshot, op_name),
    [6] = PROTOBUF_FIELD(PROTOBUF_INT64, "step_id", struct snapshot, step_id),
    [7] = PROTOBUF_FIELD(PROTOBUF_STRING, "region_type", struct snapshot, region_type),
    [8] = PROTOBUF_FIELD(PROTOBUF_STRING, "data_type", struct snapshot, data_type),
    [9] = PROTOBUF_FIELD(PROTOBUF_STRING, "tensor_shape", struct snapshot, tensor_shape),
};
const struct protobuf_message_spec protobuf_metadata_message =
    PROTOBUF_MESSAGE_SPEC(metadata_fields);

static const struct protobuf_field_spec snapshot_fields[] = {
    [1] = PROTOBUF_FIELD(PROTOBUF_INT64, "time_offset_ps", struct snapshot, time_ps),
    [2] = PROTOBUF_SUBMESSAGE_AT("aggregation_stats", protobuf_stats_message,
                                 SNAPSHOT_STATS_OFFSET),
    [3] = PROTOBUF_SUBMESSAGE("activity_metadata", protobuf_metadata_message),
};
static const struct protobuf_message_spec snapshot_message = PROTOBUF_MESSAGE_SPEC(snapshot_fields);

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
        uint32_t string_id = protobuf_table_intern(&loader->wire, loader->strings, member,
                                                   strings.start[index], strings.stop[index]);
        /* Out of memory: the table decoder says so, at its own offset. */
        if (string_id == STRING_ID_NONE)
            return false;
        memcpy((char *)snapshot + member, &string_id, sizeof string_id);
    }
    return true;
}

enum load_status protobuf_read_snapshot(struct protobuf_loader *loader, size_t start, size_t end,
                                        struct snapshot *snapshot)
{
    if (protobuf_fast_path && protobuf_read_snapshot_fast(loader, start, end, snapshot))
        return LOAD_OK;
    *snapshot = (struct snapshot){ 0 };
    return protobuf_table_read(&loader->wire, loader->strings, start, end, &snapshot_message,
                               snapshot);
}

