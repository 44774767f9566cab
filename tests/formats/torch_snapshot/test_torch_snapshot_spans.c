/* A PyTorch memory snapshot's external_annotations as the profile's
 * named spans (struct time_span, model/query/spans.h): START/END pairs
 * matched by name and device (nested, a START left open, an END whose
 * START the trace lost, a device with no allocator), on a snapshot
 * written here; and the real capture's six optimizer spans, the peak
 * inside step 2's Adam step. Also the timeline's times those spans sit
 * on: 4 bytes each where they fit (SNAPSHOT_NARROW_TIME), counted where
 * the entries have none, 8 bytes where they go back. */
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
#include "model/profile.h"
#include "model/query/spans.h"
#include "tests/formats/torch_snapshot/pickle_writer.h"
#include "tests/test_support.h"

#define US 1000000 /* picoseconds */

static void str_member(struct pickle_writer *w, const char *key, const char *value)
{
    pickle_write_key(w, key);
    pickle_write_str(w, value);
    pickle_write_item_done(w);
}

/* `metadata`: the entry's user_metadata (NULL: none). */
static void entry(struct pickle_writer *w, const char *action, int64_t address, int64_t size,
                  int64_t time_us, int64_t stream, const char *metadata)
{
    pickle_write_dict(w, metadata ? 6 : 5);
    str_member(w, "action", action);
    if (metadata)
        str_member(w, "user_metadata", metadata);
    pickle_write_int_member(w, "addr", address);
    pickle_write_int_member(w, "size", size);
    pickle_write_int_member(w, "stream", stream);
    pickle_write_int_member(w, "time_us", time_us);
    pickle_write_item_done(w);
}

static void annotation(struct pickle_writer *w, const char *stage, const char *name,
                       int64_t device, int64_t time_us)
{
    pickle_write_dict(w, 4);
    str_member(w, "stage", stage);
    str_member(w, "name", name);
    pickle_write_int_member(w, "device", device);
    pickle_write_int_member(w, "time_us", time_us);
    pickle_write_item_done(w);
}

/* Device 0 from 1000 us: A 100 B (200): 300 at 1010, B freed at 1020,
 * C 50 at 1030 (entry i at times[i]; B on stream b_stream; C with user
 * metadata c_metadata, NULL for none). The annotations, not in time
 * order. */
static const int64_t in_order[] = {1000, 1010, 1019, 1020, 1030};
static struct profile *annotated_snapshot(const int64_t *times, int64_t b_stream,
                                          const char *c_metadata)
{
    char *bytes = NULL;
    size_t size = 0;
    FILE *file = open_memstream(&bytes, &size);
    assert_non_null(file);
    struct pickle_writer *w = pickle_writer_new(file, 4);
    pickle_write_dict(w, 3);
    pickle_write_key(w, "segments");
    pickle_write_list(w, 0);
    pickle_write_item_done(w);
    pickle_write_key(w, "device_traces");
    pickle_write_list(w, 1);
    pickle_write_list(w, 5);
    entry(w, "alloc", 0x1000, 100, times[0], 0, NULL);
    entry(w, "alloc", 0x2000, 200, times[1], b_stream, NULL);
    entry(w, "free_requested", 0x2000, 200, times[2], 0, NULL);
    entry(w, "free_completed", 0x2000, 200, times[3], 0, NULL);
    entry(w, "alloc", 0x3000, 50, times[4], 0, c_metadata);
    pickle_write_item_done(w);
    pickle_write_item_done(w);
    pickle_write_key(w, "external_annotations");
    pickle_write_list(w, 9);
    annotation(w, "START", "ProfilerStep#1", 0, 1000);
    annotation(w, "START", "Optimizer.step#Adam.step", 0, 1005);
    annotation(w, "END", "Optimizer.zero_grad#Adam.zero_grad", 0, 1002); /* START lost */
    annotation(w, "END", "Optimizer.step#Adam.step", 0, 1015);
    annotation(w, "START", "on a device without memory", 3, 1001);
    annotation(w, "END", "on a device without memory", 3, 1003);
    annotation(w, "END", "ProfilerStep#1", 0, 1025);
    annotation(w, "START", "ProfilerStep#2", 0, 1028); /* open at the dump */
    annotation(w, "MIDDLE", "neither START nor END", 0, 1029);
    pickle_write_item_done(w);
    assert_true(pickle_writer_finish(w));
    assert_int_equal(fclose(file), 0);
    struct profile *profile = NULL;
    struct load_error error;
    if (profile_load_bytes((const uint8_t *)bytes, size, "spans.pickle", NULL, &profile,
                           &error) != LOAD_OK)
        fail_msg("%s", error.message);
    free(bytes);
    return profile;
}

