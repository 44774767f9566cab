/* xspace_internal: what the files of the XSpace (.xplane.pb) loader
 * share, and no one else sees (but its tests, tests/formats/xspace/).
 *
 * Owns: the loader's state and the interfaces between its parts:
 * - load_xspace.c: the format rows (XSpace, and Riegeli XSpace refused),
 *   the probe, the walk over the XSpace's planes, the errors a user sees;
 * - load_xspace_plane.c: one plane's first pass (its name, where its lines
 *   are, its metadata maps by map key), names sorted into the kinds XProf
 *   knows, the HLO modules of XLA Modules lines;
 * - load_xspace_events.c: the walk over a plane's lines and events: memory
 *   events into snapshots, and the events step grouping needs into the
 *   forest;
 * - load_xspace_read.c: one XEvent and its XStats read from the input (the
 *   loader's inner loop, with a fast path for the usual layout);
 * - load_xspace_memory.c: a memory event as a snapshot (XProf's reading
 *   rules);
 * - load_xspace_pipeline.c: the host plane's walk on two threads (a
 *   reader thread reads the events, the loader's thread applies them);
 * - load_xspace_forest.c: XProf's step grouping over those events;
 * - load_xspace_profile.c: XProf's memory profile made of the snapshots
 *   (time sort, step ids, the peak step, the table at the peak).
 * Called by: those files, and the tests (through the format row and
 * load.h, never this header).
 * Must not: materialise the XSpace: everything points into the input by
 * offset, and only the first /host:CPU plane's events (plus what step
 * grouping needs) are decoded; every other line is skipped by length. */
#ifndef MEMTOP_XSPACE_INTERNAL_H
#define MEMTOP_XSPACE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/input_format.h"
#include "model/profile_builder.h"
#include "model/decode/protobuf_wire.h"
#include "model/util/integer_map.h"

/* Bytes [start, end) of the input. */
struct xspace_span {
    size_t start, end;
};

/* Event metadata names XProf treats specially (xplane_schema.cc). */
enum xspace_event_kind {
    XSPACE_EVENT_OTHER = 0,
    XSPACE_EVENT_MEMORY_ALLOCATION,
    XSPACE_EVENT_MEMORY_DEALLOCATION,
    XSPACE_EVENT_EXECUTOR_PROCESS,  /* ExecutorState::Process */
    XSPACE_EVENT_ITERATOR_GET_NEXT, /* IteratorGetNext(AsOptional)Op::DoCompute */
    XSPACE_EVENT_TRACE_CONTEXT,     /* a legacy step marker: root level 1 */
    XSPACE_EVENT_TF_DATA_FUNCTION,  /* InstantiatedCapturedFunction::Run... */
    XSPACE_EVENT_LOOP_OP,           /* WhileOp-EvalCond & co.: no grouping at all */
    XSPACE_EVENT_ROOT_LEVEL_1,      /* BatchingSessionRun: preprocessing sets _r = 1 */
    XSPACE_EVENT_ROOT_LEVEL_2,      /* (OrbaxServing::)ProcessBatch: _r = 2 */
};

/* Stat metadata names the loader reads. */
enum xspace_stat_kind {
    XSPACE_STAT_OTHER = 0,
    XSPACE_STAT_ALLOCATOR_NAME,
    XSPACE_STAT_INDEX_ON_HOST,
    XSPACE_STAT_DEVICE_ORDINAL,
    XSPACE_STAT_BYTES_RESERVED,
    XSPACE_STAT_BYTES_ALLOCATED,
    XSPACE_STAT_BYTES_AVAILABLE,
    XSPACE_STAT_FRAGMENTATION,
    XSPACE_STAT_PEAK_BYTES_IN_USE,
    XSPACE_STAT_REQUESTED_BYTES,
    XSPACE_STAT_ALLOCATION_BYTES,
    XSPACE_STAT_ADDRESS,
    XSPACE_STAT_TF_OP,
    XSPACE_STAT_REGION_TYPE,
    XSPACE_STAT_DATA_TYPE,
    XSPACE_STAT_SHAPE,
    XSPACE_STAT_GROUP_ID,
    XSPACE_STAT_PRODUCER_TYPE, /* _pt */
    XSPACE_STAT_PRODUCER_ID,   /* _p */
    XSPACE_STAT_CONSUMER_TYPE, /* _ct */
    XSPACE_STAT_CONSUMER_ID,   /* _c */
    XSPACE_STAT_IS_ROOT,       /* _r */
    XSPACE_STAT_IS_ASYNC,      /* _a */
    XSPACE_STAT_STEP_ID,       /* id */
    XSPACE_STAT_ITER_NUM,
    XSPACE_STAT_KINDS
};

