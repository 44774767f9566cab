/* Hostile and broken input: the catalogue of bad profiles memtop must
 * refuse with one clear line (LOAD_BAD_INPUT, exit status 2), and of odd
 * ones it must load safely. Profiles come from other machines and other
 * tools: nothing here may crash, hang or leak (the suite also runs under
 * ASan+UBSan and valgrind). The crash inputs the fuzzers found, in
 * tests/fuzz/regressions/, are loaded here too. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "model/format.h"
#include "model/gzip.h"
#include "model/load.h"
#include "model/profile.h"
#include "model/profile_builder.h"
#include "model/timeline.h"
#include "tests/test_support.h"
#include "tests/wire_builder.h"

/* ---- bytes in memory ---- */

/* Appends `message` as field `field`, then frees it. */
static void put_message(struct wire_bytes *bytes, uint32_t field, struct wire_bytes *message)
{
    wire_bytes_put_message_field(bytes, field, message);
    wire_bytes_free(message);
}

/* A MemoryProfileSnapshot: time, stack, heap, fragmentation, activity, op. */
struct snapshot_spec {
    int64_t time_ps;
    int64_t stack_bytes;
    int64_t heap_bytes;
    double fragmentation;
    int64_t activity;
    const char *op;
};

static void put_snapshot(struct wire_bytes *allocator, uint32_t field, struct snapshot_spec spec)
{
    struct wire_bytes stats = {0}, metadata = {0}, snapshot = {0};
    wire_bytes_put_varint_field(&stats, 1, (uint64_t)spec.stack_bytes);
    wire_bytes_put_varint_field(&stats, 2, (uint64_t)spec.heap_bytes);
    wire_bytes_put_double_field(&stats, 4, spec.fragmentation);
    wire_bytes_put_varint_field(&metadata, 1, (uint64_t)spec.activity);
    if (spec.op)
        wire_bytes_put_string_field(&metadata, 5, spec.op);
    wire_bytes_put_varint_field(&snapshot, 1, (uint64_t)spec.time_ps);
    put_message(&snapshot, 2, &stats);
    put_message(&snapshot, 3, &metadata);
    put_message(allocator, field, &snapshot);
}

static void put_active(struct wire_bytes *allocator, int64_t snapshot_index,
                       int64_t special_index, int64_t occurrences)
{
    struct wire_bytes active = {0};
    wire_bytes_put_varint_field(&active, 1, (uint64_t)snapshot_index);
    wire_bytes_put_varint_field(&active, 2, (uint64_t)special_index);
    wire_bytes_put_varint_field(&active, 3, (uint64_t)occurrences);
    put_message(allocator, 3, &active);
}

/* One memory_profile_per_allocator entry; frees `allocator`. */
static void put_allocator(struct wire_bytes *profile, const char *id,
                          struct wire_bytes *allocator)
{
    struct wire_bytes entry = {0};
    wire_bytes_put_string_field(&entry, 1, id);
    put_message(&entry, 2, allocator);
    put_message(profile, 1, &entry);
}

/* A small, valid version 0 profile: two allocators, five snapshots, a
 * summary-less timeline and two rows; the base for damaged copies. */
static struct wire_bytes small_profile(void)
{
    struct wire_bytes profile = {0}, gpu = {0}, cpu = {0};
    put_snapshot(&gpu, 1, (struct snapshot_spec){10, 0, 100, 0.5, 1, "conv"});
    put_snapshot(&gpu, 1, (struct snapshot_spec){20, 0, 300, 0.25, 1, "matmul"});
    put_snapshot(&gpu, 1, (struct snapshot_spec){30, 0, 200, 0.0, 2, "conv"});
    put_active(&gpu, 1, -1, 1);
    put_active(&gpu, 0, -1, 2);
    put_snapshot(&cpu, 1, (struct snapshot_spec){5, 8, 16, 0.0, 1, "copy"});
    put_snapshot(&cpu, 1, (struct snapshot_spec){6, 8, 0, 0.0, 2, "copy"});
    put_allocator(&profile, "GPU_0_bfc", &gpu);
    put_allocator(&profile, "cpu", &cpu);
    wire_bytes_put_varint_field(&profile, 2, 1);
    wire_bytes_put_string_field(&profile, 3, "GPU_0_bfc");
    wire_bytes_put_string_field(&profile, 3, "cpu");
    return profile;
}

static const char small_json[] =
    "{\"memoryProfilePerAllocator\":{\"GPU_0_bfc\":{\"memoryProfileSnapshots\":["
    "{\"timeOffsetPs\":\"10\",\"aggregationStats\":{\"heapAllocatedBytes\":\"100\","
    "\"fragmentation\":0.5},\"activityMetadata\":{\"memoryActivity\":\"ALLOCATION\","
    "\"tfOpName\":\"conv\",\"tensorShape\":\"[3,3]\"}},"
    "{\"timeOffsetPs\":\"20\",\"aggregationStats\":{\"heapAllocatedBytes\":\"300\"},"
    "\"activityMetadata\":{\"memoryActivity\":\"DEALLOCATION\",\"tfOpName\":\"conv\"}}],"
    "\"activeAllocations\":[{\"snapshotIndex\":\"0\",\"specialIndex\":\"-1\","
    "\"numOccurrences\":\"1\"}]}},"
    "\"numHosts\":1,\"memoryIds\":[\"GPU_0_bfc\"],\"version\":0}";

/* ---- loading and checking ---- */

/* A refusal: LOAD_BAD_INPUT, no profile, one line holding `expected`. */
static void expect_refused(enum load_status status, struct profile *profile,
                           const struct load_error *error, const char *expected)
{
    if (status != LOAD_BAD_INPUT)
        fail_msg("expected LOAD_BAD_INPUT (\"%s\"), got status %d: %s", expected, (int)status,
                 status == LOAD_OK ? "(loaded)" : error->message);
    assert_null(profile);
    assert_null(strchr(error->message, '\n'));
    if (!strstr(error->message, expected))
        fail_msg("error \"%s\" lacks \"%s\"", error->message, expected);
}

