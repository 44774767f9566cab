/* torch_snapshot_internal: what the files of the PyTorch memory snapshot
 * reader share (the format's facts and decisions: docs/formats/torch_snapshot.md).
 *
 * The folder, in the order the data flows:
 *   torch_snapshot.c          the format row: probe, load (decode, then build)
 *   torch_snapshot_entries.c  trace entries taken from the pickle as they
 *                             come
 *   torch_snapshot_frames.c   tracebacks kept as frames (their text made
 *                             only when drawn), interned by object
 *   torch_snapshot_trace.c    each entry replayed into its trace's timeline
 *                             columns at once (the entries are not kept):
 *                             allocated and reserved relative to the start
 *   torch_snapshot_segments.c segments, blocks, external annotations
 *   torch_snapshot_initial.c  per device: the state before the trace (the
 *                             allocations and reserved bytes live before
 *                             the first entry)
 *   torch_snapshot_replay.c   per device: the timeline finished (the start
 *                             added, the annotations in the contexts), the
 *                             initial allocations, the allocator
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
#include "model/profile.h"
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

/* A free_completed of an allocation the trace does not hold. */
struct ts_unmatched {
    uint64_t address;
    int64_t size;
    size_t entry;
};

/* An oom entry as the first replay meets it (its figures relative, as
 * the trace's columns are until the device is built). */
struct ts_oom {
    size_t entry;
    int64_t requested;
    uint64_t device_free;
    int64_t allocated, reserved;
};

/* An allocation made on a stream other than the default. */
struct ts_stream_use {
    uint32_t entry;
    uint64_t stream;
};

/* What is open at one address of the trace (its size at hand, where the
 * columns' are far behind). */
struct ts_open {
    uint32_t made; /* the entry that made it + 1; 0: nothing open there */
    int64_t size;
};

/* An allocation the trace ended after its running peak: at entry
 * `entry`, the one entry `opened` made. */
struct ts_end {
    uint32_t entry, opened;
};

/* One list of device_traces, found by the list object, replayed as its
 * entries come (torch_snapshot_trace.c): the entries themselves are not
 * kept. Until its device is built the columns hold time_us as the file
 * has it as their time (in 4 bytes, SNAPSHOT_NARROW_TIME), and allocated
 * (heap_bytes), reserved - allocated (free_bytes) and the running maximum
 * (peak_bytes_in_use) relative to the bytes live and reserved before the
 * first entry, which only the whole trace and the segments tell. */
struct ts_trace {
    const struct pickle_object *list;
    struct snapshot_columns columns; /* one snapshot per entry */
    uint8_t *actions;                /* per entry: enum segment_action */
    size_t count, capacity;
    /* The allocations open, by the key of their address among the
     * trace's addresses (snapshot_columns_address_key: the columns keep
     * the one map by address, and this is an array by its keys). */
    struct ts_open *open_by_key;
    size_t open_key_capacity, open_count;
    struct ts_unmatched *unmatched;
    size_t unmatched_count, unmatched_capacity;
    struct ts_oom *ooms;
    size_t oom_count;
    int64_t allocated, reserved, best;
    size_t peak; /* the first entry at the largest allocated */
    /* The last entry of the peak's time (entries after the peak at its
     * time: the live set at the peak's time takes them too). */
    size_t peak_last;
    int64_t peak_time_us;
    int64_t last_time_us;
    bool times_back; /* an entry's time_us is before the one before it */
    bool own_contexts; /* an entry's own context is not empty (else the column is untouched) */
    /* The allocations live at the running peak's time that ended after
     * it, emptied at each new peak: with those still open at the end,
     * what was live then (ts_trace_peak_live). Past a quarter of the
     * trace's room they are no longer kept (ends_lost) until the next
     * peak. */
    struct ts_end *ends;
    size_t end_count, end_capacity;
    bool ends_lost;
    /* The allocations made on a stream other than the default, in entry
     * order (few: most are on the default one), for their contexts when
     * the device is built: kept aside so that the context column stays
     * unwritten while the pickle is read. */
    struct ts_stream_use *streams;
    size_t stream_count, stream_capacity;
};

