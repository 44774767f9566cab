#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/profile.h"
#include "model/profile_builder.h"
#include "model/formats/memory_profile/xprof_draft.h"
#include "tests/test_support.h"

/* These build MemoryProfiles by hand, as a loader does, and check XProf's
 * finishing (model/formats/memory_profile/xprof_draft.h) and the builder's. */

static struct xprof_allocator *add_allocator(struct test_draft *profile, const char *id)
{
    struct xprof_allocator *allocator = xprof_draft_allocator(&profile->draft, id, strlen(id));
    assert_non_null(allocator);
    return allocator;
}

static void append(struct snapshot_columns *columns, struct snapshot snapshot)
{
    assert_true(snapshot_columns_append(columns, &snapshot));
}

static struct snapshot event(struct test_draft *profile, int64_t time_ps, int64_t heap,
                             int activity, const char *op)
{
    struct snapshot snapshot = test_snapshot(time_ps, heap);
    snapshot.activity = activity;
    snapshot.stack_bytes = 100;
    snapshot.free_bytes = 1000 - heap;
    snapshot.allocation_bytes = heap;
    snapshot.op_name = test_draft_intern(profile, op);
    return snapshot;
}

static void add_active(struct xprof_allocator *allocator, int64_t snapshot_index,
                       int64_t special_index, int64_t occurrences)
{
    struct active_allocation active = {snapshot_index, special_index, occurrences};
    assert_true(xprof_allocator_add_active(allocator, &active));
}

static void test_version0_timeline_and_rows(void **state)
{
    (void)state;
    struct test_draft *draft = test_draft_new();
    struct xprof_allocator *allocator = add_allocator(draft, "GPU_0_bfc");
    append(&allocator->snapshots, event(draft, 10, 100, MEMORY_ACTIVITY_ALLOCATION, "a"));
    append(&allocator->snapshots, event(draft, 20, 300, MEMORY_ACTIVITY_ALLOCATION, "b"));
    append(&allocator->snapshots, event(draft, 30, 200, MEMORY_ACTIVITY_DEALLOCATION, "a"));
    add_active(allocator, 1, -1, 2);
    assert_true(xprof_draft_finish(&draft->draft));
    /* Raw pieces are gone once finished. */
    assert_int_equal(draft->draft.allocator_count, 0);
    assert_null(draft->draft.allocators);
    struct profile *profile = profile_builder_finish(&draft->builder);
    assert_non_null(profile);
    free(draft);
    const struct allocator *done = &profile->allocators[0];
    assert_int_equal(done->timeline.count, 3);
    assert_int_equal(done->summary.allocations, 2);
    assert_int_equal(done->summary.deallocations, 1);
    assert_int_equal(test_xprof_count(done), 1);
    assert_int_equal(test_xprof_rows(done)[0].origin, ROW_FROM_SNAPSHOT);
    assert_string_equal(profile_text(profile, test_xprof_rows(done)[0].op_name), "b");
    assert_int_equal(test_xprof_rows(done)[0].occurrences, 2);
    assert_true(test_xprof_rows(done)[0].has_time);
    assert_int_equal(test_xprof_rows(done)[0].time_ps, 20);
    assert_int_equal(done->timeline_kind, TIMELINE_COMPLETE);
    assert_false(done->timeline_sampled);
    profile_free(profile);
}

static void test_version1_rows_point_into_targets(void **state)
{
    (void)state;
    struct test_draft *draft = test_draft_new();
    draft->draft.version = 1;
    struct xprof_allocator *allocator = add_allocator(draft, "0");
    for (int i = 0; i < 5; i++)
        append(&allocator->sampled,
               event(draft, 100 * i, 10 * i, MEMORY_ACTIVITY_ALLOCATION, "sampled"));
    append(&allocator->snapshots, event(draft, 250, 999, MEMORY_ACTIVITY_ALLOCATION, "target"));
    struct snapshot special = event(draft, 0, 0, MEMORY_ACTIVITY_ALLOCATION,
                                    "unused preallocated device memory");
    special.allocation_bytes = 4096;
    append(&allocator->specials, special);
    add_active(allocator, -1, 0, 1);
    add_active(allocator, 0, -1, 1);
    struct profile *profile = test_draft_finish(draft);
    assert_int_equal(profile->version, 1);
    assert_true(profile->version_known); /* a MemoryProfile records its version */
    const struct allocator *done = &profile->allocators[0];
    assert_int_equal(done->timeline.count, 5);
    /* A BFC allocator keeps XProf's words. */
    assert_false(done->caching);
    assert_string_equal(allocator_word(done, ALLOCATOR_WORD_HEAP), "heap");
    assert_string_equal(allocator_word(done, ALLOCATOR_WORD_FREE_LINE), "Free memory");
    assert_int_equal(test_xprof_rows(done)[0].origin, ROW_FROM_SPECIAL);
    assert_false(test_xprof_rows(done)[0].has_time);
    assert_int_equal(test_xprof_rows(done)[0].allocation_bytes, 4096);
    assert_string_equal(profile_text(profile, test_xprof_rows(done)[0].op_name),
                        "unused preallocated device memory");
    assert_int_equal(test_xprof_rows(done)[1].origin, ROW_FROM_SNAPSHOT);
    assert_string_equal(profile_text(profile, test_xprof_rows(done)[1].op_name), "target");
    assert_int_equal(test_xprof_rows(done)[1].time_ps, 250);
    assert_int_equal(done->timeline_kind, TIMELINE_SAMPLED);
    assert_true(done->timeline_sampled);
    profile_free(profile);
}

