#include "config.h"

#include "model/formats/memory_profile/xprof_draft.h"

#include <stdlib.h>
#include <string.h>

#include "model/util/array_grow.h"
#include "model/input_format.h"
#include "model/message_text.h"
#include "model/util/saturating.h"

bool xprof_draft_init(struct xprof_draft *draft, struct profile_builder *builder)
{
    memset(draft, 0, sizeof *draft);
    draft->builder = builder;
    return true;
}

static void xprof_allocator_free(struct xprof_allocator *allocator)
{
    snapshot_columns_free(&allocator->snapshots);
    snapshot_columns_free(&allocator->sampled);
    snapshot_columns_free(&allocator->specials);
    free(allocator->active);
    memset(allocator, 0, sizeof *allocator);
}

void xprof_draft_free(struct xprof_draft *draft)
{
    for (size_t i = 0; i < draft->allocator_count; i++)
        xprof_allocator_free(&draft->allocators[i]);
    free(draft->allocators);
    free(draft->memory_ids);
    struct profile_builder *builder = draft->builder;
    memset(draft, 0, sizeof *draft);
    draft->builder = builder;
}

struct string_table *xprof_draft_strings(struct xprof_draft *draft)
{
    return profile_builder_strings(draft->builder);
}

uint32_t xprof_draft_intern(struct xprof_draft *draft, const char *text, size_t length)
{
    return string_table_intern(xprof_draft_strings(draft), text, length);
}

/* The pieces of the builder's allocator `index`, made when it is new. */
static struct xprof_allocator *xprof_draft_pieces(struct xprof_draft *draft, size_t index,
                                                  bool created)
{
    if (created) {
        size_t capacity = draft->allocator_capacity;
        if (!array_grow((void **)&draft->allocators, &capacity, index,
                        sizeof *draft->allocators, 4))
            return NULL;
        draft->allocator_capacity = capacity;
        memset(&draft->allocators[index], 0, sizeof draft->allocators[index]);
        draft->allocator_count = index + 1;
    }
    return &draft->allocators[index];
}

struct xprof_allocator *xprof_draft_allocator(struct xprof_draft *draft, const char *id,
                                              size_t length)
{
    size_t index;
    bool created;
    if (!profile_builder_allocator(draft->builder, id, length, &index, &created))
        return NULL;
    return xprof_draft_pieces(draft, index, created);
}

/* "the file repeats map key "A"; ...", once per key, the key raw (the
 * printer escapes it). */
static bool xprof_draft_warn_repeated(struct xprof_draft *draft, const char *id, size_t length)
{
    char line[LOAD_ERROR_SIZE];
    struct message_text message;
    message_text_start(&message, line, sizeof line);
    message_text_append_text(&message, "the file repeats map key \"");
    message_text_append_cut(&message, text_make(id, length), 64);
    message_text_append_text(&message, "\"; the last entry wins, as protobuf reads it");
    return profile_builder_add_warning_bytes(draft->builder, message_text_get(&message));
}

struct xprof_allocator *xprof_draft_begin_entry(struct xprof_draft *draft, const char *id,
                                                size_t length, size_t *index)
{
    bool created;
    if (!profile_builder_allocator(draft->builder, id, length, index, &created))
        return NULL;
    struct xprof_allocator *allocator = xprof_draft_pieces(draft, *index, created);
    if (!allocator || created)
        return allocator;
    bool warned = allocator->repeated;
    xprof_allocator_free(allocator);
    allocator->repeated = true;
    if (!warned && !xprof_draft_warn_repeated(draft, id, length))
        return NULL;
    return allocator;
}

bool xprof_allocator_add_active(struct xprof_allocator *allocator,
                                const struct active_allocation *active)
{
    if (!array_grow((void **)&allocator->active, &allocator->active_capacity,
                    allocator->active_count, sizeof *allocator->active, 16))
        return false;
    allocator->active[allocator->active_count++] = *active;
    return true;
}

void xprof_allocator_set_summary(struct xprof_allocator *allocator, int64_t capacity_bytes,
                                 int64_t lifetime_peak_bytes, const struct memory_stats *peak,
                                 int64_t peak_time_ps)
{
    struct allocator_summary *summary = &allocator->summary;
    summary->capacity_bytes = capacity_bytes;
    summary->lifetime_peak_bytes = lifetime_peak_bytes;
    summary->peak = *peak;
    summary->peak_time_ps = peak_time_ps;
    summary->peak_bytes = saturating_add(peak->stack_bytes, peak->heap_bytes);
    allocator->has_summary = true;
}