static void expect_bytes_refused(const void *data, size_t size, const char *expected)
{
    struct profile *profile = (struct profile *)1;
    struct load_error error = {0};
    enum load_status status = profile_load_bytes(data, size, "bad", NULL, &profile, &error);
    expect_refused(status, profile, &error, expected);
}

static void expect_text_refused(const char *text, const char *expected)
{
    expect_bytes_refused(text, strlen(text), expected);
}

static struct profile *load_bytes_ok(const void *data, size_t size)
{
    struct profile *profile = NULL;
    struct load_error error = {0};
    enum load_status status = profile_load_bytes(data, size, "odd", NULL, &profile, &error);
    if (status != LOAD_OK)
        fail_msg("expected to load, got status %d: %s", (int)status, error.message);
    assert_non_null(profile);
    return profile;
}

static struct profile *load_text_ok(const char *text)
{
    return load_bytes_ok(text, strlen(text));
}

/* Any outcome but a crash: loaded, or refused with a message. Returns the
 * status; the profile, if any, is freed. */
static enum load_status load_any(const void *data, size_t size)
{
    struct profile *profile = NULL;
    struct load_error error = {0};
    enum load_status status = profile_load_bytes(data, size, "any", NULL, &profile, &error);
    if (status == LOAD_OK) {
        assert_non_null(profile);
        assert_true(profile->allocator_count > 0);
    } else {
        assert_int_equal(status, LOAD_BAD_INPUT);
        assert_null(profile);
        assert_true(error.message[0] != '\0');
        assert_null(strchr(error.message, '\n'));
    }
    profile_free(profile);
    return status;
}

static const struct allocator *allocator_named(const struct profile *profile, const char *id)
{
    long index = profile_find_allocator(profile, text_of(id));
    if (index < 0)
        fail_msg("no allocator %s", id);
    return &profile->allocators[index];
}

/* ---- files ---- */

static const char *file_path(const char *name)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", test_directory(), name);
    return path;
}

static const char *write_file(const char *name, const void *data, size_t size)
{
    const char *path = file_path(name);
    FILE *file = fopen(path, "wb");
    assert_non_null(file);
    if (size)
        assert_int_equal(fwrite(data, 1, size, file), size);
    assert_int_equal(fclose(file), 0);
    return path;
}

static void expect_file_refused(const char *path, const char *expected)
{
    struct profile *profile = (struct profile *)1;
    struct load_error error = {0};
    enum load_status status = profile_load(path, NULL, &profile, &error);
    expect_refused(status, profile, &error, expected);
}

/* ==== files that are not profiles ==== */

static void test_missing_and_empty_files(void **state)
{
    (void)state;
    expect_file_refused(file_path("missing.pb"), "No such file or directory");
    expect_file_refused(write_file("empty.pb", "", 0), "empty file");
    expect_bytes_refused("", 0, "empty file");
}

static void test_directory_fifo_and_device(void **state)
{
    (void)state;
    expect_file_refused(test_directory(), "is a directory");
    /* A FIFO or a device is read as a pipe is (issue 15; a FIFO waits for
     * its writer, as cat does: tests/test_load_stream.c); one with
     * nothing in it is refused as empty. */
    expect_file_refused("/dev/null", "empty input");
}

/* Root reads any file: then the load runs in a child that has given up
 * root for nobody's ids. Exit 0 when the refusal was the expected one. */
static int load_as_nobody(const char *path)
{
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0)
            _exit(3);
        struct profile *profile = NULL;
        struct load_error error = {0};
        enum load_status status = profile_load(path, NULL, &profile, &error);
        _exit(status == LOAD_BAD_INPUT && !profile &&
                      strcmp(error.message, "Permission denied") == 0
                  ? 0
                  : 1);
    }
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}

static void test_unreadable_file(void **state)
{
    (void)state;
    const char *path = write_file("secret.json", small_json, strlen(small_json));
    assert_int_equal(chmod(path, 0), 0);
    if (geteuid() != 0) {
        expect_file_refused(path, "Permission denied");
        return;
    }
    assert_int_equal(chmod(test_directory(), 0711), 0);
    int result = load_as_nobody(path);
    assert_int_equal(chmod(test_directory(), 0700), 0);
    if (result == 3)
        TEST_SKIP("running as root and cannot become nobody");
    assert_int_equal(result, 0);
}

static void test_dangling_symlink(void **state)
{
    (void)state;
    char target[256];
    snprintf(target, sizeof target, "%s", file_path("nowhere.pb"));
    const char *link = file_path("link.pb");
    assert_int_equal(symlink(target, link), 0);
    expect_file_refused(link, "No such file or directory");
}

/* ==== broken binary protobuf ==== */

static void test_every_single_byte(void **state)
{
    (void)state;
    for (unsigned byte = 0; byte < 256; byte++) {
        uint8_t data = (uint8_t)byte;
        /* One byte is never a profile: no allocator fits in it. */
        assert_int_equal(load_any(&data, 1), LOAD_BAD_INPUT);
    }
    expect_bytes_refused("\x0a", 1, "offset 1: varint runs past the end of the data");
    expect_bytes_refused("{", 1, "invalid JSON");
    expect_bytes_refused("\x1f", 1, "offset 0: field 3 has invalid wire type 7");
}

static void test_every_prefix_of_a_profile(void **state)
{
    (void)state;
    struct wire_bytes profile = small_profile();
    struct profile *whole = load_bytes_ok(profile.data, profile.size);
    assert_int_equal(whole->allocator_count, 2);
    profile_free(whole);
    size_t refused = 0;
    for (size_t size = 0; size < profile.size; size++) {
        /* An exact copy, so ASan sees a read one past the prefix. */
        uint8_t *prefix = malloc(size ? size : 1);
        assert_non_null(prefix);
        memcpy(prefix, profile.data, size);
        refused += load_any(prefix, size) != LOAD_OK;
        free(prefix);
    }
    /* Most cuts land inside a field; the few at an entry's end load. */
    assert_true(refused > profile.size / 2);
    wire_bytes_free(&profile);
}

