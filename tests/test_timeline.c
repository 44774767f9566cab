#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
