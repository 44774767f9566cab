/* Tests of model/query/steps: the step table on hand-made timelines (ties,
 * overlapping steps, step -1, the leak flag) and on generated ones,
 * against a plain per-step scan. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include "model/query/steps.h"
#include "tests/profile_maker.h"
#include "tests/test_support.h"

#define ALLOC MEMORY_ACTIVITY_ALLOCATION
#define FREE MEMORY_ACTIVITY_DEALLOCATION

static struct profile *profile_of(const struct made_event *events, size_t count, bool sampled)
{
    struct profile *profile = profile_maker_new();
    struct allocator *allocator = profile_maker_allocator(profile, "GPU_0_bfc");
    for (size_t i = 0; i < count; i++)
        profile_maker_append(profile, allocator, &events[i], sampled);
    profile_maker_finish(profile);
    return profile;
}

static struct step_table table_of(const struct profile *profile)
{
    struct step_table table;
    assert_true(step_table_build(&table, &profile->allocators[0]));
    return table;
}

/* Step 1 and 2 overlap (2 starts before 1 ends); step -1 snapshots sit
 * between them; step 1 reaches its peak twice (the later one counts). */
static const struct made_event overlapping[] = {
    {.time_ps = 100, .activity = ALLOC, .address = 1, .step_id = 1, .heap_bytes = 10},
    {.time_ps = 110, .activity = ALLOC, .address = 2, .step_id = 1, .heap_bytes = 50, .stack_bytes = 10},
    {.time_ps = 120, .activity = ALLOC, .address = 3, .step_id = -1, .heap_bytes = 70},
    {.time_ps = 130, .activity = ALLOC, .address = 4, .step_id = 2, .heap_bytes = 80},
    {.time_ps = 140, .activity = FREE, .address = 4, .step_id = 1, .heap_bytes = 60},
    {.time_ps = 150, .activity = FREE, .address = 3, .step_id = 1, .heap_bytes = 40, .stack_bytes = 20},
    {.time_ps = 160, .activity = MEMORY_ACTIVITY_RESERVATION, .step_id = 1, .heap_bytes = 30},
    {.time_ps = 170, .activity = FREE, .address = 2, .step_id = 2, .heap_bytes = 20},
    {.time_ps = 180, .activity = ALLOC, .address = 5, .step_id = -1, .heap_bytes = 25},
};

static void test_overlapping_steps_and_none(void **state)
{
    (void)state;
    struct profile *profile = profile_of(overlapping, sizeof overlapping / sizeof overlapping[0], false);
    struct step_table table = table_of(profile);
    assert_false(table.sampled);
    assert_int_equal(table.count, 3);

    const struct step_row *one = &table.rows[0];
    assert_true(one->step_id == 1 && !one->is_none);
    assert_true(one->start_time_ps == 100 && one->end_time_ps == 160);
    assert_true(one->peak_bytes == 60 && one->peak_time_ps == 150); /* 60 at 110 and 150 */
    assert_int_equal(one->peak_index, 5);
    assert_true(one->end_bytes == 30);
    assert_int_equal(one->allocations, 2);
    assert_int_equal(one->deallocations, 2);
    assert_int_equal(one->snapshot_count, 5);
    assert_int_equal(one->first_index, 0);
    assert_int_equal(one->last_index, 6);
    assert_false(one->has_previous);
    assert_true(one->end_delta_bytes == 0);

    const struct step_row *two = &table.rows[1];
    assert_true(two->step_id == 2);
    assert_true(two->start_time_ps == 130 && two->end_time_ps == 170);
    assert_true(two->peak_bytes == 80 && two->peak_time_ps == 130);
    assert_true(two->end_bytes == 20);
    assert_true(two->has_previous && two->end_delta_bytes == -10);
    assert_int_equal(two->allocations, 1);
    assert_int_equal(two->deallocations, 1);

    /* Step -1 appeared before step 2 but is listed last, with no delta. */
    const struct step_row *none = &table.rows[2];
    assert_true(none->step_id == -1 && none->is_none);
    assert_true(none->start_time_ps == 120 && none->end_time_ps == 180);
    assert_true(none->end_bytes == 25);
    assert_false(none->has_previous);
    assert_false(none->possible_leak);
    step_table_free(&table);
    profile_free(profile);
}

/* One snapshot per step with these end bytes; step -1 (between the 3rd
 * and the 4th) does not break the chain. */
static struct profile *profile_of_ends(const int64_t *ends, size_t count, bool none_inside)
{
    struct made_event *events = calloc(count + 1, sizeof *events);
    assert_non_null(events);
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        if (none_inside && i == 3)
            events[n++] = (struct made_event){.time_ps = 10 * (int64_t)i + 5, .step_id = -1,
                                              .heap_bytes = 1000000};
        events[n++] = (struct made_event){.time_ps = 10 * (int64_t)i + 10,
                                          .step_id = (int64_t)i + 1, .heap_bytes = ends[i]};
    }
    struct profile *profile = profile_of(events, n, false);
    free(events);
    return profile;
}