/* One entry of a plane's event_metadata or stat_metadata map, by its map
 * key (XProf looks metadata up by the key, never by the inner id). */
struct xspace_metadata {
    uint64_t key;
    struct xspace_span name;
    uint32_t string_id; /* the name interned, STRING_ID_NONE until asked */
    uint32_t allocator; /* allocator index + 1 of the name as a memory id; 0: not yet */
    uint8_t kind;       /* enum xspace_event_kind or xspace_stat_kind */
    bool used;
};

/* Open addressing; ids may be anything (2^48 in real files): hashed. The
 * event walk looks up one key per stat, so two shortcuts stand in front:
 * when the keys are small and dense (writers count them from 1), an array
 * indexed by key, no longer than a few times the number of entries; else
 * a small direct-mapped cache of the last entries found. */
#define XSPACE_METADATA_CACHE 256
struct xspace_metadata_table {
    struct xspace_metadata *slots;
    size_t capacity; /* a power of two, or 0 */
    size_t count;
    uint64_t largest_key;
    uint32_t *dense;   /* slot + 1 by key, keys <= dense_last; NULL: none */
    uint32_t *dense_strings; /* with dense: the name's string id + 1 by key, 0 until asked */
    uint8_t *dense_kinds;    /* with dense: the entry's kind + 1 by key, 0: no entry */
    uint64_t dense_last;
    struct xspace_metadata *cache[XSPACE_METADATA_CACHE]; /* by key % 256 */
};

struct xspace_metadata *xspace_metadata_find(const struct xspace_metadata_table *table,
                                             uint64_t key);

/* xspace_metadata_find() through the shortcuts (built by the plane scan:
 * the table does not change after it). */
static inline struct xspace_metadata *xspace_metadata_lookup(struct xspace_metadata_table *table,
                                                             uint64_t key)
{
    if (table->dense) {
        if (key > table->dense_last || table->dense[key] == 0)
            return NULL;
        return &table->slots[table->dense[key] - 1];
    }
    struct xspace_metadata **cached = &table->cache[key % XSPACE_METADATA_CACHE];
    if (*cached && (*cached)->key == key)
        return *cached;
    struct xspace_metadata *found = xspace_metadata_find(table, key);
    if (found)
        *cached = found;
    return found;
}

/* The kind of the entry for `key` (what the walk asks of most keys), or -1
 * when the map has none. */
static inline int xspace_metadata_kind(struct xspace_metadata_table *table, uint64_t key)
{
    if (table->dense)
        return key <= table->dense_last ? (int)table->dense_kinds[key] - 1 : -1;
    const struct xspace_metadata *found = xspace_metadata_lookup(table, key);
    return found ? found->kind : -1;
}

/* ---- load_xspace_plane.c ---- */

enum xspace_plane_role {
    XSPACE_PLANE_OTHER,  /* walked for step grouping when it can matter */
    XSPACE_PLANE_HOST,   /* the first /host:CPU: memory events */
    XSPACE_PLANE_TPU,    /* /device:TPU:*: XLA Modules (XProf's HLO modules) */
    XSPACE_PLANE_GPU,    /* /device:GPU:*: XLA Modules (memtop's addition) */
    XSPACE_PLANE_DEVICE, /* any other /device:*: skipped */
};

