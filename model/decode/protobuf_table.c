#include "config.h"

#include "model/decode/protobuf_table.h"

#include <string.h>

static unsigned protobuf_kind_wire_type(enum protobuf_kind kind)
{
    switch (kind) {
    case PROTOBUF_DOUBLE:
        return WIRE_FIXED64;
    case PROTOBUF_STRING:
    case PROTOBUF_MESSAGE:
        return WIRE_LENGTH;
    default:
        return WIRE_VARINT;
    }
}

static enum load_status protobuf_table_store(const struct wire *wire, struct string_table *strings,
                                             const struct protobuf_field_spec *spec,
                                             const struct wire_field *field, void *target)
{
    char *member = (char *)target + spec->member;
    int64_t int64_value = wire_int64(field->value);
    int enum_value = wire_int32(field->value);
    double double_value = wire_double(field->value);
    uint32_t string_id;
    switch (spec->kind) {
    case PROTOBUF_INT64:
        memcpy(member, &int64_value, sizeof int64_value);
        return LOAD_OK;
    case PROTOBUF_UINT64:
        memcpy(member, &field->value, sizeof field->value);
        return LOAD_OK;
    case PROTOBUF_DOUBLE:
        memcpy(member, &double_value, sizeof double_value);
        return LOAD_OK;
    case PROTOBUF_ENUM:
        memcpy(member, &enum_value, sizeof enum_value);
        return LOAD_OK;
    case PROTOBUF_STRING:
        string_id = protobuf_table_intern(wire, strings, spec->member, field->start, field->end);
        if (string_id == STRING_ID_NONE) {
            load_error_at(wire->error, field->offset, "out of memory");
            return LOAD_NO_MEMORY;
        }
        memcpy(member, &string_id, sizeof string_id);
        return LOAD_OK;
    case PROTOBUF_MESSAGE:
        /* The submessage's fields land in the same flat struct, so a
         * repeated submessage merges the way protobuf merges it. */
        return protobuf_table_read(wire, strings, field->start, field->end, spec->message,
                                   member);
    default:
        return LOAD_OK;
    }
}

enum load_status protobuf_table_read(const struct wire *wire, struct string_table *strings,
                                     size_t position, size_t end,
                                     const struct protobuf_message_spec *message, void *target)
{
    struct wire_field field;
    while (position < end) {
        enum load_status status = wire_read_field(wire, &position, end, &field);
        if (status != LOAD_OK)
            return status;
        if (field.number >= message->field_count)
            continue;
        const struct protobuf_field_spec *spec = &message->fields[field.number];
        if (spec->kind == PROTOBUF_NONE)
            continue;
        status = wire_expect(wire, &field, protobuf_kind_wire_type(spec->kind), spec->name);
        if (status == LOAD_OK)
            status = protobuf_table_store(wire, strings, spec, &field, target);
        if (status != LOAD_OK)
            return status;
    }
    return LOAD_OK;
}
