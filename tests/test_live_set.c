/* Tests of model/query/live_set: the live allocations at any time and what
 * grew, against the definition read literally (a brute-force replay from
 * the start for every probe) on hand-made and generated profiles. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "model/query/live_set.h"
#include "tests/live_brute_force.h"
#include "tests/profile_maker.h"
#include "tests/test_support.h"

#define ALLOC MEMORY_ACTIVITY_ALLOCATION
#define FREE MEMORY_ACTIVITY_DEALLOCATION

/* ---- hand-made timelines ---- */

/* Events at 10..60 ps: an unmatched free, equal times, a reused address,
 * two equal allocations, memory from before the profile and stack. */
static const struct made_event hand_made[] = {
    {.time_ps = 10, .activity = ALLOC, .address = 0x100, .allocation_bytes = 64, .op = "a",
     .step_id = 1, .heap_bytes = 1064, .stack_bytes = 8},
    {.time_ps = 20, .activity = ALLOC, .address = 0x200, .allocation_bytes = 32, .op = "b",
     .step_id = 1, .heap_bytes = 1096, .stack_bytes = 8},
    {.time_ps = 20, .activity = FREE, .address = 0x999, .allocation_bytes = 500, .op = "gone",
     .step_id = 1, .heap_bytes = 596, .stack_bytes = 8},
    {.time_ps = 30, .activity = FREE, .address = 0x100, .allocation_bytes = 64, .op = "a",
     .step_id = 2, .heap_bytes = 532},
    {.time_ps = 30, .activity = ALLOC, .address = 0x100, .allocation_bytes = 64, .op = "c",
     .step_id = 2, .heap_bytes = 596},
    {.time_ps = 40, .activity = ALLOC, .address = 0x300, .allocation_bytes = 64, .op = "c",
     .step_id = 2, .heap_bytes = 660},
    {.time_ps = 50, .activity = MEMORY_ACTIVITY_RESERVATION, .address = 0x300, .step_id = 2,
     .heap_bytes = 660},
    {.time_ps = 60, .activity = ALLOC, .address = 0x300, .allocation_bytes = 16, .op = "d",
     .step_id = 3, .heap_bytes = 612},
};

static struct profile *hand_made_profile(void)
{
    struct profile *profile = profile_maker_new();
    struct allocator *allocator = profile_maker_allocator(profile, "GPU_0_bfc");
    for (size_t i = 0; i < sizeof hand_made / sizeof hand_made[0]; i++)
        profile_maker_append(profile, allocator, &hand_made[i], false);
    profile_maker_finish(profile);
    return profile;
}

static const char *op_of(const struct profile *profile, const struct live_rows *rows, size_t i)
{
    return profile_text(profile, rows->rows[i].op_name);
}

