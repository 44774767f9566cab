#include "config.h"

#include "model/profile.h"
#include "model/segments.h"

#include "model/format.h"
#include "model/input_format.h"
#include "model/util/integer_map.h"
#include "model/util/saturating.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- activities ---- */

const char *memory_activity_name(int activity)
{
    switch (activity) {
    case MEMORY_ACTIVITY_ALLOCATION: return "ALLOCATION";
    case MEMORY_ACTIVITY_DEALLOCATION: return "DEALLOCATION";
    case MEMORY_ACTIVITY_RESERVATION: return "RESERVATION";
    case MEMORY_ACTIVITY_EXPANSION: return "EXPANSION";
    default: return "UNKNOWN_ACTIVITY";
    }
}

bool allocation_row_is_uncounted(const struct allocation_row *row)
{
    return row->kind != STRING_ID_EMPTY && row->allocation_bytes <= 0;
}

const char *memory_activity_label(int activity)
{
    switch (activity) {
    case MEMORY_ACTIVITY_ALLOCATION: return "allocation";
    case MEMORY_ACTIVITY_DEALLOCATION: return "deallocation";
    case MEMORY_ACTIVITY_RESERVATION: return "reservation";
    case MEMORY_ACTIVITY_EXPANSION: return "expansion";
    default: return "unknown";
    }
}

/* ---- columns ---- */

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
};

/* Whether a loader left the column out (snapshot_columns_omit). */
#define OMITTED(columns, name) ((columns)->omitted & (1u << COLUMN_BIT_##name))

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
    return true;
}

/* The address table's first value, 0, which zeroed keys read. */
static bool addresses_start(struct snapshot_columns *columns)
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

static void address_map_free(struct snapshot_columns *columns)
{
    if (columns->address_map) {
        integer_map_free(columns->address_map);
        free(columns->address_map);
        columns->address_map = NULL;
    }
}

