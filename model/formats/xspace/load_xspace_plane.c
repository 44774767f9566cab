/* load_xspace_plane: one XPlane's first pass, its metadata maps, the names
 * XProf knows, and the HLO modules of XLA Modules lines.
 *
 * A plane is written as id, name, all its lines, then the event-metadata
 * map, then the stat-metadata map (docs/formats/xspace.md): events come before
 * the names of their metadata. The first pass notes where each line is
 * (skipping it by length) and reads both maps into hash tables keyed by
 * map key; the event walk (load_xspace_events.c) then comes back to the
 * lines. Names stay in the input (spans); only the ones used are interned. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "model/util/array_grow.h"
#include "model/formats/xspace/xspace_internal.h"

/* ---- the metadata tables ---- */

static size_t metadata_slot(uint64_t key, size_t capacity)
{
    return (size_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> 32) & (capacity - 1);
}

struct xspace_metadata *xspace_metadata_find(const struct xspace_metadata_table *table,
                                             uint64_t key)
{
    if (table->capacity == 0)
        return NULL;
    for (size_t slot = metadata_slot(key, table->capacity); table->slots[slot].used;
         slot = (slot + 1) & (table->capacity - 1))
        if (table->slots[slot].key == key)
            return &table->slots[slot];
    return NULL;
}

static bool metadata_grow(struct xspace_metadata_table *table)
{
    if ((table->count + 1) * 2 <= table->capacity)
        return true;
    size_t capacity = table->capacity ? table->capacity * 2 : 64;
    struct xspace_metadata *slots = calloc(capacity, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i < table->capacity; i++) {
        if (!table->slots[i].used)
            continue;
        size_t slot = metadata_slot(table->slots[i].key, capacity);
        while (slots[slot].used)
            slot = (slot + 1) & (capacity - 1);
        slots[slot] = table->slots[i];
    }
    free(table->slots);
    table->slots = slots;
    table->capacity = capacity;
    memset(table->cache, 0, sizeof table->cache);
    return true;
}

/* The entry for `key`, replacing one with the same key: the map's last
 * entry wins, as protobuf reads a map. */
static bool metadata_put(struct xspace_metadata_table *table, uint64_t key,
                         struct xspace_span name, uint8_t kind)
{
    struct xspace_metadata *entry = xspace_metadata_find(table, key);
    if (!entry) {
        if (!metadata_grow(table))
            return false;
        size_t slot = metadata_slot(key, table->capacity);
        while (table->slots[slot].used)
            slot = (slot + 1) & (table->capacity - 1);
        entry = &table->slots[slot];
        table->count++;
    }
    *entry = (struct xspace_metadata){
        .key = key, .name = name, .string_id = STRING_ID_NONE, .kind = kind, .used = true};
    if (key > table->largest_key)
        table->largest_key = key;
    return true;
}

/* The array by key, when the keys are dense enough for it to cost no more
 * than a few words per entry (false only when memory runs out). */
static bool metadata_index(struct xspace_metadata_table *table)
{
    if (table->count == 0 || table->largest_key > 4 * (uint64_t)table->count + 1024)
        return true;
    table->dense_last = table->largest_key;
    table->dense = calloc((size_t)table->dense_last + 1, sizeof *table->dense);
    table->dense_strings = calloc((size_t)table->dense_last + 1, sizeof *table->dense_strings);
    table->dense_kinds = calloc((size_t)table->dense_last + 1, sizeof *table->dense_kinds);
    if (!table->dense || !table->dense_strings || !table->dense_kinds)
        return false;
    for (size_t i = 0; i < table->capacity; i++) {
        if (!table->slots[i].used)
            continue;
        table->dense[table->slots[i].key] = (uint32_t)i + 1;
        table->dense_kinds[table->slots[i].key] = (uint8_t)(table->slots[i].kind + 1);
    }
    return true;
}

/* ---- names ---- */

bool xspace_span_is(const struct wire *wire, struct xspace_span span, const char *text)
{
    size_t length = strlen(text);
    return span.end - span.start == length &&
           memcmp(wire->bytes + span.start, text, length) == 0;
}

struct kind_name {
    const char *name;
    uint8_t kind;
};

