/* test_bad_input_support: helpers of tests/test_bad_input: small profiles
 * built in memory (protobuf and JSON), loading that must be refused or must
 * succeed, and files written into the test directory. */
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
#include "model/decode/gzip.h"
#include "model/load.h"
#include "model/profile.h"
#include "model/profile_builder.h"
#include "model/timeline.h"
#include "tests/test_support.h"
#include "tests/wire_builder.h"

#include "tests/test_bad_input.h"

/* ---- bytes in memory ---- */

/* Appends `message` as field `field`, then frees it. */
void put_message(struct wire_bytes *bytes, uint32_t field, struct wire_bytes *message)
{
    wire_bytes_put_message_field(bytes, field, message);
    wire_bytes_free(message);
}

void put_snapshot(struct wire_bytes *allocator, uint32_t field, struct snapshot_spec spec)
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

void put_active(struct wire_bytes *allocator, int64_t snapshot_index,
                       int64_t special_index, int64_t occurrences)
{
    struct wire_bytes active = {0};
    wire_bytes_put_varint_field(&active, 1, (uint64_t)snapshot_index);
    wire_bytes_put_varint_field(&active, 2, (uint64_t)special_index);
    wire_bytes_put_varint_field(&active, 3, (uint64_t)occurrences);
    put_message(allocator, 3, &active);
}

/* One memory_profile_per_allocator entry; frees `allocator`. */
void put_allocator(struct wire_bytes *profile, const char *id,
                          struct wire_bytes *allocator)
{
    struct wire_bytes entry = {0};
    wire_bytes_put_string_field(&entry, 1, id);
    put_message(&entry, 2, allocator);
    put_message(profile, 1, &entry);
}

/* A small, valid version 0 profile: two allocators, five snapshots, a
 * summary-less timeline and two rows; the base for damaged copies. */
struct wire_bytes small_profile(void)
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

const char small_json[] =
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
void expect_refused(enum load_status status, struct profile *profile,
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

void expect_bytes_refused(const void *data, size_t size, const char *expected)
{
    struct profile *profile = (struct profile *)1;
    struct load_error error = {0};
    enum load_status status = profile_load_bytes(data, size, "bad", NULL, &profile, &error);
    expect_refused(status, profile, &error, expected);
}

void expect_text_refused(const char *text, const char *expected)
{
    expect_bytes_refused(text, strlen(text), expected);
}

struct profile *load_bytes_ok(const void *data, size_t size)
{
    struct profile *profile = NULL;
    struct load_error error = {0};
    enum load_status status = profile_load_bytes(data, size, "odd", NULL, &profile, &error);
    if (status != LOAD_OK)
        fail_msg("expected to load, got status %d: %s", (int)status, error.message);
    assert_non_null(profile);
    return profile;
}

struct profile *load_text_ok(const char *text)
{
    return load_bytes_ok(text, strlen(text));
}

/* Any outcome but a crash: loaded, or refused with a message. Returns the
 * status; the profile, if any, is freed. */
enum load_status load_any(const void *data, size_t size)
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

const struct allocator *allocator_named(const struct profile *profile, const char *id)
{
    long index = profile_find_allocator(profile, text_of(id));
    if (index < 0)
        fail_msg("no allocator %s", id);
    return &profile->allocators[index];
}

/* ---- files ---- */

const char *file_path(const char *name)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", test_directory(), name);
    return path;
}

const char *write_file(const char *name, const void *data, size_t size)
{
    const char *path = file_path(name);
    FILE *file = fopen(path, "wb");
    assert_non_null(file);
    if (size)
        assert_int_equal(fwrite(data, 1, size, file), size);
    assert_int_equal(fclose(file), 0);
    return path;
}

void expect_file_refused(const char *path, const char *expected)
{
    struct profile *profile = (struct profile *)1;
    struct load_error error = {0};
    enum load_status status = profile_load(path, NULL, &profile, &error);
    expect_refused(status, profile, &error, expected);
}