static void test_every_prefix_of_json_and_gzip(void **state)
{
    (void)state;
    size_t length = strlen(small_json);
    for (size_t size = 0; size < length; size++) {
        char *prefix = malloc(size ? size : 1);
        assert_non_null(prefix);
        memcpy(prefix, small_json, size);
        /* JSON is never complete before its last brace. */
        assert_int_equal(load_any(prefix, size), LOAD_BAD_INPUT);
        free(prefix);
    }
    size_t compressed_size;
    uint8_t *compressed = test_gzip_bytes(small_json, length, &compressed_size);
    for (size_t size = 1; size < compressed_size; size++) {
        uint8_t *prefix = malloc(size);
        assert_non_null(prefix);
        memcpy(prefix, compressed, size);
        assert_int_equal(load_any(prefix, size), LOAD_BAD_INPUT);
        free(prefix);
    }
    free(compressed);
}

static void test_wrong_wire_types(void **state)
{
    (void)state;
    /* memory_profile_per_allocator as a varint. */
    expect_bytes_refused("\x08\x01", 2, "offset 0: field 1 (memory_profile_per_allocator) "
                                        "has wire type 0, expected 2");
    /* version (field 5) as length-delimited. */
    expect_bytes_refused("\x2a\x00", 2, "offset 0: field 5 (version) has wire type 2");
    /* A snapshot's time (field 1 of the snapshot) as fixed32. */
    struct wire_bytes snapshot = {0}, allocator = {0}, profile = {0};
    wire_bytes_put_tag(&snapshot, 1, 5);
    wire_bytes_put_data(&snapshot, "\x01\x02\x03\x04", 4);
    put_message(&allocator, 1, &snapshot);
    put_allocator(&profile, "a", &allocator);
    expect_bytes_refused(profile.data, profile.size, "(time_offset_ps) has wire type 5");
    wire_bytes_free(&profile);
    expect_bytes_refused("\x0b\x0c", 2, "group wire type 3, not supported");
    expect_bytes_refused("\x0e\x00", 2, "invalid wire type 6");
    expect_bytes_refused("\x00\x01", 2, "offset 0: invalid field number 0");
}

static void test_lengths_past_the_end(void **state)
{
    (void)state;
    expect_bytes_refused("\x0a\x05\x00", 3,
                         "offset 1: length 5 runs past the end of the data (3 bytes)");
    /* 2^63 - 1: compared without wrapping. */
    expect_bytes_refused("\x0a\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 10,
                         "length 9223372036854775807 runs past the end");
    /* 2^64 - 1 as a ten-byte varint. */
    expect_bytes_refused("\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11,
                         "length 18446744073709551615 runs past the end");
    /* A length inside the file but past the end of its enclosing entry. */
    struct wire_bytes entry = {0}, profile = {0};
    wire_bytes_put_length_field(&entry, 1, "a", 1);
    wire_bytes_put_tag(&entry, 2, 2);
    wire_bytes_put_varint(&entry, 50);
    put_message(&profile, 1, &entry);
    wire_bytes_put_length_field(&profile, 99,
                                "padding padding padding padding padding padding padding", 55);
    expect_bytes_refused(profile.data, profile.size, "runs past the end of its message");
    wire_bytes_free(&profile);
}

static void test_overlong_and_truncated_varints(void **state)
{
    (void)state;
    expect_bytes_refused("\x10\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12,
                         "offset 1: varint longer than 10 bytes");
    /* A tag that never ends. */
    expect_bytes_refused("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 11,
                         "offset 0: varint longer than 10 bytes");
    expect_bytes_refused("\x10\xff\xff", 3, "offset 1: varint runs past the end of the data");
    /* A fixed64 cut short. */
    expect_bytes_refused("\x49\x01\x02", 3, "fixed64 value runs past the end");
}

static void test_no_allocators(void **state)
{
    (void)state;
    /* Valid protobuf, but nothing a memory profile holds. */
    expect_bytes_refused("\x10\x01\x28\x01", 4, "no allocators");
    expect_text_refused("{\"memoryProfilePerAllocator\":{}}", "no allocators");
    expect_text_refused("{\"memoryProfilePerAllocator\":{},\"memoryIds\":[\"gpu\"]}",
                        "no allocators");
    expect_text_refused("{}", "no allocators");
    expect_text_refused("[{}]", "no allocators");
}

/* ==== odd numbers that must load ==== */

static void test_negative_and_huge_sizes(void **state)
{
    (void)state;
    struct wire_bytes allocator = {0}, profile = {0};
    put_snapshot(&allocator, 1, (struct snapshot_spec){1, INT64_MAX, INT64_MAX, 0.0, 1, "max"});
    put_snapshot(&allocator, 1, (struct snapshot_spec){2, -1, INT64_MIN, 0.0, 2, "min"});
    put_snapshot(&allocator, 1, (struct snapshot_spec){3, -5, -7, 0.0, 1000, "odd activity"});
    put_active(&allocator, 0, -1, INT64_MAX);
    put_active(&allocator, 1, -1, -3);
    put_allocator(&profile, "gpu", &allocator);
    wire_bytes_put_varint_field(&profile, 2, (uint64_t)-2); /* num_hosts */
    wire_bytes_put_varint_field(&profile, 5, (uint64_t)INT64_MIN); /* version */
    struct profile *loaded = load_bytes_ok(profile.data, profile.size);
    wire_bytes_free(&profile);
    const struct allocator *gpu = allocator_named(loaded, "gpu");
    assert_int_equal(gpu->timeline.count, 3);
    /* stack + heap saturates instead of overflowing. */
    assert_true(snapshot_columns_in_use(&gpu->timeline, 0) == INT64_MAX);
    assert_true(snapshot_columns_in_use(&gpu->timeline, 1) == INT64_MIN);
    assert_true(gpu->summary.derived);
    assert_true(gpu->summary.peak_bytes == INT64_MAX);
    assert_true(gpu->summary.peak_time_ps == 1);
    /* An activity past the enum is an unknown one, not a crash. */
    assert_int_equal(gpu->timeline.activity[2], MEMORY_ACTIVITY_UNKNOWN);
    assert_int_equal(gpu->summary.allocations, 1);
    assert_int_equal(gpu->summary.deallocations, 1);
    assert_int_equal(gpu->row_count, 2);
    assert_true(gpu->rows[0].occurrences == INT64_MAX);
    assert_true(gpu->rows[1].occurrences == -3);
    assert_int_equal(loaded->num_hosts, -2);
    assert_int_equal(loaded->version, 0); /* the low 32 bits of INT64_MIN */
    char text[FORMAT_BYTES_SIZE];
    assert_string_equal(format_bytes(gpu->summary.peak_bytes, text, sizeof text), "8.00 EiB");
    profile_free(loaded);
}

