#include "config.h"

#include "report/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/vfs.h>
#endif

/* procfs's f_type (linux/magic.h). */
#define PROC_FILE_SYSTEM_MAGIC 0x9fa0
/* Links followed before giving up, as the kernel's own limit. */
#define LINK_HOPS_MAX 40

static enum atomic_file_status fail(char *error, size_t error_size, const char *reason,
                                    int error_number)
{
    if (error_number)
        snprintf(error, error_size, "%s%s%s", reason, reason[0] ? ": " : "",
                 strerror(error_number));
    else
        snprintf(error, error_size, "%s", reason);
    return ATOMIC_FILE_FAILED;
}

/* ---- what the path is ---- */

enum target_kind {
    TARGET_FILE,   /* absent, a regular file or a symlink: written atomically */
    TARGET_STREAM, /* a FIFO, a character device, a link into /proc: written directly */
    TARGET_REFUSED,
};

/* The directory part of path, "." for a bare name; false when too long. */
static bool directory_of(const char *path, char *directory, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return snprintf(directory, size, ".") < (int)size;
    size_t length = slash == path ? 1 : (size_t)(slash - path);
    if (length >= size)
        return false;
    memcpy(directory, path, length);
    directory[length] = '\0';
    return true;
}

/* Whether the link at path lives in procfs: a /proc/PID/fd/N link names
 * a file this process has open, whatever its target text says. */
static bool link_is_in_proc(const char *path)
{
#ifdef __linux__
    char directory[PATH_MAX];
    struct statfs file_system;
    return directory_of(path, directory, sizeof directory) &&
           statfs(directory, &file_system) == 0 &&
           file_system.f_type == PROC_FILE_SYSTEM_MAGIC;
#else
    return strncmp(path, "/proc/", 6) == 0;
#endif
}

/* Whether path is a symlink whose chain of links reaches into /proc, as
 * /dev/stdout (-> /proc/self/fd/1) and /dev/fd/N do. */
static bool leads_into_proc(const char *path)
{
    char current[PATH_MAX];
    if (snprintf(current, sizeof current, "%s", path) >= (int)sizeof current)
        return false;
    for (int hop = 0; hop < LINK_HOPS_MAX; hop++) {
        struct stat status;
        if (lstat(current, &status) != 0 || !S_ISLNK(status.st_mode))
            return false;
        if (link_is_in_proc(current))
            return true;
        char target[PATH_MAX], directory[PATH_MAX];
        ssize_t length = readlink(current, target, sizeof target - 1);
        if (length < 0)
            return false;
        target[length] = '\0';
        if (target[0] == '/') {
            memcpy(current, target, (size_t)length + 1);
        } else {
            if (!directory_of(current, directory, sizeof directory) ||
                snprintf(current, sizeof current, "%s/%s", directory, target) >=
                    (int)sizeof current)
                return false;
        }
    }
    return false;
}

/* What a path that is not a file to replace would be written as, or why
 * not; status is lstat's (or, through /proc, stat's) view of it. */
static enum target_kind kind_of_special(const struct stat *status, const char **reason)
{
    if (S_ISFIFO(status->st_mode) || S_ISCHR(status->st_mode))
        return TARGET_STREAM;
    if (S_ISDIR(status->st_mode))
        *reason = "is a directory, not a file";
    else if (S_ISBLK(status->st_mode))
        *reason = "is a block device; memtop writes files, FIFOs and character devices";
    else if (S_ISSOCK(status->st_mode))
        *reason = "is a socket; memtop writes files, FIFOs and character devices";
    else
        *reason = "is not a file; memtop writes files, FIFOs and character devices";
    return TARGET_REFUSED;
}

/* How to write path; *append is set for a regular file reached through
 * /proc (e.g. a redirected standard output), which is written at its end
 * as the redirection that opened it would. */
static enum target_kind target_classify(const char *path, bool *append, const char **reason,
                                        int *error_number)
{
    *append = false;
    *error_number = 0;
    struct stat status;
    if (lstat(path, &status) != 0)
        return TARGET_FILE; /* absent; other errors show when the temporary is made */
    if (S_ISREG(status.st_mode))
        return TARGET_FILE;
    if (S_ISLNK(status.st_mode)) {
        if (!leads_into_proc(path))
            return TARGET_FILE; /* replaced, not followed */
        if (stat(path, &status) != 0) {
            *error_number = errno;
            return TARGET_REFUSED;
        }
        if (S_ISREG(status.st_mode)) {
            *append = true;
            return TARGET_STREAM;
        }
    }
    return kind_of_special(&status, reason);
}

/* ---- writing ---- */

/* The content into fd, flushed to the disk; closes fd. */
static enum atomic_file_status descriptor_write(int fd, atomic_file_write_fn *write_content,
                                                void *context, char *error, size_t error_size)
{
    FILE *stream = fdopen(fd, "w");
    if (!stream) {
        int saved = errno;
        close(fd);
        return fail(error, error_size, "", saved);
    }
    enum atomic_file_status status =
        write_content(stream, context, error, error_size) ? ATOMIC_FILE_OK : ATOMIC_FILE_FAILED;
    /* Flushed before the fsync, so that it syncs everything. */
    if (status == ATOMIC_FILE_OK && fflush(stream) != 0)
        status = fail(error, error_size, "", errno);
    /* fsync refuses only what cannot be synced (EINVAL: a pipe, a
     * terminal): nothing to lose there. */
    if (status == ATOMIC_FILE_OK && fsync(fd) != 0 && errno != EINVAL)
        status = fail(error, error_size, "", errno);
    if (fclose(stream) != 0 && status == ATOMIC_FILE_OK)
        status = fail(error, error_size, "", errno);
    return status;
}

