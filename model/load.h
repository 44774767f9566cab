/* load: opening a profile, the one door into the model.
 *
 * Owns: turning a path (or bytes already in memory) into a finished,
 * immutable struct profile, and the error that says why it could not.
 * The form is found from the content, never the name: gzip by its magic
 * bytes (then the same detection on the inflated bytes), then the formats
 * of model/input_format.h, each judging the first bytes.
 * Called by: host_list (the viewer and main load hosts through it), the
 * benchmarks and the tests.
 * Must not: print, exit, or keep anything between calls. Errors are
 * values: a status and one line (no file name, which the caller prints)
 * saying what is wrong and where. A line that quotes the file's text
 * (a JSON key, say) holds its bytes raw, a NUL perhaps among them:
 * whoever prints or draws it escapes it, once. How loaders report progress and the
 * switches the tests turn are in model/load_internal.h, not here. */
#ifndef MEMTOP_LOAD_H
#define MEMTOP_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"

enum load_status {
    LOAD_OK = 0,
    LOAD_BAD_INPUT,  /* missing, unreadable, not a profile, corrupt: exit 2 */
    LOAD_NO_MEMORY,  /* runtime failure: exit 1 */
};

#define LOAD_ERROR_SIZE 256

struct load_error {
    char message[LOAD_ERROR_SIZE]; /* e.g. "offset 1234: truncated varint" */
    /* The message's bytes (a quoted key may bring a NUL): read them with
     * load_error_message(). */
    size_t message_length;
    /* The byte the message names (its "offset N: "), in the bytes the
     * loader read (inflated ones for gzip input); valid when has_offset. */
    uint64_t offset;
    bool has_offset;
    /* The path (or name) the load was given: borrowed from the caller,
     * valid while the caller's string is; NULL before a load sets it. */
    const char *file;
};

/* The message with its length, raw: escape it to show it. */
struct text load_error_message(const struct load_error *error);

/* Progress of a long load, 0..total bytes; may be NULL. */
typedef void (*load_progress_fn)(void *context, uint64_t done, uint64_t total);

struct load_options {
    load_progress_fn progress;
    void *progress_context;
    /* Refuse gzip that inflates past this many bytes (a decompression
     * bomb); 0 means the default. */
    uint64_t max_inflated_bytes;
};

/* The path that names standard input. */
#define LOAD_STANDARD_INPUT "-"

/* Loads `path` into *out (NULL on failure). options may be NULL. A
 * regular file is mapped; anything else that reads (a pipe, a FIFO, a
 * device, /dev/stdin, "-" for standard input) is read into memory up to
 * the cap gzip input has (max_inflated_bytes, or the default), waiting
 * for a FIFO's writer as cat would. */
enum load_status profile_load(const char *path, const struct load_options *options,
                              struct profile **out, struct load_error *error);

/* Loads from bytes already in memory; `name` is only recorded as the path.
 * A format that reads its file by path (see input_format.h) cannot be
 * loaded this way. */
enum load_status profile_load_bytes(const uint8_t *bytes, size_t size, const char *name,
                                    const struct load_options *options,
                                    struct profile **out, struct load_error *error);

/* The index-th format memtop reads, from the one format table, for
 * --help: its short name ("xspace") and a line for people. Rows that
 * only recognise a form to refuse it are passed over. False past the
 * last. */
bool load_format_describe(size_t index, const char **name, const char **description);

#endif
