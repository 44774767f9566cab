/* test_export_files: atomic export files (tests/test_export): written whole,
 * existing files refused then replaced, symlinks not followed, missing or
 * unwritable directories, failed writes keeping the old file, a full disk
 * on a stream. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/load.h"
#include "model/profile.h"
#include "report/csv_writer.h"
#include "report/export.h"
#include "tests/test_support.h"
#include "model/query/allocation_table.h"

#include "tests/test_export.h"

/* ---- files ---- */

int setup_directory(void **state)
{
    struct directory_fixture *fixture = calloc(1, sizeof *fixture);
    fixture->profile = awkward_profile();
    strcpy(fixture->directory, "/tmp/memtop-export-XXXXXX");
    assert_non_null(mkdtemp(fixture->directory));
    *state = fixture;
    return 0;
}

int teardown_directory(void **state)
{
    struct directory_fixture *fixture = *state;
    DIR *directory = opendir(fixture->directory);
    struct dirent *entry;
    while (directory && (entry = readdir(directory)) != NULL) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", fixture->directory, entry->d_name);
        if (remove(path) != 0)
            rmdir(path);
    }
    if (directory)
        closedir(directory);
    rmdir(fixture->directory);
    profile_free(fixture->profile);
    free(fixture);
    return 0;
}

char *path_in(const struct directory_fixture *fixture, const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", fixture->directory, name);
    return path;
}

/* Names in the directory starting with '.', i.e. temporaries left behind. */
size_t hidden_files(const struct directory_fixture *fixture)
{
    DIR *directory = opendir(fixture->directory);
    assert_non_null(directory);
    size_t count = 0;
    struct dirent *entry;
    while ((entry = readdir(directory)) != NULL)
        if (entry->d_name[0] == '.' && strcmp(entry->d_name, ".") != 0 &&
            strcmp(entry->d_name, "..") != 0)
            count++;
    closedir(directory);
    return count;
}

void write_text_file(const char *path, const char *text)
{
    FILE *file = fopen(path, "w");
    assert_non_null(file);
    fputs(text, file);
    assert_int_equal(fclose(file), 0);
}

char *read_text_file(const char *path)
{
    size_t size;
    uint8_t *bytes = test_read_file(path, &size);
    assert_non_null(bytes);
    char *text = realloc(bytes, size + 1);
    assert_non_null(text);
    text[size] = '\0';
    return text;
}

/* What export_write puts on a stream, for comparing files with it. */
char *expected_csv(const struct export_request *request)
{
    char *bytes = NULL;
    size_t size = 0;
    FILE *stream = open_memstream(&bytes, &size);
    assert_non_null(stream);
    char error[EXPORT_ERROR_SIZE];
    assert_int_equal(export_write(stream, request, NULL, error, sizeof error), EXPORT_OK);
    fclose(stream);
    return bytes;
}

void test_file_is_written_whole(void **state)
{
    struct directory_fixture *fixture = *state;
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_TIMELINE, fixture->profile,
                        &fixture->profile->allocators[0]);
    char *expected = expected_csv(&request);
    mode_t old_mask = umask(027);
    char error[EXPORT_ERROR_SIZE];
    size_t rows = 0;
    const char *path = path_in(fixture, "timeline.csv");
    enum export_status status = export_to_path(path, false, &request, &rows, error, sizeof error);
    umask(old_mask);
    assert_int_equal(status, EXPORT_OK);
    assert_int_equal(rows, TIMELINE_COUNT);
    char *written = read_text_file(path);
    assert_string_equal(written, expected);
    struct stat file_status;
    assert_int_equal(stat(path, &file_status), 0);
    assert_int_equal(file_status.st_mode & 07777, 0640);
    assert_int_equal(hidden_files(fixture), 0);
    free(written);
    free(expected);
}

void test_existing_file_is_refused_then_replaced(void **state)
{
    struct directory_fixture *fixture = *state;
    char path[512];
    snprintf(path, sizeof path, "%s", path_in(fixture, "summary.csv"));
    write_text_file(path, "precious\n");
    struct stat before;
    assert_int_equal(stat(path, &before), 0);
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_SUMMARY, fixture->profile, NULL);
    char error[EXPORT_ERROR_SIZE];
    size_t rows = 99;
    assert_int_equal(export_to_path(path, false, &request, &rows, error, sizeof error),
                     EXPORT_EXISTS);
    assert_int_equal(rows, 0);
    char *kept = read_text_file(path);
    assert_string_equal(kept, "precious\n");
    free(kept);
    struct stat after;
    assert_int_equal(stat(path, &after), 0);
    assert_int_equal(after.st_ino, before.st_ino);
    assert_int_equal(hidden_files(fixture), 0);

    assert_int_equal(export_to_path(path, true, &request, &rows, error, sizeof error), EXPORT_OK);
    assert_int_equal(rows, 3);
    char *replaced = read_text_file(path);
    char *expected = expected_csv(&request);
    assert_string_equal(replaced, expected);
    free(replaced);
    free(expected);
    assert_int_equal(hidden_files(fixture), 0);
}

