/* test_load_protobuf_wire: hand-made wire bytes check the protobuf rules one
 * by one (tests/test_load_protobuf): unknown fields, repeated scalars and
 * submessages, map entries, duplicate keys, the timeline's room, special
 * allocations, strings kept byte for byte, negative int32. Also the
 * helpers that build and load such bytes, shared by the other files. */
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

/* ---- hand-made wire bytes ---- */

/* One unknown field of each wire type the loader must skip. */
void put_unknown_fields(struct wire_bytes *buffer)
{
    wire_bytes_put_varint_field(buffer, 99, UINT64_MAX);
    wire_bytes_put_tag(buffer, 100, 1);
    wire_bytes_put_fixed(buffer, 0x0123456789abcdefu, 8);
    wire_bytes_put_string_field(buffer, 101, "skip me");
    wire_bytes_put_tag(buffer, 102, 5);
    wire_bytes_put_fixed(buffer, 0xdeadbeef, 4);
}

/* A map entry { key, value } with the value given as bytes. */
void put_entry(struct wire_bytes *profile, const char *key,
                      const struct wire_bytes *value)
{
    struct wire_bytes entry = { 0 };
    if (key)
        wire_bytes_put_string_field(&entry, 1, key);
    if (value)
        wire_bytes_put_message_field(&entry, 2, value);
    wire_bytes_put_message_field(profile, 1, &entry);
    wire_bytes_free(&entry);
}

struct wire_bytes snapshot_bytes(int64_t time_ps, int64_t heap_bytes, const char *op)
{
    struct wire_bytes stats = { 0 }, metadata = { 0 }, snapshot = { 0 };
    wire_bytes_put_varint_field(&stats, 2, (uint64_t)heap_bytes);
    wire_bytes_put_varint_field(&metadata, 1, MEMORY_ACTIVITY_ALLOCATION);
    wire_bytes_put_string_field(&metadata, 5, op);
    wire_bytes_put_varint_field(&snapshot, 1, (uint64_t)time_ps);
    wire_bytes_put_message_field(&snapshot, 2, &stats);
    wire_bytes_put_message_field(&snapshot, 3, &metadata);
    wire_bytes_free(&stats);
    wire_bytes_free(&metadata);
    return snapshot;
}

/* The reader's result is a draft (model/xprof_draft.h): the pieces as the
 * file has them, before XProf's finishing. */
enum load_status load_buffer(const struct wire_bytes *buffer, struct test_draft **profile,
                                    struct load_error *error)
{
    *profile = test_draft_new();
    memset(error, 0, sizeof *error);
    return load_protobuf(buffer->data, buffer->size, &(*profile)->draft, error);
}

struct test_draft *load_ok(const struct wire_bytes *buffer)
{
    struct test_draft *profile;
    struct load_error error;
    enum load_status status = load_buffer(buffer, &profile, &error);
    if (status != LOAD_OK)
        fail_msg("load_protobuf: %s", error.message);
    return profile;
}

/* Loads bytes that must be refused and checks the error's exact text. */
void expect_bad_input(const struct wire_bytes *buffer, const char *message)
{
    struct test_draft *profile;
    struct load_error error;
    assert_int_equal(load_buffer(buffer, &profile, &error), LOAD_BAD_INPUT);
    assert_string_equal(error.message, message);
    test_draft_free(profile);
}

const struct allocator *find_allocator(const struct profile *profile, const char *id)
{
    long index = profile_find_allocator(profile, text_of(id));
    assert_true(index >= 0);
    return &profile->allocators[index];
}

/* The profile so far: allocator ids, strings, HLO modules, warnings. */
const struct profile *built(const struct test_draft *profile)
{
    return test_draft_profile(profile);
}

/* The pieces of allocator `id` as read. */
const struct xprof_allocator *draft_allocator(const struct test_draft *profile,
                                                     const char *id)
{
    long index = profile_find_allocator(built(profile), text_of(id));
    assert_true(index >= 0);
    return &profile->draft.allocators[index];
}

void test_empty_buffer_is_an_empty_profile(void **state)
{
    (void)state;
    struct test_draft *profile = test_draft_new();
    struct load_error error = {0};
    assert_int_equal(load_protobuf(NULL, 0, &profile->draft, &error), LOAD_OK);
    assert_int_equal(built(profile)->allocator_count, 0);
    assert_int_equal(profile->draft.memory_id_count, 0);
    assert_int_equal(built(profile)->hlo_module_count, 0);
    assert_int_equal(profile->draft.version, 0);
    test_draft_free(profile);
}