static void test_rows_that_point_nowhere_stay_unresolved(void **state)
{
    (void)state;
    struct test_draft *draft = test_draft_new();
    struct xprof_allocator *allocator = add_allocator(draft, "0");
    append(&allocator->sampled, event(draft, 1, 1, MEMORY_ACTIVITY_ALLOCATION, "x"));
    add_active(allocator, 0, -1, 1);       /* no memory_profile_snapshots at all */
    add_active(allocator, -1, 5, 1);       /* special past the end */
    add_active(allocator, -2, -1, 1);      /* negative both ways */
    add_active(allocator, INT64_MAX, 0, 3);
    struct profile *profile = test_draft_finish(draft);
    const struct allocator *done = &profile->allocators[0];
    assert_int_equal(test_xprof_count(done), 4);
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(test_xprof_rows(done)[i].origin, ROW_UNRESOLVED);
    assert_int_equal(test_xprof_rows(done)[3].snapshot_index, INT64_MAX);
    assert_int_equal(test_xprof_rows(done)[3].occurrences, 3);
    profile_free(profile);
}

static void test_unsorted_timeline_sorted_stably(void **state)
{
    (void)state;
    struct test_draft *draft = test_draft_new();
    struct xprof_allocator *allocator = add_allocator(draft, "0");
    const int64_t times[] = {30, 10, 20, 10, 5};
    const char *ops[] = {"d", "a", "c", "b", "first"};
    for (int i = 0; i < 5; i++)
        append(&allocator->snapshots,
               event(draft, times[i], i, MEMORY_ACTIVITY_ALLOCATION, ops[i]));
    add_active(allocator, 0, -1, 1); /* resolved before sorting: "d" */
    struct profile *profile = test_draft_finish(draft);
    const struct allocator *done = &profile->allocators[0];
    const char *expected[] = {"first", "a", "b", "c", "d"};
    for (size_t i = 0; i < 5; i++)
        assert_string_equal(profile_text(profile, done->timeline.op_name[i]), expected[i]);
    assert_int_equal(snapshot_columns_time(&done->timeline, 4), 30);
    assert_string_equal(profile_text(profile, test_xprof_rows(done)[0].op_name), "d");
    assert_int_equal(test_xprof_rows(done)[0].time_ps, 30);
    profile_free(profile);
}

static void test_memory_ids_order_allocators(void **state)
{
    (void)state;
    struct test_draft *draft = test_draft_new();
    const char *file_order[] = {"cpu", "GPU_1_bfc", "GPU_0_bfc", "extra"};
    for (int i = 0; i < 4; i++) {
        struct xprof_allocator *allocator = add_allocator(draft, file_order[i]);
        append(&allocator->snapshots, event(draft, 1, i, MEMORY_ACTIVITY_ALLOCATION, "x"));
    }
    const char *memory_ids[] = {"GPU_0_bfc", "missing", "GPU_1_bfc", "GPU_0_bfc", "cpu"};
    for (int i = 0; i < 5; i++)
        assert_true(xprof_draft_add_memory_id(&draft->draft, memory_ids[i], strlen(memory_ids[i])));
    struct profile *profile = test_draft_finish(draft);
    const char *expected[] = {"GPU_0_bfc", "GPU_1_bfc", "cpu", "extra"};
    assert_int_equal(profile->allocator_count, 4);
    for (size_t i = 0; i < 4; i++)
        assert_string_equal(profile_text(profile, profile->allocators[i].id), expected[i]);
    assert_int_equal(profile_find_allocator(profile, text_of("cpu")), 2);
    assert_int_equal(profile_find_allocator(profile, text_of("nope")), -1);
    profile_free(profile);
}

/* Ids that differ after a NUL are two allocators, each found by its
 * bytes and by the spelling memtop shows it with (--allocator, issue
 * 16.4); a backslash in an id still names it as typed. */
static void test_allocators_named_apart_after_a_nul(void **state)
{
    (void)state;
    struct test_draft *draft = test_draft_new();
    const char *ids[] = {"A\0x", "A\0y", "A\\x00x", "a\\b"};
    const size_t lengths[] = {3, 3, 6, 3};
    for (int i = 0; i < 4; i++) {
        struct xprof_allocator *allocator = xprof_draft_allocator(&draft->draft, ids[i],
                                                                  lengths[i]);
        assert_non_null(allocator);
        append(&allocator->snapshots, event(draft, 1, i, MEMORY_ACTIVITY_ALLOCATION, "x"));
    }
    struct profile *profile = test_draft_finish(draft);
    assert_int_equal(profile->allocator_count, 4);
    for (long i = 0; i < 4; i++)
        assert_int_equal(profile_find_allocator(profile, text_make(ids[i], lengths[i])), i);
    assert_int_equal(profile_find_allocator_named(profile, "A\\x00x"), 0);
    assert_int_equal(profile_find_allocator_named(profile, "A\\x00y"), 1);
    assert_int_equal(profile_find_allocator_named(profile, "A\\\\x00x"), 2);
    assert_int_equal(profile_find_allocator_named(profile, "a\\\\b"), 3);
    assert_int_equal(profile_find_allocator_named(profile, "a\\b"), 3);
    assert_int_equal(profile_find_allocator_named(profile, "A"), -1);
    profile_free(profile);
}

