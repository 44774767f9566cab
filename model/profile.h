/* profile: the in-memory MemoryProfile that every view and exporter reads.
 *
 * A loader (load_protobuf.c, load_json.c) fills a profile through the
 * builder calls at the end of this header, then profile_finish() turns the
 * raw pieces into the final form: allocators in memory_ids order, each with
 * a time-sorted columnar timeline, its summary and its resolved
 * active-allocation rows. After profile_finish() a profile is immutable;
 * views never change it. */
#ifndef MEMTOP_PROFILE_H
#define MEMTOP_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/string_table.h"

enum memory_activity {
    MEMORY_ACTIVITY_UNKNOWN = 0,
    MEMORY_ACTIVITY_ALLOCATION = 1,
    MEMORY_ACTIVITY_DEALLOCATION = 2,
    MEMORY_ACTIVITY_RESERVATION = 3,
    MEMORY_ACTIVITY_EXPANSION = 4,
};

/* "ALLOCATION", ... as proto3 JSON spells them; "UNKNOWN_ACTIVITY" for
 * values outside the enum. */
const char *memory_activity_name(int activity);
/* Lower-case words for people: "allocation", "deallocation", ... */
const char *memory_activity_label(int activity);

/* One MemoryProfileSnapshot, flattened. Used to move single snapshots
 * between loaders, columns and rows; the timeline itself is columnar. */
struct snapshot {
    int64_t time_ps;
    int64_t stack_bytes;
    int64_t heap_bytes;
    int64_t free_bytes;
    double fragmentation;
    int64_t peak_bytes_in_use;
    int activity; /* enum memory_activity, or whatever number the file had */
    int64_t requested_bytes;
    int64_t allocation_bytes;
    uint64_t address;
    int64_t step_id;
    uint32_t op_name; /* string ids */
    uint32_t region_type;
    uint32_t data_type;
    uint32_t tensor_shape;
};

struct timeline_index; /* model/timeline.h */

/* Snapshots as parallel arrays: element i of every array is snapshot i.
 * Scans over one quantity (heap over time) touch only that array. */
struct snapshot_columns {
    size_t count;
    size_t capacity;
    /* Block maxima of stack+heap for timeline_max_in_use(), built by
     * profile_finish() for each timeline; NULL until then. Appending a
     * snapshot drops it; freeing the columns frees it. */
    struct timeline_index *index;
    int64_t *time_ps;
    int64_t *stack_bytes;
    int64_t *heap_bytes;
    int64_t *free_bytes;
    double *fragmentation;
    int64_t *peak_bytes_in_use;
    int8_t *activity; /* enum memory_activity; values past int8 read as unknown */
    int64_t *requested_bytes;
    int64_t *allocation_bytes;
    uint64_t *address;
    int64_t *step_id;
    uint32_t *op_name;
    uint32_t *region_type;
    uint32_t *data_type;
    uint32_t *tensor_shape;
};

/* Grow to hold at least `capacity` snapshots; false when memory runs out. */
bool snapshot_columns_reserve(struct snapshot_columns *columns, size_t capacity);
/* Give back the room past the last snapshot (loaders reserve from
 * estimates): capacity == count afterwards (a column realloc() cannot
 * shrink keeps its room, unused). */
void snapshot_columns_fit(struct snapshot_columns *columns);
/* Append one snapshot (amortised growth); false when memory runs out. */
bool snapshot_columns_append(struct snapshot_columns *columns, const struct snapshot *snapshot);
/* Stores snapshot `index` (below the capacity) in place; the count is the
 * caller's: for a loader filling reserved columns out of order. */
void snapshot_columns_set(struct snapshot_columns *columns, size_t index,
                          const struct snapshot *snapshot);
void snapshot_columns_get(const struct snapshot_columns *columns, size_t index, struct snapshot *out);
void snapshot_columns_free(struct snapshot_columns *columns);
/* stack + heap of snapshot `index`: the "memory in use" every view plots. */
int64_t snapshot_columns_in_use(const struct snapshot_columns *columns, size_t index);

/* MemoryAggregationStats */
struct memory_stats {
    int64_t stack_bytes;
    int64_t heap_bytes;
    int64_t free_bytes;
    double fragmentation;
    int64_t peak_bytes_in_use;
};

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
};

