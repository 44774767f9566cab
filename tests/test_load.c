/* profile_load: files, content detection, gzip, and the demo data loading
 * to identical models from every form. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "model/decode/gzip.h"
#include "model/host_list.h"
#include "model/input_format.h"
#include "model/load.h"
#include "tests/test_support.h"

static const char small_json[] =
    "{\"memoryProfilePerAllocator\":{\"GPU_0_bfc\":{\"memoryProfileSnapshots\":["
    "{\"timeOffsetPs\":\"5\",\"aggregationStats\":{\"heapAllocatedBytes\":\"1024\"},"
    "\"activityMetadata\":{\"memoryActivity\":\"ALLOCATION\",\"tfOpName\":\"op\"}}]}},"
    "\"numHosts\":1,\"memoryIds\":[\"GPU_0_bfc\"],\"version\":0}";

static char *temporary_file(const char *name, const void *bytes, size_t size)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", test_directory(), name);
    FILE *file = fopen(path, "wb");
    assert_non_null(file);
    if (size)
        assert_int_equal(fwrite(bytes, 1, size, file), size);
    fclose(file);
    return path;
}

static enum load_status load_path(const char *path, struct profile **profile,
                                  struct load_error *error)
{
    return profile_load(path, NULL, profile, error);
}

static void test_missing_file(void **state)
{
    (void)state;
    struct profile *profile;
    struct load_error error;
    assert_int_equal(load_path("/nonexistent/profile.pb", &profile, &error), LOAD_BAD_INPUT);
    assert_null(profile);
    assert_string_equal(error.message, "No such file or directory");
}

static void test_empty_file(void **state)
{
    (void)state;
    struct profile *profile;
    struct load_error error;
    assert_int_equal(load_path(temporary_file("empty.pb", "", 0), &profile, &error),
                     LOAD_BAD_INPUT);
    assert_string_equal(error.message, "empty file");
}

static void test_directory_and_fifo(void **state)
{
    (void)state;
    struct profile *profile;
    struct load_error error;
    assert_int_equal(load_path(test_directory(), &profile, &error), LOAD_BAD_INPUT);
    assert_string_equal(error.message, "is a directory");
    /* A FIFO is read as a pipe is, once it has a writer (issue 15):
     * tests/test_load_stream.c. A device with nothing in it: */
    assert_int_equal(load_path("/dev/null", &profile, &error), LOAD_BAD_INPUT);
    assert_string_equal(error.message, "empty input");
}

static void test_unreadable_file(void **state)
{
    (void)state;
    if (geteuid() == 0)
        TEST_SKIP("running as root, which reads any file");
    struct profile *profile;
    struct load_error error;
    char *path = temporary_file("secret.json", small_json, sizeof small_json - 1);
    chmod(path, 0);
    assert_int_equal(load_path(path, &profile, &error), LOAD_BAD_INPUT);
    assert_string_equal(error.message, "Permission denied");
}

static void test_json_detected_by_content(void **state)
{
    (void)state;
    struct profile *profile;
    struct load_error error;
    /* A .pb name with JSON inside, after a byte order mark and blanks. */
    char text[sizeof small_json + 8] = "\xef\xbb\xbf \n\t";
    strcat(text, small_json);
    char *path = temporary_file("named-wrong.pb", text, strlen(text));
    assert_int_equal(load_path(path, &profile, &error), LOAD_OK);
    assert_int_equal(profile->format, PROFILE_FORMAT_JSON);
    assert_false(profile->gzipped);
    assert_int_equal(profile->allocator_count, 1);
    assert_int_equal(profile->allocators[0].timeline.count, 1);
    assert_string_equal(profile->path, path);
    profile_free(profile);
}

static void test_gzip_json(void **state)
{
    (void)state;
    size_t size;
    uint8_t *compressed = test_gzip_bytes(small_json, sizeof small_json - 1, &size);
    struct profile *profile;
    struct load_error error;
    assert_int_equal(load_path(temporary_file("p.json.gz", compressed, size), &profile, &error),
                     LOAD_OK);
    assert_true(profile->gzipped);
    assert_int_equal(profile->format, PROFILE_FORMAT_JSON);
    assert_int_equal(profile->file_bytes, size);
    assert_int_equal(profile->allocators[0].timeline.heap_bytes[0], 1024);
    profile_free(profile);
    free(compressed);
}

