/* test_bad_input_values: well-formed profiles with odd values
 * (tests/test_bad_input): no allocators, negative and huge sizes, indices
 * out of range, odd fragmentation, unsorted and duplicate times, memory ids
 * naming missing allocators, duplicate and repeated map keys. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "model/format.h"
#include "model/decode/gzip.h"
#include "model/load.h"
#include "model/profile.h"
#include "model/profile_builder.h"
#include "model/timeline.h"
#include "tests/test_support.h"
#include "tests/wire_builder.h"

#include "tests/test_bad_input.h"

void test_no_allocators(void **state)
{
    (void)state;
    /* Valid protobuf, but nothing a memory profile holds. */
    expect_bytes_refused("\x10\x01\x28\x01", 4, "no allocators");
    expect_text_refused("{\"memoryProfilePerAllocator\":{}}", "no allocators");
    expect_text_refused("{\"memoryProfilePerAllocator\":{},\"memoryIds\":[\"gpu\"]}",
                        "no allocators");
    expect_text_refused("{}", "no allocators");
    expect_text_refused("[{}]", "no allocators");
}

/* ==== odd numbers that must load ==== */

void test_negative_and_huge_sizes(void **state)
{
    (void)state;
    struct wire_bytes allocator = {0}, profile = {0};
    put_snapshot(&allocator, 1, (struct snapshot_spec){1, INT64_MAX, INT64_MAX, 0.0, 1, "max"});
    put_snapshot(&allocator, 1, (struct snapshot_spec){2, -1, INT64_MIN, 0.0, 2, "min"});
    put_snapshot(&allocator, 1, (struct snapshot_spec){3, -5, -7, 0.0, 1000, "odd activity"});
    put_active(&allocator, 0, -1, INT64_MAX);
    put_active(&allocator, 1, -1, -3);
    put_allocator(&profile, "gpu", &allocator);
    wire_bytes_put_varint_field(&profile, 2, (uint64_t)-2); /* num_hosts */
    wire_bytes_put_varint_field(&profile, 5, (uint64_t)INT64_MIN); /* version */
    struct profile *loaded = load_bytes_ok(profile.data, profile.size);
    wire_bytes_free(&profile);
    const struct allocator *gpu = allocator_named(loaded, "gpu");
    assert_int_equal(gpu->timeline.count, 3);
    /* stack + heap saturates instead of overflowing. */
    assert_true(snapshot_columns_in_use(&gpu->timeline, 0) == INT64_MAX);
    assert_true(snapshot_columns_in_use(&gpu->timeline, 1) == INT64_MIN);
    assert_true(gpu->summary.derived);
    assert_true(gpu->summary.peak_bytes == INT64_MAX);
    assert_true(gpu->summary.peak_time_ps == 1);
    /* An activity past the enum is an unknown one, not a crash. */
    assert_int_equal(gpu->timeline.activity[2], MEMORY_ACTIVITY_UNKNOWN);
    assert_int_equal(gpu->summary.allocations, 1);
    assert_int_equal(gpu->summary.deallocations, 1);
    assert_int_equal(test_xprof_count(gpu), 2);
    assert_true(test_xprof_rows(gpu)[0].occurrences == INT64_MAX);
    assert_true(test_xprof_rows(gpu)[1].occurrences == -3);
    assert_int_equal(loaded->num_hosts, -2);
    assert_int_equal(loaded->version, 0); /* the low 32 bits of INT64_MIN */
    char text[FORMAT_BYTES_SIZE];
    assert_string_equal(format_bytes(gpu->summary.peak_bytes, text, sizeof text), "8.00 EiB");
    profile_free(loaded);
}

void test_indices_out_of_range(void **state)
{
    (void)state;
    struct wire_bytes allocator = {0}, profile = {0};
    put_snapshot(&allocator, 1, (struct snapshot_spec){1, 0, 64, 0.0, 1, "only"});
    put_active(&allocator, 0, -1, 1);          /* fine */
    put_active(&allocator, 1, -1, 1);          /* one past the end */
    put_active(&allocator, INT64_MAX, -1, 1);  /* far past */
    put_active(&allocator, -1, 0, 1);          /* a special that does not exist */
    put_active(&allocator, -1, INT64_MIN, 1);  /* a negative special */
    put_active(&allocator, INT64_MIN, INT64_MAX, 1);
    put_allocator(&profile, "gpu", &allocator);
    struct profile *loaded = load_bytes_ok(profile.data, profile.size);
    wire_bytes_free(&profile);
    const struct allocator *gpu = allocator_named(loaded, "gpu");
    assert_int_equal(test_xprof_count(gpu), 6);
    assert_int_equal(test_xprof_rows(gpu)[0].origin, ROW_FROM_SNAPSHOT);
    assert_string_equal(profile_text(loaded, test_xprof_rows(gpu)[0].op_name), "only");
    for (size_t i = 1; i < 6; i++) {
        /* Shown, flagged, and keeping the indices the file had. */
        assert_int_equal(test_xprof_rows(gpu)[i].origin, ROW_UNRESOLVED);
        assert_false(test_xprof_rows(gpu)[i].has_time);
    }
    assert_true(test_xprof_rows(gpu)[2].snapshot_index == INT64_MAX);
    assert_true(test_xprof_rows(gpu)[4].special_index == INT64_MIN);
    assert_true(test_xprof_rows(gpu)[5].snapshot_index == INT64_MIN);
    profile_free(loaded);
}

