/* test_torch_snapshot_peak: the table at the peak a PyTorch snapshot
 * opens on is the live set at the peak's time as the checkpointed index
 * answers it (model/query/live_set.h), row for row. The builder's finish
 * makes that table from what the trace's own replay found live at the
 * peak (ts_trace_peak_live: the allocations still open at the end, and
 * those ended after the peak) plus a replay of the initial allocations'
 * addresses, so these traces are made to try its edges: a few addresses
 * used again and again (an alloc at an address still open, frees of
 * allocations made before the trace, two of them at one address, ghost
 * blocks at addresses the trace also uses), entries at the peak's time
 * after it, and traces that end more allocations after the peak than
 * the replay keeps (the builder then replays every address itself).
 * Both devices of each file, on the replay inline and on its thread;
 * annotations and blocks, so that each row's context and block are
 * checked too. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/load.h"
#include "model/load_internal.h"
#include "model/profile.h"
#include "model/query/live_set.h"
#include "tests/formats/torch_snapshot/pickle_writer.h"
#include "tests/splitmix64.h"
#include "tests/test_support.h"

#define ADDRESSES 12

static int64_t address_of(uint64_t pick)
{
    return 0x100000 + (int64_t)(pick % ADDRESSES) * 0x1000;
}

/* One device's entries: `count`, from `seed`. `build_up`: instead, the
 * first half allocates at addresses of their own (the peak at its last
 * entry) and the second half frees them all, so that every end after
 * the peak is of an allocation live at it. */
static void write_trace(struct pickle_writer *w, uint64_t *seed, size_t count, bool build_up)
{
    static const char *const actions[] = {"alloc", "alloc", "free_completed", "free_requested",
                                          "alloc", "free_completed", "segment_alloc"};
    pickle_write_list(w, count);
    int64_t time_us = 1000;
    for (size_t i = 0; i < count; i++) {
        uint64_t r = splitmix64_next(seed);
        const char *action = actions[r % 7];
        /* Half of them of the size of the segments' blocks: those still
         * open at an active block's address have it as their block. */
        int64_t address = address_of(r >> 8),
                size = (r >> 33) % 2 ? 512 : 16 + (int64_t)(r >> 40) % 5000;
        if (build_up) {
            action = i < count / 2 ? "alloc" : "free_completed";
            address = 0x10000000 + (int64_t)(i < count / 2 ? i : i - count / 2) * 0x1000;
            size = 100;
        }
        /* Times repeat: about one entry in three shares the last's. */
        time_us += (r >> 20) % 3 != 0;
        pickle_write_dict(w, 5);
        pickle_write_key(w, "action");
        pickle_write_key(w, action);
        pickle_write_item_done(w);
        pickle_write_int_member(w, "addr", address);
        pickle_write_int_member(w, "size", size);
        pickle_write_int_member(w, "stream", 0);
        pickle_write_int_member(w, "time_us", time_us);
        pickle_write_item_done(w);
    }
}

static void block(struct pickle_writer *w, int64_t address, int64_t size, const char *state)
{
    pickle_write_dict(w, 4);
    pickle_write_int_member(w, "address", address);
    pickle_write_int_member(w, "size", size);
    pickle_write_int_member(w, "requested_size", size);
    pickle_write_key(w, "state");
    pickle_write_key(w, state);
    pickle_write_item_done(w);
}

/* Two devices; each has one segment whose active blocks sit at some of
 * the trace's addresses (ghosts where the trace leaves them closed). */
static char *write_snapshot(uint64_t seed, size_t count, bool build_up, size_t *size)
{
    char *bytes = NULL;
    FILE *file = open_memstream(&bytes, size);
    assert_non_null(file);
    struct pickle_writer *w = pickle_writer_new(file, 4);
    assert_non_null(w);
    pickle_write_dict(w, 3);
    pickle_write_key(w, "segments");
    pickle_write_list(w, 2);
    for (int device = 0; device < 2; device++) {
        pickle_write_dict(w, 4);
        pickle_write_int_member(w, "device", device);
        pickle_write_int_member(w, "address", 0x100000);
        pickle_write_int_member(w, "total_size", ADDRESSES * 0x1000);
        pickle_write_key(w, "blocks");
        pickle_write_list(w, 3);
        for (int k = 0; k < 3; k++) {
            block(w, address_of(seed + (uint64_t)(k * 5 + device)), 512,
                  k == 2 ? "active_pending_free" : "active_allocated");
            pickle_write_item_done(w);
        }
        pickle_write_item_done(w);
        pickle_write_item_done(w);
    }
    pickle_write_item_done(w);
    pickle_write_key(w, "device_traces");
    pickle_write_list(w, 2);
    for (int device = 0; device < 2; device++) {
        write_trace(w, &seed, count, build_up && device == 0);
        pickle_write_item_done(w);
    }
    pickle_write_item_done(w);
    /* A range every 7 us on each device, open for 4 of them: the
     * entries' contexts change every few entries. */
    size_t ranges = count / 10 + 1;
    pickle_write_key(w, "external_annotations");
    pickle_write_list(w, 2 * 2 * ranges);
    for (int device = 0; device < 2; device++)
        for (size_t k = 0; k < ranges; k++)
            for (int end = 0; end < 2; end++) {
                char name[32];
                snprintf(name, sizeof name, "range %zu", k % 5);
                pickle_write_dict(w, 4);
                pickle_write_key(w, "stage");
                pickle_write_key(w, end ? "END" : "START");
                pickle_write_item_done(w);
                pickle_write_key(w, "name");
                pickle_write_str(w, name);
                pickle_write_item_done(w);
                pickle_write_int_member(w, "device", device);
                pickle_write_int_member(w, "time_us", 1000 + (int64_t)k * 7 + (end ? 4 : 0));
                pickle_write_item_done(w);
            }
    pickle_write_item_done(w);
    assert_true(pickle_writer_finish(w));
    assert_int_equal(fclose(file), 0);
    return bytes;
}

