/* test_load_protobuf_fast_path: the fast path for snapshots in their usual
 * layout matches the generic decoder (tests/test_load_protobuf), falls
 * back on unusual snapshots and agrees on cut or damaged ones. */
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

/* ---- the fast path for snapshots in their usual layout ---- */

int fast_path_restore(void **state)
{
    (void)state;
    load_protobuf_set_fast_path(true);
    load_protobuf_set_parallel_threshold(0);
    return 0;
}

struct threshold_load load_with_fast_path(const uint8_t *bytes, size_t size, bool fast,
                                                 size_t threshold)
{
    load_protobuf_set_fast_path(fast);
    struct threshold_load load = load_with_threshold(bytes, size, threshold);
    load_protobuf_set_fast_path(true);
    return load;
}

/* Loads the bytes with the fast path and without, on one thread and on
 * two: same status, same message, same model. */
enum load_status expect_same_without_fast_path(const uint8_t *bytes, size_t size)
{
    static const size_t thresholds[] = { SIZE_MAX, 2 };
    enum load_status status = LOAD_OK;
    for (size_t index = 0; index < 2; index++) {
        struct threshold_load generic =
            load_with_fast_path(bytes, size, false, thresholds[index]);
        struct threshold_load fast = load_with_fast_path(bytes, size, true, thresholds[index]);
        assert_int_equal(fast.status, generic.status);
        if (generic.status == LOAD_OK)
            test_assert_profiles_equal(generic.profile, fast.profile);
        else
            assert_string_equal(fast.error.message, generic.error.message);
        profile_free(generic.profile);
        profile_free(fast.profile);
        status = generic.status;
    }
    return status;
}

/* A snapshot with every field, in field order, with values that take
 * every varint length (negative int64s take ten bytes). */
struct wire_bytes full_snapshot_bytes(int64_t seed)
{
    struct wire_bytes stats = { 0 }, metadata = { 0 }, snapshot = { 0 };
    wire_bytes_put_varint_field(&stats, 1, (uint64_t)(seed * 3));
    wire_bytes_put_varint_field(&stats, 2, (uint64_t)INT64_MAX - (uint64_t)seed);
    wire_bytes_put_varint_field(&stats, 3, (uint64_t)(-seed - 1));
    wire_bytes_put_double_field(&stats, 4, 0.25 + (double)seed);
    wire_bytes_put_varint_field(&stats, 5, (uint64_t)1 << (seed % 64));
    wire_bytes_put_varint_field(&metadata, 1, (uint64_t)(int64_t)(seed % 3 - 1));
    wire_bytes_put_varint_field(&metadata, 2, (uint64_t)seed << 20);
    wire_bytes_put_varint_field(&metadata, 3, (uint64_t)seed << 40);
    wire_bytes_put_varint_field(&metadata, 4, UINT64_MAX - (uint64_t)seed);
    wire_bytes_put_string_field(&metadata, 5, seed % 2 ? "jit/dot" : "jit/add");
    wire_bytes_put_varint_field(&metadata, 6, (uint64_t)seed);
    wire_bytes_put_string_field(&metadata, 7, "persist");
    wire_bytes_put_string_field(&metadata, 8, seed % 3 ? "float" : "");
    wire_bytes_put_string_field(&metadata, 9, "[768,3072]");
    wire_bytes_put_varint_field(&snapshot, 1, (uint64_t)seed * 1000003);
    wire_bytes_put_message_field(&snapshot, 2, &stats);
    wire_bytes_put_message_field(&snapshot, 3, &metadata);
    WIRE_BYTES_FREE_ALL(&stats, &metadata);
    return snapshot;
}

/* One value holding `snapshot` between two usual ones, as a timeline
 * snapshot and as a sampled one. */
struct wire_bytes profile_around(const struct wire_bytes *snapshot)
{
    struct wire_bytes value = { 0 }, profile_bytes = { 0 };
    struct wire_bytes before = full_snapshot_bytes(7), after = full_snapshot_bytes(8);
    for (uint32_t field = 1; field <= 5; field += 4) {
        wire_bytes_put_message_field(&value, field, &before);
        wire_bytes_put_message_field(&value, field, snapshot);
        wire_bytes_put_message_field(&value, field, &after);
    }
    put_entry(&profile_bytes, "GPU_0_bfc", &value);
    WIRE_BYTES_FREE_ALL(&value, &before, &after);
    return profile_bytes;
}