static void test_annotations_paired(void **state)
{
    (void)state;
    struct profile *profile = annotated_snapshot(in_order, 0, NULL);
    assert_int_equal(profile->allocator_count, 1);
    const struct allocator *a = &profile->allocators[0];
    /* The device without an allocator has no timeline to put its span on;
     * a stage neither START nor END is left out. */
    struct span_table table;
    assert_true(span_table_build(&table, profile, a));
    const struct {
        const char *name;
        int64_t start, end;
        bool open_start, open_end;
        int64_t peak, peak_time;
        unsigned depth;
    } expected[] = {
        {"ProfilerStep#1", 0, 25 * US, false, false, 300, 10 * US, 0},
        {"Optimizer.zero_grad#Adam.zero_grad", 0, 2 * US, true, false, 100, 0, 1},
        {"Optimizer.step#Adam.step", 5 * US, 15 * US, false, false, 300, 10 * US, 1},
        {"ProfilerStep#2", 28 * US, 30 * US, false, true, 150, 30 * US, 0},
    };
    size_t count = sizeof expected / sizeof expected[0];
    assert_int_equal(profile->span_count, count);
    assert_int_equal(table.count, count);
    for (size_t i = 0; i < count; i++) {
        const struct span_row *row = NULL;
        for (size_t j = 0; j < table.count; j++)
            if (strcmp(profile_text(profile, table.rows[j].name), expected[i].name) == 0)
                row = &table.rows[j];
        if (!row)
            fail_msg("no span %s", expected[i].name);
        assert_int_equal(row->start_time_ps, expected[i].start);
        assert_int_equal(row->end_time_ps, expected[i].end);
        assert_int_equal(row->open_start, expected[i].open_start);
        assert_int_equal(row->open_end, expected[i].open_end);
        assert_int_equal(row->peak_bytes, expected[i].peak);
        assert_int_equal(row->peak_time_ps, expected[i].peak_time);
        if (row->depth != expected[i].depth)
            fail_msg("%s: depth %u", expected[i].name, row->depth);
        assert_int_equal(profile->spans[row->span].allocator, a->id);
    }
    span_table_free(&table);
    profile_free(profile);
}

/* Each entry's context: the annotations of its device open at its time,
 * then its own part, then its stream where it is not the default; alike
 * where the entries come in time order (the annotations looked up where
 * they change; with and without own parts) and where one goes back
 * (swept entry by entry: C, at 1018, comes after the step's END at 1015
 * and before ProfilerStep#1's at 1025). */
static void test_contexts(void **state)
{
    (void)state;
    static const int64_t back[] = {1000, 1010, 1019, 1020, 1018};
    const int64_t *times[] = {in_order, back, in_order, back};
    const char *metadata[] = {NULL, NULL, "epoch 3", "epoch 3"};
    static const char *const expected[][5] = {
        {"ProfilerStep#1", "ProfilerStep#1 > Optimizer.step#Adam.step; stream 0x7",
         "ProfilerStep#1", "ProfilerStep#1", "ProfilerStep#2"},
        {"ProfilerStep#1", "ProfilerStep#1 > Optimizer.step#Adam.step; stream 0x7",
         "ProfilerStep#1", "ProfilerStep#1", "ProfilerStep#1"},
        {"ProfilerStep#1", "ProfilerStep#1 > Optimizer.step#Adam.step; stream 0x7",
         "ProfilerStep#1", "ProfilerStep#1", "ProfilerStep#2; metadata epoch 3"},
        {"ProfilerStep#1", "ProfilerStep#1 > Optimizer.step#Adam.step; stream 0x7",
         "ProfilerStep#1", "ProfilerStep#1", "ProfilerStep#1; metadata epoch 3"},
    };
    for (size_t k = 0; k < 4; k++) {
        struct profile *profile = annotated_snapshot(times[k], 7, metadata[k]);
        const struct snapshot_columns *timeline = &profile->allocators[0].timeline;
        assert_int_equal(timeline->count, 5);
        for (size_t i = 0; i < 5; i++) {
            /* The builder sorts the entries by time: find entry i by its. */
            size_t at = 0;
            while (at < 5 && snapshot_columns_time(timeline, at) != (times[k][i] - 1000) * US)
                at++;
            assert_true(at < 5);
            assert_string_equal(
                profile_text(profile, snapshot_columns_context(timeline, at)), expected[k][i]);
        }
        profile_free(profile);
    }
}

/* The real capture: zero_grad and step of Adam, three times each; the
 * peak (100,387,024 B at 8.220 ms) inside the second step. */
