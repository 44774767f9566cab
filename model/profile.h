/* profile: the finished, immutable profile that every view and exporter
 * reads, whatever format it came from.
 *
 * Owns: the in-memory form (allocators in display order, each with a
 * time-sorted columnar timeline, the kind of that timeline, its summary
 * and its resolved allocation rows; HLO modules; named spans of time;
 * the strings; the frames of the stacks kept as frames; the load's
 * warnings). The snapshot columns it is made of are
 * model/snapshot_columns.h's; a stack's text, model/stack_text.h's.
 * Called by: every view, report and exporter; loaders build one through
 * model/profile_builder.h, never by writing these structs.
 * Must not: change after the builder hands it over; views never write it. */
#ifndef MEMTOP_PROFILE_H
#define MEMTOP_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/snapshot_columns.h"
#include "model/string_table.h"

/* enum memory_activity (model/snapshot_columns.h): "ALLOCATION", ... as
 * proto3 JSON spells them; "UNKNOWN_ACTIVITY" for
 * values outside the enum. */
const char *memory_activity_name(int activity);
/* Lower-case words for people: "allocation", "deallocation", ... */
const char *memory_activity_label(int activity);

/* MemoryAggregationStats */
struct memory_stats {
    int64_t stack_bytes;
    int64_t heap_bytes;
    int64_t free_bytes;
    double fragmentation;
    int64_t peak_bytes_in_use;
};

/* A snapshot's stats, from stack_bytes on, lie as struct memory_stats
 * does: a reader decodes MemoryAggregationStats by one table onto a
 * snapshot (at this offset) or a summary's peak alike. */
#define SNAPSHOT_STATS_OFFSET \
    (offsetof(struct snapshot, stack_bytes) - offsetof(struct memory_stats, stack_bytes))