/* Entries read from the pickle, waiting for their replay: the trace's
 * list, and per entry what the replay needs. */
#define TS_BATCH 1024
struct ts_batch {
    const struct pickle_object *list;
    size_t count;
    size_t bytes_left; /* of the input after them (for a first guess of a trace's length) */
    struct ts_entry entries[TS_BATCH];
    uint32_t op_names[TS_BATCH]; /* the traceback's function */
    uint32_t sites[TS_BATCH];    /* the traceback's site */
};

struct ts_pipe;

/* The timeline columns a trace leaves out or narrows
 * (model/snapshot_columns.h): the times are whole microseconds. */
#define TS_OMITTED_COLUMNS                                                        \
    (SNAPSHOT_OMIT_STEP_ID | SNAPSHOT_OMIT_ALLOCATION_BYTES | SNAPSHOT_OMIT_FREE_BYTES | \
     SNAPSHOT_OMIT_PEAK_BYTES_IN_USE | SNAPSHOT_NARROW_REQUESTED_BYTES |                    \
     SNAPSHOT_KEY_OP_NAME_AND_SITE | SNAPSHOT_INDEX_ADDRESS | SNAPSHOT_NARROW_TIME |        \
     SNAPSHOT_OMIT_STACK_BYTES | SNAPSHOT_OMIT_TENSOR_FIELDS)


/* One distinct frames list, read once. */
struct ts_traceback {
    uint32_t stack;         /* its frames: a stack id (model/stack_text.h) */
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
    bool addressed; /* the file gave the address (PyTorch 2.0 did not) */
    uint32_t traceback;
};

/* A blocks list the reader handed over as it filled: its blocks kept
 * are load->blocks[first, first + count), of `items` in the list. */
