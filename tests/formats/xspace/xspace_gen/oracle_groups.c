/* oracle_groups: XProf's step grouping of host events, simulated
 * (xspace.md section 5; openxla/xla xla/tsl/profiler/utils/group_events.cc,
 * GroupTfEvents / GroupTpuEventsOSS, as read for this tool).
 *
 * 1. Loop ops anywhere: no groups.
 * 2. Per line, in file order, an event's parent is the nearest enclosing
 *    event on a stack (pop until the top includes it: top.begin <= begin
 *    and end <= top.end); events with _a != 0 are left out of the stack.
 * 3. Producer -> consumer edges for equal (_pt, _p) and (_ct, _c), types
 *    read as int64, ids as the 64-bit pattern of an int64 or uint64;
 *    none for a pair that has 64 or more producers and 64 or more
 *    consumers.
 * 4. Roots: events with _r != 0 (or named TraceContext without _r), by
 *    level (higher first) then begin time; a root with an ancestor of the
 *    same level, or that already has a group, makes no group.
 * 5. From each root, breadth-first, its id to every reachable event
 *    without one; an event that has one stops the walk there.
 * What the generator never writes (TF loop iterations, tf.data events,
 * IteratorGetNext connections, the names XProf's preprocessing mutators
 * rewrite, group_id stats) is refused rather than simulated. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "tests/formats/xspace/xspace_gen/oracle.h"
#include "tests/formats/xspace/xspace_gen/strings.h"
#include "tests/formats/xspace/xspace_gen/wire.h"

struct grouping_stats {
    bool has_producer_type, has_producer_id, has_consumer_type, has_consumer_id, has_root;
    int64_t producer_type, consumer_type, root_level;
    uint64_t producer_id, consumer_id;
    bool is_async;
    bool has_step_id, has_iter_num;
    int64_t iter_num;
    bool has_group_id;
};

static struct grouping_stats read_grouping_stats(const struct plane *plane,
                                                 const struct host_event *event)
{
    struct grouping_stats stats = {0};
    for (uint32_t i = 0; i < event->stat_count; i++) {
        const struct stat_item *stat = &event->stats[i];
        bool found;
        uint32_t name = oracle_stat_name(plane, stat, &found);
        if (!found)
            continue;
        if (string_is(name, "_pt")) {
            stats.has_producer_type = true;
            stats.producer_type = read_int(stat);
        } else if (string_is(name, "_p")) {
            stats.has_producer_id = true;
            stats.producer_id = read_int_or_uint(stat);
        } else if (string_is(name, "_ct")) {
            stats.has_consumer_type = true;
            stats.consumer_type = read_int(stat);
        } else if (string_is(name, "_c")) {
            stats.has_consumer_id = true;
            stats.consumer_id = read_int_or_uint(stat);
        } else if (string_is(name, "_r")) {
            stats.has_root = true;
            stats.root_level = read_int(stat);
        } else if (string_is(name, "_a")) {
            stats.is_async = read_int(stat) != 0;
        } else if (string_is(name, "id")) {
            stats.has_step_id = true;
        } else if (string_is(name, "group_id")) {
            stats.has_group_id = true;
        } else if (string_is(name, "iter_num")) {
            stats.has_iter_num = true;
            stats.iter_num = read_int(stat);
        }
    }
    return stats;
}

/* ---- a graph: edges parent -> child, as lists both ways ---- */

struct edge {
    uint64_t from, to;
};

struct graph {
    struct edge *edges;
    uint64_t edge_count, edge_capacity;
    uint64_t *child_start, *children; /* CSR by parent */
    uint64_t *parent_start, *parents; /* CSR by child */
};

static void graph_add(struct graph *graph, uint64_t from, uint64_t to)
{
    if (graph->edge_count == graph->edge_capacity) {
        graph->edge_capacity = graph->edge_capacity ? graph->edge_capacity * 2 : 4096;
        graph->edges = xrealloc(graph->edges, graph->edge_capacity, sizeof *graph->edges);
    }
    graph->edges[graph->edge_count++] = (struct edge){from, to};
}

static void csr_build(const struct graph *graph, uint64_t nodes, bool by_parent, uint64_t **start,
                      uint64_t **list)
{
    *start = xcalloc(nodes + 1, sizeof **start);
    *list = xcalloc(graph->edge_count, sizeof **list);
    for (uint64_t e = 0; e < graph->edge_count; e++)
        (*start)[(by_parent ? graph->edges[e].from : graph->edges[e].to) + 1]++;
    for (uint64_t n = 0; n < nodes; n++)
        (*start)[n + 1] += (*start)[n];
    uint64_t *fill = xcalloc(nodes, sizeof *fill);
    for (uint64_t e = 0; e < graph->edge_count; e++) {
        uint64_t key = by_parent ? graph->edges[e].from : graph->edges[e].to;
        (*list)[(*start)[key] + fill[key]++] = by_parent ? graph->edges[e].to : graph->edges[e].from;
    }
    free(fill);
}