static void test_repeated_key_merges(void **state)
{
    (void)state;
    struct test_draft *draft = test_draft_new();
    struct xprof_allocator *first = add_allocator(draft, "GPU_0_bfc");
    append(&first->snapshots, event(draft, 1, 1, MEMORY_ACTIVITY_ALLOCATION, "x"));
    struct xprof_allocator *again = add_allocator(draft, "GPU_0_bfc");
    assert_ptr_equal(first, again);
    append(&again->snapshots, event(draft, 2, 2, MEMORY_ACTIVITY_ALLOCATION, "y"));
    struct profile *profile = test_draft_finish(draft);
    assert_int_equal(profile->allocator_count, 1);
    assert_int_equal(profile->allocators[0].timeline.count, 2);
    profile_free(profile);
}

/* A map entry whose key came before empties that allocator (the last
 * entry wins, issue 16.5), keeps its place, and warns once per key. */
static void test_repeated_map_entry_last_wins(void **state)
{
    (void)state;
    struct test_draft *draft = test_draft_new();
    size_t index;
    struct xprof_allocator *a = xprof_draft_begin_entry(&draft->draft, "A", 1, &index);
    assert_non_null(a);
    assert_int_equal(index, 0);
    append(&a->snapshots, event(draft, 1, 1, MEMORY_ACTIVITY_ALLOCATION, "x"));
    struct memory_stats peak = {.heap_bytes = 5};
    xprof_allocator_set_summary(a, 100, 5, &peak, 1);
    add_active(a, 0, -1, 1);
    assert_non_null(xprof_draft_begin_entry(&draft->draft, "B", 1, &index));
    assert_int_equal(index, 1);
    for (int round = 0; round < 2; round++) {
        a = xprof_draft_begin_entry(&draft->draft, "A", 1, &index);
        assert_non_null(a);
        assert_int_equal(index, 0);
        assert_int_equal(a->snapshots.count + a->active_count, 0);
        assert_false(a->has_summary);
    }
    append(&a->snapshots, event(draft, 2, 20, MEMORY_ACTIVITY_ALLOCATION, "y"));
    append(&a->snapshots, event(draft, 3, 10, MEMORY_ACTIVITY_DEALLOCATION, "y"));
    struct profile *profile = test_draft_finish(draft);
    assert_int_equal(profile->allocator_count, 2);
    const struct allocator *done = &profile->allocators[0];
    assert_string_equal(profile_text(profile, done->id), "A");
    assert_int_equal(done->timeline.count, 2);
    assert_int_equal(test_xprof_count(done), 0);
    assert_true(done->summary.derived);
    assert_int_equal(done->summary.peak_time_ps, 2);
    assert_int_equal(profile->warning_count, 1);
    assert_string_equal(test_warning(profile, 0),
                        "the file repeats map key \"A\"; the last entry wins, as protobuf reads it");
    profile_free(profile);
}

/* A format without XProf's pieces fills the builder directly: rows and
 * snapshots as they come, a timeline kind of its own. */
static void test_builder_without_a_draft(void **state)
{
    (void)state;
    struct profile_builder builder;
    assert_true(profile_builder_init(&builder));
    size_t index, other;
    bool created;
    assert_true(profile_builder_allocator(&builder, "gpu", 3, &index, &created));
    assert_true(created);
    assert_true(profile_builder_allocator(&builder, "cpu", 3, &other, &created));
    assert_true(profile_builder_allocator(&builder, "gpu", 3, &index, &created));
    assert_false(created);
    assert_int_equal(index, 0);
    uint32_t op = string_table_intern(profile_builder_strings(&builder), "conv", 4);
    for (int64_t time = 3; time > 0; time--) {
        struct snapshot snapshot = test_snapshot(time, time * 10);
        snapshot.activity = MEMORY_ACTIVITY_ALLOCATION;
        snapshot.op_name = op;
        assert_true(profile_builder_append_snapshot(&builder, index, &snapshot));
    }
    struct allocation_row row = {.origin = ROW_FROM_SNAPSHOT, .op_name = op,
                                 .allocation_bytes = 30, .has_time = true, .time_ps = 3};
    for (int i = 0; i < 40; i++)
        assert_true(profile_builder_add_row(&builder, index, &row));
    profile_builder_set_timeline_kind(&builder, other, TIMELINE_NONE);
    uint32_t order[] = {builder.profile->allocators[other].id};
    assert_true(profile_builder_order_allocators(&builder, order, 1));
    assert_int_equal(profile_builder_find_allocator(&builder, order[0]), 0);
    struct profile *profile = profile_builder_finish(&builder);
    assert_non_null(profile);
    assert_string_equal(profile_text(profile, profile->allocators[0].id), "cpu");
    assert_int_equal(profile->allocators[0].timeline_kind, TIMELINE_NONE);
    assert_false(profile->allocators[0].timeline_sampled);
    const struct allocator *gpu = &profile->allocators[1];
    assert_int_equal(gpu->timeline_kind, TIMELINE_COMPLETE);
    assert_int_equal(gpu->timeline.count, 3);
    assert_true(snapshot_columns_time(&gpu->timeline, 0) == 1 &&
                snapshot_columns_time(&gpu->timeline, 2) == 3);
    assert_non_null(gpu->timeline.index);
    assert_int_equal(gpu->summary.allocations, 3);
    assert_int_equal(test_xprof_count(gpu), 40);
    assert_int_equal(test_xprof_rows(gpu)[39].allocation_bytes, 30);
    profile_free(profile);
}

