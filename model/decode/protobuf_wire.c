#include "config.h"

#include "model/decode/protobuf_wire.h"

#include <inttypes.h>
#include <stdio.h>

enum load_status wire_fail_past_end(const struct wire *wire, size_t offset, size_t end,
                                    const char *what)
{
    if (end == wire->size)
        load_error_at(wire->error, offset, "%s runs past the end of the data (%zu bytes)", what,
                      wire->size);
    else
        load_error_at(wire->error, offset, "%s runs past the end of its message (at offset %zu)",
                      what, end);
    return LOAD_BAD_INPUT;
}

static enum load_status wire_fail_long_varint(const struct wire *wire, size_t start)
{
    load_error_at(wire->error, start, "varint longer than %d bytes", WIRE_VARINT_MAX_BYTES);
    return LOAD_BAD_INPUT;
}

enum load_status wire_read_varint_slow(const struct wire *wire, size_t *position, size_t end,
                                       uint64_t *value)
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
        return wire_fail_long_varint(wire, start);
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
    return wire_fail_long_varint(wire, start);
}

enum load_status wire_fail_length(const struct wire *wire, size_t length_offset, size_t end,
                                  uint64_t length)
{
    char what[48];
    snprintf(what, sizeof what, "length %" PRIu64, length);
    return wire_fail_past_end(wire, length_offset, end, what);
}

enum load_status wire_fail_field_number(const struct wire *wire, size_t offset, uint64_t tag)
{
    load_error_at(wire->error, offset, "invalid field number %" PRIu64, tag >> 3);
    return LOAD_BAD_INPUT;
}

enum load_status wire_fail_wire_type(const struct wire *wire, const struct wire_field *field)
{
    if (field->type == WIRE_GROUP_START || field->type == WIRE_GROUP_END)
        load_error_at(wire->error, field->offset,
                      "field %" PRIu32 " has group wire type %u, not supported", field->number,
                      field->type);
    else
        load_error_at(wire->error, field->offset, "field %" PRIu32 " has invalid wire type %u",
                      field->number, field->type);
    return LOAD_BAD_INPUT;
}

enum load_status wire_expect(const struct wire *wire, const struct wire_field *field,
                             unsigned type, const char *name)
{
    if (field->type == type)
        return LOAD_OK;
    load_error_at(wire->error, field->offset,
                  "field %" PRIu32 " (%s) has wire type %u, expected %u", field->number, name,
                  field->type, type);
    return LOAD_BAD_INPUT;
}

enum load_status wire_for_each_field(const struct wire *wire, size_t position, size_t end,
                                     wire_field_fn each, void *context)
{
    struct wire_field field;
    while (position < end) {
        enum load_status status = wire_read_field(wire, &position, end, &field);
        if (status == LOAD_OK)
            status = each(context, &field);
        if (status != LOAD_OK)
            return status;
    }
    return LOAD_OK;
}

enum load_status wire_read_repeated_varint(const struct wire *wire, const struct wire_field *field,
                                           const char *name, wire_varint_fn each, void *context)
{
    if (field->type == WIRE_VARINT)
        return each(context, field->value);
    enum load_status status = wire_expect(wire, field, WIRE_LENGTH, name);
    size_t position = field->start;
    while (status == LOAD_OK && position < field->end) {
        uint64_t value;
        status = wire_read_varint(wire, &position, field->end, &value);
        if (status == LOAD_OK)
            status = each(context, value);
    }
    return status;
}

/* ---- text is not protobuf ---- */

/* Bytes of a UTF-8 character starting with `lead` (0: not a lead byte). */
static size_t utf8_length(uint8_t lead)
{
    return lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3
         : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
}

bool wire_head_is_text(const uint8_t *bytes, size_t size)
{
    const size_t head = 512;
    size_t end = size < head ? size : head;
    bool word = false;
    for (size_t i = 0; i < end;) {
        uint8_t byte = bytes[i];
        if (byte >= 0x80) {
            size_t length = utf8_length(byte);
            if (length == 0)
                return false;
            for (size_t k = 1; k < length; k++)
                if (i + k < size && (bytes[i + k] & 0xc0) != 0x80)
                    return false;
            i += length;
            continue;
        }
        if ((byte < 0x20 && byte != '\t' && byte != '\n' && byte != '\r') || byte == 0x7f)
            return false;
        word = word || (byte >= '0' && byte <= '9') || ((byte | 0x20) >= 'a' && (byte | 0x20) <= 'z');
        i++;
    }
    return word;
}
