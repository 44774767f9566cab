/* XProf's step grouping as the XSpace loader simulates it (xspace.md
 * section 5; group_events.cc), on captures written by hand: each case
 * checks the step of every memory event of the allocator "A". */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/load.h"
#include "model/load_internal.h"
#include "tests/formats/xspace/xspace_builder.h"

/* The capture loaded on one thread, and on two (which must give the same
 * steps); the one-thread profile is returned. */
static struct profile *load_built(struct xspace_builder *builder)
{
    xsb_end_plane(builder);
    struct profile *profiles[2] = {NULL, NULL};
    for (int threads = 0; threads < 2; threads++) {
        struct load_error error = {0};
        load_xspace_set_pipeline_threshold(threads ? 1 : SIZE_MAX);
        enum load_status status = profile_load_bytes(builder->space.data, builder->space.size,
                                                     "built.xplane.pb", NULL,
                                                     &profiles[threads], &error);
        load_xspace_set_pipeline_threshold(0);
        if (status != LOAD_OK)
            fail_msg("%s", error.message);
    }
    assert_int_equal(profiles[0]->allocator_count, profiles[1]->allocator_count);
    for (size_t a = 0; a < profiles[0]->allocator_count; a++) {
        const struct snapshot_columns *one = &profiles[0]->allocators[a].timeline;
        const struct snapshot_columns *two = &profiles[1]->allocators[a].timeline;
        assert_int_equal(one->count, two->count);
        for (size_t i = 0; i < one->count; i++)
            assert_int_equal(one->step_id[i], two->step_id[i]);
    }
    profile_free(profiles[1]);
    xsb_free(builder);
    return profiles[0];
}

/* The steps of allocator A's snapshots in time order. */
static void expect_steps(struct profile *profile, const int64_t *steps, size_t count)
{
    long index = profile_find_allocator(profile, text_of("A"));
    assert_true(index >= 0);
    const struct snapshot_columns *timeline = &profile->allocators[index].timeline;
    assert_int_equal(timeline->count, count);
    for (size_t i = 0; i < count; i++)
        if (timeline->step_id[i] != steps[i])
            fail_msg("snapshot %zu: step %lld, expected %lld", i,
                     (long long)timeline->step_id[i], (long long)steps[i]);
    profile_free(profile);
}

#define EXPECT_STEPS(profile, ...)                                                                \
    expect_steps(profile, (const int64_t[]){__VA_ARGS__},                                        \
                 sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))

static void begin_host(struct xspace_builder *builder)
{
    xsb_init(builder);
    xsb_plane(builder, "/host:CPU");
}

/* Markers nest their memory events; outside any: last step + 1. Group ids
 * follow the markers' start, not their step_num or file order. */
static void test_nesting_and_root_order(void **state)
{
    (void)state;
    struct xspace_builder b;
    begin_host(&b);
    xsb_line(&b, "early", 1000);
    XSB_EVENT(&b, "train", 0, 100000, XSB_INT("_r", 1), XSB_INT("step_num", 7));
    xsb_memory(&b, 1, "A", 10000, 100, 100, 0x10);
    xsb_memory(&b, 0, "A", 20000, 0, 100, 0x10);
    xsb_line(&b, "late", 1000);
    XSB_EVENT(&b, "train", 200000, 100000, XSB_INT("_r", 1), XSB_INT("step_num", 3));
    xsb_memory(&b, 1, "A", 210000, 100, 100, 0x20);
    xsb_memory(&b, 1, "A", 400000, 200, 100, 0x30); /* after every step: 1 + 1 */
    EXPECT_STEPS(load_built(&b), 0, 0, 1, 2);
}

/* Higher levels first; a root under a root of its level makes no group;
 * equal starts across lines keep the file's order. */
static void test_root_levels(void **state)
{
    (void)state;
    struct xspace_builder b;
    begin_host(&b);
    xsb_line(&b, "a", 0);
    XSB_EVENT(&b, "outer", 0, 100000, XSB_INT("_r", 1));
    XSB_EVENT(&b, "inner", 1000, 50000, XSB_INT("_r", 1)); /* below its level: none */
    xsb_memory(&b, 1, "A", 2000, 100, 100, 1);
    xsb_line(&b, "b", 0);
    XSB_EVENT(&b, "session", 500000, 100000, XSB_INT("_r", 2)); /* level 2: group 0 */
    xsb_memory(&b, 1, "A", 510000, 200, 100, 2);
    EXPECT_STEPS(load_built(&b), 1, 0);
}

