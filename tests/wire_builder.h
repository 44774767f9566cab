/* wire_builder: protobuf wire bytes made by hand, for the tests. It owns
 * the wire format and nothing above it: varints, tags, little-endian fixed
 * values and length prefixes. What a field number means (a snapshot's
 * time, an allocator's key) is each test's business, so are broken bytes:
 * the writers put exactly what they are told, a truncated fixed64 or a
 * tag with an invalid wire type included. Running out of memory fails the
 * test (a cmocka assertion). */
#ifndef MEMTOP_WIRE_BUILDER_H
#define MEMTOP_WIRE_BUILDER_H

#include <stddef.h>
#include <stdint.h>

/* A growable buffer; `{ 0 }` is an empty one. Owns `data`. Also fine for
 * any other bytes a test builds piece by piece (wire_bytes_put_data). */
struct wire_bytes {
    uint8_t *data;
    size_t size;
    size_t capacity;
};

/* Frees the data and leaves an empty buffer, ready to be used again. */
void wire_bytes_free(struct wire_bytes *bytes);
/* The same for each of `count` buffers. */
void wire_bytes_free_array(struct wire_bytes *const *buffers, size_t count);
/* The same for each buffer named: WIRE_BYTES_FREE_ALL(&stats, &snapshot). */
#define WIRE_BYTES_FREE_ALL(...)                                               \
    wire_bytes_free_array(                                                     \
        (struct wire_bytes *const[]){ __VA_ARGS__ },                           \
        sizeof((struct wire_bytes *const[]){ __VA_ARGS__ }) / sizeof(struct wire_bytes *))

/* Raw bytes, as they are. */
void wire_bytes_put_data(struct wire_bytes *bytes, const void *data, size_t size);
void wire_bytes_put_byte(struct wire_bytes *bytes, uint8_t byte);

/* Base 128, least significant group first: 1 to 10 bytes. */
void wire_bytes_put_varint(struct wire_bytes *bytes, uint64_t value);
/* A field's key: (field << 3 | type) as a varint. Any type fits in the
 * three bits, the invalid 6 and 7 included. */
void wire_bytes_put_tag(struct wire_bytes *bytes, uint32_t field, unsigned type);
/* The low `width` bytes of value, least significant first: 4 for a fixed32,
 * 8 for a fixed64, fewer for one cut short. */
void wire_bytes_put_fixed(struct wire_bytes *bytes, uint64_t value, unsigned width);

/* Whole fields: a tag and its value. A signed value goes in cast to
 * uint64_t, as protobuf sends int32 and int64 alike: ten bytes when
 * negative. */
void wire_bytes_put_varint_field(struct wire_bytes *bytes, uint32_t field, uint64_t value);
void wire_bytes_put_double_field(struct wire_bytes *bytes, uint32_t field, double value);
void wire_bytes_put_length_field(struct wire_bytes *bytes, uint32_t field, const void *data,
                                 size_t size);
/* The text up to its NUL, without it. */
void wire_bytes_put_string_field(struct wire_bytes *bytes, uint32_t field, const char *text);
/* Another buffer (an embedded message) as a length-delimited field. */
void wire_bytes_put_message_field(struct wire_bytes *bytes, uint32_t field,
                                  const struct wire_bytes *message);

#endif
