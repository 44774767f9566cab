#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include "model/snapshot_columns.h"

/* The timeline columns' time in 4 bytes (SNAPSHOT_NARROW_TIME,
 * model/snapshot_columns_time.c): each time read back through
 * snapshot_columns_time() is the one stored, narrow where it fits, the
 * column widened where one does not. The other encodings are tested in
 * tests/test_profile.c. */

enum { DENSE, SPARSE, SET };

/* Columns holding `count` times from `times`, appended densely, sparsely
 * (room made zeroed, grown as it fills) or set in place, narrowed or not. */
static struct snapshot_columns columns_of(const int64_t *times, size_t count, int how,
                                          bool narrow)
{
    struct snapshot_columns columns = {0};
    if (narrow)
        assert_true(snapshot_columns_omit(&columns, SNAPSHOT_NARROW_TIME));
    if (how == SPARSE)
        assert_true(snapshot_columns_reserve_zeroed(&columns, 3));
    if (how == SET)
        assert_true(snapshot_columns_reserve(&columns, count));
    for (size_t i = 0; i < count; i++) {
        struct snapshot snapshot = {.time_ps = times[i], .heap_bytes = (int64_t)i};
        if (how == DENSE) {
            assert_true(snapshot_columns_append(&columns, &snapshot));
        } else if (how == SPARSE) {
            if (columns.count == columns.capacity)
                assert_true(snapshot_columns_grow_zeroed(&columns, columns.capacity * 2));
            snapshot_columns_append_sparse(&columns, &snapshot);
        } else {
            snapshot_columns_set(&columns, i, &snapshot);
        }
    }
    if (how == SET)
        columns.count = count;
    assert_false(columns.lost);
    assert_int_equal(columns.count, count);
    return columns;
}

/* Every time of `columns` reads as `times` says, through the accessor
 * and snapshot_columns_get(), and as a plain column of them reads. */
static void assert_times(const struct snapshot_columns *columns, const int64_t *times,
                         size_t count)
{
    struct snapshot_columns plain = columns_of(times, count, DENSE, false);
    assert_non_null(plain.time_ps);
    for (size_t i = 0; i < count; i++) {
        struct snapshot out;
        snapshot_columns_get(columns, i, &out);
        if (snapshot_columns_time(columns, i) != times[i] || out.time_ps != times[i] ||
            snapshot_columns_time(&plain, i) != times[i] || out.heap_bytes != (int64_t)i)
            fail_msg("snapshot %zu: %lld where %lld was stored", i,
                     (long long)snapshot_columns_time(columns, i), (long long)times[i]);
    }
    snapshot_columns_free(&plain);
}

static void assert_narrow(const struct snapshot_columns *columns, bool narrow)
{
    if (narrow) {
        assert_null(columns->time_ps);
        assert_non_null(columns->time_narrow);
        assert_non_null(columns->time_bases);
    } else {
        assert_non_null(columns->time_ps);
        assert_null(columns->time_narrow);
        assert_null(columns->time_bases);
    }
}

/* Times that grow in whole units within a block stay 4 bytes each, in
 * every way of storing them, and read back alike after the room is
 * fitted, after more are appended, and in a copy. */
static void test_time_narrow_fits(void **state)
{
    (void)state;
    enum { COUNT = 1000 };
    int64_t times[COUNT + 2];
    for (size_t i = 0; i < COUNT; i++) /* from below zero, equal times, jumps */
        times[i] = -5000 + (int64_t)(i / 3) * 7 +
                   (i % 100 == 99 ? 1000000 * (int64_t)(i / 100) : 0);
    times[COUNT] = times[0] + (int64_t)UINT32_MAX; /* the last count that fits */
    times[COUNT + 1] = times[0];                    /* the base itself */
    for (int how = DENSE; how <= SET; how++) {
        struct snapshot_columns columns = columns_of(times, COUNT, how, true);
        assert_narrow(&columns, true);
        assert_int_equal(columns.time_unit, 1);
        assert_int_equal(columns.time_bases[0], times[0]);
        assert_times(&columns, times, COUNT);
        snapshot_columns_fit(&columns);
        assert_times(&columns, times, COUNT);
        for (size_t i = COUNT; i < COUNT + 2; i++)
            assert_true(snapshot_columns_append(
                &columns, &(struct snapshot){.time_ps = times[i], .heap_bytes = (int64_t)i}));
        assert_narrow(&columns, true);
        assert_times(&columns, times, COUNT + 2);
        struct snapshot_columns copy;
        assert_true(snapshot_columns_copy(&columns, &copy));
        assert_narrow(&copy, true);
        assert_times(&copy, times, COUNT + 2);
        snapshot_columns_free(&copy);
        snapshot_columns_free(&columns);
    }
}