/* A FIFO, a device, a file behind /proc: opened and written as it is. */
static enum atomic_file_status stream_write(const char *path, bool append,
                                            atomic_file_write_fn *write_content, void *context,
                                            char *error, size_t error_size)
{
    int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | (append ? O_APPEND : 0));
    if (fd < 0)
        return fail(error, error_size, "", errno);
    return descriptor_write(fd, write_content, context, error, error_size);
}

/* ---- writing a file atomically ---- */

/* Longest part of the target's name used in the temporary's, so that
 * ".NAME.XXXXXX" stays below NAME_MAX. */
#define TEMPORARY_NAME_MAX 200

struct path_parts {
    char *directory; /* "." for a bare name */
    char *temporary; /* directory/.NAME.XXXXXX, a mkstemp template */
};

static void path_parts_free(struct path_parts *parts)
{
    free(parts->directory);
    free(parts->temporary);
}

static bool path_parts_split(const char *path, struct path_parts *parts)
{
    *parts = (struct path_parts){0};
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    /* "name" lives in ".", "/name" in "/", "a/b/name" in "a/b". */
    const char *directory = slash ? path : ".";
    size_t directory_length = slash ? (size_t)(slash - path) : 1;
    size_t name_length = strnlen(name, TEMPORARY_NAME_MAX);
    size_t size = directory_length + name_length + sizeof "/..XXXXXX";
    parts->directory = malloc(directory_length + 2);
    parts->temporary = malloc(size);
    if (!parts->directory || !parts->temporary) {
        path_parts_free(parts);
        return false;
    }
    if (directory_length == 0)
        strcpy(parts->directory, "/");
    else
        snprintf(parts->directory, directory_length + 2, "%.*s", (int)directory_length,
                 directory);
    snprintf(parts->temporary, size, "%.*s/.%.*s.XXXXXX", (int)directory_length, directory,
             (int)name_length, name);
    return true;
}

static mode_t new_file_mode(void)
{
    mode_t mask = umask(0);
    umask(mask);
    return 0644 & ~mask;
}

/* The content into the open temporary, flushed to the disk; closes it. */
static enum atomic_file_status temporary_write(int fd, atomic_file_write_fn *write_content,
                                               void *context, char *error, size_t error_size)
{
    if (fchmod(fd, new_file_mode()) != 0) {
        int saved = errno;
        close(fd);
        return fail(error, error_size, "cannot set the mode of the temporary file", saved);
    }
    return descriptor_write(fd, write_content, context, error, error_size);
}

/* The rename that makes the file appear, refusing to replace one that
 * appeared meanwhile when !replace. */
static enum atomic_file_status temporary_publish(const char *temporary, const char *path,
                                                 bool replace, char *error, size_t error_size)
{
    if (!replace) {
#ifdef RENAME_NOREPLACE
        if (renameat2(AT_FDCWD, temporary, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
            return ATOMIC_FILE_OK;
        if (errno == EEXIST)
            return ATOMIC_FILE_EXISTS;
        if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
            return fail(error, error_size, "cannot rename the temporary file", errno);
#endif
        /* No RENAME_NOREPLACE here: link(2) also refuses an existing name. */
        if (link(temporary, path) == 0) {
            unlink(temporary);
            return ATOMIC_FILE_OK;
        }
        if (errno == EEXIST)
            return ATOMIC_FILE_EXISTS;
        if (errno != EPERM && errno != ENOTSUP && errno != ENOSYS && errno != EMLINK)
            return fail(error, error_size, "cannot link the temporary file", errno);
        /* No hard links either (FAT, some network file systems). */
        struct stat status;
        if (lstat(path, &status) == 0)
            return ATOMIC_FILE_EXISTS;
    }
    if (rename(temporary, path) != 0)
        return fail(error, error_size, "cannot rename the temporary file", errno);
    return ATOMIC_FILE_OK;
}

/* Makes the rename itself durable; a directory that cannot be synced
 * still holds the complete file, so errors here are not failures. */
static void directory_sync(const char *directory)
{
    int fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

static enum atomic_file_status file_write(const char *path, bool replace,
                                          atomic_file_write_fn *write_content, void *context,
                                          char *error, size_t error_size)
{
    struct stat status;
    /* Refuse early: no point writing a large file that cannot be placed. */
    if (!replace && lstat(path, &status) == 0)
        return ATOMIC_FILE_EXISTS;
    const char *name = strrchr(path, '/');
    if ((name ? name[1] : path[0]) == '\0')
        return fail(error, error_size, "", path[0] ? EISDIR : ENOENT);
    struct path_parts parts;
    if (!path_parts_split(path, &parts))
        return fail(error, error_size, "", ENOMEM);
    int fd = mkstemp(parts.temporary);
    if (fd < 0) {
        int saved = errno;
        path_parts_free(&parts);
        return fail(error, error_size, "cannot create a temporary file there", saved);
    }
    enum atomic_file_status result =
        temporary_write(fd, write_content, context, error, error_size);
    if (result == ATOMIC_FILE_OK)
        result = temporary_publish(parts.temporary, path, replace, error, error_size);
    if (result == ATOMIC_FILE_OK)
        directory_sync(parts.directory);
    else
        unlink(parts.temporary);
    path_parts_free(&parts);
    return result;
}

enum atomic_file_status atomic_file_write(const char *path, bool replace,
                                          atomic_file_write_fn *write_content, void *context,
                                          char *error, size_t error_size)
{
    bool append;
    const char *reason = "";
    int error_number;
    switch (target_classify(path, &append, &reason, &error_number)) {
    case TARGET_STREAM:
        return stream_write(path, append, write_content, context, error, error_size);
    case TARGET_REFUSED: return fail(error, error_size, reason, error_number);
    default: return file_write(path, replace, write_content, context, error, error_size);
    }
}
