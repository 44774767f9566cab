/* protobuf_wire: the protobuf wire format, read from bytes in memory.
 *
 * Owns: varints, tags, lengths, fixed-width values, skipping fields,
 * walking a message's fields, packed repeated varints, and the bounds
 * checks with their exact error messages, each naming the byte offset in
 * the whole input ("offset 12: varint runs past the end of the data").
 * Called by: every protobuf-based loader (the MemoryProfile loader and its
 * pieces; an XSpace decoder next).
 * Must not: know any message (what a field number means is the caller's),
 * allocate, or print. The readers every field goes through are static
 * inline here, forced inline: they run for every field of every snapshot
 * of a gigabyte file. Their rare cases and every error are out of line in
 * protobuf_wire.c. */
#ifndef MEMTOP_PROTOBUF_WIRE_H
#define MEMTOP_PROTOBUF_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "model/load_internal.h"

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

#define WIRE_INLINE static inline __attribute__((always_inline))

/* "offset N: WHAT runs past the end of the data (SIZE bytes)", or "... of
 * its message (at offset END)" when `end` is not the input's end. */
enum load_status wire_fail_past_end(const struct wire *wire, size_t offset, size_t end,
                                    const char *what);

/* The general varint, and every varint error (wire_read_varint's slow case). */
enum load_status wire_read_varint_slow(const struct wire *wire, size_t *position, size_t end,
                                       uint64_t *value);

/* A varint at *position, which moves past it; `end` bounds the message.
 * Most varints (tags, small numbers) are one byte, and the length of a
 * snapshot is two: those are read here, the rest out of line. */
WIRE_INLINE enum load_status wire_read_varint(const struct wire *wire, size_t *position,
                                              size_t end, uint64_t *value)
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

/* A little-endian value of `width` (4 or 8) bytes. */
WIRE_INLINE enum load_status wire_read_fixed(const struct wire *wire, size_t *position, size_t end,
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

/* "offset N: length L runs past ..." for a length that does not fit. */
enum load_status wire_fail_length(const struct wire *wire, size_t length_offset, size_t end,
                                  uint64_t length);

/* A length and the payload after it: [field->start, field->end). */
WIRE_INLINE enum load_status wire_read_length(const struct wire *wire, size_t *position,
                                              size_t end, struct wire_field *field)
{
    size_t length_offset = *position;
    uint64_t length;
    enum load_status status = wire_read_varint(wire, position, end, &length);
    if (status != LOAD_OK)
        return status;
    /* Compared as a count of remaining bytes, so a huge length cannot wrap. */
    if (length > (uint64_t)(end - *position))
        return wire_fail_length(wire, length_offset, end, length);
    field->start = *position;
    field->end = *position + (size_t)length;
    *position = field->end;
    return LOAD_OK;
}

/* "offset N: invalid field number F" */
enum load_status wire_fail_field_number(const struct wire *wire, size_t offset, uint64_t tag);

WIRE_INLINE enum load_status wire_read_tag(const struct wire *wire, size_t *position, size_t end,
                                           struct wire_field *field)
{
    field->offset = *position;
    uint64_t tag;
    enum load_status status = wire_read_varint(wire, position, end, &tag);
    if (status != LOAD_OK)
        return status;
    if (tag > UINT32_MAX || tag >> 3 == 0)
        return wire_fail_field_number(wire, field->offset, tag);
    field->number = (uint32_t)(tag >> 3);
    field->type = (unsigned)(tag & 7);
    return LOAD_OK;
}

/* Groups (long deprecated) and wire types 6 and 7 are refused. */
enum load_status wire_fail_wire_type(const struct wire *wire, const struct wire_field *field);

/* Reads the next field and its value; the caller decides what it means.
 * Reading a field the caller does not know is how it is skipped. */
WIRE_INLINE enum load_status wire_read_field(const struct wire *wire, size_t *position,
                                             size_t end, struct wire_field *field)
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
    default:
        return wire_fail_wire_type(wire, field);
    }
}

/* LOAD_OK when the known field `name` came with wire type `type`; else
 * "offset N: field F (NAME) has wire type T, expected E". */
enum load_status wire_expect(const struct wire *wire, const struct wire_field *field,
                             unsigned type, const char *name);

/* Calls `each` for every field of the message [position, end) in file
 * order, unknown ones included (it skips what it does not know by
 * returning LOAD_OK); stops at the first status that is not LOAD_OK. */
typedef enum load_status (*wire_field_fn)(void *context, const struct wire_field *field);
enum load_status wire_for_each_field(const struct wire *wire, size_t position, size_t end,
                                     wire_field_fn each, void *context);

/* The values of a repeated varint field, one field at a time: a packed
 * field (WIRE_LENGTH, its payload a run of varints) or a single unpacked
 * value (WIRE_VARINT); protobuf readers must take both. Anything else is
 * refused as wire_expect() refuses it. */
typedef enum load_status (*wire_varint_fn)(void *context, uint64_t value);
enum load_status wire_read_repeated_varint(const struct wire *wire, const struct wire_field *field,
                                           const char *name, wire_varint_fn each, void *context);

/* Two's complement without relying on implementation-defined conversions. */
WIRE_INLINE int64_t wire_int64(uint64_t value)
{
    if (value <= INT64_MAX)
        return (int64_t)value;
    return -(int64_t)(UINT64_MAX - value) - 1;
}

/* int32 and enum fields keep the low 32 bits of their (sign-extended) varint. */
WIRE_INLINE int32_t wire_int32(uint64_t value)
{
    uint32_t low = (uint32_t)value;
    if (low <= INT32_MAX)
        return (int32_t)low;
    return -(int32_t)(UINT32_MAX - low) - 1;
}

/* sint32/sint64 (zigzag). */
WIRE_INLINE int64_t wire_zigzag64(uint64_t value)
{
    return wire_int64((value >> 1) ^ (~(value & 1) + 1));
}

WIRE_INLINE double wire_double(uint64_t bits)
{
    double value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

/* Whether the first bytes (at most 512) read as plain text: printable
 * ASCII, tabs and line ends, UTF-8, with a letter or a digit among them.
 * A protobuf message a profiler writes cannot: its first fields' tags and
 * lengths are control bytes within a few hundred bytes. Probes of
 * protobuf formats answer "not mine" for text, so that load.c says "not a
 * memory profile" rather than quoting a wire type. */
bool wire_head_is_text(const uint8_t *bytes, size_t size);

#endif
