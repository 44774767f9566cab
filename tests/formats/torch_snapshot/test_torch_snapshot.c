/* PyTorch memory snapshots through profile_load (the format row): small
 * snapshots written here with tests/formats/torch_snapshot/pickle_writer
 * whose numbers are worked out by hand (the state before the trace from
 * unmatched frees and ghost blocks, pending frees still held, reserved
 * from segment entries, two devices on one clock); the messages of
 * pickles memtop does not read; and the real capture
 * data/real/torch-mlp.snapshot.pickle.gz against the spec's numbers. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/input_format.h"
#include "model/load.h"
#include "model/load_internal.h"
#include "model/profile.h"
#include "model/query/live_set.h"
#include "model/stack_text.h"
#include "tests/formats/torch_snapshot/pickle_writer.h"
#include "tests/test_support.h"

struct buffer {
    char *bytes;
    size_t size;
    FILE *file;
    struct pickle_writer *w;
};

static void start(struct buffer *b, int protocol)
{
    b->file = open_memstream(&b->bytes, &b->size);
    assert_non_null(b->file);
    b->w = pickle_writer_new(b->file, protocol);
    assert_non_null(b->w);
}

static struct profile *finish_and_load(struct buffer *b)
{
    assert_true(pickle_writer_finish(b->w));
    assert_int_equal(fclose(b->file), 0);
    struct profile *profile = NULL;
    struct load_error error;
    enum load_status status = profile_load_bytes((const uint8_t *)b->bytes, b->size,
                                                 "test.pickle", NULL, &profile, &error);
    if (status != LOAD_OK)
        fail_msg("%s", error.message);
    free(b->bytes);
    return profile;
}

static void entry_on(struct pickle_writer *w, const char *action, int64_t address, int64_t size,
                     int64_t time_us, uint32_t *frames, int64_t stream);

static void entry(struct pickle_writer *w, const char *action, int64_t address, int64_t size,
                  int64_t time_us, uint32_t *frames)
{
    entry_on(w, action, address, size, time_us, frames, 0);
}

/* An entry on `stream` (0: the default stream). */
static void entry_on(struct pickle_writer *w, const char *action, int64_t address, int64_t size,
                     int64_t time_us, uint32_t *frames, int64_t stream)
{
    pickle_write_dict(w, frames ? 6 : 5);
    pickle_write_key(w, "action");
    pickle_write_key(w, action);
    pickle_write_item_done(w);
    pickle_write_int_member(w, "addr", address);
    pickle_write_int_member(w, "size", size);
    pickle_write_int_member(w, "stream", stream);
    pickle_write_int_member(w, "time_us", time_us);
    if (frames) {
        pickle_write_key(w, "frames");
        if (*frames != UINT32_MAX) {
            pickle_write_get(w, *frames);
        } else {
            /* [{'name': 'step', 'filename': 'train.py', 'line': 7}] */
            *frames = pickle_write_list(w, 1);
            pickle_write_dict(w, 3);
            pickle_write_key(w, "name");
            pickle_write_str(w, "step");
            pickle_write_item_done(w);
            pickle_write_key(w, "filename");
            pickle_write_str(w, "train.py");
            pickle_write_item_done(w);
            pickle_write_int_member(w, "line", 7);
            pickle_write_item_done(w);
        }
        pickle_write_item_done(w);
    }
}

static void block(struct pickle_writer *w, int64_t address, int64_t size, int64_t requested,
                  const char *state)
{
    pickle_write_dict(w, 4);
    pickle_write_int_member(w, "address", address);
    pickle_write_int_member(w, "size", size);
    pickle_write_int_member(w, "requested_size", requested);
    pickle_write_key(w, "state");
    pickle_write_key(w, state);
    pickle_write_item_done(w);
}

/* Device 0's trace, by hand:
 *   before: 0x1000 (300, freed in the trace: unmatched), 0x9000 (4096,
 *           never in the trace: a ghost)          -> 4396 in 2
 *   0 segment_alloc 0x20000 1 MiB                  reserved 2 MiB + 1 MiB
 *   1 alloc 0x20000 1000                           5396
 *   2 alloc 0x30000 2000 (on stream 0x7)           7396
 *   3 free_requested 0x1000 300                    7396 (still held)
 *   4 free_completed 0x1000 300                    7096
 *   5 alloc 0x40000 5000                           12096  <- peak, 4 live
 *   6 free_requested 0x30000                       12096
 *   7 free_completed 0x30000                       10096
 *   8 free_requested 0x40000 (pending at the end)  10096
 * The snapshot: 0x9000 active (ghost), 0x20000 active, 0x40000 pending. */
