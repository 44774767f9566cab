/* load_xspace_forest: XProf's step grouping (docs/formats/xspace.md), over
 * the events the walk kept.
 *
 * What XProf does (openxla/xla xla/tsl/profiler/utils/group_events.cc,
 * GroupTfEvents; read for this file, restated here): every event is a
 * node; on each line an event's parent is the nearest event enclosing it
 * (the walk found those edges); producers get every consumer with the
 * same (_pt, _p) = (_ct, _c) as a child, unless both sides number 64 or
 * more; ExecutorState::Process gets the IteratorGetNext events with the
 * same (id, iter_num) as children. TF loop iterations (ExecutorState::Process
 * events of one id with iter_num other than 0) become the roots when there
 * are any; otherwise the roots are the events with a root level (_r, or a
 * legacy TraceContext), minus those of tf.data functions' step ids, taken
 * by level (higher first) then start. A root that already has a group, or
 * with an ancestor of its own level, makes none; the others number the
 * groups 0, 1, 2... in that order, each given breadth-first to every node
 * reachable from the root through nodes that have none yet.
 *
 * Producers and consumers of one context with many of each go through one
 * extra node between them (a hub) instead of one edge per pair: the groups
 * come out the same, the edges stay linear. Equal root starts (an order
 * XProf leaves to its unstable sort) keep the file's order here. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "model/util/array_grow.h"
#include "model/formats/xspace/xspace_internal.h"

/* ---- building ---- */

bool xspace_forest_add_node(struct xspace_forest *forest, int32_t level, uint32_t *node)
{
    size_t capacity = forest->node_capacity;
    if (forest->node_count >= UINT32_MAX - 1 ||
        !array_grow((void **)&forest->levels, &capacity, forest->node_count,
                    sizeof *forest->levels, 1024))
        return false;
    forest->node_capacity = (uint32_t)(capacity < UINT32_MAX ? capacity : UINT32_MAX - 1);
    forest->levels[forest->node_count] = level;
    *node = forest->node_count++;
    return true;
}

#define FOREST_APPEND(forest, array, count, capacity, item)                                     \
    (array_grow((void **)&(forest)->array, &(forest)->capacity, (forest)->count,                 \
                sizeof *(forest)->array, 256) &&                                                  \
     ((forest)->array[(forest)->count++] = (item), true))

bool xspace_forest_add_edge(struct xspace_forest *forest, uint32_t parent, uint32_t child)
{
    struct xspace_edge edge = {parent, child};
    return FOREST_APPEND(forest, edges, edge_count, edge_capacity, edge);
}

bool xspace_forest_add_root(struct xspace_forest *forest, const struct xspace_root *root)
{
    return FOREST_APPEND(forest, roots, root_count, root_capacity, *root);
}

bool xspace_forest_add_context(struct xspace_forest *forest, const struct xspace_context *context)
{
    return FOREST_APPEND(forest, contexts, context_count, context_capacity, *context);
}

bool xspace_forest_add_executor(struct xspace_forest *forest,
                                const struct xspace_executor *executor)
{
    return FOREST_APPEND(forest, executors, executor_count, executor_capacity, *executor);
}

bool xspace_forest_add_tf_data_step(struct xspace_forest *forest, int64_t step_id)
{
    return FOREST_APPEND(forest, tf_data_step_ids, tf_data_count, tf_data_capacity, step_id);
}

struct xspace_forest_mark xspace_forest_mark(const struct xspace_forest *forest)
{
    return (struct xspace_forest_mark){forest->node_count, forest->edge_count, forest->root_count,
                                       forest->context_count, forest->executor_count,
                                       forest->tf_data_count};
}

void xspace_forest_rewind(struct xspace_forest *forest, const struct xspace_forest_mark *mark)
{
    forest->node_count = mark->nodes;
    forest->edge_count = mark->edges;
    forest->root_count = mark->roots;
    forest->context_count = mark->contexts;
    forest->executor_count = mark->executors;
    forest->tf_data_count = mark->tf_data;
}

void xspace_forest_free(struct xspace_forest *forest)
{
    free(forest->levels);
    free(forest->edges);
    free(forest->roots);
    free(forest->contexts);
    free(forest->executors);
    free(forest->tf_data_step_ids);
    free(forest->groups);
    memset(forest, 0, sizeof *forest);
}

/* ---- sorting helpers ---- */

static int compare_int64(const void *a, const void *b)
{
    int64_t left = *(const int64_t *)a, right = *(const int64_t *)b;
    return (left > right) - (left < right);
}

