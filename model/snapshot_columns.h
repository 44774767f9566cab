/* snapshot_columns: one snapshot (struct snapshot) and a timeline of
 * them as columns (struct snapshot_columns): the layout every view reads,
 * with the encodings a loader may choose for a column it never varies or
 * can store narrower.
 * Owns: the declarations; model/snapshot_columns.c (storage),
 * model/snapshot_columns_encoding.c (encodings) and
 * model/snapshot_columns_time.c (the narrow time) implement them, and
 * model/snapshot_context.c the context column's runs.
 * Called by: model/profile.h (which includes it: a profile's allocators
 * hold their timelines), the builder, loaders and every reader.
 * Must not: know a format or a view. */
#ifndef MEMTOP_SNAPSHOT_COLUMNS_H
#define MEMTOP_SNAPSHOT_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/util/saturating.h"

/* What a snapshot records happening (MemoryProfile's MemoryActivity). */
enum memory_activity {
    MEMORY_ACTIVITY_UNKNOWN = 0,
    MEMORY_ACTIVITY_ALLOCATION = 1,
    MEMORY_ACTIVITY_DEALLOCATION = 2,
    MEMORY_ACTIVITY_RESERVATION = 3,
    MEMORY_ACTIVITY_EXPANSION = 4,
};

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
    /* Where it happened, for formats that know more than an op name (a
     * PyTorch trace: the enclosing ops, outermost first, " > " between):
     * a string id, empty when the format has none. */
    uint32_t context;
    /* Where in the user's code (issue 22): an index into the profile's
     * sites (struct frame_site), 0 for none. */
    uint32_t site;
};

struct timeline_index; /* model/timeline.h */

/* Snapshots as parallel arrays: element i of every array is snapshot i.
 * Scans over one quantity (heap over time) touch only that array. */