static void test_gzip_concatenated_members(void **state)
{
    (void)state;
    const char *half = small_json + 40;
    size_t first_size, second_size;
    uint8_t *first = test_gzip_bytes(small_json, 40, &first_size);
    uint8_t *second = test_gzip_bytes(half, strlen(half), &second_size);
    uint8_t *both = malloc(first_size + second_size);
    memcpy(both, first, first_size);
    memcpy(both + first_size, second, second_size);
    uint8_t *inflated;
    size_t inflated_size;
    struct load_error error;
    assert_int_equal(gzip_inflate(both, first_size + second_size, 1 << 20, &inflated,
                                  &inflated_size, &error),
                     LOAD_OK);
    assert_int_equal(inflated_size, sizeof small_json - 1);
    assert_memory_equal(inflated, small_json, inflated_size);
    free(inflated);
    free(both);
    free(first);
    free(second);
}

static void test_gzip_corrupt_and_truncated(void **state)
{
    (void)state;
    size_t size;
    uint8_t *compressed = test_gzip_bytes(small_json, sizeof small_json - 1, &size);
    struct profile *profile;
    struct load_error error;
    assert_int_equal(profile_load_bytes(compressed, size / 2, "cut.gz", NULL, &profile, &error),
                     LOAD_BAD_INPUT);
    assert_non_null(strstr(error.message, "truncated gzip data"));
    for (size_t i = 12; i < size - 8; i++)
        compressed[i] ^= 0x5a;
    assert_int_equal(profile_load_bytes(compressed, size, "bad.gz", NULL, &profile, &error),
                     LOAD_BAD_INPUT);
    assert_non_null(strstr(error.message, "gzip"));
    assert_null(profile);
    free(compressed);
}

static void test_gzip_bomb_capped(void **state)
{
    (void)state;
    size_t big = 4 << 20;
    uint8_t *zeros = calloc(1, big);
    size_t size;
    uint8_t *compressed = test_gzip_bytes(zeros, big, &size);
    struct load_options options = {.max_inflated_bytes = 1 << 20};
    struct profile *profile;
    struct load_error error;
    assert_int_equal(profile_load_bytes(compressed, size, "bomb.gz", &options, &profile, &error),
                     LOAD_BAD_INPUT);
    assert_non_null(strstr(error.message, "decompression bomb"));
    /* The default cap scales with the compressed size: 4 MiB of zeros is
     * ~4 KiB compressed, so a 1000x ratio is refused too. */
    assert_int_equal(profile_load_bytes(compressed, size, "bomb.gz", NULL, &profile, &error),
                     LOAD_BAD_INPUT);
    free(compressed);
    free(zeros);
}

static void test_gzip_of_nothing(void **state)
{
    (void)state;
    size_t size;
    uint8_t *compressed = test_gzip_bytes("", 0, &size);
    struct profile *profile;
    struct load_error error;
    assert_int_equal(profile_load_bytes(compressed, size, "e.gz", NULL, &profile, &error),
                     LOAD_BAD_INPUT);
    assert_string_equal(error.message, "empty after gzip decompression");
    free(compressed);
}

static void test_no_allocators_is_not_a_profile(void **state)
{
    (void)state;
    struct profile *profile;
    struct load_error error;
    assert_int_equal(profile_load_bytes((const uint8_t *)"{}", 2, "x", NULL, &profile, &error),
                     LOAD_BAD_INPUT);
    assert_non_null(strstr(error.message, "no allocators"));
    /* Text that is neither JSON nor a profile. */
    const char text[] = "hello, this is not a profile\n";
    assert_int_equal(profile_load_bytes((const uint8_t *)text, sizeof text - 1, "t", NULL,
                                        &profile, &error),
                     LOAD_BAD_INPUT);
    assert_null(profile);
}

