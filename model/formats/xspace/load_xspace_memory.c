/* load_xspace_memory: a memory event of the host plane as a snapshot.
 *
 * XProf's reading rules (docs/formats/xspace.md): every stat that counts, the
 * last of a kind winning; an integer field reads only an int64 value, the
 * fragmentation only a double, a string a str value or the name of the
 * stat metadata a ref names (interned once per metadata entry, not once
 * per event); the data type by the enum's names; the memory id from the
 * last of allocator_name and index_on_host/device_ordinal. XProf's
 * summary of each allocator is kept as it computes it, in walk order. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "model/util/array_grow.h"
#include "model/formats/xspace/xspace_internal.h"

/* ---- strings and allocators ---- */

/* The stat-metadata entry a ref value names (NULL: none). */
static struct xspace_metadata *ref_target(const struct xspace_loader *loader,
                                          const struct xspace_value *value)
{
    return xspace_metadata_lookup(&loader->plane->stats, value->bits);
}

/* StrOrRefValue, interned; STRING_ID_NONE when memory runs out. */
static uint32_t read_string(struct xspace_loader *loader, const struct xspace_value *value,
                            unsigned hint)
{
    const char *bytes = (const char *)loader->wire.bytes;
    if (value->member == XSPACE_MEMBER_STR)
        return string_table_intern_hinted(loader->strings, hint, bytes + value->text.start,
                                          value->text.end - value->text.start);
    if (value->member != XSPACE_MEMBER_REF)
        return STRING_ID_EMPTY;
    /* Ref targets are many (an op name each) and visited in no order: the
     * ids by key stay in a compact array when the keys allow one. */
    const struct xspace_metadata_table *table = &loader->plane->stats;
    uint32_t *known = table->dense && value->bits <= table->dense_last
                          ? &table->dense_strings[value->bits] : NULL;
    if (known && *known)
        return *known - 1;
    struct xspace_metadata *target = ref_target(loader, value);
    if (!target)
        return STRING_ID_EMPTY;
    if (target->string_id == STRING_ID_NONE)
        target->string_id = string_table_intern(loader->strings, bytes + target->name.start,
                                                target->name.end - target->name.start);
    if (known && target->string_id != STRING_ID_NONE)
        *known = target->string_id + 1;
    return target->string_id;
}

static const char *const data_type_names[] = {
    "INVALID", "float", "double", "int32", "uint8", "int16", "int8", "string", "complex64",
    "int64", "bool", "qint8", "quint8", "qint32", "bfloat16", "qint16", "quint16", "uint16",
    "complex128", "half", "resource", "variant", "uint32", "uint64", "float8_e5m2",
    "float8_e4m3fn", "float8_e4m3fnuz", "float8_e4m3b11fnuz", "float8_e5m2fnuz", "int4", "uint4",
};

#define DATA_TYPE_COUNT ((int32_t)(sizeof data_type_names / sizeof *data_type_names))

/* XProf's DataTypeString of the value taken as a 32-bit enum: past 100 a
 * reference type, the name of value - 100 and "_ref". */
static size_t data_type_text(int32_t value, char *text, size_t size)
{
    int32_t base = value > 100 ? value - 100 : value;
    int length = base >= 0 && base < DATA_TYPE_COUNT
                     ? snprintf(text, size, "%s", data_type_names[base])
                     : snprintf(text, size, "unknown dtype enum (%" PRId32 ")", base);
    if (value > 100)
        length += snprintf(text + length, size - (size_t)length, "_ref");
    return (size_t)length;
}

static uint32_t read_data_type(struct xspace_loader *loader, const struct xspace_value *value)
{
    int32_t type = wire_int32((uint64_t)xspace_value_int(value));
    bool cached = type >= 0 && type < (int32_t)(sizeof loader->data_type_ids /
                                                 sizeof *loader->data_type_ids);
    if (cached && loader->data_type_ids[type] != STRING_ID_NONE)
        return loader->data_type_ids[type];
    char text[64];
    size_t length = data_type_text(type, text, sizeof text);
    uint32_t id = string_table_intern(loader->strings, text, length);
    if (cached)
        loader->data_type_ids[type] = id;
    return id;
}

