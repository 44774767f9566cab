#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "model/profile_builder.h"
#include "model/timeline.h"
#include "tests/test_support.h"

/* A timeline with these times; heap = 10 * index + 1. */
static struct snapshot_columns timeline_of(const int64_t *times, size_t count)
{
    struct snapshot_columns timeline = {0};
    for (size_t i = 0; i < count; i++) {
        struct snapshot snapshot = test_snapshot(times[i], 10 * (int64_t)i + 1);
        assert_true(snapshot_columns_append(&timeline, &snapshot));
    }
    return timeline;
}

static void test_empty_timeline(void **state)
{
    (void)state;
    struct snapshot_columns timeline = {0};
    size_t first, end;
    assert_int_equal(timeline_find_time(&timeline, 5), 0);
    assert_int_equal(timeline_nearest(&timeline, 5), SIZE_MAX);
    timeline_range(&timeline, 0, 100, &first, &end);
    assert_int_equal(first, end);
    assert_int_equal(timeline_max_in_use(&timeline, 0, 0), SIZE_MAX);
}

static void test_one_snapshot(void **state)
{
    (void)state;
    const int64_t times[] = {100};
    struct snapshot_columns timeline = timeline_of(times, 1);
    size_t first, end;
    assert_int_equal(timeline_find_time(&timeline, 50), 0);
    assert_int_equal(timeline_find_time(&timeline, 100), 0);
    assert_int_equal(timeline_find_time(&timeline, 101), 1);
    assert_int_equal(timeline_nearest(&timeline, -1000), 0);
    assert_int_equal(timeline_nearest(&timeline, INT64_MAX), 0);
    timeline_range(&timeline, 100, 100, &first, &end);
    assert_int_equal(first, 0);
    assert_int_equal(end, 1);
    timeline_range(&timeline, 101, 200, &first, &end);
    assert_int_equal(first, end);
    snapshot_columns_free(&timeline);
}

static void test_equal_times(void **state)
{
    (void)state;
    const int64_t times[] = {10, 20, 20, 20, 30};
    struct snapshot_columns timeline = timeline_of(times, 5);
    size_t first, end;
    assert_int_equal(timeline_find_time(&timeline, 20), 1);
    assert_int_equal(timeline_find_time(&timeline, 21), 4);
    /* Nearest picks the first of equal times. */
    assert_int_equal(timeline_nearest(&timeline, 20), 1);
    assert_int_equal(timeline_nearest(&timeline, 22), 1);
    assert_int_equal(timeline_nearest(&timeline, 26), 4);
    /* A tie in distance goes to the earlier snapshot. */
    assert_int_equal(timeline_nearest(&timeline, 25), 1);
    timeline_range(&timeline, 20, 20, &first, &end);
    assert_int_equal(first, 1);
    assert_int_equal(end, 4);
    snapshot_columns_free(&timeline);
}

static void test_before_first_and_after_last(void **state)
{
    (void)state;
    const int64_t times[] = {10, 20, 30};
    struct snapshot_columns timeline = timeline_of(times, 3);
    size_t first, end;
    assert_int_equal(timeline_find_time(&timeline, INT64_MIN), 0);
    assert_int_equal(timeline_find_time(&timeline, INT64_MAX), 3);
    assert_int_equal(timeline_nearest(&timeline, INT64_MIN), 0);
    assert_int_equal(timeline_nearest(&timeline, INT64_MAX), 2);
    timeline_range(&timeline, INT64_MIN, INT64_MAX, &first, &end);
    assert_int_equal(first, 0);
    assert_int_equal(end, 3);
    timeline_range(&timeline, 31, INT64_MAX, &first, &end);
    assert_int_equal(first, end);
    timeline_range(&timeline, INT64_MIN, 9, &first, &end);
    assert_int_equal(first, end);
    /* A reversed window is empty, never negative. */
    timeline_range(&timeline, 30, 10, &first, &end);
    assert_int_equal(first, end);
    snapshot_columns_free(&timeline);
}

static void test_range_is_inclusive(void **state)
{
    (void)state;
    const int64_t times[] = {10, 20, 30, 40, 50};
    struct snapshot_columns timeline = timeline_of(times, 5);
    size_t first, end;
    timeline_range(&timeline, 20, 40, &first, &end);
    assert_int_equal(first, 1);
    assert_int_equal(end, 4);
    timeline_range(&timeline, 21, 39, &first, &end);
    assert_int_equal(first, 2);
    assert_int_equal(end, 3);
    snapshot_columns_free(&timeline);
}

