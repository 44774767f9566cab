/* snapshot_columns_internal: what the files of the timeline columns
 * share (model/snapshot_columns.c, model/snapshot_columns_encoding.c,
 * model/snapshot_columns_time.c).
 *
 * Owns: the list of the plain columns, a bit per column for `written` and
 * `omitted`, and the encodings' calls the storage makes as it appends.
 * Called by: those files only.
 * Must not: be included anywhere else (tests/test_layering.sh). */
#ifndef MEMTOP_SNAPSHOT_COLUMNS_INTERNAL_H
#define MEMTOP_SNAPSHOT_COLUMNS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/snapshot_columns.h"

#define FOR_EACH_COLUMN(X)                                                     \
    X(time_ps) X(stack_bytes) X(heap_bytes) X(free_bytes) X(fragmentation)     \
    X(peak_bytes_in_use) X(activity) X(requested_bytes) X(allocation_bytes)    \
    X(address) X(step_id) X(op_name) X(region_type) X(data_type) X(tensor_shape)

/* A bit per column, for snapshot_columns.written. */
enum column_bit {
#define BIT(name) COLUMN_BIT_##name,
    FOR_EACH_COLUMN(BIT)
#undef BIT
    COLUMN_BIT_context,
    COLUMN_BIT_site,
    COLUMN_BIT_requested_narrow,
    COLUMN_BIT_key,
    COLUMN_BIT_address_key,
    COLUMN_BIT_time_narrow,
};

/* Whether a loader left the column out (snapshot_columns_omit). */
#define OMITTED(columns, name) ((columns)->omitted & (1u << COLUMN_BIT_##name))

/* The address table's first value, 0, which zeroed keys read; false when
 * memory runs out. */
bool columns_addresses_start(struct snapshot_columns *columns);
void columns_address_map_free(struct snapshot_columns *columns);
/* The key of an address, made when it is new; false when memory runs out. */
bool columns_address_key_of(struct snapshot_columns *columns, uint64_t address, uint32_t *key);
/* The key table's first pair, none and none, which zeroed keys read;
 * false when memory runs out. */
bool columns_keyed_start(struct snapshot_columns *columns);
void columns_key_map_free(struct snapshot_columns *columns);
/* The key of a pair, made when it is new; false when memory runs out. */
bool columns_key_of(struct snapshot_columns *columns, uint32_t op_name, uint32_t site,
                    uint32_t *key);
/* The narrow time column's bases for `capacity` snapshots where they
 * were for `had` (more or fewer; the new ones unset); false when memory
 * runs out. */
bool columns_time_bases_room(struct snapshot_columns *columns, size_t had, size_t capacity);
/* Stores snapshot `index`'s time in the narrow column, widening it when
 * the time does not fit; false (`lost` set) when memory runs out. */
bool columns_time_store_any(struct snapshot_columns *columns, size_t index, int64_t value);
static inline bool columns_time_store(struct snapshot_columns *columns, size_t index,
                                      int64_t value)
{
    /* In line, the common case: a loader's own clock (unit 1) within
     * reach of its block's base. */
    int64_t base = columns->time_bases[index >> SNAPSHOT_TIME_BLOCK_SHIFT];
    if (columns->time_unit == 1 && base != SNAPSHOT_TIME_UNSET && value >= base &&
        (uint64_t)value - (uint64_t)base <= UINT32_MAX) {
        columns->time_narrow[index] = (uint32_t)((uint64_t)value - (uint64_t)base);
        return true;
    }
    return columns_time_store_any(columns, index, value);
}
/* The narrow time column as time_ps again; false when memory runs out. */
bool columns_time_widen(struct snapshot_columns *columns);
/* Stores snapshot `index`'s requested bytes in the narrow column; false
 * when memory runs out for a wide one (the slot then reads 0). */
bool columns_requested_store(struct snapshot_columns *columns, size_t index, int64_t value);

#endif
