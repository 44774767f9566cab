/* load_protobuf: the binary MemoryProfile loader, its outer messages.
 *
 * The MemoryProfile, its memory_profile_per_allocator map and each
 * PerAllocatorMemoryProfile are walked straight from the input bytes into
 * an xprof_draft (model/xprof_draft.h), which XProf's finishing then turns
 * into the profile. protobuf-c is not used here: 1.4 replaces a repeated
 * singular submessage instead of merging it, and cuts strings at NUL; it
 * is the tests' reference.
 *
 * Protobuf rules honoured: unknown fields are skipped, a later scalar wins,
 * a repeated submessage is merged, a map key given again starts its
 * allocator afresh (the last entry wins), a known field with the wrong wire
 * type is refused. Every error names its byte offset in the input.
 *
 * For big files: strings are interned with a hint naming their field (see
 * string_table_intern_hinted), the bytes read are released behind the
 * reader (see struct load_tracker), so the mapped file is never resident
 * as a whole, and a long snapshot list is decoded on two threads
 * (load_protobuf_split.c). */
#include "config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/input_format.h"
#include "model/formats/memory_profile/memory_profile_internal.h"

enum load_status protobuf_fail_memory(struct protobuf_loader *loader, size_t offset)
{
    load_error_at(loader->wire.error, offset, "out of memory");
    return LOAD_NO_MEMORY;
}

/* ---- the tables of the small messages ---- */

/* MemoryProfileSummary, into struct allocator_summary. */
static const struct protobuf_field_spec summary_fields[] = {
    [1] = PROTOBUF_FIELD(PROTOBUF_INT64, "peak_bytes_usage_lifetime", struct allocator_summary,
                         lifetime_peak_bytes),
    [2] = PROTOBUF_SUBMESSAGE_AT("peak_stats", protobuf_stats_message,
                                 offsetof(struct allocator_summary, peak)),
    [3] = PROTOBUF_FIELD(PROTOBUF_INT64, "peak_stats_time_ps", struct allocator_summary,
                         peak_time_ps),
    [4] = PROTOBUF_FIELD(PROTOBUF_INT64, "memory_capacity", struct allocator_summary,
                         capacity_bytes),
};
static const struct protobuf_message_spec summary_message = PROTOBUF_MESSAGE_SPEC(summary_fields);

static const struct protobuf_field_spec active_fields[] = {
    [1] = PROTOBUF_FIELD(PROTOBUF_INT64, "snapshot_index", struct active_allocation,
                         snapshot_index),
    [2] = PROTOBUF_FIELD(PROTOBUF_INT64, "special_index", struct active_allocation,
                         special_index),
    [3] = PROTOBUF_FIELD(PROTOBUF_INT64, "num_occurrences", struct active_allocation,
                         occurrences),
};
static const struct protobuf_message_spec active_message = PROTOBUF_MESSAGE_SPEC(active_fields);

static const struct protobuf_field_spec hlo_module_fields[] = {
    [1] = PROTOBUF_FIELD(PROTOBUF_STRING, "name", struct hlo_module, name),
    [2] = PROTOBUF_FIELD(PROTOBUF_INT64, "start_time_ps", struct hlo_module, start_time_ps),
    [3] = PROTOBUF_FIELD(PROTOBUF_INT64, "end_time_ps", struct hlo_module, end_time_ps),
    [4] = PROTOBUF_FIELD(PROTOBUF_INT64, "id", struct hlo_module, id),
    [5] = PROTOBUF_FIELD(PROTOBUF_STRING, "plane_name", struct hlo_module, plane_name),
};
static const struct protobuf_message_spec hlo_module_message =
    PROTOBUF_MESSAGE_SPEC(hlo_module_fields);

static enum load_status protobuf_read_message(struct protobuf_loader *loader,
                                              const struct wire_field *field,
                                              const struct protobuf_message_spec *message,
                                              void *target)
{
    return protobuf_table_read(&loader->wire, loader->strings, field->start, field->end, message,
                               target);
}

/* ---- the PerAllocatorMemoryProfile fields ---- */

/* Appends one MemoryProfileSnapshot (special false) or one
 * MemoryActivityMetadata (special: time and stats 0). */
static enum load_status protobuf_append_snapshot(struct protobuf_loader *loader,
                                                 const struct wire_field *field, bool special,
                                                 struct snapshot_columns *columns)
{
    struct snapshot snapshot = { 0 };
    enum load_status status =
        special ? protobuf_read_message(loader, field, &protobuf_metadata_message, &snapshot)
                : protobuf_read_snapshot(loader, field->start, field->end, &snapshot);
    if (status != LOAD_OK)
        return status;
    if (!snapshot_columns_append(columns, &snapshot))
        return protobuf_fail_memory(loader, field->offset);
    return LOAD_OK;
}

/* A profile_summary seen again in the same entry merges into the one
 * before, as protobuf merges a repeated submessage. */