static const struct kind_name event_names[] = {
    {"MemoryAllocation", XSPACE_EVENT_MEMORY_ALLOCATION},
    {"MemoryDeallocation", XSPACE_EVENT_MEMORY_DEALLOCATION},
    {"ExecutorState::Process", XSPACE_EVENT_EXECUTOR_PROCESS},
    {"IteratorGetNextOp::DoCompute", XSPACE_EVENT_ITERATOR_GET_NEXT},
    {"IteratorGetNextAsOptionalOp::DoCompute", XSPACE_EVENT_ITERATOR_GET_NEXT},
    {"TraceContext", XSPACE_EVENT_TRACE_CONTEXT},
    {"InstantiatedCapturedFunction::Run", XSPACE_EVENT_TF_DATA_FUNCTION},
    {"InstantiatedCapturedFunction::RunWithBorrowedArgs", XSPACE_EVENT_TF_DATA_FUNCTION},
    {"InstantiatedCapturedFunction::RunInstantiated", XSPACE_EVENT_TF_DATA_FUNCTION},
    {"InstantiatedCapturedFunction::RunAsync", XSPACE_EVENT_TF_DATA_FUNCTION},
    {"WhileOp-EvalCond", XSPACE_EVENT_LOOP_OP},
    {"WhileOp-StartBody", XSPACE_EVENT_LOOP_OP},
    {"ForOp", XSPACE_EVENT_LOOP_OP},
    {"ParallelForOp", XSPACE_EVENT_LOOP_OP},
    {"ForeverOp", XSPACE_EVENT_LOOP_OP},
    {"BatchingSessionRun", XSPACE_EVENT_ROOT_LEVEL_1},
    {"ProcessBatch", XSPACE_EVENT_ROOT_LEVEL_2},
    {"OrbaxServing::ProcessBatch", XSPACE_EVENT_ROOT_LEVEL_2},
};

static const struct kind_name stat_names[] = {
    {"allocator_name", XSPACE_STAT_ALLOCATOR_NAME},
    {"index_on_host", XSPACE_STAT_INDEX_ON_HOST},
    {"device_ordinal", XSPACE_STAT_DEVICE_ORDINAL},
    {"bytes_reserved", XSPACE_STAT_BYTES_RESERVED},
    {"bytes_allocated", XSPACE_STAT_BYTES_ALLOCATED},
    {"bytes_available", XSPACE_STAT_BYTES_AVAILABLE},
    {"fragmentation", XSPACE_STAT_FRAGMENTATION},
    {"peak_bytes_in_use", XSPACE_STAT_PEAK_BYTES_IN_USE},
    {"requested_bytes", XSPACE_STAT_REQUESTED_BYTES},
    {"allocation_bytes", XSPACE_STAT_ALLOCATION_BYTES},
    {"addr", XSPACE_STAT_ADDRESS},
    {"tf_op", XSPACE_STAT_TF_OP},
    {"region_type", XSPACE_STAT_REGION_TYPE},
    {"data_type", XSPACE_STAT_DATA_TYPE},
    {"shape", XSPACE_STAT_SHAPE},
    {"group_id", XSPACE_STAT_GROUP_ID},
    {"_pt", XSPACE_STAT_PRODUCER_TYPE},
    {"_p", XSPACE_STAT_PRODUCER_ID},
    {"_ct", XSPACE_STAT_CONSUMER_TYPE},
    {"_c", XSPACE_STAT_CONSUMER_ID},
    {"_r", XSPACE_STAT_IS_ROOT},
    {"_a", XSPACE_STAT_IS_ASYNC},
    {"id", XSPACE_STAT_STEP_ID},
    {"iter_num", XSPACE_STAT_ITER_NUM},
};

static uint8_t kind_of(const struct wire *wire, struct xspace_span name,
                       const struct kind_name *names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (xspace_span_is(wire, name, names[i].name))
            return names[i].kind;
    return 0;
}

/* ---- the first pass ---- */

/* A map entry {key = 1, value = 2}: the key and the value's name field
 * (2 in both XEventMetadata and XStatMetadata), the last of each winning;
 * the value's other fields are checked for their wire types only. */
static enum load_status metadata_entry_read(const struct wire *wire, const struct wire_field *entry,
                                            uint64_t *key, struct xspace_span *name)
{
    struct wire_field field, inner;
    size_t position = entry->start;
    *key = 0;
    *name = (struct xspace_span){entry->start, entry->start};
    while (position < entry->end) {
        enum load_status status = wire_read_field(wire, &position, entry->end, &field);
        if (status == LOAD_OK && field.number == 1)
            status = wire_expect(wire, &field, WIRE_VARINT, "key");
        else if (status == LOAD_OK && field.number == 2)
            status = wire_expect(wire, &field, WIRE_LENGTH, "value");
        if (status != LOAD_OK)
            return status;
        if (field.number == 1)
            *key = field.value;
        if (field.number != 2)
            continue;
        for (size_t at = field.start; at < field.end;) {
            status = wire_read_field(wire, &at, field.end, &inner);
            if (status == LOAD_OK && inner.number == 1)
                status = wire_expect(wire, &inner, WIRE_VARINT, "id");
            else if (status == LOAD_OK && inner.number == 2)
                status = wire_expect(wire, &inner, WIRE_LENGTH, "name");
            if (status != LOAD_OK)
                return status;
            if (inner.number == 2)
                *name = (struct xspace_span){inner.start, inner.end};
        }
    }
    return LOAD_OK;
}