static void graph_free(struct graph *graph)
{
    free(graph->edges);
    free(graph->child_start);
    free(graph->children);
    free(graph->parent_start);
    free(graph->parents);
}

/* ---- context groups ---- */

struct context_record {
    int64_t type;
    uint64_t id;
    bool consumer;
    uint64_t node;
};

static int context_compare(const void *a, const void *b)
{
    const struct context_record *left = a, *right = b;
    if (left->type != right->type)
        return left->type < right->type ? -1 : 1;
    if (left->id != right->id)
        return left->id < right->id ? -1 : 1;
    if (left->consumer != right->consumer)
        return left->consumer ? 1 : -1;
    return (left->node > right->node) - (left->node < right->node);
}

static void connect_contexts(struct graph *graph, struct context_record *records, uint64_t count)
{
    if (count > 1)
        qsort(records, count, sizeof *records, context_compare);
    for (uint64_t first = 0; first < count;) {
        uint64_t end = first, producers = 0;
        while (end < count && records[end].type == records[first].type &&
               records[end].id == records[first].id) {
            producers += !records[end].consumer;
            end++;
        }
        uint64_t consumers = end - first - producers;
        if (!(producers >= 64 && consumers >= 64))
            for (uint64_t p = first; p < first + producers; p++)
                for (uint64_t c = first + producers; c < end; c++)
                    graph_add(graph, records[p].node, records[c].node);
        first = end;
    }
}

/* ---- roots ---- */

struct root {
    int64_t level;
    int64_t begin_ps;
    uint64_t node;
};

static int root_compare(const void *a, const void *b)
{
    const struct root *left = a, *right = b;
    if (left->level != right->level)
        return left->level > right->level ? -1 : 1;
    if (left->begin_ps != right->begin_ps)
        return left->begin_ps < right->begin_ps ? -1 : 1;
    return 0;
}

/* Whether an ancestor (by any parent edge, breadth-first, not the root
 * itself) has the root's level. */
/* A walk's "seen" marks: a node is seen when its mark equals the walk's
 * number, so a new walk needs no clearing. */
struct walk {
    uint64_t *queue;
    uint32_t *marks;
    uint32_t number;
};

static bool walk_visit(struct walk *walk, uint64_t node)
{
    if (walk->marks[node] == walk->number)
        return false;
    walk->marks[node] = walk->number;
    return true;
}

static bool has_same_level_ancestor(const struct graph *graph, const int64_t *levels,
                                    uint64_t node, struct walk *walk)
{
    uint64_t head = 0, tail = 0;
    uint64_t *queue = walk->queue;
    walk->number++;
    walk_visit(walk, node);
    for (uint64_t p = graph->parent_start[node]; p < graph->parent_start[node + 1]; p++)
        if (walk_visit(walk, graph->parents[p]))
            queue[tail++] = graph->parents[p];
    bool found = false;
    while (head < tail && !found) {
        uint64_t current = queue[head++];
        if (levels[current] == levels[node]) {
            found = true;
            break;
        }
        for (uint64_t p = graph->parent_start[current]; p < graph->parent_start[current + 1]; p++)
            if (walk_visit(walk, graph->parents[p]))
                queue[tail++] = graph->parents[p];
    }
    return found;
}

static void propagate(const struct graph *graph, uint64_t root, int64_t group, int64_t *groups,
                      struct walk *walk)
{
    uint64_t head = 0, tail = 0;
    uint64_t *queue = walk->queue;
    walk->number++;
    walk_visit(walk, root);
    queue[tail++] = root;
    while (head < tail) {
        uint64_t node = queue[head++];
        if (groups[node] >= 0)
            continue; /* grouped by an earlier root: the walk stops here */
        groups[node] = group;
        for (uint64_t c = graph->child_start[node]; c < graph->child_start[node + 1]; c++)
            if (walk_visit(walk, graph->children[c]))
                queue[tail++] = graph->children[c];
    }
}

static bool refused(const char *why)
{
    fprintf(stderr, "generate_xspace: --expect: %s\n", why);
    return false;
}

