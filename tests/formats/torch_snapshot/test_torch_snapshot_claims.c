/* test_torch_snapshot_claims: trace entries read from their bytes
 * (model/formats/torch_snapshot/torch_snapshot_claim.c) read as the
 * dicts the pickle reader builds do. Snapshots written as CPython's
 * pickler writes them (tests/formats/torch_snapshot/pickle_writer.c:
 * keys and actions memoized once and fetched after, APPENDS of 1000) with
 * every kind of pair a claim reads or leaves to the reader: integers of
 * each width, memoized frames, compile_context and user_metadata, a key
 * it does not know (with None, a bool, an integer), a fresh string in the
 * middle of a trace, entries without time, an action it does not know,
 * two devices; loaded with claims and without, inline and on the replay
 * thread: the same profile. */
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
#include "tests/formats/torch_snapshot/pickle_writer.h"
#include "tests/test_support.h"

static void member_key(struct pickle_writer *w, const char *key)
{
    pickle_write_key(w, key);
}

static uint32_t write_frames(struct pickle_writer *w, size_t seed, size_t depth);

/* The entry whose compile_context names memo index 2^32 - 1 (none: SIZE_MAX). */
static size_t broken_entry = SIZE_MAX;

/* Entry i: its index picks its action, widths and which of the rarer
 * pairs it has; its traceback is frames[pick], written here (in the
 * entry, as pybind writes a new one) when that id is still UINT32_MAX. */
static void write_entry(struct pickle_writer *w, size_t i, uint32_t *frames, size_t pick,
                        size_t seed, bool with_time)
{
    static const char *const actions[] = {"alloc", "free_requested", "free_completed", "alloc",
                                          "segment_alloc", "snapshot", "mystery_action"};
    const char *action = actions[i % 7];
    size_t pairs = 7 + (with_time ? 1 : 0) + (i % 5 == 0) + (i % 11 == 0);
    pickle_write_dict(w, pairs);
    member_key(w, "action");
    pickle_write_key(w, action); /* memoized once, fetched after: as pybind's */
    pickle_write_item_done(w);
    member_key(w, "addr");
    /* LONG1 of 6 bytes, BININT, BININT2, BININT1 by turns */
    int64_t addresses[] = {0x7f0000000000 + (int64_t)(i / 3) * 512, 70000 + (int64_t)i,
                           600 + (int64_t)(i % 100), (int64_t)(i % 200)};
    pickle_write_int(w, addresses[i % 4]);
    pickle_write_item_done(w);
    member_key(w, "size");
    pickle_write_int(w, (int64_t)((i * 7919) % 3000000) + 1);
    pickle_write_item_done(w);
    member_key(w, "stream");
    pickle_write_int(w, i % 13 == 0 ? 0x7f1234 : 0);
    pickle_write_item_done(w);
    if (with_time) {
        member_key(w, "time_us");
        pickle_write_int(w, 1700000000000000 + (int64_t)i * 3);
        pickle_write_item_done(w);
    }
    member_key(w, "compile_context");
    if (i == broken_entry)
        pickle_write_get(w, UINT32_MAX); /* a memo index no pickle fills */
    else
        pickle_write_key(w, i % 17 == 0 ? "torch_compile_0" : "N/A");
    pickle_write_item_done(w);
    member_key(w, "user_metadata");
    pickle_write_key(w, i % 23 == 0 ? "epoch 3" : "");
    pickle_write_item_done(w);
    if (i % 5 == 0) { /* a key no entry reader knows: None, a bool, an integer */
        member_key(w, "extra_field");
        if (i % 3 == 0)
            pickle_write_none(w);
        else if (i % 3 == 1)
            pickle_write_bool(w, i % 2 == 0);
        else
            pickle_write_int(w, -5);
        pickle_write_item_done(w);
    }
    if (i % 11 == 0) { /* a fresh string: memoized, so the reader reads it */
        member_key(w, "note");
        char text[32];
        snprintf(text, sizeof text, "note %zu", i);
        pickle_write_str(w, text);
        pickle_write_item_done(w);
    }
    member_key(w, "frames");
    if (frames[pick] == UINT32_MAX)
        frames[pick] = write_frames(w, seed, 2 + pick);
    else
        pickle_write_get(w, frames[pick]);
    pickle_write_item_done(w);
}

/* A frames list of `depth` frame dicts, memoized: its id. */
static uint32_t write_frames(struct pickle_writer *w, size_t seed, size_t depth)
{
    uint32_t id = pickle_write_list(w, depth);
    for (size_t f = 0; f < depth; f++) {
        pickle_write_dict(w, 3);
        member_key(w, "filename");
        char file[48];
        snprintf(file, sizeof file, f % 2 ? "/src/aten/op%zu.cpp" : "/home/u/train%zu.py",
                 (seed + f) % 4);
        pickle_write_str(w, file);
        pickle_write_item_done(w);
        member_key(w, "line");
        pickle_write_int(w, (int64_t)(seed * 10 + f));
        pickle_write_item_done(w);
        member_key(w, "name");
        char name[32];
        snprintf(name, sizeof name, "fn_%zu", (seed + f) % 7);
        pickle_write_str(w, name);
        pickle_write_item_done(w);
        pickle_write_item_done(w);
    }
    return id;
}