static void test_hand_made_times(void **state)
{
    (void)state;
    struct profile *profile = hand_made_profile();
    struct live_index *index;
    assert_int_equal(live_index_build(profile, &profile->allocators[0], 2, &index), LIVE_OK);
    struct live_rows rows = {0};

    /* Before the first snapshot: nothing, not even special rows. */
    assert_int_equal(live_index_rows_at(index, 9, &rows), LIVE_OK);
    assert_int_equal(rows.count, 0);
    assert_true(rows.as_of_index == -1);

    /* At 10: "a", 1000 bytes from before the profile, 8 of stack. */
    assert_int_equal(live_index_rows_at(index, 10, &rows), LIVE_OK);
    assert_int_equal(rows.count, 3);
    assert_string_equal(op_of(profile, &rows, 0), "allocated before the profile");
    assert_true(rows.rows[0].allocation_bytes == 1000);
    assert_int_equal(rows.rows[0].origin, ROW_FROM_SPECIAL);
    assert_true(rows.rows[0].snapshot_index == -1 && rows.rows[0].special_index == 0);
    assert_string_equal(profile_text(profile, rows.rows[0].region_type), "persist/dynamic");
    assert_string_equal(op_of(profile, &rows, 1), "a");
    assert_true(rows.rows[1].time_ps == 10 && rows.rows[1].has_time);
    assert_string_equal(op_of(profile, &rows, 2), "stack");
    assert_true(rows.rows[2].snapshot_index == -2 && rows.rows[2].special_index == 1);
    assert_true(rows.total_bytes == 1072);

    /* At 20 both snapshots of time 20 count; the unmatched free of 500
     * bytes removes nothing, so the heap (596) is a, b and 500 bytes from
     * before the profile. */
    assert_int_equal(live_index_rows_at(index, 20, &rows), LIVE_OK);
    assert_int_equal(rows.count, 4);
    assert_true(rows.rows[0].allocation_bytes == 500);
    assert_int_equal(rows.allocations, 2);
    assert_true(rows.as_of_index == 2);

    /* At 45: 0x100 was freed and allocated again as "c"; two "c" of 64
     * bytes merge, keeping the later one; no stack now, and of the heap
     * (660 = 32 + 64 + 64 + 500) 500 bytes still come from before. */
    assert_int_equal(live_index_rows_at(index, 45, &rows), LIVE_OK);
    assert_int_equal(rows.count, 3);
    assert_string_equal(op_of(profile, &rows, 1), "c");
    assert_true(rows.rows[1].occurrences == 2);
    assert_true(rows.rows[1].snapshot_index == 5 && rows.rows[1].time_ps == 40);
    assert_string_equal(op_of(profile, &rows, 2), "b");

    /* At 60 the address of a live "c" is allocated again without a free:
     * the newer allocation replaces it. A reservation changed nothing. */
    size_t *live, count;
    assert_int_equal(live_index_allocations_at(index, 60, &live, &count), LIVE_OK);
    assert_int_equal(count, 3);
    assert_int_equal(live[0], 1);
    assert_int_equal(live[1], 4);
    assert_int_equal(live[2], 7);
    free(live);

    /* What grew since 25: "c" of 30 and "d" of 60 (which replaced the
     * "c" of 40), not "b" of 20. */
    assert_int_equal(live_index_rows_grown(index, 25, 60, &rows), LIVE_OK);
    assert_int_equal(rows.count, 2);
    assert_string_equal(op_of(profile, &rows, 0), "c");
    assert_string_equal(op_of(profile, &rows, 1), "d");
    assert_true(rows.total_bytes == 64 + 16);
    /* Strictly after: since 30 leaves out the "c" allocated at 30. */
    assert_int_equal(live_index_rows_grown(index, 30, 60, &rows), LIVE_OK);
    assert_int_equal(rows.count, 1);
    assert_true(rows.rows[0].occurrences == 1 && rows.rows[0].snapshot_index == 7);
    assert_int_equal(live_index_rows_grown(index, 60, 60, &rows), LIVE_OK);
    assert_int_equal(rows.count, 0);
    assert_int_equal(live_index_rows_grown(index, 70, 60, &rows), LIVE_OK);
    assert_int_equal(rows.count, 0);

    live_rows_free(&rows);
    live_index_free(index);
    profile_free(profile);
}

static void test_hand_made_against_brute_force(void **state)
{
    (void)state;
    struct profile *profile = hand_made_profile();
    check_timeline_against_brute_force(profile, &profile->allocators[0]);
    profile_free(profile);
}

static void test_empty_timeline(void **state)
{
    (void)state;
    struct profile *profile = profile_maker_new();
    profile_maker_allocator(profile, "empty");
    profile_maker_finish(profile);
    struct live_index *index;
    assert_int_equal(live_index_build(profile, &profile->allocators[0], 0, &index), LIVE_OK);
    struct live_rows rows = {0};
    assert_int_equal(live_index_rows_at(index, 0, &rows), LIVE_OK);
    assert_int_equal(rows.count, 0);
    live_rows_free(&rows);
    live_index_free(index);
    profile_free(profile);
}

static void test_sampled_timeline_refused(void **state)
{
    (void)state;
    struct profile *profile = profile_maker_new();
    struct allocator *allocator = profile_maker_allocator(profile, "GPU_0_bfc");
    profile_maker_append(profile, allocator, &hand_made[0], true);
    profile_maker_finish(profile);
    assert_true(profile->allocators[0].timeline_sampled);
    struct live_index *index = (struct live_index *)1;
    assert_int_equal(live_index_build(profile, &profile->allocators[0], 0, &index),
                     LIVE_SAMPLED_TIMELINE);
    assert_null(index);
    assert_string_equal(live_status_message(LIVE_SAMPLED_TIMELINE),
                        "live allocations need the full timeline; this file keeps XProf's "
                        "1000-snapshot sample (open the run's .xplane.pb instead)");
    struct live_index_cache cache;
    live_index_cache_init(&cache, profile);
    assert_int_equal(live_index_cache_get(&cache, 0, &index), LIVE_SAMPLED_TIMELINE);
    assert_null(index);
    live_index_cache_free(&cache);
    profile_free(profile);
}

