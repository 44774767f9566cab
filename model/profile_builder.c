#include "config.h"

#include "model/profile_builder.h"
#include "model/profile_builder_internal.h"
#include "model/segments.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/util/array_grow.h"
#include "model/util/index_sort.h"
#include "model/util/saturating.h"

bool profile_builder_init(struct profile_builder *builder)
{
    memset(builder, 0, sizeof *builder);
    builder->profile = calloc(1, sizeof *builder->profile);
    if (!builder->profile)
        return false;
    builder->profile->strings = string_table_new();
    if (!builder->profile->strings) {
        free(builder->profile);
        builder->profile = NULL;
        return false;
    }
    return true;
}

void profile_builder_free_state(struct profile_builder *builder)
{
    free(builder->row_capacity);
    for (size_t i = 0; builder->live_at_finish && builder->profile &&
                       i < builder->profile->allocator_count;
         i++)
        free(builder->live_at_finish[i].live);
    free(builder->live_at_finish);
    free(builder->allocator_slots);
    free(builder->frame_stack_hashes);
    free(builder->frame_stack_slots);
    memset(builder, 0, sizeof *builder);
}

void profile_builder_discard(struct profile_builder *builder)
{
    struct profile *profile = builder->profile; /* the state's count of allocators first */
    profile_builder_free_state(builder);
    profile_free(profile);
}

struct string_table *profile_builder_strings(struct profile_builder *builder)
{
    return builder->profile->strings;
}

/* ---- allocators by memory id ---- */

static size_t allocator_slot_of(uint32_t string_id, size_t slot_count)
{
    return (size_t)(string_id * 2654435761u) & (slot_count - 1);
}

