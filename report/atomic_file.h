/* atomic_file: writes a report to a path so that the path is either
 * untouched or complete, also when the disk fills up or the program is
 * killed half-way. Any report that writes a file uses it (the CSV
 * exporters today, a Chrome-trace export next); the caller supplies a
 * function that writes the content to a stream.
 *
 * A regular file (new or replaced) is written to a temporary
 * ".NAME.XXXXXX" in the same directory, flushed and fsync'ed, then
 * renamed over the path (renameat2(RENAME_NOREPLACE) when the path must
 * not be replaced, else link(2), else a last lstat check; the temporary
 * is removed on every failure). The new file has mode 0644 & ~umask (the
 * umask is read with umask(2): call from one thread) and keeps nothing of
 * a file it replaces. A symlink at the path is a file like any other: it
 * is replaced, never followed, and its target stays untouched.
 *
 * What cannot be replaced atomically is not replaced: a FIFO, a character
 * device (a terminal, /dev/null) and a link into /proc (/dev/stdout,
 * /dev/stderr, /dev/fd/N: it names a file this process has open) are
 * opened and written directly, whether replacing was allowed or not. A
 * directory, a block device and a socket are refused.
 *
 * It must not know what it writes, and it prints nothing: the outcome
 * and a one-line reason (no path in it) go back to the caller. */
#ifndef MEMTOP_ATOMIC_FILE_H
#define MEMTOP_ATOMIC_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum atomic_file_status {
    ATOMIC_FILE_OK,
    ATOMIC_FILE_EXISTS, /* the path holds a file and replace was false:
                           nothing was written */
    ATOMIC_FILE_FAILED, /* error holds the reason */
};

/* Writes the content to out (not closing it); false with a one-line
 * reason in error when it failed. */
typedef bool atomic_file_write_fn(FILE *out, void *context, char *error, size_t error_size);

/* Writes what write_content() produces to path, as described above. */
enum atomic_file_status atomic_file_write(const char *path, bool replace,
                                          atomic_file_write_fn *write_content, void *context,
                                          char *error, size_t error_size);

#endif