static void write_device_snapshot(struct pickle_writer *w, bool two_devices)
{
    pickle_write_dict(w, 2);
    pickle_write_key(w, "segments");
    pickle_write_list(w, two_devices ? 3 : 2);
    /* 2 MiB segment at 0x0 with the ghost; 1 MiB segment made in the trace. */
    pickle_write_dict(w, 4);
    pickle_write_int_member(w, "device", 0);
    pickle_write_int_member(w, "address", 0);
    pickle_write_int_member(w, "total_size", 2 << 20);
    pickle_write_key(w, "blocks");
    pickle_write_list(w, 3);
    block(w, 0, 0x9000, 0, "inactive");
    pickle_write_item_done(w);
    block(w, 0x9000, 4096, 4096, "active_allocated");
    pickle_write_item_done(w);
    block(w, 0xa000, (2 << 20) - 0xa000, 7, "inactive");
    pickle_write_item_done(w);
    pickle_write_item_done(w);
    pickle_write_item_done(w);
    pickle_write_dict(w, 4);
    pickle_write_int_member(w, "device", 0);
    pickle_write_int_member(w, "address", 0x20000);
    pickle_write_int_member(w, "total_size", 1 << 20);
    pickle_write_key(w, "blocks");
    pickle_write_list(w, 2);
    block(w, 0x20000, 1024, 1000, "active_allocated");
    pickle_write_item_done(w);
    block(w, 0x40000, 5120, 5000, "active_pending_free");
    pickle_write_item_done(w);
    pickle_write_item_done(w);
    pickle_write_item_done(w);
    if (two_devices) {
        pickle_write_dict(w, 4);
        pickle_write_int_member(w, "device", 1);
        pickle_write_int_member(w, "address", 0x500000);
        pickle_write_int_member(w, "total_size", 2 << 20);
        pickle_write_key(w, "blocks");
        pickle_write_list(w, 1);
        block(w, 0x500000, 512, 100, "active_allocated");
        pickle_write_item_done(w);
        pickle_write_item_done(w);
        pickle_write_item_done(w);
    }
    pickle_write_item_done(w);
    pickle_write_key(w, "device_traces");
    pickle_write_list(w, two_devices ? 2 : 1);
    uint32_t frames = UINT32_MAX;
    pickle_write_list(w, 9);
    entry(w, "segment_alloc", 0x20000, 1 << 20, 1000, NULL);
    pickle_write_item_done(w);
    entry(w, "alloc", 0x20000, 1000, 1001, &frames);
    pickle_write_item_done(w);
    entry_on(w, "alloc", 0x30000, 2000, 1002, &frames, 0x7);
    pickle_write_item_done(w);
    entry(w, "free_requested", 0x1000, 300, 1003, NULL);
    pickle_write_item_done(w);
    entry(w, "free_completed", 0x1000, 300, 1004, NULL);
    pickle_write_item_done(w);
    entry(w, "alloc", 0x40000, 5000, 1005, NULL);
    pickle_write_item_done(w);
    entry(w, "free_requested", 0x30000, 2000, 1006, NULL);
    pickle_write_item_done(w);
    entry(w, "free_completed", 0x30000, 2000, 1007, NULL);
    pickle_write_item_done(w);
    entry(w, "free_requested", 0x40000, 5000, 1008, NULL);
    pickle_write_item_done(w);
    pickle_write_item_done(w);
    if (two_devices) {
        /* Device 1 begins 500 us earlier: the clock is shared. */
        pickle_write_list(w, 1);
        entry(w, "alloc", 0x500000, 100, 500, NULL);
        pickle_write_item_done(w);
        pickle_write_item_done(w);
    }
    pickle_write_item_done(w);
}