static void test_indices_out_of_range(void **state)
{
    (void)state;
    struct wire_bytes allocator = {0}, profile = {0};
    put_snapshot(&allocator, 1, (struct snapshot_spec){1, 0, 64, 0.0, 1, "only"});
    put_active(&allocator, 0, -1, 1);          /* fine */
    put_active(&allocator, 1, -1, 1);          /* one past the end */
    put_active(&allocator, INT64_MAX, -1, 1);  /* far past */
    put_active(&allocator, -1, 0, 1);          /* a special that does not exist */
    put_active(&allocator, -1, INT64_MIN, 1);  /* a negative special */
    put_active(&allocator, INT64_MIN, INT64_MAX, 1);
    put_allocator(&profile, "gpu", &allocator);
    struct profile *loaded = load_bytes_ok(profile.data, profile.size);
    wire_bytes_free(&profile);
    const struct allocator *gpu = allocator_named(loaded, "gpu");
    assert_int_equal(gpu->row_count, 6);
    assert_int_equal(gpu->rows[0].origin, ROW_FROM_SNAPSHOT);
    assert_string_equal(profile_text(loaded, gpu->rows[0].op_name), "only");
    for (size_t i = 1; i < 6; i++) {
        /* Shown, flagged, and keeping the indices the file had. */
        assert_int_equal(gpu->rows[i].origin, ROW_UNRESOLVED);
        assert_false(gpu->rows[i].has_time);
    }
    assert_true(gpu->rows[2].snapshot_index == INT64_MAX);
    assert_true(gpu->rows[4].special_index == INT64_MIN);
    assert_true(gpu->rows[5].snapshot_index == INT64_MIN);
    profile_free(loaded);
}

static void test_odd_fragmentation(void **state)
{
    (void)state;
    struct wire_bytes allocator = {0}, profile = {0};
    put_snapshot(&allocator, 1, (struct snapshot_spec){1, 0, 10, NAN, 1, "nan"});
    put_snapshot(&allocator, 1, (struct snapshot_spec){2, 0, 20, INFINITY, 1, "inf"});
    put_snapshot(&allocator, 1, (struct snapshot_spec){3, 0, 30, -INFINITY, 1, "-inf"});
    put_snapshot(&allocator, 1, (struct snapshot_spec){4, 0, 40, 12345.0, 1, "big"});
    put_snapshot(&allocator, 1, (struct snapshot_spec){5, 0, 5, -0.5, 1, "negative"});
    put_allocator(&profile, "gpu", &allocator);
    struct profile *loaded = load_bytes_ok(profile.data, profile.size);
    wire_bytes_free(&profile);
    const struct allocator *gpu = allocator_named(loaded, "gpu");
    assert_true(isnan(gpu->timeline.fragmentation[0]));
    assert_true(isinf(gpu->timeline.fragmentation[1]) && gpu->timeline.fragmentation[1] > 0);
    assert_true(isinf(gpu->timeline.fragmentation[2]) && gpu->timeline.fragmentation[2] < 0);
    /* The derived peak is the largest heap, whose fragmentation is 12345. */
    assert_true(gpu->summary.peak_time_ps == 4);
    char text[32];
    assert_string_equal(format_percent(gpu->summary.peak.fragmentation, text, sizeof text),
                        "1234500.00 %");
    assert_string_equal(format_percent(NAN, text, sizeof text), "nan");
    assert_string_equal(format_percent(-INFINITY, text, sizeof text), "-inf");
    profile_free(loaded);

    /* JSON spells them as strings; a bare number past the double range is
     * refused rather than read as infinity. */
    loaded = load_text_ok("{\"memoryProfilePerAllocator\":{\"a\":{\"memoryProfileSnapshots\":["
                          "{\"aggregationStats\":{\"fragmentation\":\"NaN\"}},"
                          "{\"aggregationStats\":{\"fragmentation\":\"-Infinity\"}},"
                          "{\"aggregationStats\":{\"fragmentation\":1e300}}]}}}");
    assert_true(isnan(loaded->allocators[0].timeline.fragmentation[0]));
    assert_true(isinf(loaded->allocators[0].timeline.fragmentation[1]));
    assert_true(loaded->allocators[0].timeline.fragmentation[2] == 1e300);
    profile_free(loaded);
    expect_text_refused("{\"memoryProfilePerAllocator\":{\"a\":{\"memoryProfileSnapshots\":["
                        "{\"aggregationStats\":{\"fragmentation\":1e999}}]}}}",
                        "fragmentation: expected a number, got");
    expect_text_refused("{\"memoryProfilePerAllocator\":{\"a\":{\"memoryProfileSnapshots\":["
                        "{\"aggregationStats\":{\"fragmentation\":\"0x1p3\"}}]}}}",
                        "fragmentation: expected a number, got \"0x1p3\"");
}

