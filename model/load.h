/* load: opening a profile file of any form memtop reads.
 *
 * The form is found from the content, never the name: gzip by its magic
 * bytes (then the same detection on the inflated bytes), JSON when the
 * first non-blank byte is '{' or '[', binary protobuf otherwise.
 * Errors are values: a loader returns a status and writes one line (no
 * file name, which the caller prints) saying what is wrong and where. */
#ifndef MEMTOP_LOAD_H
#define MEMTOP_LOAD_H

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
};

/* Progress of a long load, 0..total bytes; may be NULL. */
typedef void (*load_progress_fn)(void *context, uint64_t done, uint64_t total);

struct load_options {
    load_progress_fn progress;
    void *progress_context;
    /* Refuse gzip that inflates past this many bytes (a decompression
     * bomb); 0 means the default. */
    uint64_t max_inflated_bytes;
};

/* Loads `path` into *out (NULL on failure). options may be NULL. */
enum load_status profile_load(const char *path, const struct load_options *options,
                              struct profile **out, struct load_error *error);

/* Loads from bytes already in memory; `name` is only recorded as the path. */
enum load_status profile_load_bytes(const uint8_t *bytes, size_t size, const char *name,
                                    const struct load_options *options,
                                    struct profile **out, struct load_error *error);

/* The form loaders, for profile_load_bytes() and the tests. Each fills an
 * empty profile through the builder calls; profile_finish() is the
 * caller's. */
enum load_status load_protobuf(const uint8_t *bytes, size_t size, struct profile *profile,
                               struct load_error *error);
enum load_status load_json(const uint8_t *bytes, size_t size, struct profile *profile,
                           struct load_error *error);

/* printf-style helper for loaders filling a load_error. */
void load_error_set(struct load_error *error, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

#endif