static void test_summary_from_file_kept(void **state)
{
    (void)state;
    struct test_draft *draft = test_draft_new();
    struct xprof_allocator *allocator = add_allocator(draft, "0");
    append(&allocator->snapshots, event(draft, 1, 1, MEMORY_ACTIVITY_ALLOCATION, "x"));
    struct memory_stats peak = {.stack_bytes = 65536, .heap_bytes = 305938944,
                                .free_bytes = 32708408832, .fragmentation = 0.000401934};
    xprof_allocator_set_summary(allocator, 33014413312, 305938944, &peak, 1685890000);
    struct profile *profile = test_draft_finish(draft);
    const struct allocator_summary *summary = &profile->allocators[0].summary;
    assert_false(summary->derived);
    assert_int_equal(summary->peak_bytes, 306004480);
    assert_int_equal(summary->capacity_bytes, 33014413312);
    assert_int_equal(summary->peak_time_ps, 1685890000);
    assert_int_equal(summary->lifetime_peak_bytes, 305938944);
    profile_free(profile);
}

static void test_missing_summary_derived_like_xprof(void **state)
{
    (void)state;
    struct test_draft *draft = test_draft_new();
    struct xprof_allocator *allocator = add_allocator(draft, "0");
    const int64_t heaps[] = {100, 500, 200, 500, 50};
    for (int i = 0; i < 5; i++) {
        struct snapshot snapshot = event(draft, 10 * i, heaps[i], MEMORY_ACTIVITY_ALLOCATION, "x");
        snapshot.peak_bytes_in_use = 600 + i;
        append(&allocator->snapshots, snapshot);
    }
    struct profile *profile = test_draft_finish(draft);
    const struct allocator_summary *summary = &profile->allocators[0].summary;
    assert_true(summary->derived);
    /* The later of two equal peaks wins. */
    assert_int_equal(summary->peak_time_ps, 30);
    assert_int_equal(summary->peak_bytes, 600);
    assert_int_equal(summary->peak.heap_bytes, 500);
    assert_int_equal(summary->peak.peak_bytes_in_use, 600);
    assert_int_equal(summary->capacity_bytes, 600 + 500);
    assert_int_equal(summary->lifetime_peak_bytes, 604);
    profile_free(profile);
}

static void test_hostile_sums_do_not_overflow(void **state)
{
    (void)state;
    struct test_draft *draft = test_draft_new();
    struct xprof_allocator *allocator = add_allocator(draft, "0");
    struct snapshot snapshot = test_snapshot(0, INT64_MAX);
    snapshot.stack_bytes = INT64_MAX;
    snapshot.free_bytes = INT64_MAX;
    append(&allocator->snapshots, snapshot);
    struct profile *profile = test_draft_finish(draft);
    assert_true(profile->allocators[0].summary.peak_bytes == INT64_MAX);
    assert_true(profile->allocators[0].summary.capacity_bytes == INT64_MAX);
    profile_free(profile);
}

static void test_columns_round_trip_every_field(void **state)
{
    (void)state;
    struct snapshot_columns columns = {0};
    struct snapshot in = {
        .time_ps = INT64_MIN, .stack_bytes = -1, .heap_bytes = INT64_MAX, .free_bytes = 7,
        .fragmentation = 0.25, .peak_bytes_in_use = 9, .activity = MEMORY_ACTIVITY_EXPANSION,
        .requested_bytes = 11, .allocation_bytes = 12, .address = UINT64_MAX, .step_id = -3,
        .op_name = 1, .region_type = 2, .data_type = 3, .tensor_shape = 4,
    };
    assert_true(snapshot_columns_append(&columns, &in));
    struct snapshot out;
    snapshot_columns_get(&columns, 0, &out);
    assert_true(out.time_ps == in.time_ps && out.stack_bytes == in.stack_bytes &&
                out.heap_bytes == in.heap_bytes && out.free_bytes == in.free_bytes &&
                out.fragmentation == in.fragmentation &&
                out.peak_bytes_in_use == in.peak_bytes_in_use && out.activity == in.activity &&
                out.requested_bytes == in.requested_bytes &&
                out.allocation_bytes == in.allocation_bytes && out.address == in.address &&
                out.step_id == in.step_id && out.op_name == in.op_name &&
                out.region_type == in.region_type && out.data_type == in.data_type &&
                out.tensor_shape == in.tensor_shape);
    /* An activity the enum does not know stays unknown, never wraps. */
    in.activity = 1000;
    assert_true(snapshot_columns_append(&columns, &in));
    snapshot_columns_get(&columns, 1, &out);
    assert_int_equal(out.activity, MEMORY_ACTIVITY_UNKNOWN);
    snapshot_columns_free(&columns);
}