/* Room for XProf's running summary of allocator `index`. */
static bool summaries_reserve(struct xspace_loader *loader, size_t index)
{
    size_t old = loader->summary_capacity;
    if (!array_grow((void **)&loader->summaries, &loader->summary_capacity, index,
                    sizeof *loader->summaries, 4))
        return false;
    memset(loader->summaries + old, 0,
           (loader->summary_capacity - old) * sizeof *loader->summaries);
    return true;
}

static bool allocator_named(struct xspace_loader *loader, const char *id, size_t length,
                            size_t *index)
{
    bool created;
    return profile_builder_allocator(loader->builder, id, length, index, &created) &&
           summaries_reserve(loader, *index);
}

/* Most events are usually one allocator's: the first allocator to hold
 * XSPACE_ESTIMATE_AFTER events takes the room the file's size suggests
 * (less the events walked so far) as its columns must grow; the others
 * grow with their events, so that a capture of 30,000 allocators does not
 * reserve the estimate 30,000 times, nor does a small allocator that
 * comes first (JAX's pinned host memory) take it from the device's. A
 * failed reservation only means growing as usual. */
#define XSPACE_ESTIMATE_AFTER 1024

static void estimate_reserve(struct xspace_loader *loader, struct snapshot_columns *timeline)
{
    if (loader->estimate_taken || timeline->count != timeline->capacity ||
        timeline->count < XSPACE_ESTIMATE_AFTER)
        return;
    loader->estimate_taken = true;
    if (loader->memory_estimate > loader->memory_events)
        snapshot_columns_reserve(timeline, timeline->count + loader->memory_estimate -
                                               loader->memory_events);
}

/* The memory id: the last of allocator_name (a string) and
 * index_on_host/device_ordinal (the decimal of an int64), "" if none. */
bool xspace_memory_allocator(struct xspace_loader *loader, const struct xspace_reading *reading,
                             size_t *index)
{
    const char *bytes = (const char *)loader->wire.bytes;
    if (reading->memory_id_kind == 0)
        return allocator_named(loader, "", 0, index);
    const struct xspace_value *value = &reading->values[reading->memory_id_kind];
    if (reading->memory_id_kind != XSPACE_STAT_ALLOCATOR_NAME) {
        char decimal[24];
        int length = snprintf(decimal, sizeof decimal, "%" PRId64, xspace_value_int(value));
        return allocator_named(loader, decimal, (size_t)length, index);
    }
    if (value->member == XSPACE_MEMBER_REF) {
        struct xspace_metadata *target = ref_target(loader, value);
        if (!target)
            return allocator_named(loader, "", 0, index);
        if (target->allocator == 0) {
            if (!allocator_named(loader, bytes + target->name.start,
                                 target->name.end - target->name.start, index))
                return false;
            target->allocator = (uint32_t)*index + 1;
        }
        *index = target->allocator - 1;
        return true;
    }
    if (value->member != XSPACE_MEMBER_STR)
        return allocator_named(loader, "", 0, index);
    size_t length = value->text.end - value->text.start;
    struct xspace_span last = loader->last_memory_id;
    if (loader->has_last_allocator && last.end - last.start == length &&
        memcmp(bytes + last.start, bytes + value->text.start, length) == 0) {
        *index = loader->last_allocator;
        return true;
    }
    if (!allocator_named(loader, bytes + value->text.start, length, index))
        return false;
    loader->last_memory_id = value->text;
    loader->last_allocator = *index;
    loader->has_last_allocator = true;
    return true;
}

/* ---- memory events ---- */