long profile_builder_find_allocator(const struct profile_builder *builder, uint32_t string_id)
{
    size_t slot_count = builder->allocator_slot_count;
    if (slot_count == 0)
        return -1;
    for (size_t slot = allocator_slot_of(string_id, slot_count); builder->allocator_slots[slot];
         slot = (slot + 1) & (slot_count - 1)) {
        size_t index = builder->allocator_slots[slot] - 1;
        if (builder->profile->allocators[index].id == string_id)
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
static bool profile_builder_grow_slots(struct profile_builder *builder)
{
    const struct profile *profile = builder->profile;
    if ((profile->allocator_count + 1) * 2 <= builder->allocator_slot_count)
        return true;
    if (profile->allocator_count >= UINT32_MAX / 2)
        return false;
    size_t slot_count = builder->allocator_slot_count ? builder->allocator_slot_count * 2 : 16;
    uint32_t *slots = calloc(slot_count, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i < profile->allocator_count; i++)
        allocator_slots_place(slots, slot_count, profile->allocators[i].id, i);
    free(builder->allocator_slots);
    builder->allocator_slots = slots;
    builder->allocator_slot_count = slot_count;
    return true;
}

/* Room for one more allocator and its row capacity. */
static bool profile_builder_grow_allocators(struct profile_builder *builder)
{
    struct profile *profile = builder->profile;
    size_t capacity = builder->allocator_capacity;
    if (!array_grow((void **)&profile->allocators, &capacity, profile->allocator_count,
                    sizeof *profile->allocators, 4))
        return false;
    size_t row_capacity = builder->allocator_capacity;
    if (!array_grow((void **)&builder->row_capacity, &row_capacity, profile->allocator_count,
                    sizeof *builder->row_capacity, 4))
        return false;
    size_t flag_capacity = builder->allocator_capacity;
    if (!array_grow((void **)&builder->live_at_finish, &flag_capacity, profile->allocator_count,
                    sizeof *builder->live_at_finish, 4))
        return false;
    if (row_capacity < capacity)
        capacity = row_capacity;
    builder->allocator_capacity = capacity < flag_capacity ? capacity : flag_capacity;
    return true;
}

bool profile_builder_allocator(struct profile_builder *builder, const char *id, size_t length,
                               size_t *index, bool *created)
{
    struct profile *profile = builder->profile;
    uint32_t string_id = string_table_intern(profile->strings, id, length);
    if (string_id == STRING_ID_NONE)
        return false;
    long found = profile_builder_find_allocator(builder, string_id);
    *created = found < 0;
    if (found >= 0) {
        *index = (size_t)found;
        return true;
    }
    if (!profile_builder_grow_slots(builder) || !profile_builder_grow_allocators(builder))
        return false;
    *index = profile->allocator_count++;
    memset(&profile->allocators[*index], 0, sizeof profile->allocators[*index]);
    profile->allocators[*index].id = string_id;
    builder->row_capacity[*index] = 0;
    builder->live_at_finish[*index] = (struct live_at_finish){0};
    allocator_slots_place(builder->allocator_slots, builder->allocator_slot_count, string_id,
                          *index);
    return true;
}

/* ---- timelines ---- */

bool profile_builder_append_snapshot(struct profile_builder *builder, size_t index,
                                     const struct snapshot *snapshot)
{
    return snapshot_columns_append(&builder->profile->allocators[index].timeline, snapshot);
}

struct snapshot_columns *profile_builder_timeline(struct profile_builder *builder, size_t index)
{
    return &builder->profile->allocators[index].timeline;
}

void profile_builder_set_timeline(struct profile_builder *builder, size_t index,
                                  struct snapshot_columns *columns)
{
    struct snapshot_columns *timeline = &builder->profile->allocators[index].timeline;
    snapshot_columns_free(timeline);
    *timeline = *columns;
    memset(columns, 0, sizeof *columns);
}

void profile_builder_set_timeline_kind(struct profile_builder *builder, size_t index,
                                       enum timeline_kind kind)
{
    builder->profile->allocators[index].timeline_kind = kind;
}

void profile_builder_set_unknown_fields(struct profile_builder *builder, size_t index,
                                        unsigned fields)
{
    builder->profile->allocators[index].unknown_fields = fields;
}

void profile_builder_set_caching(struct profile_builder *builder, size_t index)
{
    builder->profile->allocators[index].caching = true;
}

static bool snapshot_earlier(const void *context, size_t a, size_t b)
{
    const struct snapshot_columns *timeline = context;
    return snapshot_columns_time(timeline, a) < snapshot_columns_time(timeline, b);
}

static bool timeline_sort(struct snapshot_columns *timeline)
{
    size_t count = timeline->count;
    size_t *order = malloc(count * sizeof *order);
    size_t *scratch = malloc(count * sizeof *scratch);
    struct snapshot_columns sorted = {0};
    bool ok = order && scratch && snapshot_columns_reserve(&sorted, count) &&
              (!snapshot_columns_has_context(timeline) ||
               snapshot_columns_enable_context(&sorted)) &&
              (!(timeline->site || timeline->key) || snapshot_columns_enable_site(&sorted));
    /* A timeline without the peak column keeps what it read in file
     * order (the running maximum then), found in one pass, not for each. */
    int64_t *peaks = ok && !timeline->peak_bytes_in_use ? malloc(count * sizeof *peaks) : NULL;
    ok = ok && (timeline->peak_bytes_in_use || peaks);
    if (ok) {
        for (size_t i = 0; peaks && i < count; i++) {
            int64_t in_use = snapshot_columns_in_use(timeline, i);
            peaks[i] = i == 0 ? snapshot_columns_peak_bytes_in_use(timeline, 0)
                              : (in_use > peaks[i - 1] ? in_use : peaks[i - 1]);
        }
        for (size_t i = 0; i < count; i++)
            order[i] = i;
        index_sort_stable(order, scratch, count, snapshot_earlier, timeline);
        struct snapshot snapshot;
        for (size_t i = 0; i < count; i++) {
            snapshot_columns_get_unpeaked(timeline, order[i], &snapshot);
            snapshot.peak_bytes_in_use = peaks ? peaks[order[i]]
                                               : timeline->peak_bytes_in_use[order[i]];
            snapshot_columns_append(&sorted, &snapshot);
        }
        snapshot_columns_free(timeline);
        *timeline = sorted;
    } else {
        snapshot_columns_free(&sorted);
    }
    free(order);
    free(scratch);
    free(peaks);
    return ok;
}

bool profile_builder_timeline_sorted(struct snapshot_columns *timeline)
{
    return snapshot_columns_times_sorted(timeline) || timeline_sort(timeline);
}

bool profile_builder_sort_timeline(struct profile_builder *builder, size_t index)
{
    return profile_builder_timeline_sorted(&builder->profile->allocators[index].timeline);
}

/* ---- rows, summaries, the rest ---- */

bool profile_builder_reserve_rows(struct profile_builder *builder, size_t index, size_t count)
{
    struct allocator *allocator = &builder->profile->allocators[index];
    if (count > SIZE_MAX / sizeof *allocator->rows - allocator->row_count)
        return false;
    size_t wanted = allocator->row_count + count;
    if (wanted <= builder->row_capacity[index])
        return true;
    struct allocation_row *rows = realloc(allocator->rows, wanted * sizeof *rows);
    if (!rows)
        return false;
    allocator->rows = rows;
    builder->row_capacity[index] = wanted;
    return true;
}

bool profile_builder_add_row(struct profile_builder *builder, size_t index,
                             const struct allocation_row *row)
{
    struct allocator *allocator = &builder->profile->allocators[index];
    if (!array_grow((void **)&allocator->rows, &builder->row_capacity[index], allocator->row_count,
                    sizeof *allocator->rows, 16))
        return false;
    allocator->rows[allocator->row_count++] = *row;
    return true;
}

bool profile_builder_add_oom(struct profile_builder *builder, size_t index,
                             const struct oom_event *oom)
{
    struct allocator *allocator = &builder->profile->allocators[index];
    size_t count = allocator->oom_count;
    /* Few per file: the capacity is the count rounded up to a power of
     * two, so it needs no field of its own. */
    if ((count & (count - 1)) == 0) {
        if (count > SIZE_MAX / 2 / sizeof *allocator->ooms)
            return false;
        struct oom_event *grown =
            realloc(allocator->ooms, (count ? count * 2 : 1) * sizeof *grown);
        if (!grown)
            return false;
        allocator->ooms = grown;
    }
    allocator->ooms[allocator->oom_count++] = *oom;
    return true;
}

/* Appends to an allocator's list whose capacity is its count rounded up
 * to a power of two (these lists are filled once, by one loader). */
static bool append_pow2(void **list, size_t *count, size_t size, const void *value)
{
    if ((*count & (*count - 1)) == 0) {
        if (*count > SIZE_MAX / 2 / size)
            return false;
        void *grown = realloc(*list, (*count ? *count * 2 : 1) * size);
        if (!grown)
            return false;
        *list = grown;
    }
    memcpy((char *)*list + *count * size, value, size);
    (*count)++;
    return true;
}

bool profile_builder_add_note(struct profile_builder *builder, size_t index,
                              const struct allocator_note *note)
{
    struct allocator *allocator = &builder->profile->allocators[index];
    return append_pow2((void **)&allocator->notes, &allocator->note_count, sizeof *note, note);
}

bool profile_builder_add_memory_block(struct profile_builder *builder, size_t index,
                                      const struct memory_block *block)
{
    struct allocator *allocator = &builder->profile->allocators[index];
    return append_pow2((void **)&allocator->memory_map, &allocator->memory_map_count,
                       sizeof *block, block);
}

void profile_builder_set_summary(struct profile_builder *builder, size_t index,
                                 const struct allocator_summary *summary)
{
    struct allocator_summary *target = &builder->profile->allocators[index].summary;
    size_t allocations = target->allocations, deallocations = target->deallocations;
    *target = *summary;
    target->allocations = allocations;
    target->deallocations = deallocations;
    target->peak_bytes = saturating_add(summary->peak.stack_bytes, summary->peak.heap_bytes);
}

bool profile_builder_add_hlo_module(struct profile_builder *builder,
                                    const struct hlo_module *module)
{
    struct profile *profile = builder->profile;
    if (!array_grow((void **)&profile->hlo_modules, &builder->hlo_module_capacity,
                    profile->hlo_module_count, sizeof *profile->hlo_modules, 16))
        return false;
    profile->hlo_modules[profile->hlo_module_count++] = *module;
    return true;
}

bool profile_builder_restart(struct profile_builder *builder)
{
    const struct profile *old = builder->profile;
    char *path = old && old->path ? strdup(old->path) : NULL;
    if (old && old->path && !path)
        return false;
    const struct input_format *format = old ? old->format : NULL;
    bool gzipped = old && old->gzipped;
    uint64_t file_bytes = old ? old->file_bytes : 0;
    profile_builder_discard(builder);
    bool ok = profile_builder_init(builder) &&
              (!path || profile_builder_set_source(builder, path, format, gzipped, file_bytes));
    free(path);
    return ok;
}

bool profile_builder_set_source(struct profile_builder *builder, const char *path,
                                const struct input_format *format, bool gzipped,
                                uint64_t file_bytes)
{
    struct profile *profile = builder->profile;
    char *copy = strdup(path ? path : "");
    if (!copy)
        return false;
    free(profile->path);
    profile->path = copy;
    profile->format = format;
    profile->gzipped = gzipped;
    profile->file_bytes = file_bytes;
    return true;
}

void profile_builder_set_version(struct profile_builder *builder, int32_t version,
                                 int32_t num_hosts)
{
    builder->profile->version = version;
    builder->profile->version_known = true;
    builder->profile->num_hosts = num_hosts;
}

/* Warnings live in the profile's strings, with their length. */
bool profile_builder_append_warning(struct profile_builder *builder, struct text text)
{
    struct profile *profile = builder->profile;
    uint32_t id = string_table_intern(profile->strings, text.bytes, text.length);
    if (id == STRING_ID_NONE ||
        !array_grow((void **)&profile->warnings, &builder->warning_capacity,
                    profile->warning_count, sizeof *profile->warnings, 4))
        return false;
    profile->warnings[profile->warning_count++] = id;
    return true;
}

bool profile_builder_add_warning_bytes(struct profile_builder *builder, struct text text)
{
    if (builder->profile->warning_count >= PROFILE_WARNINGS_MAX) {
        builder->warnings_dropped++;
        return true;
    }
    return profile_builder_append_warning(builder, text);
}

bool profile_builder_add_warning(struct profile_builder *builder, const char *text)
{
    return profile_builder_add_warning_bytes(builder, text_of(text));
}

/* order[i]: the index of the allocator that comes i-th. */
static void allocator_order(const struct profile_builder *builder, const uint32_t *ids,
                            size_t count, size_t *order, bool *placed)
{
    size_t allocators = builder->profile->allocator_count, next = 0;
    for (size_t m = 0; m < count; m++) {
        long i = profile_builder_find_allocator(builder, ids[m]);
        if (i >= 0 && !placed[i]) {
            order[next++] = (size_t)i;
            placed[i] = true;
        }
    }
    for (size_t i = 0; i < allocators; i++)
        if (!placed[i])
            order[next++] = i;
}

bool profile_builder_order_allocators(struct profile_builder *builder, const uint32_t *ids,
                                      size_t count)
{
    struct profile *profile = builder->profile;
    size_t allocators = profile->allocator_count;
    if (allocators == 0)
        return true;
    struct allocator *ordered = malloc(allocators * sizeof *ordered);
    size_t *row_capacity = malloc(allocators * sizeof *row_capacity);
    struct live_at_finish *live_at_finish = malloc(allocators * sizeof *live_at_finish);
    size_t *order = malloc(allocators * sizeof *order);
    bool *placed = calloc(allocators, sizeof *placed);
    bool ok = ordered && row_capacity && live_at_finish && order && placed;
    if (ok) {
        allocator_order(builder, ids, count, order, placed);
        for (size_t i = 0; i < allocators; i++) {
            ordered[i] = profile->allocators[order[i]];
            row_capacity[i] = builder->row_capacity[order[i]];
            live_at_finish[i] = builder->live_at_finish[order[i]];
        }
        free(profile->allocators);
        free(builder->row_capacity);
        free(builder->live_at_finish);
        profile->allocators = ordered;
        builder->row_capacity = row_capacity;
        builder->live_at_finish = live_at_finish;
        builder->allocator_capacity = allocators;
        /* The slots hold the old indices: placed again in the new order. */
        memset(builder->allocator_slots, 0, builder->allocator_slot_count * sizeof(uint32_t));
        for (size_t i = 0; i < allocators; i++)
            allocator_slots_place(builder->allocator_slots, builder->allocator_slot_count,
                                  ordered[i].id, i);
    } else {
        free(ordered);
        free(row_capacity);
        free(live_at_finish);
    }
    free(order);
    free(placed);
    return ok;
}

bool profile_builder_add_site(struct profile_builder *builder, const struct frame_site *site,
                              uint32_t *index)
{
    struct profile *profile = builder->profile;
    if (profile->site_count == 0) {
        /* Site 0 is no place. */
        if (!array_grow((void **)&profile->sites, &builder->site_capacity, 0,
                        sizeof *profile->sites, 64))
            return false;
        profile->sites[profile->site_count++] = (struct frame_site){0};
    }
    if (profile->site_count >= UINT32_MAX ||
        !array_grow((void **)&profile->sites, &builder->site_capacity, profile->site_count,
                    sizeof *profile->sites, 64))
        return false;
    *index = (uint32_t)profile->site_count;
    profile->sites[profile->site_count++] = *site;
    return true;
}

bool profile_builder_add_span(struct profile_builder *builder, const struct time_span *span)
{
    struct profile *profile = builder->profile;
    if (!array_grow((void **)&profile->spans, &builder->span_capacity, profile->span_count,
                    sizeof *profile->spans, 64))
        return false;
    profile->spans[profile->span_count++] = *span;
    return true;
}

void profile_builder_set_rows_kind(struct profile_builder *builder, size_t index,
                                   enum allocator_rows kind)
{
    builder->profile->allocators[index].rows_kind = kind;
}

void profile_builder_make_live_rows(struct profile_builder *builder, size_t index)
{
    builder->live_at_finish[index].asked = true;
}

void profile_builder_hint_peak_live(struct profile_builder *builder, size_t index, size_t end,
                                    uint32_t *live, size_t count)
{
    struct live_at_finish *finish = &builder->live_at_finish[index];
    free(finish->live);
    *finish = (struct live_at_finish){finish->asked, end, live, count};
}

bool profile_builder_set_initial_allocations(struct profile_builder *builder, size_t index,
                                             const struct allocation_row *rows, size_t count)
{
    struct allocator *allocator = &builder->profile->allocators[index];
    struct allocation_row *initial = NULL;
    if (count > 0) {
        if (count > SIZE_MAX / sizeof *initial || !(initial = malloc(count * sizeof *initial)))
            return false;
        for (size_t k = 0; k < count; k++) {
            initial[k] = rows[k];
            initial[k].origin = ROW_FROM_SPECIAL;
            initial[k].snapshot_index = -1;
            initial[k].special_index = (int64_t)k;
            initial[k].occurrences = 1;
            initial[k].activity = MEMORY_ACTIVITY_ALLOCATION;
            initial[k].has_time = false;
            initial[k].time_ps = 0;
        }
    }
    free(allocator->initial);
    allocator->initial = initial;
    allocator->initial_count = count;
    return true;
}

bool profile_builder_set_allocation_blocks(struct profile_builder *builder, size_t index,
                                           const struct allocation_block *blocks, size_t count)
{
    struct allocator *allocator = &builder->profile->allocators[index];
    struct allocation_block *copy = NULL;
    if (count > 0) {
        if (count > SIZE_MAX / sizeof *copy || !(copy = malloc(count * sizeof *copy)))
            return false;
        memcpy(copy, blocks, count * sizeof *copy);
    }
    free(allocator->allocation_blocks);
    allocator->allocation_blocks = copy;
    allocator->allocation_block_count = count;
    return true;
}

void profile_builder_set_live_rows(struct profile_builder *builder, size_t index,
                                   size_t live_allocations)
{
    builder->profile->allocators[index].rows_kind = ALLOCATOR_ROWS_LIVE;
    builder->profile->allocators[index].live_allocations = live_allocations;
}

void profile_builder_set_segments(struct profile_builder *builder, size_t index,
                                  struct segment_history *history)
{
    struct allocator *allocator = &builder->profile->allocators[index];
    segment_history_free(allocator->segments);
    allocator->segments = history;
}