static void expect_leak_flags(const int64_t *ends, const bool *flags, size_t count,
                              bool none_inside)
{
    struct profile *profile = profile_of_ends(ends, count, none_inside);
    struct step_table table = table_of(profile);
    assert_int_equal(table.count, count + (none_inside ? 1 : 0));
    for (size_t i = 0; i < count; i++) {
        assert_true(table.rows[i].step_id == (int64_t)i + 1);
        assert_int_equal(table.rows[i].possible_leak, flags[i]);
        if (i > 0)
            assert_true(table.rows[i].end_delta_bytes == ends[i] - ends[i - 1]);
    }
    step_table_free(&table);
    profile_free(profile);
}

static void test_leak_flag(void **state)
{
    (void)state;
    /* Three rises in a row flag the step of the third rise and every
     * rise after it; a fall or a flat step restarts the count. */
    static const int64_t ends[] = {10, 20, 30, 40, 50, 45, 50, 60, 60, 70, 80, 90};
    static const bool flags[] = {false, false, false, true, true, false,
                                 false, false, false, false, false, true};
    expect_leak_flags(ends, flags, sizeof ends / sizeof ends[0], false);
    expect_leak_flags(ends, flags, sizeof ends / sizeof ends[0], true);
    /* Two rises are not enough. */
    static const int64_t short_run[] = {10, 20, 30, 5, 6, 7};
    static const bool none[] = {false, false, false, false, false, false};
    expect_leak_flags(short_run, none, 6, false);
}

static void test_sampled_and_empty(void **state)
{
    (void)state;
    struct profile *sampled = profile_of(overlapping, 3, true);
    struct step_table table = table_of(sampled);
    assert_true(table.sampled);
    assert_int_equal(table.count, 2);
    step_table_free(&table);
    profile_free(sampled);

    struct profile *empty = profile_maker_new();
    profile_maker_allocator(empty, "empty");
    profile_maker_finish(empty);
    table = table_of(empty);
    assert_int_equal(table.count, 0);
    step_table_free(&table);
    profile_free(empty);
}

/* Each row of the table against a scan of the timeline for its step id. */
static void check_against_scan(const struct allocator *allocator)
{
    const struct snapshot_columns *timeline = &allocator->timeline;
    struct step_table table;
    assert_true(step_table_build(&table, allocator));
    size_t snapshots = 0, allocations = 0;
    for (size_t r = 0; r < table.count; r++) {
        const struct step_row *row = &table.rows[r];
        struct step_row scan = {0};
        bool seen = false;
        for (size_t i = 0; i < timeline->count; i++) {
            if (snapshot_columns_step_id(timeline, i) != row->step_id)
                continue;
            int64_t in_use = snapshot_columns_stack_bytes(timeline, i) + timeline->heap_bytes[i];
            if (!seen)
                scan.start_time_ps = snapshot_columns_time(timeline, i);
            if (!seen || in_use >= scan.peak_bytes) {
                scan.peak_bytes = in_use;
                scan.peak_time_ps = snapshot_columns_time(timeline, i);
            }
            seen = true;
            scan.end_time_ps = snapshot_columns_time(timeline, i);
            scan.end_bytes = in_use;
            scan.snapshot_count++;
            scan.allocations += timeline->activity[i] == ALLOC;
            scan.deallocations += timeline->activity[i] == FREE;
        }
        assert_true(seen);
        assert_true(row->start_time_ps == scan.start_time_ps);
        assert_true(row->end_time_ps == scan.end_time_ps);
        assert_true(row->peak_bytes == scan.peak_bytes);
        assert_true(row->peak_time_ps == scan.peak_time_ps);
        assert_true(row->end_bytes == scan.end_bytes);
        assert_int_equal(row->snapshot_count, scan.snapshot_count);
        assert_int_equal(row->allocations, scan.allocations);
        assert_int_equal(row->deallocations, scan.deallocations);
        if (r > 0) {
            assert_true(row->start_time_ps >= table.rows[r - 1].start_time_ps);
            assert_true(row->end_delta_bytes == row->end_bytes - table.rows[r - 1].end_bytes);
        }
        snapshots += row->snapshot_count;
        allocations += row->allocations;
    }
    assert_int_equal(snapshots, timeline->count);
    assert_int_equal(allocations, allocator->summary.allocations);
    step_table_free(&table);
}

static void test_generated_steps(void **state)
{
    (void)state;
    struct profile *profile = profile_maker_generate(
        "steps.v0.pb", "--version 0 --snapshots 8000 --steps 7 --seed 4 --unsorted");
    if (!profile)
        TEST_SKIP("MEMTOP_BUILDDIR is not set (run through make check)");
    for (size_t a = 0; a < profile->allocator_count; a++)
        check_against_scan(&profile->allocators[a]);
    /* The generator's main allocator: initialisation (step 0), then 7. */
    struct step_table table;
    assert_true(step_table_build(&table, &profile->allocators[0]));
    assert_int_equal(table.count, 8);
    for (size_t r = 0; r < table.count; r++)
        assert_true(table.rows[r].step_id == (int64_t)r);
    step_table_free(&table);
    profile_free(profile);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overlapping_steps_and_none),
        cmocka_unit_test(test_leak_flag),
        cmocka_unit_test(test_sampled_and_empty),
        cmocka_unit_test(test_generated_steps),
    };
    return cmocka_run_group_tests(tests, test_directory_create, test_directory_remove);
}
