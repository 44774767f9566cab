/* xprof_draft: a MemoryProfile as read, before XProf's finishing.
 *
 * Owns: the pieces of each PerAllocatorMemoryProfile as the file has them
 * (memory_profile_snapshots, sampled_timeline_snapshots,
 * special_allocations, the ActiveAllocation indices, the summary if any),
 * the memory_ids order, the map's rule for a repeated key (the last entry
 * wins, as protobuf reads a map, with a warning), and XProf's finishing:
 * the sampled timeline when there is one (version 1) else the whole one
 * (version 0), the rows resolved from their indices (special and
 * unresolved rows included), a missing summary derived the way XProf
 * derives it, allocators in memory_ids order.
 * Called by: the two MemoryProfile loaders (load_protobuf*.c, load_json.c)
 * and the tests that build MemoryProfiles by hand.
 * Must not: be used by other formats (they append snapshots and rows to
 * the builder directly), or outlive the load: the profile it finishes
 * into is the builder's. */
#ifndef MEMTOP_XPROF_DRAFT_H
#define MEMTOP_XPROF_DRAFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/load_internal.h"
#include "model/profile.h"
#include "model/profile_builder.h"

/* The ActiveAllocation message: a row of the "live at the peak" table. */
struct active_allocation {
    int64_t snapshot_index;
    int64_t special_index;
    int64_t occurrences;
};

/* One allocator's pieces; [i] belongs to the builder's allocator i. */
struct xprof_allocator {
    struct snapshot_columns snapshots; /* memory_profile_snapshots */
    struct snapshot_columns sampled;   /* sampled_timeline_snapshots */
    struct snapshot_columns specials;  /* special_allocations (metadata only) */
    struct active_allocation *active;
    size_t active_count;
    size_t active_capacity;
    struct allocator_summary summary; /* as read; valid when has_summary */
    bool has_summary;
    bool repeated; /* its key came again (and was warned about) */
};

struct xprof_draft {
    struct profile_builder *builder; /* ids, strings, HLO modules, warnings */
    struct xprof_allocator *allocators; /* as many as the builder's allocators */
    size_t allocator_count;
    size_t allocator_capacity;
    uint32_t *memory_ids; /* string ids */
    size_t memory_id_count;
    size_t memory_id_capacity;
    int32_t version;
    int32_t num_hosts;
};

/* An empty draft finishing into `builder`; false when memory runs out. */
bool xprof_draft_init(struct xprof_draft *draft, struct profile_builder *builder);
void xprof_draft_free(struct xprof_draft *draft);

struct string_table *xprof_draft_strings(struct xprof_draft *draft);
/* Interns [text, text+length); STRING_ID_NONE when memory runs out. */
uint32_t xprof_draft_intern(struct xprof_draft *draft, const char *text, size_t length);

/* The allocator keyed [id, id+length), created if new; NULL when memory
 * runs out. For hand-built drafts: a repeated key merges here. */
struct xprof_allocator *xprof_draft_allocator(struct xprof_draft *draft, const char *id,
                                              size_t length);
/* A map entry keyed [id, id+length) begins: its allocator, emptied when
 * the key came before (the last entry wins, as protobuf reads a map; the
 * profile gets a warning, once per key). *index is its place. NULL when
 * memory runs out. */
struct xprof_allocator *xprof_draft_begin_entry(struct xprof_draft *draft, const char *id,
                                                size_t length, size_t *index);

bool xprof_allocator_add_active(struct xprof_allocator *allocator,
                                const struct active_allocation *active);
/* The summary as read from the file (a profile_summary). */
void xprof_allocator_set_summary(struct xprof_allocator *allocator, int64_t capacity_bytes,
                                 int64_t lifetime_peak_bytes, const struct memory_stats *peak,
                                 int64_t peak_time_ps);

bool xprof_draft_add_memory_id(struct xprof_draft *draft, const char *id, size_t length);
bool xprof_draft_add_hlo_module(struct xprof_draft *draft, const struct hlo_module *module);

/* XProf's finishing into the builder (see the top); the draft is empty
 * afterwards. False only when memory runs out. */
bool xprof_draft_finish(struct xprof_draft *draft);

/* ---- the MemoryProfile readers, for the format table and the tests ---- */

/* Each fills an empty draft from the bytes (binary protobuf or proto3
 * JSON); finishing is the caller's. The tracker may be NULL. */
enum load_status load_protobuf(const uint8_t *bytes, size_t size, struct xprof_draft *draft,
                               struct load_error *error);
enum load_status load_json(const uint8_t *bytes, size_t size, struct xprof_draft *draft,
                           struct load_error *error);
enum load_status load_protobuf_tracked(const uint8_t *bytes, size_t size,
                                       struct xprof_draft *draft, struct load_tracker *tracker,
                                       struct load_error *error);
enum load_status load_json_tracked(const uint8_t *bytes, size_t size, struct xprof_draft *draft,
                                   struct load_tracker *tracker, struct load_error *error);

/* A format row's load for either reader: a draft on `builder`, filled by
 * `read` from input's bytes, then finished. */
struct load_input;
typedef enum load_status (*xprof_reader_fn)(const uint8_t *bytes, size_t size,
                                            struct xprof_draft *draft,
                                            struct load_tracker *tracker,
                                            struct load_error *error);
enum load_status xprof_draft_load(const struct load_input *input, struct profile_builder *builder,
                                  xprof_reader_fn read, struct load_error *error);

#endif