static enum load_status protobuf_read_summary(struct protobuf_loader *loader,
                                              struct xprof_allocator *allocator,
                                              const struct wire_field *field)
{
    struct allocator_summary summary = { 0 };
    if (allocator->has_summary)
        summary = allocator->summary;
    enum load_status status = protobuf_read_message(loader, field, &summary_message, &summary);
    if (status != LOAD_OK)
        return status;
    xprof_allocator_set_summary(allocator, summary.capacity_bytes, summary.lifetime_peak_bytes,
                                &summary.peak, summary.peak_time_ps);
    return LOAD_OK;
}

static enum load_status protobuf_read_active(struct protobuf_loader *loader,
                                             struct xprof_allocator *allocator,
                                             const struct wire_field *field)
{
    struct active_allocation active = { 0 };
    enum load_status status = protobuf_read_message(loader, field, &active_message, &active);
    if (status != LOAD_OK)
        return status;
    if (!xprof_allocator_add_active(allocator, &active))
        return protobuf_fail_memory(loader, field->offset);
    return LOAD_OK;
}

static enum load_status protobuf_read_hlo_module(struct protobuf_loader *loader,
                                                 const struct wire_field *field)
{
    struct hlo_module module = { 0 };
    enum load_status status = protobuf_read_message(loader, field, &hlo_module_message, &module);
    if (status != LOAD_OK)
        return status;
    if (!xprof_draft_add_hlo_module(loader->draft, &module))
        return protobuf_fail_memory(loader, field->offset);
    return LOAD_OK;
}

/* ---- PerAllocatorMemoryProfile ---- */

static const char *const allocator_field_names[] = {
    [1] = "memory_profile_snapshots",
    [2] = "profile_summary",
    [3] = "active_allocations",
    [4] = "special_allocations",
    [5] = "sampled_timeline_snapshots",
};

static enum load_status protobuf_read_allocator_field(struct protobuf_loader *loader,
                                                      size_t index,
                                                      const struct wire_field *field)
{
    struct xprof_allocator *allocator = &loader->draft->allocators[index];
    switch (field->number) {
    case 1:
        return protobuf_append_snapshot(loader, field, false, &allocator->snapshots);
    case 2:
        return protobuf_read_summary(loader, allocator, field);
    case 3:
        return protobuf_read_active(loader, allocator, field);
    case 4:
        return protobuf_append_snapshot(loader, field, true, &allocator->specials);
    case 5:
        return protobuf_append_snapshot(loader, field, false, &allocator->sampled);
    default:
        return LOAD_OK;
    }
}

/* One PerAllocatorMemoryProfile, merged into allocator `index`, every
 * field in file order; the worker (if one starts) takes the list's entries
 * from the middle on. */
static enum load_status protobuf_read_allocator(struct protobuf_loader *loader, size_t index,
                                                size_t position, size_t end)
{
    struct protobuf_worker *worker = protobuf_worker_start(loader, index, position, end);
    struct protobuf_taken taken = { 0 };
    struct wire_field field;
    enum load_status status = LOAD_OK;
    while (status == LOAD_OK && position < end) {
        status = wire_read_field(&loader->wire, &position, end, &field);
        if (status != LOAD_OK || field.number > 5)
            continue;
        if (field.number == taken.number && field.offset >= taken.from &&
            field.offset < taken.to)
            continue;
        if (worker && field.number == worker->number) {
            if (field.offset >= worker->middle) {
                position = protobuf_worker_hand_over(loader, worker, field.offset, &taken);
                worker = NULL;
                continue;
            }
            /* Growing the columns would move them under the worker. */
            if (worker->columns->count == worker->capacity) {
                protobuf_worker_cancel(worker);
                worker = NULL;
            }
        }
        status = wire_expect(&loader->wire, &field, WIRE_LENGTH,
                             allocator_field_names[field.number]);
        if (status == LOAD_OK)
            status = protobuf_read_allocator_field(loader, index, &field);
        protobuf_track(loader, worker, position);
    }
    if (worker)
        protobuf_worker_cancel(worker);
    return status;
}

/* ---- MemoryProfile ---- */

/* The map entry's key (field 1, the last one wins; "" when missing), found
 * first because the value may come before it. */
static enum load_status protobuf_find_map_key(const struct wire *wire, size_t position,
                                              size_t end, size_t *key_start, size_t *key_end)
{
    struct wire_field field;
    *key_start = *key_end = position;
    while (position < end) {
        enum load_status status = wire_read_field(wire, &position, end, &field);
        if (status == LOAD_OK && field.number == 1)
            status = wire_expect(wire, &field, WIRE_LENGTH, "key");
        else if (status == LOAD_OK && field.number == 2)
            status = wire_expect(wire, &field, WIRE_LENGTH, "value");
        if (status != LOAD_OK)
            return status;
        if (field.number == 1) {
            *key_start = field.start;
            *key_end = field.end;
        }
    }
    return LOAD_OK;
}