void test_odd_fragmentation(void **state)
{
    (void)state;
    struct wire_bytes allocator = {0}, profile = {0};
    put_snapshot(&allocator, 1, (struct snapshot_spec){1, 0, 10, NAN, 1, "nan"});
    put_snapshot(&allocator, 1, (struct snapshot_spec){2, 0, 20, INFINITY, 1, "inf"});
    put_snapshot(&allocator, 1, (struct snapshot_spec){3, 0, 30, -INFINITY, 1, "-inf"});
    put_snapshot(&allocator, 1, (struct snapshot_spec){4, 0, 40, 12345.0, 1, "big"});
    put_snapshot(&allocator, 1, (struct snapshot_spec){5, 0, 5, -0.5, 1, "negative"});
    put_allocator(&profile, "gpu", &allocator);
    struct profile *loaded = load_bytes_ok(profile.data, profile.size);
    wire_bytes_free(&profile);
    const struct allocator *gpu = allocator_named(loaded, "gpu");
    assert_true(isnan(gpu->timeline.fragmentation[0]));
    assert_true(isinf(gpu->timeline.fragmentation[1]) && gpu->timeline.fragmentation[1] > 0);
    assert_true(isinf(gpu->timeline.fragmentation[2]) && gpu->timeline.fragmentation[2] < 0);
    /* The derived peak is the largest heap, whose fragmentation is 12345. */
    assert_true(gpu->summary.peak_time_ps == 4);
    char text[32];
    assert_string_equal(format_percent(gpu->summary.peak.fragmentation, text, sizeof text),
                        "1234500.00 %");
    assert_string_equal(format_percent(NAN, text, sizeof text), "nan");
    assert_string_equal(format_percent(-INFINITY, text, sizeof text), "-inf");
    profile_free(loaded);

    /* JSON spells them as strings; a bare number past the double range is
     * refused rather than read as infinity. */
    loaded = load_text_ok("{\"memoryProfilePerAllocator\":{\"a\":{\"memoryProfileSnapshots\":["
                          "{\"aggregationStats\":{\"fragmentation\":\"NaN\"}},"
                          "{\"aggregationStats\":{\"fragmentation\":\"-Infinity\"}},"
                          "{\"aggregationStats\":{\"fragmentation\":1e300}}]}}}");
    assert_true(isnan(loaded->allocators[0].timeline.fragmentation[0]));
    assert_true(isinf(loaded->allocators[0].timeline.fragmentation[1]));
    assert_true(loaded->allocators[0].timeline.fragmentation[2] == 1e300);
    profile_free(loaded);
    expect_text_refused("{\"memoryProfilePerAllocator\":{\"a\":{\"memoryProfileSnapshots\":["
                        "{\"aggregationStats\":{\"fragmentation\":1e999}}]}}}",
                        "fragmentation: expected a number, got");
    expect_text_refused("{\"memoryProfilePerAllocator\":{\"a\":{\"memoryProfileSnapshots\":["
                        "{\"aggregationStats\":{\"fragmentation\":\"0x1p3\"}}]}}}",
                        "fragmentation: expected a number, got \"0x1p3\"");
}

void test_unsorted_and_duplicate_times(void **state)
{
    (void)state;
    struct wire_bytes allocator = {0}, profile = {0};
    put_snapshot(&allocator, 1, (struct snapshot_spec){30, 0, 3, 0.0, 1, "c"});
    put_snapshot(&allocator, 1, (struct snapshot_spec){10, 0, 1, 0.0, 1, "a"});
    put_snapshot(&allocator, 1, (struct snapshot_spec){20, 0, 2, 0.0, 1, "b1"});
    put_snapshot(&allocator, 1, (struct snapshot_spec){20, 0, 2, 0.0, 1, "b2"});
    put_snapshot(&allocator, 1, (struct snapshot_spec){INT64_MIN, 0, 0, 0.0, 1, "first"});
    put_snapshot(&allocator, 1, (struct snapshot_spec){INT64_MAX, 0, 0, 0.0, 1, "last"});
    put_snapshot(&allocator, 1, (struct snapshot_spec){20, 0, 2, 0.0, 1, "b3"});
    put_active(&allocator, 0, -1, 1); /* the file's snapshot 0: "c" */
    put_allocator(&profile, "gpu", &allocator);
    struct profile *loaded = load_bytes_ok(profile.data, profile.size);
    wire_bytes_free(&profile);
    const struct allocator *gpu = allocator_named(loaded, "gpu");
    static const char *const order[] = {"first", "a", "b1", "b2", "b3", "c", "last"};
    assert_int_equal(gpu->timeline.count, 7);
    for (size_t i = 0; i < 7; i++)
        assert_string_equal(profile_text(loaded, gpu->timeline.op_name[i]), order[i]);
    /* Rows point at the file's order, not the sorted one. */
    assert_string_equal(profile_text(loaded, test_xprof_rows(gpu)[0].op_name), "c");
    assert_true(test_xprof_rows(gpu)[0].time_ps == 30);
    /* Searches at the extremes do not overflow. */
    assert_int_equal(timeline_nearest(&gpu->timeline, INT64_MIN), 0);
    assert_int_equal(timeline_nearest(&gpu->timeline, INT64_MAX), 6);
    assert_int_equal(timeline_nearest(&gpu->timeline, 0), 1);
    assert_int_equal(timeline_find_time(&gpu->timeline, 20), 2);
    profile_free(loaded);
}

