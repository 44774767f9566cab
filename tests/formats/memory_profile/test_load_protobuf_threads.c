/* test_load_protobuf_threads: the two-thread decoder gives what one thread
 * gives (tests/test_load_protobuf): random messages, long and damaged
 * values, lists outgrowing their estimate, errors in the second half, the
 * demo and a generated profile. */
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

/* ---- the two-thread decoder gives what one thread gives ---- */

int parallel_threshold_restore(void **state)
{
    (void)state;
    load_protobuf_set_parallel_threshold(0);
    return 0;
}

/* Every value with two snapshots or more goes through the worker. */
void test_random_messages_match_protobuf_c_on_two_threads(void **state)
{
    (void)state;
    load_protobuf_set_parallel_threshold(2);
    struct random random = { 20240611 };
    for (int message = 0; message < RANDOM_MESSAGES; message++)
        check_random_message(&random);
}

struct threshold_load load_with_threshold(const uint8_t *bytes, size_t size,
                                                 size_t threshold)
{
    struct threshold_load load = { .profile = NULL };
    struct test_draft *draft = test_draft_new();
    load_protobuf_set_parallel_threshold(threshold);
    load.status = load_protobuf(bytes, size, &draft->draft, &load.error);
    if (load.status == LOAD_OK)
        load.profile = test_draft_finish(draft);
    else
        test_draft_free(draft);
    return load;
}

/* Loads the bytes on one thread and on two: same status, same message,
 * same model. */
enum load_status expect_same_on_two_threads(const uint8_t *bytes, size_t size)
{
    struct threshold_load one = load_with_threshold(bytes, size, SIZE_MAX);
    struct threshold_load two = load_with_threshold(bytes, size, 2);
    assert_int_equal(two.status, one.status);
    if (one.status == LOAD_OK)
        test_assert_profiles_equal(one.profile, two.profile);
    else
        assert_string_equal(two.error.message, one.error.message);
    profile_free(one.profile);
    profile_free(two.profile);
    return one.status;
}

/* Long snapshot lists with every other field around and inside them:
 * GPU_0_bfc's memory_profile_snapshots (its key named twice in the map, the
 * long entry last, so that it wins),
 * GPU_1_bfc's sampled_timeline_snapshots (with one memory_profile_snapshot
 * in the middle), and a short cpu list. The worker's part starts in the
 * middle of a list; the other fields must stay in order. */
struct wire_bytes long_message(void)
{
    static const char *const ops[] = { "jit/dot", "jit/add", "jit/dot", "x", "jit/mul", "" };
    struct wire_bytes value = { 0 }, again = { 0 }, other = { 0 };
    struct wire_bytes sampled = { 0 };
    struct wire_bytes summary = { 0 }, active = { 0 }, special = { 0 };
    struct wire_bytes profile_bytes = { 0 };
    wire_bytes_put_varint_field(&summary, 1, 1 << 21);
    wire_bytes_put_string_field(&special, 7, "persist/dynamic");
    for (int index = 0; index < 12; index++) {
        struct wire_bytes snapshot = snapshot_bytes(1000 + index, index << 10, ops[index % 6]);
        wire_bytes_put_message_field(&value, 1, &snapshot);
        wire_bytes_put_message_field(&sampled, 5, &snapshot);
        if (index == 2 || index == 9) {
            /* Rows pointing into either half of the list. */
            active.size = 0;
            wire_bytes_put_varint_field(&active, 1, (uint64_t)index * 4 % 11);
            wire_bytes_put_varint_field(&active, 3, 2);
            wire_bytes_put_message_field(&value, 3, &active);
        }
        if (index == 5)
            wire_bytes_put_message_field(&sampled, 1, &snapshot);
        if (index == 10)
            wire_bytes_put_message_field(&value, 4, &special);
        wire_bytes_free(&snapshot);
    }
    wire_bytes_put_message_field(&value, 2, &summary);
    for (int index = 0; index < 4; index++) {
        struct wire_bytes snapshot = snapshot_bytes(500 + index, 1 << 20, ops[5 - index]);
        wire_bytes_put_message_field(&again, 1, &snapshot);
        wire_bytes_put_message_field(&other, 1, &snapshot);
        wire_bytes_free(&snapshot);
    }
    put_entry(&profile_bytes, "GPU_0_bfc", &again);
    put_entry(&profile_bytes, "GPU_1_bfc", &sampled);
    put_entry(&profile_bytes, "cpu", &other);
    put_entry(&profile_bytes, "GPU_0_bfc", &value);
    wire_bytes_put_string_field(&profile_bytes, 3, "GPU_0_bfc");
    WIRE_BYTES_FREE_ALL(&value, &again, &other, &sampled, &summary, &active, &special);
    return profile_bytes;
}