static void test_search_matches_linear_scan(void **state)
{
    (void)state;
    int64_t times[300];
    uint64_t seed = 42;
    int64_t time = -500;
    for (size_t i = 0; i < 300; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        time += (int64_t)(seed >> 61); /* steps of 0..7, so many equal times */
        times[i] = time;
    }
    struct snapshot_columns timeline = timeline_of(times, 300);
    for (int64_t probe = -510; probe <= time + 10; probe++) {
        size_t expected = 0;
        while (expected < 300 && times[expected] < probe)
            expected++;
        assert_int_equal(timeline_find_time(&timeline, probe), expected);
    }
    snapshot_columns_free(&timeline);
}

static void test_max_in_use_first_on_ties(void **state)
{
    (void)state;
    struct snapshot_columns timeline = {0};
    const int64_t heaps[] = {5, 9, 3, 9, 1};
    for (size_t i = 0; i < 5; i++) {
        struct snapshot snapshot = test_snapshot((int64_t)i, heaps[i]);
        snapshot.stack_bytes = 1;
        snapshot_columns_append(&timeline, &snapshot);
    }
    assert_int_equal(timeline_max_in_use(&timeline, 0, 5), 1);
    assert_int_equal(timeline_max_in_use(&timeline, 2, 5), 3);
    assert_int_equal(timeline_max_in_use(&timeline, 4, 99), 4);
    assert_int_equal(snapshot_columns_in_use(&timeline, 1), 10);
    snapshot_columns_free(&timeline);
}

static void test_in_use_saturates(void **state)
{
    (void)state;
    struct snapshot_columns timeline = {0};
    struct snapshot snapshot = test_snapshot(0, INT64_MAX);
    snapshot.stack_bytes = INT64_MAX;
    snapshot_columns_append(&timeline, &snapshot);
    assert_true(snapshot_columns_in_use(&timeline, 0) == INT64_MAX);
    snapshot_columns_free(&timeline);
}

/* ---- the range-maximum index ---- */

/* The reference: the first snapshot with the largest stack+heap. */
static size_t max_by_scan(const struct snapshot_columns *timeline, size_t first, size_t end)
{
    if (end > timeline->count)
        end = timeline->count;
    if (first >= end)
        return SIZE_MAX;
    size_t best = first;
    for (size_t i = first + 1; i < end; i++)
        if (snapshot_columns_in_use(timeline, i) > snapshot_columns_in_use(timeline, best))
            best = i;
    return best;
}

static uint64_t next_random(uint64_t *seed)
{
    *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
    return *seed >> 33;
}

/* `count` snapshots whose heap takes few distinct values (many ties), with
 * stack set on some, and the index built as profile_builder_finish() builds it. */
static struct snapshot_columns indexed_timeline(size_t count, uint64_t seed, int64_t values)
{
    struct snapshot_columns timeline = {0};
    assert_true(snapshot_columns_reserve(&timeline, count));
    for (size_t i = 0; i < count; i++) {
        struct snapshot snapshot = test_snapshot((int64_t)i, (int64_t)(next_random(&seed) % (uint64_t)values));
        snapshot.stack_bytes = (int64_t)(next_random(&seed) % 2);
        assert_true(snapshot_columns_append(&timeline, &snapshot));
    }
    assert_true(timeline_index_build(&timeline));
    assert_non_null(timeline.index);
    return timeline;
}

static void expect_range(const struct snapshot_columns *timeline, size_t first, size_t end)
{
    size_t expected = max_by_scan(timeline, first, end);
    size_t found = timeline_max_in_use(timeline, first, end);
    if (found != expected)
        print_error("range [%zu, %zu) of %zu: %zu, expected %zu\n", first, end, timeline->count,
                    found, expected);
    assert_int_equal(found, expected);
}

/* Every range of small timelines, across the first block boundaries. */
static void test_index_every_small_range(void **state)
{
    (void)state;
    const size_t counts[] = {0, 1, 2, 63, 64, 65, 130, 200};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        struct snapshot_columns timeline = indexed_timeline(counts[c], 7 + c, 5);
        for (size_t first = 0; first <= counts[c] + 1; first++)
            for (size_t end = 0; end <= counts[c] + 2; end++)
                expect_range(&timeline, first, end);
        snapshot_columns_free(&timeline);
    }
}