static enum load_status plane_add_metadata(const struct wire *wire, const struct wire_field *entry,
                                           struct xspace_plane *plane, bool events)
{
    uint64_t key;
    struct xspace_span name;
    enum load_status status = metadata_entry_read(wire, entry, &key, &name);
    if (status != LOAD_OK)
        return status;
    uint8_t kind = events
                       ? kind_of(wire, name, event_names, sizeof event_names / sizeof *event_names)
                       : kind_of(wire, name, stat_names, sizeof stat_names / sizeof *stat_names);
    if (events) {
        plane->has_loop_op |= kind == XSPACE_EVENT_LOOP_OP;
        plane->has_grouping |= kind == XSPACE_EVENT_EXECUTOR_PROCESS ||
                               kind == XSPACE_EVENT_ITERATOR_GET_NEXT ||
                               kind == XSPACE_EVENT_TRACE_CONTEXT ||
                               kind == XSPACE_EVENT_TF_DATA_FUNCTION ||
                               kind == XSPACE_EVENT_ROOT_LEVEL_1 ||
                               kind == XSPACE_EVENT_ROOT_LEVEL_2;
    } else {
        plane->has_group_id |= kind == XSPACE_STAT_GROUP_ID;
        plane->has_grouping |= kind == XSPACE_STAT_IS_ROOT || kind == XSPACE_STAT_PRODUCER_ID ||
                               kind == XSPACE_STAT_CONSUMER_ID;
    }
    if (!metadata_put(events ? &plane->events : &plane->stats, key, name, kind)) {
        load_error_at(wire->error, entry->offset, "out of memory");
        return LOAD_NO_MEMORY;
    }
    return LOAD_OK;
}

static const char *const plane_field_names[] = {
    [1] = "id", [2] = "name", [3] = "lines", [4] = "event_metadata", [5] = "stat_metadata",
    [6] = "stats",
};

enum load_status xspace_plane_scan(const struct wire *wire, size_t offset, size_t start,
                                   size_t end, struct xspace_plane *plane)
{
    memset(plane, 0, sizeof *plane);
    plane->offset = offset;
    plane->name = (struct xspace_span){start, start};
    struct wire_field field;
    enum load_status status = LOAD_OK;
    while (status == LOAD_OK && start < end) {
        status = wire_read_field(wire, &start, end, &field);
        if (status != LOAD_OK || field.number > 6)
            continue;
        status = wire_expect(wire, &field, field.number == 1 ? WIRE_VARINT : WIRE_LENGTH,
                             plane_field_names[field.number]);
        if (status != LOAD_OK)
            break;
        if (field.number == 2) {
            plane->name = (struct xspace_span){field.start, field.end};
        } else if (field.number == 3) {
            if (!array_grow((void **)&plane->lines, &plane->line_capacity, plane->line_count,
                            sizeof *plane->lines, 16)) {
                load_error_at(wire->error, field.offset, "out of memory");
                return LOAD_NO_MEMORY;
            }
            plane->lines[plane->line_count++] = (struct xspace_span){field.start, field.end};
        } else if (field.number == 4 || field.number == 5) {
            status = plane_add_metadata(wire, &field, plane, field.number == 4);
        }
    }
    if (status == LOAD_OK && (!metadata_index(&plane->events) || !metadata_index(&plane->stats))) {
        load_error_at(wire->error, offset, "out of memory");
        return LOAD_NO_MEMORY;
    }
    return status;
}

void xspace_plane_free(struct xspace_plane *plane)
{
    free(plane->lines);
    free(plane->events.slots);
    free(plane->stats.slots);
    free(plane->events.dense);
    free(plane->stats.dense);
    free(plane->events.dense_strings);
    free(plane->stats.dense_strings);
    free(plane->events.dense_kinds);
    free(plane->stats.dense_kinds);
    memset(plane, 0, sizeof *plane);
}

static bool span_starts_with(const struct wire *wire, struct xspace_span span, const char *prefix)
{
    size_t length = strlen(prefix);
    return span.end - span.start >= length &&
           memcmp(wire->bytes + span.start, prefix, length) == 0;
}

enum xspace_plane_role xspace_plane_role(const struct wire *wire, const struct xspace_plane *plane,
                                         bool host_found)
{
    if (!host_found && xspace_span_is(wire, plane->name, "/host:CPU"))
        return XSPACE_PLANE_HOST;
    if (span_starts_with(wire, plane->name, "/device:TPU:"))
        return XSPACE_PLANE_TPU;
    if (span_starts_with(wire, plane->name, "/device:GPU:"))
        return XSPACE_PLANE_GPU;
    if (span_starts_with(wire, plane->name, "/device:"))
        return XSPACE_PLANE_DEVICE;
    return XSPACE_PLANE_OTHER;
}

