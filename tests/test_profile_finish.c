/* test_profile_finish: the builder's last stage (model/profile_builder_finish.c)
 * on what a big loader hands it: allocation blocks in hash order sorted
 * by snapshot (indices past one radix digit and past 2^22), and several
 * allocators finished on threads (MEMTOP_TEST_FINISH_THREADS) the same as
 * on one, rows at the peak included. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "model/profile.h"
#include "model/profile_builder.h"
#include "model/string_table.h"
#include "tests/test_support.h"

/* An allocator `name` of `count` allocations (every third one freed
 * again by the next snapshot), its live rows asked for at the finish. */
static void add_allocator(struct profile_builder *builder, const char *name, size_t count,
                          uint64_t seed)
{
    size_t index;
    bool created;
    assert_true(profile_builder_allocator(builder, name, strlen(name), &index, &created));
    uint32_t op = string_table_intern(profile_builder_strings(builder), name, strlen(name));
    int64_t heap = 0;
    for (size_t i = 0; i < count; i++) {
        bool free_it = i % 3 == 2;
        uint64_t address = free_it ? 0x1000 + (i - 1) * 0x100 : 0x1000 + i * 0x100;
        int64_t size = (int64_t)((i * 7919 + seed) % 4096 + 1);
        if (free_it)
            size = (int64_t)(((i - 1) * 7919 + seed) % 4096 + 1);
        heap += free_it ? -size : size;
        struct snapshot snapshot = test_snapshot((int64_t)i + 1, heap);
        snapshot.activity = free_it ? MEMORY_ACTIVITY_DEALLOCATION : MEMORY_ACTIVITY_ALLOCATION;
        snapshot.requested_bytes = snapshot.allocation_bytes = size;
        snapshot.address = address;
        snapshot.op_name = op;
        assert_true(profile_builder_append_snapshot(builder, index, &snapshot));
    }
    /* The peak: a little after the middle (rows there differ from the end's). */
    struct allocator_summary summary = {.peak_time_ps = (int64_t)(count / 2 + 1)};
    profile_builder_set_summary(builder, index, &summary);
    profile_builder_make_live_rows(builder, index);
}

static void test_blocks_sorted_by_snapshot(void **state)
{
    (void)state;
    struct profile_builder builder;
    assert_true(profile_builder_init(&builder));
    add_allocator(&builder, "cuda:0", 3000, 1);
    /* Indices out of order, spread past 2^11 and 2^22 (three digits). */
    enum { BLOCKS = 5000 };
    struct allocation_block *blocks = malloc(BLOCKS * sizeof *blocks);
    assert_non_null(blocks);
    for (size_t i = 0; i < BLOCKS; i++) {
        size_t shuffled = (i * 2749) % BLOCKS; /* 2749 is prime to 5000 */
        blocks[i] = (struct allocation_block){shuffled * 1237 + (shuffled % 7), (int64_t)shuffled};
    }
    assert_true(profile_builder_set_allocation_blocks(&builder, 0, blocks, BLOCKS));
    free(blocks);
    struct profile *profile = profile_builder_finish(&builder);
    assert_non_null(profile);
    const struct allocator *allocator = &profile->allocators[0];
    assert_int_equal(allocator->allocation_block_count, BLOCKS);
    for (size_t i = 0; i < BLOCKS; i++) {
        assert_int_equal(allocator->allocation_blocks[i].snapshot_index, i * 1237 + (i % 7));
        assert_int_equal(allocator->allocation_blocks[i].block_bytes, (int64_t)i);
    }
    profile_free(profile);
}

static struct profile *three_allocators(void)
{
    struct profile_builder builder;
    assert_true(profile_builder_init(&builder));
    add_allocator(&builder, "cuda:0", 3000, 1);
    add_allocator(&builder, "cuda:1", 2000, 2);
    add_allocator(&builder, "cuda:2", 4000, 3);
    struct profile *profile = profile_builder_finish(&builder);
    assert_non_null(profile);
    return profile;
}

static void test_threads_finish_as_one_does(void **state)
{
    (void)state;
    unsetenv("MEMTOP_TEST_FINISH_THREADS");
    struct profile *one = three_allocators();
    setenv("MEMTOP_TEST_FINISH_THREADS", "1", 1);
    struct profile *threads = three_allocators();
    unsetenv("MEMTOP_TEST_FINISH_THREADS");
    assert_int_equal(one->allocator_count, 3);
    assert_int_equal(threads->allocator_count, 3);
    for (size_t a = 0; a < 3; a++) {
        const struct allocator *x = &one->allocators[a], *y = &threads->allocators[a];
        assert_non_null(y->timeline.index);
        assert_int_equal(x->summary.allocations, y->summary.allocations);
        assert_int_equal(x->summary.deallocations, y->summary.deallocations);
        assert_int_equal(y->summary.allocations, y->timeline.count - y->timeline.count / 3);
        assert_int_equal(x->rows_kind, ALLOCATOR_ROWS_LIVE);
        assert_int_equal(y->rows_kind, ALLOCATOR_ROWS_LIVE);
        assert_int_equal(x->live_allocations, y->live_allocations);
        assert_true(y->live_allocations > 0);
        assert_int_equal(x->row_count, y->row_count);
        for (size_t r = 0; r < x->row_count; r++) {
            assert_int_equal(x->rows[r].address, y->rows[r].address);
            assert_int_equal(x->rows[r].allocation_bytes, y->rows[r].allocation_bytes);
            assert_int_equal(x->rows[r].occurrences, y->rows[r].occurrences);
            assert_string_equal(profile_text(one, x->rows[r].op_name),
                                profile_text(threads, y->rows[r].op_name));
        }
    }
    profile_free(one);
    profile_free(threads);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blocks_sorted_by_snapshot),
        cmocka_unit_test(test_threads_finish_as_one_does),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
