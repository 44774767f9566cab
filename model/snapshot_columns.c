/* snapshot_columns: the storage of a timeline's columns: room (dense, or
 * zeroed pages a format never writes), appending, storing in place,
 * reading a snapshot back, copying, giving back the slack, freeing.
 * Called by: the profile builder and the loaders (through it), and every
 * reader of a snapshot (snapshot_columns_get).
 * Must not: know a format; the encodings are
 * model/snapshot_columns_encoding.c's and, for the time,
 * model/snapshot_columns_time.c's. */
#include "config.h"

#include "model/snapshot_columns_internal.h"
#include "model/util/saturating.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    if (OMITTED(columns, time_ps) &&
        (!column_resize((void **)&columns->time_narrow, sizeof *columns->time_narrow, capacity) ||
         !columns_time_bases_room(columns, columns->capacity, capacity)))
        return false;
    if (OMITTED(columns, op_name) &&
        (!columns_keyed_start(columns) ||
         !column_resize((void **)&columns->key, sizeof *columns->key, capacity)))
        return false;
    if (OMITTED(columns, address) &&
        (!columns_addresses_start(columns) ||
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
    if (OMITTED(columns, time_ps) &&
        (!column_zeroed((void **)&columns->time_narrow, sizeof *columns->time_narrow, capacity) ||
         !columns_time_bases_room(columns, 0, capacity)))
        return false;
    if (OMITTED(columns, op_name) &&
        (!columns_keyed_start(columns) ||
         !column_zeroed((void **)&columns->key, sizeof *columns->key, capacity)))
        return false;
    if (OMITTED(columns, address) &&
        (!columns_addresses_start(columns) ||
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
    if (!column_regrow_zeroed((void **)&columns->context, sizeof *columns->context, columns->count,
                              capacity, columns->written & (1u << COLUMN_BIT_context)) ||
        !column_regrow_zeroed((void **)&columns->site, sizeof *columns->site, columns->count,
                              capacity, columns->written & (1u << COLUMN_BIT_site)) ||
        !column_regrow_zeroed((void **)&columns->requested_narrow,
                              sizeof *columns->requested_narrow, columns->count, capacity,
                              columns->written & (1u << COLUMN_BIT_requested_narrow)) ||
        !column_regrow_zeroed((void **)&columns->key, sizeof *columns->key, columns->count,
                              capacity, columns->written & (1u << COLUMN_BIT_key)) ||
        !column_regrow_zeroed((void **)&columns->address_key, sizeof *columns->address_key,
                              columns->count, capacity,
                              columns->written & (1u << COLUMN_BIT_address_key)) ||
        !column_regrow_zeroed((void **)&columns->time_narrow, sizeof *columns->time_narrow,
                              columns->count, capacity,
                              columns->written & (1u << COLUMN_BIT_time_narrow)) ||
        (columns->time_narrow && !columns_time_bases_room(columns, columns->capacity, capacity)))
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
    columns_key_map_free(columns);
    columns_address_map_free(columns);
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
    if (columns->time_narrow) {
        column_resize((void **)&columns->time_narrow, sizeof *columns->time_narrow, columns->count);
        columns_time_bases_room(columns, columns->capacity, columns->count);
    }
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
    bool lost = columns->lost;
    snapshot_columns_set(columns, columns->count++, snapshot);
    return lost || !columns->lost;
}

void snapshot_columns_set(struct snapshot_columns *columns, size_t i,
                          const struct snapshot *snapshot)
{
    if (columns->time_ps)
        columns->time_ps[i] = snapshot->time_ps;
    else
        columns_time_store(columns, i, snapshot->time_ps);
    if (columns->stack_bytes)
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
        columns_requested_store(columns, i, snapshot->requested_bytes);
    if (columns->allocation_bytes)
        columns->allocation_bytes[i] = snapshot->allocation_bytes;
    if (columns->address)
        columns->address[i] = snapshot->address;
    else if (!columns_address_key_of(columns, snapshot->address, &columns->address_key[i]))
        columns->lost = true;
    if (columns->step_id)
        columns->step_id[i] = snapshot->step_id;
    if (columns->op_name) {
        columns->op_name[i] = snapshot->op_name;
    } else if (!columns_key_of(columns, snapshot->op_name, snapshot->site, &columns->key[i])) {
        columns->lost = true;
    }
    if (columns->region_type) {
        columns->region_type[i] = snapshot->region_type;
        columns->data_type[i] = snapshot->data_type;
        columns->tensor_shape[i] = snapshot->tensor_shape;
    }
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
    if (columns->time_ps) {
        STORE(time_ps, snapshot->time_ps)
    } else {
        /* Every time is stored: a count of 0 reads as its block's base.
         * (The column is marked written at the end: a widening before
         * then, at the first snapshot, finds no time stored anyway.) */
        columns_time_store(columns, i, snapshot->time_ps);
        written |= 1u << COLUMN_BIT_time_narrow;
    }
    if (columns->stack_bytes)
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
        columns_requested_store(columns, i, snapshot->requested_bytes);
        written |= 1u << COLUMN_BIT_requested_narrow;
    }
    if (columns->allocation_bytes)
        STORE(allocation_bytes, snapshot->allocation_bytes)
    if (columns->address) {
        STORE(address, snapshot->address)
    } else if (snapshot->address) {
        uint32_t address_key;
        columns->lost |= !columns_address_key_of(columns, snapshot->address, &address_key);
        STORE(address_key, address_key)
    }
    if (columns->step_id)
        STORE(step_id, snapshot->step_id)
    if (columns->op_name) {
        STORE(op_name, snapshot->op_name)
    } else if (snapshot->op_name || snapshot->site) {
        uint32_t key;
        columns->lost |= !columns_key_of(columns, snapshot->op_name, snapshot->site, &key);
        STORE(key, key)
    }
    if (columns->region_type) {
        STORE(region_type, snapshot->region_type)
        STORE(data_type, snapshot->data_type)
        STORE(tensor_shape, snapshot->tensor_shape)
    }
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
        .time_ps = snapshot_columns_time(columns, index),
        .stack_bytes = snapshot_columns_stack_bytes(columns, index),
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
        .region_type = snapshot_columns_region_type(columns, index),
        .data_type = snapshot_columns_data_type(columns, index),
        .tensor_shape = snapshot_columns_tensor_shape(columns, index),
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
    COPY(time_narrow)
#undef COPY
    to->time_unit = from->time_unit;
    if (to->time_bases && from->time_bases && from->count)
        memcpy(to->time_bases, from->time_bases,
               ((from->count + SNAPSHOT_TIME_BLOCK - 1) >> SNAPSHOT_TIME_BLOCK_SHIFT) *
                   sizeof *to->time_bases);
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
    free(columns->time_narrow);
    free(columns->time_bases);
    free(columns->key);
    free(columns->keyed);
    columns_key_map_free(columns);
    free(columns->address_key);
    free(columns->addresses);
    columns_address_map_free(columns);
    memset(columns, 0, sizeof *columns);
}