struct snapshot_columns {
    size_t count;
    size_t capacity;
    /* Block maxima of stack+heap for timeline_max_in_use(), built by
     * profile_builder_finish() for each timeline; NULL until then. Appending a
     * snapshot drops it; freeing the columns frees it (one allocation, so
     * profile.c never calls into timeline.c). */
    struct timeline_index *index;
    /* NULL when the loader narrowed it (SNAPSHOT_NARROW_TIME): snapshot
     * i's time is time_bases[i / SNAPSHOT_TIME_BLOCK] + time_narrow[i] *
     * time_unit (a block's base: the first time stored into it,
     * SNAPSHOT_TIME_UNSET before); read it through snapshot_columns_time().
     * A time that does not fit widens the column back (time_ps then). */
    int64_t *time_ps;
    uint32_t *time_narrow;
    int64_t *time_bases;
    int64_t time_unit;
    int64_t *stack_bytes;
    int64_t *heap_bytes;
    /* NULL when the loader omitted it (SNAPSHOT_OMIT_FREE_BYTES): the free
     * bytes are then the reserved bytes of reserved_changes less the
     * memory in use; read it through snapshot_columns_free_bytes(). */
    int64_t *free_bytes;
    double *fragmentation;
    /* NULL when the loader omitted it (SNAPSHOT_OMIT_PEAK_BYTES_IN_USE): the
     * running maximum of the memory in use from peak_floor; read it
     * through snapshot_columns_peak_bytes_in_use(). */
    int64_t *peak_bytes_in_use;
    int8_t *activity; /* enum memory_activity; values past int8 read as unknown */
    /* NULL when the loader narrowed it (SNAPSHOT_NARROW_REQUESTED_BYTES):
     * requested_narrow holds the sizes below 2^32 - 1 and the sign
     * UINT32_MAX for the others, kept in requested_wide; read it through
     * snapshot_columns_requested_bytes(). */
    int64_t *requested_bytes;
    uint32_t *requested_narrow;
    /* NULL when the loader omitted it (SNAPSHOT_OMIT_ALLOCATION_BYTES):
     * read it through snapshot_columns_allocation_bytes(). */
    int64_t *allocation_bytes;
    uint64_t *address;
    /* NULL when the loader omitted it (SNAPSHOT_OMIT_STEP_ID): read it
     * through snapshot_columns_step_id(). */
    int64_t *step_id;
    uint32_t *op_name;
    uint32_t *region_type;
    uint32_t *data_type;
    uint32_t *tensor_shape;
    /* struct snapshot's context: NULL (every snapshot's is empty) until a
     * loader calls snapshot_columns_enable_context(), so that formats
     * without it pay nothing. */
    uint32_t *context;
    /* Or the same in runs (snapshot_columns_compact_context()), `context`
     * then NULL: run k holds from its first snapshot to the next run's.
     * Read either through snapshot_columns_context(). */
    struct context_run *context_runs;
    size_t context_run_count;
    /* struct snapshot's site: NULL (every snapshot's is 0) until a loader
     * calls snapshot_columns_enable_site(). */
    uint32_t *site;
    /* The columns snapshot_columns_append_sparse() stored something other
     * than zero into (a bit each, profile.c's order), so that
     * snapshot_columns_grow_zeroed() copies only those. */
    unsigned written;
    unsigned omitted; /* the columns snapshot_columns_omit() left out (profile.c's bits) */
    /* Without the free column: the reserved bytes from each change on (by
     * snapshot), in snapshot order; before the first, none reserved. */
    struct reserved_change *reserved_changes;
    size_t reserved_change_count, reserved_change_capacity;
    /* Without the peak column: the running maximum starts from peak_floor,
     * and peak_marks[k] is the maximum before snapshot k * SNAPSHOT_PEAK_SPAN
     * (snapshot_columns_mark_peaks(); NULL until then: the maximum is
     * then found from the first snapshot). */
    int64_t peak_floor;
    int64_t *peak_marks;
    /* The requested sizes requested_narrow cannot hold, by snapshot. */
    struct wide_value *requested_wide;
    size_t requested_wide_count, requested_wide_capacity;
    /* With SNAPSHOT_KEY_OP_NAME_AND_SITE, op_name and site are NULL: each
     * snapshot's pair is keyed[key[i]] (keyed[0] is none, none), the
     * pairs being few (a PyTorch snapshot's are its tracebacks'); read
     * them through snapshot_columns_op_name() and _site(). key_map finds
     * a pair's key while snapshots are appended (NULL after
     * snapshot_columns_fit()). */
    uint32_t *key;
    struct snapshot_op_site *keyed;
    size_t keyed_count, keyed_capacity;
    struct integer_map *key_map;
    /* With SNAPSHOT_INDEX_ADDRESS, address is NULL: snapshot i's address
     * is addresses[address_key[i]] (addresses[0] is 0), an allocator
     * reusing its addresses; read it through snapshot_columns_address().
     * address_map finds an address's key while snapshots are appended. */
    uint32_t *address_key;
    uint64_t *addresses;
    size_t address_count, address_capacity;
    struct integer_map *address_map;
    /* The address snapshot_columns_address_key() keyed last and its key
     * (key 0: none), which the next append of that address takes without
     * a lookup. */
    uint64_t keyed_address;
    uint32_t keyed_address_key;
    /* A sparse append or a set ran out of memory for a kept-aside value or
     * a new key (those return nothing): the loader checks it. */
    bool lost;
};

struct snapshot_op_site {
    uint32_t op_name;
    uint32_t site;
};

/* Snapshot `index`'s value, where a narrow column cannot hold it. */
struct wide_value {
    size_t index;
    int64_t value;
};
#define SNAPSHOT_NARROW_WIDE UINT32_MAX

/* From snapshot `index` on (until the next change), `reserved` bytes. */
struct reserved_change {
    size_t index;
    int64_t reserved;
};
#define SNAPSHOT_PEAK_SPAN 64

/* Columns a loader whose format never varies them may leave out, so that
 * they cost no memory: the step is then none (-1) everywhere, the
 * allocation bytes are the requested bytes. */