struct xspace_plane {
    size_t offset; /* of the plane's tag in the XSpace */
    struct xspace_span name;
    struct xspace_span *lines;
    size_t line_count, line_capacity;
    struct xspace_metadata_table events, stats;
    bool has_loop_op;   /* an event metadata name that stops grouping */
    bool has_group_id;  /* a stat metadata named group_id: already grouped */
    bool has_grouping;  /* names that can make a step (roots, contexts, ...) */
};

/* The plane [start, end) (the payload of XSpace field 1 whose tag is at
 * `offset`): its name, its lines' places and both maps, repeated map keys
 * keeping their last entry as protobuf does. */
enum load_status xspace_plane_scan(const struct wire *wire, size_t offset, size_t start,
                                   size_t end, struct xspace_plane *plane);
void xspace_plane_free(struct xspace_plane *plane);
enum xspace_plane_role xspace_plane_role(const struct wire *wire, const struct xspace_plane *plane,
                                         bool host_found);
bool xspace_span_is(const struct wire *wire, struct xspace_span span, const char *text);

/* A line's name and timestamp_ns as its fields before the first event
 * give them (the order every writer uses; the event walk checks the rest). */
struct xspace_line_head {
    struct xspace_span name;
    int64_t timestamp_ns;
};
enum load_status xspace_line_head(const struct wire *wire, struct xspace_span line,
                                  struct xspace_line_head *head);
/* The next field of a line, its wire type checked when it is one of
 * XLine's id, name, timestamp_ns or events. */
enum load_status xspace_line_field(const struct wire *wire, size_t *position, size_t end,
                                   struct wire_field *field);

/* The events of a device plane's XLA Modules lines, as HLO modules. */
enum load_status xspace_plane_modules(const struct wire *wire, const struct xspace_plane *plane,
                                      struct profile_builder *builder, uint32_t plane_name,
                                      struct hlo_module **modules, size_t *count,
                                      size_t *capacity);

/* ---- load_xspace_read.c: one event ---- */

/* A stat's value: which member of XStat's oneof came last, and what it held. */
enum xspace_member {
    XSPACE_MEMBER_DOUBLE = 2,
    XSPACE_MEMBER_UINT64 = 3,
    XSPACE_MEMBER_INT64 = 4,
    XSPACE_MEMBER_STR = 5,
    XSPACE_MEMBER_REF = 7,
};

struct xspace_value {
    uint8_t member; /* XStat field number 2..8; 0: none */
    uint64_t bits;
    struct xspace_span text; /* str, bytes and compressed members */
};

/* What one event's stats say: per kind the last value whose key is in the
 * plane's stat-metadata map (ForEachStat), and the first "id" and
 * "iter_num" (GetStat). A kind's value is valid when its bit is seen. */
struct xspace_reading {
    uint32_t seen;
    struct xspace_value values[XSPACE_STAT_KINDS];
    uint8_t memory_id_kind; /* the last of allocator_name, index_on_host, device_ordinal */
    bool has_first_id, has_first_iteration;
    struct xspace_value first_id, first_iteration;
};

struct xspace_event {
    size_t offset; /* of the event's tag */
    uint64_t key;
    int64_t offset_ps; /* 0 when num_occurrences came last (a oneof) */
    int64_t duration_ps;
};

static inline bool xspace_seen(const struct xspace_reading *reading, unsigned kind)
{
    return (reading->seen >> kind) & 1u;
}

/* XStatVisitor's readings: IntValue, IntOrUintValue, DoubleValue. */
static inline int64_t xspace_value_int(const struct xspace_value *value)
{
    return value->member == XSPACE_MEMBER_INT64 ? wire_int64(value->bits) : 0;
}

static inline uint64_t xspace_value_int_or_uint(const struct xspace_value *value)
{
    return value->member == XSPACE_MEMBER_INT64 || value->member == XSPACE_MEMBER_UINT64
               ? value->bits : 0;
}

