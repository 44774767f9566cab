/* atomic_file: what each kind of path is written as. Files and symlinks
 * are replaced atomically (test_export.c checks the details with real
 * CSV); FIFOs, character devices and links into /proc are written
 * directly; directories, sockets and block devices are refused. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include "report/atomic_file.h"
#include "tests/test_support.h"

#define CONTENT "id,name\n1,\"a, b\"\n"

/* An atomic_file_write_fn writing CONTENT; counts its calls. */
static bool write_content(FILE *out, void *context, char *error, size_t error_size)
{
    (void)error;
    (void)error_size;
    ++*(int *)context;
    return fputs(CONTENT, out) >= 0;
}

static char *path_in(const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", test_directory(), name);
    return path;
}

static enum atomic_file_status write_to(const char *path, bool replace, int *calls, char *error,
                                        size_t error_size)
{
    *calls = 0;
    error[0] = '\0';
    return atomic_file_write(path, replace, write_content, calls, error, error_size);
}

/* Reads what the other end of a pipe received. */
static void assert_pipe_holds(int fd, const char *expected)
{
    char buffer[256];
    ssize_t length = read(fd, buffer, sizeof buffer - 1);
    assert_true(length >= 0);
    buffer[length] = '\0';
    assert_string_equal(buffer, expected);
}

static void test_new_file_is_written(void **state)
{
    (void)state;
    char error[256];
    int calls;
    const char *path = path_in("new.csv");
    assert_int_equal(write_to(path, false, &calls, error, sizeof error), ATOMIC_FILE_OK);
    size_t size;
    uint8_t *bytes = test_read_file(path, &size);
    assert_non_null(bytes);
    assert_int_equal(size, strlen(CONTENT));
    assert_memory_equal(bytes, CONTENT, size);
    free(bytes);
    /* Again, without replace: refused before anything is written. */
    assert_int_equal(write_to(path, false, &calls, error, sizeof error), ATOMIC_FILE_EXISTS);
    assert_int_equal(calls, 0);
    unlink(path);
}

/* A FIFO with a reader: written into, with or without replace, and
 * still a FIFO afterwards (16.1). The reader is this process, opened
 * without blocking first, so that a FIFO wrongly replaced shows as a
 * failed check, not a hang. */
static void test_fifo_is_written_directly(void **state)
{
    (void)state;
    const char *path = path_in("fifo");
    assert_int_equal(mkfifo(path, 0600), 0);
    for (int replace = 0; replace < 2; replace++) {
        int reader = open(path, O_RDONLY | O_NONBLOCK);
        assert_true(reader >= 0);
        char error[256];
        int calls;
        assert_int_equal(write_to(path, replace, &calls, error, sizeof error), ATOMIC_FILE_OK);
        assert_pipe_holds(reader, CONTENT);
        close(reader);
        struct stat after;
        assert_int_equal(lstat(path, &after), 0);
        assert_true(S_ISFIFO(after.st_mode));
    }
    unlink(path);
}

/* A character device: /dev/null without replace (a regression would be
 * refused, never replace it), and a node of our own, with replace, where
 * we may make one (mknod needs root). */
static void test_character_device_is_written_directly(void **state)
{
    (void)state;
    char error[256];
    int calls;
    assert_int_equal(write_to("/dev/null", false, &calls, error, sizeof error), ATOMIC_FILE_OK);
    assert_int_equal(calls, 1);
    struct stat status;
    const char *path = path_in("null-device");
    if (mknod(path, S_IFCHR | 0666, makedev(1, 3)) != 0)
        TEST_SKIP("cannot make a device node here (not root?): %s", strerror(errno));
    for (int replace = 0; replace < 2; replace++) {
        assert_int_equal(write_to(path, replace, &calls, error, sizeof error), ATOMIC_FILE_OK);
        assert_int_equal(calls, 1);
        assert_int_equal(lstat(path, &status), 0);
        assert_true(S_ISCHR(status.st_mode));
    }
    unlink(path);
}

/* /proc/self/fd/N, /dev/fd/N and a link of ours to one: an open file of
 * this process, written into (the link stays a link). */