void test_unknown_fields_are_skipped(void **state)
{
    (void)state;
    struct wire_bytes stats = { 0 }, metadata = { 0 };
    struct wire_bytes snapshot = { 0 }, value = { 0 };
    struct wire_bytes profile_bytes = { 0 };
    put_unknown_fields(&stats);
    wire_bytes_put_varint_field(&stats, 1, 11);
    put_unknown_fields(&metadata);
    wire_bytes_put_string_field(&metadata, 9, "[2,2]");
    put_unknown_fields(&snapshot);
    wire_bytes_put_message_field(&snapshot, 2, &stats);
    wire_bytes_put_message_field(&snapshot, 3, &metadata);
    wire_bytes_put_varint_field(&snapshot, 1, 42);
    put_unknown_fields(&value);
    wire_bytes_put_message_field(&value, 1, &snapshot);
    put_unknown_fields(&value);
    put_unknown_fields(&profile_bytes);
    wire_bytes_put_varint_field(&profile_bytes, 4, 5); /* reserved */
    put_entry(&profile_bytes, "GPU_0_bfc", &value);
    wire_bytes_put_varint_field(&profile_bytes, 5, 1);
    put_unknown_fields(&profile_bytes);

    struct test_draft *profile = load_ok(&profile_bytes);
    assert_int_equal(profile->draft.version, 1);
    const struct xprof_allocator *allocator = draft_allocator(profile, "GPU_0_bfc");
    assert_int_equal(allocator->snapshots.count, 1);
    struct snapshot loaded;
    snapshot_columns_get(&allocator->snapshots, 0, &loaded);
    assert_int_equal(loaded.time_ps, 42);
    assert_int_equal(loaded.stack_bytes, 11);
    assert_string_equal(profile_text(built(profile), loaded.tensor_shape), "[2,2]");
    test_draft_free(profile);
    WIRE_BYTES_FREE_ALL(&stats, &metadata, &snapshot, &value, &profile_bytes);
}

void test_repeated_scalar_last_wins(void **state)
{
    (void)state;
    struct wire_bytes metadata = { 0 }, snapshot = { 0 };
    struct wire_bytes value = { 0 }, profile_bytes = { 0 };
    wire_bytes_put_string_field(&metadata, 5, "first");
    wire_bytes_put_varint_field(&metadata, 2, 100);
    wire_bytes_put_string_field(&metadata, 5, "second");
    wire_bytes_put_varint_field(&snapshot, 1, 7);
    wire_bytes_put_message_field(&snapshot, 3, &metadata);
    wire_bytes_put_varint_field(&snapshot, 1, 8);
    wire_bytes_put_message_field(&value, 5, &snapshot);
    wire_bytes_put_varint_field(&profile_bytes, 5, 3);
    wire_bytes_put_varint_field(&profile_bytes, 2, 9);
    put_entry(&profile_bytes, "a", &value);
    wire_bytes_put_varint_field(&profile_bytes, 5, 1);
    wire_bytes_put_varint_field(&profile_bytes, 2, 4);

    struct test_draft *profile = load_ok(&profile_bytes);
    assert_int_equal(profile->draft.version, 1);
    assert_int_equal(profile->draft.num_hosts, 4);
    const struct xprof_allocator *allocator = draft_allocator(profile, "a");
    struct snapshot loaded;
    snapshot_columns_get(&allocator->sampled, 0, &loaded);
    assert_int_equal(loaded.time_ps, 8);
    assert_int_equal(loaded.requested_bytes, 100);
    assert_string_equal(profile_text(built(profile), loaded.op_name), "second");
    test_draft_free(profile);
    WIRE_BYTES_FREE_ALL(&metadata, &snapshot, &value, &profile_bytes);
}