enum {
    SNAPSHOT_OMIT_STEP_ID = 1u << 0,
    SNAPSHOT_OMIT_ALLOCATION_BYTES = 1u << 1,
    /* free = reserved - in use (not negative), reserved from the changes
     * the loader records with snapshot_columns_reserved_change() */
    SNAPSHOT_OMIT_FREE_BYTES = 1u << 2,
    /* the running maximum of stack + heap, from snapshot_columns_mark_peaks()'s floor */
    SNAPSHOT_OMIT_PEAK_BYTES_IN_USE = 1u << 3,
    /* the requested bytes in 4 bytes each, the sizes of 4 GiB or more (and
     * negative ones) aside: for formats whose sizes are almost never so */
    SNAPSHOT_NARROW_REQUESTED_BYTES = 1u << 4,
    /* the op name and site as one key into their distinct pairs, 4 bytes
     * a snapshot where they took 8 */
    SNAPSHOT_KEY_OP_NAME_AND_SITE = 1u << 5,
    /* the address as a key into the distinct addresses, 4 bytes a
     * snapshot where it took 8 */
    SNAPSHOT_INDEX_ADDRESS = 1u << 6,
    /* the time in 4 bytes, a count of units (1 ps until
     * snapshot_columns_scale_times()) from a base kept for each
     * SNAPSHOT_TIME_BLOCK snapshots: for formats whose times grow in
     * whole units (a PyTorch snapshot's microseconds); the first time
     * that does not fit (before its block's base, off the unit, 2^32
     * units or more past it) widens the column back to 8 bytes */
    SNAPSHOT_NARROW_TIME = 1u << 7,
    /* no stack bytes: every snapshot's are 0 (a format whose allocator
     * has no stack, a PyTorch snapshot's); read them through
     * snapshot_columns_stack_bytes() */
    SNAPSHOT_OMIT_STACK_BYTES = 1u << 8,
    /* no region type, data type or shape: each is the empty string (a
     * format that does not know them); read them through
     * snapshot_columns_region_type() and its neighbours */
    SNAPSHOT_OMIT_TENSOR_FIELDS = 1u << 9,
};
#define SNAPSHOT_TIME_BLOCK_SHIFT 16
#define SNAPSHOT_TIME_BLOCK ((size_t)1 << SNAPSHOT_TIME_BLOCK_SHIFT)
#define SNAPSHOT_TIME_UNSET INT64_MIN
/* Leaves out the columns `which` names (before the columns have room:
 * false otherwise). Appending or setting a snapshot then ignores those
 * fields of it. */
bool snapshot_columns_omit(struct snapshot_columns *columns, unsigned which);

/* Snapshot `index`'s time, whether its column was narrowed or not:
 * every reader goes through this. */
static inline int64_t snapshot_columns_time(const struct snapshot_columns *columns, size_t index)
{
    if (columns->time_ps)
        return columns->time_ps[index];
    return columns->time_bases[index >> SNAPSHOT_TIME_BLOCK_SHIFT] +
           (int64_t)columns->time_narrow[index] * columns->time_unit;
}
/* Whether no snapshot's time is before the one before it. */
bool snapshot_columns_times_sorted(const struct snapshot_columns *columns);
/* Every time t becomes (t - origin) * factor (factor >= 1), saturating:
 * a loader's clock (a PyTorch snapshot's microseconds) as the timeline's
 * picoseconds from its start. A narrow column keeps its counts (its bases
 * and unit change) where no time can saturate, and widens otherwise;
 * false when memory runs out for that (or factor < 1). */
bool snapshot_columns_scale_times(struct snapshot_columns *columns, int64_t origin, int64_t factor);
/* Every snapshot's time becomes its index times `unit` (>= 1),
 * saturating: for a loader whose file has no times. False as
 * snapshot_columns_scale_times(). */
bool snapshot_columns_count_times(struct snapshot_columns *columns, int64_t unit);

/* Whether the timeline records steps at all: a loader that left the
 * column out (SNAPSHOT_OMIT_STEP_ID) records none, every step is none. */
static inline bool snapshot_columns_has_steps(const struct snapshot_columns *columns)
{
    return columns->step_id != NULL;
}

/* Snapshot `index`'s step id, requested and allocation bytes, whether
 * their columns were omitted or not: every reader goes through these. */
