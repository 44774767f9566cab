/* load: opening a profile file of any form memtop reads.
 *
 * The form is found from the content, never the name: gzip by its magic
 * bytes (then the same detection on the inflated bytes), JSON when the
 * first non-blank byte is '{' or '[', binary protobuf otherwise.
 * Errors are values: a loader returns a status and writes one line (no
 * file name, which the caller prints) saying what is wrong and where. */
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

/* How a form loader tells its caller how far it got. It calls
 * load_tracker_advance() as it goes (as often as it likes: the tracker acts
 * once per LOAD_TRACKER_STEP bytes), which reports progress to the
 * caller's load_options and lets profile_load() drop the pages of the file
 * mapping the loader is done with: a mapped file counts in the resident
 * size while its pages stay mapped, and a big profile is mostly bytes that
 * are read once. A NULL tracker is allowed everywhere and does nothing. */
struct load_tracker {
    const struct load_options *options; /* progress callback; may be NULL */
    uint64_t total;                     /* bytes the loader walks */
    /* The bytes [from, to) are not needed again soon (reading them again
     * stays correct, only slower); NULL when nothing can be released. */
    void (*release)(void *context, size_t from, size_t to);
    void *release_context;
    size_t next_report; /* the offset that triggers the next report */
    size_t released_at; /* this pass released up to here */
};

#define LOAD_TRACKER_STEP ((size_t)1 << 20)

/* The loader is done with the bytes before `offset`: progress and release. */
void load_tracker_advance(struct load_tracker *tracker, size_t offset);
/* Release only: this thread is done with the bytes before `offset` (for
 * a loader whose progress counts another thread's work too). */
void load_tracker_release(struct load_tracker *tracker, size_t offset);
/* Progress only: `done` bytes of `total`, whatever was read where. */
void load_tracker_report(struct load_tracker *tracker, size_t done);

/* The snapshot list of a PerAllocatorMemoryProfile of at least this many
 * bytes is decoded on two threads (the default is
 * LOAD_PROTOBUF_PARALLEL_THRESHOLD, about 30000 snapshots; 0 restores it).
 * For the tests: the result is the same either way. */
#define LOAD_PROTOBUF_PARALLEL_THRESHOLD ((size_t)4 << 20)
void load_protobuf_set_parallel_threshold(size_t threshold);

/* Whether a snapshot in its usual layout is decoded by the loader's fast
 * path (the default) or by its generic decoder. For the tests: the result,
 * errors included, is the same either way. */
void load_protobuf_set_fast_path(bool enabled);

/* load_protobuf() and load_json() with a tracker (which may be NULL). */
enum load_status load_protobuf_tracked(const uint8_t *bytes, size_t size, struct profile *profile,
                                       struct load_tracker *tracker, struct load_error *error);
enum load_status load_json_tracked(const uint8_t *bytes, size_t size, struct profile *profile,
                                   struct load_tracker *tracker, struct load_error *error);

/* printf-style helper for loaders filling a load_error. */
void load_error_set(struct load_error *error, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

#endif
