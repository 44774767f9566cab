/* test_bad_input_text: bad JSON, text and gzip (tests/test_bad_input): wrong
 * types, escaped file text in errors, deep nesting, invalid UTF-8 kept byte
 * for byte, corrupt, truncated and trailing gzip data, gzip bombs, and the
 * crash inputs the fuzzers found. */
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

/* ==== broken JSON ==== */

void test_json_wrong_types(void **state)
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
void test_json_error_escapes_file_text(void **state)
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

void test_json_deep_nesting(void **state)
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
    expect_text_refused(text, "JSON nested deeper than 1000 levels at offset 1000");
    /* The same under an unknown key of a real profile. */
    int length = sprintf(text, "{\"memoryProfilePerAllocator\":{\"a\":{}},\"x\":");
    memset(text + length, '[', DEPTH);
    memset(text + length + DEPTH, ']', DEPTH);
    strcpy(text + length + 2 * DEPTH, "}");
    expect_text_refused(text, "JSON nested deeper than 1000 levels at offset ");
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

void test_invalid_utf8_is_kept_byte_for_byte(void **state)
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

void test_gzip_corrupt_and_truncated(void **state)
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
void test_gzip_trailing_data_refused(void **state)
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
uint8_t *gzip_zeros(size_t megabytes, size_t *compressed_size)
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

void test_gzip_bomb_is_capped(void **state)
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
void test_fuzz_regressions(void **state)
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