bool xprof_draft_add_memory_id(struct xprof_draft *draft, const char *id, size_t length)
{
    uint32_t string_id = xprof_draft_intern(draft, id, length);
    if (string_id == STRING_ID_NONE ||
        !array_grow((void **)&draft->memory_ids, &draft->memory_id_capacity,
                    draft->memory_id_count, sizeof *draft->memory_ids, 4))
        return false;
    draft->memory_ids[draft->memory_id_count++] = string_id;
    return true;
}

bool xprof_draft_add_hlo_module(struct xprof_draft *draft, const struct hlo_module *module)
{
    return profile_builder_add_hlo_module(draft->builder, module);
}

/* ---- XProf's finishing ---- */

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
    row->context = source->context;
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

/* Rows point into memory_profile_snapshots in the file's order. */
static bool xprof_finish_rows(struct xprof_draft *draft, size_t index)
{
    const struct xprof_allocator *pieces = &draft->allocators[index];
    if (!profile_builder_reserve_rows(draft->builder, index, pieces->active_count))
        return false;
    for (size_t i = 0; i < pieces->active_count; i++) {
        struct allocation_row row =
            row_resolve(&pieces->active[i], &pieces->snapshots, &pieces->specials);
        if (!profile_builder_add_row(draft->builder, index, &row))
            return false;
    }
    return true;
}

/* The summary XProf would have written, for files that carry none: the
 * peak of stack + heap over the time-sorted timeline. */
static void xprof_derive_summary(struct xprof_draft *draft, size_t index)
{
    const struct snapshot_columns *timeline = profile_builder_timeline(draft->builder, index);
    if (timeline->count == 0)
        return;
    size_t peak = 0;
    for (size_t i = 1; i < timeline->count; i++)
        if (snapshot_columns_in_use(timeline, i) >= snapshot_columns_in_use(timeline, peak))
            peak = i; /* a later snapshot wins ties, as in XProf */
    struct allocator_summary summary = {
        .peak = {
            .stack_bytes = timeline->stack_bytes[peak],
            .heap_bytes = timeline->heap_bytes[peak],
            .free_bytes = snapshot_columns_free_bytes(timeline, peak),
            .fragmentation = timeline->fragmentation[peak],
            .peak_bytes_in_use = snapshot_columns_in_use(timeline, peak),
        },
        .lifetime_peak_bytes = snapshot_columns_peak_bytes_in_use(timeline, timeline->count - 1),
        .peak_time_ps = snapshot_columns_time(timeline, peak),
        .derived = true,
    };
    summary.capacity_bytes = saturating_add(summary.peak.peak_bytes_in_use,
                                            summary.peak.free_bytes);
    profile_builder_set_summary(draft->builder, index, &summary);
}

static bool xprof_finish_allocator(struct xprof_draft *draft, size_t index)
{
    struct xprof_allocator *pieces = &draft->allocators[index];
    if (!xprof_finish_rows(draft, index))
        return false;
    profile_builder_set_rows_kind(draft->builder, index, ALLOCATOR_ROWS_XPROF);
    /* Version 1 keeps the timeline in sampled_timeline_snapshots and only
     * the rows' targets in memory_profile_snapshots; version 0 has the
     * whole timeline in memory_profile_snapshots and rows point into it. */
    bool sampled = pieces->sampled.count > 0;
    profile_builder_set_timeline(draft->builder, index,
                                 sampled ? &pieces->sampled : &pieces->snapshots);
    profile_builder_set_timeline_kind(draft->builder, index,
                                      sampled ? TIMELINE_SAMPLED : TIMELINE_COMPLETE);
    if (pieces->has_summary)
        profile_builder_set_summary(draft->builder, index, &pieces->summary);
    else if (profile_builder_sort_timeline(draft->builder, index))
        xprof_derive_summary(draft, index);
    else
        return false;
    xprof_allocator_free(pieces);
    return true;
}

bool xprof_draft_finish(struct xprof_draft *draft)
{
    struct profile_builder *builder = draft->builder;
    bool ok = true;
    for (size_t i = 0; ok && i < builder->profile->allocator_count; i++)
        ok = xprof_finish_allocator(draft, i);
    profile_builder_set_version(builder, draft->version, draft->num_hosts);
    if (ok)
        ok = profile_builder_order_allocators(builder, draft->memory_ids, draft->memory_id_count);
    xprof_draft_free(draft);
    return ok;
}

enum load_status xprof_draft_load(const struct load_input *input, struct profile_builder *builder,
                                  xprof_reader_fn read, struct load_error *error)
{
    struct xprof_draft draft;
    xprof_draft_init(&draft, builder);
    enum load_status status = read(input->bytes, input->size, &draft, input->tracker, error);
    if (status != LOAD_OK) {
        xprof_draft_free(&draft);
        return status;
    }
    if (!xprof_draft_finish(&draft)) {
        load_error_set(error, "out of memory");
        return LOAD_NO_MEMORY;
    }
    return LOAD_OK;
}