static void test_replay_by_hand(void **state)
{
    (void)state;
    int protocols[] = {2, 4, 5};
    for (size_t p = 0; p < 3; p++) {
        struct buffer b;
        start(&b, protocols[p]);
        write_device_snapshot(b.w, false);
        struct profile *profile = finish_and_load(&b);
        assert_string_equal(profile_format_name(profile->format), "torch-snapshot");
        assert_int_equal(profile->allocator_count, 1);
        const struct allocator *a = &profile->allocators[0];
        assert_string_equal(profile_text(profile, a->id), "cuda:0");
        assert_int_equal(a->timeline.count, 9);
        static const int64_t heap[] = {4396, 5396, 7396, 7396, 7096, 12096, 12096, 10096, 10096};
        for (size_t i = 0; i < 9; i++)
            assert_int_equal(a->timeline.heap_bytes[i], heap[i]);
        /* reserved: 2 MiB before the trace, 3 MiB from entry 0 */
        assert_int_equal(snapshot_columns_free_bytes(&a->timeline, 5), (3 << 20) - 12096);
        assert_int_equal(a->summary.peak.heap_bytes, 12096);
        assert_int_equal(a->summary.peak_time_ps, 5 * 1000000);
        assert_true(a->summary.trace_start.known);
        assert_int_equal(a->summary.trace_start.live_bytes, 4396);
        assert_int_equal(a->summary.trace_start.live_count, 2);
        assert_int_equal(a->summary.trace_start.entries, 9);
        assert_int_equal(a->row_count, 4); /* 0x9000, 0x20000, 0x30000, 0x40000 */
        size_t with_location = 0;
        for (size_t i = 0; i < a->row_count; i++)
            if (strcmp(profile_text(profile, a->rows[i].location), "train.py:7") == 0) {
                with_location++;
                assert_string_equal(profile_text(profile, a->rows[i].op_name), "step");
            }
        assert_int_equal(with_location, 2); /* 0x20000, 0x30000 */
        /* At every entry the live set, from the allocations live before
         * the trace, is all of the allocated bytes: no lump "allocated
         * before the profile" at any time. */
        struct live_rows live = {0};
        for (size_t i = 0; i < 9; i++) {
            assert_int_equal(
                live_rows_at_once(profile, a, snapshot_columns_time(&a->timeline, i), &live),
                LIVE_OK);
            assert_int_equal(live.total_bytes, heap[i]);
            for (size_t r = 0; r < live.count; r++)
                assert_string_not_equal(profile_text(profile, live.rows[r].op_name),
                                        LIVE_BEFORE_PROFILE_NAME);
        }
        /* 0x30000, made on stream 0x7, says so at any moment it is live
         * (its context), as in the table at the peak. */
        assert_int_equal(
            live_rows_at_once(profile, a, snapshot_columns_time(&a->timeline, 3), &live), LIVE_OK);
        size_t on_stream = 0;
        for (size_t r = 0; r < live.count; r++)
            if (live.rows[r].address == 0x30000) {
                assert_string_equal(profile_text(profile, live.rows[r].context), "stream 0x7");
                on_stream++;
            }
        assert_int_equal(on_stream, 1);
        /* At that moment too, the blocks the segments still hold: the
         * ghost's and 0x20000's; none for 0x30000 (ended at entry 7). */
        for (size_t r = 0; r < live.count; r++)
            assert_int_equal(live.rows[r].block_bytes, live.rows[r].address == 0x9000    ? 4096
                                                       : live.rows[r].address == 0x20000 ? 1024
                                                                                         : 0);
        for (size_t r = 0; r < a->row_count; r++)
            if (a->rows[r].address == 0x30000) {
                assert_string_equal(profile_text(profile, a->rows[r].context), "stream 0x7");
                on_stream++;
            }
        assert_int_equal(on_stream, 2); /* live at the peak too (freed at entry 7) */
        live_rows_free(&live);
        /* The rounded block where the snapshot's segments still hold the
         * allocation (allocated or pending free); none for one it ended. */
        for (size_t i = 0; i < a->row_count; i++) {
            const struct allocation_row *row = &a->rows[i];
            int64_t block = row->address == 0x9000    ? 4096 /* the ghost */
                            : row->address == 0x20000 ? 1024
                            : row->address == 0x40000 ? 5120
                                                      : 0;
            assert_int_equal(row->block_bytes, block);
            assert_int_equal(row->allocation_bytes, row->requested_bytes); /* sums stay requested */
        }
        assert_int_equal(profile->warning_count, 0); /* the end matches the blocks */
        profile_free(profile);
    }
}