/* A repeated submessage merges: its later fields win, the others stay. */
void test_repeated_submessage_merges(void **state)
{
    (void)state;
    struct wire_bytes stats_one = { 0 }, stats_two = { 0 };
    struct wire_bytes snapshot = { 0 }, summary_one = { 0 };
    struct wire_bytes summary_two = { 0 }, value = { 0 };
    struct wire_bytes profile_bytes = { 0 };
    wire_bytes_put_varint_field(&stats_one, 1, 5);
    wire_bytes_put_varint_field(&stats_one, 2, 6);
    wire_bytes_put_varint_field(&stats_two, 2, 60);
    wire_bytes_put_double_field(&stats_two, 4, 0.5);
    wire_bytes_put_message_field(&snapshot, 2, &stats_one);
    wire_bytes_put_message_field(&snapshot, 2, &stats_two);
    wire_bytes_put_varint_field(&summary_one, 4, 1000);
    wire_bytes_put_varint_field(&summary_one, 1, 10);
    wire_bytes_put_message_field(&summary_one, 2, &stats_one);
    wire_bytes_put_varint_field(&summary_two, 1, 20);
    wire_bytes_put_message_field(&summary_two, 2, &stats_two);
    wire_bytes_put_message_field(&value, 1, &snapshot);
    wire_bytes_put_message_field(&value, 2, &summary_one);
    wire_bytes_put_message_field(&value, 2, &summary_two);
    put_entry(&profile_bytes, "a", &value);

    struct test_draft *profile = load_ok(&profile_bytes);
    const struct xprof_allocator *allocator = draft_allocator(profile, "a");
    struct snapshot loaded;
    snapshot_columns_get(&allocator->snapshots, 0, &loaded);
    assert_int_equal(loaded.stack_bytes, 5);
    assert_int_equal(loaded.heap_bytes, 60);
    assert_true(loaded.fragmentation == 0.5);
    assert_true(allocator->has_summary);
    assert_int_equal(allocator->summary.capacity_bytes, 1000);
    assert_int_equal(allocator->summary.lifetime_peak_bytes, 20);
    assert_int_equal(allocator->summary.peak.stack_bytes, 5);
    assert_int_equal(allocator->summary.peak.heap_bytes, 60);
    assert_true(allocator->summary.peak.fragmentation == 0.5);
    test_draft_free(profile);
    WIRE_BYTES_FREE_ALL(&stats_one, &stats_two, &snapshot, &summary_one, &summary_two, &value,
                        &profile_bytes);
}

void test_map_value_before_key(void **state)
{
    (void)state;
    struct wire_bytes value = { 0 }, entry = { 0 };
    struct wire_bytes profile_bytes = { 0 };
    struct wire_bytes snapshot = snapshot_bytes(5, 64, "op");
    wire_bytes_put_message_field(&value, 1, &snapshot);
    wire_bytes_put_message_field(&entry, 2, &value);
    wire_bytes_put_string_field(&entry, 1, "ignored: a later key wins");
    wire_bytes_put_string_field(&entry, 1, "GPU_1_bfc");
    wire_bytes_put_message_field(&profile_bytes, 1, &entry);

    struct test_draft *profile = load_ok(&profile_bytes);
    assert_int_equal(built(profile)->allocator_count, 1);
    const struct xprof_allocator *allocator = draft_allocator(profile, "GPU_1_bfc");
    assert_int_equal(allocator->snapshots.count, 1);
    struct snapshot loaded;
    snapshot_columns_get(&allocator->snapshots, 0, &loaded);
    assert_int_equal(loaded.heap_bytes, 64);
    assert_int_equal(loaded.activity, MEMORY_ACTIVITY_ALLOCATION);
    assert_string_equal(profile_text(built(profile), loaded.op_name), "op");
    test_draft_free(profile);
    WIRE_BYTES_FREE_ALL(&value, &entry, &profile_bytes, &snapshot);
}

void test_map_entry_without_key_or_value(void **state)
{
    (void)state;
    struct wire_bytes value = { 0 }, profile_bytes = { 0 };
    struct wire_bytes snapshot = snapshot_bytes(1, 2, "x");
    wire_bytes_put_message_field(&value, 5, &snapshot);
    /* Neither key nor value, then no key: both are key "", the last wins. */
    put_entry(&profile_bytes, NULL, NULL);
    put_entry(&profile_bytes, "only a key", NULL);
    put_entry(&profile_bytes, NULL, &value);

    struct test_draft *profile = load_ok(&profile_bytes);
    assert_int_equal(built(profile)->allocator_count, 2);
    assert_int_equal(built(profile)->warning_count, 1);
    const struct xprof_allocator *unnamed = draft_allocator(profile, "");
    assert_int_equal(unnamed->sampled.count, 1);
    const struct xprof_allocator *empty = draft_allocator(profile, "only a key");
    assert_int_equal(empty->snapshots.count, 0);
    assert_int_equal(empty->sampled.count, 0);
    assert_false(empty->has_summary);
    test_draft_free(profile);
    WIRE_BYTES_FREE_ALL(&value, &profile_bytes, &snapshot);
}

/* A key given again: the last entry wins, as protobuf reads a map (issue
 * 16.5), in the place of the first, and the profile says so. */