enum row_origin {
    ROW_FROM_SNAPSHOT,  /* snapshot_index points into memory_profile_snapshots */
    ROW_FROM_SPECIAL,   /* special_index points into special_allocations */
    ROW_UNRESOLVED,     /* neither index points anywhere: shown, flagged */
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
};

struct hlo_module {
    int64_t id;
    uint32_t name;
    uint32_t plane_name;
    int64_t start_time_ps;
    int64_t end_time_ps;
};

/* The raw ActiveAllocation message, kept only until profile_finish(). */
struct active_allocation {
    int64_t snapshot_index;
    int64_t special_index;
    int64_t occurrences;
};

struct allocator {
    uint32_t id; /* the memory id ("GPU_0_bfc"), a string id */
    struct snapshot_columns timeline; /* time-sorted; what the chart plots */
    /* The timeline is XProf's sample of at most 1000 snapshots (version 1),
     * not every event: counts over it are counts of the sample. */
    bool timeline_sampled;
    struct allocator_summary summary;
    struct allocation_row *rows; /* in the file's order (XProf's order) */
    size_t row_count;

    /* Raw pieces as loaded, consumed and freed by profile_finish(). */
    struct snapshot_columns raw_snapshots;         /* memory_profile_snapshots */
    struct snapshot_columns raw_sampled;           /* sampled_timeline_snapshots */
    struct snapshot_columns raw_specials;          /* special_allocations (only
                                                      the metadata fields used) */
    struct active_allocation *raw_active;
    size_t raw_active_count;
    size_t raw_active_capacity;
    bool raw_has_summary;
};

enum profile_format {
    PROFILE_FORMAT_PROTOBUF,
    PROFILE_FORMAT_JSON,
};

struct profile {
    char *path;
    enum profile_format format;
    bool gzipped;
    uint64_t file_bytes; /* size of the file as read (compressed if gzipped) */
    int32_t version;
    int32_t num_hosts;
    struct string_table *strings;
    struct allocator *allocators;
    size_t allocator_count;
    struct hlo_module *hlo_modules;
    size_t hlo_module_count;

    /* Raw memory_ids, consumed by profile_finish(). */
    uint32_t *raw_memory_ids;
    size_t raw_memory_id_count;
    size_t raw_memory_id_capacity;
    size_t allocator_capacity;
    /* Allocator index + 1 by memory id (open addressing), so a map of
     * many allocators and a long memory_ids list load in linear time. */
    uint32_t *raw_allocator_slots;
    size_t raw_allocator_slot_count;
    size_t hlo_module_capacity;
};

/* Convenience accessors for views. */
const char *profile_text(const struct profile *profile, uint32_t string_id);
const char *profile_format_name(enum profile_format format); /* "pb", "json" */
/* Index of the allocator whose memory id is `id`, or -1. */
long profile_find_allocator(const struct profile *profile, const char *id);

void profile_free(struct profile *profile);

/* ---- Builder calls, for loaders only. ---- */

/* A new, empty profile; NULL when memory runs out. */
struct profile *profile_new(void);
/* The allocator with this memory id, created (at the end) if new; NULL
 * when memory runs out. A map may name the same key twice; protobuf would
 * keep only the last entry, memtop merges the entries' fields into one
 * allocator so that no snapshot in the file is silently dropped. */
struct allocator *profile_add_allocator(struct profile *profile, const char *id, size_t id_length);
bool profile_add_memory_id(struct profile *profile, const char *id, size_t id_length);
bool profile_add_hlo_module(struct profile *profile, const struct hlo_module *module);
bool allocator_add_active(struct allocator *allocator, const struct active_allocation *active);
/* Stores the summary as read from the file (peak_bytes is computed here)
 * and notes that the file had one. */
void allocator_set_summary(struct allocator *allocator, int64_t capacity_bytes,
                           int64_t lifetime_peak_bytes, const struct memory_stats *peak,
                           int64_t peak_time_ps);

/* Picks each allocator's timeline (sampled_timeline_snapshots when present,
 * else memory_profile_snapshots), resolves the active-allocation rows,
 * sorts timelines by time (stably) when they are not, counts allocations,
 * derives a missing summary, orders allocators by memory_ids (those it
 * does not name follow, in file order) and frees the raw pieces.
 * Returns false only when memory runs out. */
bool profile_finish(struct profile *profile);

#endif