/* The live set at a time, replayed from the timeline (the `L` view), on
 * a timeline that leaves the allocation bytes out (they are the
 * requested ones): at the peak, 0x20000, 0x30000 and 0x40000. */
static void test_live_at_time(void **state)
{
    (void)state;
    struct buffer b;
    start(&b, 4);
    write_device_snapshot(b.w, false);
    struct profile *profile = finish_and_load(&b);
    const struct allocator *a = &profile->allocators[0];
    assert_null(a->timeline.allocation_bytes);
    struct live_rows rows = {0};
    assert_int_equal(live_rows_at_once(profile, a, 5 * 1000000, &rows), LIVE_OK);
    int64_t trace_bytes = 0;
    for (size_t i = 0; i < rows.count; i++)
        if (rows.rows[i].origin == ROW_FROM_SNAPSHOT)
            trace_bytes += rows.rows[i].allocation_bytes;
    assert_int_equal(trace_bytes, 1000 + 2000 + 5000);
    live_rows_free(&rows);
    profile_free(profile);
}

static void test_two_devices(void **state)
{
    (void)state;
    struct buffer b;
    start(&b, 4);
    write_device_snapshot(b.w, true);
    struct profile *profile = finish_and_load(&b);
    assert_int_equal(profile->allocator_count, 2);
    assert_string_equal(profile_text(profile, profile->allocators[1].id), "cuda:1");
    /* Device 0's first entry is 500 us after device 1's. */
    assert_int_equal(snapshot_columns_time(&profile->allocators[0].timeline, 0), 500 * 1000000ll);
    assert_int_equal(snapshot_columns_time(&profile->allocators[1].timeline, 0), 0);
    assert_int_equal(profile->allocators[1].summary.peak.heap_bytes, 100);
    profile_free(profile);
}

/* A bare list of segments (a PyTorch 1.13 dump: no trace): the device's
 * active blocks are its one point and its rows, from before the trace. */
static void test_segments_only(void **state)
{
    (void)state;
    struct buffer b;
    start(&b, 4);
    pickle_write_list(b.w, 1);
    pickle_write_dict(b.w, 4);
    pickle_write_int_member(b.w, "device", 2);
    pickle_write_int_member(b.w, "address", 0x500000);
    pickle_write_int_member(b.w, "total_size", 2 << 20);
    pickle_write_key(b.w, "blocks");
    pickle_write_list(b.w, 2);
    block(b.w, 0x500000, 512, 100, "active_allocated");
    pickle_write_item_done(b.w);
    block(b.w, 0x500200, (2 << 20) - 512, 0, "inactive");
    pickle_write_item_done(b.w);
    pickle_write_item_done(b.w);
    pickle_write_item_done(b.w);
    pickle_write_item_done(b.w);
    struct profile *profile = finish_and_load(&b);
    assert_int_equal(profile->allocator_count, 1);
    const struct allocator *a = &profile->allocators[0];
    assert_string_equal(profile_text(profile, a->id), "cuda:2");
    assert_int_equal(a->timeline.count, 1);
    assert_int_equal(a->timeline.heap_bytes[0], 100);
    assert_int_equal(snapshot_columns_free_bytes(&a->timeline, 0), (2 << 20) - 100);
    assert_int_equal(a->row_count, 1);
    assert_int_equal(a->rows[0].address, 0x500000);
    assert_string_equal(profile_text(profile, a->rows[0].op_name), "<before the trace>");
    profile_free(profile);
}

/* A segment's blocks are read as their list fills (the reader recycles
 * their dicts): blocks without an address (PyTorch 2.0) still tile their
 * segment from its base, whichever segment they come in. */
