/* torch_snapshot_internal: what the files of the PyTorch memory snapshot
 * reader share (the format's facts and decisions: docs/formats/torch_snapshot.md).
 *
 * The folder, in the order the data flows:
 *   torch_snapshot.c          the format row: probe, load (decode, then build)
 *   torch_snapshot_entries.c  trace entries taken from the pickle as they
 *                             come, tracebacks interned by object
 *   torch_snapshot_segments.c segments, blocks, external annotations
 *   torch_snapshot_initial.c  per device: the state before the trace (what
 *                             each entry ends, the allocations and reserved
 *                             bytes live before the first entry)
 *   torch_snapshot_replay.c   per device: the timeline (allocated and
 *                             reserved, sites and contexts), the initial
 *                             allocations, the allocator
 *   torch_snapshot_spans.c    the annotations paired into named spans
 * Called by: those files only (and the tests, through the format row).
 * Must not: be included outside this folder. */
#ifndef MEMTOP_TORCH_SNAPSHOT_INTERNAL_H
#define MEMTOP_TORCH_SNAPSHOT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/decode/pickle.h"
#include "model/input_format.h"
#include "model/util/integer_map.h"

enum ts_action {
    TS_ALLOC,
    TS_FREE_REQUESTED,
    TS_FREE_COMPLETED,
    TS_SEGMENT_ALLOC,
    TS_SEGMENT_FREE,
    TS_SEGMENT_MAP,
    TS_SEGMENT_UNMAP,
    TS_SNAPSHOT,
    TS_OOM,
    TS_OTHER, /* an action this reader does not know: kept on the timeline, no effect */
};

/* One trace entry, as small as it reads. */
struct ts_entry {
    int64_t time_us;   /* 0 when the entry has none */
    uint64_t address;  /* addr; for oom, device_free */
    int64_t size;
    uint64_t stream;
    uint32_t traceback; /* index in ts_load.tracebacks; 0: no frames */
    uint32_t context;   /* string id: compile_context and user_metadata, when set */
    uint8_t action;     /* enum ts_action */
};

/* The entries of one list of device_traces, found by the list object. */
struct ts_trace {
    const struct pickle_object *list;
    struct ts_entry *entries;
    size_t count, capacity;
};

/* One distinct frames list, turned into text once. */
struct ts_traceback {
    uint32_t stack;         /* "file:line name" lines, innermost first, C++ runs folded */
    uint32_t location;      /* "file:line" of the innermost user frame */
    uint32_t location_file;
    int64_t location_line;
    uint32_t function;      /* that frame's function (the row's name) */
    uint32_t site;          /* the profile's site (struct frame_site) of the above */
};

enum ts_block_state { TS_BLOCK_INACTIVE, TS_BLOCK_ALLOCATED, TS_BLOCK_PENDING_FREE };

struct ts_block {
    uint64_t address;
    int64_t size;
    int64_t requested;
    uint8_t state; /* enum ts_block_state */
    uint32_t traceback;
};

struct ts_segment {
    int64_t device;
    uint64_t address;
    int64_t total_size;
    uint64_t stream;
    bool private_pool; /* segment_pool_id other than (0, 0) */
    bool expandable;
    size_t first_block, block_count; /* in ts_load.blocks */
};

struct ts_annotation {
    int64_t time_us;
    size_t order; /* in the file, for a stable sort by time */
    int64_t device;
    uint32_t name;
    bool start;
};

struct ts_load {
    const struct load_input *input;
    struct profile_builder *builder;
    struct string_table *strings;
    struct load_error *error;
    struct ts_trace *traces;
    size_t trace_count, trace_capacity;
    struct integer_map traceback_ids; /* frames list object -> index in tracebacks */
    struct ts_traceback *tracebacks;  /* [0]: no frames */
    size_t traceback_count, traceback_capacity;
    struct ts_segment *segments;
    size_t segment_count, segment_capacity;
    struct ts_block *blocks;
    size_t block_count, block_capacity;
    struct ts_annotation *annotations;
    size_t annotation_count, annotation_capacity;
    /* The last compile_context and user_metadata seen, and their id:
     * pybind writes each distinct string once, so the bytes repeat. */
    const uint8_t *context_compile, *context_metadata;
    uint32_t context_compile_length, context_metadata_length, context_id;
    char *scratch;
    size_t scratch_length, scratch_capacity;
    bool entries_without_time;
    size_t unknown_actions;
    int64_t earliest_time_us;
    bool any_time;
};