static bool check_simulated(const struct host_event *event, const struct grouping_stats *stats)
{
    static const char *const not_simulated[] = {
        "IteratorGetNextOp::DoCompute", "IteratorGetNextAsOptionalOp::DoCompute",
        "InstantiatedCapturedFunction::Run", "InstantiatedCapturedFunction::RunWithBorrowedArgs",
        "InstantiatedCapturedFunction::RunInstantiated", "InstantiatedCapturedFunction::RunAsync",
        /* what XProf's preprocessing mutators act on */
        "ProcessBatch", "BatchingSessionRun", "OrbaxServing::ProcessBatch", "TpuExecuteOp",
        "DoEnqueueProgram", "DoEnqueueContinuationProgram", "CompleteCallbacks",
        "EnqueueRequestLocked", "ThreadpoolListener::StartRegion",
        "ThreadpoolListener::StopRegion",
    };
    for (size_t i = 0; i < sizeof not_simulated / sizeof not_simulated[0]; i++)
        if (string_is(event->name, not_simulated[i]))
            return refused("an event name whose grouping rules are not simulated");
    if (stats->has_group_id)
        return refused("a group_id stat in the file (an already grouped space): not simulated");
    if (string_is(event->name, "ExecutorState::Process") && stats->has_step_id &&
        stats->has_iter_num && stats->iter_num != 0)
        return refused("a TF loop iteration (iter_num != 0): not simulated");
    return true;
}

int64_t oracle_group(const struct plane *plane, const struct host_event *events, uint64_t count,
                     bool loop_ops, int64_t *groups)
{
    for (uint64_t i = 0; i < count; i++)
        groups[i] = -1;
    if (loop_ops)
        return 0;
    struct graph graph = {0};
    int64_t *levels = xcalloc(count, sizeof *levels);
    struct context_record *contexts = NULL;
    uint64_t context_count = 0, context_capacity = 0;
    struct root *roots = NULL;
    uint64_t root_count = 0;
    uint64_t *stack = xcalloc(count, sizeof *stack);
    uint64_t depth = 0;
    bool ok = true;
    for (uint64_t i = 0; i < count && ok; i++) {
        const struct host_event *event = &events[i];
        if (i == 0 || event->line != events[i - 1].line)
            depth = 0; /* a new line: a new stack */
        struct grouping_stats stats = read_grouping_stats(plane, event);
        ok = check_simulated(event, &stats);
        if (stats.has_root)
            levels[i] = stats.root_level;
        else if (string_is(event->name, "TraceContext"))
            levels[i] = 1;
        if (levels[i] != 0) {
            roots = xrealloc(roots, root_count + 1, sizeof *roots);
            roots[root_count++] = (struct root){levels[i], event->begin_ps, i};
        }
        for (int side = 0; side < 2; side++) {
            bool has = side == 0 ? stats.has_producer_type && stats.has_producer_id
                                 : stats.has_consumer_type && stats.has_consumer_id;
            if (!has)
                continue;
            if (context_count == context_capacity) {
                context_capacity = context_capacity ? context_capacity * 2 : 1024;
                contexts = xrealloc(contexts, context_capacity, sizeof *contexts);
            }
            contexts[context_count++] = (struct context_record){
                side == 0 ? stats.producer_type : stats.consumer_type,
                side == 0 ? stats.producer_id : stats.consumer_id, side == 1, i};
        }
        if (stats.is_async)
            continue;
        while (depth > 0) {
            const struct host_event *top = &events[stack[depth - 1]];
            if (top->begin_ps <= event->begin_ps && event->end_ps <= top->end_ps) {
                graph_add(&graph, stack[depth - 1], i);
                break;
            }
            depth--;
        }
        stack[depth++] = i;
    }
    int64_t group_count = 0;
    if (ok) {
        connect_contexts(&graph, contexts, context_count);
        csr_build(&graph, count, true, &graph.child_start, &graph.children);
        csr_build(&graph, count, false, &graph.parent_start, &graph.parents);
        if (root_count > 1)
            qsort(roots, root_count, sizeof *roots, root_compare);
        for (uint64_t r = 1; r < root_count && ok; r++)
            if (root_compare(&roots[r - 1], &roots[r]) == 0)
                ok = refused("two step markers of one level start at the same time: XProf's "
                             "order is undefined");
        struct walk walk = {xcalloc(count + 1, sizeof(uint64_t)),
                            xcalloc(count + 1, sizeof(uint32_t)), 0};
        for (uint64_t r = 0; r < root_count && ok; r++) {
            uint64_t node = roots[r].node;
            if (groups[node] >= 0 || has_same_level_ancestor(&graph, levels, node, &walk))
                continue;
            propagate(&graph, node, group_count++, groups, &walk);
        }
        free(walk.queue);
        free(walk.marks);
    }
    graph_free(&graph);
    free(levels);
    free(contexts);
    free(roots);
    free(stack);
    return ok ? group_count : -1;
}
