/* protobuf_wire on its own: walking a message's fields, repeated varints
 * packed or not, and the errors with their offsets, as any protobuf-based
 * format (an XSpace decoder next) uses them. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "model/decode/protobuf_wire.h"
#include "tests/wire_builder.h"

struct seen {
    uint32_t numbers[16];
    unsigned types[16];
    size_t count;
    uint32_t stop_at; /* a field number that ends the walk with an error */
};

static enum load_status record_field(void *context, const struct wire_field *field)
{
    struct seen *seen = context;
    if (field->number == seen->stop_at)
        return LOAD_BAD_INPUT;
    assert_true(seen->count < 16);
    seen->numbers[seen->count] = field->number;
    seen->types[seen->count++] = field->type;
    return LOAD_OK;
}

static void test_every_field_in_file_order(void **state)
{
    (void)state;
    struct wire_bytes message = {0};
    wire_bytes_put_varint_field(&message, 7, 300);
    wire_bytes_put_tag(&message, 9, WIRE_FIXED64);
    wire_bytes_put_fixed(&message, 1, 8);
    wire_bytes_put_string_field(&message, 2, "xy");
    wire_bytes_put_tag(&message, 1000, WIRE_FIXED32);
    wire_bytes_put_fixed(&message, 2, 4);
    struct load_error error = {0};
    struct wire wire = {message.data, message.size, &error};
    struct seen seen = {.stop_at = 0};
    assert_int_equal(wire_for_each_field(&wire, 0, message.size, record_field, &seen), LOAD_OK);
    assert_int_equal(seen.count, 4);
    static const uint32_t numbers[] = {7, 9, 2, 1000};
    static const unsigned types[] = {WIRE_VARINT, WIRE_FIXED64, WIRE_LENGTH, WIRE_FIXED32};
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(seen.numbers[i], numbers[i]);
        assert_int_equal(seen.types[i], types[i]);
    }
    /* The callback's status ends the walk. */
    seen = (struct seen){.stop_at = 2};
    assert_int_equal(wire_for_each_field(&wire, 0, message.size, record_field, &seen),
                     LOAD_BAD_INPUT);
    assert_int_equal(seen.count, 2);
    /* A field cut short is the wire's error, with its offset. */
    seen = (struct seen){.stop_at = 0};
    assert_int_equal(wire_for_each_field(&wire, 0, message.size - 1, record_field, &seen),
                     LOAD_BAD_INPUT);
    assert_string_equal(error.message, "offset 18: fixed32 value runs past the end of its "
                                       "message (at offset 21)");
    assert_true(error.has_offset);
    assert_int_equal(error.offset, 18);
    wire_bytes_free(&message);
}

struct values {
    uint64_t values[8];
    size_t count;
};

static enum load_status record_value(void *context, uint64_t value)
{
    struct values *values = context;
    assert_true(values->count < 8);
    values->values[values->count++] = value;
    return LOAD_OK;
}

static void test_repeated_varints_packed_or_not(void **state)
{
    (void)state;
    struct wire_bytes packed = {0}, payload = {0};
    wire_bytes_put_varint(&payload, 1);
    wire_bytes_put_varint(&payload, 300);
    wire_bytes_put_varint(&payload, UINT64_MAX);
    wire_bytes_put_message_field(&packed, 4, &payload);
    wire_bytes_put_varint_field(&packed, 4, 5);
    wire_bytes_put_tag(&packed, 4, WIRE_FIXED32);
    wire_bytes_put_fixed(&packed, 0, 4);
    struct load_error error = {0};
    struct wire wire = {packed.data, packed.size, &error};
    struct values values = {{0}, 0};
    size_t position = 0;
    struct wire_field field;
    for (int i = 0; i < 2; i++) {
        assert_int_equal(wire_read_field(&wire, &position, packed.size, &field), LOAD_OK);
        assert_int_equal(wire_read_repeated_varint(&wire, &field, "ids", record_value, &values),
                         LOAD_OK);
    }
    assert_int_equal(values.count, 4);
    assert_true(values.values[0] == 1 && values.values[1] == 300 &&
                values.values[2] == UINT64_MAX && values.values[3] == 5);
    size_t fixed_offset = position;
    assert_int_equal(wire_read_field(&wire, &position, packed.size, &field), LOAD_OK);
    assert_int_equal(wire_read_repeated_varint(&wire, &field, "ids", record_value, &values),
                     LOAD_BAD_INPUT);
    char expected[96];
    snprintf(expected, sizeof expected, "offset %zu: field 4 (ids) has wire type 5, expected 2",
             fixed_offset);
    assert_string_equal(error.message, expected);
    WIRE_BYTES_FREE_ALL(&packed, &payload);
}

static void test_signed_readings(void **state)
{
    (void)state;
    assert_true(wire_int64(UINT64_MAX) == -1);
    assert_true(wire_int32((uint64_t)(int64_t)INT32_MIN) == INT32_MIN);
    assert_true(wire_zigzag64(0) == 0 && wire_zigzag64(1) == -1 && wire_zigzag64(2) == 1);
    assert_true(wire_zigzag64(UINT64_MAX) == INT64_MIN);
    assert_true(wire_zigzag64(UINT64_MAX - 1) == INT64_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_field_in_file_order),
        cmocka_unit_test(test_repeated_varints_packed_or_not),
        cmocka_unit_test(test_signed_readings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