static void test_unsorted_and_duplicate_times(void **state)
{
    (void)state;
    struct wire_bytes allocator = {0}, profile = {0};
    put_snapshot(&allocator, 1, (struct snapshot_spec){30, 0, 3, 0.0, 1, "c"});
    put_snapshot(&allocator, 1, (struct snapshot_spec){10, 0, 1, 0.0, 1, "a"});
    put_snapshot(&allocator, 1, (struct snapshot_spec){20, 0, 2, 0.0, 1, "b1"});
    put_snapshot(&allocator, 1, (struct snapshot_spec){20, 0, 2, 0.0, 1, "b2"});
    put_snapshot(&allocator, 1, (struct snapshot_spec){INT64_MIN, 0, 0, 0.0, 1, "first"});
    put_snapshot(&allocator, 1, (struct snapshot_spec){INT64_MAX, 0, 0, 0.0, 1, "last"});
    put_snapshot(&allocator, 1, (struct snapshot_spec){20, 0, 2, 0.0, 1, "b3"});
    put_active(&allocator, 0, -1, 1); /* the file's snapshot 0: "c" */
    put_allocator(&profile, "gpu", &allocator);
    struct profile *loaded = load_bytes_ok(profile.data, profile.size);
    wire_bytes_free(&profile);
    const struct allocator *gpu = allocator_named(loaded, "gpu");
    static const char *const order[] = {"first", "a", "b1", "b2", "b3", "c", "last"};
    assert_int_equal(gpu->timeline.count, 7);
    for (size_t i = 0; i < 7; i++)
        assert_string_equal(profile_text(loaded, gpu->timeline.op_name[i]), order[i]);
    /* Rows point at the file's order, not the sorted one. */
    assert_string_equal(profile_text(loaded, gpu->rows[0].op_name), "c");
    assert_true(gpu->rows[0].time_ps == 30);
    /* Searches at the extremes do not overflow. */
    assert_int_equal(timeline_nearest(&gpu->timeline, INT64_MIN), 0);
    assert_int_equal(timeline_nearest(&gpu->timeline, INT64_MAX), 6);
    assert_int_equal(timeline_nearest(&gpu->timeline, 0), 1);
    assert_int_equal(timeline_find_time(&gpu->timeline, 20), 2);
    profile_free(loaded);
}

static void test_memory_ids_naming_missing_allocators(void **state)
{
    (void)state;
    struct profile *loaded = load_text_ok(
        "{\"memoryIds\":[\"ghost\",\"cpu\",\"\",\"cpu\",\"phantom\"],"
        "\"memoryProfilePerAllocator\":{\"gpu\":{},\"cpu\":{}}}");
    /* The ghosts are ignored; named allocators first, the rest after. */
    assert_int_equal(loaded->allocator_count, 2);
    assert_string_equal(profile_text(loaded, loaded->allocators[0].id), "cpu");
    assert_string_equal(profile_text(loaded, loaded->allocators[1].id), "gpu");
    assert_int_equal(loaded->allocators[0].timeline.count, 0);
    profile_free(loaded);
}

/* Issue 16.5: a repeated map key no longer merges its entries' snapshots
 * (that made an allocator XProf never shows): the last entry wins, as
 * protobuf reads a map, in JSON and in binary alike, and the profile
 * carries one escaped warning per repeated key. */
static void test_duplicate_allocator_keys_last_entry_wins(void **state)
{
    (void)state;
    struct profile *loaded = load_text_ok(
        "{\"memoryProfilePerAllocator\":{"
        "\"gpu\":{\"memoryProfileSnapshots\":[{\"timeOffsetPs\":\"2\"}]},"
        "\"gpu\":{\"memoryProfileSnapshots\":[{\"timeOffsetPs\":\"1\"},"
        "{\"timeOffsetPs\":\"3\"}]},"
        "\"gpu\":{\"memoryProfileSnapshots\":[{\"timeOffsetPs\":\"1\"}]}}}");
    assert_int_equal(loaded->allocator_count, 1);
    assert_int_equal(loaded->allocators[0].timeline.count, 1);
    assert_true(loaded->allocators[0].timeline.time_ps[0] == 1);
    assert_int_equal(loaded->warning_count, 1);
    assert_string_equal(test_warning(loaded, 0),
                        "the file repeats map key \"gpu\"; the last entry wins, as protobuf reads it");
    profile_free(loaded);

    /* Binary: A with one snapshot, then A with two gives A with two. */
    struct wire_bytes first = {0}, second = {0}, profile = {0};
    put_snapshot(&first, 1, (struct snapshot_spec){10, 0, 1, 0.0, 1, "early"});
    put_snapshot(&second, 1, (struct snapshot_spec){20, 0, 2, 0.0, 1, "late"});
    put_snapshot(&second, 1, (struct snapshot_spec){30, 0, 3, 0.0, 2, "late"});
    put_allocator(&profile, "A\x1b[2J", &first);
    put_allocator(&profile, "A\x1b[2J", &second);
    loaded = load_bytes_ok(profile.data, profile.size);
    wire_bytes_free(&profile);
    assert_int_equal(loaded->allocator_count, 1);
    assert_int_equal(loaded->allocators[0].timeline.count, 2);
    assert_true(loaded->allocators[0].timeline.time_ps[0] == 20);
    assert_int_equal(loaded->warning_count, 1);
    /* The key is file text: kept raw, escaped once where it is shown. */
    assert_string_equal(test_warning(loaded, 0), "the file repeats map key \"A\\x1b[2J\"; the last "
                                                 "entry wins, as protobuf reads it");
    assert_non_null(strstr(profile_text(loaded, loaded->warnings[0]), "\"A\x1b[2J\""));
    profile_free(loaded);
}