static inline double xspace_value_double(const struct xspace_value *value)
{
    return value->member == XSPACE_MEMBER_DOUBLE ? wire_double(value->bits) : 0.0;
}

/* A kind's IntValue, 0 when the event has none. */
static inline int64_t xspace_reading_int(const struct xspace_reading *reading, unsigned kind)
{
    return xspace_seen(reading, kind) ? xspace_value_int(&reading->values[kind]) : 0;
}

/* The event at `event` (a field of its line) and its stats that count, by
 * the plane's stat-metadata map `stats` (its cache is written: a thread of
 * its own needs a copy of the table). */
enum load_status xspace_event_read(const struct wire *wire, struct xspace_metadata_table *stats,
                                   const struct wire_field *event, struct xspace_event *fields,
                                   struct xspace_reading *reading);

/* ---- load_xspace_forest.c: XProf's step grouping ---- */

#define XSPACE_NO_NODE UINT32_MAX

struct xspace_edge {
    uint32_t parent, child;
};

struct xspace_root {
    uint32_t node;
    int32_t level;
    int64_t begin_ps; /* timestamp_ns * 1000 + offset_ps, as XProf sorts roots */
    bool has_step_id;
    int64_t step_id;  /* its own "id" stat, read as int64 (tf.data roots are skipped) */
};

struct xspace_context {
    int32_t type; /* _pt or _ct, read as int64 then kept as int as XProf does */
    uint64_t id;  /* _p or _c, compared as a 64-bit pattern */
    uint32_t node;
    bool consumer;
};

/* An ExecutorState::Process or IteratorGetNext event: its (id, iter_num)
 * as GetContextStat finds them (on itself, else on the nearest enclosing
 * event that has each), as 64-bit patterns. When the event has its own,
 * those are the ones found, and its own as XProf's IntValue reads them
 * (TF loop iterations) is the pattern if it was an int64, else 0: flags
 * say which. Kept small: a TF capture has one per op. */
enum {
    XSPACE_EXECUTOR_ITERATOR = 1,
    XSPACE_EXECUTOR_HAS_ID = 2,        /* id found */
    XSPACE_EXECUTOR_HAS_ITERATION = 4, /* iteration found */
    XSPACE_EXECUTOR_OWN_ID = 8,        /* the event's own id stat */
    XSPACE_EXECUTOR_OWN_ITERATION = 16,
    XSPACE_EXECUTOR_OWN_ID_INT64 = 32, /* ... held an int64 */
    XSPACE_EXECUTOR_OWN_ITERATION_INT64 = 64,
};

struct xspace_executor {
    uint64_t id, iteration;
    int64_t begin_ps;
    uint32_t node;
    uint8_t flags;
};

struct xspace_forest {
    int32_t *levels; /* per node; 0: not a root */
    uint32_t node_count, node_capacity;
    struct xspace_edge *edges;
    size_t edge_count, edge_capacity;
    struct xspace_root *roots;
    size_t root_count, root_capacity;
    struct xspace_context *contexts;
    size_t context_count, context_capacity;
    struct xspace_executor *executors;
    size_t executor_count, executor_capacity;
    int64_t *tf_data_step_ids;
    size_t tf_data_count, tf_data_capacity;
    int32_t *groups; /* per node after xspace_forest_group(); -1: none */
    int64_t group_count;
};

/* Where the forest stood, so a line walked with the wrong timestamp can be
 * walked again. */
struct xspace_forest_mark {
    uint32_t nodes;
    size_t edges, roots, contexts, executors, tf_data;
};

bool xspace_forest_add_node(struct xspace_forest *forest, int32_t level, uint32_t *node);
bool xspace_forest_add_edge(struct xspace_forest *forest, uint32_t parent, uint32_t child);
bool xspace_forest_add_root(struct xspace_forest *forest, const struct xspace_root *root);
bool xspace_forest_add_context(struct xspace_forest *forest, const struct xspace_context *context);
bool xspace_forest_add_executor(struct xspace_forest *forest,
                                const struct xspace_executor *executor);
