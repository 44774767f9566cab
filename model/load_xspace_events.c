/* load_xspace_events: the walk over a plane's lines and events.
 *
 * Each event's fields and stats are read straight from the input. A
 * memory event of the host plane becomes a snapshot by XProf's reading
 * rules (xspace.md section 4): every stat whose key is in the plane's
 * stat-metadata map and whose name XProf knows counts, the last of a kind
 * winning; an integer field reads only an int64 value, a double only a
 * double, a string a str value or the name a ref points at. XProf's
 * summary is kept as it computes it, in walk order.
 *
 * For step grouping (load_xspace_forest.c) only the events that can
 * matter become nodes: memory events' sources, step markers, events with
 * producer/consumer stats, executor and iterator events, and the events
 * that enclose those on their line. The nesting stack holds every open
 * event of the line (begin, end, and a node once something nested in it
 * needs one), so the nesting is exactly XProf's while memory stays
 * proportional to what is kept. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/array_grow.h"
#include "model/load_xspace.h"

/* An open event of the line being walked: an entry of the nesting stack. */
struct xspace_open_event {
    uint64_t begin, end; /* absolute picoseconds, unsigned as XProf's Timespan */
    uint32_t node;       /* XSPACE_NO_NODE until an event nested in it needs one */
    bool has_id, has_iteration;
    uint64_t id, iteration; /* its first "id" and "iter_num" stats, as 64-bit patterns */
};

/* A stat's value: which member of the oneof came last, and what it held. */
struct stat_value {
    uint8_t member; /* XStat field number 2..8; 0: none */
    uint64_t bits;
    struct xspace_span text;
};

enum { MEMBER_DOUBLE = 2, MEMBER_UINT64 = 3, MEMBER_INT64 = 4, MEMBER_STR = 5, MEMBER_REF = 7 };

/* What one event's stats say. */
struct event_reading {
    uint32_t seen; /* a bit per enum xspace_stat_kind */
    struct stat_value values[XSPACE_STAT_KINDS];
    uint8_t memory_id_kind; /* the last of allocator_name, index_on_host, device_ordinal */
    /* GetStat finds the first "id" and "iter_num" of an event */
    bool has_first_id, has_first_iteration;
    struct stat_value first_id, first_iteration;
};

struct event_fields {
    size_t offset;
    uint64_t key;
    int64_t offset_ps; /* 0 when num_occurrences came last (a oneof) */
    int64_t duration_ps;
};

/* Where a line walk stands. */
struct line_walk {
    enum xspace_walk_mode mode;
    bool redo;            /* walked again with its real timestamp: no new snapshots */
    size_t next_memory;   /* on a redo, the walk index of the next memory event */
    uint64_t base_ps;     /* timestamp_ns * 1000 */
    size_t next_track;
};

#define SEEN(reading, kind) (((reading)->seen >> (kind)) & 1u)

enum load_status xspace_fail_memory(struct xspace_loader *loader, size_t offset)
{
    load_error_at(loader->wire.error, offset, "out of memory");
    return LOAD_NO_MEMORY;
}

/* ---- readings (XStatVisitor's) ---- */

static int64_t read_int(const struct stat_value *value)
{
    return value->member == MEMBER_INT64 ? wire_int64(value->bits) : 0;
}

static uint64_t read_int_or_uint(const struct stat_value *value)
{
    return value->member == MEMBER_INT64 || value->member == MEMBER_UINT64 ? value->bits : 0;
}

static double read_double(const struct stat_value *value)
{
    return value->member == MEMBER_DOUBLE ? wire_double(value->bits) : 0.0;
}

static const char *const stat_field_names[] = {
    [1] = "metadata_id", [2] = "double_value", [3] = "uint64_value", [4] = "int64_value",
    [5] = "str_value", [6] = "bytes_value", [7] = "ref_value", [8] = "compressed_str_value",
};