/* Columns reserved zeroed and appended sparsely read back what was
 * appended, zeros included; the zeroed reserve refuses columns with room. */
static void test_sparse_columns_read_back(void **state)
{
    (void)state;
    struct snapshot_columns columns = {0};
    assert_true(snapshot_columns_enable_context(&columns));
    assert_true(snapshot_columns_reserve_zeroed(&columns, 3));
    assert_false(snapshot_columns_reserve_zeroed(&columns, 6));
    struct snapshot full = {
        .time_ps = 5, .stack_bytes = 1, .heap_bytes = 2, .free_bytes = 3,
        .fragmentation = -0.0, .peak_bytes_in_use = 4, .activity = 1000,
        .requested_bytes = 6, .allocation_bytes = 7, .address = 8, .step_id = -1,
        .op_name = 9, .region_type = 10, .data_type = 11, .tensor_shape = 12, .context = 13,
    };
    struct snapshot zero = {.step_id = 0};
    snapshot_columns_append_sparse(&columns, &full);
    snapshot_columns_append_sparse(&columns, &zero);
    snapshot_columns_append_sparse(&columns, &full);
    assert_int_equal(columns.count, 3);
    struct snapshot out;
    snapshot_columns_get(&columns, 1, &out);
    assert_true(out.time_ps == 0 && out.stack_bytes == 0 && out.heap_bytes == 0 &&
                out.free_bytes == 0 && out.fragmentation == 0.0 && !signbit(out.fragmentation) &&
                out.peak_bytes_in_use == 0 && out.activity == 0 && out.requested_bytes == 0 &&
                out.allocation_bytes == 0 && out.address == 0 && out.step_id == 0 &&
                out.op_name == 0 && out.region_type == 0 && out.data_type == 0 &&
                out.tensor_shape == 0 && out.context == 0);
    snapshot_columns_get(&columns, 2, &out);
    assert_true(out.time_ps == 5 && out.stack_bytes == 1 && out.heap_bytes == 2 &&
                out.free_bytes == 3 && signbit(out.fragmentation) &&
                out.peak_bytes_in_use == 4 && out.activity == MEMORY_ACTIVITY_UNKNOWN &&
                out.requested_bytes == 6 && out.allocation_bytes == 7 && out.address == 8 &&
                out.step_id == -1 && out.op_name == 9 && out.region_type == 10 &&
                out.data_type == 11 && out.tensor_shape == 12 && out.context == 13);
    snapshot_columns_free(&columns);
}

/* Sparse columns grown past their room keep what was appended (a column
 * written only with zeros is not copied, and still reads zero). */
static void test_sparse_columns_grow(void **state)
{
    (void)state;
    struct snapshot_columns columns = {0};
    assert_true(snapshot_columns_enable_context(&columns));
    assert_true(snapshot_columns_reserve_zeroed(&columns, 2));
    struct snapshot full = {.time_ps = 5, .heap_bytes = 2, .address = 8, .step_id = -1,
                            .context = 13};
    struct snapshot zero = {0};
    snapshot_columns_append_sparse(&columns, &full);
    snapshot_columns_append_sparse(&columns, &zero);
    assert_true(snapshot_columns_grow_zeroed(&columns, 5));
    assert_true(snapshot_columns_grow_zeroed(&columns, 3)); /* room enough: nothing to do */
    assert_int_equal(columns.capacity, 5);
    snapshot_columns_append_sparse(&columns, &full);
    snapshot_columns_append_sparse(&columns, &zero);
    snapshot_columns_append_sparse(&columns, &full);
    assert_int_equal(columns.count, 5);
    for (size_t i = 0; i < 5; i++) {
        struct snapshot out;
        snapshot_columns_get(&columns, i, &out);
        const struct snapshot *want = i % 2 ? &zero : &full;
        assert_true(out.time_ps == want->time_ps && out.heap_bytes == want->heap_bytes &&
                    out.address == want->address && out.step_id == want->step_id &&
                    out.context == want->context && out.stack_bytes == 0 &&
                    out.requested_bytes == 0);
    }
    snapshot_columns_free(&columns);
}

/* Omitted columns cost nothing and read as their rule says (the step
 * none, the allocation bytes the requested ones), dense or sparse; they
 * can be omitted only before the columns have room. */