static bool tf_data_step(const struct xspace_forest *forest, int64_t step_id)
{
    return forest->tf_data_count > 0 &&
           bsearch(&step_id, forest->tf_data_step_ids, forest->tf_data_count,
                   sizeof step_id, compare_int64) != NULL;
}

/* ---- context groups ---- */

/* The producers and consumers of one (type, id), as a list through
 * `next` (an index per context) in walk order. */
struct context_group {
    uint64_t id;
    int32_t type;
    bool used;
    uint32_t head, tail;
    uint32_t producers, consumers;
};

struct context_groups {
    struct context_group *slots;
    size_t capacity, count;
    uint32_t *next;
};

static size_t context_slot(int32_t type, uint64_t id, size_t capacity)
{
    uint64_t hash = (id ^ ((uint64_t)(uint32_t)type << 32)) * UINT64_C(0x9e3779b97f4a7c15);
    return (size_t)(hash >> 32) & (capacity - 1);
}

static struct context_group *context_group_of(struct context_groups *groups, int32_t type,
                                              uint64_t id)
{
    size_t slot = context_slot(type, id, groups->capacity);
    while (groups->slots[slot].used &&
           (groups->slots[slot].type != type || groups->slots[slot].id != id))
        slot = (slot + 1) & (groups->capacity - 1);
    return &groups->slots[slot];
}

static bool context_groups_grow(struct context_groups *groups)
{
    if ((groups->count + 1) * 2 <= groups->capacity)
        return true;
    struct context_groups bigger = *groups;
    bigger.capacity = groups->capacity ? groups->capacity * 2 : 64;
    bigger.slots = calloc(bigger.capacity, sizeof *bigger.slots);
    if (!bigger.slots)
        return false;
    for (size_t i = 0; i < groups->capacity; i++)
        if (groups->slots[i].used)
            *context_group_of(&bigger, groups->slots[i].type, groups->slots[i].id) =
                groups->slots[i];
    free(groups->slots);
    *groups = bigger;
    return true;
}

/* Few pairs: an edge each (as XProf). Many: producers -> hub -> consumers,
 * and a node on both sides keeps its edge to itself, which XProf's search
 * for a same-level ancestor can meet. Both lists are in walk order, which
 * is node order. */
#define CONTEXT_DIRECT_PAIRS 4096

static bool connect_context(struct xspace_forest *forest, const uint32_t *producer,
                            size_t producers, const uint32_t *consumer, size_t consumers)
{
    if (producers * consumers <= CONTEXT_DIRECT_PAIRS) {
        for (size_t p = 0; p < producers; p++)
            for (size_t c = 0; c < consumers; c++)
                if (!xspace_forest_add_edge(forest, producer[p], consumer[c]))
                    return false;
        return true;
    }
    uint32_t hub;
    if (!xspace_forest_add_node(forest, 0, &hub))
        return false;
    for (size_t p = 0; p < producers; p++)
        if (!xspace_forest_add_edge(forest, producer[p], hub))
            return false;
    for (size_t c = 0, p = 0; c < consumers; c++) {
        if (!xspace_forest_add_edge(forest, hub, consumer[c]))
            return false;
        while (p < producers && producer[p] < consumer[c])
            p++;
        if (p < producers && producer[p] == consumer[c] &&
            !xspace_forest_add_edge(forest, consumer[c], consumer[c]))
            return false;
    }
    return true;
}

/* One group's nodes gathered (producers, then consumers) into `nodes`. */
static bool connect_group(struct xspace_forest *forest, const struct context_groups *groups,
                          const struct context_group *group, uint32_t *nodes)
{
    if (group->producers == 0 || group->consumers == 0 ||
        (group->producers >= 64 && group->consumers >= 64))
        return true;
    size_t producers = 0, consumers = group->producers;
    for (uint32_t c = group->head; c != UINT32_MAX; c = groups->next[c]) {
        const struct xspace_context *context = &forest->contexts[c];
        nodes[context->consumer ? consumers++ : producers++] = context->node;
    }
    return connect_context(forest, nodes, group->producers, nodes + group->producers,
                           group->consumers);
}

/* Contexts by (type, id) through a hash table, not a sort: linear, and
 * only an index per context besides the groups. */