/* _a = 1 events are nobody's parent and nobody's child: a memory event
 * inside an async marker in time is in no step (last step + 1), and one
 * inside an async event inside a marker takes the marker's. */
static void test_async_events_are_left_out(void **state)
{
    (void)state;
    struct xspace_builder b;
    begin_host(&b);
    xsb_line(&b, "a", 0);
    XSB_EVENT(&b, "step", 0, 100000, XSB_INT("_r", 1), XSB_INT("_a", 1)); /* group 1 */
    xsb_memory(&b, 1, "A", 1000, 100, 100, 1);
    xsb_line(&b, "b", 0);
    XSB_EVENT(&b, "train", 50, 10, XSB_INT("_r", 1)); /* group 2 */
    xsb_memory(&b, 1, "A", 55, 100, 100, 2);
    XSB_EVENT(&b, "train", 200000, 100000, XSB_INT("_r", 1)); /* group 3 */
    XSB_EVENT(&b, "async", 210000, 1000, XSB_INT("_r", 2), XSB_INT("_a", 1)); /* group 0 */
    xsb_memory(&b, 1, "A", 210500, 200, 100, 3);
    EXPECT_STEPS(load_built(&b), 2, 3, 3);
}

/* A producer's (_pt, _p) reaches consumers with the same (_ct, _c),
 * compared as 64-bit patterns (uint64 2^63+5 = int64 -(2^63)+5). */
static void test_context_edges_by_bit_pattern(void **state)
{
    (void)state;
    struct xspace_builder b;
    begin_host(&b);
    xsb_line(&b, "main", 0);
    XSB_EVENT(&b, "train", 0, 1000000, XSB_INT("_r", 1));
    XSB_EVENT(&b, "FunctionRun", 1000, 10000, XSB_INT("_pt", 2),
              XSB_UINT("_p", UINT64_C(0x8000000000000005)));
    xsb_line(&b, "worker", 0);
    XSB_EVENT(&b, "ExecutorState::Process", 5000, 2000, XSB_INT("_ct", 2),
              XSB_INT("_c", INT64_MIN + 5));
    xsb_memory(&b, 1, "A", 5500, 100, 100, 1);
    XSB_EVENT(&b, "ExecutorState::Process", 8000, 2000, XSB_INT("_ct", 3), /* other type */
              XSB_INT("_c", INT64_MIN + 5));
    xsb_memory(&b, 1, "A", 8500, 200, 100, 2);
    EXPECT_STEPS(load_built(&b), 0, 1);
}

/* 64 producers and 64 consumers of one context: XProf makes no edges, so
 * the consumers' memory events are in no step (last step + 1 = 2); with
 * 63 producers they are in the first marker's step. */
static void test_crowded_contexts_have_no_edges(void **state)
{
    (void)state;
    for (int crowded = 0; crowded < 2; crowded++) {
        struct xspace_builder b;
        begin_host(&b);
        xsb_line(&b, "main", 0);
        XSB_EVENT(&b, "train", 0, 10000, XSB_INT("_r", 1));
        for (int i = 0; i < 63 + crowded; i++)
            XSB_EVENT(&b, "FunctionRun", 1000 + i * 100, 50, XSB_INT("_pt", 2), XSB_INT("_p", 9));
        XSB_EVENT(&b, "train", 15000, 1000, XSB_INT("_r", 1));
        xsb_memory(&b, 1, "A", 15500, 1, 1, 1000);
        xsb_line(&b, "worker", 0);
        int64_t steps[65] = {1};
        for (int i = 0; i < 64; i++) {
            XSB_EVENT(&b, "ExecutorState::Process", 20000 + i * 1000, 500, XSB_INT("_ct", 2),
                      XSB_INT("_c", 9));
            xsb_memory(&b, 1, "A", 20000 + i * 1000 + 10, i, 1, (uint64_t)i);
            steps[1 + i] = crowded ? 2 : 0;
        }
        expect_steps(load_built(&b), steps, 65);
    }
}

/* Many producers times many consumers (past the direct-edge budget) go
 * through one extra node: the first root reached gives every consumer
 * its group, as the edges one by one would. */
