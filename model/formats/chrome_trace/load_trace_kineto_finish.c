/* load_trace_kineto_finish: PyTorch profiler traces (see load_trace.h),
 * finishing what load_trace_kineto.c took as the file streamed past: the
 * slice stacks of each thread (attribution), the steps, then the
 * allocators (load_trace_kineto_build.c). The decisions are
 * TRACE-SEMANTICS':
 * - per thread, the slices nest by (start, end descending, file order);
 *   an event belongs to the innermost slice open at its time (half-open
 *   intervals, integer ns), its op is the innermost cpu_op among that
 *   slice and its parents, its context the names of them all, outermost
 *   first, " > " between;
 * - a backward op is linked to its forward op by the `fwdbwd` flow: the
 *   "f" and "s" events of one id each bind the outermost op starting at
 *   their time on their thread (Kineto writes them at the op's ts), and
 *   the backward op's parent too when it is the autograd engine's
 *   `autograd::engine::evaluate_function: ...` (which also runs the
 *   node's work outside the node's own slice, a bias's aten::sum); an
 *   event under a linked op (the innermost such) gets its context
 *   followed by " [forward: NAME]", NAME the forward op's, and the
 *   location and module of the Python frames around the forward op's
 *   start where the file has them (load_trace_kineto_frames.c);
 * - steps by time window: ProfilerStep#N of the same pid holding the time;
 *   the other user annotations become the profile's named spans;
 * - events sorted stably by exact time; one allocator per device in order
 *   of first appearance; a free takes the op and context of the latest
 *   allocation of its address before it on that device;
 * - heap = Total Allocated, free = Total Reserved - Total Allocated when
 *   known and not negative; the peak is the first largest heap, and the
 *   rows at the peak are the addresses live after replaying up to it,
 *   plus what was allocated before the profile;
 * - an [OutOfMemory] becomes an OOM of its device's allocator (made for
 *   it when the device has no [memory] event; the only allocator when
 *   the event names no device): Bytes is the request, Total Allocated
 *   and Total Reserved what the allocator held then.
 * Called by load_trace.c (trace_kineto_finish), once, after the last
 * event. Calls load_trace_kineto_frames.c and load_trace_kineto_build.c.
 * Must not: take events or call load_trace_kineto.c (the calls run one
 * way: take, then finish, then build). */
#include "config.h"

#include "model/formats/chrome_trace/load_trace_kineto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/format.h"
#include "model/util/index_sort.h"

/* ---- attribution: the slice stack of each thread ---- */

#define OP_NONE KINETO_OP_NONE
#define CHAIN_UNKNOWN (UINT32_MAX - 1)
/* A context keeps its outermost CHAIN_HEAD and innermost CHAIN_TAIL
 * levels, and says how many it leaves out between: so a context costs at
 * most that many names, and a trace's contexts grow with the file, not
 * with the square of its nesting (30,000 ops one in another). */
#define CHAIN_HEAD 32
#define CHAIN_TAIL 32

struct attribution {
    struct trace_load *load;
    struct trace_kineto *kineto;
    uint32_t *parent;   /* per op, once pushed */
    uint32_t *level;    /* per op, once pushed: 1 for an op with no parent */
    uint32_t *head;     /* per op, once pushed: its ancestor at CHAIN_HEAD levels */
    uint32_t *operator; /* per op: the innermost cpu_op's name among it and its parents */
    uint32_t *owner;    /* per op: that cpu_op's index (its shapes), OP_NONE for none */
    uint32_t *chain;    /* per op: its context, CHAIN_UNKNOWN until asked */
    uint32_t *forward;  /* per op: the forward op its fwdbwd flow links, OP_NONE for none */
    uint32_t *linked;   /* per op: the innermost link among it and its parents */
    uint32_t *linked_chain; /* per op: its context with that link, CHAIN_UNKNOWN until asked */
    uint32_t *forward_of;   /* per memory event: linked[] of its op, OP_NONE for none */
    uint32_t *stack;
    size_t depth;
    char *text; /* building a context */
    size_t text_capacity;
};

static int op_compare(const void *a, const void *b)
{
    const struct kineto_op *x = a, *y = b;
    return kineto_nesting_order(x->thread, x->start_ns, x->end_ns, x->sequence, y->thread,
                                y->start_ns, y->end_ns, y->sequence);
}

