/* load_internal: what loaders share with load.c and the tests, and no one
 * else needs.
 *
 * Owns: the tracker through which a loader reports how far it got (for
 * the progress bar, and so that load.c can drop the file's pages behind
 * it), the helpers that fill a load_error, and the switches the tests turn
 * to reach every path of the binary loader (thread threshold, fast path).
 * Called by: load.c, gzip.c, host_list.c, every form loader, the tests and
 * the fuzz harnesses. Must not be included by views, reports or main: they
 * see model/load.h only. */
#ifndef MEMTOP_LOAD_INTERNAL_H
#define MEMTOP_LOAD_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/load.h"

/* printf-style helpers for loaders filling a load_error (which may be
 * NULL). load_error_at() starts the message with "offset N: " and records
 * N as the error's offset. */
void load_error_set(struct load_error *error, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
void load_error_at(struct load_error *error, uint64_t offset, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

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
/* The end of a load: the bar reaches 100 % whatever the step. */
void load_tracker_finish(struct load_tracker *tracker);

/* ---- switches for the tests; the result is the same either way ---- */

/* The snapshot list of a PerAllocatorMemoryProfile of at least this many
 * bytes is decoded on two threads (the default is
 * LOAD_PROTOBUF_PARALLEL_THRESHOLD, about 30000 snapshots; 0 restores it). */
#define LOAD_PROTOBUF_PARALLEL_THRESHOLD ((size_t)4 << 20)
void load_protobuf_set_parallel_threshold(size_t threshold);

/* Whether a snapshot in its usual layout is decoded by the binary loader's
 * fast path (the default) or by its generic decoder; errors included, the
 * result is the same. */
void load_protobuf_set_fast_path(bool enabled);

/* The host plane of an XSpace whose lines take at least this many bytes is
 * walked on two threads (the default is about 4 MiB; 0 restores it, 1
 * makes every capture take two threads). */
void load_xspace_set_pipeline_threshold(size_t threshold);

/* A PyTorch memory snapshot of at least this many bytes replays its
 * trace entries on a thread of its own while the pickle is read (the
 * default is about 16 MiB; 0 restores it, 1 makes every snapshot take two
 * threads, SIZE_MAX none). */
void load_torch_snapshot_set_pipeline_threshold(size_t threshold);

/* Whether a PyTorch memory snapshot's trace entries after a list's first
 * batch are read from their bytes (the default, true) or as dicts the
 * pickle reader builds: for the tests that compare the two. */
void load_torch_snapshot_set_claims(bool claims);

#endif