/* However many keys repeat, the warnings stay few. */
static void test_many_repeated_keys_warn_in_bounds(void **state)
{
    (void)state;
    struct wire_bytes profile = {0};
    for (int round = 0; round < 2; round++) {
        for (int key = 0; key < 40; key++) {
            char id[16];
            snprintf(id, sizeof id, "gpu%d", key);
            struct wire_bytes allocator = {0};
            put_snapshot(&allocator, 1, (struct snapshot_spec){round, 0, 1, 0.0, 1, "x"});
            put_allocator(&profile, id, &allocator);
        }
    }
    struct profile *loaded = load_bytes_ok(profile.data, profile.size);
    wire_bytes_free(&profile);
    assert_int_equal(loaded->allocator_count, 40);
    assert_int_equal(loaded->warning_count, PROFILE_WARNINGS_MAX + 1);
    assert_string_equal(test_warning(loaded, PROFILE_WARNINGS_MAX),
                        "... and 24 more warnings like these");
    profile_free(loaded);
}

/* ==== broken JSON ==== */

static void test_json_wrong_types(void **state)
{
    (void)state;
    expect_text_refused("{\"numHosts\":\"x\"}", "numHosts: expected a 32-bit integer, got \"x\"");
    expect_text_refused("{\"numHosts\":4294967296}", "numHosts: expected a 32-bit integer");
    expect_text_refused("{\"memoryIds\":5}", "memoryIds: expected an array, got 5");
    expect_text_refused("{\"memoryIds\":[1]}", "memoryIds[0]: expected a string, got 1");
    expect_text_refused("{\"memoryProfilePerAllocator\":[]}",
                        "memoryProfilePerAllocator: expected an object, got an array");
    expect_text_refused("{\"memoryProfilePerAllocator\":{\"a\":true}}",
                        "memoryProfilePerAllocator.a: expected an object, got true");
    expect_text_refused("{\"memoryProfilePerAllocator\":{\"a\":{\"memoryProfileSnapshots\":"
                        "[{\"timeOffsetPs\":\"12.5\"}]}}}",
                        "memoryProfileSnapshots[0].timeOffsetPs: expected a 64-bit integer, "
                        "got \"12.5\"");
    expect_text_refused("{\"memoryProfilePerAllocator\":{\"a\":{\"memoryProfileSnapshots\":"
                        "[{\"timeOffsetPs\":\"9223372036854775808\"}]}}}",
                        "expected a 64-bit integer, got \"9223372036854775808\"");
    expect_text_refused("{\"memoryProfilePerAllocator\":{\"a\":{\"memoryProfileSnapshots\":"
                        "[{\"activityMetadata\":{\"address\":\"-1\"}}]}}}",
                        "address: expected an unsigned 64-bit integer, got \"-1\"");
    expect_text_refused("{\"memoryProfilePerAllocator\":{\"a\":{\"memoryProfileSnapshots\":"
                        "[{\"activityMetadata\":{\"memoryActivity\":\"FREE\"}}]}}}",
                        "memoryActivity: expected a MemoryActivity name or number, got \"FREE\"");
    expect_text_refused("{\"memoryProfilePerAllocator\":{\"a\":{\"memoryProfileSnapshots\":"
                        "[{\"activityMetadata\":{\"tfOpName\":[]}}]}}}",
                        "tfOpName: expected a string, got an array");
    expect_text_refused("[{},{}]", "top level: expected a MemoryProfile object, got an array");
    /* Plain text: no format claims it (it was read as protobuf, with a
     * wire-type error, before issue 15). */
    expect_text_refused("42", "not a memory profile");
    expect_text_refused("{} trailing", "offset 3: invalid JSON");
    expect_text_refused("{\"a\":\"unterminated}", "invalid JSON");
}

/* The path in a JSON error shows the file's key: a control byte in it is
 * escaped where the message is shown, so the one line stays one line and
 * moves no cursor. */
static void test_json_error_escapes_file_text(void **state)
{
    (void)state;
    struct profile *profile = (struct profile *)1;
    struct load_error error = {0};
    const char *text = "{\"memoryProfilePerAllocator\":{\"\\u001b[2J\\n\":5}}";
    assert_int_equal(profile_load_bytes((const uint8_t *)text, strlen(text), "x", NULL, &profile,
                                        &error),
                     LOAD_BAD_INPUT);
    /* The message keeps the key raw; shown, it is escaped once. */
    assert_non_null(strstr(error.message, "\x1b[2J\n"));
    const char *shown = test_shown(load_error_message(&error));
    for (const char *p = shown; *p; p++)
        assert_true((unsigned char)*p >= 0x20 && *p != 0x7f);
    assert_non_null(strstr(shown, "\\x1b[2J\\x0a"));
}

static void test_json_deep_nesting(void **state)
{
    (void)state;
    enum { DEPTH = 5000 };
    char *text = malloc(2 * DEPTH + 64);
    assert_non_null(text);
    /* 5000 nested arrays: refused by the parser's depth limit, no recursion
     * deep enough to overflow the stack. */
    memset(text, '[', DEPTH);
    memset(text + DEPTH, ']', DEPTH);
    text[2 * DEPTH] = '\0';
    expect_text_refused(text, "invalid JSON");
    /* The same under an unknown key of a real profile. */
    int length = sprintf(text, "{\"memoryProfilePerAllocator\":{\"a\":{}},\"x\":");
    memset(text + length, '[', DEPTH);
    memset(text + length + DEPTH, ']', DEPTH);
    strcpy(text + length + 2 * DEPTH, "}");
    expect_text_refused(text, "invalid JSON");
    free(text);

    /* Moderate nesting under an unknown key is skipped. */
    char shallow[512];
    length = sprintf(shallow, "{\"memoryProfilePerAllocator\":{\"a\":{}},\"x\":");
    for (int i = 0; i < 100; i++)
        shallow[length++] = '[';
    for (int i = 0; i < 100; i++)
        shallow[length++] = ']';
    strcpy(shallow + length, "}");
    struct profile *loaded = load_text_ok(shallow);
    assert_int_equal(loaded->allocator_count, 1);
    profile_free(loaded);
}