struct ts_taken_blocks {
    const struct pickle_object *list;
    size_t first, count, items;
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

/* A string's meaning remembered by where its bytes are. */
struct ts_string_cache {
    const uint8_t *bytes;
    uint32_t length;
    uint8_t meaning;
};
#define TS_STRING_CACHE 16

/* The keys of the last entry claimed, place by place (torch_snapshot_claim.c):
 * each a memo get's bytes (opcode and index, little-endian, under
 * `mask`, `length` 2 or 5) and the key it named. pybind writes every
 * entry's keys in one order, each the same memo get, so the next entry
 * is read against them: its keys need no parsing and no lookup. */
#define TS_TEMPLATE_PLACES 16
struct ts_claim_template {
    struct {
        uint64_t bytes, mask;
        uint8_t length, key;
    } places[TS_TEMPLATE_PLACES];
    size_t count; /* 0: none */
};

struct ts_load {
    const struct load_input *input;
    struct profile_builder *builder;
    struct string_table *strings;
    struct load_error *error;
    struct ts_trace *traces;
    size_t trace_count, trace_capacity;
    struct integer_map traceback_ids; /* frames list object -> index in tracebacks */
    struct integer_map frame_ids;     /* frame dict object -> the profile's frame */
    /* By the profile's frame: its dict (NULL for the empty frame), and
     * whether a stack showed it (then its file and name are the
     * profile's; a frame only ever folded keeps none). */
    struct ts_frame_seen {
        const struct pickle_object *dict;
        bool named;
    } *frames_seen;
    size_t frames_seen_capacity;
    /* A traceback's frames and its lines (stack_text_fold) while it is
     * read: one block, capacity of each. */
    uint32_t *frame_scratch, *line_scratch;
    size_t frame_scratch_capacity;
    struct ts_traceback *tracebacks;  /* [0]: no frames */
    size_t traceback_count, traceback_capacity;
    size_t offset;                 /* the pickle reader is past this byte */
    struct ts_string_cache key_cache[TS_STRING_CACHE];    /* entry keys */
    struct ts_string_cache action_cache[TS_STRING_CACHE]; /* actions */
    const struct pickle_object *last_frames; /* the frames list last interned */
    uint32_t last_traceback;
    /* The decoded pickle while it is read (freed once the traces are
     * found, NULL after). */
    struct pickle_document *document;
    struct ts_batch *batch; /* replayed here when there is no pipe */
    struct ts_pipe *pipe;   /* NULL: no replay thread */
    struct ts_segment *segments;
    size_t segment_count, segment_capacity;
    struct ts_block *blocks;
    size_t block_count, block_capacity;
    struct ts_taken_blocks *taken_blocks;
    size_t taken_block_count, taken_block_capacity;
    size_t taken_block_next; /* where torch_snapshot_segments.c looks first */
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
    /* The list whose dicts are trace entries, as the last batch taken
     * showed (its next dicts may be claimed: torch_snapshot_claim.c), and
     * the entries claimed from it not yet taken with its items. */
    const struct pickle_object *entry_list, *claimed_list;
    struct ts_entry *claimed;
    size_t claimed_count, claimed_next, claimed_capacity;
    /* A list met an entry read from its bytes that was not its own: the
     * claims went wrong for this file (torch_snapshot.c reads it again
     * without them). */
    bool claims_misplaced;
    /* What the claims found at a memo index (valid while the memo's
     * generation is claim_generation): a key's meaning, an action's, a
     * frames list's traceback; and the context of the last pair of
     * compile_context and user_metadata indices (+1; 0: absent). */
    struct ts_memo_cache *memo_cache;
    struct ts_claim_template claim_template;
    uint64_t claim_generation;
    uint32_t claim_compile, claim_metadata, claim_context;
};

/* One slot of the claims' cache by memo index (torch_snapshot_claim.c). */
#define TS_MEMO_CACHE 4096
struct ts_memo_cache {
    uint32_t id_plus_one; /* 0: empty */
    uint8_t key;          /* enum ts_entry_key, as a key */
    uint8_t action;       /* enum ts_action, as an action value */
    uint32_t traceback;   /* as a frames value; UINT32_MAX: not yet */
};

/* An entry dict's pairs as they are read (torch_snapshot_entries.c), from
 * a dict the reader built or from the bytes of one claimed. */
struct ts_entry_reading {
    struct pickle_value compile, metadata; /* kind PICKLE_NONE until seen */
    bool has_time;
};

/* ---- torch_snapshot_entries.c ---- */

/* What a key of an entry dict names; KEY_NONE: not a key an entry's
 * reader looks at (not a string of 4 bytes or more). */
enum ts_entry_key {
    KEY_OTHER,
    KEY_ACTION,
    KEY_ADDRESS, /* addr, or device_free for an oom */
    KEY_SIZE,
    KEY_STREAM,
    KEY_TIME,
    KEY_COMPILE,
    KEY_METADATA,
    KEY_FRAMES,
    KEY_NONE,
};
/* A key's meaning, an action's (TS_OTHER for a value not a string). */
uint8_t ts_entry_key_meaning(struct ts_load *load, const struct pickle_value *key);
uint8_t ts_entry_action_meaning(struct ts_load *load, const struct pickle_value *value);
/* An entry's own context: compile_context and user_metadata as one
 * string (either may be absent, kind not PICKLE_STR); STRING_ID_NONE
 * when memory runs out. */
uint32_t ts_entry_context(struct ts_load *load, const struct pickle_value *compile,
                          const struct pickle_value *metadata);
/* Counts a finished entry: an unknown action, the earliest time. */
void ts_entry_count(struct ts_load *load, const struct ts_entry *entry, bool has_time);

/* An entry read pair by pair: begin, each pair in the file's order
 * (a later key wins), finish (the context, the counts; false when memory
 * runs out, with `error` set). The entry's traceback is UINT32_MAX after
 * a pair whose frames could not be interned. */
void ts_entry_begin(struct ts_entry *entry, struct ts_entry_reading *reading);
void ts_entry_pair(struct ts_load *load, struct ts_entry *entry, struct ts_entry_reading *reading,
                   const struct pickle_value *key, const struct pickle_value *value);
bool ts_entry_finish(struct ts_load *load, struct ts_entry *entry,
                     struct ts_entry_reading *reading, struct pickle_error *error);

/* ---- torch_snapshot_claim.c ---- */

/* The pickle consumer's claim_dict: a dict of load->entry_list read from
 * its bytes into load->claimed (see model/decode/pickle.h). */
size_t ts_claim_entry(void *context, const struct pickle_object *list, const uint8_t *bytes,
                      size_t available, struct pickle_memo *memo);

/* The pickle consumer that takes trace entries as their lists fill. */
int ts_take_items(void *context, struct pickle_object *list, const struct pickle_value *items,
                  size_t count, struct pickle_error *error);
/* The entries of a device_traces list (taken or not); NULL when memory
 * runs out or an entry is not one (the error set). */
struct ts_trace *ts_trace_of(struct ts_load *load, const struct pickle_value *list);
/* Frees a trace once its device is built (the trace stays, empty); a
 * trace that is not one of load->traces is left alone. */
void ts_trace_release(struct ts_load *load, const struct ts_trace *trace);
/* ---- torch_snapshot_trace.c ---- */

/* The trace of a list (made when `create`); NULL when there is none or
 * memory runs out. */
struct ts_trace *ts_trace_find(struct ts_load *load, const struct pickle_object *list,
                               bool create);
/* Replays a batch into its list's trace; false when memory runs out. */
bool ts_replay_batch(struct ts_load *load, const struct ts_batch *batch);
/* What the trace leaves open at `address`: NULL when nothing. */
const struct ts_open *ts_trace_open_at(const struct ts_trace *trace, uint64_t address);
/* The number of address keys the trace has (open_by_key's keys run
 * below it), and the address of one. */
size_t ts_trace_key_count(const struct ts_trace *trace);
uint64_t ts_trace_key_address(const struct ts_trace *trace, size_t key);
/* What the replay found live after the first *end entries, where *end
 * takes the peak's entry and those after it at the same time
 * (`times_are_indices`: none, each entry has a time of its own): the
 * entries that opened those allocations, in *live (malloc'd; any order),
 * for the builder's table at the peak (profile_builder_hint_peak_live).
 * false when the ends after the peak were not all kept, or memory runs
 * out. Before ts_trace_drop_open. */
bool ts_trace_peak_live(const struct ts_trace *trace, bool times_are_indices, size_t *end,
                        uint32_t **live, size_t *count);
/* Frees the trace's open allocations and unmatched frees, once its last
 * device has its initial allocations and blocks (they are what the
 * replay needed of them): the timeline is made after, the load's peak. */
void ts_trace_drop_open(struct ts_trace *trace);
/* Frees what a trace holds; it stays, empty, with its list. */
void ts_trace_free(struct ts_trace *trace);

/* ---- torch_snapshot_pipe.c ---- */

/* Starts the replay thread for a big input (load->pipe stays NULL for a
 * small one, or when no thread can be made: the replay is then inline). */
void ts_pipe_start(struct ts_load *load);
/* A batch to fill; NULL when the replay ran out of memory. */
struct ts_batch *ts_pipe_slot(struct ts_pipe *pipe);
/* Hands the batch ts_pipe_slot() gave to the replay. */
void ts_pipe_push(struct ts_pipe *pipe);
/* Waits until every batch pushed is replayed. */
void ts_pipe_drain(struct ts_pipe *pipe);
/* Replays what is left, stops the thread, frees the pipe (load->pipe is
 * NULL after); false when the replay ran out of memory. */
bool ts_pipe_finish(struct ts_load *load);

/* ---- torch_snapshot_segments.c ---- */

/* The pickle consumer's part for a segment's blocks: items that are
 * block dicts (a state, no action) are read into load->blocks as their
 * list fills, so that the dicts are recycled at once (1 when taken, 0
 * when they are not blocks, -1 with `error` set). */
int ts_take_blocks(struct ts_load *load, struct pickle_object *list,
                   const struct pickle_value *items, size_t count, struct pickle_error *error);
/* The segments list, read into load->segments and load->blocks. */
enum load_status ts_read_segments(struct ts_load *load, const struct pickle_value *segments);
enum load_status ts_read_annotations(struct ts_load *load, const struct pickle_value *list);

/* ---- torch_snapshot_spans.c ---- */

/* The annotations paired into the profile's spans, on their devices'
 * allocators (built before). */
enum load_status ts_add_spans(struct ts_load *load);

/* ---- torch_snapshot_frames.c ---- */

/* Appends to / interns the load's scratch text; false / STRING_ID_NONE
 * when memory runs out. */
bool ts_scratch_add(struct ts_load *load, const void *bytes, size_t length);
uint32_t ts_scratch_intern(struct ts_load *load);
/* The index of a frames list's traceback (0 for none or an empty one);
 * UINT32_MAX when memory runs out. */
uint32_t ts_traceback_of(struct ts_load *load, const struct pickle_value *frames);
/* The pickle is freed: the maps keyed by its objects (frames lists and
 * frame dicts) go too, before the devices are built (the load's peak);
 * ts_traceback_of is not called after. */
void ts_frames_forget(struct ts_load *load);
void ts_load_free(struct ts_load *load);
/* A formatted message as the load's error; returns LOAD_BAD_INPUT. */
enum load_status ts_bad(struct ts_load *load, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
enum load_status ts_no_memory(struct ts_load *load);

/* ---- one device's build: torch_snapshot_initial.c finds its state
 * before the trace, torch_snapshot_replay.c finishes its timeline ---- */

struct oom_event;

/* An allocation live before the first entry. */
struct initial {
    uint64_t address;
    int64_t size;
    uint32_t traceback;
    bool ghost; /* from the snapshot's blocks; otherwise an unmatched free */
};

/* Contexts a device's build keeps made (a power of two). */
#define CONTEXTS_KEPT 64

struct device_replay {
    struct ts_load *load;
    int64_t device;
    const struct ts_trace *trace; /* NULL for a device with segments only */
    size_t count;                 /* its entries */
    size_t allocator;
    struct initial *initial; /* the trace's unmatched frees in order, then the ghosts */
    size_t initial_count, initial_capacity;
    int64_t initial_bytes;
    int64_t reserved_end, reserved_start;
    size_t not_in_snapshot; /* live at the end per the trace, not active in the snapshot */
    /* The device's active blocks (allocated or pending free) by address:
     * their index in load->blocks (the segments know each block's
     * rounded size). */
    struct integer_map active;
    /* The blocks of the allocations the trace leaves open (by entry), where
     * the snapshot holds them. */
    struct allocation_block *held;
    size_t held_count;
    /* The annotations open at the time of the last entry (a sweep:
     * entries come in time order), a count of their changes, and the
     * contexts made lately by their parts (an entry's context is made
     * only when its parts are new). */
    size_t annotation_next;
    uint32_t open_annotations[16];
    size_t open_annotation_count;
    size_t annotation_changes;
    struct context_made {
        uint64_t stream;
        size_t changes; /* annotation_changes + 1 when made; 0: empty */
        uint32_t base, id;
    } contexts[CONTEXTS_KEPT];
};

/* ---- torch_snapshot_contexts.c ---- */

/* Each entry's context in `columns` (the device's trace's, being built)
 * made from its own part, the annotations open then and its stream, and
 * the column put in runs where they pay; false when memory runs out. */
bool ts_finish_contexts(struct device_replay *replay, struct snapshot_columns *columns);

/* The most entries a trace holds (entry indices are 32 bits, with room). */
#define TS_MAX_ENTRIES 0x80000000u

/* ---- torch_snapshot_initial.c ---- */

/* The allocations live before the first entry: the trace's unmatched
 * frees, then the snapshot's active blocks the trace leaves unopened
 * (ghosts); the check that what the trace leaves live is in the
 * snapshot; the reserved bytes at the end (the segments') and at the
 * start (back over the trace's segment entries). False when memory runs
 * out. */
bool ts_find_initial(struct device_replay *replay);

/* ---- torch_snapshot_replay.c ---- */

/* Builds allocator "cuda:<device>" from its trace (NULL for none) and its
 * segments; the trace's columns and actions go to the profile when
 * `last_use` (no other device has this trace), copies otherwise. */
enum load_status ts_build_device(struct ts_load *load, int64_t device, struct ts_trace *trace,
                                 bool last_use);

#endif