static bool memory_by_thread(const void *context, size_t a, size_t b)
{
    const struct kineto_memory *memory = context;
    if (memory[a].thread != memory[b].thread)
        return memory[a].thread < memory[b].thread;
    return memory[a].time_ns < memory[b].time_ns;
}

static bool memory_by_time(const void *context, size_t a, size_t b)
{
    const struct kineto_memory *memory = context;
    return memory[a].time_ns < memory[b].time_ns;
}


/* "parent's context > name", interned. */
static uint32_t chain_join(struct attribution *work, uint32_t parent_chain, uint32_t name)
{
    struct string_table *strings = work->load->strings;
    struct text head = string_table_get(strings, parent_chain);
    struct text tail = string_table_get(strings, name);
    size_t length = head.length + 3 + tail.length;
    if (length + 1 > work->text_capacity) {
        char *grown = realloc(work->text, length + 1);
        if (!grown)
            return STRING_ID_NONE;
        work->text = grown;
        work->text_capacity = length + 1;
    }
    memcpy(work->text, head.bytes, head.length);
    memcpy(work->text + head.length, " > ", 3);
    memcpy(work->text + head.length + 3, tail.bytes, tail.length);
    return string_table_intern(strings, work->text, length);
}

static bool text_append(struct attribution *work, size_t *length, struct text piece)
{
    if (*length + piece.length + 1 > work->text_capacity) {
        size_t capacity = 2 * (*length + piece.length + 1);
        char *grown = realloc(work->text, capacity);
        if (!grown)
            return false;
        work->text = grown;
        work->text_capacity = capacity;
    }
    memcpy(work->text + *length, piece.bytes, piece.length);
    *length += piece.length;
    return true;
}

static uint32_t op_chain(struct attribution *work, uint32_t op);

/* The context of an op deeper than CHAIN_HEAD + CHAIN_TAIL levels: its
 * head's, "… N levels …", then the names of its innermost CHAIN_TAIL. */
static uint32_t op_chain_deep(struct attribution *work, uint32_t op)
{
    uint32_t head = op_chain(work, work->head[op]);
    if (head == STRING_ID_NONE)
        return STRING_ID_NONE;
    uint32_t tail[CHAIN_TAIL];
    uint32_t at = op;
    for (size_t i = CHAIN_TAIL; i > 0; i--, at = work->parent[at])
        tail[i - 1] = at;
    struct string_table *strings = work->load->strings;
    char gap[64];
    snprintf(gap, sizeof gap, " > \xe2\x80\xa6 %u levels \xe2\x80\xa6", /* U+2026 */
             work->level[op] - CHAIN_HEAD - CHAIN_TAIL);
    size_t length = 0;
    bool ok = text_append(work, &length, string_table_get(strings, head)) &&
              text_append(work, &length, text_of(gap));
    for (size_t i = 0; ok && i < CHAIN_TAIL; i++)
        ok = text_append(work, &length, text_of(" > ")) &&
             text_append(work, &length, string_table_get(strings, work->kineto->ops[tail[i]].name));
    return ok ? string_table_intern(strings, work->text, length) : STRING_ID_NONE;
}

/* The context of op `op`: its parents' names and its own. */
static uint32_t op_chain(struct attribution *work, uint32_t op)
{
    if (work->chain[op] != CHAIN_UNKNOWN)
        return work->chain[op];
    if (work->level[op] > CHAIN_HEAD + CHAIN_TAIL) {
        uint32_t chain = op_chain_deep(work, op);
        if (chain != STRING_ID_NONE)
            work->chain[op] = chain;
        return chain;
    }
    /* Up to the nearest op whose context is known, then down again. */
    size_t depth = 0;
    for (uint32_t at = op; at != OP_NONE && work->chain[at] == CHAIN_UNKNOWN;
         at = work->parent[at])
        work->stack[work->depth + depth++] = at;
    while (depth > 0) {
        uint32_t at = work->stack[work->depth + --depth];
        uint32_t parent = work->parent[at], name = work->kineto->ops[at].name;
        work->chain[at] = parent == OP_NONE ? name : chain_join(work, work->chain[parent], name);
        if (work->chain[at] == STRING_ID_NONE) {
            work->chain[at] = CHAIN_UNKNOWN;
            return STRING_ID_NONE;
        }
    }
    return work->chain[op];
}