/* A format without a timeline (Skyline) has no time to ask about. */
static void test_no_timeline_refused(void **state)
{
    (void)state;
    struct profile *profile = hand_made_profile();
    profile->allocators[0].timeline_kind = TIMELINE_NONE;
    struct live_index *index = (struct live_index *)1;
    assert_int_equal(live_index_build(profile, &profile->allocators[0], 0, &index),
                     LIVE_NO_TIMELINE);
    assert_null(index);
    assert_string_equal(live_status_message(LIVE_NO_TIMELINE),
                        "live allocations need a timeline; this report records none");
    profile_free(profile);
}

static void test_cache_builds_once(void **state)
{
    (void)state;
    struct profile *profile = hand_made_profile();
    struct live_index_cache cache;
    live_index_cache_init(&cache, profile);
    struct live_index *first, *again;
    assert_int_equal(live_index_cache_get(&cache, 0, &first), LIVE_OK);
    assert_int_equal(live_index_cache_get(&cache, 0, &again), LIVE_OK);
    assert_ptr_equal(first, again);
    live_index_cache_free(&cache);
    profile_free(profile);
}

/* ---- allocations live when the timeline begins ---- */

/* Four allocations live before the first snapshot (a PyTorch memory
 * snapshot's unmatched frees and ghost blocks), two of one key, then a
 * timeline that frees one, reuses its address, allocates over another
 * without a free and frees a third; the heap is exactly what is live. */
static const struct made_event initial_made[] = {
    {.activity = ALLOC, .address = 0x500, .allocation_bytes = 100, .op = "<before the trace>"},
    {.activity = ALLOC, .address = 0x600, .allocation_bytes = 200, .op = "<before the trace>"},
    {.activity = ALLOC, .address = 0x700, .allocation_bytes = 50, .op = "<before the trace>"},
    {.activity = ALLOC, .address = 0x800, .allocation_bytes = 100, .op = "<before the trace>"},
};
static const char *const initial_locations[] = {"x.py:1", "y.py:2", "z.py:3", "x.py:1"};

static const struct made_event after_initial[] = {
    {.time_ps = 10, .activity = ALLOC, .address = 0x100, .allocation_bytes = 64, .op = "a",
     .heap_bytes = 514},
    {.time_ps = 20, .activity = FREE, .address = 0x600, .allocation_bytes = 200, .op = "f",
     .heap_bytes = 314},
    {.time_ps = 30, .activity = ALLOC, .address = 0x600, .allocation_bytes = 32, .op = "reuse",
     .heap_bytes = 346},
    {.time_ps = 40, .activity = ALLOC, .address = 0x700, .allocation_bytes = 16, .op = "over",
     .heap_bytes = 312},
    {.time_ps = 50, .activity = FREE, .address = 0x500, .allocation_bytes = 100, .op = "f",
     .heap_bytes = 212},
};

static struct profile *initial_profile(bool seeded)
{
    struct profile *profile = profile_maker_new();
    struct allocator *allocator = profile_maker_allocator(profile, "cuda:0");
    if (seeded)
        profile_maker_set_initial(profile, allocator, initial_made, initial_locations, 4);
    for (size_t i = 0; i < sizeof after_initial / sizeof after_initial[0]; i++)
        profile_maker_append(profile, allocator, &after_initial[i], false);
    profile_maker_live_rows(profile, allocator);
    profile_maker_finish(profile);
    return profile;
}

static bool has_row_named(const struct profile *profile, const struct live_rows *rows,
                          const char *name)
{
    for (size_t i = 0; i < rows->count; i++)
        if (strcmp(op_of(profile, rows, i), name) == 0)
            return true;
    return false;
}

