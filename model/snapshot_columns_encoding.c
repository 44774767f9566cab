/* snapshot_columns_encoding: how a timeline column may be stored other
 * than as one plain array: left out (a rule gives its value: the step,
 * none; the allocation bytes, the requested ones; the free bytes, from
 * the reserved bytes' changes; the running peak, from marks), narrowed
 * (the requested bytes in 4 bytes, wide ones kept aside; the time's,
 * model/snapshot_columns_time.c) or keyed (the op name and site as one
 * pair, the address, each a key into its distinct values).
 * Called by: loaders that choose an encoding (snapshot_columns_omit and
 * the reserved/peak calls) and model/snapshot_columns.c as it stores and
 * reads snapshots.
 * Must not: change what any snapshot reads as: an encoding is storage. */
#include "config.h"

#include "model/snapshot_columns_internal.h"
#include "model/util/integer_map.h"
#include "model/util/saturating.h"

#include <stdlib.h>
#include <string.h>

bool snapshot_columns_omit(struct snapshot_columns *columns, unsigned which)
{
    if (columns->capacity || columns->count)
        return false;
    if (which & SNAPSHOT_OMIT_STEP_ID)
        columns->omitted |= 1u << COLUMN_BIT_step_id;
    if (which & SNAPSHOT_OMIT_ALLOCATION_BYTES)
        columns->omitted |= 1u << COLUMN_BIT_allocation_bytes;
    if (which & SNAPSHOT_OMIT_FREE_BYTES)
        columns->omitted |= 1u << COLUMN_BIT_free_bytes;
    if (which & SNAPSHOT_OMIT_PEAK_BYTES_IN_USE)
        columns->omitted |= 1u << COLUMN_BIT_peak_bytes_in_use;
    /* The requested bytes left out are narrowed: requested_narrow then. */
    if (which & SNAPSHOT_NARROW_REQUESTED_BYTES)
        columns->omitted |= 1u << COLUMN_BIT_requested_bytes;
    /* The op name left out is keyed with the site: `key` then. */
    if (which & SNAPSHOT_KEY_OP_NAME_AND_SITE)
        columns->omitted |= 1u << COLUMN_BIT_op_name;
    /* The address left out is keyed: `address_key` then. */
    if (which & SNAPSHOT_INDEX_ADDRESS)
        columns->omitted |= 1u << COLUMN_BIT_address;
    if (which & SNAPSHOT_OMIT_STACK_BYTES)
        columns->omitted |= 1u << COLUMN_BIT_stack_bytes;
    if (which & SNAPSHOT_OMIT_TENSOR_FIELDS)
        columns->omitted |= 1u << COLUMN_BIT_region_type | 1u << COLUMN_BIT_data_type |
                            1u << COLUMN_BIT_tensor_shape;
    /* The time left out is narrowed (model/snapshot_columns_time.c):
     * `time_narrow` then, in picoseconds until the loader scales it. */
    if (which & SNAPSHOT_NARROW_TIME) {
        columns->omitted |= 1u << COLUMN_BIT_time_ps;
        columns->time_unit = 1;
    }
    return true;
}

/* The address table's first value, 0, which zeroed keys read. */
bool columns_addresses_start(struct snapshot_columns *columns)
{
    if (columns->addresses)
        return true;
    columns->addresses = calloc(16, sizeof *columns->addresses);
    if (!columns->addresses)
        return false;
    columns->address_count = 1;
    columns->address_capacity = 16;
    return true;
}

void columns_address_map_free(struct snapshot_columns *columns)
{
    if (columns->address_map) {
        integer_map_free(columns->address_map);
        free(columns->address_map);
        columns->address_map = NULL;
    }
}

void snapshot_columns_prefetch_address(const struct snapshot_columns *columns, uint64_t address)
{
    if (columns->address_map && address)
        integer_map_prefetch(columns->address_map, address);
}

bool snapshot_columns_address_key(struct snapshot_columns *columns, uint64_t address,
                                  uint32_t *key)
{
    if (!columns_address_key_of(columns, address, key))
        return false;
    columns->keyed_address = address;
    columns->keyed_address_key = *key;
    return true;
}

uint32_t snapshot_columns_find_address_key(const struct snapshot_columns *columns,
                                           uint64_t address)
{
    const uint32_t *found =
        columns->address_map && address ? integer_map_find(columns->address_map, address) : NULL;
    return found ? *found : 0;
}

