/* test_bad_input_bytes: files that cannot be read and bytes that are not a
 * profile (tests/test_bad_input): missing, empty, directories, FIFOs,
 * devices, unreadable files, dangling symlinks, every single byte, every
 * prefix, wrong wire types, lengths past the end, bad varints. */
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

/* ==== files that are not profiles ==== */

void test_missing_and_empty_files(void **state)
{
    (void)state;
    expect_file_refused(file_path("missing.pb"), "No such file or directory");
    expect_file_refused(write_file("empty.pb", "", 0), "empty file");
    expect_bytes_refused("", 0, "empty file");
}

void test_directory_fifo_and_device(void **state)
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
int load_as_nobody(const char *path)
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

void test_unreadable_file(void **state)
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

void test_dangling_symlink(void **state)
{
    (void)state;
    char target[256];
    snprintf(target, sizeof target, "%s", file_path("nowhere.pb"));
    const char *link = file_path("link.pb");
    assert_int_equal(symlink(target, link), 0);
    expect_file_refused(link, "No such file or directory");
}

/* ==== broken binary protobuf ==== */

void test_every_single_byte(void **state)
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

void test_every_prefix_of_a_profile(void **state)
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

void test_every_prefix_of_json_and_gzip(void **state)
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

void test_wrong_wire_types(void **state)
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

void test_lengths_past_the_end(void **state)
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

void test_overlong_and_truncated_varints(void **state)
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