static int64_t wrapping_add(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* XProf's UpdateProfileSummary, in walk order. */
static void summary_visit(struct xspace_walk_summary *summary, const struct snapshot *snapshot)
{
    int64_t in_use = wrapping_add(snapshot->stack_bytes, snapshot->heap_bytes);
    summary->lifetime_peak_bytes = snapshot->peak_bytes_in_use;
    if (in_use < summary->peak.peak_bytes_in_use)
        return;
    summary->peak = (struct memory_stats){
        .stack_bytes = snapshot->stack_bytes,
        .heap_bytes = snapshot->heap_bytes,
        .free_bytes = snapshot->free_bytes,
        .fragmentation = snapshot->fragmentation,
        .peak_bytes_in_use = in_use,
    };
    summary->peak_time_ps = snapshot->time_ps;
    summary->capacity_bytes = wrapping_add(in_use, snapshot->free_bytes);
}

static uint32_t reading_string(struct xspace_loader *loader, const struct xspace_reading *reading,
                               enum xspace_stat_kind kind)
{
    return xspace_seen(reading, kind) ? read_string(loader, &reading->values[kind], kind)
                                      : STRING_ID_EMPTY;
}

enum load_status xspace_memory_event_add(struct xspace_loader *loader,
                                         const struct xspace_event *fields,
                                         const struct xspace_reading *reading,
                                         const struct xspace_names *names, bool allocation,
                                         int64_t raw_step)
{
    struct snapshot snapshot = {
        .time_ps = fields->offset_ps,
        .stack_bytes = xspace_reading_int(reading, XSPACE_STAT_BYTES_RESERVED),
        .heap_bytes = xspace_reading_int(reading, XSPACE_STAT_BYTES_ALLOCATED),
        .free_bytes = xspace_reading_int(reading, XSPACE_STAT_BYTES_AVAILABLE),
        .fragmentation = xspace_seen(reading, XSPACE_STAT_FRAGMENTATION)
                             ? xspace_value_double(&reading->values[XSPACE_STAT_FRAGMENTATION])
                             : 0.0,
        .peak_bytes_in_use = xspace_reading_int(reading, XSPACE_STAT_PEAK_BYTES_IN_USE),
        .activity = allocation ? MEMORY_ACTIVITY_ALLOCATION : MEMORY_ACTIVITY_DEALLOCATION,
        .requested_bytes = xspace_reading_int(reading, XSPACE_STAT_REQUESTED_BYTES),
        .allocation_bytes = xspace_reading_int(reading, XSPACE_STAT_ALLOCATION_BYTES),
        .address = (uint64_t)xspace_reading_int(reading, XSPACE_STAT_ADDRESS),
        .step_id = raw_step,
        .op_name = reading_string(loader, reading, XSPACE_STAT_TF_OP),
        .region_type = reading_string(loader, reading, XSPACE_STAT_REGION_TYPE),
        .data_type = xspace_seen(reading, XSPACE_STAT_DATA_TYPE)
                         ? read_data_type(loader, &reading->values[XSPACE_STAT_DATA_TYPE])
                         : STRING_ID_EMPTY,
        .tensor_shape = reading_string(loader, reading, XSPACE_STAT_SHAPE),
    };
    size_t index;
    if (names) {
        snapshot.op_name = names->op;
        snapshot.region_type = allocation ? names->allocation_region : names->free_region;
        snapshot.context = names->context;
    }
    if (snapshot.op_name == STRING_ID_NONE || snapshot.region_type == STRING_ID_NONE ||
        snapshot.data_type == STRING_ID_NONE || snapshot.tensor_shape == STRING_ID_NONE ||
        !xspace_memory_allocator(loader, reading, &index))
        return xspace_fail_memory(loader, fields->offset);
    struct xspace_walk_summary *summary = &loader->summaries[index];
    /* Per event, only these two flags are asked once both are settled. */
    if (!loader->estimate_taken || (names && !summary->has_context)) {
        struct snapshot_columns *timeline = profile_builder_timeline(loader->builder, index);
        estimate_reserve(loader, timeline);
        if (names && !summary->has_context) {
            if (!snapshot_columns_enable_context(timeline))
                return xspace_fail_memory(loader, fields->offset);
            summary->has_context = true;
        }
    }
    if (!profile_builder_append_snapshot(loader->builder, index, &snapshot))
        return xspace_fail_memory(loader, fields->offset);
    summary_visit(summary, &snapshot);
    return LOAD_OK;
}


enum load_status xspace_fail_memory(struct xspace_loader *loader, size_t offset)
{
    load_error_at(loader->wire.error, offset, "out of memory");
    return LOAD_NO_MEMORY;
}