static const uint8_t stat_field_types[] = {
    [1] = WIRE_VARINT, [2] = WIRE_FIXED64, [3] = WIRE_VARINT, [4] = WIRE_VARINT,
    [5] = WIRE_LENGTH, [6] = WIRE_LENGTH, [7] = WIRE_VARINT, [8] = WIRE_LENGTH,
};

/* One XStat: its key and value (the last of each wins). */
static enum load_status stat_read(const struct wire *wire, const struct wire_field *stat,
                                  uint64_t *key, struct stat_value *value)
{
    struct wire_field field;
    *key = 0;
    value->member = 0;
    for (size_t position = stat->start; position < stat->end;) {
        enum load_status status = wire_read_field(wire, &position, stat->end, &field);
        if (status != LOAD_OK)
            return status;
        if (field.number > 8)
            continue;
        if (field.type != stat_field_types[field.number])
            return wire_expect(wire, &field, stat_field_types[field.number],
                               stat_field_names[field.number]);
        if (field.number == 1) {
            *key = field.value;
            continue;
        }
        value->member = (uint8_t)field.number;
        value->bits = field.value;
        value->text = (struct xspace_span){field.start, field.end};
    }
    return LOAD_OK;
}

static void reading_add(struct event_reading *reading, uint8_t kind,
                        const struct stat_value *value)
{
    reading->seen |= 1u << kind;
    reading->values[kind] = *value;
    if (kind == XSPACE_STAT_ALLOCATOR_NAME || kind == XSPACE_STAT_INDEX_ON_HOST ||
        kind == XSPACE_STAT_DEVICE_ORDINAL)
        reading->memory_id_kind = kind;
    if (kind == XSPACE_STAT_STEP_ID && !reading->has_first_id) {
        reading->has_first_id = true;
        reading->first_id = *value;
    } else if (kind == XSPACE_STAT_ITER_NUM && !reading->has_first_iteration) {
        reading->has_first_iteration = true;
        reading->first_iteration = *value;
    }
}

static const char *const event_field_names[] = {
    [1] = "metadata_id", [2] = "offset_ps", [3] = "duration_ps", [4] = "stats",
    [5] = "num_occurrences",
};

/* The event's fields, and its stats that count (key in the map, a name
 * the loader reads). */
static enum load_status event_read(const struct xspace_loader *loader,
                                   const struct wire_field *event, struct event_fields *fields,
                                   struct event_reading *reading)
{
    const struct wire *wire = &loader->wire;
    struct wire_field field;
    *fields = (struct event_fields){.offset = event->offset};
    reading->seen = 0;
    reading->memory_id_kind = 0;
    reading->has_first_id = reading->has_first_iteration = false;
    for (size_t position = event->start; position < event->end;) {
        enum load_status status = wire_read_field(wire, &position, event->end, &field);
        if (status != LOAD_OK)
            return status;
        if (field.number > 5)
            continue;
        uint8_t type = field.number == 4 ? WIRE_LENGTH : WIRE_VARINT;
        if (field.type != type)
            return wire_expect(wire, &field, type, event_field_names[field.number]);
        switch (field.number) {
        case 1: fields->key = field.value; break;
        case 2: fields->offset_ps = wire_int64(field.value); break;
        case 3: fields->duration_ps = wire_int64(field.value); break;
        case 5: fields->offset_ps = 0; break;
        default: {
            uint64_t key;
            struct stat_value value;
            status = stat_read(wire, &field, &key, &value);
            if (status != LOAD_OK)
                return status;
            const struct xspace_metadata *metadata = xspace_metadata_find(&loader->plane->stats, key);
            if (metadata && metadata->kind != XSPACE_STAT_OTHER)
                reading_add(reading, metadata->kind, &value);
        }
        }
    }
    return LOAD_OK;
}

/* ---- strings and allocators ---- */