static void test_invalid_utf8_is_kept_byte_for_byte(void **state)
{
    (void)state;
    /* Strings hold what the file had; escaping is for whoever shows them. */
    const char *text = "{\"memoryProfilePerAllocator\":{\"gpu\\u0000x\":{"
                       "\"memoryProfileSnapshots\":[{\"activityMetadata\":{"
                       "\"tfOpName\":\"bad \xff\xfe utf8 \xc0\xaf \xed\xa0\x80 \x1b[31m\"}}]}}}";
    struct profile *loaded = load_text_ok(text);
    const struct allocator *allocator = &loaded->allocators[0];
    const char *op = profile_text(loaded, allocator->timeline.op_name[0]);
    assert_string_equal(op, "bad \xff\xfe utf8 \xc0\xaf \xed\xa0\x80 \x1b[31m");
    char safe[128];
    format_safe_text(op, false, safe, sizeof safe);
    assert_string_equal(safe, "bad \xef\xbf\xbd\xef\xbf\xbd utf8 \xef\xbf\xbd\xef\xbf\xbd "
                              "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \\x1b[31m");
    profile_free(loaded);

    /* The same bytes in binary protobuf, NUL included. */
    struct wire_bytes allocator_bytes = {0}, profile = {0};
    put_snapshot(&allocator_bytes, 1, (struct snapshot_spec){1, 0, 1, 0.0, 1, "\xff\x9b" "2J"});
    struct wire_bytes entry = {0};
    wire_bytes_put_length_field(&entry, 1, "a\0b", 3);
    put_message(&entry, 2, &allocator_bytes);
    put_message(&profile, 1, &entry);
    loaded = load_bytes_ok(profile.data, profile.size);
    wire_bytes_free(&profile);
    assert_string_equal(profile_text(loaded, loaded->allocators[0].timeline.op_name[0]),
                        "\xff\x9b" "2J");
    assert_int_equal(string_table_length(loaded->strings, loaded->allocators[0].id), 3);
    profile_free(loaded);
}

/* ==== gzip ==== */

static void test_gzip_corrupt_and_truncated(void **state)
{
    (void)state;
    size_t size;
    uint8_t *compressed = test_gzip_bytes(small_json, strlen(small_json), &size);
    expect_bytes_refused(compressed, 2, "offset 2: truncated gzip data");
    expect_bytes_refused(compressed, size - 4, "truncated gzip data");
    /* A wrong CRC-32 in the trailer. */
    compressed[size - 8] ^= 0xff;
    expect_bytes_refused(compressed, size, "corrupt gzip data");
    compressed[size - 8] ^= 0xff;
    /* A wrong length in the trailer. */
    compressed[size - 1] ^= 0x01;
    expect_bytes_refused(compressed, size, "corrupt gzip data");
    compressed[size - 1] ^= 0x01;
    /* Damage inside the deflate stream. */
    compressed[size / 2] ^= 0xff;
    compressed[size / 2 + 1] ^= 0x55;
    expect_bytes_refused(compressed, size, "gzip data");
    free(compressed);
    /* A header with an unknown method. */
    expect_bytes_refused("\x1f\x8b\x07\x00\x00\x00\x00\x00\x00\x03", 10, "corrupt gzip data");
    /* Gzip of nothing. */
    compressed = test_gzip_bytes("", 0, &size);
    expect_bytes_refused(compressed, size, "empty after gzip decompression");
    free(compressed);
}

/* Issue 16.7: bytes after a whole gzip stream were ignored. Another member
 * still loads; anything else is refused, naming where it starts. */
static void test_gzip_trailing_data_refused(void **state)
{
    (void)state;
    size_t size;
    uint8_t *compressed = test_gzip_bytes(small_json, strlen(small_json), &size);
    uint8_t *longer = malloc(size + 16);
    assert_non_null(longer);
    memcpy(longer, compressed, size);
    char expected[96];
    snprintf(expected, sizeof expected, "trailing data after the gzip stream at offset %zu", size);
    static const char *const trailers[] = {"x", "\n", "\0\0\0\0", "\x1f", "garbage after"};
    for (size_t i = 0; i < sizeof trailers / sizeof *trailers; i++) {
        size_t extra = i == 2 ? 4 : strlen(trailers[i]);
        memcpy(longer + size, trailers[i], extra);
        expect_bytes_refused(longer, size + extra, expected);
    }
    /* The same through a file, with the error's offset recorded. */
    memcpy(longer + size, "x", 1);
    const char *path = write_file("trailing.json.gz", longer, size + 1);
    struct profile *profile = (struct profile *)1;
    struct load_error error = {0};
    assert_int_equal(profile_load(path, NULL, &profile, &error), LOAD_BAD_INPUT);
    assert_null(profile);
    assert_string_equal(error.message, expected);
    assert_true(error.has_offset);
    assert_int_equal(error.offset, size);
    assert_string_equal(error.file, path);
    free(longer);

    /* Two members are still one profile. */
    size_t half = strlen(small_json) / 2, first_size, second_size;
    uint8_t *first = test_gzip_bytes(small_json, half, &first_size);
    uint8_t *second = test_gzip_bytes(small_json + half, strlen(small_json) - half, &second_size);
    uint8_t *both = malloc(first_size + second_size + 1);
    assert_non_null(both);
    memcpy(both, first, first_size);
    memcpy(both + first_size, second, second_size);
    profile = load_bytes_ok(both, first_size + second_size);
    assert_true(profile->gzipped);
    assert_int_equal(profile->allocators[0].timeline.count, 2);
    profile_free(profile);
    /* ... and bytes after the second are refused at the second's end. */
    both[first_size + second_size] = 'x';
    snprintf(expected, sizeof expected, "trailing data after the gzip stream at offset %zu",
             first_size + second_size);
    expect_bytes_refused(both, first_size + second_size + 1, expected);
    free(both);
    free(first);
    free(second);
    free(compressed);
}