/* A block of SNAPSHOT_TIME_BLOCK snapshots has its own base: the next
 * block starts at its first time, however far past the last block's
 * reach, and the snapshots on either side of the boundary read back. */
static void test_time_blocks(void **state)
{
    (void)state;
    size_t count = 2 * SNAPSHOT_TIME_BLOCK + 3;
    int64_t *times = malloc(count * sizeof *times);
    assert_non_null(times);
    for (size_t i = 0; i < count; i++)
        times[i] = (int64_t)i * 1000 + (i >= SNAPSHOT_TIME_BLOCK ? (int64_t)1 << 45 : 0) +
                   (i >= 2 * SNAPSHOT_TIME_BLOCK ? (int64_t)1 << 50 : 0);
    for (int how = DENSE; how <= SPARSE; how++) {
        struct snapshot_columns columns = columns_of(times, count, how, true);
        assert_narrow(&columns, true);
        assert_int_equal(columns.time_bases[1], times[SNAPSHOT_TIME_BLOCK]);
        assert_int_equal(columns.time_bases[2], times[2 * SNAPSHOT_TIME_BLOCK]);
        assert_int_equal(columns.time_narrow[SNAPSHOT_TIME_BLOCK - 1],
                         (SNAPSHOT_TIME_BLOCK - 1) * 1000);
        assert_int_equal(columns.time_narrow[SNAPSHOT_TIME_BLOCK], 0);
        assert_int_equal(columns.time_narrow[SNAPSHOT_TIME_BLOCK + 1], 1000);
        assert_times(&columns, times, count);
        assert_true(snapshot_columns_times_sorted(&columns));
        snapshot_columns_free(&columns);
    }
    /* In order within each block, not across a boundary (the next block
     * starts before the last time of the one before), or not within one. */
    for (int back = 0; back < 2; back++) {
        for (size_t i = 0; i < count; i++)
            times[i] = (int64_t)i * 1000 - (back == 0 && i >= SNAPSHOT_TIME_BLOCK ? 5000 : 0) -
                       (back == 1 && i == SNAPSHOT_TIME_BLOCK + 2 ? 1001 : 0);
        struct snapshot_columns narrow = columns_of(times, count, DENSE, true);
        struct snapshot_columns plain = columns_of(times, count, DENSE, false);
        assert_narrow(&narrow, true);
        assert_false(snapshot_columns_times_sorted(&narrow));
        assert_false(snapshot_columns_times_sorted(&plain));
        snapshot_columns_free(&narrow);
        snapshot_columns_free(&plain);
    }
    /* The other way round, a block's last time past its reach widens. */
    times[SNAPSHOT_TIME_BLOCK - 1] = times[0] + ((int64_t)1 << 32);
    struct snapshot_columns columns = columns_of(times, count, DENSE, true);
    assert_narrow(&columns, false);
    assert_times(&columns, times, count);
    snapshot_columns_free(&columns);
    free(times);
}

/* A time that does not fit widens the whole column back to 8 bytes:
 * nothing stored before or after it is lost or rounded, in every way of
 * storing it. */
static void test_time_fallback_widens(void **state)
{
    (void)state;
    static const int64_t misfits[][4] = {
        {100, 200, 99, 300},                         /* before its block's base */
        {100, 100 + ((int64_t)1 << 32), 101, 102},   /* 2^32 units past it */
        {5, SNAPSHOT_TIME_UNSET, 6, 7},              /* the unset mark itself */
        {SNAPSHOT_TIME_UNSET, 0, INT64_MAX, -1},     /* first, then anything */
        {INT64_MIN + 1, INT64_MAX, 0, 1},            /* a delta past int64 */
    };
    for (size_t m = 0; m < sizeof misfits / sizeof *misfits; m++)
        for (int how = DENSE; how <= SET; how++) {
            struct snapshot_columns columns = columns_of(misfits[m], 4, how, true);
            assert_narrow(&columns, false);
            assert_times(&columns, misfits[m], 4);
            if (how == SPARSE) /* widened zeroed room grows keeping its times */
                assert_true(snapshot_columns_grow_zeroed(&columns, 64));
            assert_times(&columns, misfits[m], 4);
            struct snapshot_columns copy;
            assert_true(snapshot_columns_copy(&columns, &copy));
            assert_times(&copy, misfits[m], 4);
            snapshot_columns_free(&copy);
            snapshot_columns_free(&columns);
        }
    /* Set out of order, past the count: the widened column keeps the
     * slots set beyond it. */
    struct snapshot_columns columns = {0};
    assert_true(snapshot_columns_omit(&columns, SNAPSHOT_NARROW_TIME));
    assert_true(snapshot_columns_reserve(&columns, 4));
    static const int64_t set[] = {40, 10, 20, 30};
    for (size_t k = 0; k < 4; k++) /* 40 first: 10 does not fit after it */
        snapshot_columns_set(&columns, k == 0 ? 3 : k - 1,
                             &(struct snapshot){.time_ps = set[k],
                                                .heap_bytes = (int64_t)(k == 0 ? 3 : k - 1)});
    columns.count = 4;
    assert_narrow(&columns, false);
    assert_times(&columns, (const int64_t[]){10, 20, 30, 40}, 4);
    snapshot_columns_free(&columns);
}

