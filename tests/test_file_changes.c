/* A profile that changes under the loader: another process truncates and
 * rewrites the file while memtop loads it, over and over. profile_load()
 * maps the file, and touching a mapped page past a file's new end raises
 * SIGBUS; memtop must never die of it. Each load may succeed (it saw the
 * whole file) or fail cleanly with a message (it saw a cut or a mix), and
 * nothing may leak either way.
 *
 * The loads run in a child process so that a death by signal is reported
 * as a failed test naming the signal, not as a crashed test binary. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model/load.h"
#include "tests/test_support.h"

enum {
    LOADS = 60,          /* loads per form while the file keeps changing */
    LOADER_FAILED = 10,  /* the loader child's exit status: a broken promise */
};

/* Never returns: cuts the file to a third, to nothing, and to a page,
 * writing the whole content back in between, until killed. */
static void keep_changing(const char *path, const uint8_t *bytes, size_t size)
{
    int descriptor = open(path, O_WRONLY);
    if (descriptor < 0)
        _exit(1);
    long page = sysconf(_SC_PAGESIZE);
    const off_t cuts[] = {(off_t)size / 3, 0, (off_t)page, (off_t)size / 2 + 1};
    for (unsigned round = 0;; round++) {
        if (ftruncate(descriptor, cuts[round % 4]) != 0)
            _exit(1);
        sched_yield();
        if (pwrite(descriptor, bytes, size, 0) != (ssize_t)size)
            _exit(1);
        sched_yield();
    }
}

/* Waits (a bounded while) until the file is whole again: a load that
 * maps the whole file is the one a truncation can hurt. */
static void wait_until_whole(const char *path, size_t size)
{
    struct stat status;
    for (int tries = 0; tries < 100000; tries++) {
        if (stat(path, &status) == 0 && (size_t)status.st_size == size)
            return;
        sched_yield();
    }
}

/* The loader child: LOADS loads, each a clean success or a clean refusal. */
static void load_repeatedly(const char *path, size_t size)
{
    /* cmocka's handlers would turn a crash here into a test run of the
     * child's own; the parent must see the signal. */
    const int fatal[] = {SIGBUS, SIGSEGV, SIGILL, SIGFPE, SIGABRT};
    for (size_t i = 0; i < sizeof fatal / sizeof *fatal; i++)
        signal(fatal[i], SIG_DFL);
    for (int i = 0; i < LOADS; i++) {
        wait_until_whole(path, size);
        struct profile *profile = NULL;
        struct load_error error = {0};
        enum load_status status = profile_load(path, NULL, &profile, &error);
        if (status == LOAD_OK) {
            if (!profile || profile->allocator_count == 0)
                _exit(LOADER_FAILED);
            profile_free(profile);
        } else if (profile || error.message[0] == '\0' || strchr(error.message, '\n')) {
            _exit(LOADER_FAILED);
        }
    }
    exit(0); /* exit, not _exit: LeakSanitizer checks at exit */
}

static void expect_survives_changes(const char *source)
{
    char *source_path = test_source_path(source);
    size_t size;
    uint8_t *bytes = test_read_file(source_path, &size);
    if (!bytes)
        fail_msg("cannot read %s", source_path);
    free(source_path);
    char path[128];
    snprintf(path, sizeof path, "%s/changing", test_directory());
    FILE *file = fopen(path, "wb");
    assert_non_null(file);
    assert_int_equal(fwrite(bytes, 1, size, file), size);
    assert_int_equal(fclose(file), 0);

    fflush(NULL);
    pid_t changer = fork();
    assert_true(changer >= 0);
    if (changer == 0)
        keep_changing(path, bytes, size);
    pid_t loader = fork();
    assert_true(loader >= 0);
    if (loader == 0) {
        free(bytes); /* the parent's copy: LeakSanitizer checks the child too */
        load_repeatedly(path, size);
    }
    int status;
    assert_int_equal(waitpid(loader, &status, 0), loader);
    kill(changer, SIGKILL);
    int changer_status;
    waitpid(changer, &changer_status, 0);
    free(bytes);
    if (WIFSIGNALED(status))
        fail_msg("loading %s while it changes: the loader died of signal %d (%s)", source,
                 WTERMSIG(status), strsignal(WTERMSIG(status)));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("loading %s while it changes: the loader exited with status %d", source,
                 WEXITSTATUS(status));
    /* The changer must have been running all along, not failed at once. */
    assert_true(WIFSIGNALED(changer_status) && WTERMSIG(changer_status) == SIGKILL);
}

static void test_protobuf_truncated_while_loading(void **state)
{
    (void)state;
    expect_survives_changes("data/demo.v1.pb");
}

static void test_json_truncated_while_loading(void **state)
{
    (void)state;
    expect_survives_changes("data/demo.v1.json");
}

static void test_gzip_truncated_while_loading(void **state)
{
    (void)state;
    expect_survives_changes("data/demo.v0.pb.gz");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_protobuf_truncated_while_loading),
        cmocka_unit_test(test_json_truncated_while_loading),
        cmocka_unit_test(test_gzip_truncated_while_loading),
    };
    return cmocka_run_group_tests(tests, test_directory_create, test_directory_remove);
}