/* ---- lines ---- */

static const char *const line_field_names[] = {
    [1] = "id", [2] = "name", [3] = "timestamp_ns", [4] = "events",
};

enum load_status xspace_line_field(const struct wire *wire, size_t *position, size_t end,
                                   struct wire_field *field)
{
    enum load_status status = wire_read_field(wire, position, end, field);
    if (status == LOAD_OK && field->number <= 4)
        status = wire_expect(wire, field,
                             field->number == 2 || field->number == 4 ? WIRE_LENGTH : WIRE_VARINT,
                             line_field_names[field->number]);
    return status;
}

enum load_status xspace_line_head(const struct wire *wire, struct xspace_span line,
                                  struct xspace_line_head *head)
{
    head->name = (struct xspace_span){line.start, line.start};
    head->timestamp_ns = 0;
    bool named = false, in_events = false;
    struct wire_field field;
    for (size_t position = line.start; position < line.end;) {
        enum load_status status = xspace_line_field(wire, &position, line.end, &field);
        if (status != LOAD_OK)
            return status;
        if (field.number == 4) {
            /* Every writer names a line before its events: past the first
             * event, only a line still without a name is read on. */
            in_events = true;
            if (named)
                break;
        } else if (field.number == 2) {
            head->name = (struct xspace_span){field.start, field.end};
            named = true;
        } else if (field.number == 3 && !in_events) {
            head->timestamp_ns = wire_int64(field.value);
        }
    }
    return LOAD_OK;
}

/* ---- HLO modules ---- */

static const char *const event_field_names[] = {
    [1] = "metadata_id", [2] = "offset_ps", [3] = "duration_ps", [4] = "stats",
    [5] = "num_occurrences",
};

/* One event of an XLA Modules line: name by metadata key, start at its
 * offset_ps and end after its duration, as XProf shows modules. */
static enum load_status module_read(const struct wire *wire, const struct wire_field *event,
                                    const struct xspace_plane *plane,
                                    struct string_table *strings, struct hlo_module *module)
{
    uint64_t key = 0;
    int64_t offset = 0, duration = 0;
    struct wire_field field;
    for (size_t position = event->start; position < event->end;) {
        enum load_status status = wire_read_field(wire, &position, event->end, &field);
        if (status == LOAD_OK && field.number >= 1 && field.number <= 5)
            status = wire_expect(wire, &field, field.number == 4 ? WIRE_LENGTH : WIRE_VARINT,
                                 event_field_names[field.number]);
        if (status != LOAD_OK)
            return status;
        if (field.number == 1)
            key = field.value;
        else if (field.number == 2)
            offset = wire_int64(field.value);
        else if (field.number == 3)
            duration = wire_int64(field.value);
        else if (field.number == 5)
            offset = 0; /* num_occurrences replaces offset_ps (a oneof) */
    }
    struct xspace_metadata *metadata = xspace_metadata_find(&plane->events, key);
    uint32_t name = STRING_ID_EMPTY;
    if (metadata)
        name = string_table_intern(strings, (const char *)wire->bytes + metadata->name.start,
                                   metadata->name.end - metadata->name.start);
    if (name == STRING_ID_NONE) {
        load_error_at(wire->error, event->offset, "out of memory");
        return LOAD_NO_MEMORY;
    }
    module->name = name;
    module->start_time_ps = offset;
    module->end_time_ps = (int64_t)((uint64_t)offset + (uint64_t)duration);
    return LOAD_OK;
}

enum load_status xspace_plane_modules(const struct wire *wire, const struct xspace_plane *plane,
                                      struct profile_builder *builder, uint32_t plane_name,
                                      struct hlo_module **modules, size_t *count,
                                      size_t *capacity)
{
    struct string_table *strings = profile_builder_strings(builder);
    for (size_t l = 0; l < plane->line_count; l++) {
        struct xspace_line_head head;
        enum load_status status = xspace_line_head(wire, plane->lines[l], &head);
        if (status != LOAD_OK)
            return status;
        if (!xspace_span_is(wire, head.name, "XLA Modules"))
            continue;
        struct wire_field field;
        for (size_t position = plane->lines[l].start; position < plane->lines[l].end;) {
            status = wire_read_field(wire, &position, plane->lines[l].end, &field);
            if (status != LOAD_OK)
                return status;
            if (field.number != 4)
                continue;
            if (!array_grow((void **)modules, capacity, *count, sizeof **modules, 16)) {
                load_error_at(wire->error, field.offset, "out of memory");
                return LOAD_NO_MEMORY;
            }
            struct hlo_module *module = &(*modules)[*count];
            *module = (struct hlo_module){.plane_name = plane_name};
            status = module_read(wire, &field, plane, strings, module);
            if (status != LOAD_OK)
                return status;
            (*count)++;
        }
    }
    return LOAD_OK;
}