static void test_many_pairs_through_a_hub(void **state)
{
    (void)state;
    struct xspace_builder b;
    begin_host(&b);
    for (int i = 0; i < 100; i++) {
        xsb_line(&b, "main", 0);
        XSB_EVENT(&b, "train", 1000000 * (int64_t)(100 - i), 1000, XSB_INT("_r", 1));
        XSB_EVENT(&b, "FunctionRun", 1000000 * (int64_t)(100 - i) + 10, 100, XSB_INT("_pt", 2),
                  XSB_INT("_p", 77));
    }
    xsb_line(&b, "late", 0);
    XSB_EVENT(&b, "train", 400000000, 1000, XSB_INT("_r", 1)); /* group 100 */
    xsb_memory(&b, 1, "A", 400000010, 1, 1, 1000);
    xsb_line(&b, "worker", 0);
    int64_t steps[51] = {100};
    for (int i = 0; i < 50; i++) {
        XSB_EVENT(&b, "ExecutorState::Process", 500000000 + i * 1000, 500, XSB_INT("_ct", 2),
                  XSB_INT("_c", 77));
        xsb_memory(&b, 1, "A", 500000000 + i * 1000 + 10, i, 1, (uint64_t)i);
        steps[1 + i] = 0; /* the earliest marker's group (without edges: 101) */
    }
    expect_steps(load_built(&b), steps, 51);
}

/* ExecutorState::Process -> IteratorGetNextOp::DoCompute on equal (id,
 * iter_num), found on the event or the events around it. */
static void test_iterator_edges(void **state)
{
    (void)state;
    struct xspace_builder b;
    begin_host(&b);
    xsb_line(&b, "main", 0);
    XSB_EVENT(&b, "train", 0, 100000, XSB_INT("_r", 1));
    XSB_EVENT(&b, "ExecutorState::Process", 1000, 10000, XSB_INT("id", 42),
              XSB_INT("iter_num", 0));
    xsb_line(&b, "input", 0);
    XSB_EVENT(&b, "IteratorGetNext", 2000, 5000, XSB_INT("id", 42), XSB_INT("iter_num", 0));
    xsb_span(&b, "IteratorGetNextOp::DoCompute", 2100, 4000);
    xsb_memory(&b, 1, "A", 2200, 100, 100, 1);
    XSB_EVENT(&b, "IteratorGetNext", 9000, 5000, XSB_INT("id", 43), XSB_INT("iter_num", 0));
    xsb_span(&b, "IteratorGetNextOp::DoCompute", 9100, 4000);
    xsb_memory(&b, 1, "A", 9200, 200, 100, 2); /* no Process with id 43 */
    EXPECT_STEPS(load_built(&b), 0, 1);
}

/* TF loop iterations: ExecutorState::Process events of one id with
 * iter_num 0, 1, 2 are the roots, by start; markers are then ignored. */
static void test_tf_loop_iterations(void **state)
{
    (void)state;
    struct xspace_builder b;
    begin_host(&b);
    xsb_line(&b, "main", 0);
    XSB_EVENT(&b, "train", 0, 10000000, XSB_INT("_r", 1));
    xsb_line(&b, "worker", 0);
    for (int iteration = 2; iteration >= 0; iteration--) { /* written out of order */
        int64_t start = 100000 + 100000 * (2 - iteration);
        XSB_EVENT(&b, "ExecutorState::Process", start, 50000, XSB_INT("id", 5),
                  XSB_INT("iter_num", iteration));
        xsb_memory(&b, 1, "A", start + 10, iteration, 1, (uint64_t)iteration);
    }
    /* iteration 2 starts first in time: group 0 */
    EXPECT_STEPS(load_built(&b), 0, 1, 2);
}

/* A TF loop op anywhere (here on another plane): nothing is grouped. */
static void test_loop_ops_stop_grouping(void **state)
{
    (void)state;
    struct xspace_builder b;
    xsb_init(&b);
    xsb_plane(&b, "/device:GPU:0");
    xsb_line(&b, "Stream #14(Compute)", 0);
    xsb_span(&b, "WhileOp-EvalCond", 0, 10);
    xsb_plane(&b, "/host:CPU");
    xsb_line(&b, "main", 0);
    XSB_EVENT(&b, "train", 0, 1000, XSB_INT("_r", 1));
    xsb_memory(&b, 1, "A", 10, 100, 100, 1);
    XSB_EVENT(&b, "train", 2000, 1000, XSB_INT("_r", 1));
    xsb_memory(&b, 1, "A", 2010, 200, 100, 2);
    EXPECT_STEPS(load_built(&b), 0, 0);
}