void test_memory_ids_naming_missing_allocators(void **state)
{
    (void)state;
    struct profile *loaded = load_text_ok(
        "{\"memoryIds\":[\"ghost\",\"cpu\",\"\",\"cpu\",\"phantom\"],"
        "\"memoryProfilePerAllocator\":{\"gpu\":{},\"cpu\":{}}}");
    /* The ghosts are ignored; named allocators first, the rest after. */
    assert_int_equal(loaded->allocator_count, 2);
    assert_string_equal(profile_text(loaded, loaded->allocators[0].id), "cpu");
    assert_string_equal(profile_text(loaded, loaded->allocators[1].id), "gpu");
    assert_int_equal(loaded->allocators[0].timeline.count, 0);
    profile_free(loaded);
}

/* Issue 16.5: a repeated map key no longer merges its entries' snapshots
 * (that made an allocator XProf never shows): the last entry wins, as
 * protobuf reads a map, in JSON and in binary alike, and the profile
 * carries one escaped warning per repeated key. */
void test_duplicate_allocator_keys_last_entry_wins(void **state)
{
    (void)state;
    struct profile *loaded = load_text_ok(
        "{\"memoryProfilePerAllocator\":{"
        "\"gpu\":{\"memoryProfileSnapshots\":[{\"timeOffsetPs\":\"2\"}]},"
        "\"gpu\":{\"memoryProfileSnapshots\":[{\"timeOffsetPs\":\"1\"},"
        "{\"timeOffsetPs\":\"3\"}]},"
        "\"gpu\":{\"memoryProfileSnapshots\":[{\"timeOffsetPs\":\"1\"}]}}}");
    assert_int_equal(loaded->allocator_count, 1);
    assert_int_equal(loaded->allocators[0].timeline.count, 1);
    assert_true(snapshot_columns_time(&loaded->allocators[0].timeline, 0) == 1);
    assert_int_equal(loaded->warning_count, 1);
    assert_string_equal(test_warning(loaded, 0),
                        "the file repeats map key \"gpu\"; the last entry wins, as protobuf reads it");
    profile_free(loaded);

    /* Binary: A with one snapshot, then A with two gives A with two. */
    struct wire_bytes first = {0}, second = {0}, profile = {0};
    put_snapshot(&first, 1, (struct snapshot_spec){10, 0, 1, 0.0, 1, "early"});
    put_snapshot(&second, 1, (struct snapshot_spec){20, 0, 2, 0.0, 1, "late"});
    put_snapshot(&second, 1, (struct snapshot_spec){30, 0, 3, 0.0, 2, "late"});
    put_allocator(&profile, "A\x1b[2J", &first);
    put_allocator(&profile, "A\x1b[2J", &second);
    loaded = load_bytes_ok(profile.data, profile.size);
    wire_bytes_free(&profile);
    assert_int_equal(loaded->allocator_count, 1);
    assert_int_equal(loaded->allocators[0].timeline.count, 2);
    assert_true(snapshot_columns_time(&loaded->allocators[0].timeline, 0) == 20);
    assert_int_equal(loaded->warning_count, 1);
    /* The key is file text: kept raw, escaped once where it is shown. */
    assert_string_equal(test_warning(loaded, 0), "the file repeats map key \"A\\x1b[2J\"; the last "
                                                 "entry wins, as protobuf reads it");
    assert_non_null(strstr(profile_text(loaded, loaded->warnings[0]), "\"A\x1b[2J\""));
    profile_free(loaded);
}

/* However many keys repeat, the warnings stay few. */
void test_many_repeated_keys_warn_in_bounds(void **state)
{
    (void)state;
    struct wire_bytes profile = {0};
    for (int round = 0; round < 2; round++) {
        for (int key = 0; key < 40; key++) {
            char id[16];
            snprintf(id, sizeof id, "gpu%d", key);
            struct wire_bytes allocator = {0};
            put_snapshot(&allocator, 1, (struct snapshot_spec){round, 0, 1, 0.0, 1, "x"});
            put_allocator(&profile, id, &allocator);
        }
    }
    struct profile *loaded = load_bytes_ok(profile.data, profile.size);
    wire_bytes_free(&profile);
    assert_int_equal(loaded->allocator_count, 40);
    assert_int_equal(loaded->warning_count, PROFILE_WARNINGS_MAX + 1);
    assert_string_equal(test_warning(loaded, PROFILE_WARNINGS_MAX),
                        "... and 24 more warnings like these");
    profile_free(loaded);
}