static void test_initial_allocations(void **state)
{
    (void)state;
    struct profile *profile = initial_profile(true);
    const struct allocator *allocator = &profile->allocators[0];
    assert_int_equal(allocator->initial_count, 4);
    struct live_index *index;
    assert_int_equal(live_index_build(profile, allocator, 2, &index), LIVE_OK);
    struct live_rows rows = {0};

    /* Before the first snapshot: the four, the two alike merged (the
     * later one speaks), with their addresses and locations, no time. */
    assert_int_equal(live_index_rows_at(index, 5, &rows), LIVE_OK);
    assert_int_equal(rows.count, 3);
    assert_int_equal(rows.allocations, 4);
    assert_true(rows.total_bytes == 450);
    assert_true(rows.rows[0].allocation_bytes == 200 && rows.rows[0].address == 0x600);
    assert_true(rows.rows[1].allocation_bytes == 100 && rows.rows[1].occurrences == 2);
    assert_true(rows.rows[1].address == 0x800 && rows.rows[1].special_index == 3);
    assert_int_equal(rows.rows[1].origin, ROW_FROM_SPECIAL);
    assert_true(rows.rows[1].snapshot_index == -1 && !rows.rows[1].has_time);
    assert_string_equal(profile_text(profile, rows.rows[1].location), "x.py:1");
    assert_string_equal(profile_text(profile, rows.rows[1].stack), "x.py:1");
    assert_string_equal(op_of(profile, &rows, 2), "<before the trace>");

    /* At 10 the heap is all explained: no "allocated before the profile". */
    assert_int_equal(live_index_rows_at(index, 10, &rows), LIVE_OK);
    assert_int_equal(rows.count, 4);
    assert_true(rows.total_bytes == 514);
    assert_false(has_row_named(profile, &rows, LIVE_BEFORE_PROFILE_NAME));

    /* A free at 0x600 ends the initial allocation there; the address
     * reused at 30 is the new one's; at 40 "over" replaces the one at
     * 0x700 without a free; at 50 the free of 0x500 leaves 0x800 alone. */
    assert_int_equal(live_index_rows_at(index, 20, &rows), LIVE_OK);
    assert_true(rows.total_bytes == 314 && rows.allocations == 4);
    assert_int_equal(live_index_rows_at(index, 50, &rows), LIVE_OK);
    assert_true(rows.total_bytes == 212);
    assert_int_equal(rows.count, 4);
    assert_true(rows.rows[0].allocation_bytes == 100 && rows.rows[0].occurrences == 1);
    assert_true(rows.rows[0].address == 0x800);
    assert_string_equal(op_of(profile, &rows, 1), "a");
    assert_string_equal(op_of(profile, &rows, 2), "reuse");
    assert_string_equal(op_of(profile, &rows, 3), "over");
    assert_false(has_row_named(profile, &rows, LIVE_BEFORE_PROFILE_NAME));

    /* Initial allocations never grew: since before the first snapshot,
     * only what the timeline allocated. */
    assert_int_equal(live_index_rows_grown(index, 0, 50, &rows), LIVE_OK);
    assert_int_equal(rows.count, 3);
    assert_true(rows.total_bytes == 64 + 32 + 16);

    /* The numbers: initial allocation 3 (0x800), then snapshots 0, 2, 3
     * as 4 + index. */
    size_t *live, count;
    assert_int_equal(live_index_allocations_at(index, 50, &live, &count), LIVE_OK);
    assert_int_equal(count, 4);
    assert_int_equal(live[0], 3);
    assert_int_equal(live[1], 4);
    assert_int_equal(live[2], 6);
    assert_int_equal(live[3], 7);
    free(live);

    /* The table at the peak (10: 514 bytes) is the live set there, made
     * by the builder's finish. */
    assert_true(allocator->summary.peak_time_ps == 10);
    assert_int_equal(allocator->rows_kind, ALLOCATOR_ROWS_LIVE);
    assert_int_equal(live_index_rows_at(index, 10, &rows), LIVE_OK);
    assert_int_equal(allocator->row_count, rows.count);
    assert_int_equal(allocator->live_allocations, 5);
    for (size_t r = 0; r < rows.count; r++)
        assert_memory_equal(&allocator->rows[r], &rows.rows[r], sizeof rows.rows[r]);
    live_rows_free(&rows);
    live_index_free(index);
    profile_free(profile);
}

