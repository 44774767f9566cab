/* test_oom: the model's OOM events (model/profile_builder.h's
 * profile_builder_add_oom, sorted by finish) and model/query/oom.h's questions:
 * by time, the allocator to open, the post-mortem's numbers and verdict. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "model/query/gate.h"
#include "model/query/oom.h"
#include "model/profile.h"
#include "model/profile_builder.h"

static struct oom_event oom_at(int64_t time_ps, int64_t requested)
{
    return (struct oom_event){time_ps, requested, -1, -1, -1, -1, 0};
}

/* Two allocators: "a" with OOMs at 30, 10, 20, 20 (added in that order,
 * requests 3, 1, 2, 22), "b" with one at 25; "c" with none. */
static struct profile *three_allocators(void)
{
    struct profile_builder builder;
    assert_true(profile_builder_init(&builder));
    size_t a, b, c;
    bool created;
    assert_true(profile_builder_allocator(&builder, "a", 1, &a, &created));
    assert_true(profile_builder_allocator(&builder, "b", 1, &b, &created));
    assert_true(profile_builder_allocator(&builder, "c", 1, &c, &created));
    const int64_t times[] = {30, 10, 20, 20}, requests[] = {3, 1, 2, 22};
    for (size_t i = 0; i < 4; i++) {
        struct oom_event oom = oom_at(times[i], requests[i]);
        assert_true(profile_builder_add_oom(&builder, a, &oom));
    }
    struct oom_event oom = oom_at(25, 5);
    assert_true(profile_builder_add_oom(&builder, b, &oom));
    struct profile *profile = profile_builder_finish(&builder);
    assert_non_null(profile);
    return profile;
}

static void test_sorted_stably_by_finish(void **state)
{
    (void)state;
    struct profile *profile = three_allocators();
    const struct allocator *a = &profile->allocators[0];
    assert_int_equal(a->oom_count, 4);
    const int64_t requests[] = {1, 2, 22, 3};
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(a->ooms[i].requested_bytes, requests[i]);
    assert_int_equal(profile->allocators[1].oom_count, 1);
    assert_int_equal(profile->allocators[2].oom_count, 0);
    assert_null(profile->allocators[2].ooms);
    assert_int_equal(profile_oom_count(profile), 5);
    profile_free(profile);
}

static void test_found_by_time(void **state)
{
    (void)state;
    struct profile *profile = three_allocators();
    const struct allocator *a = &profile->allocators[0];
    assert_int_equal(allocator_last_oom(a)->time_ps, 30);
    assert_null(allocator_last_oom(&profile->allocators[2]));
    /* At an instant: the first OOM there. */
    assert_int_equal(allocator_oom_at(a, 20)->requested_bytes, 2);
    assert_null(allocator_oom_at(a, 21));
    assert_int_equal(allocator_oom_after(a, 10)->time_ps, 20);
    assert_int_equal(allocator_oom_after(a, 20)->time_ps, 30);
    assert_null(allocator_oom_after(a, 30));
    assert_int_equal(allocator_oom_before(a, 30)->requested_bytes, 22);
    assert_int_equal(allocator_oom_before(a, 11)->time_ps, 10);
    assert_null(allocator_oom_before(a, 10));
    assert_int_equal(allocator_oom_index(a, allocator_oom_at(a, 30)), 3);
    /* "a"'s last OOM (30) is later than "b"'s (25). */
    assert_int_equal(profile_oom_allocator(profile), 0);
    profile_free(profile);
}

static void test_no_ooms(void **state)
{
    (void)state;
    struct profile_builder builder;
    assert_true(profile_builder_init(&builder));
    size_t a;
    bool created;
    assert_true(profile_builder_allocator(&builder, "a", 1, &a, &created));
    struct profile *profile = profile_builder_finish(&builder);
    assert_int_equal(profile_oom_allocator(profile), -1);
    assert_int_equal(profile_oom_count(profile), 0);
    assert_null(allocator_oom_after(&profile->allocators[0], INT64_MIN));
    assert_null(allocator_oom_before(&profile->allocators[0], INT64_MAX));
    profile_free(profile);
}

static void test_many_ooms_grow(void **state)
{
    (void)state;
    struct profile_builder builder;
    assert_true(profile_builder_init(&builder));
    size_t a;
    bool created;
    assert_true(profile_builder_allocator(&builder, "a", 1, &a, &created));
    for (int64_t i = 0; i < 1000; i++) {
        struct oom_event oom = oom_at(999 - i, i);
        assert_true(profile_builder_add_oom(&builder, a, &oom));
    }
    struct profile *profile = profile_builder_finish(&builder);
    const struct allocator *allocator = &profile->allocators[0];
    assert_int_equal(allocator->oom_count, 1000);
    for (int64_t i = 0; i < 1000; i++)
        assert_int_equal(allocator->ooms[i].time_ps, i);
    profile_free(profile);
}

/* An allocator with capacity `capacity` (0: unknown). */
static struct allocator allocator_with_capacity(int64_t capacity)
{
    struct allocator allocator = {0};
    allocator.summary.capacity_bytes = capacity;
    if (!capacity)
        allocator.unknown_fields = ALLOCATOR_FIELD_CAPACITY;
    return allocator;
}

