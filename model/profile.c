#include "config.h"

#include "model/profile.h"

#include "model/index_sort.h"
#include "model/saturating.h"
#include "model/timeline.h"

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
#define RESIZE(name)                                                             \
    if (!column_resize((void **)&columns->name, sizeof *columns->name, capacity)) \
        return false;
    FOR_EACH_COLUMN(RESIZE)
#undef RESIZE
    columns->capacity = capacity;
    return true;
}

void snapshot_columns_fit(struct snapshot_columns *columns)
{
    if (columns->count == 0 || columns->count == columns->capacity)
        return;
    /* Shrinking in place cannot fail in practice; if it does, the column
     * simply keeps its room. */
#define SHRINK(name)                                                             \
    column_resize((void **)&columns->name, sizeof *columns->name, columns->count);
    FOR_EACH_COLUMN(SHRINK)
#undef SHRINK
    columns->capacity = columns->count;
}

bool snapshot_columns_append(struct snapshot_columns *columns, const struct snapshot *snapshot)
{
    if (columns->index) {
        timeline_index_free(columns->index);
        columns->index = NULL;
    }
    if (columns->count == columns->capacity) {
        size_t capacity = columns->capacity < 16 ? 16 : columns->capacity + columns->capacity / 2;
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
    columns->free_bytes[i] = snapshot->free_bytes;
    columns->fragmentation[i] = snapshot->fragmentation;
    columns->peak_bytes_in_use[i] = snapshot->peak_bytes_in_use;
    /* Activities beyond int8 are unknown values anyway; keep them unknown. */
    columns->activity[i] = (snapshot->activity >= INT8_MIN && snapshot->activity <= INT8_MAX)
                               ? (int8_t)snapshot->activity
                               : (int8_t)MEMORY_ACTIVITY_UNKNOWN;
    columns->requested_bytes[i] = snapshot->requested_bytes;
    columns->allocation_bytes[i] = snapshot->allocation_bytes;
    columns->address[i] = snapshot->address;
    columns->step_id[i] = snapshot->step_id;
    columns->op_name[i] = snapshot->op_name;
    columns->region_type[i] = snapshot->region_type;
    columns->data_type[i] = snapshot->data_type;
    columns->tensor_shape[i] = snapshot->tensor_shape;
}

void snapshot_columns_get(const struct snapshot_columns *columns, size_t index,
                          struct snapshot *out)
{
    *out = (struct snapshot){
        .time_ps = columns->time_ps[index],
        .stack_bytes = columns->stack_bytes[index],
        .heap_bytes = columns->heap_bytes[index],
        .free_bytes = columns->free_bytes[index],
        .fragmentation = columns->fragmentation[index],
        .peak_bytes_in_use = columns->peak_bytes_in_use[index],
        .activity = columns->activity[index],
        .requested_bytes = columns->requested_bytes[index],
        .allocation_bytes = columns->allocation_bytes[index],
        .address = columns->address[index],
        .step_id = columns->step_id[index],
        .op_name = columns->op_name[index],
        .region_type = columns->region_type[index],
        .data_type = columns->data_type[index],
        .tensor_shape = columns->tensor_shape[index],
    };
}

void snapshot_columns_free(struct snapshot_columns *columns)
{
    timeline_index_free(columns->index);
#define FREE(name) free(columns->name);
    FOR_EACH_COLUMN(FREE)
#undef FREE
    memset(columns, 0, sizeof *columns);
}

int64_t snapshot_columns_in_use(const struct snapshot_columns *columns, size_t index)
{
    return saturating_add(columns->stack_bytes[index], columns->heap_bytes[index]);
}

/* ---- the profile ---- */

const char *profile_text(const struct profile *profile, uint32_t string_id)
{
    return string_table_text(profile->strings, string_id);
}

const char *profile_format_name(enum profile_format format)
{
    return format == PROFILE_FORMAT_JSON ? "json" : "pb";
}

long profile_find_allocator(const struct profile *profile, const char *id)
{
    for (size_t i = 0; i < profile->allocator_count; i++)
        if (strcmp(profile_text(profile, profile->allocators[i].id), id) == 0)
            return (long)i;
    return -1;
}

static void allocator_free_raw(struct allocator *allocator)
{
    snapshot_columns_free(&allocator->raw_snapshots);
    snapshot_columns_free(&allocator->raw_sampled);
    snapshot_columns_free(&allocator->raw_specials);
    free(allocator->raw_active);
    allocator->raw_active = NULL;
    allocator->raw_active_count = allocator->raw_active_capacity = 0;
}

void profile_free(struct profile *profile)
{
    if (!profile)
        return;
    for (size_t i = 0; i < profile->allocator_count; i++) {
        struct allocator *allocator = &profile->allocators[i];
        snapshot_columns_free(&allocator->timeline);
        free(allocator->rows);
        allocator_free_raw(allocator);
    }
    free(profile->allocators);
    free(profile->hlo_modules);
    free(profile->raw_memory_ids);
    free(profile->raw_allocator_slots);
    string_table_free(profile->strings);
    free(profile->path);
    free(profile);
}

struct profile *profile_new(void)
{
    struct profile *profile = calloc(1, sizeof *profile);
    if (!profile)
        return NULL;
    profile->strings = string_table_new();
    if (!profile->strings) {
        free(profile);
        return NULL;
    }
    return profile;
}

/* Doubles *capacity (from `first`) until it exceeds count; false on
 * overflow or when memory runs out. */
static bool array_grow(void **array, size_t *capacity, size_t count, size_t element_size,
                       size_t first)
{
    if (count < *capacity)
        return true;
    size_t grown = *capacity ? *capacity * 2 : first;
    if (grown <= count)
        return false;
    if (!column_resize(array, element_size, grown))
        return false;
    *capacity = grown;
    return true;
}

static size_t allocator_slot_of(uint32_t string_id, size_t slot_count)
{
    return (size_t)(string_id * 2654435761u) & (slot_count - 1);
}

/* The index of the allocator whose memory id is string_id, or -1. */
static long profile_lookup_allocator(const struct profile *profile, uint32_t string_id)
{
    size_t slot_count = profile->raw_allocator_slot_count;
    if (slot_count == 0)
        return -1;
    for (size_t slot = allocator_slot_of(string_id, slot_count);
         profile->raw_allocator_slots[slot]; slot = (slot + 1) & (slot_count - 1)) {
        size_t index = profile->raw_allocator_slots[slot] - 1;
        if (profile->allocators[index].id == string_id)
            return (long)index;
    }
    return -1;
}

static void allocator_slots_place(uint32_t *slots, size_t slot_count, uint32_t string_id,
                                  size_t index)
{
    size_t slot = allocator_slot_of(string_id, slot_count);
    while (slots[slot])
        slot = (slot + 1) & (slot_count - 1);
    slots[slot] = (uint32_t)index + 1;
}

/* Makes room for one more allocator in the slots (load under one half). */
static bool profile_grow_allocator_slots(struct profile *profile)
{
    if ((profile->allocator_count + 1) * 2 <= profile->raw_allocator_slot_count)
        return true;
    if (profile->allocator_count >= UINT32_MAX / 2)
        return false;
    size_t slot_count = profile->raw_allocator_slot_count ? profile->raw_allocator_slot_count * 2
                                                          : 16;
    uint32_t *slots = calloc(slot_count, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i < profile->allocator_count; i++)
        allocator_slots_place(slots, slot_count, profile->allocators[i].id, i);
    free(profile->raw_allocator_slots);
    profile->raw_allocator_slots = slots;
    profile->raw_allocator_slot_count = slot_count;
    return true;
}

struct allocator *profile_add_allocator(struct profile *profile, const char *id, size_t id_length)
{
    uint32_t string_id = string_table_intern(profile->strings, id, id_length);
    if (string_id == STRING_ID_NONE)
        return NULL;
    long found = profile_lookup_allocator(profile, string_id);
    if (found >= 0)
        return &profile->allocators[found];
    if (!profile_grow_allocator_slots(profile) ||
        !array_grow((void **)&profile->allocators, &profile->allocator_capacity,
                    profile->allocator_count, sizeof *profile->allocators, 4))
        return NULL;
    size_t index = profile->allocator_count++;
    struct allocator *allocator = &profile->allocators[index];
    memset(allocator, 0, sizeof *allocator);
    allocator->id = string_id;
    allocator_slots_place(profile->raw_allocator_slots, profile->raw_allocator_slot_count,
                          string_id, index);
    return allocator;
}

bool profile_add_memory_id(struct profile *profile, const char *id, size_t id_length)
{
    uint32_t string_id = string_table_intern(profile->strings, id, id_length);
    if (string_id == STRING_ID_NONE)
        return false;
    if (!array_grow((void **)&profile->raw_memory_ids, &profile->raw_memory_id_capacity,
                    profile->raw_memory_id_count, sizeof *profile->raw_memory_ids, 4))
        return false;
    profile->raw_memory_ids[profile->raw_memory_id_count++] = string_id;
    return true;
}

bool profile_add_hlo_module(struct profile *profile, const struct hlo_module *module)
{
    if (!array_grow((void **)&profile->hlo_modules, &profile->hlo_module_capacity,
                    profile->hlo_module_count, sizeof *profile->hlo_modules, 16))
        return false;
    profile->hlo_modules[profile->hlo_module_count++] = *module;
    return true;
}

bool allocator_add_active(struct allocator *allocator, const struct active_allocation *active)
{
    if (!array_grow((void **)&allocator->raw_active, &allocator->raw_active_capacity,
                    allocator->raw_active_count, sizeof *allocator->raw_active, 16))
        return false;
    allocator->raw_active[allocator->raw_active_count++] = *active;
    return true;
}

void allocator_set_summary(struct allocator *allocator, int64_t capacity_bytes,
                           int64_t lifetime_peak_bytes, const struct memory_stats *peak,
                           int64_t peak_time_ps)
{
    struct allocator_summary *summary = &allocator->summary;
    summary->capacity_bytes = capacity_bytes;
    summary->lifetime_peak_bytes = lifetime_peak_bytes;
    summary->peak = *peak;
    summary->peak_time_ps = peak_time_ps;
    summary->peak_bytes = saturating_add(peak->stack_bytes, peak->heap_bytes);
    allocator->raw_has_summary = true;
}

/* ---- profile_finish ---- */

static void row_fill_from(struct allocation_row *row, const struct snapshot *source)
{
    row->allocation_bytes = source->allocation_bytes;
    row->requested_bytes = source->requested_bytes;
    row->op_name = source->op_name;
    row->region_type = source->region_type;
    row->data_type = source->data_type;
    row->tensor_shape = source->tensor_shape;
    row->step_id = source->step_id;
    row->address = source->address;
    row->activity = source->activity;
}

/* XProf's rows: a non-negative snapshot_index names a snapshot of
 * memory_profile_snapshots; a negative one means "special", and then
 * special_index names a special allocation. Anything else stays as an
 * unresolved row: a view must still show that the file listed it. */
static struct allocation_row row_resolve(const struct active_allocation *active,
                                         const struct snapshot_columns *targets,
                                         const struct snapshot_columns *specials)
{
    struct allocation_row row = {
        .origin = ROW_UNRESOLVED,
        .snapshot_index = active->snapshot_index,
        .special_index = active->special_index,
        .occurrences = active->occurrences,
    };
    struct snapshot source;
    if (active->snapshot_index >= 0 && (uint64_t)active->snapshot_index < targets->count) {
        snapshot_columns_get(targets, (size_t)active->snapshot_index, &source);
        row_fill_from(&row, &source);
        row.origin = ROW_FROM_SNAPSHOT;
        row.has_time = true;
        row.time_ps = source.time_ps;
    } else if (active->snapshot_index < 0 && active->special_index >= 0 &&
               (uint64_t)active->special_index < specials->count) {
        snapshot_columns_get(specials, (size_t)active->special_index, &source);
        row_fill_from(&row, &source);
        row.origin = ROW_FROM_SPECIAL;
    }
    return row;
}

static bool allocator_resolve_rows(struct allocator *allocator,
                                   const struct snapshot_columns *targets)
{
    if (allocator->raw_active_count == 0)
        return true;
    allocator->rows = calloc(allocator->raw_active_count, sizeof *allocator->rows);
    if (!allocator->rows)
        return false;
    for (size_t i = 0; i < allocator->raw_active_count; i++)
        allocator->rows[i] =
            row_resolve(&allocator->raw_active[i], targets, &allocator->raw_specials);
    allocator->row_count = allocator->raw_active_count;
    return true;
}

static bool timeline_is_sorted(const struct snapshot_columns *timeline)
{
    for (size_t i = 1; i < timeline->count; i++)
        if (timeline->time_ps[i] < timeline->time_ps[i - 1])
            return false;
    return true;
}

static bool snapshot_earlier(const void *context, size_t a, size_t b)
{
    const int64_t *time = context;
    return time[a] < time[b];
}

static bool timeline_sort(struct snapshot_columns *timeline)
{
    size_t count = timeline->count;
    size_t *order = malloc(count * sizeof *order);
    size_t *scratch = malloc(count * sizeof *scratch);
    struct snapshot_columns sorted = {0};
    bool ok = order && scratch && snapshot_columns_reserve(&sorted, count);
    if (ok) {
        for (size_t i = 0; i < count; i++)
            order[i] = i;
        index_sort_stable(order, scratch, count, snapshot_earlier, timeline->time_ps);
        struct snapshot snapshot;
        for (size_t i = 0; i < count; i++) {
            snapshot_columns_get(timeline, order[i], &snapshot);
            snapshot_columns_append(&sorted, &snapshot);
        }
        snapshot_columns_free(timeline);
        *timeline = sorted;
    } else {
        snapshot_columns_free(&sorted);
    }
    free(order);
    free(scratch);
    return ok;
}

static void allocator_count_activities(struct allocator *allocator)
{
    const struct snapshot_columns *timeline = &allocator->timeline;
    for (size_t i = 0; i < timeline->count; i++) {
        if (timeline->activity[i] == MEMORY_ACTIVITY_ALLOCATION)
            allocator->summary.allocations++;
        else if (timeline->activity[i] == MEMORY_ACTIVITY_DEALLOCATION)
            allocator->summary.deallocations++;
    }
}

/* The summary XProf would have written, for files that carry none. */
static void allocator_derive_summary(struct allocator *allocator)
{
    const struct snapshot_columns *timeline = &allocator->timeline;
    if (timeline->count == 0)
        return;
    size_t peak = 0;
    for (size_t i = 1; i < timeline->count; i++)
        if (snapshot_columns_in_use(timeline, i) >= snapshot_columns_in_use(timeline, peak))
            peak = i; /* a later snapshot wins ties, as in XProf */
    struct memory_stats stats = {
        .stack_bytes = timeline->stack_bytes[peak],
        .heap_bytes = timeline->heap_bytes[peak],
        .free_bytes = timeline->free_bytes[peak],
        .fragmentation = timeline->fragmentation[peak],
        .peak_bytes_in_use = snapshot_columns_in_use(timeline, peak),
    };
    allocator_set_summary(allocator, saturating_add(stats.peak_bytes_in_use, stats.free_bytes),
                          timeline->peak_bytes_in_use[timeline->count - 1], &stats,
                          timeline->time_ps[peak]);
    allocator->summary.derived = true;
}

static bool allocator_finish(struct allocator *allocator)
{
    /* Version 1 keeps the timeline in sampled_timeline_snapshots and only
     * the rows' targets in memory_profile_snapshots; version 0 has the
     * whole timeline in memory_profile_snapshots and rows point into it. */
    if (!allocator_resolve_rows(allocator, &allocator->raw_snapshots))
        return false;
    allocator->timeline_sampled = allocator->raw_sampled.count > 0;
    struct snapshot_columns *source = allocator->raw_sampled.count > 0
                                          ? &allocator->raw_sampled
                                          : &allocator->raw_snapshots;
    allocator->timeline = *source;
    memset(source, 0, sizeof *source);
    snapshot_columns_fit(&allocator->timeline);
    if (!timeline_is_sorted(&allocator->timeline) && !timeline_sort(&allocator->timeline))
        return false;
    allocator_count_activities(allocator);
    if (!allocator->raw_has_summary)
        allocator_derive_summary(allocator);
    allocator_free_raw(allocator);
    return timeline_index_build(&allocator->timeline);
}

/* Allocators in memory_ids order, then those it does not name. */
static bool profile_order_allocators(struct profile *profile)
{
    size_t count = profile->allocator_count;
    if (count == 0)
        return true;
    struct allocator *ordered = malloc(count * sizeof *ordered);
    bool *placed = calloc(count, sizeof *placed);
    if (!ordered || !placed) {
        free(ordered);
        free(placed);
        return false;
    }
    size_t next = 0;
    for (size_t m = 0; m < profile->raw_memory_id_count; m++) {
        long i = profile_lookup_allocator(profile, profile->raw_memory_ids[m]);
        if (i >= 0 && !placed[i]) {
            ordered[next++] = profile->allocators[i];
            placed[i] = true;
        }
    }
    for (size_t i = 0; i < count; i++)
        if (!placed[i])
            ordered[next++] = profile->allocators[i];
    free(placed);
    free(profile->allocators);
    profile->allocators = ordered;
    profile->allocator_capacity = count;
    return true;
}

bool profile_finish(struct profile *profile)
{
    for (size_t i = 0; i < profile->allocator_count; i++)
        if (!allocator_finish(&profile->allocators[i]))
            return false;
    if (!profile_order_allocators(profile))
        return false;
    free(profile->raw_memory_ids);
    profile->raw_memory_ids = NULL;
    profile->raw_memory_id_count = profile->raw_memory_id_capacity = 0;
    /* The slots hold indices of the file's order, which is gone now. */
    free(profile->raw_allocator_slots);
    profile->raw_allocator_slots = NULL;
    profile->raw_allocator_slot_count = 0;
    return true;
}