void test_long_value_two_threads_match_one(void **state)
{
    (void)state;
    struct wire_bytes message = long_message();
    assert_int_equal(expect_same_on_two_threads(message.data, message.size), LOAD_OK);
    struct threshold_load two = load_with_threshold(message.data, message.size, 2);
    assert_int_equal(two.status, LOAD_OK);
    const struct allocator *gpu = find_allocator(two.profile, "GPU_0_bfc");
    /* The last entry of GPU_0_bfc wins: the long one (issue 16.5). */
    assert_int_equal(gpu->timeline.count, 12);
    assert_int_equal(test_xprof_count(gpu), 2);
    /* Row 0 is snapshot 8, decoded by the worker. */
    assert_int_equal(test_xprof_rows(gpu)[0].time_ps, 1008);
    expect_text(two.profile, test_xprof_rows(gpu)[0].op_name, "jit/dot");
    assert_int_equal(test_xprof_rows(gpu)[1].time_ps, 1003);
    expect_text(two.profile, test_xprof_rows(gpu)[1].op_name, "x");
    assert_int_equal(find_allocator(two.profile, "GPU_1_bfc")->timeline.count, 12);
    assert_int_equal(find_allocator(two.profile, "cpu")->timeline.count, 4);
    profile_free(two.profile);
    wire_bytes_free(&message);
}

void test_damaged_long_value_two_threads_match_one(void **state)
{
    (void)state;
    static const uint8_t replacements[] = { 0x00, 0x7f, 0x80, 0x0b };
    struct wire_bytes message = long_message();
    size_t refused = 0, loaded = 0;
    for (size_t size = 0; size < message.size; size++)
        refused += expect_same_on_two_threads(message.data, size) != LOAD_OK;
    uint8_t *damaged = malloc(message.size);
    assert_non_null(damaged);
    for (size_t position = 0; position < message.size; position++) {
        for (size_t pick = 0; pick < sizeof replacements; pick++) {
            memcpy(damaged, message.data, message.size);
            damaged[position] = replacements[pick];
            if (expect_same_on_two_threads(damaged, message.size) == LOAD_OK)
                loaded++;
            else
                refused++;
        }
    }
    assert_true(refused > message.size);
    assert_true(loaded > 0);
    free(damaged);
    wire_bytes_free(&message);
}

/* The worker decodes into room reserved from the average size of the
 * list's first entries. Lists whose later entries are much smaller run
 * out of it: in the worker's part (it stops, the main thread goes on from
 * there) or already in the main thread's (it stops the worker and grows
 * the columns). Either way the result is one thread's.
 * `big` entries of 11 bytes (a time of 2^49 takes 8 varint bytes), then
 * `small` empty ones of 2 bytes. */
struct wire_bytes shrinking_list(int big, int small)
{
    struct wire_bytes value = { 0 }, profile_bytes = { 0 };
    struct wire_bytes timed = { 0 }, empty = { 0 };
    wire_bytes_put_varint_field(&timed, 1, (uint64_t)1 << 49);
    assert_int_equal(timed.size, 9);
    for (int index = 0; index < big; index++)
        wire_bytes_put_message_field(&value, 1, &timed);
    for (int index = 0; index < small; index++)
        wire_bytes_put_message_field(&value, 1, &empty);
    put_entry(&profile_bytes, "GPU_0_bfc", &value);
    WIRE_BYTES_FREE_ALL(&value, &timed);
    return profile_bytes;
}

void test_lists_outgrowing_their_estimate_match_one_thread(void **state)
{
    (void)state;
    /* 11500 bytes, room for 1322: the main thread's part holds ~800
     * entries, the worker's ~2700. */
    struct wire_bytes worker_short = shrinking_list(500, 3000);
    /* 12066 bytes, room for 1386: the main thread's part alone holds
     * ~2050 entries. */
    struct wire_bytes main_short = shrinking_list(256, 4625);
    const struct wire_bytes *messages[] = { &worker_short, &main_short };
    for (size_t index = 0; index < 2; index++) {
        assert_int_equal(expect_same_on_two_threads(messages[index]->data,
                                                    messages[index]->size),
                         LOAD_OK);
        struct threshold_load two =
            load_with_threshold(messages[index]->data, messages[index]->size, 2);
        const struct allocator *gpu = find_allocator(two.profile, "GPU_0_bfc");
        assert_int_equal(gpu->timeline.count, index == 0 ? 3500 : 4881);
        assert_int_equal(snapshot_columns_time(&gpu->timeline, gpu->timeline.count - 1),
                         (int64_t)1 << 49);
        profile_free(two.profile);
    }
    WIRE_BYTES_FREE_ALL(&worker_short, &main_short);
}