/* The same timeline without them: the memory from before is one lump,
 * as for every format that does not know it one by one. */
static void test_without_initial_allocations(void **state)
{
    (void)state;
    struct profile *profile = initial_profile(false);
    struct live_rows rows = {0};
    assert_int_equal(live_rows_at_once(profile, &profile->allocators[0], 10, &rows), LIVE_OK);
    assert_int_equal(rows.count, 2);
    assert_string_equal(op_of(profile, &rows, 0), LIVE_BEFORE_PROFILE_NAME);
    assert_true(rows.rows[0].allocation_bytes == 450);
    live_rows_free(&rows);
    profile_free(profile);
}

static void test_initial_against_brute_force(void **state)
{
    (void)state;
    struct profile *profile = initial_profile(true);
    check_timeline_against_brute_force(profile, &profile->allocators[0]);
    profile_free(profile);
}

/* ---- generated profiles ---- */

#define GENERATED_ARGUMENTS "--version 0 --snapshots 6000 --allocators 3 --steps 6 --seed 11 --unsorted"

static void test_generated_against_brute_force(void **state)
{
    (void)state;
    struct profile *profile =
        profile_maker_generate("live.v0.pb", "--format pb " GENERATED_ARGUMENTS);
    if (!profile)
        TEST_SKIP("MEMTOP_BUILDDIR is not set (run through make check)");
    assert_int_equal(profile->allocator_count, 3);
    for (size_t i = 0; i < profile->allocator_count; i++)
        check_timeline_against_brute_force(profile, &profile->allocators[i]);
    profile_free(profile);
}

/* One replay without an index (live_rows_at_once, the builder's table at
 * the peak, issue 22) gives the index's rows at any time, and the table at
 * the peak is those rows at the peak's time. */
static void test_once_matches_the_index(void **state)
{
    (void)state;
    struct profile *profile =
        profile_maker_generate("once.v0.pb", "--format pb " GENERATED_ARGUMENTS);
    if (!profile)
        TEST_SKIP("MEMTOP_BUILDDIR is not set (run through make check)");
    for (size_t a = 0; a < profile->allocator_count; a++) {
        const struct allocator *allocator = &profile->allocators[a];
        const struct snapshot_columns *timeline = &allocator->timeline;
        struct live_index *index = NULL;
        assert_int_equal(live_index_build(profile, allocator, 64, &index), LIVE_OK);
        struct live_rows by_index = {0}, once = {0};
        for (size_t q = 0; q <= 8; q++) {
            int64_t time = q == 8 ? allocator->summary.peak_time_ps
                                  : snapshot_columns_time(timeline, timeline->count * q / 8);
            assert_int_equal(live_index_rows_at(index, time, &by_index), LIVE_OK);
            assert_int_equal(live_rows_at_once(profile, allocator, time, &once), LIVE_OK);
            assert_int_equal(once.count, by_index.count);
            assert_int_equal(once.allocations, by_index.allocations);
            assert_int_equal(once.total_bytes, by_index.total_bytes);
            for (size_t r = 0; r < once.count; r++)
                assert_memory_equal(&once.rows[r], &by_index.rows[r], sizeof once.rows[r]);
        }
        /* The table at the peak is the last query's rows. */
        assert_int_equal(allocator->rows_kind, ALLOCATOR_ROWS_LIVE);
        assert_int_equal(allocator->row_count, once.count);
        assert_int_equal(allocator->live_allocations, once.allocations);
        for (size_t r = 0; r < once.count; r++)
            assert_memory_equal(&allocator->rows[r], &once.rows[r], sizeof once.rows[r]);
        live_rows_free(&by_index);
        live_rows_free(&once);
        live_index_free(index);
    }
    profile_free(profile);
}

/* Whether some DEALLOCATION frees an address never allocated before it. */
static bool has_unmatched_free(const struct snapshot_columns *timeline)
{
    for (size_t i = 0; i < timeline->count; i++) {
        if (timeline->activity[i] != FREE)
            continue;
        bool matched = false;
        uint64_t address = snapshot_columns_address(timeline, i);
        for (size_t j = 0; j < i && !matched; j++)
            matched = timeline->activity[j] == ALLOC &&
                      snapshot_columns_address(timeline, j) == address;
        if (!matched)
            return true;
    }
    return false;
}