/* The loader's clock changes (scaled from an origin, counted) read as
 * on a plain column: narrow ones keep their counts in a unit of the
 * factor; off that unit, a later time widens them; where a time would
 * saturate, they widen and saturate alike. */
static void test_time_scaled_and_counted(void **state)
{
    (void)state;
    size_t count = SNAPSHOT_TIME_BLOCK + 5;
    int64_t *times = malloc((count + 1) * sizeof *times);
    int64_t *want = malloc((count + 1) * sizeof *want);
    assert_non_null(times);
    assert_non_null(want);
    int64_t origin = 1700000000000000; /* microseconds since 1970 */
    for (size_t i = 0; i < count; i++)
        times[i] = origin + 3 + (int64_t)i * 13;
    for (int how = DENSE; how <= SPARSE; how++) {
        struct snapshot_columns narrow = columns_of(times, count, how, true);
        struct snapshot_columns plain = columns_of(times, count, how, false);
        assert_true(snapshot_columns_scale_times(&narrow, origin, 1000000));
        assert_true(snapshot_columns_scale_times(&plain, origin, 1000000));
        assert_narrow(&narrow, true);
        assert_int_equal(narrow.time_unit, 1000000);
        for (size_t i = 0; i < count; i++)
            want[i] = (3 + (int64_t)i * 13) * 1000000;
        assert_times(&narrow, want, count);
        assert_times(&plain, want, count);
        /* A time off the new unit, appended after: the column widens. */
        want[count] = want[count - 1] + 1;
        assert_true(snapshot_columns_append(
            &narrow, &(struct snapshot){.time_ps = want[count], .heap_bytes = (int64_t)count}));
        assert_narrow(&narrow, false);
        assert_times(&narrow, want, count + 1);
        snapshot_columns_free(&narrow);
        snapshot_columns_free(&plain);
        /* Counted: each time its index in the unit. */
        narrow = columns_of(times, count, how, true);
        assert_true(snapshot_columns_count_times(&narrow, 1000000));
        assert_narrow(&narrow, true);
        for (size_t i = 0; i < count; i++)
            want[i] = (int64_t)i * 1000000;
        assert_times(&narrow, want, count);
        snapshot_columns_free(&narrow);
    }
    /* Saturating: the narrow column widens and saturates as a plain one. */
    int64_t top = INT64_MAX / 1000;
    int64_t far[] = {top - 5, top, top + 1, top + 10};
    struct snapshot_columns narrow = columns_of(far, 4, DENSE, true);
    struct snapshot_columns plain = columns_of(far, 4, DENSE, false);
    assert_narrow(&narrow, true);
    assert_true(snapshot_columns_scale_times(&narrow, -5, 1000));
    assert_true(snapshot_columns_scale_times(&plain, -5, 1000));
    assert_narrow(&narrow, false);
    int64_t saturated[] = {top * 1000, INT64_MAX, INT64_MAX, INT64_MAX};
    assert_times(&narrow, saturated, 4);
    assert_times(&plain, saturated, 4);
    assert_false(snapshot_columns_scale_times(&plain, 0, 0));
    assert_false(snapshot_columns_count_times(&plain, 0));
    snapshot_columns_free(&narrow);
    snapshot_columns_free(&plain);
    free(times);
    free(want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_time_narrow_fits),
        cmocka_unit_test(test_time_blocks),
        cmocka_unit_test(test_time_fallback_widens),
        cmocka_unit_test(test_time_scaled_and_counted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
