/* test_load_protobuf_errors: bad wire bytes and their error messages
 * (tests/test_load_protobuf): wrong wire types, overlong and truncated
 * varints, lengths past the end, truncated fixed64, groups, and every
 * prefix or damaged byte of a full message loads or is refused. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memory_profile.pb-c.h"
#include "model/load.h"
#include "model/load_internal.h"
#include "model/profile.h"
#include "model/formats/memory_profile/xprof_draft.h"
#include "model/string_table.h"
#include "tests/test_support.h"
#include "tests/wire_builder.h"

#include "tests/formats/memory_profile/test_load_protobuf.h"

void test_wrong_wire_type_names_the_offset(void **state)
{
    (void)state;
    struct wire_bytes top = { 0 };
    wire_bytes_put_varint_field(&top, 5, 300); /* 3 bytes */
    wire_bytes_put_varint_field(&top, 2, 1);   /* 2 bytes */
    wire_bytes_put_string_field(&top, 3, "a"); /* 3 bytes */
    wire_bytes_put_varint_field(&top, 3, 0);
    expect_bad_input(&top, "offset 8: field 3 (memory_ids) has wire type 0, expected 2");

    /* Deep inside: fragmentation sent as a varint. Offsets are absolute. */
    struct wire_bytes stats = { 0 }, snapshot = { 0 };
    struct wire_bytes value = { 0 }, nested = { 0 };
    wire_bytes_put_varint_field(&stats, 4, 1);
    wire_bytes_put_message_field(&snapshot, 2, &stats);
    wire_bytes_put_message_field(&value, 1, &snapshot);
    put_entry(&nested, "k", &value);
    /* entry tag+length 2, key 3, value tag+length 2, snapshot 2, stats 2 */
    expect_bad_input(&nested, "offset 11: field 4 (fragmentation) has wire type 0, expected 1");

    struct wire_bytes key = { 0 }, entry = { 0 };
    wire_bytes_put_varint_field(&entry, 1, 3);
    wire_bytes_put_message_field(&key, 1, &entry);
    expect_bad_input(&key, "offset 2: field 1 (key) has wire type 0, expected 2");

    struct wire_bytes summary = { 0 }, bad_summary = { 0 };
    struct wire_bytes with_summary = { 0 };
    wire_bytes_put_string_field(&summary, 1, "not a varint");
    wire_bytes_put_message_field(&bad_summary, 2, &summary);
    put_entry(&with_summary, "k", &bad_summary);
    expect_bad_input(&with_summary,
                     "offset 9: field 1 (peak_bytes_usage_lifetime) has wire type 2, expected 0");
    WIRE_BYTES_FREE_ALL(&top, &stats, &snapshot, &value, &nested, &key, &entry, &summary,
                        &bad_summary, &with_summary);
}

void test_overlong_varint(void **state)
{
    (void)state;
    struct wire_bytes buffer = { 0 };
    wire_bytes_put_tag(&buffer, 5, 0);
    for (int index = 0; index < 10; index++)
        wire_bytes_put_byte(&buffer, 0x80);
    wire_bytes_put_byte(&buffer, 0x01);
    expect_bad_input(&buffer, "offset 1: varint longer than 10 bytes");

    /* Ten bytes with the high bits of the last one set are still fine. */
    struct wire_bytes ten = { 0 };
    wire_bytes_put_tag(&ten, 5, 0);
    for (int index = 0; index < 9; index++)
        wire_bytes_put_byte(&ten, 0xff);
    wire_bytes_put_byte(&ten, 0x7f);
    struct test_draft *profile = load_ok(&ten);
    assert_int_equal(profile->draft.version, -1);
    test_draft_free(profile);
    WIRE_BYTES_FREE_ALL(&buffer, &ten);
}

void test_truncated_varint(void **state)
{
    (void)state;
    struct wire_bytes buffer = { 0 };
    wire_bytes_put_tag(&buffer, 2, 0);
    wire_bytes_put_byte(&buffer, 0x80);
    wire_bytes_put_byte(&buffer, 0x80);
    expect_bad_input(&buffer, "offset 1: varint runs past the end of the data (3 bytes)");
    wire_bytes_free(&buffer);
}

void test_length_past_end(void **state)
{
    (void)state;
    struct wire_bytes buffer = { 0 };
    wire_bytes_put_tag(&buffer, 3, 2);
    wire_bytes_put_varint(&buffer, 900000);
    wire_bytes_put_byte(&buffer, 'a');
    expect_bad_input(&buffer, "offset 1: length 900000 runs past the end of the data (5 bytes)");

    /* A length that fits the file but not its enclosing message. */
    struct wire_bytes nested = { 0 };
    wire_bytes_put_tag(&nested, 1, 2);
    wire_bytes_put_varint(&nested, 3);
    wire_bytes_put_tag(&nested, 1, 2);
    wire_bytes_put_varint(&nested, 5);
    wire_bytes_put_byte(&nested, 'x');
    for (int index = 0; index < 8; index++)
        wire_bytes_put_varint_field(&nested, 99, 0);
    expect_bad_input(&nested, "offset 3: length 5 runs past the end of its message (at offset 5)");

    /* The largest lengths must not wrap around. */
    struct wire_bytes huge = { 0 };
    wire_bytes_put_tag(&huge, 3, 2);
    wire_bytes_put_varint(&huge, UINT64_MAX);
    expect_bad_input(&huge, "offset 1: length 18446744073709551615 runs past the end of the "
                            "data (11 bytes)");
    WIRE_BYTES_FREE_ALL(&buffer, &nested, &huge);
}