bool xspace_forest_add_tf_data_step(struct xspace_forest *forest, int64_t step_id);
struct xspace_forest_mark xspace_forest_mark(const struct xspace_forest *forest);
void xspace_forest_rewind(struct xspace_forest *forest, const struct xspace_forest_mark *mark);
/* Groups every node (forest->groups); false when memory runs out. */
bool xspace_forest_group(struct xspace_forest *forest);
void xspace_forest_free(struct xspace_forest *forest);

/* ---- load_xspace_events.c ---- */

/* XProf's summary of one allocator, computed in walk order as it does. */
struct xspace_walk_summary {
    int64_t lifetime_peak_bytes; /* peak_bytes_in_use of the last event visited */
    struct memory_stats peak;    /* peak_bytes_in_use = stack + heap there */
    int64_t peak_time_ps;
    int64_t capacity_bytes;
    bool has_context; /* the allocator's timeline has its context column */
};

struct xspace_open_event; /* load_xspace_events.c */

/* What a memory event without an op is named after the events enclosing
 * it (string ids): its op, its region as an allocation and as a free,
 * the chain. */
struct xspace_names {
    uint32_t op, allocation_region, free_region, context;
};

struct xspace_loader {
    struct wire wire;
    struct profile_builder *builder;
    struct string_table *strings;
    struct load_tracker *tracker;
    struct xspace_plane *plane; /* the plane being walked */
    /* per allocator, as the builder numbers them */
    struct xspace_walk_summary *summaries;
    size_t summary_capacity;
    /* Until the groups are known, a snapshot's step_id holds the node whose
     * group it takes (-1: none), or its own group_id stat (-1: none) when
     * the host plane names group_id (an already grouped capture). */
    bool host_groups;
    size_t memory_events;
    /* Each allocator's timeline length when the line being walked began,
     * so that a line walked again finds its snapshots. */
    size_t *line_counts, *line_seen;
    size_t line_allocators, line_capacity;
    /* How many memory events the host plane may hold, from its size: what
     * the first allocator to hold XSPACE_ESTIMATE_AFTER events reserves
     * (address space only until used), so that it does not grow by
     * copying; `estimate_taken` once one has. */
    size_t memory_estimate;
    bool estimate_taken;
    struct xspace_forest forest;
    bool loop_ops;  /* some plane names a TF loop op: no grouping */
    bool grouped;   /* some plane has group_id metadata: no grouping */
    /* a memory id given as text: the last one and its allocator */
    struct xspace_span last_memory_id;
    size_t last_allocator;
    bool has_last_allocator;
    uint32_t data_type_ids[131]; /* data type names by value, interned on first use */
    /* the open events of the line being walked (the nesting stack) */
    struct xspace_open_event *open;
    size_t open_count, open_capacity;
    /* The words of load_xspace_attribution.c, string id + 1 (0: not yet). */
    struct xspace_attribution_ids {
        uint32_t outside, freed_inside, buffer, temp, output, donation, transfer, execution;
    } attribution;
    /* The names of memory events nested in nothing (xspace_attribute). */
    bool outside_named;
    struct xspace_names outside_names;
};

/* How a plane's lines are walked. */
enum xspace_walk_mode {
    XSPACE_WALK_HOST,     /* memory events become snapshots; grouping too */
    XSPACE_WALK_GROUPING, /* only what step grouping needs */
};

enum load_status xspace_walk_plane(struct xspace_loader *loader, struct xspace_plane *plane,
                                   enum xspace_walk_mode mode);

/* Where the walk of a plane's lines stands. */
struct xspace_walk {
    enum xspace_walk_mode mode;
    bool redo;        /* the line walked again with its real timestamp: no new snapshots */
    uint64_t base_ps; /* the line's timestamp_ns * 1000 */
    size_t next_track;
    struct xspace_forest_mark mark; /* the forest as the line began */
};