static void test_blocks_as_they_come(void **state)
{
    (void)state;
    struct buffer b;
    start(&b, 4);
    pickle_write_list(b.w, 2);
    for (int s = 0; s < 2; s++) {
        pickle_write_dict(b.w, 4);
        pickle_write_int_member(b.w, "device", 0);
        pickle_write_int_member(b.w, "address", 0x500000 + s * 0x200000);
        pickle_write_int_member(b.w, "total_size", 2 << 20);
        pickle_write_key(b.w, "blocks");
        pickle_write_list(b.w, 2);
        pickle_write_dict(b.w, 3);
        pickle_write_int_member(b.w, "size", 512);
        pickle_write_int_member(b.w, "requested_size", 100 + s);
        pickle_write_key(b.w, "state");
        pickle_write_key(b.w, "active_allocated");
        pickle_write_item_done(b.w);
        pickle_write_item_done(b.w);
        block(b.w, 0x500200 + s * 0x200000, (2 << 20) - 512, 0, "inactive");
        pickle_write_item_done(b.w);
        pickle_write_item_done(b.w);
        pickle_write_item_done(b.w);
    }
    pickle_write_item_done(b.w);
    struct profile *profile = finish_and_load(&b);
    const struct allocator *a = &profile->allocators[0];
    assert_int_equal(a->timeline.heap_bytes[0], 201);
    assert_int_equal(a->row_count, 2);
    assert_int_equal(a->rows[0].address, 0x700000); /* the larger first */
    assert_int_equal(a->rows[1].address, 0x500000);
    profile_free(profile);
}

/* Entries whose times go back are sorted by time, each keeping what it
 * read in file order: its free bytes, and the running peak as it was at
 * its entry (the timeline leaves both columns out until then). */
static void test_times_out_of_order(void **state)
{
    (void)state;
    struct buffer b;
    start(&b, 4);
    pickle_write_dict(b.w, 2);
    pickle_write_key(b.w, "segments");
    pickle_write_list(b.w, 1);
    pickle_write_dict(b.w, 4);
    pickle_write_int_member(b.w, "device", 0);
    pickle_write_int_member(b.w, "address", 0x20000);
    pickle_write_int_member(b.w, "total_size", 1 << 20);
    pickle_write_key(b.w, "blocks");
    pickle_write_list(b.w, 1);
    block(b.w, 0x30000, 512, 50, "active_allocated");
    pickle_write_item_done(b.w);
    pickle_write_item_done(b.w);
    pickle_write_item_done(b.w);
    pickle_write_item_done(b.w);
    pickle_write_key(b.w, "device_traces");
    pickle_write_list(b.w, 1);
    pickle_write_list(b.w, 4);
    entry(b.w, "segment_alloc", 0x20000, 1 << 20, 1000, NULL);
    pickle_write_item_done(b.w);
    entry(b.w, "alloc", 0x20000, 100, 1005, NULL);
    pickle_write_item_done(b.w);
    entry(b.w, "alloc", 0x30000, 50, 1001, NULL);
    pickle_write_item_done(b.w);
    entry(b.w, "free_completed", 0x20000, 100, 1006, NULL);
    pickle_write_item_done(b.w);
    pickle_write_item_done(b.w);
    pickle_write_item_done(b.w);
    struct profile *profile = finish_and_load(&b);
    const struct snapshot_columns *t = &profile->allocators[0].timeline;
    assert_int_equal(t->count, 4);
    /* By time: the segment, B (1001), A (1005), A freed (1006). */
    static const int64_t heap[] = {0, 150, 100, 50}, peak[] = {0, 150, 100, 150};
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(t->heap_bytes[i], heap[i]);
        assert_int_equal(snapshot_columns_free_bytes(t, i), (1 << 20) - heap[i]);
        assert_int_equal(snapshot_columns_peak_bytes_in_use(t, i), peak[i]);
    }
    profile_free(profile);
}

/* Device traces built by LIST (the reader keeps them and reads their
 * entries afterwards), more of them than the reader's first room for
 * traces: every device still gets its own entries (an earlier device's
 * trace once pointed into the room the later ones moved). */
static void test_many_kept_traces(void **state)
{
    (void)state;
    enum { DEVICES = 12 };
    static const char head[] = "\x80\x02}(\x8c\x0d" "device_traces(";
    static const char alloc[] = "(}(\x8c\x06" "action\x8c\x05" "alloc\x8c\x04" "addrK\x01"
                                "\x8c\x04" "sizeK";
    char bytes[1024];
    size_t size = 0;
    memcpy(bytes, head, sizeof head - 1);
    size += sizeof head - 1;
    for (int d = 0; d < DEVICES; d++) {
        memcpy(bytes + size, alloc, sizeof alloc - 1);
        size += sizeof alloc - 1;
        bytes[size++] = (char)(d + 1); /* device d allocates d + 1 bytes */
        memcpy(bytes + size, "ul", 2);
        size += 2;
    }
    memcpy(bytes + size, "lu.", 3);
    size += 3;
    struct profile *profile = NULL;
    struct load_error error;
    if (profile_load_bytes((const uint8_t *)bytes, size, "x", NULL, &profile, &error) != LOAD_OK)
        fail_msg("%s", error.message);
    assert_int_equal(profile->allocator_count, DEVICES);
    for (int d = 0; d < DEVICES; d++)
        assert_int_equal(profile->allocators[d].summary.peak.heap_bytes, d + 1);
    profile_free(profile);
}