static struct profile *load_demo(const char *name)
{
    char *path = test_source_path(name);
    struct profile *profile = NULL;
    struct load_error error = {0};
    enum load_status status = profile_load(path, NULL, &profile, &error);
    if (status != LOAD_OK)
        print_error("%s: %s\n", path, error.message);
    assert_int_equal(status, LOAD_OK);
    free(path);
    return profile;
}

static void test_demo_version0_pb_and_json_identical(void **state)
{
    (void)state;
    struct profile *pb = load_demo("data/demo.v0.pb.gz");
    struct profile *json = load_demo("data/demo.v0.json.gz");
    assert_int_equal(pb->format, PROFILE_FORMAT_PROTOBUF);
    assert_int_equal(json->format, PROFILE_FORMAT_JSON);
    assert_int_equal(pb->version, 0);
    assert_true(pb->allocator_count >= 2);
    size_t total = 0;
    for (size_t i = 0; i < pb->allocator_count; i++)
        total += pb->allocators[i].timeline.count;
    assert_true(total >= 10000); /* the full timeline, not a sample */
    test_assert_profiles_equal(pb, json);
    profile_free(pb);
    profile_free(json);
}

static void test_demo_version1_pb_and_json_identical(void **state)
{
    (void)state;
    struct profile *pb = load_demo("data/demo.v1.pb");
    struct profile *json = load_demo("data/demo.v1.json");
    assert_int_equal(pb->version, 1);
    for (size_t i = 0; i < pb->allocator_count; i++) {
        assert_true(pb->allocators[i].timeline.count <= 1000);
        for (size_t r = 0; r < pb->allocators[i].row_count; r++)
            assert_int_not_equal(pb->allocators[i].rows[r].origin, ROW_UNRESOLVED);
    }
    assert_true(pb->hlo_module_count > 0);
    test_assert_profiles_equal(pb, json);
    profile_free(pb);
    profile_free(json);
}

/* Version 0 has the whole timeline: the summary in the file must be what
 * XProf's rule gives on it (the largest stack+heap, a later one winning
 * ties; capacity = stack+heap+free there). */
static void test_demo_summary_matches_the_timeline(void **state)
{
    (void)state;
    struct profile *profile = load_demo("data/demo.v0.pb.gz");
    for (size_t i = 0; i < profile->allocator_count; i++) {
        const struct allocator *allocator = &profile->allocators[i];
        const struct snapshot_columns *timeline = &allocator->timeline;
        size_t peak = 0;
        for (size_t s = 1; s < timeline->count; s++)
            if (snapshot_columns_in_use(timeline, s) >= snapshot_columns_in_use(timeline, peak))
                peak = s;
        const struct allocator_summary *summary = &allocator->summary;
        assert_false(summary->derived);
        assert_true(summary->peak_bytes == snapshot_columns_in_use(timeline, peak));
        assert_true(summary->peak_time_ps == snapshot_columns_time(timeline, peak));
        assert_true(summary->capacity_bytes ==
                    snapshot_columns_in_use(timeline, peak) +
                        snapshot_columns_free_bytes(timeline, peak));
        assert_true(summary->allocations + summary->deallocations == timeline->count);
        /* Every row of a version-0 profile points at a snapshot on or before the peak,
         * or is one of the special rows. */
        for (size_t r = 0; r < allocator->row_count; r++) {
            const struct allocation_row *row = &allocator->rows[r];
            assert_int_not_equal(row->origin, ROW_UNRESOLVED);
            if (row->origin == ROW_FROM_SNAPSHOT)
                assert_true(row->time_ps <= summary->peak_time_ps);
        }
    }
    profile_free(profile);
}

static void test_shared_xprof_file(void **state)
{
    (void)state;
    char *path = test_real_path("xprof-tpu-v4-8-demo.memory_profile.json");
    if (!path)
        TEST_SKIP("data/real has no real XProf file");
    struct profile *profile;
    struct load_error error;
    assert_int_equal(profile_load(path, NULL, &profile, &error), LOAD_OK);
    assert_int_equal(profile->version, 1);
    assert_int_equal(profile->allocator_count, 4);
    assert_int_equal(profile->hlo_module_count, 40);
    const struct allocator *first = &profile->allocators[0];
    assert_string_equal(profile_text(profile, first->id), "0");
    assert_int_equal(first->timeline.count, 10);
    assert_true(first->summary.peak_bytes == 306004480);
    assert_true(first->summary.capacity_bytes == 33014413312);
    assert_int_equal(first->row_count, 3);
    assert_int_equal(first->rows[0].origin, ROW_FROM_SPECIAL);
    assert_int_equal(first->rows[1].origin, ROW_FROM_SNAPSHOT);
    assert_true(first->rows[1].time_ps == 1685890000);
    profile_free(profile);
    free(path);
}