/* Random ranges of timelines with two and three levels, many ties. */
static void test_index_matches_scan_on_random_ranges(void **state)
{
    (void)state;
    const size_t counts[] = {4095, 4096, 4097, 64 * 64 * 3 + 5, 300000};
    uint64_t seed = 99;
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        size_t count = counts[c];
        struct snapshot_columns timeline = indexed_timeline(count, seed + c, c % 2 ? 3 : 1000);
        expect_range(&timeline, 0, count);
        for (int probe = 0; probe < 400; probe++) {
            size_t first = (size_t)next_random(&seed) % (count + 1);
            size_t length = (size_t)next_random(&seed) % (probe % 4 == 0 ? count + 1 : 200);
            expect_range(&timeline, first, first + length);
        }
        /* Ranges aligned to blocks and one off them. */
        for (size_t span = 64; span < count; span *= 64)
            for (size_t edge = span - 1; edge <= span + 1; edge++) {
                expect_range(&timeline, edge, count);
                expect_range(&timeline, 0, edge);
                expect_range(&timeline, edge, 2 * edge + 1);
            }
        snapshot_columns_free(&timeline);
    }
}

/* All equal: the first of the range wins, whatever the blocks. */
static void test_index_first_on_ties_everywhere(void **state)
{
    (void)state;
    struct snapshot_columns timeline = {0};
    for (size_t i = 0; i < 10000; i++) {
        struct snapshot snapshot = test_snapshot((int64_t)i, 7);
        assert_true(snapshot_columns_append(&timeline, &snapshot));
    }
    assert_true(timeline_index_build(&timeline));
    for (size_t first = 0; first < 10000; first += 997)
        assert_int_equal(timeline_max_in_use(&timeline, first, 10000), first);
    snapshot_columns_free(&timeline);
}

/* Saturated sums and negative values order like the scan. */
static void test_index_extreme_values(void **state)
{
    (void)state;
    struct snapshot_columns timeline = {0};
    for (size_t i = 0; i < 5000; i++) {
        struct snapshot snapshot = test_snapshot((int64_t)i, -(int64_t)i);
        if (i == 4200 || i == 4300) {
            snapshot.heap_bytes = INT64_MAX;
            snapshot.stack_bytes = INT64_MAX - (int64_t)i;
        }
        if (i == 100)
            snapshot.heap_bytes = INT64_MIN;
        assert_true(snapshot_columns_append(&timeline, &snapshot));
    }
    assert_true(timeline_index_build(&timeline));
    assert_int_equal(timeline_max_in_use(&timeline, 0, 5000), 4200);
    assert_int_equal(timeline_max_in_use(&timeline, 4201, 5000), 4300);
    assert_int_equal(timeline_max_in_use(&timeline, 5, 4100), 5);
    expect_range(&timeline, 64, 4200);
    snapshot_columns_free(&timeline);
}

/* An appended snapshot drops the index: answers stay right. */
static void test_index_dropped_by_append(void **state)
{
    (void)state;
    struct snapshot_columns timeline = indexed_timeline(5000, 3, 50);
    struct snapshot big = test_snapshot(5000, 1000000);
    assert_true(snapshot_columns_append(&timeline, &big));
    assert_null(timeline.index);
    assert_int_equal(timeline_max_in_use(&timeline, 0, 5001), 5000);
    assert_true(timeline_index_build(&timeline));
    assert_int_equal(timeline_max_in_use(&timeline, 0, 5001), 5000);
    expect_range(&timeline, 100, 4999);
    snapshot_columns_free(&timeline);
}

/* profile_builder_finish() gives every timeline its index. */
static void test_finish_builds_the_index(void **state)
{
    (void)state;
    struct profile_builder builder;
    assert_true(profile_builder_init(&builder));
    size_t index;
    bool created;
    assert_true(profile_builder_allocator(&builder, "a", 1, &index, &created));
    assert_true(created);
    for (int64_t i = 0; i < 1000; i++) {
        struct snapshot snapshot = test_snapshot(i, (i * 37) % 1001);
        assert_true(profile_builder_append_snapshot(&builder, index, &snapshot));
    }
    struct profile *profile = profile_builder_finish(&builder);
    assert_non_null(profile);
    const struct snapshot_columns *timeline = &profile->allocators[0].timeline;
    assert_non_null(timeline->index);
    expect_range(timeline, 0, 1000);
    expect_range(timeline, 17, 900);
    profile_free(profile);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_timeline),
        cmocka_unit_test(test_one_snapshot),
        cmocka_unit_test(test_equal_times),
        cmocka_unit_test(test_before_first_and_after_last),
        cmocka_unit_test(test_range_is_inclusive),
        cmocka_unit_test(test_search_matches_linear_scan),
        cmocka_unit_test(test_max_in_use_first_on_ties),
        cmocka_unit_test(test_in_use_saturates),
        cmocka_unit_test(test_index_every_small_range),
        cmocka_unit_test(test_index_matches_scan_on_random_ranges),
        cmocka_unit_test(test_index_first_on_ties_everywhere),
        cmocka_unit_test(test_index_extreme_values),
        cmocka_unit_test(test_index_dropped_by_append),
        cmocka_unit_test(test_finish_builds_the_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