/* A window that opens late (frees of allocations made before it, memory
 * allocated before it) with times on a coarse grid (many equal times). */
static void test_late_window_against_brute_force(void **state)
{
    (void)state;
    struct profile *source =
        profile_maker_generate("live-window.v0.pb", "--format pb " GENERATED_ARGUMENTS);
    if (!source)
        TEST_SKIP("MEMTOP_BUILDDIR is not set (run through make check)");
    const struct snapshot_columns *full = &source->allocators[0].timeline;
    int64_t grid = (snapshot_columns_time(full, full->count - 1) - snapshot_columns_time(full, 0)) /
                   (int64_t)full->count * 4;
    struct profile *profile = profile_maker_window(source, 0, full->count * 2 / 5, grid);
    const struct allocator *allocator = &profile->allocators[0];
    const struct snapshot_columns *timeline = &allocator->timeline;
    size_t equal_times = 0;
    for (size_t i = 1; i < timeline->count; i++)
        equal_times += snapshot_columns_time(timeline, i) == snapshot_columns_time(timeline, i - 1);
    assert_true(equal_times > timeline->count / 4);
    assert_true(has_unmatched_free(timeline));

    check_timeline_against_brute_force(profile, allocator);

    /* Memory from before the window shows as its own row. */
    struct live_index *index;
    assert_int_equal(live_index_build(profile, allocator, 0, &index), LIVE_OK);
    struct live_rows rows = {0};
    assert_int_equal(
        live_index_rows_at(index, snapshot_columns_time(timeline, timeline->count / 2), &rows),
        LIVE_OK);
    bool before = false;
    for (size_t i = 0; i < rows.count; i++)
        before |= strcmp(op_of(profile, &rows, i), "allocated before the profile") == 0;
    assert_true(before);
    live_rows_free(&rows);
    live_index_free(index);
    profile_free(profile);
    profile_free(source);
}

/* A window seeded with what was live when it opens answers as the whole
 * timeline does at every time in it: the same rows (bytes, op,
 * occurrences, address), the same totals and the same memory from
 * before the profile; and it passes the brute force. */
static void test_seeded_window_matches_the_whole(void **state)
{
    (void)state;
    struct profile *source =
        profile_maker_generate("live-seeded.v0.pb", "--format pb " GENERATED_ARGUMENTS);
    if (!source)
        TEST_SKIP("MEMTOP_BUILDDIR is not set (run through make check)");
    const struct snapshot_columns *full = &source->allocators[0].timeline;
    size_t first = full->count * 2 / 5;
    struct profile *profile = profile_maker_window_seeded(source, 0, first);
    const struct allocator *allocator = &profile->allocators[0];
    assert_true(allocator->initial_count > 10);
    check_timeline_against_brute_force(profile, allocator);

    struct live_index *whole, *window;
    assert_int_equal(live_index_build(source, &source->allocators[0], 0, &whole), LIVE_OK);
    assert_int_equal(live_index_build(profile, allocator, 97, &window), LIVE_OK);
    struct probes probes = probes_for(&allocator->timeline, window);
    struct live_rows a = {0}, b = {0};
    for (size_t p = 0; p < probes.count; p++) {
        if (probes.times[p] < snapshot_columns_time(&allocator->timeline, 0))
            continue; /* before the window: the whole knows more */
        assert_int_equal(live_index_rows_at(whole, probes.times[p], &a), LIVE_OK);
        assert_int_equal(live_index_rows_at(window, probes.times[p], &b), LIVE_OK);
        assert_int_equal(a.count, b.count);
        assert_int_equal(a.allocations, b.allocations);
        assert_true(a.total_bytes == b.total_bytes);
        for (size_t i = 0; i < a.count; i++) {
            const struct allocation_row *x = &a.rows[i], *y = &b.rows[i];
            assert_true(x->allocation_bytes == y->allocation_bytes);
            assert_true(x->occurrences == y->occurrences);
            assert_true(x->address == y->address);
            assert_string_equal(profile_text(source, x->op_name), profile_text(profile, y->op_name));
            assert_int_equal(x->origin == ROW_FROM_SNAPSHOT && x->snapshot_index < (int64_t)first,
                             y->origin == ROW_FROM_SPECIAL && y->address != 0);
        }
    }
    free(probes.times);
    live_rows_free(&a);
    live_rows_free(&b);
    live_index_free(whole);
    live_index_free(window);
    profile_free(profile);
    profile_free(source);
}