/* device_traces naming one list twice (a memo fetch): each device gets
 * the entries, in a timeline of its own (the first device's is a copy of
 * the trace's columns, the second takes them). */
static void test_one_trace_two_devices(void **state)
{
    (void)state;
    static const char bytes[] = "\x80\x02}(\x8c\x0d" "device_traces("
                                "(}(\x8c\x06" "action\x8c\x05" "alloc\x8c\x04" "addrK\x01"
                                "\x8c\x04" "sizeK\x05" "ul" "q\x00" "h\x00" "lu.";
    struct profile *profile = NULL;
    struct load_error error;
    if (profile_load_bytes((const uint8_t *)bytes, sizeof bytes - 1, "x", NULL, &profile,
                           &error) != LOAD_OK)
        fail_msg("%s", error.message);
    assert_int_equal(profile->allocator_count, 2);
    for (int d = 0; d < 2; d++) {
        const struct snapshot_columns *timeline = &profile->allocators[d].timeline;
        assert_int_equal(timeline->count, 1);
        assert_int_equal(timeline->heap_bytes[0], 5);
        assert_int_equal(snapshot_columns_address(timeline, 0), 1);
        assert_int_equal(profile->allocators[d].summary.peak.heap_bytes, 5);
        assert_int_equal(profile->allocators[d].row_count, 1);
    }
    assert_ptr_not_equal(profile->allocators[0].timeline.heap_bytes,
                         profile->allocators[1].timeline.heap_bytes);
    profile_free(profile);
}

static void expect_refused(const char *bytes, size_t size, const char *message);

/* Loads `bytes` with the trace replayed inline and on the replay thread:
 * the same status, message and profile. */
static void expect_same_on_two_threads(const char *bytes, size_t size)
{
    struct profile *one = NULL, *two = NULL;
    struct load_error one_error = {0}, two_error = {0};
    load_torch_snapshot_set_pipeline_threshold(SIZE_MAX);
    enum load_status one_status =
        profile_load_bytes((const uint8_t *)bytes, size, "x", NULL, &one, &one_error);
    load_torch_snapshot_set_pipeline_threshold(1);
    enum load_status two_status =
        profile_load_bytes((const uint8_t *)bytes, size, "x", NULL, &two, &two_error);
    load_torch_snapshot_set_pipeline_threshold(0);
    assert_int_equal(one_status, two_status);
    if (one_status == LOAD_OK)
        test_assert_profiles_equal(one, two);
    else
        assert_string_equal(one_error.message, two_error.message);
    profile_free(one);
    profile_free(two);
}

/* The replay on a thread of its own (big snapshots) gives what the
 * replay inline gives: hand-made snapshots, a trace two devices share, a
 * trace with an item that is not an entry, the real capture. */