static inline int64_t snapshot_columns_step_id(const struct snapshot_columns *columns,
                                               size_t index)
{
    return columns->step_id ? columns->step_id[index] : -1;
}
int64_t snapshot_columns_requested_wide(const struct snapshot_columns *columns, size_t index);
static inline int64_t snapshot_columns_requested_bytes(const struct snapshot_columns *columns,
                                                       size_t index)
{
    if (columns->requested_bytes)
        return columns->requested_bytes[index];
    uint32_t narrow = columns->requested_narrow[index];
    return narrow != SNAPSHOT_NARROW_WIDE ? (int64_t)narrow
                                          : snapshot_columns_requested_wide(columns, index);
}
static inline uint32_t snapshot_columns_op_name(const struct snapshot_columns *columns,
                                               size_t index)
{
    return columns->op_name ? columns->op_name[index] : columns->keyed[columns->key[index]].op_name;
}
static inline uint64_t snapshot_columns_address(const struct snapshot_columns *columns,
                                                size_t index)
{
    return columns->address ? columns->address[index]
                            : columns->addresses[columns->address_key[index]];
}
static inline uint32_t snapshot_columns_site(const struct snapshot_columns *columns, size_t index)
{
    if (columns->key)
        return columns->keyed[columns->key[index]].site;
    return columns->site ? columns->site[index] : 0;
}
static inline int64_t snapshot_columns_allocation_bytes(const struct snapshot_columns *columns,
                                                        size_t index)
{
    return columns->allocation_bytes ? columns->allocation_bytes[index]
                                     : snapshot_columns_requested_bytes(columns, index);
}

/* Snapshot `index`'s free bytes and running peak, whether their columns
 * were omitted or not: every reader goes through these. */
int64_t snapshot_columns_free_from_reserved(const struct snapshot_columns *columns, size_t index);
int64_t snapshot_columns_peak_from_marks(const struct snapshot_columns *columns, size_t index);
static inline int64_t snapshot_columns_free_bytes(const struct snapshot_columns *columns,
                                                  size_t index)
{
    return columns->free_bytes ? columns->free_bytes[index]
                               : snapshot_columns_free_from_reserved(columns, index);
}
static inline int64_t snapshot_columns_peak_bytes_in_use(const struct snapshot_columns *columns,
                                                         size_t index)
{
    return columns->peak_bytes_in_use ? columns->peak_bytes_in_use[index]
                                      : snapshot_columns_peak_from_marks(columns, index);
}
/* Without the free column: the reserved bytes are `reserved` from snapshot
 * `index` on (indexes in order; a second change at the same index
 * replaces the first); false when memory runs out. */
bool snapshot_columns_reserved_change(struct snapshot_columns *columns, size_t index,
                                      int64_t reserved);
/* Without the peak column, once the last snapshot is in: the running
 * maximum starts from `floor` (the memory in use before the first), and
 * marks are made for reading it at any snapshot at once; false when
 * memory runs out (the maximum is then found from the first snapshot). */
bool snapshot_columns_mark_peaks(struct snapshot_columns *columns, int64_t floor);
/* A copy of `from` into `to` (empty), with the same columns left out;
 * false when memory runs out (`to` then needs snapshot_columns_free). */
bool snapshot_columns_copy(const struct snapshot_columns *from, struct snapshot_columns *to);

/* Makes room for the site column (0 for the snapshots already there);
 * false when memory runs out. */
bool snapshot_columns_enable_site(struct snapshot_columns *columns);

/* Makes room for the context column (empty for the snapshots already
 * there); false when memory runs out. */
bool snapshot_columns_enable_context(struct snapshot_columns *columns);
/* A run of snapshots of one context (struct snapshot_columns). */
struct context_run {
    uint32_t first;
    uint32_t context;
};
/* Whether the snapshots have contexts (a column or runs). */
static inline bool snapshot_columns_has_context(const struct snapshot_columns *columns)
{
    return columns->context || columns->context_runs;
}
/* Snapshot `index`'s context, from the column or the runs; the empty
 * string where there is neither (model/snapshot_context.c). */
uint32_t snapshot_columns_context(const struct snapshot_columns *columns, size_t index);
/* The same for a caller that asks for indices mostly in increasing
 * order: *run (start it at 0) keeps the run found last, and the next is
 * searched for from there, in steps that double (any order answers
 * right; increasing indices cost O(log gap) each, not O(log runs)). */
uint32_t snapshot_columns_context_from(const struct snapshot_columns *columns, size_t index,
                                       size_t *run);