/* One value of `count` snapshots; those numbered first_bad and second_bad
 * (-1: none) carry a time_offset_ps of the wrong wire type. */
struct wire_bytes snapshots_with_errors(int count, int first_bad, int second_bad)
{
    struct wire_bytes value = { 0 }, profile_bytes = { 0 };
    for (int index = 0; index < count; index++) {
        struct wire_bytes snapshot = snapshot_bytes(index, 1 << 10, "jit/dot");
        if (index == first_bad || index == second_bad)
            wire_bytes_put_string_field(&snapshot, 1, "late");
        wire_bytes_put_message_field(&value, 1, &snapshot);
        wire_bytes_free(&snapshot);
    }
    put_entry(&profile_bytes, "GPU_0_bfc", &value);
    wire_bytes_free(&value);
    return profile_bytes;
}

struct load_error error_on_threads(const struct wire_bytes *message, size_t threshold)
{
    struct threshold_load load = load_with_threshold(message->data, message->size, threshold);
    assert_int_equal(load.status, LOAD_BAD_INPUT);
    profile_free(load.profile);
    return load.error;
}

void test_error_in_the_second_half_matches_one_thread(void **state)
{
    (void)state;
    struct wire_bytes late = snapshots_with_errors(20, 15, -1);
    struct load_error one = error_on_threads(&late, SIZE_MAX);
    struct load_error two = error_on_threads(&late, 2);
    assert_string_equal(two.message, one.message);
    assert_non_null(strstr(one.message, "(time_offset_ps) has wire type 2, expected 0"));

    /* Errors in both halves: the first in the file is the one named. */
    struct wire_bytes early = snapshots_with_errors(20, 3, -1);
    struct wire_bytes both = snapshots_with_errors(20, 3, 15);
    struct load_error first = error_on_threads(&early, SIZE_MAX);
    assert_string_equal(error_on_threads(&both, 2).message, first.message);
    assert_string_equal(error_on_threads(&both, SIZE_MAX).message, first.message);
    assert_string_not_equal(first.message, one.message);
    WIRE_BYTES_FREE_ALL(&late, &early, &both);
}

struct profile *load_path_with_threshold(const char *path, size_t threshold)
{
    struct profile *profile = NULL;
    struct load_error error = {0};
    load_protobuf_set_parallel_threshold(threshold);
    if (profile_load(path, NULL, &profile, &error) != LOAD_OK)
        fail_msg("%s: %s", path, error.message);
    return profile;
}

void test_demo_profile_two_threads_match_one(void **state)
{
    (void)state;
    char *path = test_source_path("data/demo.v0.pb.gz");
    struct profile *one = load_path_with_threshold(path, SIZE_MAX);
    struct profile *two = load_path_with_threshold(path, 2);
    assert_int_equal(one->allocator_count, 3);
    test_assert_profiles_equal(one, two);
    profile_free(one);
    profile_free(two);
    free(path);
}

/* A file mapping, so the worker drops the pages it has read too. */
void test_generated_profile_two_threads_match_one(void **state)
{
    (void)state;
    const char *build = getenv("MEMTOP_BUILDDIR");
    if (!build)
        TEST_SKIP("MEMTOP_BUILDDIR is not set (run through make check)");
    char path[512], command[2048];
    snprintf(path, sizeof path, "%s/v0-100k.pb", test_directory());
    snprintf(command, sizeof command,
             "'%s/tests/generate_profile' --version 0 --snapshots 100000 --seed 7 -o '%s'",
             build, path);
    assert_int_equal(system(command), 0);
    struct profile *one = load_path_with_threshold(path, SIZE_MAX);
    struct profile *two = load_path_with_threshold(path, 2);
    struct profile *usual = load_path_with_threshold(path, 0);
    assert_int_equal(find_allocator(one, "GPU_0_bfc")->timeline.count, 100000);
    test_assert_profiles_equal(one, two);
    test_assert_profiles_equal(one, usual);
    profile_free(one);
    profile_free(two);
    profile_free(usual);
}