static void test_account_and_verdict(void **state)
{
    (void)state;
    struct allocator unknown = allocator_with_capacity(0);
    /* PyTorch's message: allocated 70, reserved 75, device free 4. */
    struct oom_event oom = {0, 20, 70, 75, 4, -1, 0};
    struct oom_account account = oom_account_of(&unknown, &oom);
    assert_int_equal(account.reserved_free_bytes, 5);
    assert_int_equal(account.free_bytes, 9);
    assert_int_equal(account.capacity_bytes, -1);
    assert_int_equal(account.verdict, OOM_VERDICT_TOO_LARGE);
    /* 20 asked, 25 free in all: fragmentation. */
    oom.reserved_bytes = 91;
    assert_int_equal(oom_account_of(&unknown, &oom).verdict, OOM_VERDICT_FRAGMENTED);
    /* A request equal to all free memory fits in total: fragmentation. */
    oom.reserved_bytes = 86;
    assert_int_equal(oom_account_of(&unknown, &oom).verdict, OOM_VERDICT_FRAGMENTED);
    /* A trace: the device's free memory unknown. */
    struct oom_event trace = {0, 20, 70, 75, -1, -1, 0};
    account = oom_account_of(&unknown, &trace);
    assert_int_equal(account.free_bytes, 5);
    assert_int_equal(account.verdict, OOM_VERDICT_LARGER_THAN_CACHED);
    trace.reserved_bytes = 100;
    assert_int_equal(oom_account_of(&unknown, &trace).verdict, OOM_VERDICT_FRAGMENTED);
    /* A BFC dump: capacity (Limit) 100, in use 90, largest free block 4. */
    struct allocator bfc = allocator_with_capacity(100);
    struct oom_event dump = {0, 8, 90, -1, -1, 4, 0};
    account = oom_account_of(&bfc, &dump);
    assert_int_equal(account.capacity_bytes, 100);
    assert_int_equal(account.free_bytes, 10);
    assert_int_equal(account.reserved_free_bytes, -1);
    assert_int_equal(account.verdict, OOM_VERDICT_FRAGMENTED);
    dump.requested_bytes = 11;
    assert_int_equal(oom_account_of(&bfc, &dump).verdict, OOM_VERDICT_TOO_LARGE);
    /* Nothing known but the request. */
    struct oom_event bare = oom_at(0, 8);
    assert_int_equal(oom_account_of(&unknown, &bare).verdict, OOM_VERDICT_UNKNOWN);
    assert_int_equal(oom_account_of(&unknown, &bare).free_bytes, -1);
}

/* The gates: a peak equal to the limit passes, one byte more crosses. */
static void test_gates(void **state)
{
    (void)state;
    struct allocator allocator = allocator_with_capacity(1000);
    allocator.summary.peak_bytes = 800;
    int64_t limit;
    struct gate_limit bytes = {false, 800, 0};
    assert_int_equal(gate_over(&allocator, &bytes, &limit), GATE_PASSES);
    assert_int_equal(limit, 800);
    bytes.bytes = 799;
    assert_int_equal(gate_over(&allocator, &bytes, &limit), GATE_CROSSED);
    struct gate_limit share = {true, 0, 80.0};
    assert_int_equal(gate_over(&allocator, &share, &limit), GATE_PASSES);
    assert_int_equal(limit, 800);
    share.share = 79.9;
    assert_int_equal(gate_over(&allocator, &share, &limit), GATE_CROSSED);
    /* A peak of INT64_MAX against itself passes. */
    allocator.summary.peak_bytes = INT64_MAX;
    bytes.bytes = INT64_MAX;
    assert_int_equal(gate_over(&allocator, &bytes, &limit), GATE_PASSES);
    struct allocator unknown = allocator_with_capacity(0);
    assert_int_equal(gate_over(&unknown, &share, &limit), GATE_UNKNOWN);
    /* Growth: 1000 -> 1100 is 10%: passes 10, crosses 9.99. */
    struct allocator base = allocator_with_capacity(0), new = allocator_with_capacity(0);
    base.summary.peak_bytes = 1000;
    new.summary.peak_bytes = 1100;
    double growth;
    assert_int_equal(gate_growth(&base, &new, 10.0, &growth), GATE_PASSES);
    assert_true(growth > 9.999 && growth < 10.001);
    assert_int_equal(gate_growth(&base, &new, 9.99, &growth), GATE_CROSSED);
    new.summary.peak_bytes = 900; /* shrank */
    assert_int_equal(gate_growth(&base, &new, 0.0, &growth), GATE_PASSES);
    base.summary.peak_bytes = 0;
    assert_int_equal(gate_growth(&base, &new, 1000.0, &growth), GATE_CROSSED);
    new.summary.peak_bytes = 0;
    assert_int_equal(gate_growth(&base, &new, 0.0, &growth), GATE_PASSES);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sorted_stably_by_finish),
        cmocka_unit_test(test_found_by_time),
        cmocka_unit_test(test_no_ooms),
        cmocka_unit_test(test_many_ooms_grow),
        cmocka_unit_test(test_account_and_verdict),
        cmocka_unit_test(test_gates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