static void assert_same_rows(const struct allocation_row *a, size_t a_count,
                             const struct allocation_row *b, size_t b_count)
{
    assert_int_equal(a_count, b_count);
    for (size_t r = 0; r < a_count; r++) {
        assert_int_equal(a[r].origin, b[r].origin);
        assert_int_equal(a[r].snapshot_index, b[r].snapshot_index);
        assert_int_equal(a[r].special_index, b[r].special_index);
        assert_int_equal(a[r].occurrences, b[r].occurrences);
        assert_int_equal(a[r].allocation_bytes, b[r].allocation_bytes);
        assert_int_equal(a[r].address, b[r].address);
        assert_int_equal(a[r].block_bytes, b[r].block_bytes);
        assert_int_equal(a[r].op_name, b[r].op_name);
    }
}

/* A row's context and block read one by one, without the cursors the
 * rows are made with. */
static void assert_row_reads(const struct allocator *a, const struct allocation_row *row)
{
    if (row->origin != ROW_FROM_SNAPSHOT)
        return;
    size_t index = (size_t)row->snapshot_index;
    assert_int_equal(row->context, snapshot_columns_context(&a->timeline, index));
    int64_t block = 0;
    for (size_t b = 0; b < a->allocation_block_count; b++)
        if (a->allocation_blocks[b].snapshot_index == index)
            block = a->allocation_blocks[b].block_bytes;
    assert_int_equal(row->block_bytes, block);
}

/* Rows seen with a block and with a range in their context (so that the
 * checks above are seen to have something to check). */
static size_t blocks, ranged;

/* Each allocator's table against the index's answer at its peak time;
 * how many rows in all (so a caller can see the traces were not empty). */
static size_t check_file(const char *bytes, size_t size)
{
    struct profile *profile = NULL;
    struct load_error error;
    enum load_status status = profile_load_bytes((const uint8_t *)bytes, size, "peak.pickle",
                                                 NULL, &profile, &error);
    if (status != LOAD_OK)
        fail_msg("%s", error.message);
    size_t rows = 0;
    for (size_t i = 0; i < profile->allocator_count; i++) {
        const struct allocator *a = &profile->allocators[i];
        struct live_index *index = NULL;
        struct live_rows live = {0};
        assert_int_equal(live_index_build(profile, a, 16, &index), LIVE_OK);
        assert_int_equal(live_index_rows_at(index, a->summary.peak_time_ps, &live), LIVE_OK);
        assert_same_rows(a->rows, a->row_count, live.rows, live.count);
        for (size_t r = 0; r < a->row_count; r++) {
            assert_row_reads(a, &a->rows[r]);
            blocks += a->rows[r].block_bytes > 0;
            ranged += a->rows[r].context != STRING_ID_EMPTY;
        }
        assert_int_equal(a->live_allocations, live.allocations);
        rows += a->row_count;
        live_rows_free(&live);
        live_index_free(index);
    }
    profile_free(profile);
    return rows;
}

static void check_seeds(size_t count, bool build_up)
{
    size_t rows = 0;
    blocks = ranged = 0;
    for (uint64_t seed = 1; seed <= 60; seed++) {
        size_t size;
        char *bytes = write_snapshot(seed * 7919, count + (size_t)seed * 3, build_up, &size);
        rows += check_file(bytes, size);
        load_torch_snapshot_set_pipeline_threshold(1); /* the replay on its thread */
        check_file(bytes, size);
        load_torch_snapshot_set_pipeline_threshold(0);
        free(bytes);
    }
    assert_true(rows > 60);
    assert_true(blocks > 0);
    assert_true(ranged > 0);
}

static void test_short_traces(void **state)
{
    (void)state;
    check_seeds(8, false);
}

static void test_long_traces(void **state)
{
    (void)state;
    check_seeds(600, false);
}

/* More ends after the peak than the replay keeps (a quarter of the
 * trace's room and 1024): the builder replays every address itself. */
static void test_peak_then_frees(void **state)
{
    (void)state;
    check_seeds(8000, true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_short_traces),
        cmocka_unit_test(test_long_traces),
        cmocka_unit_test(test_peak_then_frees),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
