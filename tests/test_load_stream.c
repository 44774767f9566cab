/* profile_load on input that is not a regular file: a pipe, a FIFO,
 * standard input ("-"), a character device; within the cap gzip input
 * has; and plain text, which is "not a memory profile". */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model/input_format.h"
#include "model/load.h"
#include "tests/test_support.h"

static const char small_json[] =
    "{\"memoryProfilePerAllocator\":{\"GPU_0_bfc\":{\"memoryProfileSnapshots\":["
    "{\"timeOffsetPs\":\"5\",\"aggregationStats\":{\"heapAllocatedBytes\":\"1024\"},"
    "\"activityMetadata\":{\"memoryActivity\":\"ALLOCATION\",\"tfOpName\":\"op\"}}]}},"
    "\"numHosts\":1,\"memoryIds\":[\"GPU_0_bfc\"],\"version\":0}";

/* A child that writes `size` bytes of `bytes` (repeated `times` times)
 * to `path` (opened for writing) or to the descriptor `fd`, then ends;
 * it closes `other` (the pipe's read end), so that a reader who stops
 * reading ends it with SIGPIPE. */
static pid_t start_writer(const char *path, int fd, int other, const void *bytes, size_t size,
                          int times)
{
    pid_t child = fork();
    assert_true(child >= 0);
    if (child > 0)
        return child;
    if (other >= 0)
        close(other);
    signal(SIGPIPE, SIG_DFL);
    int out = path ? open(path, O_WRONLY) : fd;
    for (int i = 0; out >= 0 && i < times; i++)
        if (write(out, bytes, size) != (ssize_t)size)
            break;
    _exit(0);
}

static void wait_for(pid_t child)
{
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
}

static void test_fifo_with_a_writer(void **state)
{
    (void)state;
    char fifo[256];
    snprintf(fifo, sizeof fifo, "%s/profile.fifo", test_directory());
    assert_int_equal(mkfifo(fifo, 0600), 0);
    pid_t writer = start_writer(fifo, -1, -1, small_json, sizeof small_json - 1, 1);
    struct profile *profile;
    struct load_error error;
    assert_int_equal(profile_load(fifo, NULL, &profile, &error), LOAD_OK);
    assert_int_equal(profile->allocator_count, 1);
    profile_free(profile);
    wait_for(writer);
}

/* A pipe named by /dev/fd/N, as <(gsutil cat URL) gives it; gzip
 * through it too. */
static void test_pipe_gzip(void **state)
{
    (void)state;
    size_t size;
    uint8_t *compressed = test_gzip_bytes(small_json, sizeof small_json - 1, &size);
    int ends[2];
    assert_int_equal(pipe(ends), 0);
    pid_t writer = start_writer(NULL, ends[1], ends[0], compressed, size, 1);
    close(ends[1]);
    char path[64];
    snprintf(path, sizeof path, "/dev/fd/%d", ends[0]);
    struct profile *profile;
    struct load_error error;
    assert_int_equal(profile_load(path, NULL, &profile, &error), LOAD_OK);
    assert_true(profile->gzipped);
    profile_free(profile);
    close(ends[0]);
    wait_for(writer);
    free(compressed);
}

/* A pipe is held to the cap gzip input has: past it, refused. */
static void test_pipe_past_the_cap(void **state)
{
    (void)state;
    char block[4096];
    memset(block, ' ', sizeof block);
    block[0] = '{';
    int ends[2];
    assert_int_equal(pipe(ends), 0);
    pid_t writer = start_writer(NULL, ends[1], ends[0], block, sizeof block, 1024); /* 4 MiB */
    close(ends[1]);
    char path[64];
    snprintf(path, sizeof path, "/dev/fd/%d", ends[0]);
    struct load_options options = {.max_inflated_bytes = 1 << 20};
    struct profile *profile = (struct profile *)1;
    struct load_error error;
    assert_int_equal(profile_load(path, &options, &profile, &error), LOAD_BAD_INPUT);
    assert_null(profile);
    assert_string_equal(error.message, "more than 1048576 bytes; refusing it (the cap for input "
                                       "that is not a regular file, as for gzip)");
    close(ends[0]);
    wait_for(writer);
}

