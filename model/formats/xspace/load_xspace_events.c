/* load_xspace_events: the walk over a plane's lines and events.
 *
 * Each event's fields and stats are read straight from the input. A
 * memory event of the host plane becomes a snapshot by XProf's reading
 * rules (docs/formats/xspace.md): every stat whose key is in the plane's
 * stat-metadata map and whose name XProf knows counts, the last of a kind
 * winning; an integer field reads only an int64 value, a double only a
 * double, a string a str value or the name a ref points at. XProf's
 * summary is kept as it computes it, in walk order.
 *
 * For step grouping (load_xspace_forest.c) only the events that have a
 * part in it become nodes: step markers, events with producer/consumer
 * stats, executor and iterator events. The nesting stack holds every open
 * event of the line, so the nesting is exactly XProf's, but an event
 * without a part needs no node: its only edge in is from its enclosing
 * event, so it has that event's group, and so would anything nested in
 * it. A node's parent, and a memory event's source of group, is thus the
 * nearest enclosing event that has a node; memory stays proportional to
 * the events that have a part, not to the file. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/util/array_grow.h"
#include "model/formats/xspace/xspace_internal.h"

/* An open event of the line being walked: an entry of the nesting stack. */
struct xspace_open_event {
    uint64_t begin, end; /* absolute picoseconds, unsigned as XProf's Timespan */
    uint32_t node;       /* its own, or XSPACE_NO_NODE */
    uint32_t nearest;    /* its node, or the nearest enclosing event's (or none) */
    uint64_t key;        /* its event metadata id: what names it (attribution) */
    /* What a memory event without an op directly inside it is named
     * (xspace_attribute), once asked: `named`. */
    bool named;
    struct xspace_names names;
    bool has_id, has_iteration;
    uint64_t id, iteration; /* its first "id" and "iter_num" stats, as 64-bit patterns */
};

/* ---- the nesting stack and the forest ---- */

/* The node nested events take their group from: the nearest enclosing
 * event's that has one (parent: index + 1 of the enclosing event, 0: none). */