static void test_replay_thread(void **state)
{
    (void)state;
    struct buffer b;
    start(&b, 4);
    write_device_snapshot(b.w, true);
    assert_true(pickle_writer_finish(b.w));
    assert_int_equal(fclose(b.file), 0);
    expect_same_on_two_threads(b.bytes, b.size);
    free(b.bytes);
    static const char shared[] = "\x80\x02}(\x8c\x0d" "device_traces("
                                 "(}(\x8c\x06" "action\x8c\x05" "alloc\x8c\x04" "addrK\x01"
                                 "\x8c\x04" "sizeK\x05" "ul" "q\x00" "h\x00" "lu.";
    expect_same_on_two_threads(shared, sizeof shared - 1);
    /* [{action: alloc, addr: 1, size: 5}, 7]: the second item is no dict. */
    static const char bad[] = "\x80\x02}(\x8c\x0d" "device_traces]]("
                              "}(\x8c\x06" "action\x8c\x05" "alloc\x8c\x04" "addrK\x01"
                              "\x8c\x04" "sizeK\x05" "uK\x07" "eau.";
    expect_same_on_two_threads(bad, sizeof bad - 1);
    load_torch_snapshot_set_pipeline_threshold(1);
    expect_refused(bad, sizeof bad - 1, "a trace entry that is not a dict (item 1 of a trace)");
    load_torch_snapshot_set_pipeline_threshold(0);
    /* A segment's blocks, [{state: inactive}] then 7 (a second APPENDS):
     * the first were read as they came, so the second is refused there. */
    static const char block_then_int[] = "\x80\x02}(\x8c\x08" "segments](}(\x8c\x06" "blocks]("
                                         "}(\x8c\x05" "state\x8c\x08" "inactiveue(K\x07" "eueu.";
    expect_refused(block_then_int, sizeof block_then_int - 1,
                   "not a PyTorch memory snapshot (block 1 of a segment is not a dict)");
    /* The same in one APPENDS: the list keeps them, the segment says so. */
    static const char blocks_one_batch[] = "\x80\x02}(\x8c\x08" "segments](}(\x8c\x06" "blocks]("
                                           "}(\x8c\x05" "state\x8c\x08" "inactiveuK\x07" "eueu.";
    expect_refused(blocks_one_batch, sizeof blocks_one_batch - 1, "a block that is not a dict");
    char *path = test_source_path("data/real/torch-mlp.snapshot.pickle.gz");
    size_t packed_size = 0;
    uint8_t *packed = test_read_file(path, &packed_size);
    assert_non_null(packed);
    expect_same_on_two_threads((const char *)packed, packed_size);
    free(packed);
    free(path);
}

static void expect_refused(const char *bytes, size_t size, const char *message)
{
    struct profile *profile = NULL;
    struct load_error error;
    assert_int_equal(profile_load_bytes((const uint8_t *)bytes, size, "x", NULL, &profile,
                                        &error),
                     LOAD_BAD_INPUT);
    assert_null(profile);
    if (!strstr(error.message, message))
        fail_msg("\"%s\" lacks \"%s\"", error.message, message);
}

static void test_refusals(void **state)
{
    (void)state;
    static const char global[] = "\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00" "cos\nsystem\n";
    expect_refused(global, sizeof global - 1,
                   "a pickle, but it holds objects memtop does not read (GLOBAL at offset 11)");
    static const char numbers[] = "\x80\x04](K\x01K\x02" "e.";
    expect_refused(numbers, sizeof numbers - 1, "a pickle, but not a PyTorch memory snapshot");
    static const char other[] = "\x80\x04}(\x8c\x01" "aK\x01\x8c\x01" "bK\x02u.";
    expect_refused(other, sizeof other - 1, "a pickle, but not a PyTorch memory snapshot");
    static const char cut[] = "\x80\x04}\x94(\x8c\x08segments\x94]";
    expect_refused(cut, sizeof cut - 1, "offset 17: the pickle is cut short");
}