/* ---- the format table ---- */

static void test_format_rows_are_complete(void **state)
{
    (void)state;
    assert_true(input_format_count() >= 2);
    for (size_t i = 0; i < input_format_count(); i++) {
        const struct input_format *format = input_format_at(i);
        assert_non_null(format->name);
        assert_non_null(format->description);
        assert_non_null(format->load);
        assert_non_null(format->suffixes);
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(input_format_at(j)->name, format->name);
    }
    assert_null(input_format_at(input_format_count()));
    assert_string_equal(profile_format_name(PROFILE_FORMAT_PROTOBUF), "pb");
    assert_string_equal(profile_format_name(PROFILE_FORMAT_JSON), "json");
}

/* The surest probe wins; binary protobuf takes what no other claims. */
static void test_formats_detected_by_probes(void **state)
{
    (void)state;
    static const struct {
        const char *bytes;
        size_t size;
        const struct input_format *format;
    } cases[] = {
        {" \n{\"version\":1}", 14, PROFILE_FORMAT_JSON},
        {"\xef\xbb\xbf[", 4, PROFILE_FORMAT_JSON},
        {"\x28\x01", 2, PROFILE_FORMAT_PROTOBUF},
        {"   ", 3, PROFILE_FORMAT_PROTOBUF},
        {"", 0, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        assert_ptr_equal(input_format_detect((const uint8_t *)cases[i].bytes, cases[i].size,
                                             false),
                         cases[i].format);
}

/* Directory scans take files by the table's suffixes; hosts are named as
 * before the table for MemoryProfile files (the name before its first dot). */
static void test_names_and_hosts_by_suffix(void **state)
{
    (void)state;
    size_t length;
    assert_ptr_equal(input_format_for_name("a.pb", &length), PROFILE_FORMAT_PROTOBUF);
    assert_int_equal(length, 3);
    assert_ptr_equal(input_format_for_name("w.memory_profile.json.gz", &length),
                     PROFILE_FORMAT_JSON);
    assert_int_equal(length, 8);
    assert_null(input_format_for_name(".pb", &length));
    assert_null(input_format_for_name("notes.txt", &length));
    static const char *const names[][2] = {
        {"run/worker-1.memory_profile.json.gz", "worker-1"},
        {"data/demo.v0.pb.gz", "demo"},
        {"/x/10.0.0.1.pb", "10"},
        {"noext", "noext"},
        {".hidden.pb", ".hidden.pb"},
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char *host = host_name_from_path(names[i][0]);
        assert_string_equal(host, names[i][1]);
        free(host);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_empty_file),
        cmocka_unit_test(test_directory_and_fifo),
        cmocka_unit_test(test_unreadable_file),
        cmocka_unit_test(test_json_detected_by_content),
        cmocka_unit_test(test_gzip_json),
        cmocka_unit_test(test_gzip_concatenated_members),
        cmocka_unit_test(test_gzip_corrupt_and_truncated),
        cmocka_unit_test(test_gzip_bomb_capped),
        cmocka_unit_test(test_gzip_of_nothing),
        cmocka_unit_test(test_no_allocators_is_not_a_profile),
        cmocka_unit_test(test_demo_version0_pb_and_json_identical),
        cmocka_unit_test(test_demo_version1_pb_and_json_identical),
        cmocka_unit_test(test_demo_summary_matches_the_timeline),
        cmocka_unit_test(test_shared_xprof_file),
        cmocka_unit_test(test_format_rows_are_complete),
        cmocka_unit_test(test_formats_detected_by_probes),
        cmocka_unit_test(test_names_and_hosts_by_suffix),
    };
    return cmocka_run_group_tests(tests, test_directory_create, test_directory_remove);
}