static uint32_t enclosing_node(const struct xspace_loader *loader, size_t parent)
{
    return parent > 0 ? loader->open[parent - 1].nearest : XSPACE_NO_NODE;
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
static bool context_stat(const struct xspace_loader *loader, size_t parent, bool own,
                         uint64_t own_bits,
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

static bool executor_add(struct xspace_loader *loader, const struct xspace_reading *reading,
                         uint32_t node, size_t parent, bool iterator, int64_t begin_ps)
{
    struct xspace_executor executor = {.begin_ps = begin_ps, .node = node};
    bool own_id = reading->has_first_id, own_iteration = reading->has_first_iteration;
    executor.flags = (uint8_t)(
        (iterator ? XSPACE_EXECUTOR_ITERATOR : 0) | (own_id ? XSPACE_EXECUTOR_OWN_ID : 0) |
        (own_iteration ? XSPACE_EXECUTOR_OWN_ITERATION : 0) |
        (own_id && reading->first_id.member == XSPACE_MEMBER_INT64
             ? XSPACE_EXECUTOR_OWN_ID_INT64 : 0) |
        (own_iteration && reading->first_iteration.member == XSPACE_MEMBER_INT64
             ? XSPACE_EXECUTOR_OWN_ITERATION_INT64 : 0));
    if (context_stat(loader, parent, own_id, xspace_value_int_or_uint(&reading->first_id), false,
                     &executor.id))
        executor.flags |= XSPACE_EXECUTOR_HAS_ID;
    if (context_stat(loader, parent, own_iteration,
                     xspace_value_int_or_uint(&reading->first_iteration), true,
                     &executor.iteration))
        executor.flags |= XSPACE_EXECUTOR_HAS_ITERATION;
    return xspace_forest_add_executor(&loader->forest, &executor);
}

/* XProf's root level of an event: what preprocessing sets, else _r (an
 * int, as GroupingEventStats keeps it), else 1 for a legacy TraceContext. */
static int32_t root_level(uint8_t kind, const struct xspace_reading *reading)
{
    if (kind == XSPACE_EVENT_ROOT_LEVEL_1 || kind == XSPACE_EVENT_ROOT_LEVEL_2)
        return kind == XSPACE_EVENT_ROOT_LEVEL_1 ? 1 : 2;
    if (xspace_seen(reading, XSPACE_STAT_IS_ROOT))
        return wire_int32((uint64_t)xspace_value_int(&reading->values[XSPACE_STAT_IS_ROOT]));
    return kind == XSPACE_EVENT_TRACE_CONTEXT ? 1 : 0;
}

static bool context_add(struct xspace_loader *loader, const struct xspace_reading *reading,
                        uint32_t node, bool consumer)
{
    enum xspace_stat_kind type = consumer ? XSPACE_STAT_CONSUMER_TYPE : XSPACE_STAT_PRODUCER_TYPE;
    enum xspace_stat_kind id = consumer ? XSPACE_STAT_CONSUMER_ID : XSPACE_STAT_PRODUCER_ID;
    if (!xspace_seen(reading, type) || !xspace_seen(reading, id))
        return true;
    struct xspace_context context = {
        .type = wire_int32((uint64_t)xspace_value_int(&reading->values[type])),
        .id = xspace_value_int_or_uint(&reading->values[id]),
        .node = node,
        .consumer = consumer,
    };
    return xspace_forest_add_context(&loader->forest, &context);
}

/* The node of an event that has a part in the grouping, with its edge
 * from the enclosing event, its root, contexts and executor records. */
static bool event_node(struct xspace_loader *loader, uint8_t kind,
                       const struct xspace_reading *reading, size_t parent, int32_t level,
                       int64_t begin_ps, uint32_t *node)
{
    uint32_t parent_node = enclosing_node(loader, parent);
    if (!xspace_forest_add_node(&loader->forest, level, node) ||
        (parent_node != XSPACE_NO_NODE &&
         !xspace_forest_add_edge(&loader->forest, parent_node, *node)))
        return false;
    if (level != 0) {
        struct xspace_root root = {
            .node = *node, .level = level, .begin_ps = begin_ps,
            .has_step_id = reading->has_first_id, .step_id = xspace_value_int(&reading->first_id)};
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

/* A new entry on top of the nesting stack, its fields for the caller to
 * fill (NULL when memory runs out). Filled in place: one event's worth
 * of stores, not a struct built and copied, on the walk's busiest path. */
static struct xspace_open_event *open_push(struct xspace_loader *loader)
{
    if (!array_grow((void **)&loader->open, &loader->open_capacity, loader->open_count,
                    sizeof *loader->open, 64))
        return NULL;
    return &loader->open[loader->open_count++];
}

/* ---- events and lines ---- */

static bool has_part(uint8_t kind, const struct xspace_reading *reading, int32_t level)
{
    return level != 0 || kind == XSPACE_EVENT_EXECUTOR_PROCESS ||
           kind == XSPACE_EVENT_ITERATOR_GET_NEXT ||
           (xspace_seen(reading, XSPACE_STAT_PRODUCER_TYPE) &&
            xspace_seen(reading, XSPACE_STAT_PRODUCER_ID)) ||
           (xspace_seen(reading, XSPACE_STAT_CONSUMER_TYPE) &&
            xspace_seen(reading, XSPACE_STAT_CONSUMER_ID));
}

/* On a line walked again, a memory event's snapshot gets its new source:
 * the snapshots of the line follow each allocator's length at its start. */
static bool memory_event_again(struct xspace_loader *loader, const struct xspace_reading *reading,
                               int64_t raw_step)
{
    size_t index;
    if (!xspace_memory_allocator(loader, reading, &index))
        return false;
    size_t first = index < loader->line_allocators ? loader->line_counts[index] : 0;
    struct snapshot_columns *timeline = profile_builder_timeline(loader->builder, index);
    size_t position = first + loader->line_seen[index]++;
    if (position < timeline->count)
        timeline->step_id[position] = raw_step;
    return true;
}

/* Names the chain of open events 0 .. parent - 1 into *names (once per
 * chain: the caller keeps them, and *named, on the innermost); false
 * when memory runs out. */
static bool enclosing_names_make(struct xspace_loader *loader, size_t parent, bool *named,
                                 struct xspace_names *names)
{
    uint64_t keys[64];
    size_t count = parent < 64 ? parent : 64;
    for (size_t i = 0; i < count; i++)
        keys[i] = loader->open[parent - count + i].key;
    if (!xspace_attribute(loader, keys, count, names))
        return false;
    *named = true;
    return true;
}

/* The names of the chain of open events 0 .. parent - 1, kept on the
 * innermost (the loader keeps those of the empty chain); false when memory
 * runs out. Asked for every memory event: once named, a look-up. */
static inline bool enclosing_names(struct xspace_loader *loader, size_t parent,
                                   const struct xspace_names **out)
{
    bool *named = parent > 0 ? &loader->open[parent - 1].named : &loader->outside_named;
    struct xspace_names *names = parent > 0 ? &loader->open[parent - 1].names
                                            : &loader->outside_names;
    if (!*named && !enclosing_names_make(loader, parent, named, names))
        return false;
    *out = names;
    return true;
}

enum load_status xspace_event_apply(struct xspace_loader *loader, struct xspace_walk *walk,
                                    const struct xspace_event *event,
                                    const struct xspace_reading *reading)
{
    enum load_status status;
    int found = xspace_metadata_kind(&loader->plane->events, event->key);
    uint8_t kind = found > 0 ? (uint8_t)found : XSPACE_EVENT_OTHER;
    uint64_t begin = walk->base_ps + (uint64_t)event->offset_ps;
    uint64_t end = begin + (uint64_t)event->duration_ps;
    bool async = xspace_seen(reading, XSPACE_STAT_IS_ASYNC) &&
                 xspace_value_int(&reading->values[XSPACE_STAT_IS_ASYNC]) != 0;
    size_t parent = async ? 0 : open_find_parent(loader, begin, end);
    int32_t level = root_level(kind, reading);
    bool memory = walk->mode == XSPACE_WALK_HOST && (kind == XSPACE_EVENT_MEMORY_ALLOCATION ||
                                                     kind == XSPACE_EVENT_MEMORY_DEALLOCATION);
    uint32_t node = XSPACE_NO_NODE;
    if (kind == XSPACE_EVENT_TF_DATA_FUNCTION && reading->has_first_id &&
        !xspace_forest_add_tf_data_step(&loader->forest, xspace_value_int(&reading->first_id)))
        return xspace_fail_memory(loader, event->offset);
    if (has_part(kind, reading, level) &&
        !event_node(loader, kind, reading, parent, level, wire_int64(begin), &node))
        return xspace_fail_memory(loader, event->offset);
    if (memory) {
        uint32_t source = node != XSPACE_NO_NODE ? node : enclosing_node(loader, parent);
        int64_t raw = source == XSPACE_NO_NODE ? -1 : (int64_t)source;
        if (loader->host_groups)
            raw = xspace_seen(reading, XSPACE_STAT_GROUP_ID)
                      ? xspace_value_int(&reading->values[XSPACE_STAT_GROUP_ID]) : -1;
        if (!walk->redo) {
            const struct xspace_names *names = NULL;
            /* JAX writes no tf_op: what encloses the event names it. */
            if (!xspace_seen(reading, XSPACE_STAT_TF_OP) && !enclosing_names(loader, parent, &names))
                return xspace_fail_memory(loader, event->offset);
            loader->memory_events++;
            status = xspace_memory_event_add(loader, event, reading, names,
                                             kind == XSPACE_EVENT_MEMORY_ALLOCATION, raw);
            if (status != LOAD_OK)
                return status;
        } else if (!loader->host_groups && !memory_event_again(loader, reading, raw)) {
            return xspace_fail_memory(loader, event->offset);
        }
    }
    if (async)
        return LOAD_OK;
    uint32_t nearest = node != XSPACE_NO_NODE ? node : enclosing_node(loader, parent);
    struct xspace_open_event *open = open_push(loader);
    if (!open)
        return xspace_fail_memory(loader, event->offset);
    open->begin = begin;
    open->end = end;
    open->node = node;
    open->nearest = nearest;
    open->key = event->key;
    open->named = false; /* `names` is read only once named */
    open->has_id = reading->has_first_id;
    open->has_iteration = reading->has_first_iteration;
    open->id = xspace_value_int_or_uint(&reading->first_id);
    open->iteration = xspace_value_int_or_uint(&reading->first_iteration);
    return LOAD_OK;
}

/* Walks the events of `line` (begun by xspace_line_start or _again);
 * says in *final_ns what the line's last timestamp_ns field says. */
static enum load_status line_walk(struct xspace_loader *loader, struct xspace_walk *walk,
                                  struct xspace_span line, int64_t *final_ns,
                                  struct xspace_reading *reading)
{
    *final_ns = 0;
    struct wire_field field;
    for (size_t position = line.start; position < line.end;) {
        enum load_status status = xspace_line_field(&loader->wire, &position, line.end, &field);
        struct xspace_event event;
        if (status == LOAD_OK && field.number == 4)
            status = xspace_event_read(&loader->wire, &loader->plane->stats, &field, &event,
                                       reading);
        if (status == LOAD_OK && field.number == 4)
            status = xspace_event_apply(loader, walk, &event, reading);
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

/* Each allocator's timeline length now, as a line begins. */
static bool line_counts_keep(struct xspace_loader *loader)
{
    const struct profile *profile = loader->builder->profile;
    if (!array_grow((void **)&loader->line_counts, &loader->line_capacity,
                    profile->allocator_count, sizeof *loader->line_counts, 8))
        return false;
    for (size_t a = 0; a < profile->allocator_count; a++)
        loader->line_counts[a] = profile->allocators[a].timeline.count;
    loader->line_allocators = profile->allocator_count;
    return true;
}

bool xspace_line_start(struct xspace_loader *loader, struct xspace_walk *walk,
                       int64_t timestamp_ns)
{
    walk->base_ps = (uint64_t)timestamp_ns * 1000u;
    walk->redo = false;
    walk->mark = xspace_forest_mark(&loader->forest);
    loader->open_count = 0;
    return line_counts_keep(loader);
}

/* A timestamp_ns after the events (or repeated: the last wins) moves them
 * all: the grouping part of the line is walked again. */
bool xspace_line_again(struct xspace_loader *loader, struct xspace_walk *walk, int64_t final_ns)
{
    xspace_forest_rewind(&loader->forest, &walk->mark);
    free(loader->line_seen);
    loader->line_seen = calloc(loader->builder->profile->allocator_count + 1,
                               sizeof *loader->line_seen);
    walk->base_ps = (uint64_t)final_ns * 1000u;
    walk->redo = true;
    loader->open_count = 0;
    return loader->line_seen != NULL;
}

static enum load_status walk_lines(struct xspace_loader *loader, struct xspace_walk *walk,
                                   const struct xspace_plane *plane)
{
    struct xspace_reading *reading = malloc(sizeof *reading);
    if (!reading)
        return xspace_fail_memory(loader, plane->offset);
    enum load_status status = LOAD_OK;
    for (size_t l = 0; status == LOAD_OK && l < plane->line_count; l++) {
        struct xspace_line_head head;
        status = xspace_line_head(&loader->wire, plane->lines[l], &head);
        if (status == LOAD_OK && !xspace_line_start(loader, walk, head.timestamp_ns))
            status = xspace_fail_memory(loader, plane->lines[l].start);
        int64_t final_ns = head.timestamp_ns;
        if (status == LOAD_OK)
            status = line_walk(loader, walk, plane->lines[l], &final_ns, reading);
        if (status != LOAD_OK || final_ns == head.timestamp_ns)
            continue;
        if (!xspace_line_again(loader, walk, final_ns))
            status = xspace_fail_memory(loader, plane->lines[l].start);
        if (status == LOAD_OK)
            status = line_walk(loader, walk, plane->lines[l], &final_ns, reading);
        walk->redo = false;
    }
    free(reading);
    return status;
}

enum load_status xspace_walk_plane(struct xspace_loader *loader, struct xspace_plane *plane,
                                   enum xspace_walk_mode mode)
{
    loader->plane = plane;
    struct xspace_walk walk = {.mode = mode};
    size_t bytes = plane->line_count > 0
                       ? plane->lines[plane->line_count - 1].end - plane->lines[0].start : 0;
    if (mode == XSPACE_WALK_HOST) {
        /* A memory event takes 100 bytes or more (a dozen stats). */
        loader->memory_estimate = bytes / 100 + 16;
        loader->host_groups = plane->has_group_id;
    }
    enum load_status status = mode == XSPACE_WALK_HOST && xspace_pipeline_wanted(bytes)
                                  ? xspace_walk_pipelined(loader, &walk, plane)
                                  : walk_lines(loader, &walk, plane);
    loader->plane = NULL;
    return status;
}

void xspace_loader_free(struct xspace_loader *loader)
{
    free(loader->summaries);
    free(loader->line_counts);
    free(loader->line_seen);
    free(loader->open);
    xspace_forest_free(&loader->forest);
}