/* ---- torch_snapshot_entries.c ---- */

/* The pickle consumer that takes trace entries as their lists fill. */
int ts_take_items(void *context, struct pickle_object *list, const struct pickle_value *items,
                  size_t count, struct pickle_error *error);
/* The entries of a device_traces list (taken or not); NULL when memory
 * runs out or an entry is not one (the error set). */
const struct ts_trace *ts_trace_of(struct ts_load *load, const struct pickle_value *list);
/* Frees a trace's entries once its device is built (the trace stays,
 * empty); a trace that is not one of load->traces is left alone. */
void ts_trace_release(struct ts_load *load, const struct ts_trace *trace);
/* ---- torch_snapshot_segments.c ---- */

/* The segments list, read into load->segments and load->blocks. */
enum load_status ts_read_segments(struct ts_load *load, const struct pickle_value *segments);
enum load_status ts_read_annotations(struct ts_load *load, const struct pickle_value *list);

/* ---- torch_snapshot_spans.c ---- */

/* The annotations paired into the profile's spans, on their devices'
 * allocators (built before). */
enum load_status ts_add_spans(struct ts_load *load);

/* ---- torch_snapshot_entries.c ---- */

/* The index of a frames list's traceback (0 for none or an empty one);
 * UINT32_MAX when memory runs out. */
uint32_t ts_traceback_of(struct ts_load *load, const struct pickle_value *frames);
void ts_load_free(struct ts_load *load);
/* A formatted message as the load's error; returns LOAD_BAD_INPUT. */
enum load_status ts_bad(struct ts_load *load, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
enum load_status ts_no_memory(struct ts_load *load);

/* ---- one device's replay: torch_snapshot_initial.c fills it first,
 * torch_snapshot_replay.c then runs the trace over it ---- */

struct oom_event;

/* An allocation live before the first entry. */
struct initial {
    uint64_t address;
    int64_t size;
    uint32_t traceback;
    bool ghost; /* from the snapshot's blocks; otherwise an unmatched free */
};

/* Contexts a device's replay keeps made (a power of two). */
#define CONTEXTS_KEPT 64

struct device_replay {
    struct ts_load *load;
    int64_t device;
    const struct ts_entry *entries;
    size_t count;
    size_t allocator;
    struct initial *initial;
    size_t initial_count, initial_capacity;
    int64_t initial_bytes;
    int64_t reserved_end, reserved_start;
    size_t not_in_snapshot; /* live at the end per the trace, not active in the snapshot */
    /* Per entry: the allocation it ends (an entry index, or INITIAL_MARK |
     * k for initial allocation k), NO_END for none. A free_completed ends
     * its allocation; an alloc at an address still open ends the one
     * there (a free the trace lost). */
    uint32_t *ends;
    /* The annotations open at the time of the last entry (a sweep:
     * entries come in time order), a count of their changes, and the
     * contexts made lately, by their parts (entries alternate between a
     * few: a context is made again only when its parts are new). */
    size_t annotation_next;
    uint32_t open_annotations[16];
    size_t open_annotation_count;
    size_t annotation_changes;
    struct context_made {
        uint64_t stream;
        size_t changes; /* annotation_changes + 1 when made; 0: empty */
        uint32_t base, id;
    } contexts[CONTEXTS_KEPT];
    /* The oom entries, as the timeline replay finds them (their largest
     * free block is filled once the segments are handed over). */
    struct oom_event *ooms;
    size_t *oom_entries;
    size_t oom_count;
};

/* The value of initial allocation k in `ends`. */
#define INITIAL_MARK 0x80000000u
#define NO_END UINT32_MAX

/* ---- torch_snapshot_initial.c ---- */

/* Forward pass: what each entry ends, the unmatched frees; then the
 * snapshot's active blocks the trace leaves unopened (ghosts); and the
 * check that what the trace leaves live is in the snapshot. False when
 * memory runs out. */
bool ts_find_initial(struct device_replay *replay);
/* The reserved bytes before the first entry: the segments' total, back
 * over the trace's segment entries. */
void ts_find_reserved_start(struct device_replay *replay);

/* ---- torch_snapshot_replay.c ---- */

/* Builds allocator "cuda:<device>" from its entries and its segments. */
enum load_status ts_build_device(struct ts_load *load, int64_t device,
                                 const struct ts_trace *trace);

#endif