static void test_real_capture_spans(void **state)
{
    (void)state;
    char *path = test_source_path("data/real/torch-mlp.snapshot.pickle.gz");
    struct profile *profile = test_load_ok(path);
    free(path);
    const struct allocator *a = &profile->allocators[0];
    struct span_table table;
    assert_true(span_table_build(&table, profile, a));
    assert_int_equal(table.count, 6);
    size_t steps = 0, at_peak = 0;
    for (size_t i = 0; i < table.count; i++) {
        const struct span_row *row = &table.rows[i];
        const char *name = profile_text(profile, row->name);
        assert_true(strcmp(name, "Optimizer.step#Adam.step") == 0 ||
                    strcmp(name, "Optimizer.zero_grad#Adam.zero_grad") == 0);
        assert_false(row->open_start || row->open_end);
        steps += name[10] == 's';
        /* Steps 2 and 3 reach the same maximum; the peak is step 2's. */
        if (row->peak_index == 153) {
            at_peak++;
            assert_string_equal(name, "Optimizer.step#Adam.step");
            assert_int_equal(row->start_time_ps, 7716 * (int64_t)US);
            assert_int_equal(row->end_time_ps, 8376 * (int64_t)US);
            assert_int_equal(row->peak_time_ps, a->summary.peak_time_ps);
            assert_int_equal(row->peak_bytes, 100387024);
        }
    }
    assert_int_equal(steps, 3);
    assert_int_equal(at_peak, 1);
    /* The first: zero_grad, 381 us after the trace begins, 185 us long. */
    assert_int_equal(table.rows[0].start_time_ps, 381 * (int64_t)US);
    assert_int_equal(table.rows[0].duration_ps, 185 * (int64_t)US);
    span_table_free(&table);
    profile_free(profile);
}

/* A snapshot of one device whose entries (alloc, free_requested,
 * free_completed, ...) have `times` (none where `timed` is false). */
static struct profile *timed_snapshot(const int64_t *times, size_t count, bool timed)
{
    char *bytes = NULL;
    size_t size = 0;
    FILE *file = open_memstream(&bytes, &size);
    assert_non_null(file);
    struct pickle_writer *w = pickle_writer_new(file, 4);
    pickle_write_dict(w, 2);
    pickle_write_key(w, "segments");
    pickle_write_list(w, 0);
    pickle_write_item_done(w);
    pickle_write_key(w, "device_traces");
    pickle_write_list(w, 1);
    pickle_write_list(w, count);
    static const char *const actions[] = {"alloc", "free_requested", "free_completed"};
    for (size_t i = 0; i < count; i++) {
        pickle_write_dict(w, timed ? 5 : 4);
        str_member(w, "action", actions[i % 3]);
        pickle_write_int_member(w, "addr", 0x1000 * (int64_t)(i / 3 + 1));
        pickle_write_int_member(w, "size", 512);
        pickle_write_int_member(w, "stream", 0);
        if (timed)
            pickle_write_int_member(w, "time_us", times[i]);
        pickle_write_item_done(w);
    }
    pickle_write_item_done(w);
    pickle_write_item_done(w);
    assert_true(pickle_writer_finish(w));
    assert_int_equal(fclose(file), 0);
    struct profile *profile = NULL;
    struct load_error error;
    if (profile_load_bytes((const uint8_t *)bytes, size, "times.pickle", NULL, &profile,
                           &error) != LOAD_OK)
        fail_msg("%s", error.message);
    free(bytes);
    assert_int_equal(profile->allocator_count, 1);
    assert_int_equal(profile->allocators[0].timeline.count, count);
    return profile;
}

static void test_times_narrow(void **state)
{
    (void)state;
    /* Microseconds since 1970, as PyTorch writes them. */
    const int64_t epoch = 1764300000000000;
    const int64_t times[] = {epoch, epoch + 7, epoch + 7, epoch + 4000000000, epoch + 4000000001};
    struct profile *profile = timed_snapshot(times, 5, true);
    const struct snapshot_columns *timeline = &profile->allocators[0].timeline;
    assert_null(timeline->time_ps); /* 4 bytes a time */
    assert_int_equal(timeline->time_unit, US);
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(snapshot_columns_time(timeline, i), (times[i] - epoch) * US);
    profile_free(profile);
    /* Without time_us the axis counts entries, one a microsecond. */
    profile = timed_snapshot(times, 5, false);
    timeline = &profile->allocators[0].timeline;
    assert_null(timeline->time_ps);
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(snapshot_columns_time(timeline, i), (int64_t)i * US);
    profile_free(profile);
    /* A time before the first (a clock set back) or 2^32 us past it: the
     * column is 8 bytes a time again, every time as it was. */
    const int64_t back[] = {epoch + 3, epoch + 8, epoch, epoch + 12};
    const int64_t far[] = {epoch, epoch + ((int64_t)1 << 32), epoch + ((int64_t)1 << 33)};
    profile = timed_snapshot(back, 4, true);
    timeline = &profile->allocators[0].timeline;
    assert_non_null(timeline->time_ps);
    static const int64_t sorted[] = {0, 3, 8, 12}; /* the builder sorts the timeline */
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(snapshot_columns_time(timeline, i), sorted[i] * US);
    profile_free(profile);
    profile = timed_snapshot(far, 3, true);
    timeline = &profile->allocators[0].timeline;
    assert_non_null(timeline->time_ps);
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(snapshot_columns_time(timeline, i), (far[i] - epoch) * US);
    profile_free(profile);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_annotations_paired),
        cmocka_unit_test(test_contexts),
        cmocka_unit_test(test_real_capture_spans),
        cmocka_unit_test(test_times_narrow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