void test_duplicate_allocator_key_last_entry_wins(void **state)
{
    (void)state;
    struct wire_bytes first = { 0 }, second = { 0 }, other = { 0 };
    struct wire_bytes summary_one = { 0 }, summary_two = { 0 };
    struct wire_bytes profile_bytes = { 0 };
    struct wire_bytes early = snapshot_bytes(1, 10, "early");
    struct wire_bytes late = snapshot_bytes(2, 20, "late");
    wire_bytes_put_varint_field(&summary_one, 4, 4096);
    wire_bytes_put_varint_field(&summary_two, 3, 77);
    wire_bytes_put_message_field(&first, 1, &early);
    wire_bytes_put_message_field(&first, 2, &summary_one);
    wire_bytes_put_message_field(&second, 1, &late);
    wire_bytes_put_message_field(&second, 2, &summary_two);
    wire_bytes_put_message_field(&other, 1, &early);
    put_entry(&profile_bytes, "GPU_0_bfc", &first);
    put_entry(&profile_bytes, "cpu", &other);
    put_entry(&profile_bytes, "GPU_0_bfc", &second);

    struct test_draft *profile = load_ok(&profile_bytes);
    assert_int_equal(built(profile)->allocator_count, 2);
    assert_string_equal(profile_text(built(profile), built(profile)->allocators[0].id),
                        "GPU_0_bfc");
    const struct xprof_allocator *last = &profile->draft.allocators[0];
    assert_int_equal(last->snapshots.count, 1);
    struct snapshot loaded;
    snapshot_columns_get(&last->snapshots, 0, &loaded);
    assert_string_equal(profile_text(built(profile), loaded.op_name), "late");
    assert_true(last->has_summary);
    assert_int_equal(last->summary.capacity_bytes, 0);
    assert_int_equal(last->summary.peak_time_ps, 77);
    assert_int_equal(profile->draft.allocators[1].snapshots.count, 1);
    assert_int_equal(built(profile)->warning_count, 1);
    assert_string_equal(test_warning(built(profile), 0), "the file repeats map key \"GPU_0_bfc\"; "
                                                         "the last entry wins, as protobuf reads it");
    test_draft_free(profile);
    WIRE_BYTES_FREE_ALL(&first, &second, &other, &summary_one, &summary_two, &profile_bytes,
                        &early, &late);
}

/* The loader reserves room from estimates; the finished timeline keeps
 * none past its last snapshot, whether one thread loaded it or two, also
 * when the columns hold some already (a value given twice in one map
 * entry merges, as protobuf merges a repeated submessage). */
void test_timeline_keeps_no_spare_room(void **state)
{
    (void)state;
    struct wire_bytes value = { 0 }, profile_bytes = { 0 };
    struct wire_bytes snapshot = snapshot_bytes(1, 2, "op");
    for (int index = 0; index < 3; index++)
        wire_bytes_put_message_field(&value, 1, &snapshot);
    for (int index = 0; index < 21; index++)
        wire_bytes_put_message_field(&value, 5, &snapshot);
    struct wire_bytes entry = { 0 };
    wire_bytes_put_string_field(&entry, 1, "a");
    wire_bytes_put_message_field(&entry, 2, &value);
    wire_bytes_put_message_field(&entry, 2, &value);
    wire_bytes_put_message_field(&profile_bytes, 1, &entry);

    for (int threads = 1; threads <= 2; threads++) {
        load_protobuf_set_parallel_threshold(threads == 1 ? SIZE_MAX : 2);
        struct test_draft *profile = load_ok(&profile_bytes);
        const struct xprof_allocator *pieces = draft_allocator(profile, "a");
        assert_int_equal(pieces->snapshots.count, 6);
        assert_int_equal(pieces->sampled.count, 42);
        assert_int_equal(built(profile)->warning_count, 0);
        struct profile *finished = test_draft_finish(profile);
        const struct allocator *allocator = find_allocator(finished, "a");
        assert_int_equal(allocator->timeline.count, 42);
        assert_int_equal(allocator->timeline.capacity, 42);
        profile_free(finished);
    }
    WIRE_BYTES_FREE_ALL(&value, &entry, &profile_bytes, &snapshot);
}