void test_fast_path_matches_generic_decoder(void **state)
{
    (void)state;
    for (int64_t seed = 0; seed < 70; seed++) {
        struct wire_bytes snapshot = full_snapshot_bytes(seed);
        struct wire_bytes profile_bytes = profile_around(&snapshot);
        assert_int_equal(expect_same_without_fast_path(profile_bytes.data, profile_bytes.size),
                         LOAD_OK);
        WIRE_BYTES_FREE_ALL(&snapshot, &profile_bytes);
    }
    /* And the values themselves, not only their agreement. */
    struct wire_bytes snapshot = full_snapshot_bytes(5);
    struct wire_bytes profile_bytes = profile_around(&snapshot);
    struct test_draft *profile = load_ok(&profile_bytes);
    struct snapshot loaded;
    snapshot_columns_get(&profile->draft.allocators[0].snapshots, 1, &loaded);
    assert_int_equal(loaded.time_ps, 5000015);
    assert_int_equal(loaded.stack_bytes, 15);
    assert_int_equal(loaded.heap_bytes, INT64_MAX - 5);
    assert_int_equal(loaded.free_bytes, -6);
    expect_double(loaded.fragmentation, 5.25);
    assert_int_equal(loaded.peak_bytes_in_use, 32);
    assert_int_equal(loaded.activity, 1);
    assert_int_equal(loaded.requested_bytes, (int64_t)5 << 20);
    assert_int_equal(loaded.allocation_bytes, (int64_t)5 << 40);
    assert_true(loaded.address == UINT64_MAX - 5);
    assert_int_equal(loaded.step_id, 5);
    expect_text(built(profile), loaded.op_name, "jit/dot");
    expect_text(built(profile), loaded.region_type, "persist");
    expect_text(built(profile), loaded.data_type, "float");
    expect_text(built(profile), loaded.tensor_shape, "[768,3072]");
    test_draft_free(profile);
    WIRE_BYTES_FREE_ALL(&snapshot, &profile_bytes);
}

/* Snapshots the fast path must leave to the generic decoder: each one
 * differs from the usual layout in one way. */
struct wire_bytes unusual_snapshot_bytes(int variant)
{
    struct wire_bytes stats = { 0 }, metadata = { 0 }, snapshot = { 0 };
    wire_bytes_put_varint_field(&stats, 2, 4096);
    wire_bytes_put_varint_field(&metadata, 1, 1);
    wire_bytes_put_string_field(&metadata, 5, "jit/dot");
    wire_bytes_put_string_field(&metadata, 8, "float");
    switch (variant) {
    case 0: /* submessages out of order, time last */
        wire_bytes_put_message_field(&snapshot, 3, &metadata);
        wire_bytes_put_message_field(&snapshot, 2, &stats);
        wire_bytes_put_varint_field(&snapshot, 1, 77);
        WIRE_BYTES_FREE_ALL(&stats, &metadata);
        return snapshot;
    case 1: /* fields out of order inside stats and metadata */
        wire_bytes_put_varint_field(&stats, 1, 12);
        wire_bytes_put_varint_field(&metadata, 2, 5);
        break;
    case 2: /* repeated scalars: the last wins */
        wire_bytes_put_varint_field(&stats, 2, 8192);
        wire_bytes_put_string_field(&metadata, 5, "jit/add");
        wire_bytes_put_varint_field(&snapshot, 1, 1);
        wire_bytes_put_varint_field(&snapshot, 1, 2);
        break;
    case 3: /* repeated submessages: merged */
        wire_bytes_put_message_field(&snapshot, 2, &stats);
        stats.size = 0;
        wire_bytes_put_varint_field(&stats, 5, 99);
        break;
    case 4: /* unknown fields in stats and metadata */
        put_unknown_fields(&stats);
        put_unknown_fields(&metadata);
        break;
    case 5: /* unknown fields in the snapshot itself */
        put_unknown_fields(&snapshot);
        break;
    case 6: /* missing submessages: only a time */
        wire_bytes_put_varint_field(&snapshot, 1, 5);
        WIRE_BYTES_FREE_ALL(&stats, &metadata);
        return snapshot;
    case 7: /* empty submessages */
        stats.size = metadata.size = 0;
        break;
    case 8: /* a known field with another wire type: refused */
        wire_bytes_put_tag(&stats, 4, 0);
        wire_bytes_put_varint(&stats, 3);
        break;
    case 9: /* a two-byte tag for field 1 (valid protobuf) */
        wire_bytes_put_byte(&snapshot, 0x88);
        wire_bytes_put_byte(&snapshot, 0x00);
        wire_bytes_put_varint(&snapshot, 3);
        break;
    case 10: /* an eleven-byte varint: refused */
        for (int index = 0; index < 10; index++)
            wire_bytes_put_byte(&stats, 0xff);
        wire_bytes_put_byte(&stats, 0x01);
        break;
    case 11: /* a string longer than its metadata: refused */
        wire_bytes_put_tag(&metadata, 9, 2);
        wire_bytes_put_varint(&metadata, 40);
        wire_bytes_put_byte(&metadata, 'x');
        break;
    case 12: /* a group: refused */
        wire_bytes_put_tag(&metadata, 10, 3);
        break;
    case 13: /* field 0: refused */
        wire_bytes_put_byte(&snapshot, 0x00);
        wire_bytes_put_byte(&snapshot, 0x00);
        break;
    default: /* a time after the submessages */
        wire_bytes_put_message_field(&snapshot, 2, &stats);
        wire_bytes_put_message_field(&snapshot, 3, &metadata);
        wire_bytes_put_varint_field(&snapshot, 1, 9);
        WIRE_BYTES_FREE_ALL(&stats, &metadata);
        return snapshot;
    }
    wire_bytes_put_message_field(&snapshot, 2, &stats);
    wire_bytes_put_message_field(&snapshot, 3, &metadata);
    WIRE_BYTES_FREE_ALL(&stats, &metadata);
    return snapshot;
}