static bool connect_contexts(struct xspace_forest *forest)
{
    size_t count = forest->context_count;
    struct context_groups groups = {.next = malloc((count + 1) * sizeof *groups.next)};
    bool ok = groups.next != NULL;
    size_t largest = 0;
    for (size_t i = 0; ok && i < count; i++) {
        const struct xspace_context *context = &forest->contexts[i];
        ok = context_groups_grow(&groups);
        struct context_group *group = ok ? context_group_of(&groups, context->type, context->id)
                                         : NULL;
        if (!group)
            break;
        if (!group->used) {
            *group = (struct context_group){context->id, context->type, true, (uint32_t)i,
                                            (uint32_t)i, 0, 0};
            groups.count++;
        } else {
            groups.next[group->tail] = (uint32_t)i;
            group->tail = (uint32_t)i;
        }
        groups.next[i] = UINT32_MAX;
        *(context->consumer ? &group->consumers : &group->producers) += 1;
        if ((size_t)group->producers + group->consumers > largest)
            largest = (size_t)group->producers + group->consumers;
    }
    uint32_t *nodes = ok ? malloc((largest + 1) * sizeof *nodes) : NULL;
    ok = ok && nodes;
    for (size_t g = 0; ok && g < groups.capacity; g++)
        if (groups.slots[g].used)
            ok = connect_group(forest, &groups, &groups.slots[g], nodes);
    free(nodes);
    free(groups.slots);
    free(groups.next);
    return ok;
}

/* ---- executors ---- */

static bool executor_has(const struct xspace_executor *executor, unsigned flags)
{
    return (executor->flags & flags) == flags;
}

/* A Process event with its own id and iter_num: a TF loop's part. */
static bool loop_event(const struct xspace_executor *executor)
{
    return !executor_has(executor, XSPACE_EXECUTOR_ITERATOR) &&
           executor_has(executor, XSPACE_EXECUTOR_OWN_ID | XSPACE_EXECUTOR_OWN_ITERATION);
}

/* Its own id and iter_num as IntValue reads them. */
static int64_t own_id(const struct xspace_executor *executor)
{
    return executor_has(executor, XSPACE_EXECUTOR_OWN_ID_INT64) ? wire_int64(executor->id) : 0;
}

static int64_t own_iteration(const struct xspace_executor *executor)
{
    return executor_has(executor, XSPACE_EXECUTOR_OWN_ITERATION_INT64)
               ? wire_int64(executor->iteration) : 0;
}

/* ---- ExecutorState::Process -> IteratorGetNext ---- */

/* A pair of 64-bit patterns and where it came from: sorted to find equal
 * pairs ((id, iter_num) of executors), the index breaking ties. */
struct pair_key {
    uint64_t first, second;
    size_t index;
};

static int compare_pair_keys(const void *a, const void *b)
{
    const struct pair_key *left = a, *right = b;
    if (left->first != right->first)
        return left->first < right->first ? -1 : 1;
    if (left->second != right->second)
        return left->second < right->second ? -1 : 1;
    return (left->index > right->index) - (left->index < right->index);
}

/* Each iterator event gets, as parent, the last Process event (in walk
 * order) with its (id, iter_num); both found as GetContextStat finds them. */
static bool connect_iterators(struct xspace_forest *forest)
{
    bool any = false;
    for (size_t i = 0; !any && i < forest->executor_count; i++)
        any = executor_has(&forest->executors[i], XSPACE_EXECUTOR_ITERATOR);
    if (!any)
        return true;
    size_t count = 0;
    struct pair_key *keys = malloc((forest->executor_count + 1) * sizeof *keys);
    if (!keys)
        return false;
    for (size_t i = 0; i < forest->executor_count; i++) {
        const struct xspace_executor *executor = &forest->executors[i];
        if (executor_has(executor, XSPACE_EXECUTOR_HAS_ID | XSPACE_EXECUTOR_HAS_ITERATION) &&
            !executor_has(executor, XSPACE_EXECUTOR_ITERATOR))
            keys[count++] = (struct pair_key){executor->id, executor->iteration, i};
    }
    qsort(keys, count, sizeof *keys, compare_pair_keys);
    bool ok = true;
    for (size_t i = 0; ok && count > 0 && i < forest->executor_count; i++) {
        const struct xspace_executor *iterator = &forest->executors[i];
        if (!executor_has(iterator, XSPACE_EXECUTOR_ITERATOR | XSPACE_EXECUTOR_HAS_ID |
                                        XSPACE_EXECUTOR_HAS_ITERATION))
            continue;
        /* the last key <= (id, iteration, any index) */
        struct pair_key wanted = {iterator->id, iterator->iteration, SIZE_MAX};
        size_t low = 0, high = count;
        while (low < high) {
            size_t middle = low + (high - low) / 2;
            if (compare_pair_keys(&keys[middle], &wanted) <= 0)
                low = middle + 1;
            else
                high = middle;
        }
        if (low > 0 && keys[low - 1].first == wanted.first &&
            keys[low - 1].second == wanted.second)
            ok = xspace_forest_add_edge(forest, forest->executors[keys[low - 1].index].node,
                                        iterator->node);
    }
    free(keys);
    return ok;
}