/* The key of an address, made when it is new; false when memory runs out. */
bool columns_address_key_of(struct snapshot_columns *columns, uint64_t address, uint32_t *key)
{
    *key = 0;
    if (address == 0)
        return true;
    if (address == columns->keyed_address && columns->keyed_address_key) {
        *key = columns->keyed_address_key;
        return true;
    }
    if (!columns->address_map) {
        /* Made again after the columns were fitted: from the table. */
        columns->address_map = calloc(1, sizeof *columns->address_map);
        if (!columns->address_map)
            return false;
        for (size_t k = 1; k < columns->address_count; k++)
            if (!integer_map_put(columns->address_map, columns->addresses[k], (uint32_t)k)) {
                columns_address_map_free(columns);
                return false;
            }
    }
    const uint32_t *found = integer_map_find(columns->address_map, address);
    if (found) {
        *key = *found;
        return true;
    }
    if (columns->address_count >= UINT32_MAX)
        return false;
    if (columns->address_count == columns->address_capacity) {
        size_t capacity = columns->address_capacity * 2;
        uint64_t *grown = realloc(columns->addresses, capacity * sizeof *grown);
        if (!grown)
            return false;
        columns->addresses = grown;
        columns->address_capacity = capacity;
    }
    uint32_t made = (uint32_t)columns->address_count;
    if (!integer_map_put(columns->address_map, address, made))
        return false;
    columns->addresses[columns->address_count++] = address;
    *key = made;
    return true;
}

/* The key table's first pair, none and none, which zeroed keys read. */
bool columns_keyed_start(struct snapshot_columns *columns)
{
    if (columns->keyed)
        return true;
    columns->keyed = calloc(16, sizeof *columns->keyed);
    if (!columns->keyed)
        return false;
    columns->keyed_count = 1;
    columns->keyed_capacity = 16;
    return true;
}

void columns_key_map_free(struct snapshot_columns *columns)
{
    if (columns->key_map) {
        integer_map_free(columns->key_map);
        free(columns->key_map);
        columns->key_map = NULL;
    }
}

/* The key of a pair, made when it is new; false when memory runs out. */
bool columns_key_of(struct snapshot_columns *columns, uint32_t op_name, uint32_t site,
                    uint32_t *key)
{
    *key = 0;
    if (op_name == 0 && site == 0)
        return true;
    uint64_t pair = (uint64_t)op_name << 32 | site;
    if (!columns->key_map) {
        /* Made again after the columns were fitted: from the table. */
        columns->key_map = calloc(1, sizeof *columns->key_map);
        if (!columns->key_map)
            return false;
        for (size_t k = 1; k < columns->keyed_count; k++)
            if (!integer_map_put(columns->key_map,
                                 (uint64_t)columns->keyed[k].op_name << 32 | columns->keyed[k].site,
                                 (uint32_t)k)) {
                columns_key_map_free(columns);
                return false;
            }
    }
    const uint32_t *found = integer_map_find(columns->key_map, pair);
    if (found) {
        *key = *found;
        return true;
    }
    if (columns->keyed_count >= UINT32_MAX)
        return false;
    if (columns->keyed_count == columns->keyed_capacity) {
        size_t capacity = columns->keyed_capacity * 2;
        struct snapshot_op_site *grown = realloc(columns->keyed, capacity * sizeof *grown);
        if (!grown)
            return false;
        columns->keyed = grown;
        columns->keyed_capacity = capacity;
    }
    uint32_t made = (uint32_t)columns->keyed_count;
    if (!integer_map_put(columns->key_map, pair, made))
        return false;
    columns->keyed[columns->keyed_count++] = (struct snapshot_op_site){op_name, site};
    *key = made;
    return true;
}

/* The wide values are by index: where `index` is or goes. */
static size_t wide_position(const struct wide_value *values, size_t count, size_t index)
{
    size_t low = 0, high = count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (values[middle].index < index)
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}

int64_t snapshot_columns_requested_wide(const struct snapshot_columns *columns, size_t index)
{
    size_t at = wide_position(columns->requested_wide, columns->requested_wide_count, index);
    return at < columns->requested_wide_count && columns->requested_wide[at].index == index
               ? columns->requested_wide[at].value
               : 0;
}