/* The steps of a line's walk, for the walk of one thread (load_xspace_events.c)
 * and of two (load_xspace_pipeline.c): a line begins; each event (read by
 * xspace_event_read) is applied; when the line's last timestamp_ns differs
 * from the one it began with, it begins again and its events are applied
 * again. False / not LOAD_OK when memory runs out. */
bool xspace_line_start(struct xspace_loader *loader, struct xspace_walk *walk,
                       int64_t timestamp_ns);
enum load_status xspace_event_apply(struct xspace_loader *loader, struct xspace_walk *walk,
                                    const struct xspace_event *event,
                                    const struct xspace_reading *reading);
bool xspace_line_again(struct xspace_loader *loader, struct xspace_walk *walk, int64_t final_ns);

/* ---- load_xspace_pipeline.c: the host plane's walk on two threads ---- */

/* Whether lines of this many bytes are walked on two threads: one reads
 * the events, the other applies them. */
bool xspace_pipeline_wanted(size_t bytes);
enum load_status xspace_walk_pipelined(struct xspace_loader *loader, struct xspace_walk *walk,
                                       const struct xspace_plane *plane);

/* ---- load_xspace_memory.c ---- */

/* A memory event's snapshot appended to its allocator's timeline (its
 * step_id holding `raw_step` until the groups are known, see struct
 * xspace_loader), and XProf's running summary of the allocator. */
/* ---- load_xspace_attribution.c: a memory event without an op named ---- */

/* The names for events enclosed by keys[0] (outermost) .. keys[count-1]
 * (the rules are in the file's header); the walk keeps them on the
 * innermost open event, so one chain is named once. False when memory
 * runs out. */
bool xspace_attribute(struct xspace_loader *loader, const uint64_t *keys, size_t count,
                      struct xspace_names *out);
/* Interns the words xspace_attribute_settle writes; false when memory
 * runs out. Called before an allocator's pairs are matched. */
bool xspace_attribute_settle_ready(struct xspace_loader *loader);
/* A matched pair: a buffer of `Build buffer allocations` becomes temp
 * (freed inside an execution) or output. Inline: the matching asks it of
 * every pair (after xspace_attribute_settle_ready). */
static inline void xspace_attribute_settle(const struct xspace_loader *loader,
                                           struct snapshot_columns *timeline, size_t allocation,
                                           size_t deallocation)
{
    const struct xspace_attribution_ids *ids = &loader->attribution;
    if (ids->buffer == 0 || timeline->region_type[allocation] != ids->buffer - 1)
        return;
    bool inside = ids->freed_inside != 0 &&
                  timeline->region_type[deallocation] == ids->freed_inside - 1;
    timeline->region_type[allocation] = (inside ? ids->temp : ids->output) - 1;
}
/* Buffers never freed are outputs: those among the allocations `open`
 * holds (address -> timeline index) when every allocation never freed is
 * there, else (NULL) among all. */
void xspace_attribute_unfreed(struct xspace_loader *loader, struct snapshot_columns *timeline,
                              const struct integer_map *open);

/* `names`: for an event without a tf_op, what encloses it names it
 * (xspace_attribute); NULL for one with a tf_op. */
enum load_status xspace_memory_event_add(struct xspace_loader *loader,
                                         const struct xspace_event *fields,
                                         const struct xspace_reading *reading,
                                         const struct xspace_names *names, bool allocation,
                                         int64_t raw_step);
/* The allocator of a memory event (made when new); false when memory runs out. */
bool xspace_memory_allocator(struct xspace_loader *loader, const struct xspace_reading *reading,
                             size_t *index);
enum load_status xspace_fail_memory(struct xspace_loader *loader, size_t offset);
void xspace_loader_free(struct xspace_loader *loader);

/* ---- load_xspace_profile.c ---- */

/* XProf's memory profile of the snapshots: steps from the groups, time
 * order, each deallocation given its allocation's op and kind, the
 * summary, the peak step and the table at the peak. False when memory
 * runs out. */
bool xspace_finish_profile(struct xspace_loader *loader);

#endif