/* ---- graph lists ---- */

/* Compressed lists: the children (or parents) of node n are
 * list[start[n] .. start[n + 1]). */
struct adjacency {
    uint32_t *start;
    uint32_t *list;
};

static bool adjacency_build(const struct xspace_forest *forest, bool by_parent,
                            struct adjacency *adjacency)
{
    uint32_t nodes = forest->node_count;
    if (forest->edge_count >= UINT32_MAX)
        return false;
    adjacency->start = calloc((size_t)nodes + 2, sizeof *adjacency->start);
    adjacency->list = malloc((forest->edge_count + 1) * sizeof *adjacency->list);
    if (!adjacency->start || !adjacency->list)
        return false;
    for (size_t e = 0; e < forest->edge_count; e++)
        adjacency->start[(by_parent ? forest->edges[e].parent : forest->edges[e].child) + 2]++;
    for (uint32_t n = 0; n < nodes; n++)
        adjacency->start[n + 2] += adjacency->start[n + 1];
    for (size_t e = 0; e < forest->edge_count; e++) {
        const struct xspace_edge *edge = &forest->edges[e];
        uint32_t from = by_parent ? edge->parent : edge->child;
        adjacency->list[adjacency->start[from + 1]++] = by_parent ? edge->child : edge->parent;
    }
    return true;
}

static void adjacency_free(struct adjacency *adjacency)
{
    free(adjacency->start);
    free(adjacency->list);
}

/* A breadth-first walk's queue and "seen" marks (a node is seen when its
 * mark is the walk's number: no clearing between walks). */
struct walk {
    uint32_t *queue;
    uint32_t *marks;
    uint32_t number;
};

static bool walk_enter(struct walk *walk, uint32_t node, size_t *tail)
{
    if (walk->marks[node] == walk->number)
        return false;
    walk->marks[node] = walk->number;
    walk->queue[(*tail)++] = node;
    return true;
}

/* FindParentWithComparator: breadth-first over the root's ancestors (its
 * direct parents enter even when one is itself). */
static bool has_same_level_ancestor(const struct xspace_forest *forest,
                                    const struct adjacency *parents, uint32_t root,
                                    struct walk *walk)
{
    size_t head = 0, tail = 0;
    walk->number++;
    for (uint32_t p = parents->start[root]; p < parents->start[root + 1]; p++)
        walk_enter(walk, parents->list[p], &tail);
    walk->marks[root] = walk->number;
    while (head < tail) {
        uint32_t node = walk->queue[head++];
        if (forest->levels[node] == forest->levels[root])
            return true;
        for (uint32_t p = parents->start[node]; p < parents->start[node + 1]; p++)
            walk_enter(walk, parents->list[p], &tail);
    }
    return false;
}

/* PropagateGroupId: the group to every node reachable without passing a
 * node that has one. */
static void propagate(struct xspace_forest *forest, const struct adjacency *children,
                      uint32_t root, int32_t group, struct walk *walk)
{
    size_t head = 0, tail = 0;
    walk->number++;
    walk_enter(walk, root, &tail);
    while (head < tail) {
        uint32_t node = walk->queue[head++];
        if (forest->groups[node] >= 0)
            continue;
        forest->groups[node] = group;
        for (uint32_t c = children->start[node]; c < children->start[node + 1]; c++)
            walk_enter(walk, children->list[c], &tail);
    }
}

/* ---- TF loops ---- */

struct loop_root {
    int64_t begin_ps;
    size_t index; /* of its first event, for the order of equal starts */
    uint32_t node;
};

static int compare_loop_roots(const void *a, const void *b)
{
    const struct loop_root *left = a, *right = b;
    if (left->begin_ps != right->begin_ps)
        return left->begin_ps < right->begin_ps ? -1 : 1;
    return (left->index > right->index) - (left->index < right->index);
}

/* ProcessTensorFlowLoop: per (id, iter_num) of Process events (their own
 * stats) the earliest is the iteration's root, the others its children;
 * an id whose only iteration is 0 is no loop. The roots, by start, into
 * *roots (malloc'd; *count 0 when there is no loop). */