static void op_push(struct attribution *work, uint32_t op)
{
    const struct kineto_op *ops = work->kineto->ops;
    while (work->depth && ops[work->stack[work->depth - 1]].end_ns <= ops[op].start_ns)
        work->depth--;
    uint32_t parent = work->depth ? work->stack[work->depth - 1] : OP_NONE;
    work->parent[op] = parent;
    work->level[op] = parent == OP_NONE ? 1 : work->level[parent] + 1;
    work->head[op] = work->level[op] <= CHAIN_HEAD ? op : work->head[parent];
    work->operator[op] = ops[op].is_operator ? ops[op].name
                         : parent == OP_NONE ? STRING_ID_EMPTY
                                             : work->operator[parent];
    work->linked[op] = work->forward[op] != OP_NONE ? work->forward[op]
                       : parent == OP_NONE        ? OP_NONE
                                                  : work->linked[parent];
    work->owner[op] = ops[op].is_operator ? op : parent == OP_NONE ? OP_NONE : work->owner[parent];
    work->stack[work->depth++] = op;
}

/* The context of op `op` and, under a backward op, " [forward: NAME]". */
static uint32_t op_context(struct attribution *work, uint32_t op)
{
    uint32_t chain = op_chain(work, op);
    uint32_t forward = work->linked[op];
    if (chain == STRING_ID_NONE || forward == OP_NONE)
        return chain;
    if (work->linked_chain[op] != CHAIN_UNKNOWN)
        return work->linked_chain[op];
    struct string_table *strings = work->load->strings;
    size_t length = 0;
    bool ok = text_append(work, &length, string_table_get(strings, chain)) &&
              text_append(work, &length, text_of(" [forward: ")) &&
              text_append(work, &length,
                          string_table_get(strings, work->kineto->ops[forward].name)) &&
              text_append(work, &length, text_of("]"));
    if (!ok)
        return STRING_ID_NONE;
    work->linked_chain[op] = string_table_intern(strings, work->text, length);
    return work->linked_chain[op];
}

static int flow_compare(const void *a, const void *b)
{
    const struct kineto_flow *x = a, *y = b;
    int order = trace_id_compare(&x->id, &y->id);
    if (order)
        return order;
    return x->is_start != y->is_start ? (x->is_start ? -1 : 1) : 0;
}

/* The outermost op starting at `time` on `thread` (ops sorted: the first
 * such), OP_NONE for none. Kineto writes a flow at its op's own ts, which
 * no other op shares unless the clock is coarse; then the outermost is
 * the one the flow was written for, not a child it begins with. */
static uint32_t op_starting_at(const struct trace_kineto *kineto, uint32_t thread, int64_t time)
{
    size_t low = 0, high = kineto->ops_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        const struct kineto_op *op = &kineto->ops[middle];
        if (op->thread < thread || (op->thread == thread && op->start_ns < time))
            low = middle + 1;
        else
            high = middle;
    }
    if (low == kineto->ops_count)
        return OP_NONE;
    const struct kineto_op *op = &kineto->ops[low];
    return op->thread == thread && op->start_ns == time ? (uint32_t)low : OP_NONE;
}

#define EVALUATE_PREFIX "autograd::engine::evaluate_function: "
#define PARENT_SEARCH 8 /* ops looked back at for a backward op's parent */

/* The autograd engine's evaluate_function op enclosing op `backward`
 * (the nearest earlier op on its thread still open at its start), OP_NONE
 * for none. */
static uint32_t evaluate_parent(struct attribution *work, uint32_t backward)
{
    const struct kineto_op *ops = work->kineto->ops;
    for (uint32_t at = backward, seen = 0; at > 0 && seen < PARENT_SEARCH; seen++) {
        at--;
        if (ops[at].thread != ops[backward].thread)
            return OP_NONE;
        if (ops[at].end_ns <= ops[backward].start_ns)
            continue;
        struct text name = string_table_get(work->load->strings, ops[at].name);
        size_t prefix = sizeof EVALUATE_PREFIX - 1;
        return name.length > prefix && memcmp(name.bytes, EVALUATE_PREFIX, prefix) == 0
                   ? at
                   : OP_NONE;
    }
    return OP_NONE;
}