static void test_omitted_columns(void **state)
{
    (void)state;
    struct snapshot in = {.requested_bytes = 6, .allocation_bytes = 7, .step_id = 5,
                          .heap_bytes = 2};
    for (int sparse = 0; sparse < 2; sparse++) {
        struct snapshot_columns columns = {0};
        assert_true(snapshot_columns_omit(&columns, SNAPSHOT_OMIT_STEP_ID |
                                                        SNAPSHOT_OMIT_ALLOCATION_BYTES));
        if (sparse) {
            assert_true(snapshot_columns_reserve_zeroed(&columns, 4));
            snapshot_columns_append_sparse(&columns, &in);
            assert_true(snapshot_columns_grow_zeroed(&columns, 8));
        } else {
            assert_true(snapshot_columns_append(&columns, &in));
        }
        assert_false(snapshot_columns_omit(&columns, SNAPSHOT_OMIT_STEP_ID));
        assert_null(columns.step_id);
        assert_null(columns.allocation_bytes);
        struct snapshot out;
        snapshot_columns_get(&columns, 0, &out);
        assert_int_equal(out.step_id, -1);
        assert_int_equal(out.allocation_bytes, 6);
        assert_int_equal(out.heap_bytes, 2);
        assert_int_equal(snapshot_columns_step_id(&columns, 0), -1);
        assert_int_equal(snapshot_columns_allocation_bytes(&columns, 0), 6);
        snapshot_columns_fit(&columns);
        snapshot_columns_free(&columns);
    }
}

/* Without the free and peak columns: free is the reserved bytes of the
 * last change less the memory in use (never negative), the peak the
 * running maximum from the floor, read at any snapshot (across the
 * marks' spans, and before marks are made); a copy reads alike. */
static void test_free_and_peak_omitted(void **state)
{
    (void)state;
    enum { COUNT = 3 * SNAPSHOT_PEAK_SPAN + 5 };
    struct snapshot_columns columns = {0};
    assert_true(snapshot_columns_omit(&columns, SNAPSHOT_OMIT_FREE_BYTES |
                                                    SNAPSHOT_OMIT_PEAK_BYTES_IN_USE));
    assert_true(snapshot_columns_reserve_zeroed(&columns, COUNT));
    int64_t *heap = calloc(COUNT, sizeof *heap);
    assert_non_null(heap);
    for (size_t i = 0; i < COUNT; i++) {
        heap[i] = (int64_t)((i * 7919) % 5000); /* up and down */
        struct snapshot in = {.heap_bytes = heap[i], .free_bytes = 99, .peak_bytes_in_use = 99};
        snapshot_columns_append_sparse(&columns, &in);
        if (i == 0 || i == 2000)
            assert_true(snapshot_columns_reserved_change(&columns, i, i == 0 ? 1000 : 9000));
    }
    assert_true(snapshot_columns_reserved_change(&columns, 2000, 8000)); /* replaces */
    assert_null(columns.free_bytes);
    assert_null(columns.peak_bytes_in_use);
    assert_int_equal(columns.reserved_change_count, 2);
    for (int marked = 0; marked < 2; marked++) {
        if (marked)
            assert_true(snapshot_columns_mark_peaks(&columns, 4000));
        else
            columns.peak_floor = 4000;
        struct snapshot_columns copy;
        assert_true(snapshot_columns_copy(&columns, &copy));
        int64_t peak = 4000;
        for (size_t i = 0; i < COUNT; i++) {
            peak = heap[i] > peak ? heap[i] : peak;
            int64_t room = (i < 2000 ? 1000 : 8000) - heap[i];
            struct snapshot out;
            snapshot_columns_get(&columns, i, &out);
            assert_int_equal(out.free_bytes, room > 0 ? room : 0);
            assert_int_equal(out.peak_bytes_in_use, peak);
            assert_int_equal(snapshot_columns_free_bytes(&copy, i), room > 0 ? room : 0);
            assert_int_equal(snapshot_columns_peak_bytes_in_use(&copy, i), peak);
        }
        snapshot_columns_free(&copy);
    }
    free(heap);
    snapshot_columns_free(&columns);
}

/* Narrowed requested bytes: 4 bytes each, the sizes of 4 GiB and more and
 * the negative ones kept aside, read back alike (appended, set out of
 * order, sparse and dense, copied), and as the allocation bytes. */
static void test_requested_narrowed(void **state)
{
    (void)state;
    static const int64_t sizes[] = {0, 512, (int64_t)UINT32_MAX - 1, (int64_t)UINT32_MAX,
                                    (int64_t)1 << 40, -7, 3, INT64_MAX};
    enum { COUNT = sizeof sizes / sizeof *sizes };
    for (int sparse = 0; sparse < 2; sparse++) {
        struct snapshot_columns columns = {0};
        assert_true(snapshot_columns_omit(&columns, SNAPSHOT_NARROW_REQUESTED_BYTES |
                                                        SNAPSHOT_OMIT_ALLOCATION_BYTES));
        if (sparse)
            assert_true(snapshot_columns_reserve_zeroed(&columns, 2));
        for (size_t i = 0; i < COUNT; i++) {
            struct snapshot in = {.requested_bytes = sizes[i], .heap_bytes = 1};
            if (sparse && columns.count == columns.capacity)
                assert_true(snapshot_columns_grow_zeroed(&columns, columns.capacity * 2));
            if (sparse)
                snapshot_columns_append_sparse(&columns, &in);
            else
                assert_true(snapshot_columns_append(&columns, &in));
        }
        assert_null(columns.requested_bytes);
        assert_non_null(columns.requested_narrow);
        assert_int_equal(columns.requested_wide_count, 4);
        /* Set out of order: a wide value before the others, one replaced. */
        struct snapshot wide = {.requested_bytes = (int64_t)1 << 33};
        snapshot_columns_set(&columns, 1, &wide);
        wide.requested_bytes = -1;
        snapshot_columns_set(&columns, 4, &wide);
        snapshot_columns_fit(&columns);
        struct snapshot_columns copy;
        assert_true(snapshot_columns_copy(&columns, &copy));
        for (size_t i = 0; i < COUNT; i++) {
            int64_t want = i == 1 ? (int64_t)1 << 33 : i == 4 ? -1 : sizes[i];
            struct snapshot out;
            snapshot_columns_get(&columns, i, &out);
            assert_int_equal(out.requested_bytes, want);
            assert_int_equal(out.allocation_bytes, want);
            assert_int_equal(snapshot_columns_requested_bytes(&copy, i), want);
        }
        snapshot_columns_free(&copy);
        snapshot_columns_free(&columns);
    }
}