void test_special_allocation_has_only_metadata(void **state)
{
    (void)state;
    struct wire_bytes metadata = { 0 }, value = { 0 };
    struct wire_bytes active = { 0 }, profile_bytes = { 0 };
    struct wire_bytes summary = { 0 };
    wire_bytes_put_varint_field(&metadata, 3, 1 << 20);
    wire_bytes_put_string_field(&metadata, 5, "stack");
    wire_bytes_put_string_field(&metadata, 7, "stack");
    wire_bytes_put_varint_field(&metadata, 1, (uint64_t)-1); /* a negative enum: 10 bytes */
    wire_bytes_put_varint_field(&active, 1, (uint64_t)-1);
    wire_bytes_put_varint_field(&active, 2, 0);
    wire_bytes_put_varint_field(&active, 3, 2);
    wire_bytes_put_message_field(&value, 4, &metadata);
    wire_bytes_put_message_field(&value, 3, &active);
    wire_bytes_put_message_field(&value, 2, &summary); /* present but empty */
    put_entry(&profile_bytes, "a", &value);

    struct test_draft *profile = load_ok(&profile_bytes);
    const struct xprof_allocator *allocator = draft_allocator(profile, "a");
    assert_int_equal(allocator->specials.count, 1);
    struct snapshot special;
    snapshot_columns_get(&allocator->specials, 0, &special);
    assert_int_equal(special.time_ps, 0);
    assert_int_equal(special.heap_bytes, 0);
    assert_int_equal(special.allocation_bytes, 1 << 20);
    assert_int_equal(special.activity, -1);
    assert_string_equal(profile_text(built(profile), special.region_type), "stack");
    assert_int_equal(allocator->active_count, 1);
    assert_int_equal(allocator->active[0].snapshot_index, -1);
    assert_int_equal(allocator->active[0].occurrences, 2);
    assert_true(allocator->has_summary);
    assert_int_equal(allocator->summary.capacity_bytes, 0);
    test_draft_free(profile);
    WIRE_BYTES_FREE_ALL(&metadata, &value, &active, &profile_bytes, &summary);
}

/* Strings are kept byte for byte, even past a NUL (protobuf-c cuts there). */
void test_strings_are_kept_byte_for_byte(void **state)
{
    (void)state;
    static const char op[] = { 'a', '\0', 'b', '\x1b' };
    static const char key[] = { 'k', '\0' };
    struct wire_bytes metadata = { 0 }, snapshot = { 0 };
    struct wire_bytes value = { 0 }, entry = { 0 };
    struct wire_bytes profile_bytes = { 0 };
    wire_bytes_put_length_field(&metadata, 5, op, sizeof op);
    wire_bytes_put_message_field(&snapshot, 3, &metadata);
    wire_bytes_put_message_field(&value, 1, &snapshot);
    wire_bytes_put_length_field(&entry, 1, key, sizeof key);
    wire_bytes_put_message_field(&entry, 2, &value);
    wire_bytes_put_message_field(&profile_bytes, 1, &entry);
    wire_bytes_put_length_field(&profile_bytes, 3, key, sizeof key);

    struct test_draft *profile = load_ok(&profile_bytes);
    assert_int_equal(built(profile)->allocator_count, 1);
    const struct xprof_allocator *allocator = &profile->draft.allocators[0];
    uint32_t id = built(profile)->allocators[0].id;
    assert_int_equal(string_table_length(built(profile)->strings, id), sizeof key);
    assert_int_equal(profile->draft.memory_ids[0], id);
    struct snapshot loaded;
    snapshot_columns_get(&allocator->snapshots, 0, &loaded);
    assert_int_equal(string_table_length(built(profile)->strings, loaded.op_name), sizeof op);
    assert_memory_equal(string_table_text(built(profile)->strings, loaded.op_name), op, sizeof op);
    test_draft_free(profile);
    WIRE_BYTES_FREE_ALL(&metadata, &snapshot, &value, &entry, &profile_bytes);
}

/* int32 fields arrive as sign-extended 64-bit varints. */
void test_negative_int32_is_a_ten_byte_varint(void **state)
{
    (void)state;
    struct wire_bytes profile_bytes = { 0 };
    wire_bytes_put_varint_field(&profile_bytes, 5, (uint64_t)(int64_t)INT32_MIN);
    wire_bytes_put_varint_field(&profile_bytes, 2, (uint64_t)-1);
    assert_int_equal(profile_bytes.size, 22);

    struct test_draft *profile = load_ok(&profile_bytes);
    assert_int_equal(profile->draft.version, INT32_MIN);
    assert_int_equal(profile->draft.num_hosts, -1);
    test_draft_free(profile);
    wire_bytes_free(&profile_bytes);
}
