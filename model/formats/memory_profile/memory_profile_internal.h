/* load_protobuf: what the three files of the binary MemoryProfile loader
 * share, and no one else sees.
 *
 * Owns: the loader's state, the snapshot decoder (load_protobuf_snapshot.c:
 * the message tables and the fast path for snapshots in their usual
 * layout) and the two-thread split of a long snapshot list
 * (load_protobuf_split.c), as load_protobuf.c (the outer messages: the
 * MemoryProfile, its map, each PerAllocatorMemoryProfile) calls them.
 * Called by: load_protobuf.c, load_protobuf_snapshot.c,
 * load_protobuf_split.c only.
 * Must not: be included elsewhere: tests reach the loader through
 * model/xprof_draft.h and the switches of model/load_internal.h. */
#ifndef MEMTOP_LOAD_PROTOBUF_H
#define MEMTOP_LOAD_PROTOBUF_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/decode/protobuf_table.h"
#include "model/decode/protobuf_wire.h"
#include "model/formats/memory_profile/xprof_draft.h"

struct protobuf_loader {
    struct wire wire;
    struct xprof_draft *draft;    /* NULL in the worker thread */
    struct string_table *strings; /* the draft's, or the worker's own */
    struct load_tracker *tracker; /* may be NULL */
};

/* "offset N: out of memory" */
enum load_status protobuf_fail_memory(struct protobuf_loader *loader, size_t offset);

/* ---- load_protobuf_snapshot.c ---- */

/* MemoryAggregationStats, onto a struct memory_stats. */
extern const struct protobuf_message_spec protobuf_stats_message;
/* MemoryActivityMetadata, onto a struct snapshot (a special allocation). */
extern const struct protobuf_message_spec protobuf_metadata_message;

/* One MemoryProfileSnapshot from [start, end) onto a zeroed `snapshot`:
 * the fast path when it can, the table decoder otherwise, with the same
 * result and the same errors. */
enum load_status protobuf_read_snapshot(struct protobuf_loader *loader, size_t start, size_t end,
                                        struct snapshot *snapshot);

/* ---- load_protobuf_split.c: a long snapshot list on two threads ---- */

struct protobuf_worker {
    pthread_t thread;
    struct protobuf_loader loader; /* no draft, no tracker, its own strings */
    struct load_error error;       /* the worker's wire errors go here, unread */
    uint32_t number;               /* the list split: 1 or 5 */
    size_t start, middle, end;     /* of the value */
    struct snapshot_columns *columns;
    size_t base;     /* columns->count when the value began */
    size_t capacity; /* columns->capacity, fixed while the worker runs */
    /* The tracker's release, called from the worker: it only drops pages. */
    void (*release)(void *context, size_t from, size_t to);
    void *release_context;
    size_t page_size;
    atomic_bool cancelled;
    atomic_size_t reached; /* for progress: where the worker's decoding is */
    /* Set by the worker; read after the join. */
    bool has_split;
    size_t split;       /* the list's first entry at or past middle */
    size_t first_index; /* its index in the columns */
    size_t stored;      /* entries decoded into [first_index, first_index + stored) */
    size_t stop;        /* the list's first entry from split on not decoded; end if none */
    size_t resume;      /* the first other field from split on; end if none */
};

/* The entries of the list the main thread leaves alone: those in
 * [from, to), the worker's. */
struct protobuf_taken {
    uint32_t number;
    size_t from;
    size_t to;
};

/* A worker for the value [start, end) of allocator `index`, started; NULL
 * when the value is not worth one or one cannot be had (one thread then
 * decodes it all). */
struct protobuf_worker *protobuf_worker_start(const struct protobuf_loader *loader, size_t index,
                                              size_t start, size_t end);
/* Stops the worker and forgets what it did: its entries lie past the
 * columns' count, where the main thread overwrites them. */
void protobuf_worker_cancel(struct protobuf_worker *worker);
/* The main thread has reached the split at `offset`: it joins the worker,
 * takes its entries over and returns where to go on (the worker's first
 * field that is not one of them). `offset` again if nothing can be taken.
 * The worker is freed. */
size_t protobuf_worker_hand_over(struct protobuf_loader *loader, struct protobuf_worker *worker,
                                 size_t offset, struct protobuf_taken *taken);
/* Progress for the main thread at `position`, counting the worker's
 * bytes too; pages are released behind each thread by itself. */
void protobuf_track(struct protobuf_loader *loader, struct protobuf_worker *worker,
                    size_t position);

#endif