/* The op name and site keyed as a pair: 4 bytes a snapshot, the pairs
 * kept once, read back alike (sparse and dense, set, appended again after
 * the columns were fitted, copied); none and none read as zeros. */
static void test_op_name_and_site_keyed(void **state)
{
    (void)state;
    static const uint32_t ops[] = {0, 5, 5, 7, 0, 5, 9};
    static const uint32_t sites[] = {0, 1, 1, 1, 3, 1, 0};
    enum { COUNT = sizeof ops / sizeof *ops };
    for (int sparse = 0; sparse < 2; sparse++) {
        struct snapshot_columns columns = {0};
        assert_true(snapshot_columns_omit(&columns, SNAPSHOT_KEY_OP_NAME_AND_SITE));
        if (sparse)
            assert_true(snapshot_columns_reserve_zeroed(&columns, COUNT + 1));
        for (size_t i = 0; i < COUNT; i++) {
            struct snapshot in = {.op_name = ops[i], .site = sites[i], .heap_bytes = 1};
            if (sparse)
                snapshot_columns_append_sparse(&columns, &in);
            else
                assert_true(snapshot_columns_append(&columns, &in));
        }
        assert_true(snapshot_columns_enable_site(&columns));
        assert_null(columns.op_name);
        assert_null(columns.site);
        assert_int_equal(columns.keyed_count, 5); /* none, (5,1), (7,1), (0,3), (9,0) */
        struct snapshot other = {.op_name = 7, .site = 2};
        snapshot_columns_set(&columns, 0, &other);
        if (!sparse) {
            snapshot_columns_fit(&columns);
            assert_null(columns.key_map);
            assert_true(snapshot_columns_append(&columns, &other)); /* the map made again */
        }
        assert_false(columns.lost);
        struct snapshot_columns copy;
        assert_true(snapshot_columns_copy(&columns, &copy));
        for (size_t i = 0; i < columns.count; i++) {
            bool changed = i == 0 || i == COUNT;
            uint32_t op = changed ? 7 : ops[i], site = changed ? 2 : sites[i];
            struct snapshot out;
            snapshot_columns_get(&columns, i, &out);
            assert_int_equal(out.op_name, op);
            assert_int_equal(out.site, site);
            assert_int_equal(snapshot_columns_op_name(&copy, i), op);
            assert_int_equal(snapshot_columns_site(&copy, i), site);
        }
        assert_int_equal(columns.keyed_count, 6);
        snapshot_columns_free(&copy);
        snapshot_columns_free(&columns);
    }
}

/* Addresses as keys into the distinct ones: 4 bytes a snapshot, each
 * address kept once, read back alike (sparse and dense, set, appended
 * again after the columns were fitted, copied); 0 reads as zeros. */
static void test_address_indexed(void **state)
{
    (void)state;
    static const uint64_t addresses[] = {0, 0x7f0000000200, 0x7f0000000200, UINT64_MAX, 0, 5};
    enum { COUNT = sizeof addresses / sizeof *addresses };
    for (int sparse = 0; sparse < 2; sparse++) {
        struct snapshot_columns columns = {0};
        assert_true(snapshot_columns_omit(&columns, SNAPSHOT_INDEX_ADDRESS));
        if (sparse)
            assert_true(snapshot_columns_reserve_zeroed(&columns, COUNT + 1));
        for (size_t i = 0; i < COUNT; i++) {
            struct snapshot in = {.address = addresses[i], .heap_bytes = 1};
            if (sparse)
                snapshot_columns_append_sparse(&columns, &in);
            else
                assert_true(snapshot_columns_append(&columns, &in));
        }
        assert_null(columns.address);
        assert_int_equal(columns.address_count, 4); /* 0, 0x7f..200, max, 5 */
        struct snapshot other = {.address = 77};
        snapshot_columns_set(&columns, 0, &other);
        if (!sparse) {
            snapshot_columns_fit(&columns);
            assert_null(columns.address_map);
            assert_true(snapshot_columns_append(&columns, &other)); /* the map made again */
        }
        assert_false(columns.lost);
        assert_int_equal(columns.address_count, 5);
        struct snapshot_columns copy;
        assert_true(snapshot_columns_copy(&columns, &copy));
        for (size_t i = 0; i < columns.count; i++) {
            uint64_t want = i == 0 || i == COUNT ? 77 : addresses[i];
            struct snapshot out;
            snapshot_columns_get(&columns, i, &out);
            assert_true(out.address == want);
            assert_true(snapshot_columns_address(&copy, i) == want);
        }
        snapshot_columns_free(&copy);
        snapshot_columns_free(&columns);
    }
}