/* The real capture (torch 2.11, H100): the spec's reference numbers. */
static void test_real_capture(void **state)
{
    (void)state;
    char *path = test_source_path("data/real/torch-mlp.snapshot.pickle.gz");
    struct profile *profile = NULL;
    struct load_error error;
    assert_int_equal(profile_load(path, NULL, &profile, &error), LOAD_OK);
    free(path);
    assert_int_equal(profile->allocator_count, 1);
    const struct allocator *a = &profile->allocators[0];
    assert_int_equal(a->timeline.count, 259);
    assert_int_equal(a->summary.peak.heap_bytes, 100387024);
    assert_int_equal(a->timeline.heap_bytes[153], 100387024);
    for (size_t i = 0; i < 153; i++)
        assert_true(a->timeline.heap_bytes[i] < 100387024); /* 153 is the first */
    assert_int_equal(a->summary.peak_time_ps, snapshot_columns_time(&a->timeline, 153));
    /* The table at the peak is the live set there (model/query/live_set.h),
     * from the 27 allocations live before the trace: 37 allocations in
     * 20 rows (equal ones merged), none of the heap unexplained. */
    assert_int_equal(a->live_allocations, 37);
    assert_int_equal(a->row_count, 20);
    assert_int_equal(a->initial_count, 27);
    struct live_rows live = {0};
    assert_int_equal(live_rows_at_once(profile, a, a->summary.peak_time_ps, &live), LIVE_OK);
    assert_int_equal(live.count, a->row_count);
    assert_int_equal(live.total_bytes, 100387024);
    for (size_t i = 0; i < live.count; i++) {
        assert_memory_equal(&live.rows[i], &a->rows[i], sizeof live.rows[i]);
        assert_string_not_equal(profile_text(profile, a->rows[i].op_name),
                                LIVE_BEFORE_PROFILE_NAME);
    }
    live_rows_free(&live);
    /* Every allocation with frames names its site on the timeline. */
    assert_true(a->timeline.site || a->timeline.key); /* the site, or keyed with the op name */
    for (size_t i = 0; i < a->timeline.count; i++)
        if (a->timeline.activity[i] == MEMORY_ACTIVITY_ALLOCATION)
            assert_int_not_equal(snapshot_columns_site(&a->timeline, i), 0);
    assert_int_equal(a->summary.trace_start.live_bytes, 93520032);
    assert_int_equal(a->summary.trace_start.live_count, 27);
    assert_int_equal(a->timeline.heap_bytes[258], 93520036);
    /* reserved is 112 MiB throughout */
    assert_int_equal(snapshot_columns_free_bytes(&a->timeline, 153), 117440512 - 100387024);
    assert_int_equal(profile->warning_count, 0);
    /* Adam's state: made in torch/optim/adam.py:791 (the name), on the
     * user's line 21, opt.step() (the location: model/user_frame.h). */
    int64_t adam = 0;
    size_t adam_rows = 0;
    for (size_t i = 0; i < a->row_count; i++)
        if (strcmp(profile_text(profile, a->rows[i].op_name), "_multi_tensor_adam") == 0) {
            assert_non_null(strstr(profile_text(profile, a->rows[i].location),
                                   "torch_snapshot.py:21"));
            /* kept as frames, made into text when asked (model/stack_text.h) */
            assert_true(stack_id_is_frames(a->rows[i].stack));
            struct stack_text drawn = {0};
            struct text stack = stack_text_draw(profile, a->rows[i].stack, &drawn);
            assert_non_null(memmem(stack.bytes, stack.length, "adam.py:791", 11));
            stack_text_free(&drawn);
            adam += a->rows[i].allocation_bytes * a->rows[i].occurrences;
            adam_rows += (size_t)a->rows[i].occurrences;
        }
    assert_int_equal(adam, 6340648);
    assert_int_equal(adam_rows, 6);
    /* Three 40-byte requests live at the peak are still held at the end,
     * each in a 512-byte block (the segments say so; equal rows merge). */
    size_t rounded = 0;
    for (size_t i = 0; i < a->row_count; i++)
        if (a->rows[i].block_bytes > a->rows[i].requested_bytes) {
            assert_int_equal(a->rows[i].requested_bytes, 40);
            assert_int_equal(a->rows[i].block_bytes, 512);
            rounded += (size_t)a->rows[i].occurrences;
        }
    assert_int_equal(rounded, 3);
    profile_free(profile);
}

/* Detected by content whatever the name; the suffixes name the format. */
static void test_detection(void **state)
{
    (void)state;
    static const uint8_t head[] = {0x80, 0x04, 0x95};
    const struct input_format *format = input_format_detect(head, sizeof head, false);
    assert_non_null(format);
    assert_string_equal(format->name, "torch-snapshot");
    size_t length;
    assert_ptr_equal(input_format_for_name("rank3.pickle.gz", &length), format);
    static const uint8_t not_pickle[] = {0x80, 0x07, 0x95};
    format = input_format_detect(not_pickle, sizeof not_pickle, false);
    assert_true(!format || strcmp(format->name, "torch-snapshot") != 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay_by_hand),
        cmocka_unit_test(test_two_devices),
        cmocka_unit_test(test_live_at_time),
        cmocka_unit_test(test_segments_only),
        cmocka_unit_test(test_blocks_as_they_come),
        cmocka_unit_test(test_times_out_of_order),
        cmocka_unit_test(test_many_kept_traces),
        cmocka_unit_test(test_one_trace_two_devices),
        cmocka_unit_test(test_replay_thread),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_real_capture),
        cmocka_unit_test(test_detection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