/* forward[]: each fwdbwd pair's backward op -> its forward op. */
static void link_flows(struct attribution *work)
{
    struct trace_kineto *kineto = work->kineto;
    for (size_t i = 0; i < kineto->ops_count; i++)
        work->forward[i] = OP_NONE;
    if (kineto->flows_count > 1)
        qsort(kineto->flows, kineto->flows_count, sizeof *kineto->flows, flow_compare);
    for (size_t i = 0; i + 1 < kineto->flows_count; i++) {
        const struct kineto_flow *start = &kineto->flows[i], *finish = &kineto->flows[i + 1];
        if (!start->is_start || finish->is_start || start->id.kind == TRACE_ID_NONE ||
            !trace_id_equal(&start->id, &finish->id))
            continue;
        uint32_t forward = op_starting_at(kineto, start->thread, start->time_ns);
        uint32_t backward = op_starting_at(kineto, finish->thread, finish->time_ns);
        if (forward == OP_NONE || backward == OP_NONE || backward == forward)
            continue;
        work->forward[backward] = forward;
        if (start->after_frames)
            kineto->ops[forward].frames_unknown = true;
        uint32_t parent = evaluate_parent(work, backward);
        if (parent != OP_NONE && work->forward[parent] == OP_NONE)
            work->forward[parent] = forward;
    }
}

/* The events of one thread, [first, end) of `order`, in time order, and
 * the ops from *next_op on. */
static bool attribute_thread(struct attribution *work, const size_t *order, size_t first,
                             size_t end, size_t *next_op)
{
    struct trace_kineto *kineto = work->kineto;
    uint32_t thread = kineto->memory[order[first]].thread;
    while (*next_op < kineto->ops_count && kineto->ops[*next_op].thread < thread)
        (*next_op)++;
    work->depth = 0;
    for (size_t i = first; i < end; i++) {
        struct kineto_memory *memory = &kineto->memory[order[i]];
        int64_t time = memory->time_ns;
        for (; *next_op < kineto->ops_count && kineto->ops[*next_op].thread == thread &&
               kineto->ops[*next_op].start_ns <= time;
             (*next_op)++)
            op_push(work, (uint32_t)*next_op);
        while (work->depth && kineto->ops[work->stack[work->depth - 1]].end_ns <= time)
            work->depth--;
        memory->op = memory->context = memory->shape = memory->type = STRING_ID_EMPTY;
        work->forward_of[order[i]] = OP_NONE;
        if (work->depth == 0)
            continue;
        uint32_t top = work->stack[work->depth - 1];
        work->forward_of[order[i]] = work->linked[top];
        memory->op = work->operator[top];
        if (work->owner[top] != OP_NONE) {
            memory->shape = kineto->ops[work->owner[top]].shape;
            memory->type = kineto->ops[work->owner[top]].type;
        }
        memory->context = op_context(work, top);
        if (memory->context == STRING_ID_NONE)
            return false;
    }
    return true;
}

static bool kineto_attribute(struct trace_load *load, struct trace_kineto *kineto)
{
    if (kineto->ops_count > 1)
        qsort(kineto->ops, kineto->ops_count, sizeof *kineto->ops, op_compare);
    size_t ops = kineto->ops_count ? kineto->ops_count : 1;
    struct attribution work = {
        .load = load,
        .kineto = kineto,
        .parent = malloc(ops * sizeof(uint32_t)),
        .level = malloc(ops * sizeof(uint32_t)),
        .head = malloc(ops * sizeof(uint32_t)),
        .operator = malloc(ops * sizeof(uint32_t)),
        .owner = malloc(ops * sizeof(uint32_t)),
        .chain = malloc(ops * sizeof(uint32_t)),
        .forward = malloc(ops * sizeof(uint32_t)),
        .linked = malloc(ops * sizeof(uint32_t)),
        .linked_chain = malloc(ops * sizeof(uint32_t)),
        .forward_of = malloc((kineto->memory_count ? kineto->memory_count : 1) * sizeof(uint32_t)),
        /* The stack, and room above it for op_chain's walk up. */
        .stack = malloc(2 * ops * sizeof(uint32_t)),
    };
    size_t *order = index_sort_order(kineto->memory_count, memory_by_thread, kineto->memory);
    bool ok = work.parent && work.level && work.head && work.operator && work.owner && work.chain &&
              work.forward && work.linked && work.linked_chain && work.forward_of && work.stack &&
              order;
    if (ok) {
        for (size_t i = 0; i < kineto->ops_count; i++)
            work.chain[i] = work.linked_chain[i] = CHAIN_UNKNOWN;
        link_flows(&work);
    }
    size_t next_op = 0;
    for (size_t first = 0, end; ok && first < kineto->memory_count; first = end) {
        for (end = first + 1; end < kineto->memory_count &&
                              kineto->memory[order[end]].thread ==
                                  kineto->memory[order[first]].thread;
             end++)
            ;
        ok = attribute_thread(&work, order, first, end, &next_op);
    }
    /* Python frames last: they ride on the same order, and a backward
     * event's ride on its forward op's (issue 22). */
    ok = ok && trace_kineto_attribute_frames(load, kineto, order, work.forward_of);
    free(order);
    free(work.parent);
    free(work.level);
    free(work.head);
    free(work.operator);
    free(work.owner);
    free(work.chain);
    free(work.forward);
    free(work.linked);
    free(work.linked_chain);
    free(work.forward_of);
    free(work.stack);
    free(work.text);
    return ok;
}