static void test_activity_names(void **state)
{
    (void)state;
    assert_string_equal(memory_activity_name(MEMORY_ACTIVITY_ALLOCATION), "ALLOCATION");
    assert_string_equal(memory_activity_name(MEMORY_ACTIVITY_DEALLOCATION), "DEALLOCATION");
    assert_string_equal(memory_activity_name(77), "UNKNOWN_ACTIVITY");
    assert_string_equal(memory_activity_label(MEMORY_ACTIVITY_RESERVATION), "reservation");
    assert_string_equal(memory_activity_label(-5), "unknown");
}

/* The context column in runs reads as the column did, copies, and is
 * kept where runs would not save room. */
static void test_context_runs(void **state)
{
    (void)state;
    struct snapshot_columns columns = {0};
    assert_true(snapshot_columns_enable_context(&columns));
    size_t count = 1000;
    for (size_t i = 0; i < count; i++) {
        struct snapshot snapshot = {.time_ps = (int64_t)i, .step_id = -1,
                                    .context = (uint32_t)(i / 100 % 3)};
        assert_true(snapshot_columns_append(&columns, &snapshot));
    }
    snapshot_columns_fit(&columns);
    assert_true(snapshot_columns_compact_context(&columns));
    assert_null(columns.context);
    assert_non_null(columns.context_runs);
    assert_int_equal(columns.context_run_count, 10);
    assert_true(snapshot_columns_has_context(&columns));
    struct snapshot_columns copy;
    assert_true(snapshot_columns_copy(&columns, &copy));
    for (size_t i = 0; i < count; i++) {
        struct snapshot out;
        snapshot_columns_get(&columns, i, &out);
        assert_int_equal(out.context, i / 100 % 3);
        assert_int_equal(snapshot_columns_context(&copy, i), i / 100 % 3);
    }
    /* From the last run found: forward by small and large gaps, back, to
     * the ends, and from a run past the last. */
    static const size_t visits[] = {0, 1, 99, 100, 101, 350, 351, 999, 998, 5, 600, 999, 0, 450};
    size_t run = 0;
    for (size_t k = 0; k < sizeof visits / sizeof visits[0]; k++)
        assert_int_equal(snapshot_columns_context_from(&columns, visits[k], &run),
                         visits[k] / 100 % 3);
    run = 1000;
    assert_int_equal(snapshot_columns_context_from(&columns, 250, &run), 2);
    for (size_t i = 0, step = 1; i < count; i += step, step = step * 3 % 17 + 1)
        assert_int_equal(snapshot_columns_context_from(&columns, i, &run), i / 100 % 3);
    snapshot_columns_free(&copy);
    snapshot_columns_free(&columns);
    /* A context that changes at every snapshot: the column stays. */
    assert_true(snapshot_columns_enable_context(&columns));
    for (size_t i = 0; i < 10; i++) {
        struct snapshot snapshot = {.step_id = -1, .context = (uint32_t)i};
        assert_true(snapshot_columns_append(&columns, &snapshot));
    }
    assert_true(snapshot_columns_compact_context(&columns));
    assert_non_null(columns.context);
    assert_null(columns.context_runs);
    assert_int_equal(snapshot_columns_context(&columns, 7), 7);
    snapshot_columns_free(&columns);
    /* No context at all: the empty string. */
    assert_false(snapshot_columns_has_context(&columns));
    assert_int_equal(snapshot_columns_context(&columns, 0), STRING_ID_EMPTY);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version0_timeline_and_rows),
        cmocka_unit_test(test_version1_rows_point_into_targets),
        cmocka_unit_test(test_rows_that_point_nowhere_stay_unresolved),
        cmocka_unit_test(test_unsorted_timeline_sorted_stably),
        cmocka_unit_test(test_memory_ids_order_allocators),
        cmocka_unit_test(test_allocators_named_apart_after_a_nul),
        cmocka_unit_test(test_repeated_key_merges),
        cmocka_unit_test(test_repeated_map_entry_last_wins),
        cmocka_unit_test(test_builder_without_a_draft),
        cmocka_unit_test(test_summary_from_file_kept),
        cmocka_unit_test(test_missing_summary_derived_like_xprof),
        cmocka_unit_test(test_hostile_sums_do_not_overflow),
        cmocka_unit_test(test_columns_round_trip_every_field),
        cmocka_unit_test(test_free_and_peak_omitted),
        cmocka_unit_test(test_requested_narrowed),
        cmocka_unit_test(test_op_name_and_site_keyed),
        cmocka_unit_test(test_address_indexed),
        cmocka_unit_test(test_sparse_columns_read_back),
        cmocka_unit_test(test_sparse_columns_grow),
        cmocka_unit_test(test_omitted_columns),
        cmocka_unit_test(test_activity_names),
        cmocka_unit_test(test_context_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