/* Stores snapshot `index`'s requested bytes in the narrow column; false
 * when memory runs out for a wide one (the slot then reads 0). */
bool columns_requested_store(struct snapshot_columns *columns, size_t index, int64_t value)
{
    if (value >= 0 && value < (int64_t)SNAPSHOT_NARROW_WIDE) {
        columns->requested_narrow[index] = (uint32_t)value;
        return true;
    }
    size_t count = columns->requested_wide_count;
    size_t at = wide_position(columns->requested_wide, count, index);
    if (at < count && columns->requested_wide[at].index == index) {
        columns->requested_wide[at].value = value;
    } else {
        if (count == columns->requested_wide_capacity) {
            size_t capacity = count ? count * 2 : 16;
            struct wide_value *grown = realloc(columns->requested_wide, capacity * sizeof *grown);
            if (!grown) {
                columns->requested_narrow[index] = 0;
                columns->lost = true;
                return false;
            }
            columns->requested_wide = grown;
            columns->requested_wide_capacity = capacity;
        }
        memmove(&columns->requested_wide[at + 1], &columns->requested_wide[at],
                (count - at) * sizeof *columns->requested_wide);
        columns->requested_wide[at] = (struct wide_value){index, value};
        columns->requested_wide_count++;
    }
    columns->requested_narrow[index] = SNAPSHOT_NARROW_WIDE;
    return true;
}

int64_t snapshot_columns_free_from_reserved(const struct snapshot_columns *columns, size_t index)
{
    /* The last change at or before `index`: a binary search (they are few). */
    size_t low = 0, high = columns->reserved_change_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (columns->reserved_changes[middle].index <= index)
            low = middle + 1;
        else
            high = middle;
    }
    int64_t reserved = low ? columns->reserved_changes[low - 1].reserved : 0;
    int64_t room = saturating_subtract(reserved, snapshot_columns_in_use(columns, index));
    return room > 0 ? room : 0;
}

int64_t snapshot_columns_peak_from_marks(const struct snapshot_columns *columns, size_t index)
{
    size_t from = columns->peak_marks ? index / SNAPSHOT_PEAK_SPAN * SNAPSHOT_PEAK_SPAN : 0;
    int64_t peak = columns->peak_marks ? columns->peak_marks[index / SNAPSHOT_PEAK_SPAN]
                                       : columns->peak_floor;
    for (size_t i = from; i <= index; i++) {
        int64_t in_use = snapshot_columns_in_use(columns, i);
        if (in_use > peak)
            peak = in_use;
    }
    return peak;
}

bool snapshot_columns_reserved_change(struct snapshot_columns *columns, size_t index,
                                      int64_t reserved)
{
    size_t count = columns->reserved_change_count;
    if (count && columns->reserved_changes[count - 1].index == index) {
        columns->reserved_changes[count - 1].reserved = reserved;
        return true;
    }
    if (count == columns->reserved_change_capacity) {
        size_t capacity = count ? count * 2 : 16;
        struct reserved_change *grown =
            realloc(columns->reserved_changes, capacity * sizeof *grown);
        if (!grown)
            return false;
        columns->reserved_changes = grown;
        columns->reserved_change_capacity = capacity;
    }
    columns->reserved_changes[columns->reserved_change_count++] =
        (struct reserved_change){index, reserved};
    return true;
}

bool snapshot_columns_mark_peaks(struct snapshot_columns *columns, int64_t floor)
{
    free(columns->peak_marks);
    columns->peak_marks = NULL;
    columns->peak_floor = floor;
    size_t marks = (columns->count + SNAPSHOT_PEAK_SPAN - 1) / SNAPSHOT_PEAK_SPAN;
    if (marks == 0)
        return true;
    columns->peak_marks = malloc(marks * sizeof *columns->peak_marks);
    if (!columns->peak_marks)
        return false;
    int64_t peak = floor;
    for (size_t i = 0; i < columns->count; i++) {
        if (i % SNAPSHOT_PEAK_SPAN == 0)
            columns->peak_marks[i / SNAPSHOT_PEAK_SPAN] = peak;
        int64_t in_use = snapshot_columns_in_use(columns, i);
        if (in_use > peak)
            peak = in_use;
    }
    return true;
}