/* "-" is standard input: here a pipe put in its place for the test. */
static void test_standard_input(void **state)
{
    (void)state;
    int saved = dup(STDIN_FILENO);
    assert_true(saved >= 0);
    int ends[2];
    assert_int_equal(pipe(ends), 0);
    pid_t writer = start_writer(NULL, ends[1], ends[0], small_json, sizeof small_json - 1, 1);
    close(ends[1]);
    assert_int_equal(dup2(ends[0], STDIN_FILENO), STDIN_FILENO);
    close(ends[0]);
    struct profile *profile, *again;
    struct load_error error;
    enum load_status status = profile_load(LOAD_STANDARD_INPUT, NULL, &profile, &error);
    enum load_status empty_status = profile_load(LOAD_STANDARD_INPUT, NULL, &again, &error);
    assert_int_equal(dup2(saved, STDIN_FILENO), STDIN_FILENO);
    close(saved);
    wait_for(writer);
    assert_int_equal(status, LOAD_OK);
    assert_int_equal(profile->allocator_count, 1);
    profile_free(profile);
    assert_null(again);
    /* Read to its end: a second load finds nothing left. */
    assert_int_equal(empty_status, LOAD_BAD_INPUT);
    assert_string_equal(error.message, "empty input");
}

static void test_character_device_and_directory(void **state)
{
    (void)state;
    struct profile *profile;
    struct load_error error;
    assert_int_equal(profile_load("/dev/null", NULL, &profile, &error), LOAD_BAD_INPUT);
    assert_string_equal(error.message, "empty input");
    assert_int_equal(profile_load(test_directory(), NULL, &profile, &error), LOAD_BAD_INPUT);
    assert_string_equal(error.message, "is a directory");
}

/* No probe claims plain text: one line that says what it is not, never a
 * wire type; a damaged binary MemoryProfile still gets its offset. */
static void test_plain_text_is_not_a_profile(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "this is not a memory profile\n",
        "42",
        "name,size\r\nop,12\r\n",
        "caf\xc3\xa9 au lait\n",
    };
    /* Every format memtop reads, by name, in the table's order. */
    char expected[256] = "not a memory profile (none of the formats memtop reads: ";
    bool first = true;
    for (size_t i = 0; i < input_format_count(); i++) {
        if (input_format_at(i)->refuses_only)
            continue;
        if (!first)
            strcat(expected, ", ");
        strcat(expected, input_format_at(i)->name);
        first = false;
    }
    strcat(expected, ")");
    assert_non_null(strstr(expected, "reads: pb, json, "));
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        struct profile *profile;
        struct load_error error;
        assert_int_equal(profile_load_bytes((const uint8_t *)texts[i], strlen(texts[i]), "t",
                                            NULL, &profile, &error),
                         LOAD_BAD_INPUT);
        assert_string_equal(error.message, expected);
    }
    struct profile *profile;
    struct load_error error;
    /* Not text: a control byte, invalid UTF-8, a lone newline (no word). */
    static const char *const binary[] = {"\x08\x01", "ab\xff", "\n"};
    for (size_t i = 0; i < sizeof binary / sizeof *binary; i++) {
        assert_int_equal(profile_load_bytes((const uint8_t *)binary[i], strlen(binary[i]), "b",
                                            NULL, &profile, &error),
                         LOAD_BAD_INPUT);
        assert_non_null(strstr(error.message, "offset "));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fifo_with_a_writer),
        cmocka_unit_test(test_pipe_gzip),
        cmocka_unit_test(test_pipe_past_the_cap),
        cmocka_unit_test(test_standard_input),
        cmocka_unit_test(test_character_device_and_directory),
        cmocka_unit_test(test_plain_text_is_not_a_profile),
    };
    return cmocka_run_group_tests(tests, test_directory_create, test_directory_remove);
}