static bool find_loop_roots(struct xspace_forest *forest, struct loop_root **roots, size_t *count)
{
    *count = 0;
    bool any = false; /* no iteration but 0: no loop, nothing to sort */
    for (size_t i = 0; !any && i < forest->executor_count; i++)
        any = loop_event(&forest->executors[i]) && own_iteration(&forest->executors[i]) != 0;
    if (!any) {
        *roots = NULL;
        return true;
    }
    size_t keys_count = 0, found = 0;
    struct pair_key *keys = malloc((forest->executor_count + 1) * sizeof *keys);
    *roots = malloc((forest->executor_count + 1) * sizeof **roots);
    if (!keys || !*roots) {
        free(keys);
        return false;
    }
    for (size_t i = 0; i < forest->executor_count; i++) {
        const struct xspace_executor *executor = &forest->executors[i];
        if (loop_event(executor) && !tf_data_step(forest, own_id(executor)))
            keys[keys_count++] = (struct pair_key){(uint64_t)own_id(executor),
                                                   (uint64_t)own_iteration(executor), i};
    }
    qsort(keys, keys_count, sizeof *keys, compare_pair_keys);
    bool ok = true;
    for (size_t first = 0; ok && first < keys_count;) {
        size_t end = first;
        bool loop = false;
        while (end < keys_count && keys[end].first == keys[first].first) {
            loop |= keys[end].second != 0;
            end++;
        }
        for (size_t start = first; loop && ok && start < end;) {
            size_t stop = start, earliest = start;
            for (; stop < end && keys[stop].second == keys[start].second; stop++)
                if (forest->executors[keys[stop].index].begin_ps <
                    forest->executors[keys[earliest].index].begin_ps)
                    earliest = stop;
            const struct xspace_executor *root = &forest->executors[keys[earliest].index];
            (*roots)[found++] =
                (struct loop_root){root->begin_ps, keys[earliest].index, root->node};
            for (size_t k = start; ok && k < stop; k++)
                if (k != earliest)
                    ok = xspace_forest_add_edge(forest, root->node,
                                                forest->executors[keys[k].index].node);
            start = stop;
        }
        first = end;
    }
    free(keys);
    qsort(*roots, found, sizeof **roots, compare_loop_roots);
    *count = found;
    return ok;
}

/* ---- the groups ---- */

static int compare_roots(const void *a, const void *b)
{
    const struct xspace_root *left = a, *right = b;
    if (left->level != right->level)
        return left->level > right->level ? -1 : 1;
    if (left->begin_ps != right->begin_ps)
        return left->begin_ps < right->begin_ps ? -1 : 1;
    return (left->node > right->node) - (left->node < right->node);
}

static bool group_from_roots(struct xspace_forest *forest, const struct loop_root *loop_roots,
                             size_t loop_count, struct walk *walk)
{
    struct adjacency children = {0}, parents = {0};
    bool ok = adjacency_build(forest, true, &children) &&
              (loop_count > 0 || adjacency_build(forest, false, &parents));
    int32_t next = 0;
    if (ok && loop_count > 0) {
        /* Every iteration takes the next id, grouped already or not. */
        for (size_t r = 0; r < loop_count && next < INT32_MAX; r++)
            propagate(forest, &children, loop_roots[r].node, next++, walk);
    } else if (ok) {
        if (forest->root_count > 1)
            qsort(forest->roots, forest->root_count, sizeof *forest->roots, compare_roots);
        for (size_t r = 0; r < forest->root_count && next < INT32_MAX; r++) {
            const struct xspace_root *root = &forest->roots[r];
            if ((root->has_step_id && tf_data_step(forest, root->step_id)) ||
                forest->groups[root->node] >= 0 ||
                has_same_level_ancestor(forest, &parents, root->node, walk))
                continue;
            propagate(forest, &children, root->node, next++, walk);
        }
    }
    forest->group_count = next;
    adjacency_free(&children);
    adjacency_free(&parents);
    return ok;
}

bool xspace_forest_group(struct xspace_forest *forest)
{
    if (forest->tf_data_count > 1)
        qsort(forest->tf_data_step_ids, forest->tf_data_count,
              sizeof *forest->tf_data_step_ids, compare_int64);
    struct loop_root *loop_roots = NULL;
    size_t loop_count = 0;
    bool ok = find_loop_roots(forest, &loop_roots, &loop_count) && connect_iterators(forest) &&
              connect_contexts(forest);
    struct walk walk = {0};
    if (ok) {
        size_t nodes = (size_t)forest->node_count + 1;
        forest->groups = malloc(nodes * sizeof *forest->groups);
        walk.queue = malloc(nodes * sizeof *walk.queue);
        walk.marks = calloc(nodes, sizeof *walk.marks);
        ok = forest->groups && walk.queue && walk.marks;
    }
    if (ok) {
        for (uint32_t n = 0; n < forest->node_count; n++)
            forest->groups[n] = -1;
        ok = group_from_roots(forest, loop_roots, loop_count, &walk);
    }
    free(walk.queue);
    free(walk.marks);
    free(loop_roots);
    return ok;
}