/* Replaces the context column by its runs where they take less than half
 * its room (a loader done writing it; nothing appends after); false when
 * memory runs out (the column is then kept). */
bool snapshot_columns_compact_context(struct snapshot_columns *columns);
/* Grow to hold at least `capacity` snapshots; false when memory runs out. */
bool snapshot_columns_reserve(struct snapshot_columns *columns, size_t capacity);
/* For a loader whose format leaves some columns empty: columns with no
 * room yet (capacity 0) grow to `capacity` slots that read zero, and
 * snapshot_columns_append_sparse() stores only what is not zero, so a
 * column the format never fills stays pages the system has not handed
 * out (no resident memory, no page faults; reading them reads zeros).
 * False when memory runs out, or when the columns already have room. */
bool snapshot_columns_reserve_zeroed(struct snapshot_columns *columns, size_t capacity);
/* snapshot_columns_append() into columns snapshot_columns_reserve_zeroed()
 * made, below their capacity: the zero values are not written. */
void snapshot_columns_append_sparse(struct snapshot_columns *columns,
                                    const struct snapshot *snapshot);
/* A hint for a loader that knows the addresses to come: the slot where
 * the keyed address column (SNAPSHOT_INDEX_ADDRESS) will look `address`
 * up is fetched ahead (its map is megabytes for a big trace). Nothing
 * changes. */
void snapshot_columns_prefetch_address(const struct snapshot_columns *columns, uint64_t address);
/* For a loader that keeps state by address (SNAPSHOT_INDEX_ADDRESS, while
 * it appends): the key of `address` among the distinct addresses (1 and
 * up; 0 for address 0), made when it is new, so that the loader may keep
 * an array by key where it kept a map by address; the next append of
 * that address then takes the key without looking it up again. False
 * when memory runs out. */
bool snapshot_columns_address_key(struct snapshot_columns *columns, uint64_t address,
                                  uint32_t *key);
/* The key of an address already keyed; 0 when it is not (or is 0). */
uint32_t snapshot_columns_find_address_key(const struct snapshot_columns *columns,
                                           uint64_t address);
/* Grows columns snapshot_columns_reserve_zeroed() made, filled by
 * snapshot_columns_append_sparse() only, to `capacity` slots, keeping
 * them sparse: a column nothing but zeros went into is not copied and
 * stays untouched. False when memory runs out (the capacity is then
 * unchanged). */
bool snapshot_columns_grow_zeroed(struct snapshot_columns *columns, size_t capacity);
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
/* snapshot_columns_get() but for the running peak (0): where a timeline
 * without its peak column is read whole, in an order of its own. */
void snapshot_columns_get_unpeaked(const struct snapshot_columns *columns, size_t index,
                                   struct snapshot *out);
void snapshot_columns_free(struct snapshot_columns *columns);
/* Snapshot `index`'s stack bytes, 0 where the column was left out. */
static inline int64_t snapshot_columns_stack_bytes(const struct snapshot_columns *columns,
                                                   size_t index)
{
    return columns->stack_bytes ? columns->stack_bytes[index] : 0;
}
/* The empty string's id (STRING_ID_EMPTY) where the column was left out. */
static inline uint32_t snapshot_columns_region_type(const struct snapshot_columns *columns,
                                                    size_t index)
{
    return columns->region_type ? columns->region_type[index] : 0;
}
static inline uint32_t snapshot_columns_data_type(const struct snapshot_columns *columns,
                                                  size_t index)
{
    return columns->data_type ? columns->data_type[index] : 0;
}
static inline uint32_t snapshot_columns_tensor_shape(const struct snapshot_columns *columns,
                                                     size_t index)
{
    return columns->tensor_shape ? columns->tensor_shape[index] : 0;
}
/* stack + heap of snapshot `index`: the "memory in use" every view
 * plots (inline: the finish and the chart read it for every snapshot). */
static inline int64_t snapshot_columns_in_use(const struct snapshot_columns *columns,
                                              size_t index)
{
    return columns->stack_bytes
               ? saturating_add(columns->stack_bytes[index], columns->heap_bytes[index])
               : columns->heap_bytes[index];
}

#endif