void test_symlink_is_refused_or_replaced_not_followed(void **state)
{
    struct directory_fixture *fixture = *state;
    char target[512], link_path[512];
    snprintf(target, sizeof target, "%s", path_in(fixture, "target.txt"));
    snprintf(link_path, sizeof link_path, "%s", path_in(fixture, "link.csv"));
    write_text_file(target, "target\n");
    assert_int_equal(symlink(target, link_path), 0);
    /* A dangling link counts as existing too. */
    char dangling[512];
    snprintf(dangling, sizeof dangling, "%s", path_in(fixture, "dangling.csv"));
    assert_int_equal(symlink("/nonexistent/nowhere", dangling), 0);
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_HLO, fixture->profile, NULL);
    char error[EXPORT_ERROR_SIZE];
    assert_int_equal(export_to_path(link_path, false, &request, NULL, error, sizeof error),
                     EXPORT_EXISTS);
    assert_int_equal(export_to_path(dangling, false, &request, NULL, error, sizeof error),
                     EXPORT_EXISTS);
    assert_int_equal(export_to_path(link_path, true, &request, NULL, error, sizeof error),
                     EXPORT_OK);
    struct stat link_status;
    assert_int_equal(lstat(link_path, &link_status), 0);
    assert_true(S_ISREG(link_status.st_mode));
    char *kept = read_text_file(target);
    assert_string_equal(kept, "target\n");
    free(kept);
    assert_int_equal(hidden_files(fixture), 0);
}

void test_missing_or_unwritable_directory_fails(void **state)
{
    struct directory_fixture *fixture = *state;
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_HLO, fixture->profile, NULL);
    char error[EXPORT_ERROR_SIZE];
    assert_int_equal(export_to_path(path_in(fixture, "missing/out.csv"), false, &request, NULL,
                                    error, sizeof error),
                     EXPORT_FAILED);
    assert_string_equal(error, "cannot create a temporary file there: No such file or directory");
    assert_int_equal(export_to_path(path_in(fixture, "dir/"), true, &request, NULL, error,
                                    sizeof error),
                     EXPORT_FAILED);
    assert_int_equal(export_to_path("", true, &request, NULL, error, sizeof error), EXPORT_FAILED);
    /* sysfs refuses new files even to root. */
    struct stat sys;
    if (stat("/sys/kernel", &sys) == 0 && S_ISDIR(sys.st_mode)) {
        assert_int_equal(export_to_path("/sys/kernel/memtop-test.csv", true, &request, NULL,
                                        error, sizeof error),
                         EXPORT_FAILED);
        assert_non_null(strstr(error, "cannot create a temporary file there: "));
        assert_int_equal(access("/sys/kernel/memtop-test.csv", F_OK), -1);
    }
    /* A directory in the way: refused with or without replace, saying
     * why (--force could not help). */
    char directory[512];
    snprintf(directory, sizeof directory, "%s", path_in(fixture, "a-directory"));
    assert_int_equal(mkdir(directory, 0755), 0);
    assert_int_equal(export_to_path(directory, false, &request, NULL, error, sizeof error),
                     EXPORT_FAILED);
    assert_string_equal(error, "is a directory, not a file");
    assert_int_equal(export_to_path(directory, true, &request, NULL, error, sizeof error),
                     EXPORT_FAILED);
    assert_string_equal(error, "is a directory, not a file");
    assert_int_equal(hidden_files(fixture), 0);
}

/* A write that fails half-way (file size limit: EFBIG, as a full disk
 * fails with ENOSPC) leaves the old file and no temporary. */
void test_failed_write_keeps_the_old_file(void **state)
{
    struct directory_fixture *fixture = *state;
    struct test_draft *draft = test_draft_new();
    struct xprof_allocator *allocator = add_allocator(draft, "GPU_0_bfc");
    for (int i = 0; i < 2000; i++) {
        struct snapshot snapshot = test_snapshot(i, i * 1000);
        snapshot.op_name = intern(draft, "a rather long operation name to fill the file");
        append(&allocator->snapshots, &snapshot);
    }
    struct profile *big = test_draft_finish(draft);
    char path[512];
    snprintf(path, sizeof path, "%s", path_in(fixture, "big.csv"));
    write_text_file(path, "old\n");

    struct rlimit old_limit, limit;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old_limit), 0);
    limit = old_limit;
    limit.rlim_cur = 8192;
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &limit), 0);
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_TIMELINE, big, &big->allocators[0]);
    char error[EXPORT_ERROR_SIZE];
    size_t rows = 99;
    enum export_status status = export_to_path(path, true, &request, &rows, error, sizeof error);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old_limit), 0);
    signal(SIGXFSZ, old_handler);

    assert_int_equal(status, EXPORT_FAILED);
    assert_string_equal(error, strerror(EFBIG));
    assert_int_equal(rows, 0);
    char *kept = read_text_file(path);
    assert_string_equal(kept, "old\n");
    free(kept);
    assert_int_equal(hidden_files(fixture), 0);
    profile_free(big);
}

void test_full_disk_on_a_stream(void **state)
{
    struct directory_fixture *fixture = *state;
    FILE *full = fopen("/dev/full", "w");
    if (!full)
        TEST_SKIP("no /dev/full");
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_TIMELINE, fixture->profile,
                        &fixture->profile->allocators[0]);
    char error[EXPORT_ERROR_SIZE];
    size_t rows = 99;
    assert_int_equal(export_write(full, &request, &rows, error, sizeof error), EXPORT_FAILED);
    assert_string_equal(error, strerror(ENOSPC));
    assert_int_equal(rows, 0);
    fclose(full);
}