/* The key of an address, made when it is new; false when memory runs out. */
static bool address_key_of(struct snapshot_columns *columns, uint64_t address, uint32_t *key)
{
    *key = 0;
    if (address == 0)
        return true;
    if (!columns->address_map) {
        /* Made again after the columns were fitted: from the table. */
        columns->address_map = calloc(1, sizeof *columns->address_map);
        if (!columns->address_map)
            return false;
        for (size_t k = 1; k < columns->address_count; k++)
            if (!integer_map_put(columns->address_map, columns->addresses[k], (uint32_t)k)) {
                address_map_free(columns);
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
static bool keyed_start(struct snapshot_columns *columns)
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

static void key_map_free(struct snapshot_columns *columns)
{
    if (columns->key_map) {
        integer_map_free(columns->key_map);
        free(columns->key_map);
        columns->key_map = NULL;
    }
}

/* The key of a pair, made when it is new; false when memory runs out. */
static bool key_of(struct snapshot_columns *columns, uint32_t op_name, uint32_t site,
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
                key_map_free(columns);
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
static bool requested_store(struct snapshot_columns *columns, size_t index, int64_t value)
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

static bool column_resize(void **column, size_t element_size, size_t capacity)
{
    if (capacity > SIZE_MAX / element_size)
        return false;
    void *grown = realloc(*column, capacity * element_size);
    if (!grown)
        return false;
    *column = grown;
    return true;
}

bool snapshot_columns_reserve(struct snapshot_columns *columns, size_t capacity)
{
    if (capacity <= columns->capacity)
        return true;
#define RESIZE(name)                                                               \
    if (!OMITTED(columns, name) &&                                                  \
        !column_resize((void **)&columns->name, sizeof *columns->name, capacity))   \
        return false;
    FOR_EACH_COLUMN(RESIZE)
#undef RESIZE
    if (columns->context &&
        !column_resize((void **)&columns->context, sizeof *columns->context, capacity))
        return false;
    if (columns->site && !column_resize((void **)&columns->site, sizeof *columns->site, capacity))
        return false;
    if (OMITTED(columns, requested_bytes) &&
        !column_resize((void **)&columns->requested_narrow, sizeof *columns->requested_narrow,
                       capacity))
        return false;
    if (OMITTED(columns, op_name) &&
        (!keyed_start(columns) ||
         !column_resize((void **)&columns->key, sizeof *columns->key, capacity)))
        return false;
    if (OMITTED(columns, address) &&
        (!addresses_start(columns) ||
         !column_resize((void **)&columns->address_key, sizeof *columns->address_key, capacity)))
        return false;
    columns->capacity = capacity;
    return true;
}

/* calloc() hands out fresh pages of the system's untouched (it knows they
 * are zero), where realloc() would not promise zeros. */
static bool column_zeroed(void **column, size_t element_size, size_t capacity)
{
    free(*column);
    *column = calloc(capacity, element_size);
    return *column != NULL;
}

bool snapshot_columns_reserve_zeroed(struct snapshot_columns *columns, size_t capacity)
{
    if (columns->capacity || columns->count)
        return false;
#define ZEROED(name)                                                              \
    if (!OMITTED(columns, name) &&                                                 \
        !column_zeroed((void **)&columns->name, sizeof *columns->name, capacity))  \
        return false;
    FOR_EACH_COLUMN(ZEROED)
#undef ZEROED
    if (columns->context &&
        !column_zeroed((void **)&columns->context, sizeof *columns->context, capacity))
        return false;
    if (columns->site && !column_zeroed((void **)&columns->site, sizeof *columns->site, capacity))
        return false;
    if (OMITTED(columns, requested_bytes) &&
        !column_zeroed((void **)&columns->requested_narrow, sizeof *columns->requested_narrow,
                       capacity))
        return false;
    if (OMITTED(columns, op_name) &&
        (!keyed_start(columns) ||
         !column_zeroed((void **)&columns->key, sizeof *columns->key, capacity)))
        return false;
    if (OMITTED(columns, address) &&
        (!addresses_start(columns) ||
         !column_zeroed((void **)&columns->address_key, sizeof *columns->address_key, capacity)))
        return false;
    columns->capacity = capacity;
    return true;
}

/* A zeroed column of `capacity` slots holding the first `count` of the
 * old one (copied only when something was written there, so that a
 * column no one wrote stays pages the system has not handed out). */
static bool column_regrow_zeroed(void **column, size_t element_size, size_t count,
                                 size_t capacity, bool written)
{
    if (!*column)
        return true;
    void *grown = calloc(capacity, element_size);
    if (!grown)
        return false;
    if (written)
        memcpy(grown, *column, count * element_size);
    free(*column);
    *column = grown;
    return true;
}

bool snapshot_columns_grow_zeroed(struct snapshot_columns *columns, size_t capacity)
{
    if (capacity <= columns->capacity)
        return true;
#define REGROW(name)                                                                        \
    if (!column_regrow_zeroed((void **)&columns->name, sizeof *columns->name, columns->count, \
                              capacity, columns->written & (1u << COLUMN_BIT_##name)))        \
        return false;
    FOR_EACH_COLUMN(REGROW)
#undef REGROW
    if (!column_regrow_zeroed((void **)&columns->context, sizeof *columns->context,
                              columns->count, capacity,
                              columns->written & (1u << COLUMN_BIT_context)) ||
        !column_regrow_zeroed((void **)&columns->site, sizeof *columns->site, columns->count,
                              capacity, columns->written & (1u << COLUMN_BIT_site)) ||
        !column_regrow_zeroed((void **)&columns->requested_narrow,
                              sizeof *columns->requested_narrow, columns->count, capacity,
                              columns->written & (1u << COLUMN_BIT_requested_narrow)) ||
        !column_regrow_zeroed((void **)&columns->key, sizeof *columns->key, columns->count,
                              capacity, columns->written & (1u << COLUMN_BIT_key)) ||
        !column_regrow_zeroed((void **)&columns->address_key, sizeof *columns->address_key,
                              columns->count, capacity,
                              columns->written & (1u << COLUMN_BIT_address_key)))
        return false;
    columns->capacity = capacity;
    return true;
}

bool snapshot_columns_enable_context(struct snapshot_columns *columns)
{
    if (columns->context)
        return true;
    columns->context = calloc(columns->capacity ? columns->capacity : 1, sizeof *columns->context);
    return columns->context != NULL;
}

bool snapshot_columns_enable_site(struct snapshot_columns *columns)
{
    if (columns->site || OMITTED(columns, op_name))
        return true; /* keyed with the op name: no column of its own */
    columns->site = calloc(columns->capacity ? columns->capacity : 1, sizeof *columns->site);
    return columns->site != NULL;
}

void snapshot_columns_fit(struct snapshot_columns *columns)
{
    /* The loader is done appending. */
    key_map_free(columns);
    address_map_free(columns);
    if (columns->count == 0 || columns->count == columns->capacity)
        return;
    /* Shrinking in place cannot fail in practice; if it does, the column
     * simply keeps its room. */
#define SHRINK(name)                                                                 \
    if (!OMITTED(columns, name))                                                      \
        column_resize((void **)&columns->name, sizeof *columns->name, columns->count);
    FOR_EACH_COLUMN(SHRINK)
#undef SHRINK
    if (columns->context)
        column_resize((void **)&columns->context, sizeof *columns->context, columns->count);
    if (columns->site)
        column_resize((void **)&columns->site, sizeof *columns->site, columns->count);
    if (columns->requested_narrow)
        column_resize((void **)&columns->requested_narrow, sizeof *columns->requested_narrow,
                      columns->count);
    if (columns->key)
        column_resize((void **)&columns->key, sizeof *columns->key, columns->count);
    if (columns->address_key)
        column_resize((void **)&columns->address_key, sizeof *columns->address_key,
                      columns->count);
    columns->capacity = columns->count;
}

bool snapshot_columns_append(struct snapshot_columns *columns, const struct snapshot *snapshot)
{
    if (columns->index) {
        free(columns->index);
        columns->index = NULL;
    }
    if (columns->peak_marks) {
        free(columns->peak_marks);
        columns->peak_marks = NULL;
    }
    if (columns->count == columns->capacity) {
        /* From 4: a capture may hold thousands of allocators of one event. */
        size_t capacity = columns->capacity < 4 ? 4 : columns->capacity + columns->capacity / 2;
        if (!snapshot_columns_reserve(columns, capacity))
            return false;
    }
    snapshot_columns_set(columns, columns->count++, snapshot);
    return true;
}

void snapshot_columns_set(struct snapshot_columns *columns, size_t i,
                          const struct snapshot *snapshot)
{
    columns->time_ps[i] = snapshot->time_ps;
    columns->stack_bytes[i] = snapshot->stack_bytes;
    columns->heap_bytes[i] = snapshot->heap_bytes;
    if (columns->free_bytes)
        columns->free_bytes[i] = snapshot->free_bytes;
    columns->fragmentation[i] = snapshot->fragmentation;
    if (columns->peak_bytes_in_use)
        columns->peak_bytes_in_use[i] = snapshot->peak_bytes_in_use;
    /* Activities beyond int8 are unknown values anyway; keep them unknown. */
    columns->activity[i] = (snapshot->activity >= INT8_MIN && snapshot->activity <= INT8_MAX)
                               ? (int8_t)snapshot->activity
                               : (int8_t)MEMORY_ACTIVITY_UNKNOWN;
    if (columns->requested_bytes)
        columns->requested_bytes[i] = snapshot->requested_bytes;
    else
        requested_store(columns, i, snapshot->requested_bytes);
    if (columns->allocation_bytes)
        columns->allocation_bytes[i] = snapshot->allocation_bytes;
    if (columns->address)
        columns->address[i] = snapshot->address;
    else if (!address_key_of(columns, snapshot->address, &columns->address_key[i]))
        columns->lost = true;
    if (columns->step_id)
        columns->step_id[i] = snapshot->step_id;
    if (columns->op_name) {
        columns->op_name[i] = snapshot->op_name;
    } else if (!key_of(columns, snapshot->op_name, snapshot->site, &columns->key[i])) {
        columns->lost = true;
    }
    columns->region_type[i] = snapshot->region_type;
    columns->data_type[i] = snapshot->data_type;
    columns->tensor_shape[i] = snapshot->tensor_shape;
    if (columns->context)
        columns->context[i] = snapshot->context;
    if (columns->site)
        columns->site[i] = snapshot->site;
}

void snapshot_columns_append_sparse(struct snapshot_columns *columns,
                                    const struct snapshot *snapshot)
{
    size_t i = columns->count++;
    free(columns->index);
    columns->index = NULL;
    if (columns->peak_marks) {
        free(columns->peak_marks);
        columns->peak_marks = NULL;
    }
    int8_t activity = (snapshot->activity >= INT8_MIN && snapshot->activity <= INT8_MAX)
                          ? (int8_t)snapshot->activity
                          : (int8_t)MEMORY_ACTIVITY_UNKNOWN;
    /* A double's zero is all zero bits only when it is +0.0: -0.0 is stored. */
    bool fragmented = snapshot->fragmentation != 0.0 || signbit(snapshot->fragmentation);
    unsigned written = 0;
#define STORE(name, value)                            \
    if (value) {                                      \
        columns->name[i] = value;                     \
        written |= 1u << COLUMN_BIT_##name;           \
    }
    STORE(time_ps, snapshot->time_ps)
    STORE(stack_bytes, snapshot->stack_bytes)
    STORE(heap_bytes, snapshot->heap_bytes)
    if (columns->free_bytes)
        STORE(free_bytes, snapshot->free_bytes)
    if (fragmented) {
        columns->fragmentation[i] = snapshot->fragmentation;
        written |= 1u << COLUMN_BIT_fragmentation;
    }
    if (columns->peak_bytes_in_use)
        STORE(peak_bytes_in_use, snapshot->peak_bytes_in_use)
    STORE(activity, activity)
    if (columns->requested_bytes) {
        STORE(requested_bytes, snapshot->requested_bytes)
    } else if (snapshot->requested_bytes) {
        requested_store(columns, i, snapshot->requested_bytes);
        written |= 1u << COLUMN_BIT_requested_narrow;
    }
    if (columns->allocation_bytes)
        STORE(allocation_bytes, snapshot->allocation_bytes)
    if (columns->address) {
        STORE(address, snapshot->address)
    } else if (snapshot->address) {
        uint32_t address_key;
        columns->lost |= !address_key_of(columns, snapshot->address, &address_key);
        STORE(address_key, address_key)
    }
    if (columns->step_id)
        STORE(step_id, snapshot->step_id)
    if (columns->op_name) {
        STORE(op_name, snapshot->op_name)
    } else if (snapshot->op_name || snapshot->site) {
        uint32_t key;
        columns->lost |= !key_of(columns, snapshot->op_name, snapshot->site, &key);
        STORE(key, key)
    }
    STORE(region_type, snapshot->region_type)
    STORE(data_type, snapshot->data_type)
    STORE(tensor_shape, snapshot->tensor_shape)
#undef STORE
    if (columns->context && snapshot->context) {
        columns->context[i] = snapshot->context;
        written |= 1u << COLUMN_BIT_context;
    }
    if (columns->site && snapshot->site) {
        columns->site[i] = snapshot->site;
        written |= 1u << COLUMN_BIT_site;
    }
    columns->written |= written;
}

void snapshot_columns_get_unpeaked(const struct snapshot_columns *columns, size_t index,
                                   struct snapshot *out)
{
    *out = (struct snapshot){
        .time_ps = columns->time_ps[index],
        .stack_bytes = columns->stack_bytes[index],
        .heap_bytes = columns->heap_bytes[index],
        .free_bytes = snapshot_columns_free_bytes(columns, index),
        .fragmentation = columns->fragmentation[index],
        .peak_bytes_in_use = 0,
        .activity = columns->activity[index],
        .requested_bytes = snapshot_columns_requested_bytes(columns, index),
        .allocation_bytes = snapshot_columns_allocation_bytes(columns, index),
        .address = snapshot_columns_address(columns, index),
        .step_id = snapshot_columns_step_id(columns, index),
        .op_name = snapshot_columns_op_name(columns, index),
        .region_type = columns->region_type[index],
        .data_type = columns->data_type[index],
        .tensor_shape = columns->tensor_shape[index],
        .context = snapshot_columns_context(columns, index),
        .site = snapshot_columns_site(columns, index),
    };
}

void snapshot_columns_get(const struct snapshot_columns *columns, size_t index,
                          struct snapshot *out)
{
    snapshot_columns_get_unpeaked(columns, index, out);
    out->peak_bytes_in_use = snapshot_columns_peak_bytes_in_use(columns, index);
}

static bool copy_array(void **to, const void *from, size_t bytes)
{
    if (!from || bytes == 0)
        return true;
    *to = malloc(bytes);
    if (!*to)
        return false;
    memcpy(*to, from, bytes);
    return true;
}

bool snapshot_columns_copy(const struct snapshot_columns *from, struct snapshot_columns *to)
{
    *to = (struct snapshot_columns){.omitted = from->omitted};
    if ((from->context && !snapshot_columns_enable_context(to)) ||
        (from->site && !snapshot_columns_enable_site(to)) ||
        !snapshot_columns_reserve_zeroed(to, from->count ? from->count : 1))
        return false;
    /* The columns nothing was written into stay untouched pages. */
#define COPY(name)                                           \
    if (to->name && from->name && from->count)               \
        memcpy(to->name, from->name, from->count * sizeof *to->name);
    FOR_EACH_COLUMN(COPY)
    COPY(context)
    COPY(site)
    COPY(requested_narrow)
    COPY(key)
    COPY(address_key)
#undef COPY
    if (from->context_runs) {
        to->context_runs = malloc(from->context_run_count * sizeof *to->context_runs);
        if (!to->context_runs)
            return false;
        memcpy(to->context_runs, from->context_runs,
               from->context_run_count * sizeof *to->context_runs);
        to->context_run_count = from->context_run_count;
    }
    to->count = from->count;
    to->written = from->written;
    to->peak_floor = from->peak_floor;
    size_t marks = (from->count + SNAPSHOT_PEAK_SPAN - 1) / SNAPSHOT_PEAK_SPAN;
    if (!copy_array((void **)&to->reserved_changes, from->reserved_changes,
                    from->reserved_change_count * sizeof *from->reserved_changes) ||
        !copy_array((void **)&to->peak_marks, from->peak_marks,
                    marks * sizeof *from->peak_marks) ||
        !copy_array((void **)&to->requested_wide, from->requested_wide,
                    from->requested_wide_count * sizeof *from->requested_wide))
        return false;
    if (from->keyed) {
        free(to->keyed);
        to->keyed = NULL;
        if (!copy_array((void **)&to->keyed, from->keyed, from->keyed_count * sizeof *to->keyed))
            return false;
        to->keyed_count = to->keyed_capacity = from->keyed_count;
    }
    if (from->addresses) {
        free(to->addresses);
        to->addresses = NULL;
        if (!copy_array((void **)&to->addresses, from->addresses,
                        from->address_count * sizeof *to->addresses))
            return false;
        to->address_count = to->address_capacity = from->address_count;
    }
    to->reserved_change_count = to->reserved_change_capacity = from->reserved_change_count;
    to->requested_wide_count = to->requested_wide_capacity = from->requested_wide_count;
    return true;
}

void snapshot_columns_free(struct snapshot_columns *columns)
{
    free(columns->index);
#define FREE(name) free(columns->name);
    FOR_EACH_COLUMN(FREE)
#undef FREE
    free(columns->context);
    free(columns->context_runs);
    free(columns->site);
    free(columns->reserved_changes);
    free(columns->peak_marks);
    free(columns->requested_narrow);
    free(columns->requested_wide);
    free(columns->key);
    free(columns->keyed);
    key_map_free(columns);
    free(columns->address_key);
    free(columns->addresses);
    address_map_free(columns);
    memset(columns, 0, sizeof *columns);
}

int64_t snapshot_columns_in_use(const struct snapshot_columns *columns, size_t index)
{
    return saturating_add(columns->stack_bytes[index], columns->heap_bytes[index]);
}

/* ---- the profile ---- */

struct text profile_string(const struct profile *profile, uint32_t string_id)
{
    return string_table_get(profile->strings, string_id);
}

bool allocator_records(const struct allocator *allocator, unsigned field)
{
    if (allocator->unknown_fields & field)
        return false;
    return allocator->timeline_kind != TIMELINE_NONE ||
           !(field & (ALLOCATOR_FIELD_FREE | ALLOCATOR_FIELD_FRAGMENTATION));
}

const char *allocator_word(const struct allocator *allocator, enum allocator_word word)
{
    /* [caching][word]: one table, so every view says the same words. */
    static const char *const words[2][ALLOCATOR_WORD_COUNT] = {
        {"heap", "free", "Peak (heap)", "Lifetime peak heap", "Heap allocation", "Free memory",
         "Lifetime peak heap usage"},
        {"allocated", "reserved but free", "Peak (allocated)", "Lifetime peak allocated",
         "Allocated", "Reserved but free", "Lifetime peak allocated"},
    };
    if ((unsigned)word >= ALLOCATOR_WORD_COUNT)
        return "";
    return words[allocator && allocator->caching ? 1 : 0][word];
}

bool allocator_records_reserved(const struct allocator *allocator)
{
    return allocator && allocator->caching && allocator->timeline.count > 0 &&
           allocator_records(allocator, ALLOCATOR_FIELD_FREE);
}

int64_t allocator_reserved_at(const struct allocator *allocator, size_t index)
{
    int64_t free_bytes = snapshot_columns_free_bytes(&allocator->timeline, index);
    return saturating_add(snapshot_columns_in_use(&allocator->timeline, index),
                          free_bytes > 0 ? free_bytes : 0);
}

bool allocator_rows_step_differs(const struct allocator *allocator, int64_t *rows_step,
                                 int64_t *peak_time_step)
{
    const struct allocator_summary *summary = &allocator->summary;
    *rows_step = summary->rows_step;
    *peak_time_step = summary->peak_time_step;
    return summary->one_step_rows && allocator->rows_kind != ALLOCATOR_ROWS_LIVE &&
           summary->rows_step != summary->peak_time_step;
}

const char *profile_text(const struct profile *profile, uint32_t string_id)
{
    return string_table_text(profile->strings, string_id);
}

const char *profile_format_name(const struct input_format *format)
{
    return format ? format->name : "";
}

long profile_find_allocator(const struct profile *profile, struct text id)
{
    for (size_t i = 0; i < profile->allocator_count; i++)
        if (text_equal(profile_string(profile, profile->allocators[i].id), id))
            return (long)i;
    return -1;
}

/* Whether `name` is the id as format_safe_bytes shows it. */
static bool shown_as(struct text id, const char *name)
{
    size_t size = 4 * id.length + 1; /* always enough (format.h) */
    char small[256];
    char *shown = size <= sizeof small ? small : malloc(size);
    if (!shown)
        return false;
    format_safe_bytes(id, 0, shown, size);
    bool same = strcmp(shown, name) == 0;
    if (shown != small)
        free(shown);
    return same;
}

long profile_find_allocator_named(const struct profile *profile, const char *name)
{
    /* The shown spelling first: it names every allocator apart (a NUL is
     * "\x00", a backslash "\\"); the bytes typed still name one whose id
     * has a backslash, as they did before escapes were understood. */
    for (size_t i = 0; i < profile->allocator_count; i++)
        if (shown_as(profile_string(profile, profile->allocators[i].id), name))
            return (long)i;
    return profile_find_allocator(profile, text_of(name));
}

void profile_free(struct profile *profile)
{
    if (!profile)
        return;
    for (size_t i = 0; i < profile->allocator_count; i++) {
        snapshot_columns_free(&profile->allocators[i].timeline);
        free(profile->allocators[i].rows);
        segment_history_free(profile->allocators[i].segments);
        free(profile->allocators[i].ooms);
        free(profile->allocators[i].notes);
        free(profile->allocators[i].memory_map);
        free(profile->allocators[i].xprof_rows);
        free(profile->allocators[i].initial);
        free(profile->allocators[i].allocation_blocks);
    }
    free(profile->warnings);
    free(profile->sites);
    free(profile->spans);
    free(profile->allocators);
    free(profile->hlo_modules);
    string_table_free(profile->strings);
    free(profile->path);
    free(profile);
}

const struct allocation_row *allocator_xprof_rows(const struct allocator *allocator,
                                                  size_t *count)
{
    if (allocator->xprof_kept) {
        *count = allocator->xprof_row_count;
        return allocator->xprof_rows;
    }
    *count = allocator->row_count;
    return allocator->rows;
}

struct frame_site profile_site(const struct profile *profile, uint32_t index)
{
    if (index == 0 || index >= profile->site_count)
        return (struct frame_site){0};
    return profile->sites[index];
}
