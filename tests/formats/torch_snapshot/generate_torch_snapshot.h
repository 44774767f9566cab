/* generate_torch_snapshot: the project's own PyTorch memory snapshots.
 *
 * A simulated caching allocator per device (2 MiB slots in 64 MiB
 * segments, segments released when empty, frees completed late as on a
 * second stream) records every event; a ring buffer keeps the last
 * --max-entries of each device, as _record_memory_history(max_entries=)
 * does; the pickle is written the way CPython's pickler writes
 * torch.cuda.memory._snapshot()'s dict (pickle_writer.h): shared frame
 * dicts and traceback lists, C++ frames, the key orders of torch 2.11.
 * --expect prints what a reader must find, from the simulation's own
 * counts, checked against a second method (a replay of the written
 * entries and blocks by the spec's section 5) before anything is printed.
 * Independent of memtop: it includes nothing of model/.
 *
 * generate_torch_snapshot.c        options, the simulation, the expect file
 * generate_torch_snapshot_write.c  the pickle's layout */
#ifndef MEMTOP_TESTS_GENERATE_TORCH_SNAPSHOT_H
#define MEMTOP_TESTS_GENERATE_TORCH_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define GEN_SLOT_BYTES ((int64_t)2 << 20)
#define GEN_SLOTS_PER_SEGMENT 32
#define GEN_SEGMENT_BYTES (GEN_SLOT_BYTES * GEN_SLOTS_PER_SEGMENT)

enum gen_action {
    GEN_ALLOC,
    GEN_FREE_REQUESTED,
    GEN_FREE_COMPLETED,
    GEN_SEGMENT_ALLOC,
    GEN_SEGMENT_FREE,
    GEN_OOM,
};

struct gen_entry {
    uint64_t address; /* device_free for oom */
    int64_t size;
    int64_t time_us;
    uint32_t traceback; /* index in gen->tracebacks; UINT32_MAX: no frames */
    uint8_t action;
    uint8_t stream; /* 0 default, 1 a side stream */
};

struct gen_frame {
    char name[96];
    char filename[64];
    int line;
};

struct gen_traceback {
    uint32_t *frames; /* indices in gen->frames, innermost first */
    size_t count;
};

struct gen_slot {
    int64_t requested; /* 0: free */
    uint32_t traceback;
    bool pending;  /* free requested, not completed */
    bool recorded; /* allocated while recording (has frames) */
    uint8_t stream;
};

struct gen_segment {
    bool released;
    int live; /* slots in use, pending ones included */
};

struct gen_device {
    struct gen_entry *entries; /* every event recorded, oldest first */
    size_t count, capacity;
    size_t window; /* the first entry the ring buffer keeps */
    struct gen_slot *slots;
    struct gen_segment *segments;
    size_t segment_count;
    uint32_t *free_slots; /* a stack */
    size_t free_count;
    uint32_t *pending; /* slots waiting for free_completed */
    size_t pending_count;
    /* The simulation's own counts after each entry: method 1. */
    int64_t *allocated;
    uint32_t *live;
    int64_t *reserved;
    int64_t allocated_now, reserved_now;
    uint32_t live_now;
    int64_t before_bytes;   /* at the window's start */
    uint32_t before_count;
};

struct gen_annotation {
    int64_t time_us;
    int device;
    bool start;
    unsigned step;
};

struct generator {
    uint64_t seed;
    size_t entries;     /* recorded per device */
    size_t max_entries; /* ring buffer; 0 keeps all */
    int devices;
    int protocol;
    bool python_only;
    bool oom;
    size_t params; /* allocations made before recording (ghosts) */
    struct gen_frame *frames;
    size_t frame_count;
    struct gen_traceback *tracebacks;
    size_t traceback_count;
    size_t autograd_from; /* tracebacks from here on have no Python frame */
    struct gen_device device[2];
    struct gen_annotation *annotations;
    size_t annotation_count, annotation_capacity;
    int64_t clock_us;
};

/* generate_torch_snapshot_write.c */
bool gen_write_pickle(const struct generator *gen, FILE *out);

#endif