/* {"device_traces": [trace of `entries`, ...], "segments": []} */
static char *write_snapshot(size_t entries, size_t devices, bool with_time, size_t *size)
{
    char *bytes = NULL;
    FILE *file = open_memstream(&bytes, size);
    assert_non_null(file);
    struct pickle_writer *w = pickle_writer_new(file, 4);
    assert_non_null(w);
    pickle_write_dict(w, 2);
    member_key(w, "segments");
    pickle_write_list(w, 0);
    pickle_write_item_done(w);
    member_key(w, "device_traces");
    pickle_write_list(w, devices);
    for (size_t d = 0; d < devices; d++) {
        pickle_write_list(w, entries);
        /* Tracebacks first met in the middle of the trace too (every
         * 400 entries a new one): claims leave those entries to the
         * reader, which memoizes the list. */
        uint32_t frames[6] = {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX,
                              UINT32_MAX};
        for (size_t i = 0; i < entries; i++) {
            size_t known = i / 400 + 1 < 6 ? i / 400 + 1 : 6;
            write_entry(w, i, frames, i % 400 == 0 && i / 400 < 6 ? i / 400 : i % known,
                        d * 10 + i % known, with_time);
            pickle_write_item_done(w);
        }
        pickle_write_item_done(w);
    }
    pickle_write_item_done(w);
    assert_true(pickle_writer_finish(w));
    assert_int_equal(fclose(file), 0);
    return bytes;
}

static struct profile *load(const char *bytes, size_t size, bool claims, size_t threshold)
{
    load_torch_snapshot_set_claims(claims);
    load_torch_snapshot_set_pipeline_threshold(threshold);
    struct profile *profile = NULL;
    struct load_error error;
    enum load_status status =
        profile_load_bytes((const uint8_t *)bytes, size, "claims.pickle", NULL, &profile, &error);
    load_torch_snapshot_set_claims(true);
    load_torch_snapshot_set_pipeline_threshold(0);
    if (status != LOAD_OK)
        fail_msg("%s", error.message);
    return profile;
}

static void expect_claims_read_as_dicts(size_t entries, size_t devices, bool with_time)
{
    size_t size;
    char *bytes = write_snapshot(entries, devices, with_time, &size);
    struct profile *dicts = load(bytes, size, false, SIZE_MAX);
    struct profile *claimed = load(bytes, size, true, SIZE_MAX);
    struct profile *threaded = load(bytes, size, true, 1);
    assert_int_equal(dicts->allocator_count, devices);
    assert_int_equal(dicts->allocators[0].timeline.count, entries);
    assert_true(dicts->warning_count > 0); /* the unknown action said */
    test_assert_profiles_equal(dicts, claimed);
    test_assert_profiles_equal(dicts, threaded);
    profile_free(dicts);
    profile_free(claimed);
    profile_free(threaded);
    free(bytes);
}

static void test_claims_read_as_dicts(void **state)
{
    (void)state;
    expect_claims_read_as_dicts(3500, 2, true);
    expect_claims_read_as_dicts(2200, 1, false); /* no time_us: the entry index */
    expect_claims_read_as_dicts(999, 1, true);   /* one batch: nothing claimed */
}

/* A claimed entry taken where it does not belong is refused, as a
 * pickle whose dicts the reader built and a consumer took would be:
 * here the dicts after the first batch go to a tuple, not the trace. */
static void test_claim_out_of_place(void **state)
{
    (void)state;
    size_t size;
    char *bytes = write_snapshot(1500, 1, true, &size);
    /* The last APPENDS ('e') before the trace's end becomes a TUPLE ('t'). */
    char *last = NULL;
    for (size_t i = size; i-- > 0 && !last;)
        if (bytes[i] == 'e' && i > 0 && bytes[i - 1] == 'u')
            last = &bytes[i];
    assert_non_null(last);
    *last = 't';
    struct profile *profile = NULL;
    struct load_error error;
    enum load_status status =
        profile_load_bytes((const uint8_t *)bytes, size, "claims.pickle", NULL, &profile, &error);
    assert_int_equal(status, LOAD_BAD_INPUT);
    assert_null(profile);
    load_torch_snapshot_set_claims(false);
    status =
        profile_load_bytes((const uint8_t *)bytes, size, "claims.pickle", NULL, &profile, &error);
    load_torch_snapshot_set_claims(true);
    assert_int_equal(status, LOAD_BAD_INPUT);
    free(bytes);
}

/* A memo index no memo holds, in an entry a claim would read: refused
 * with the reader's message, claims or not. */
static void test_claim_bad_index(void **state)
{
    (void)state;
    size_t size;
    broken_entry = 1201; /* in the second batch, with no pair a claim leaves */
    char *bytes = write_snapshot(1500, 1, true, &size);
    broken_entry = SIZE_MAX;
    struct profile *profile = NULL;
    struct load_error claimed = {0}, read = {0};
    assert_int_equal(profile_load_bytes((const uint8_t *)bytes, size, "claims.pickle", NULL,
                                        &profile, &claimed),
                     LOAD_BAD_INPUT);
    load_torch_snapshot_set_claims(false);
    assert_int_equal(profile_load_bytes((const uint8_t *)bytes, size, "claims.pickle", NULL,
                                        &profile, &read),
                     LOAD_BAD_INPUT);
    load_torch_snapshot_set_claims(true);
    assert_null(profile);
    assert_string_equal(claimed.message, read.message);
    free(bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_claims_read_as_dicts),
        cmocka_unit_test(test_claim_out_of_place),
        cmocka_unit_test(test_claim_bad_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