void test_truncated_fixed64(void **state)
{
    (void)state;
    struct wire_bytes buffer = { 0 };
    wire_bytes_put_tag(&buffer, 100, 1);
    wire_bytes_put_fixed(&buffer, 0x010203, 3);
    expect_bad_input(&buffer, "offset 2: fixed64 value runs past the end of the data (5 bytes)");

    struct wire_bytes fixed32 = { 0 };
    wire_bytes_put_tag(&fixed32, 7, 5);
    wire_bytes_put_fixed(&fixed32, 1, 2);
    expect_bad_input(&fixed32, "offset 1: fixed32 value runs past the end of the data (3 bytes)");
    WIRE_BYTES_FREE_ALL(&buffer, &fixed32);
}

void test_group_and_invalid_wire_types(void **state)
{
    (void)state;
    struct wire_bytes start = { 0 };
    wire_bytes_put_varint_field(&start, 5, 1);
    wire_bytes_put_tag(&start, 9, 3);
    wire_bytes_put_tag(&start, 9, 4);
    expect_bad_input(&start, "offset 2: field 9 has group wire type 3, not supported");

    struct wire_bytes end = { 0 };
    wire_bytes_put_tag(&end, 9, 4);
    expect_bad_input(&end, "offset 0: field 9 has group wire type 4, not supported");

    struct wire_bytes six = { 0 };
    wire_bytes_put_tag(&six, 1, 6);
    expect_bad_input(&six, "offset 0: field 1 has invalid wire type 6");

    struct wire_bytes zero = { 0 };
    wire_bytes_put_varint_field(&zero, 0, 1);
    expect_bad_input(&zero, "offset 0: invalid field number 0");

    struct wire_bytes wide = { 0 };
    wire_bytes_put_varint(&wide, (uint64_t)1 << 35);
    wire_bytes_put_byte(&wide, 0);
    expect_bad_input(&wide, "offset 0: invalid field number 4294967296");
    WIRE_BYTES_FREE_ALL(&start, &end, &six, &zero, &wide);
}

/* A small message with every kind of field, for the damage tests. */
struct wire_bytes full_message(void)
{
    struct wire_bytes summary = { 0 }, active = { 0 }, special = { 0 };
    struct wire_bytes value = { 0 }, module = { 0 };
    struct wire_bytes profile_bytes = { 0 };
    struct wire_bytes snapshot = snapshot_bytes(123456, 1 << 20, "jit/dot");
    wire_bytes_put_varint_field(&summary, 1, 1 << 21);
    wire_bytes_put_varint_field(&summary, 4, (uint64_t)1 << 34);
    wire_bytes_put_varint_field(&active, 1, 0);
    wire_bytes_put_varint_field(&active, 3, 1);
    wire_bytes_put_string_field(&special, 7, "persist/dynamic");
    wire_bytes_put_message_field(&value, 1, &snapshot);
    wire_bytes_put_message_field(&value, 2, &summary);
    wire_bytes_put_message_field(&value, 3, &active);
    wire_bytes_put_message_field(&value, 4, &special);
    wire_bytes_put_message_field(&value, 5, &snapshot);
    wire_bytes_put_string_field(&module, 1, "jit_step");
    wire_bytes_put_varint_field(&module, 4, 7);
    put_entry(&profile_bytes, "GPU_0_bfc", &value);
    wire_bytes_put_varint_field(&profile_bytes, 2, 1);
    wire_bytes_put_string_field(&profile_bytes, 3, "GPU_0_bfc");
    wire_bytes_put_varint_field(&profile_bytes, 5, 1);
    wire_bytes_put_message_field(&profile_bytes, 6, &module);
    WIRE_BYTES_FREE_ALL(&summary, &active, &special, &value, &module, &snapshot);
    return profile_bytes;
}

/* Damaged input loads or is refused with an offset; it never crashes. */
enum load_status expect_ok_or_refused(const uint8_t *bytes, size_t size)
{
    struct test_draft *profile = test_draft_new();
    struct load_error error = {0};
    enum load_status status = load_protobuf(bytes, size, &profile->draft, &error);
    assert_true(status == LOAD_OK || status == LOAD_BAD_INPUT);
    if (status == LOAD_BAD_INPUT)
        assert_memory_equal(error.message, "offset ", 7);
    test_draft_free(profile);
    return status;
}

void test_every_prefix_loads_or_is_refused(void **state)
{
    (void)state;
    struct wire_bytes message = full_message();
    struct test_draft *whole = load_ok(&message);
    assert_int_equal(built(whole)->allocator_count, 1);
    assert_int_equal(built(whole)->hlo_module_count, 1);
    test_draft_free(whole);
    size_t refused = 0;
    for (size_t size = 0; size < message.size; size++) {
        /* A copy of just the prefix, so reading past it is caught. */
        uint8_t *prefix = malloc(size ? size : 1);
        assert_non_null(prefix);
        memcpy(prefix, message.data, size);
        refused += expect_ok_or_refused(prefix, size) == LOAD_BAD_INPUT;
        free(prefix);
    }
    /* Most cuts land inside a field. */
    assert_true(refused > message.size / 2);
    wire_bytes_free(&message);
}

void test_every_damaged_byte_loads_or_is_refused(void **state)
{
    (void)state;
    static const uint8_t replacements[] = { 0x00, 0x01, 0x7f, 0x80, 0xff, 0x0a, 0x0b, 0x0f };
    struct wire_bytes message = full_message();
    for (size_t position = 0; position < message.size; position++) {
        for (size_t pick = 0; pick < sizeof replacements; pick++) {
            uint8_t *damaged = malloc(message.size);
            assert_non_null(damaged);
            memcpy(damaged, message.data, message.size);
            damaged[position] = replacements[pick];
            expect_ok_or_refused(damaged, message.size);
            free(damaged);
        }
    }
    wire_bytes_free(&message);
}