static void test_links_into_proc_are_written_through(void **state)
{
    (void)state;
    int ends[2];
    assert_int_equal(pipe(ends), 0);
    char proc_path[64], dev_fd_path[64];
    snprintf(proc_path, sizeof proc_path, "/proc/self/fd/%d", ends[1]);
    snprintf(dev_fd_path, sizeof dev_fd_path, "/dev/fd/%d", ends[1]);
    struct stat status;
    if (lstat(proc_path, &status) != 0)
        TEST_SKIP("no /proc here");
    char error[256];
    int calls;
    assert_int_equal(write_to(proc_path, false, &calls, error, sizeof error), ATOMIC_FILE_OK);
    assert_pipe_holds(ends[0], CONTENT);
    if (lstat(dev_fd_path, &status) == 0) {
        assert_int_equal(write_to(dev_fd_path, true, &calls, error, sizeof error), ATOMIC_FILE_OK);
        assert_pipe_holds(ends[0], CONTENT);
    }
    const char *link_path = path_in("to-proc");
    assert_int_equal(symlink(proc_path, link_path), 0);
    assert_int_equal(write_to(link_path, true, &calls, error, sizeof error), ATOMIC_FILE_OK);
    assert_pipe_holds(ends[0], CONTENT);
    assert_int_equal(lstat(link_path, &status), 0);
    assert_true(S_ISLNK(status.st_mode));
    unlink(link_path);
    close(ends[0]);
    close(ends[1]);

    /* A regular file behind the link (a redirected standard output) is
     * written at its end, not replaced. */
    const char *file_path = path_in("redirected.txt");
    int fd = open(file_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "before\n", 7), 7);
    snprintf(proc_path, sizeof proc_path, "/proc/self/fd/%d", fd);
    assert_int_equal(write_to(proc_path, true, &calls, error, sizeof error), ATOMIC_FILE_OK);
    close(fd);
    size_t size;
    uint8_t *bytes = test_read_file(file_path, &size);
    assert_non_null(bytes);
    assert_int_equal(size, 7 + strlen(CONTENT));
    assert_memory_equal(bytes, "before\n" CONTENT, size);
    free(bytes);
    unlink(file_path);
}

/* A directory and a socket: refused, saying why, whatever replace says;
 * nothing is written and nothing is left behind. */
static void test_directories_and_sockets_are_refused(void **state)
{
    (void)state;
    char error[256];
    int calls;
    const char *directory = path_in("a-directory");
    assert_int_equal(mkdir(directory, 0755), 0);
    for (int replace = 0; replace < 2; replace++) {
        assert_int_equal(write_to(directory, replace, &calls, error, sizeof error),
                         ATOMIC_FILE_FAILED);
        assert_string_equal(error, "is a directory, not a file");
        assert_int_equal(calls, 0);
    }
    struct stat status;
    assert_int_equal(lstat(directory, &status), 0);
    assert_true(S_ISDIR(status.st_mode));
    rmdir(directory);

    struct sockaddr_un address = {.sun_family = AF_UNIX};
    const char *socket_path = path_in("socket");
    if (strlen(socket_path) >= sizeof address.sun_path)
        TEST_SKIP("the test directory's path is too long for a socket");
    memcpy(address.sun_path, socket_path, strlen(socket_path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    assert_int_equal(bind(fd, (const struct sockaddr *)&address, sizeof address), 0);
    assert_int_equal(write_to(address.sun_path, true, &calls, error, sizeof error),
                     ATOMIC_FILE_FAILED);
    assert_non_null(strstr(error, "is a socket"));
    assert_int_equal(calls, 0);
    assert_int_equal(lstat(address.sun_path, &status), 0);
    assert_true(S_ISSOCK(status.st_mode));
    close(fd);
    unlink(address.sun_path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_file_is_written),
        cmocka_unit_test(test_fifo_is_written_directly),
        cmocka_unit_test(test_character_device_is_written_directly),
        cmocka_unit_test(test_links_into_proc_are_written_through),
        cmocka_unit_test(test_directories_and_sockets_are_refused),
    };
    return cmocka_run_group_tests(tests, test_directory_create, test_directory_remove);
}