/* The stat-metadata entry a ref value names (NULL: none). */
static struct xspace_metadata *ref_target(const struct xspace_loader *loader,
                                          const struct stat_value *value)
{
    return xspace_metadata_find(&loader->plane->stats, value->bits);
}

/* StrOrRefValue, interned; STRING_ID_NONE when memory runs out. */
static uint32_t read_string(struct xspace_loader *loader, const struct stat_value *value,
                            unsigned hint)
{
    const char *bytes = (const char *)loader->wire.bytes;
    if (value->member == MEMBER_STR)
        return string_table_intern_hinted(loader->strings, hint, bytes + value->text.start,
                                          value->text.end - value->text.start);
    if (value->member != MEMBER_REF)
        return STRING_ID_EMPTY;
    struct xspace_metadata *target = ref_target(loader, value);
    if (!target)
        return STRING_ID_EMPTY;
    if (target->string_id == STRING_ID_NONE)
        target->string_id = string_table_intern(loader->strings, bytes + target->name.start,
                                                target->name.end - target->name.start);
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

static uint32_t read_data_type(struct xspace_loader *loader, const struct stat_value *value)
{
    int32_t type = wire_int32((uint64_t)read_int(value));
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
    memset(loader->summaries + old, 0, (loader->summary_capacity - old) * sizeof *loader->summaries);
    return true;
}

static bool allocator_named(struct xspace_loader *loader, const char *id, size_t length,
                            size_t *index)
{
    bool created;
    return profile_builder_allocator(loader->builder, id, length, index, &created) &&
           summaries_reserve(loader, *index);
}

/* The memory id: the last of allocator_name (a string) and
 * index_on_host/device_ordinal (the decimal of an int64), "" if none. */
static bool memory_allocator(struct xspace_loader *loader, const struct event_reading *reading,
                             size_t *index)
{
    const char *bytes = (const char *)loader->wire.bytes;
    if (reading->memory_id_kind == 0)
        return allocator_named(loader, "", 0, index);
    const struct stat_value *value = &reading->values[reading->memory_id_kind];
    if (reading->memory_id_kind != XSPACE_STAT_ALLOCATOR_NAME) {
        char decimal[24];
        int length = snprintf(decimal, sizeof decimal, "%" PRId64, read_int(value));
        return allocator_named(loader, decimal, (size_t)length, index);
    }
    if (value->member == MEMBER_REF) {
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
    if (value->member != MEMBER_STR)
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

static int64_t reading_int(const struct event_reading *reading, enum xspace_stat_kind kind)
{
    return SEEN(reading, kind) ? read_int(&reading->values[kind]) : 0;
}

static uint32_t reading_string(struct xspace_loader *loader, const struct event_reading *reading,
                               enum xspace_stat_kind kind)
{
    return SEEN(reading, kind) ? read_string(loader, &reading->values[kind], kind)
                               : STRING_ID_EMPTY;
}

/* A memory event's snapshot, appended to its allocator's timeline; its
 * step_id holds its walk index until the groups are known. */
static enum load_status memory_event_add(struct xspace_loader *loader,
                                         const struct event_fields *fields,
                                         const struct event_reading *reading, bool allocation,
                                         size_t walk_index)
{
    struct snapshot snapshot = {
        .time_ps = fields->offset_ps,
        .stack_bytes = reading_int(reading, XSPACE_STAT_BYTES_RESERVED),
        .heap_bytes = reading_int(reading, XSPACE_STAT_BYTES_ALLOCATED),
        .free_bytes = reading_int(reading, XSPACE_STAT_BYTES_AVAILABLE),
        .fragmentation = SEEN(reading, XSPACE_STAT_FRAGMENTATION)
                             ? read_double(&reading->values[XSPACE_STAT_FRAGMENTATION]) : 0.0,
        .peak_bytes_in_use = reading_int(reading, XSPACE_STAT_PEAK_BYTES_IN_USE),
        .activity = allocation ? MEMORY_ACTIVITY_ALLOCATION : MEMORY_ACTIVITY_DEALLOCATION,
        .requested_bytes = reading_int(reading, XSPACE_STAT_REQUESTED_BYTES),
        .allocation_bytes = reading_int(reading, XSPACE_STAT_ALLOCATION_BYTES),
        .address = (uint64_t)reading_int(reading, XSPACE_STAT_ADDRESS),
        .step_id = (int64_t)walk_index,
        .op_name = reading_string(loader, reading, XSPACE_STAT_TF_OP),
        .region_type = reading_string(loader, reading, XSPACE_STAT_REGION_TYPE),
        .data_type = SEEN(reading, XSPACE_STAT_DATA_TYPE)
                         ? read_data_type(loader, &reading->values[XSPACE_STAT_DATA_TYPE])
                         : STRING_ID_EMPTY,
        .tensor_shape = reading_string(loader, reading, XSPACE_STAT_SHAPE),
    };
    size_t index;
    if (snapshot.op_name == STRING_ID_NONE || snapshot.region_type == STRING_ID_NONE ||
        snapshot.data_type == STRING_ID_NONE || snapshot.tensor_shape == STRING_ID_NONE ||
        !memory_allocator(loader, reading, &index) ||
        !profile_builder_append_snapshot(loader->builder, index, &snapshot))
        return xspace_fail_memory(loader, fields->offset);
    summary_visit(&loader->summaries[index], &snapshot);
    return LOAD_OK;
}

/* Room for the per-memory-event arrays. */
static bool memory_reserve(struct xspace_loader *loader)
{
    if (loader->memory_events < loader->memory_capacity)
        return true;
    size_t capacity = loader->memory_capacity;
    if (!array_grow((void **)&loader->sources, &capacity, loader->memory_events,
                    sizeof *loader->sources, 1024))
        return false;
    if (loader->plane->has_group_id || loader->file_groups) {
        size_t groups = loader->memory_capacity;
        if (!array_grow((void **)&loader->file_groups, &groups, loader->memory_events,
                        sizeof *loader->file_groups, 1024))
            return false;
    }
    loader->memory_capacity = capacity;
    return true;
}

/* ---- the nesting stack and the forest ---- */

/* The node of open event `index`, made (with the nodes of the open events
 * below it that have none) when it has none yet: an event enclosing a
 * kept one is kept. */
static bool open_event_node(struct xspace_loader *loader, size_t index, uint32_t *node)
{
    struct xspace_open_event *open = loader->open;
    size_t first = index;
    while (open[first].node == XSPACE_NO_NODE && first > 0 &&
           open[first - 1].node == XSPACE_NO_NODE)
        first--;
    for (size_t i = first; i <= index; i++) {
        if (open[i].node != XSPACE_NO_NODE)
            continue;
        if (!xspace_forest_add_node(&loader->forest, 0, &open[i].node) ||
            (i > 0 && !xspace_forest_add_edge(&loader->forest, open[i - 1].node, open[i].node)))
            return false;
    }
    *node = open[index].node;
    return true;
}

/* Pops the open events that do not enclose [begin, end]; the index + 1 of
 * the one that does (0: none). */
static size_t open_find_parent(struct xspace_loader *loader, uint64_t begin, uint64_t end)
{
    while (loader->open_count > 0) {
        const struct xspace_open_event *top = &loader->open[loader->open_count - 1];
        if (top->begin <= begin && end <= top->end)
            break;
        loader->open_count--;
    }
    return loader->open_count;
}

/* GetContextStat: the first stat of a kind on the event itself, else on
 * the nearest enclosing event that has one. */
static bool context_stat(const struct xspace_loader *loader, size_t parent, bool own, uint64_t own_bits,
                         bool iteration, uint64_t *bits)
{
    if (own) {
        *bits = own_bits;
        return true;
    }
    for (size_t i = parent; i > 0; i--) {
        const struct xspace_open_event *open = &loader->open[i - 1];
        if (iteration ? open->has_iteration : open->has_id) {
            *bits = iteration ? open->iteration : open->id;
            return true;
        }
    }
    return false;
}

static bool executor_add(struct xspace_loader *loader, const struct event_reading *reading,
                         uint32_t node, size_t parent, bool iterator, int64_t begin_ps)
{
    struct xspace_executor executor = {
        .node = node,
        .is_iterator = iterator,
        .has_own_id = reading->has_first_id,
        .has_own_iteration = reading->has_first_iteration,
        .own_id = read_int(&reading->first_id),
        .own_iteration = read_int(&reading->first_iteration),
        .begin_ps = begin_ps,
    };
    executor.has_context_id =
        context_stat(loader, parent, reading->has_first_id,
                     read_int_or_uint(&reading->first_id), false, &executor.context_id);
    executor.has_context_iteration =
        context_stat(loader, parent, reading->has_first_iteration,
                     read_int_or_uint(&reading->first_iteration), true,
                     &executor.context_iteration);
    return xspace_forest_add_executor(&loader->forest, &executor);
}

/* XProf's root level of an event: what preprocessing sets, else _r (an
 * int, as GroupingEventStats keeps it), else 1 for a legacy TraceContext. */
static int32_t root_level(uint8_t kind, const struct event_reading *reading)
{
    if (kind == XSPACE_EVENT_ROOT_LEVEL_1 || kind == XSPACE_EVENT_ROOT_LEVEL_2)
        return kind == XSPACE_EVENT_ROOT_LEVEL_1 ? 1 : 2;
    if (SEEN(reading, XSPACE_STAT_IS_ROOT))
        return wire_int32((uint64_t)read_int(&reading->values[XSPACE_STAT_IS_ROOT]));
    return kind == XSPACE_EVENT_TRACE_CONTEXT ? 1 : 0;
}

static bool context_add(struct xspace_loader *loader, const struct event_reading *reading,
                        uint32_t node, bool consumer)
{
    enum xspace_stat_kind type = consumer ? XSPACE_STAT_CONSUMER_TYPE : XSPACE_STAT_PRODUCER_TYPE;
    enum xspace_stat_kind id = consumer ? XSPACE_STAT_CONSUMER_ID : XSPACE_STAT_PRODUCER_ID;
    if (!SEEN(reading, type) || !SEEN(reading, id))
        return true;
    struct xspace_context context = {
        .type = wire_int32((uint64_t)read_int(&reading->values[type])),
        .id = read_int_or_uint(&reading->values[id]),
        .node = node,
        .consumer = consumer,
    };
    return xspace_forest_add_context(&loader->forest, &context);
}

/* The node of an event that has a part in the grouping, with its edge
 * from the enclosing event, its root, contexts and executor records. */
static bool event_node(struct xspace_loader *loader, uint8_t kind,
                       const struct event_reading *reading, size_t parent, int32_t level,
                       int64_t begin_ps, uint32_t *node)
{
    uint32_t parent_node = XSPACE_NO_NODE;
    if (parent > 0 && !open_event_node(loader, parent - 1, &parent_node))
        return false;
    if (!xspace_forest_add_node(&loader->forest, level, node) ||
        (parent_node != XSPACE_NO_NODE &&
         !xspace_forest_add_edge(&loader->forest, parent_node, *node)))
        return false;
    if (level != 0) {
        struct xspace_root root = {
            .node = *node, .level = level, .begin_ps = begin_ps,
            .has_step_id = reading->has_first_id, .step_id = read_int(&reading->first_id)};
        if (!xspace_forest_add_root(&loader->forest, &root))
            return false;
    }
    if (!context_add(loader, reading, *node, false) || !context_add(loader, reading, *node, true))
        return false;
    if (kind == XSPACE_EVENT_EXECUTOR_PROCESS || kind == XSPACE_EVENT_ITERATOR_GET_NEXT)
        return executor_add(loader, reading, *node, parent,
                            kind == XSPACE_EVENT_ITERATOR_GET_NEXT, begin_ps);
    return true;
}

static bool open_push(struct xspace_loader *loader, const struct xspace_open_event *event)
{
    if (!array_grow((void **)&loader->open, &loader->open_capacity, loader->open_count,
                    sizeof *loader->open, 64))
        return false;
    loader->open[loader->open_count++] = *event;
    return true;
}

/* ---- events and lines ---- */

static bool has_part(uint8_t kind, const struct event_reading *reading, int32_t level)
{
    return level != 0 || kind == XSPACE_EVENT_EXECUTOR_PROCESS ||
           kind == XSPACE_EVENT_ITERATOR_GET_NEXT ||
           (SEEN(reading, XSPACE_STAT_PRODUCER_TYPE) && SEEN(reading, XSPACE_STAT_PRODUCER_ID)) ||
           (SEEN(reading, XSPACE_STAT_CONSUMER_TYPE) && SEEN(reading, XSPACE_STAT_CONSUMER_ID));
}

/* A memory event's source node and group_id stat, at its walk index. */
static bool memory_event_source(struct xspace_loader *loader, struct line_walk *walk,
                                const struct event_reading *reading, uint32_t source,
                                size_t *walk_index)
{
    if (walk->redo) {
        *walk_index = walk->next_memory++;
    } else {
        if (!memory_reserve(loader))
            return false;
        *walk_index = loader->memory_events++;
    }
    loader->sources[*walk_index] = source;
    if (loader->file_groups)
        loader->file_groups[*walk_index] =
            SEEN(reading, XSPACE_STAT_GROUP_ID)
                ? read_int(&reading->values[XSPACE_STAT_GROUP_ID]) : -1;
    return true;
}

static enum load_status event_walk(struct xspace_loader *loader, struct line_walk *walk,
                                   const struct wire_field *event, struct event_reading *reading)
{
    struct event_fields fields;
    enum load_status status = event_read(loader, event, &fields, reading);
    if (status != LOAD_OK)
        return status;
    const struct xspace_metadata *metadata = xspace_metadata_find(&loader->plane->events,
                                                                  fields.key);
    uint8_t kind = metadata ? metadata->kind : XSPACE_EVENT_OTHER;
    uint64_t begin = walk->base_ps + (uint64_t)fields.offset_ps;
    uint64_t end = begin + (uint64_t)fields.duration_ps;
    bool async = SEEN(reading, XSPACE_STAT_IS_ASYNC) &&
                 read_int(&reading->values[XSPACE_STAT_IS_ASYNC]) != 0;
    size_t parent = async ? 0 : open_find_parent(loader, begin, end);
    int32_t level = root_level(kind, reading);
    bool memory = walk->mode == XSPACE_WALK_HOST && (kind == XSPACE_EVENT_MEMORY_ALLOCATION ||
                                                     kind == XSPACE_EVENT_MEMORY_DEALLOCATION);
    uint32_t node = XSPACE_NO_NODE;
    if (kind == XSPACE_EVENT_TF_DATA_FUNCTION && reading->has_first_id &&
        !xspace_forest_add_tf_data_step(&loader->forest, read_int(&reading->first_id)))
        return xspace_fail_memory(loader, event->offset);
    if (has_part(kind, reading, level) &&
        !event_node(loader, kind, reading, parent, level, wire_int64(begin), &node))
        return xspace_fail_memory(loader, event->offset);
    if (memory) {
        uint32_t source = node;
        size_t walk_index;
        if ((source == XSPACE_NO_NODE && parent > 0 &&
             !open_event_node(loader, parent - 1, &source)) ||
            !memory_event_source(loader, walk, reading, source, &walk_index))
            return xspace_fail_memory(loader, event->offset);
        if (!walk->redo) {
            status = memory_event_add(loader, &fields, reading,
                                      kind == XSPACE_EVENT_MEMORY_ALLOCATION, walk_index);
            if (status != LOAD_OK)
                return status;
        }
    }
    if (async)
        return LOAD_OK;
    struct xspace_open_event open = {
        .begin = begin, .end = end, .node = node,
        .has_id = reading->has_first_id, .has_iteration = reading->has_first_iteration,
        .id = read_int_or_uint(&reading->first_id),
        .iteration = read_int_or_uint(&reading->first_iteration),
    };
    return open_push(loader, &open) ? LOAD_OK : xspace_fail_memory(loader, event->offset);
}

static const char *const line_field_names[] = {
    [1] = "id", [2] = "name", [3] = "timestamp_ns", [4] = "events",
};

/* Walks the events of `line` taking `timestamp_ns` as the line's; says
 * in *final_ns what the line's last timestamp_ns field says. */
static enum load_status line_walk(struct xspace_loader *loader, struct line_walk *walk,
                                  struct xspace_span line, int64_t timestamp_ns,
                                  int64_t *final_ns, struct event_reading *reading)
{
    walk->base_ps = (uint64_t)timestamp_ns * 1000u;
    loader->open_count = 0;
    *final_ns = 0;
    struct wire_field field;
    for (size_t position = line.start; position < line.end;) {
        enum load_status status = wire_read_field(&loader->wire, &position, line.end, &field);
        if (status == LOAD_OK && field.number <= 4)
            status = wire_expect(&loader->wire, &field,
                                 field.number == 2 || field.number == 4 ? WIRE_LENGTH : WIRE_VARINT,
                                 line_field_names[field.number]);
        if (status == LOAD_OK && field.number == 4)
            status = event_walk(loader, walk, &field, reading);
        if (status != LOAD_OK)
            return status;
        if (field.number == 3)
            *final_ns = wire_int64(field.value);
        if (position >= walk->next_track) {
            load_tracker_advance(loader->tracker, position);
            walk->next_track = position + LOAD_TRACKER_STEP / 4;
        }
    }
    return LOAD_OK;
}

enum load_status xspace_walk_plane(struct xspace_loader *loader, const struct xspace_plane *plane,
                                   enum xspace_walk_mode mode)
{
    struct event_reading *reading = malloc(sizeof *reading);
    if (!reading)
        return xspace_fail_memory(loader, plane->offset);
    loader->plane = plane;
    struct line_walk walk = {.mode = mode};
    enum load_status status = LOAD_OK;
    for (size_t l = 0; status == LOAD_OK && l < plane->line_count; l++) {
        struct xspace_line_head head;
        status = xspace_line_head(&loader->wire, plane->lines[l], &head);
        struct xspace_forest_mark mark = xspace_forest_mark(&loader->forest);
        size_t first_memory = loader->memory_events;
        int64_t final_ns = head.timestamp_ns;
        if (status == LOAD_OK)
            status = line_walk(loader, &walk, plane->lines[l], head.timestamp_ns, &final_ns,
                               reading);
        if (status != LOAD_OK || final_ns == head.timestamp_ns)
            continue;
        /* A timestamp_ns after the events (or repeated: the last wins)
         * moves them all: the grouping part is walked again. */
        xspace_forest_rewind(&loader->forest, &mark);
        walk.redo = true;
        walk.next_memory = first_memory;
        status = line_walk(loader, &walk, plane->lines[l], final_ns, &final_ns, reading);
        walk.redo = false;
    }
    free(reading);
    loader->plane = NULL;
    return status;
}

void xspace_loader_free(struct xspace_loader *loader)
{
    free(loader->summaries);
    free(loader->sources);
    free(loader->file_groups);
    free(loader->open);
    xspace_forest_free(&loader->forest);
}