/* The same run as protobuf and as JSON answers the same, row for row. */
static void test_protobuf_and_json_agree(void **state)
{
    (void)state;
    struct profile *pb = profile_maker_generate("agree.v0.pb", "--format pb " GENERATED_ARGUMENTS);
    if (!pb)
        TEST_SKIP("MEMTOP_BUILDDIR is not set (run through make check)");
    struct profile *json =
        profile_maker_generate("agree.v0.json", "--format json " GENERATED_ARGUMENTS);
    assert_int_equal(pb->allocator_count, json->allocator_count);
    struct live_rows from_pb = {0}, from_json = {0};
    for (size_t a = 0; a < pb->allocator_count; a++) {
        struct live_index *x, *y;
        assert_int_equal(live_index_build(pb, &pb->allocators[a], 0, &x), LIVE_OK);
        assert_int_equal(live_index_build(json, &json->allocators[a], 0, &y), LIVE_OK);
        struct probes probes = probes_for(&pb->allocators[a].timeline, x);
        for (size_t p = 0; p < probes.count; p++) {
            assert_int_equal(live_index_rows_at(x, probes.times[p], &from_pb), LIVE_OK);
            assert_int_equal(live_index_rows_at(y, probes.times[p], &from_json), LIVE_OK);
            assert_int_equal(from_pb.count, from_json.count);
            assert_true(from_pb.total_bytes == from_json.total_bytes);
            for (size_t i = 0; i < from_pb.count; i++) {
                const struct allocation_row *r = &from_pb.rows[i], *s = &from_json.rows[i];
                assert_true(r->snapshot_index == s->snapshot_index);
                assert_true(r->occurrences == s->occurrences);
                assert_true(r->allocation_bytes == s->allocation_bytes);
                assert_true(r->time_ps == s->time_ps);
                assert_string_equal(profile_text(pb, r->op_name), profile_text(json, s->op_name));
                assert_string_equal(profile_text(pb, r->tensor_shape),
                                    profile_text(json, s->tensor_shape));
            }
        }
        free(probes.times);
        live_index_free(x);
        live_index_free(y);
    }
    live_rows_free(&from_pb);
    live_rows_free(&from_json);
    profile_free(pb);
    profile_free(json);
}

static void test_version_1_refused(void **state)
{
    (void)state;
    struct profile *profile =
        profile_maker_generate("live.v1.pb", "--version 1 --snapshots 3000 --seed 5");
    if (!profile)
        TEST_SKIP("MEMTOP_BUILDDIR is not set (run through make check)");
    for (size_t a = 0; a < profile->allocator_count; a++) {
        struct live_index *index;
        assert_true(profile->allocators[a].timeline_sampled);
        assert_int_equal(live_index_build(profile, &profile->allocators[a], 0, &index),
                         LIVE_SAMPLED_TIMELINE);
    }
    profile_free(profile);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_made_times),
        cmocka_unit_test(test_hand_made_against_brute_force),
        cmocka_unit_test(test_empty_timeline),
        cmocka_unit_test(test_sampled_timeline_refused),
        cmocka_unit_test(test_no_timeline_refused),
        cmocka_unit_test(test_cache_builds_once),
        cmocka_unit_test(test_initial_allocations),
        cmocka_unit_test(test_without_initial_allocations),
        cmocka_unit_test(test_initial_against_brute_force),
        cmocka_unit_test(test_seeded_window_matches_the_whole),
        cmocka_unit_test(test_once_matches_the_index),
        cmocka_unit_test(test_generated_against_brute_force),
        cmocka_unit_test(test_late_window_against_brute_force),
        cmocka_unit_test(test_protobuf_and_json_agree),
        cmocka_unit_test(test_version_1_refused),
    };
    return cmocka_run_group_tests(tests, test_directory_create, test_directory_remove);
}