/* ---- steps ---- */

static int step_compare(const void *a, const void *b)
{
    const struct kineto_step *x = a, *y = b;
    int order = trace_id_compare(&x->pid, &y->pid);
    if (order)
        return order;
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    return x->number < y->number ? -1 : x->number > y->number;
}

/* The step whose window on `pid` holds `time`: the last window starting
 * at or before it, if it has not ended; -1 otherwise. */
static int64_t step_at(const struct trace_kineto *kineto, const struct trace_id *pid, int64_t time)
{
    size_t low = 0, high = kineto->steps_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        const struct kineto_step *step = &kineto->steps[middle];
        int order = trace_id_compare(&step->pid, pid);
        if (order < 0 || (order == 0 && step->start_ns <= time))
            low = middle + 1;
        else
            high = middle;
    }
    if (low == 0)
        return -1;
    const struct kineto_step *step = &kineto->steps[low - 1];
    return trace_id_equal(&step->pid, pid) && time < step->end_ns ? step->number : -1;
}

static void kineto_assign_steps(struct trace_kineto *kineto)
{
    if (kineto->steps_count > 1) /* qsort must not see NULL, even for 0 */
        qsort(kineto->steps, kineto->steps_count, sizeof *kineto->steps, step_compare);
    for (size_t i = 0; i < kineto->memory_count; i++) {
        struct kineto_memory *memory = &kineto->memory[i];
        memory->step = kineto->steps_count
                           ? step_at(kineto, &kineto->threads.pairs[memory->thread].first,
                                     memory->time_ns)
                           : -1;
    }
}

/* The user annotations but ProfilerStep#N (the steps) as the profile's
 * named spans, on every allocator (their times are the host's, as the
 * [memory] events' are): Optimizer.step#Adam.step, record_function
 * ranges. */
static enum load_status kineto_add_spans(struct trace_load *load,
                                         const struct trace_kineto *kineto)
{
    static const char step_prefix[] = "ProfilerStep#";
    for (size_t i = 0; kineto->memory_count && i < kineto->ops_count; i++) {
        const struct kineto_op *op = &kineto->ops[i];
        struct text name = string_table_get(load->strings, op->name);
        if (op->is_operator || (name.length >= sizeof step_prefix - 1 &&
                                memcmp(name.bytes, step_prefix, sizeof step_prefix - 1) == 0))
            continue;
        struct time_span span = {
            .name = op->name,
            .allocator = STRING_ID_NONE,
            .start_ps = trace_load_time_ps(load, op->start_ns),
            .end_ps = trace_load_time_ps(load, op->end_ns),
        };
        if (!profile_builder_add_span(load->builder, &span))
            return trace_load_no_memory(load);
    }
    return LOAD_OK;
}

enum load_status trace_kineto_finish(struct trace_load *load)
{
    struct trace_kineto *kineto = load->kineto;
    if (!kineto)
        return LOAD_OK;
    if (!kineto_attribute(load, kineto))
        return trace_load_no_memory(load);
    kineto_assign_steps(kineto);
    size_t *order = index_sort_order(kineto->memory_count, memory_by_time, kineto->memory);
    if (!order)
        return trace_load_no_memory(load);
    enum load_status status = trace_kineto_build(load, kineto, order);
    free(order);
    return status == LOAD_OK ? kineto_add_spans(load, kineto) : status;
}