/* A group_id stat metadata anywhere: the space counts as grouped, and a
 * memory event's step is its own group_id. */
static void test_grouped_files_keep_their_groups(void **state)
{
    (void)state;
    struct xspace_builder b;
    begin_host(&b);
    xsb_line(&b, "main", 0);
    XSB_EVENT(&b, "train", 0, 1000, XSB_INT("_r", 1));
    XSB_EVENT(&b, "MemoryAllocation", 10, 0, XSB_REF("allocator_name", "A"),
              XSB_INT("bytes_allocated", 5), XSB_INT("group_id", 12));
    XSB_EVENT(&b, "MemoryAllocation", 20, 0, XSB_REF("allocator_name", "A"),
              XSB_INT("bytes_allocated", 6));
    EXPECT_STEPS(load_built(&b), 12, 13);
}

/* A legacy TraceContext is a level-1 root; a root whose id is a tf.data
 * function's step id is none. */
static void test_trace_context_and_tf_data_roots(void **state)
{
    (void)state;
    struct xspace_builder b;
    begin_host(&b);
    xsb_line(&b, "main", 0);
    XSB_EVENT(&b, "InstantiatedCapturedFunction::Run", 0, 10, XSB_INT("id", 99));
    XSB_EVENT(&b, "train", 100, 1000, XSB_INT("_r", 1), XSB_INT("id", 99)); /* tf.data's */
    xsb_memory(&b, 1, "A", 110, 100, 100, 1);
    xsb_span(&b, "TraceContext", 2000, 1000);
    xsb_memory(&b, 1, "A", 2010, 200, 100, 2);
    xsb_memory(&b, 1, "A", 5000, 300, 100, 3);
    EXPECT_STEPS(load_built(&b), 0, 0, 1);
}

/* A line's timestamp_ns written after its events still places them: here
 * it makes the second line's marker the earlier one. */
static void test_timestamp_after_the_events(void **state)
{
    (void)state;
    struct xspace_builder b;
    begin_host(&b);
    xsb_line(&b, "main", 1000);
    XSB_EVENT(&b, "train", 0, 1000, XSB_INT("_r", 1));
    xsb_memory(&b, 1, "A", 10, 100, 100, 1);
    b.late_timestamp = 1;
    xsb_line(&b, "other", 2000); /* written last: its marker starts second */
    XSB_EVENT(&b, "train", 100, 1000, XSB_INT("_r", 1));
    xsb_memory(&b, 1, "A", 110, 200, 100, 2);
    EXPECT_STEPS(load_built(&b), 0, 1); /* read as 0 ns, the order would be 1, 0 */
}

/* Metadata keys near 2^48 (hashed, never an array by id). */
static void test_huge_metadata_ids(void **state)
{
    (void)state;
    struct xspace_builder b;
    xsb_init(&b);
    b.key_base = UINT64_C(281474976710660);
    xsb_plane(&b, "/host:CPU");
    xsb_line(&b, "main", 0);
    XSB_EVENT(&b, "train", 0, 1000, XSB_INT("_r", 1));
    xsb_memory(&b, 1, "A", 10, 100, 100, 1);
    xsb_memory(&b, 0, "A", 2000, 0, 100, 1);
    EXPECT_STEPS(load_built(&b), 0, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nesting_and_root_order),
        cmocka_unit_test(test_root_levels),
        cmocka_unit_test(test_async_events_are_left_out),
        cmocka_unit_test(test_context_edges_by_bit_pattern),
        cmocka_unit_test(test_crowded_contexts_have_no_edges),
        cmocka_unit_test(test_many_pairs_through_a_hub),
        cmocka_unit_test(test_iterator_edges),
        cmocka_unit_test(test_tf_loop_iterations),
        cmocka_unit_test(test_loop_ops_stop_grouping),
        cmocka_unit_test(test_grouped_files_keep_their_groups),
        cmocka_unit_test(test_trace_context_and_tf_data_roots),
        cmocka_unit_test(test_timestamp_after_the_events),
        cmocka_unit_test(test_huge_metadata_ids),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
