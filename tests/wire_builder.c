#include "config.h"

#include "tests/wire_builder.h"

#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

/* The wire types these writers put; tests name the others by number, as
 * the protobuf documentation does. */
enum wire_type {
    WIRE_TYPE_VARINT = 0,
    WIRE_TYPE_FIXED64 = 1,
    WIRE_TYPE_LENGTH = 2,
};

void wire_bytes_free(struct wire_bytes *bytes)
{
    free(bytes->data);
    *bytes = (struct wire_bytes){ 0 };
}

void wire_bytes_free_array(struct wire_bytes *const *buffers, size_t count)
{
    for (size_t index = 0; index < count; index++)
        wire_bytes_free(buffers[index]);
}

static void wire_bytes_reserve(struct wire_bytes *bytes, size_t more)
{
    if (bytes->size + more <= bytes->capacity)
        return;
    size_t capacity = bytes->capacity ? bytes->capacity : 64;
    while (capacity < bytes->size + more)
        capacity *= 2;
    bytes->data = realloc(bytes->data, capacity);
    assert_non_null(bytes->data);
    bytes->capacity = capacity;
}

void wire_bytes_put_data(struct wire_bytes *bytes, const void *data, size_t size)
{
    /* memcpy may not be handed NULL, even for nothing. */
    if (size == 0)
        return;
    wire_bytes_reserve(bytes, size);
    memcpy(bytes->data + bytes->size, data, size);
    bytes->size += size;
}

void wire_bytes_put_byte(struct wire_bytes *bytes, uint8_t byte)
{
    wire_bytes_put_data(bytes, &byte, 1);
}

void wire_bytes_put_varint(struct wire_bytes *bytes, uint64_t value)
{
    while (value >= 0x80) {
        wire_bytes_put_byte(bytes, (uint8_t)(value | 0x80));
        value >>= 7;
    }
    wire_bytes_put_byte(bytes, (uint8_t)value);
}

void wire_bytes_put_tag(struct wire_bytes *bytes, uint32_t field, unsigned type)
{
    assert_true(type <= 7);
    wire_bytes_put_varint(bytes, (uint64_t)field << 3 | type);
}

void wire_bytes_put_fixed(struct wire_bytes *bytes, uint64_t value, unsigned width)
{
    assert_true(width <= 8);
    for (unsigned index = 0; index < width; index++)
        wire_bytes_put_byte(bytes, (uint8_t)(value >> (8 * index)));
}

void wire_bytes_put_varint_field(struct wire_bytes *bytes, uint32_t field, uint64_t value)
{
    wire_bytes_put_tag(bytes, field, WIRE_TYPE_VARINT);
    wire_bytes_put_varint(bytes, value);
}

void wire_bytes_put_double_field(struct wire_bytes *bytes, uint32_t field, double value)
{
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    wire_bytes_put_tag(bytes, field, WIRE_TYPE_FIXED64);
    wire_bytes_put_fixed(bytes, bits, 8);
}

void wire_bytes_put_length_field(struct wire_bytes *bytes, uint32_t field, const void *data,
                                 size_t size)
{
    wire_bytes_put_tag(bytes, field, WIRE_TYPE_LENGTH);
    wire_bytes_put_varint(bytes, size);
    wire_bytes_put_data(bytes, data, size);
}

void wire_bytes_put_string_field(struct wire_bytes *bytes, uint32_t field, const char *text)
{
    wire_bytes_put_length_field(bytes, field, text, strlen(text));
}

void wire_bytes_put_message_field(struct wire_bytes *bytes, uint32_t field,
                                  const struct wire_bytes *message)
{
    wire_bytes_put_length_field(bytes, field, message->data, message->size);
}