/* One memory_profile_per_allocator entry; every value it holds (a repeated
 * value merges) goes into the allocator named by its key, emptied first
 * when the key came before: the last entry wins. */
static enum load_status protobuf_read_map_entry(struct protobuf_loader *loader,
                                                const struct wire_field *entry)
{
    size_t key_start, key_end;
    enum load_status status =
        protobuf_find_map_key(&loader->wire, entry->start, entry->end, &key_start, &key_end);
    if (status != LOAD_OK)
        return status;
    size_t index;
    if (!xprof_draft_begin_entry(loader->draft, (const char *)loader->wire.bytes + key_start,
                                 key_end - key_start, &index))
        return protobuf_fail_memory(loader, entry->offset);
    size_t position = entry->start;
    struct wire_field field;
    while (status == LOAD_OK && position < entry->end) {
        status = wire_read_field(&loader->wire, &position, entry->end, &field);
        if (status == LOAD_OK && field.number == 2)
            status = protobuf_read_allocator(loader, index, field.start, field.end);
    }
    return status;
}

static enum load_status protobuf_read_memory_id(struct protobuf_loader *loader,
                                                const struct wire_field *field)
{
    if (!xprof_draft_add_memory_id(loader->draft, (const char *)loader->wire.bytes + field->start,
                                   field->end - field->start))
        return protobuf_fail_memory(loader, field->offset);
    return LOAD_OK;
}

static const char *const profile_field_names[] = {
    [1] = "memory_profile_per_allocator",
    [2] = "num_hosts",
    [3] = "memory_ids",
    [5] = "version",
    [6] = "hlo_modules",
};

static const unsigned profile_field_types[] = {
    [1] = WIRE_LENGTH, [2] = WIRE_VARINT, [3] = WIRE_LENGTH, [5] = WIRE_VARINT, [6] = WIRE_LENGTH,
};

static enum load_status protobuf_read_profile_field(struct protobuf_loader *loader,
                                                    const struct wire_field *field)
{
    switch (field->number) {
    case 1:
        return protobuf_read_map_entry(loader, field);
    case 2:
        loader->draft->num_hosts = wire_int32(field->value);
        return LOAD_OK;
    case 3:
        return protobuf_read_memory_id(loader, field);
    case 5:
        loader->draft->version = wire_int32(field->value);
        return LOAD_OK;
    case 6:
        return protobuf_read_hlo_module(loader, field);
    default:
        return LOAD_OK;
    }
}

static enum load_status protobuf_read_profile(struct protobuf_loader *loader)
{
    size_t position = 0;
    size_t end = loader->wire.size;
    struct wire_field field;
    enum load_status status = LOAD_OK;
    while (status == LOAD_OK && position < end) {
        status = wire_read_field(&loader->wire, &position, end, &field);
        /* Field 4 is reserved: skipped like any unknown field. */
        if (status != LOAD_OK || field.number > 6 || field.number == 4)
            continue;
        status = wire_expect(&loader->wire, &field, profile_field_types[field.number],
                             profile_field_names[field.number]);
        if (status == LOAD_OK)
            status = protobuf_read_profile_field(loader, &field);
        load_tracker_advance(loader->tracker, position);
    }
    return status;
}


enum load_status load_protobuf_tracked(const uint8_t *bytes, size_t size,
                                       struct xprof_draft *draft, struct load_tracker *tracker,
                                       struct load_error *error)
{
    struct protobuf_loader loader = {
        .wire = { .bytes = bytes, .size = size, .error = error },
        .draft = draft,
        .strings = xprof_draft_strings(draft),
        .tracker = tracker,
    };
    return protobuf_read_profile(&loader);
}

enum load_status load_protobuf(const uint8_t *bytes, size_t size, struct xprof_draft *draft,
                               struct load_error *error)
{
    return load_protobuf_tracked(bytes, size, draft, NULL, error);
}

/* ---- the row of the format table ---- */

/* Whatever no other format claims but plain text: a MemoryProfile starts
 * with any field tag, so only the loader can tell a damaged one from
 * other binary data; text is never one (load.c then says "not a memory
 * profile" rather than quoting a wire type). */
static unsigned protobuf_probe(const uint8_t *bytes, size_t size)
{
    return size > 0 && !wire_head_is_text(bytes, size) ? PROBE_FALLBACK : PROBE_NO;
}

static enum load_status protobuf_load(const struct load_input *input,
                                      struct profile_builder *builder, struct load_error *error)
{
    return xprof_draft_load(input, builder, load_protobuf_tracked, error);
}

static const char *const protobuf_suffixes[] = {".pb", ".pb.gz", NULL};

const struct input_format memory_profile_protobuf_format = {
    .name = "pb",
    .description = "MemoryProfile, binary protobuf (XProf, TensorBoard, TensorFlow)",
    .probe = protobuf_probe,
    .load = protobuf_load,
    .suffixes = protobuf_suffixes,
    .host_before_first_dot = true,
};