void test_fast_path_falls_back_on_unusual_snapshots(void **state)
{
    (void)state;
    int refused = 0;
    for (int variant = 0; variant <= 14; variant++) {
        struct wire_bytes snapshot = unusual_snapshot_bytes(variant);
        struct wire_bytes profile_bytes = profile_around(&snapshot);
        if (expect_same_without_fast_path(profile_bytes.data, profile_bytes.size) != LOAD_OK)
            refused++;
        WIRE_BYTES_FREE_ALL(&snapshot, &profile_bytes);
    }
    /* Variants 8, 10, 11, 12 and 13 are corrupt. */
    assert_int_equal(refused, 5);

    /* Merged and last-wins values, checked directly. */
    struct wire_bytes snapshot = unusual_snapshot_bytes(2);
    struct wire_bytes profile_bytes = profile_around(&snapshot);
    struct test_draft *profile = load_ok(&profile_bytes);
    struct snapshot loaded;
    snapshot_columns_get(&profile->draft.allocators[0].snapshots, 1, &loaded);
    assert_int_equal(loaded.time_ps, 2);
    assert_int_equal(loaded.heap_bytes, 8192);
    expect_text(built(profile), loaded.op_name, "jit/add");
    test_draft_free(profile);
    WIRE_BYTES_FREE_ALL(&snapshot, &profile_bytes);
}

/* A snapshot cut at every byte, its own length shortened to match (so
 * the cut is inside the snapshot, not the file), and every byte of it
 * damaged: the same result, error or not, with the fast path or not. */
void test_fast_path_cut_or_damaged_snapshot_matches_generic(void **state)
{
    (void)state;
    struct wire_bytes whole = full_snapshot_bytes(3);
    for (size_t cut = 0; cut <= whole.size; cut++) {
        struct wire_bytes snapshot = { 0 };
        wire_bytes_put_data(&snapshot, whole.data, cut);
        struct wire_bytes profile_bytes = profile_around(&snapshot);
        expect_same_without_fast_path(profile_bytes.data, profile_bytes.size);
        WIRE_BYTES_FREE_ALL(&snapshot, &profile_bytes);
    }
    static const uint8_t damages[] = { 0x00, 0x80, 0xff, 0x0a, 0x12, 0x21, 0x7f };
    for (size_t at = 0; at < whole.size; at++) {
        for (size_t damage = 0; damage < sizeof damages; damage++) {
            struct wire_bytes snapshot = { 0 };
            wire_bytes_put_data(&snapshot, whole.data, whole.size);
            snapshot.data[at] = damages[damage];
            struct wire_bytes profile_bytes = profile_around(&snapshot);
            expect_same_without_fast_path(profile_bytes.data, profile_bytes.size);
            WIRE_BYTES_FREE_ALL(&snapshot, &profile_bytes);
        }
    }
    /* The file itself cut at every byte. */
    struct wire_bytes profile_bytes = profile_around(&whole);
    for (size_t cut = 0; cut <= profile_bytes.size; cut++)
        expect_same_without_fast_path(profile_bytes.data, cut);
    WIRE_BYTES_FREE_ALL(&whole, &profile_bytes);
}