#define SNAPSHOT_STATS_LIKE(member)                                                         \
    _Static_assert(offsetof(struct snapshot, member) - SNAPSHOT_STATS_OFFSET ==              \
                       offsetof(struct memory_stats, member),                                \
                   "struct snapshot keeps " #member " where struct memory_stats has it")
SNAPSHOT_STATS_LIKE(heap_bytes);
SNAPSHOT_STATS_LIKE(free_bytes);
SNAPSHOT_STATS_LIKE(fragmentation);
SNAPSHOT_STATS_LIKE(peak_bytes_in_use);
#undef SNAPSHOT_STATS_LIKE

/* What the reference viewer's summary card shows for one allocator. */
struct allocator_summary {
    int64_t capacity_bytes;      /* memory_capacity */
    int64_t lifetime_peak_bytes; /* peak_bytes_usage_lifetime */
    struct memory_stats peak;    /* peak_stats: at the window peak */
    int64_t peak_time_ps;        /* peak_stats_time_ps */
    int64_t peak_bytes;          /* stack + heap at the window peak */
    size_t allocations;          /* ALLOCATION snapshots on the timeline */
    size_t deallocations;        /* DEALLOCATION snapshots on the timeline */
    /* True when the file had no summary and it was computed from the
     * timeline the way XProf computes it. */
    bool derived;
    /* What the memory at the peak was for, when the format says (Skyline;
     * `known` false for the others, whose reports then leave it out). */
    struct tracked_memory {
        bool known;
        /* The report's entries: its weights and activations. A weight's
         * gradient is part of its entry, though the table shows it as a
         * row of its own (so entries <= rows). */
        size_t entries;
        /* Summed over the rows of size > 0 only, as Skyline's own
         * queries sum them (a size <= 0 is a view or an in-place op's,
         * which holds no memory of its own: see struct allocation_row). */
        int64_t weights_bytes;
        int64_t gradients_bytes;
        int64_t activations_bytes;
        /* The peak minus the three, or 0 when that is negative: memory
         * the format could not attribute (allocator caches, workspaces). */
        int64_t untracked_bytes;
    } tracked;
    /* For formats whose rows at the peak are one step's allocations, by
     * XProf's rule (XSpace): that step (the step of the latest snapshot
     * reaching the peak) and the step of the snapshot at peak_time_ps.
     * When several steps reach the same peak the two differ, and the
     * rows may be only the special ones. `one_step_rows` false: the rows
     * are what was live at the peak, whatever its step. */
    bool one_step_rows;
    int64_t rows_step;
    int64_t peak_time_step;
    /* Where the trace begins, for formats whose trace may begin after the
     * job did (a PyTorch memory snapshot: recording started late, or its
     * ring buffer dropped the oldest entries); `known` false for the
     * others, whose reports leave it out. */
    struct trace_start {
        bool known;
        size_t entries;         /* the allocator's trace entries */
        int64_t covered_ps;     /* from its first entry to its last */
        bool times_are_entries; /* the file has no times: the axis counts entries */
        int64_t live_bytes;     /* live before the first entry */
        size_t live_count;
    } trace_start;
};

enum row_origin {
    ROW_FROM_SNAPSHOT,  /* snapshot_index points into memory_profile_snapshots */
    ROW_FROM_SPECIAL,   /* special_index points into special_allocations */
    ROW_UNRESOLVED,     /* neither index points anywhere: shown, flagged */
    /* An entry of a report with no timeline (Skyline's weights,
     * gradients and activations): no snapshot, time, address, step,
     * requested size, activity or occurrences (their columns are empty;
     * occurrences is 1 for the sums), both indices -1. */
    ROW_FROM_ENTRY,
};

/* One row of the "active allocations at peak" table, resolved at load time
 * so views and exporters never chase indices. */
struct allocation_row {
    enum row_origin origin;
    int64_t snapshot_index; /* as the file had them */
    int64_t special_index;
    int64_t occurrences;
    int64_t allocation_bytes;
    int64_t requested_bytes;
    uint32_t op_name;
    uint32_t region_type;
    uint32_t data_type;
    uint32_t tensor_shape;
    int64_t step_id;
    uint64_t address;
    int activity;
    bool has_time;   /* false for special and unresolved rows */
    int64_t time_ps; /* time of the snapshot the row came from */
    /* Where in the user's code the memory was made, for formats that
     * say (Skyline); 0 (the empty string) and 0 for the others. String
     * ids, so that grouping rows by kind, by location or by file is
     * grouping by one integer key. */
    uint32_t kind;          /* what it is for: "weight", "gradient", "activation" */
    uint32_t location;      /* "file:line" of the innermost frame: the key by location */
    uint32_t location_file; /* that frame's file alone: the key by file */
    int64_t location_line;  /* that frame's line (1-based); 0 without a frame */
    /* Every frame, innermost first, "file:line" each, one per line (a
     * path that holds a newline reads as two frames: the bytes stay
     * as the file had them). A stack id (model/stack_text.h): a string
     * id, or a stack kept as frames and drawn when asked (a PyTorch
     * memory snapshot's); equal ids are equal texts, as for strings. */
    uint32_t stack;
    uint32_t context; /* the snapshot's context (see struct snapshot) */
    /* The innermost module that made it (a PyTorch trace's innermost
     * `nn.Module: Linear_1`, as "Linear_1"), a string id; 0 for none. */
    uint32_t module;
    /* The block the allocator gave it, where the file says (a PyTorch
     * snapshot's rounded block size, for an allocation still active in
     * its segments); 0 when unknown. Sizes and totals stay the requested
     * bytes: this is shown, never summed. */
    int64_t block_bytes;
};

/* The block an allocation of the timeline (snapshot_index) was given:
 * struct allocation_row's block_bytes for its rows. */
struct allocation_block {
    size_t snapshot_index;
    int64_t block_bytes;
};

/* Where in the code a snapshot was made (issue 22), held once per
 * distinct place and named by index from the snapshots (struct
 * snapshot's site): the row fields of the same names (struct
 * allocation_row). Site 0 is no place. */
struct frame_site {
    uint32_t location;      /* "file:line function" of the user's innermost frame */
    uint32_t location_file; /* its file */
    int64_t location_line;  /* its line; 0 without one */
    uint32_t stack;         /* every frame, innermost first, one per line: a stack id */
    uint32_t module;        /* the innermost module, or 0 */
};

/* One frame of the stacks a profile keeps as frames (issue 23: a PyTorch
 * memory snapshot's tracebacks, one entry per distinct frame of the
 * file), drawn as text only when a view or a report asks
 * (model/stack_text.h says how). */
enum stack_frame_kind {
    STACK_FRAME_PYTHON = 1 << 0,    /* Python's (shown; the others fold into a count) */
    STACK_FRAME_MACHINERY = 1 << 1, /* recording's or the interpreter's: folded even
                                       where no Python frame is */
};
struct stack_frame {
    int64_t line;
    /* String ids; empty for a frame no stack shows (only ever folded
     * into a count, never drawn: a loader need not keep its strings). */
    uint32_t file;
    uint32_t name; /* the function */
    uint8_t kind;  /* enum stack_frame_kind bits */
};
/* A stack kept as frames: its lines, stack_frame_refs[first, first +
 * count), innermost first, each a frame's index in stack_frames or a run
 * of frames folded into a count (model/stack_text.h's STACK_REF_FOLDED). */
struct frame_stack {
    uint32_t first;
    uint32_t count;
};

/* The memory of a row of kind-tracking formats (Skyline) whose size is
 * 0 or negative: kept and shown, marked, but not counted in the totals
 * of struct tracked_memory. Such a size is the drop in allocated memory
 * when an activation is released: 0 for a view (it shares its input's
 * storage), negative when allocated memory grew while it was released
 * (in-place ops). False for formats without kinds. */
bool allocation_row_is_uncounted(const struct allocation_row *row);

/* A named span of time the file records (issue 23: a PyTorch memory
 * snapshot's external_annotations, the START/END pairs of
 * record_function ranges such as ProfilerStep#4 or
 * Optimizer.step#Adam.step), on the timeline of the allocator(s) it
 * belongs to. Spans may nest and overlap. model/query/spans.h tells
 * each span's memory. */
struct time_span {
    uint32_t name;      /* string id */
    uint32_t allocator; /* the allocator's id (its memory id, a string id);
                           STRING_ID_NONE: every allocator of the profile */
    int64_t start_ps;   /* on the allocator's timeline */
    int64_t end_ps;     /* >= start_ps */
    /* The file has the START but not the END (the snapshot was taken
     * inside it: end_ps is the trace's last time), or the END but not
     * the START (it began before the trace: start_ps is the first). */
    bool open_end;
    bool open_start;
};

struct hlo_module {
    int64_t id;
    uint32_t name;
    uint32_t plane_name;
    int64_t start_time_ps;
    int64_t end_time_ps;
};

/* How much of an allocator's life its timeline holds, so that a view can
 * refuse honestly ("this report has no timeline") instead of guessing. */
enum timeline_kind {
    TIMELINE_COMPLETE, /* every event the job recorded */
    TIMELINE_SAMPLED,  /* a sample of them (XProf's at most 1000, version 1) */
    TIMELINE_NONE,     /* the format records no timeline (Skyline) */
};

/* Quantities a format does not record for an allocator (bits of
 * allocator->unknown_fields): they read 0 in the profile; reports write
 * them as null (JSON) or an empty field (CSV), and the viewer leaves them
 * out rather than show a 0 that was never measured. */
enum allocator_field {
    ALLOCATOR_FIELD_STACK = 1 << 0,         /* stack bytes */
    ALLOCATOR_FIELD_FREE = 1 << 1,          /* free bytes */
    ALLOCATOR_FIELD_FRAGMENTATION = 1 << 2, /* fragmentation */
    ALLOCATOR_FIELD_CAPACITY = 1 << 3,      /* the memory's capacity */
    /* What its rows say of each allocation (a PyTorch trace names an op
     * and a size, never a region, data type or shape): a row may still
     * carry XProf's words for its special rows ("persist/dynamic",
     * "INVALID", "unknown"), which the reports keep as they are. */
    ALLOCATOR_FIELD_REGION = 1 << 4,        /* region_type */
    ALLOCATOR_FIELD_DATA_TYPE = 1 << 5,     /* data_type */
    ALLOCATOR_FIELD_TENSOR_SHAPE = 1 << 6,  /* tensor_shape */
};
/* One past the largest bit of enum allocator_field. */
#define ALLOCATOR_FIELD_END (1u << 7)

/* One out-of-memory error the file records: a request the allocator
 * refused, and what the allocator said of itself then. A byte field is
 * -1 where the file does not say. */
struct oom_event {
    int64_t time_ps;            /* on the allocator's timeline (0 without one) */
    int64_t requested_bytes;    /* the request that failed */
    int64_t allocated_bytes;    /* allocated then (in use by the program) */
    int64_t reserved_bytes;     /* held by the allocator then (allocated + cached) */
    int64_t device_free_bytes;  /* free on the device, outside the allocator */
    int64_t largest_free_bytes; /* the largest free block the allocator had */
    uint32_t op_name;           /* string id of the op that asked, 0 when none */
};

/* A line of a format's own summary that memtop keeps as the file wrote
 * it (an OOM log's "temp allocation: 8.41GiB", "MaxAllocSize: 13200000000"):
 * a label and a value, string ids. */
struct allocator_note {
    uint32_t label;
    uint32_t value;
};

/* One block of an allocator's memory, in address order, for formats
 * that walk it (a BFC allocator's dump): where the free memory lies. */
struct memory_block {
    int64_t bytes;
    bool in_use;
};

/* Which table an allocator's `rows` are (issue 22). */
enum allocator_rows {
    /* The format's own table: Skyline's entries, a table memtop wrote. */
    ALLOCATOR_ROWS_RECORDED = 0,
    /* What was live at the peak instant, exactly the rows the live-set
     * query (model/query/live_set.h) gives at summary.peak_time_ps: every
     * format whose timeline is complete. */
    ALLOCATOR_ROWS_LIVE,
    /* XProf's table at the peak: the peak step's allocations, all older
     * memory in one special row. What a sampled (version 1) file has;
     * loaders of complete timelines mark their XProf table so, and the
     * builder's finish moves it to xprof_rows and makes `rows` live. */
    ALLOCATOR_ROWS_XPROF,
};

struct allocator {
    uint32_t id; /* the memory id ("GPU_0_bfc"), a string id */
    unsigned unknown_fields; /* enum allocator_field bits; 0: all known */
    struct snapshot_columns timeline; /* time-sorted; what the chart plots */
    enum timeline_kind timeline_kind;
    /* timeline_kind == TIMELINE_SAMPLED, kept as the field the reports and
     * views read: counts over a sampled timeline are counts of the
     * sample, not of every event. */
    bool timeline_sampled;
    struct allocator_summary summary;
    struct allocation_row *rows; /* in the file's order (XProf's order) */
    size_t row_count;
    /* The allocator's segments over time (model/segments.h), for formats
     * that record them (a PyTorch memory snapshot); NULL for the others. */
    struct segment_history *segments;
    /* Its out-of-memory errors, sorted by time (stably) by the builder's
     * finish; model/query/oom.h asks them questions. */
    struct oom_event *ooms;
    size_t oom_count;
    /* What the format's own summary said (none for most formats). */
    struct allocator_note *notes;
    size_t note_count;
    /* Its memory block by block, where the format walks it; else none. */
    struct memory_block *memory_map;
    size_t memory_map_count;
    enum allocator_rows rows_kind;
    /* Where rows_kind is ALLOCATOR_ROWS_LIVE and the file also had
     * XProf's peak-step table (MemoryProfile version 0, XSpace): that
     * table, for `--export xprof-table` and the viewer's X, and
     * xprof_kept true; NULL, 0 and false otherwise (allocator_xprof_rows
     * then answers with `rows`). */
    struct allocation_row *xprof_rows;
    size_t xprof_row_count;
    bool xprof_kept;
    /* Allocations live at the peak behind the live rows (before equal
     * rows merge; special rows not counted); 0 unless rows are live. */
    size_t live_allocations;
    /* The allocations already live when the timeline begins, where the
     * format knows them one by one (a PyTorch memory snapshot: the
     * allocations its trace frees but never made, and the blocks it
     * holds that the trace never made): each a row of origin
     * ROW_FROM_SPECIAL with its address and sizes, no time,
     * snapshot_index -1 and special_index its position here, its op
     * name, location, stack, module and context as the loader gave them.
     * The live set at any time starts from them (model/query/live_set.h):
     * a deallocation at one's address ends it. NULL and 0 for formats
     * that know none (their memory from before is the live set's one
     * "allocated before the profile" row). */
    struct allocation_row *initial;
    size_t initial_count;
    /* The blocks the allocator gave allocations of the timeline, where
     * the file says (a PyTorch snapshot's segments, for the allocations
     * it still holds), by snapshot index ascending: a row of one of them,
     * at any moment, shows its block_bytes. NULL and 0 for the others. */
    struct allocation_block *allocation_blocks;
    size_t allocation_block_count;
    /* PyTorch's caching allocator (a PyTorch trace or memory snapshot),
     * set by its loader: its users say allocated and reserved, not heap
     * and free (allocator_word). */
    bool caching;
};

/* XProf's table at the peak: xprof_rows where kept, else `rows`. */
const struct allocation_row *allocator_xprof_rows(const struct allocator *allocator,
                                                  size_t *count);

/* Whether allocator's format records `field` (one enum allocator_field
 * bit): not when the loader said so, nor free memory and fragmentation
 * for an allocator without a timeline (a Skyline report). */
bool allocator_records(const struct allocator *allocator, unsigned field);

/* The words for an allocator's memory, in its users' terms: XProf's
 * heap/free, or PyTorch's allocated/"reserved but free" for a caching
 * allocator. Labels only: JSON and CSV field names stay XProf's. */
enum allocator_word {
    ALLOCATOR_WORD_HEAP,          /* "heap" / "allocated" */
    ALLOCATOR_WORD_FREE,          /* "free" / "reserved but free" */
    ALLOCATOR_WORD_PEAK,          /* card: "Peak (heap)" / "Peak (allocated)" */
    ALLOCATOR_WORD_LIFETIME_PEAK, /* card: "Lifetime peak heap" / "...allocated" */
    ALLOCATOR_WORD_HEAP_LINE,     /* --summary: "Heap allocation" / "Allocated" */
    ALLOCATOR_WORD_FREE_LINE,     /* --summary: "Free memory" / "Reserved but free" */
    ALLOCATOR_WORD_LIFETIME_LINE, /* --summary: "Lifetime peak heap usage" / ... */
    ALLOCATOR_WORD_COUNT
};
const char *allocator_word(const struct allocator *allocator, enum allocator_word word);

/* Whether the allocator's timeline knows the memory it reserves: a
 * caching allocator (the words above say allocated and reserved) whose
 * free bytes are recorded, reserved = in use + reserved but free
 * (PyTorch memory snapshots, PyTorch traces with Total Reserved). */
bool allocator_records_reserved(const struct allocator *allocator);
/* The reserved bytes at snapshot `index` of its timeline (in use plus
 * free, a negative free read as 0); meaningful only where
 * allocator_records_reserved() says so. */
int64_t allocator_reserved_at(const struct allocator *allocator, size_t index);

/* Whether the rows at the peak are another step's than the peak's own
 * (see one_step_rows), and the two steps. */
bool allocator_rows_step_differs(const struct allocator *allocator, int64_t *rows_step,
                                 int64_t *peak_time_step);

struct input_format; /* model/input_format.h: the row of the format table */

struct profile {
    char *path;
    const struct input_format *format; /* which format read it */
    bool gzipped;
    uint64_t file_bytes; /* size of the file as read (compressed if gzipped) */
    int32_t version;
    /* Whether the file records a version worth showing (MemoryProfile,
     * Skyline); a trace has none, and its 0 means nothing; XSpace keeps
     * XProf's 1 for JSON but shows none (its timeline is complete). */
    bool version_known;
    int32_t num_hosts;
    struct string_table *strings;
    struct allocator *allocators;
    size_t allocator_count;
    struct hlo_module *hlo_modules;
    size_t hlo_module_count;
    /* What the loader found odd but could read (a repeated map key, say):
     * one line each, as string ids (read them with profile_string), raw:
     * the file's text in them unescaped, NUL bytes and all. main prints
     * them on stderr in batch mode and the viewer on its status line,
     * each escaping them once. */
    uint32_t *warnings;
    size_t warning_count;
    /* The sites snapshots name (struct frame_site): sites[0] is no place;
     * NULL and 0 for formats that record none. */
    struct frame_site *sites;
    size_t site_count;
    /* The stacks kept as frames (a stack id says which: model/stack_text.h),
     * their lines (frames' indexes, folded runs) and the frames; NULL and
     * 0 for formats whose stacks are strings. */
    struct frame_stack *frame_stacks;
    size_t frame_stack_count;
    uint32_t *stack_frame_refs;
    size_t stack_frame_ref_count;
    struct stack_frame *stack_frames;
    size_t stack_frame_count;
    /* The named spans the file records (struct time_span), in the order
     * the loader added them; NULL and 0 for formats that record none. */
    struct time_span *spans;
    size_t span_count;
};

/* Site `index` of the profile (an all-zero one for 0 or past the end). */
struct frame_site profile_site(const struct profile *profile, uint32_t index);

/* The formats the report code names; a new format needs no constant here:
 * its row is profile->format. */
extern const struct input_format memory_profile_protobuf_format;
extern const struct input_format memory_profile_json_format;
#define PROFILE_FORMAT_PROTOBUF (&memory_profile_protobuf_format)
#define PROFILE_FORMAT_JSON (&memory_profile_json_format)

/* The bytes of a string id, with their length: how views, reports and
 * messages take a profile's text (model/util/text.h). */
struct text profile_string(const struct profile *profile, uint32_t string_id);
/* The same, NUL-terminated, for the tests and for code that must have a
 * C string: it stops short at a NUL inside the string. Views, reports
 * and messages use profile_string (tests/test_layering.sh checks). */
const char *profile_text(const struct profile *profile, uint32_t string_id);
/* The format's short name: "pb", "json", ... (what --summary --json prints). */
const char *profile_format_name(const struct input_format *format);
/* Index of the allocator whose memory id is the bytes of `id`, or -1. */
long profile_find_allocator(const struct profile *profile, struct text id);
/* Index of the allocator a user names (--allocator): by its id as memtop
 * shows it (escaped as model/format.h's format_safe_bytes escapes: the
 * six characters A\x00x name the id of the three bytes 'A', NUL, 'x'),
 * else by the bytes typed; -1 when neither names one. */
long profile_find_allocator_named(const struct profile *profile, const char *name);

void profile_free(struct profile *profile);

#endif