/* gzip of `megabytes` MiB of zeros, compressed a chunk at a time. */
static uint8_t *gzip_zeros(size_t megabytes, size_t *compressed_size)
{
    static const uint8_t zeros[1 << 20];
    z_stream stream = {0};
    assert_int_equal(deflateInit2(&stream, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    size_t capacity = megabytes * 1100 + 4096;
    uint8_t *out = malloc(capacity);
    assert_non_null(out);
    stream.next_out = out;
    stream.avail_out = (uInt)capacity;
    for (size_t i = 0; i < megabytes; i++) {
        stream.next_in = (Bytef *)zeros;
        stream.avail_in = sizeof zeros;
        assert_int_equal(deflate(&stream, i + 1 == megabytes ? Z_FINISH : Z_NO_FLUSH),
                         i + 1 == megabytes ? Z_STREAM_END : Z_OK);
    }
    *compressed_size = capacity - stream.avail_out;
    deflateEnd(&stream);
    return out;
}

static void test_gzip_bomb_is_capped(void **state)
{
    (void)state;
    /* 80 MiB of zeros in about 80 KiB: past the default cap of 64 MiB for
     * a file this small (the cap is 256 times the file, at least 64 MiB). */
    size_t size;
    uint8_t *bomb = gzip_zeros(80, &size);
    assert_true(size < 200 * 1024);
    expect_bytes_refused(bomb, size, "gzip data inflates past 67108864 bytes; refusing it "
                                     "(a decompression bomb?)");
    /* The caller's cap wins over the default. */
    struct load_options options = {.max_inflated_bytes = 1 << 20};
    struct profile *profile = (struct profile *)1;
    struct load_error error = {0};
    assert_int_equal(profile_load_bytes(bomb, size, "bomb.gz", &options, &profile, &error),
                     LOAD_BAD_INPUT);
    assert_null(profile);
    assert_non_null(strstr(error.message, "inflates past 1048576 bytes"));
    free(bomb);

    /* A lying trailer (it claims 4 GiB) only sizes the first buffer. */
    uint8_t *zeros = gzip_zeros(1, &size);
    memcpy(zeros + size - 4, "\xff\xff\xff\xff", 4);
    uint8_t *inflated = NULL;
    size_t inflated_size = 0;
    assert_int_equal(gzip_inflate(zeros, size, (uint64_t)2 << 20, &inflated, &inflated_size,
                                  &error),
                     LOAD_BAD_INPUT);
    assert_null(inflated);
    assert_non_null(strstr(error.message, "corrupt gzip data"));
    free(zeros);
}

/* ==== the fuzzers' finds ==== */

/* Every file in tests/fuzz/regressions/ once crashed or hung a fuzz
 * harness: each must now load or be refused cleanly. */
static void test_fuzz_regressions(void **state)
{
    (void)state;
    char *regressions = test_source_path("tests/fuzz/regressions");
    assert_non_null(regressions);
    DIR *stream = opendir(regressions);
    assert_non_null(stream);
    size_t count = 0;
    struct dirent *entry;
    while ((entry = readdir(stream))) {
        if (entry->d_name[0] == '.' || strstr(entry->d_name, ".csv_writer") ||
            strcmp(entry->d_name, "README") == 0)
            continue;
        size_t length = strlen(regressions) + strlen(entry->d_name) + 2;
        char *path = malloc(length);
        assert_non_null(path);
        snprintf(path, length, "%s/%s", regressions, entry->d_name);
        size_t size;
        uint8_t *bytes = test_read_file(path, &size);
        if (!bytes)
            fail_msg("cannot read %s", path);
        print_message("# %s\n", entry->d_name);
        load_any(bytes, size);
        struct profile *profile = NULL;
        struct load_error error = {0};
        if (profile_load(path, NULL, &profile, &error) == LOAD_OK)
            profile_free(profile);
        else
            assert_true(error.message[0] != '\0');
        free(bytes);
        free(path);
        count++;
    }
    closedir(stream);
    free(regressions);
    print_message("# %zu regression inputs\n", count);
    assert_true(count > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_and_empty_files),
        cmocka_unit_test(test_directory_fifo_and_device),
        cmocka_unit_test(test_unreadable_file),
        cmocka_unit_test(test_dangling_symlink),
        cmocka_unit_test(test_every_single_byte),
        cmocka_unit_test(test_every_prefix_of_a_profile),
        cmocka_unit_test(test_every_prefix_of_json_and_gzip),
        cmocka_unit_test(test_wrong_wire_types),
        cmocka_unit_test(test_lengths_past_the_end),
        cmocka_unit_test(test_overlong_and_truncated_varints),
        cmocka_unit_test(test_no_allocators),
        cmocka_unit_test(test_negative_and_huge_sizes),
        cmocka_unit_test(test_indices_out_of_range),
        cmocka_unit_test(test_odd_fragmentation),
        cmocka_unit_test(test_unsorted_and_duplicate_times),
        cmocka_unit_test(test_memory_ids_naming_missing_allocators),
        cmocka_unit_test(test_duplicate_allocator_keys_last_entry_wins),
        cmocka_unit_test(test_many_repeated_keys_warn_in_bounds),
        cmocka_unit_test(test_json_wrong_types),
        cmocka_unit_test(test_json_error_escapes_file_text),
        cmocka_unit_test(test_json_deep_nesting),
        cmocka_unit_test(test_invalid_utf8_is_kept_byte_for_byte),
        cmocka_unit_test(test_gzip_corrupt_and_truncated),
        cmocka_unit_test(test_gzip_trailing_data_refused),
        cmocka_unit_test(test_gzip_bomb_is_capped),
        cmocka_unit_test(test_fuzz_regressions),
    };
    return cmocka_run_group_tests(tests, test_directory_create, test_directory_remove);
}
