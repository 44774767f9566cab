/* load_trace_kineto: PyTorch profiler traces (see load_trace.h).
 *
 * Taken while the file streams past: each [memory] instant (time, thread,
 * device, Addr, Bytes, Total Allocated, Total Reserved), each
 * [OutOfMemory], and the cpu_op and user_annotation slices that
 * attribution needs (their interval, thread, name); ProfilerStep#N
 * annotations also as step windows. Everything else of the file is gone
 * by then. Finishing (the decisions are TRACE-SEMANTICS'):
 * - per thread, the slices nest by (start, end descending, file order);
 *   an event belongs to the innermost slice open at its time (half-open
 *   intervals, integer ns), its op is the innermost cpu_op among that
 *   slice and its parents, its context the names of them all, outermost
 *   first, " > " between;
 * - steps by time window: ProfilerStep#N of the same pid holding the time;
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
 *   and Total Reserved what the allocator held then. */
#include "config.h"

#include "model/formats/chrome_trace/load_trace_kineto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/util/array_grow.h"
#include "model/format.h"
#include "model/util/index_sort.h"
#include "model/util/integer_map.h"
#include "model/util/saturating.h"

/* Appends value to a KINETO_LIST; false when memory runs out (or past
 * 2^32 elements: indices into the lists are 32 bits). */
#define LIST_APPEND(list, name, value)                                                        \
    ((list)->name##_count < UINT32_MAX &&                                                     \
     array_grow((void **)&(list)->name, &(list)->name##_capacity, (list)->name##_count,      \
                sizeof *(list)->name, 64) &&                                                  \
     ((list)->name[(list)->name##_count++] = (value), true))

static struct trace_kineto *kineto_of(struct trace_load *load)
{
    if (!load->kineto)
        load->kineto = calloc(1, sizeof *load->kineto);
    return load->kineto;
}

size_t trace_kineto_memory_events(const struct trace_load *load)
{
    return load->kineto ? load->kineto->memory_count : 0;
}

void trace_kineto_free(struct trace_load *load)
{
    struct trace_kineto *kineto = load->kineto;
    if (!kineto)
        return;
    trace_pair_table_free(&kineto->threads);
    free(kineto->memory);
    free(kineto->ops);
    free(kineto->frames);
    free(kineto->memory_times);
    free(kineto->steps);
    free(kineto->out_of_memory);
    free(kineto);
    load->kineto = NULL;
}

/* ---- taking events ---- */

/* Whether two values are the same bytes of the text. */
static bool same_text(const struct trace_load *load, struct trace_value a, struct trace_value b)
{
    return a.end - a.start == b.end - b.start &&
           memcmp(load->reader.text + a.start, load->reader.text + b.start, a.end - a.start) == 0;
}

static bool event_thread(struct trace_load *load, struct trace_kineto *kineto,
                         const struct trace_event *event, uint32_t *thread)
{
    struct trace_value pid = event->member[TRACE_KEY_PID], tid = event->member[TRACE_KEY_TID];
    if (kineto->has_last_thread && same_text(load, pid, kineto->last_pid) &&
        same_text(load, tid, kineto->last_tid)) {
        *thread = kineto->last_thread;
        return true;
    }
    struct trace_pair pair;
    if (!trace_load_id(load, pid, &pair.first) || !trace_load_id(load, tid, &pair.second) ||
        !trace_pair_table_find_or_add(&kineto->threads, &pair, thread, NULL))
        return false;
    kineto->last_pid = pid;
    kineto->last_tid = tid;
    kineto->last_thread = *thread;
    kineto->has_last_thread = true;
    return true;
}

enum memory_arg {
    ARG_ADDRESS,
    ARG_BYTES,
    ARG_ALLOCATED,
    ARG_RESERVED,
    ARG_DEVICE_TYPE,
    ARG_DEVICE_ID,
    ARG_COUNT
};

static const char *const memory_arg_names[ARG_COUNT] = {
    [ARG_ADDRESS] = "Addr",           [ARG_BYTES] = "Bytes",
    [ARG_ALLOCATED] = "Total Allocated", [ARG_RESERVED] = "Total Reserved",
    [ARG_DEVICE_TYPE] = "Device Type", [ARG_DEVICE_ID] = "Device Id",
};

/* The device of a memory event: a type and an index, both int32. */
static bool memory_device(const struct trace_reader *reader, const struct trace_value *args,
                          int32_t *type, int32_t *id)
{
    int64_t value;
    if (!trace_value_integer(reader, args[ARG_DEVICE_TYPE], &value) || value < INT32_MIN ||
        value > INT32_MAX)
        return false;
    *type = (int32_t)value;
    if (!trace_value_present(args[ARG_DEVICE_ID])) {
        *id = -1;
        return true;
    }
    if (!trace_value_integer(reader, args[ARG_DEVICE_ID], &value) || value < INT32_MIN ||
        value > INT32_MAX)
        return false;
    *id = (int32_t)value;
    return true;
}

enum load_status trace_kineto_take_memory(struct trace_load *load, const struct trace_event *event,
                                          bool out_of_memory)
{
    struct trace_kineto *kineto = kineto_of(load);
    if (!kineto)
        return trace_load_no_memory(load);
    struct trace_value args[ARG_COUNT] = {{0, 0}};
    struct trace_value args_value = event->member[TRACE_KEY_ARGS];
    if (trace_value_is_object(&load->reader, args_value)) {
        size_t at = args_value.start;
        static const struct trace_keys keys = {memory_arg_names, ARG_COUNT, NULL, NULL};
        enum load_status status = trace_read_object(&load->reader, &at, 2, &keys, args);
        if (status != LOAD_OK)
            return status;
    }
    const struct trace_reader *reader = &load->reader;
    if (!event->has_time) {
        load->skipped_without_time++;
        return LOAD_OK;
    }
    if (out_of_memory) {
        struct kineto_out_of_memory oom = {.time_ns = event->time_ns};
        if (!memory_device(reader, args, &oom.device_type, &oom.device_id))
            oom.device_type = oom.device_id = -1;
        if (!trace_value_integer(reader, args[ARG_BYTES], &oom.bytes) || oom.bytes < 0)
            oom.bytes = -1;
        if (!trace_value_integer(reader, args[ARG_ALLOCATED], &oom.total_allocated) ||
            oom.total_allocated < 0)
            oom.total_allocated = -1;
        if (!trace_value_integer(reader, args[ARG_RESERVED], &oom.total_reserved) ||
            oom.total_reserved < 0)
            oom.total_reserved = -1;
        return LIST_APPEND(kineto, out_of_memory, oom) ? LOAD_OK : trace_load_no_memory(load);
    }
    struct kineto_memory memory = {.time_ns = event->time_ns, .step = -1};
    if (!trace_value_integer(reader, args[ARG_BYTES], &memory.bytes) ||
        !trace_value_integer(reader, args[ARG_ALLOCATED], &memory.total_allocated) ||
        !memory_device(reader, args, &memory.device_type, &memory.device_id)) {
        kineto->malformed++;
        return LOAD_OK;
    }
    memory.has_reserved = trace_value_integer(reader, args[ARG_RESERVED], &memory.total_reserved);
    memory.has_address = trace_value_integer(reader, args[ARG_ADDRESS], &memory.address);
    if (!memory.has_address) {
        uint64_t address; /* an address past INT64_MAX, written unsigned */
        memory.has_address = trace_value_unsigned(reader, args[ARG_ADDRESS], &address);
        memory.address = (int64_t)address;
    }
    if (!memory.has_address)
        kineto->without_address++;
    memory.after_frames = kineto->frames_filtered;
    if (!event_thread(load, kineto, event, &memory.thread) ||
        !LIST_APPEND(kineto, memory, memory))
        return trace_load_no_memory(load);
    return LOAD_OK;
}

/* N of "ProfilerStep#N" (N decimal digits that fit int64); false for any
 * other name. */
static bool step_number(const char *text, size_t length, int64_t *number)
{
    static const char prefix[] = "ProfilerStep#";
    size_t at = sizeof prefix - 1;
    if (length <= at || memcmp(text, prefix, at) != 0)
        return false;
    for (*number = 0; at < length; at++) {
        if (text[at] < '0' || text[at] > '9' || *number > (INT64_MAX - 9) / 10)
            return false;
        *number = *number * 10 + (text[at] - '0');
    }
    return true;
}

enum load_status trace_kineto_take_op(struct trace_load *load, const struct trace_event *event,
                                      bool is_operator)
{
    int64_t duration;
    if (!event->has_time ||
        !trace_value_scaled(&load->reader, event->member[TRACE_KEY_DUR], 3, &duration) ||
        duration < 0)
        return LOAD_OK;
    struct trace_kineto *kineto = kineto_of(load);
    if (!kineto)
        return trace_load_no_memory(load);
    struct kineto_op op = {
        .start_ns = event->time_ns,
        .end_ns = saturating_add(event->time_ns, duration),
        .sequence = event->sequence,
        .is_operator = is_operator,
    };
    if (is_operator) {
        enum load_status status = trace_kineto_op_shapes(load, event, &op.shape, &op.type);
        if (status != LOAD_OK)
            return status;
    }
    op.name = trace_load_intern(load, event->member[TRACE_KEY_NAME]);
    if (op.name == STRING_ID_NONE || !event_thread(load, kineto, event, &op.thread) ||
        !LIST_APPEND(kineto, ops, op))
        return trace_load_no_memory(load);
    struct kineto_step step = {.start_ns = op.start_ns, .end_ns = op.end_ns};
    struct text name = string_table_get(load->strings, op.name);
    if (is_operator || !step_number(name.bytes, name.length, &step.number))
        return LOAD_OK;
    step.pid = kineto->threads.pairs[op.thread].first;
    return LIST_APPEND(kineto, steps, step) ? LOAD_OK : trace_load_no_memory(load);
}

static int time_compare(const void *a, const void *b)
{
    const struct kineto_time *x = a, *y = b;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    return (x->time_ns > y->time_ns) - (x->time_ns < y->time_ns);
}

/* At the first frame: the memory events' times by (thread, time), and the
 * filter on when there are any. False when memory runs out. */
static bool frames_start(struct trace_kineto *kineto)
{
    kineto->frames_started = true;
    if (kineto->memory_count == 0)
        return true;
    kineto->memory_times = malloc(kineto->memory_count * sizeof *kineto->memory_times);
    if (!kineto->memory_times)
        return false;
    for (size_t i = 0; i < kineto->memory_count; i++)
        kineto->memory_times[i] =
            (struct kineto_time){kineto->memory[i].thread, kineto->memory[i].time_ns};
    kineto->memory_time_count = kineto->memory_count;
    qsort(kineto->memory_times, kineto->memory_time_count, sizeof *kineto->memory_times,
          time_compare);
    kineto->frames_filtered = true;
    return true;
}

/* Whether a memory event of `thread` lies in [start, end): the events a
 * frame can be around (half-open, as the attribution reads them). */
static bool frame_holds_memory(struct trace_kineto *kineto, uint32_t thread, int64_t start,
                               int64_t end)
{
    size_t low = 0, high = kineto->memory_time_count;
    struct kineto_time key = {thread, start};
    /* The first (thread, time) >= (thread, start): from the last answer
     * when the key did not go back (a few steps), else by halving. */
    bool found = false;
    if (time_compare(&key, &kineto->last_key) >= 0) {
        low = kineto->time_cursor;
        for (size_t steps = 0; !found && steps < 8; steps++) {
            if (low == high || time_compare(&kineto->memory_times[low], &key) >= 0)
                found = true;
            else
                low++;
        }
    }
    while (!found && low < high) {
        size_t middle = low + (high - low) / 2;
        if (time_compare(&kineto->memory_times[middle], &key) < 0)
            low = middle + 1;
        else
            high = middle;
    }
    kineto->time_cursor = low;
    kineto->last_key = key;
    return low < kineto->memory_time_count && kineto->memory_times[low].thread == thread &&
           kineto->memory_times[low].time_ns < end;
}

enum load_status trace_kineto_take_frame(struct trace_load *load, const struct trace_event *event)
{
    int64_t duration;
    if (!event->has_time ||
        !trace_value_scaled(&load->reader, event->member[TRACE_KEY_DUR], 3, &duration) ||
        duration < 0)
        return LOAD_OK;
    struct trace_kineto *kineto = kineto_of(load);
    if (!kineto)
        return trace_load_no_memory(load);
    struct kineto_frame frame = {
        .start_ns = event->time_ns,
        .end_ns = saturating_add(event->time_ns, duration),
        .sequence = event->sequence,
    };
    frame.name = event->member[TRACE_KEY_NAME];
    if ((!kineto->frames_started && !frames_start(kineto)) ||
        !event_thread(load, kineto, event, &frame.thread))
        return trace_load_no_memory(load);
    if (kineto->frames_filtered &&
        !frame_holds_memory(kineto, frame.thread, frame.start_ns, frame.end_ns))
        return LOAD_OK;
    return LIST_APPEND(kineto, frames, frame) ? LOAD_OK : trace_load_no_memory(load);
}

/* ---- attribution: the slice stack of each thread ---- */

#define OP_NONE UINT32_MAX
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
    uint32_t *stack;
    size_t depth;
    char *text; /* building a context */
    size_t text_capacity;
};

static int op_compare(const void *a, const void *b)
{
    const struct kineto_op *x = a, *y = b;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    if (x->end_ns != y->end_ns)
        return x->end_ns > y->end_ns ? -1 : 1; /* the longer one encloses */
    return x->sequence < y->sequence ? -1 : x->sequence > y->sequence;
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

/* Indices 0..count-1 sorted stably by `before`; NULL when memory runs out. */
static size_t *sorted_order(size_t count, index_before_fn before, const void *context)
{
    size_t *order = malloc((count ? count : 1) * sizeof *order);
    size_t *scratch = malloc((count ? count : 1) * sizeof *scratch);
    if (order && scratch) {
        for (size_t i = 0; i < count; i++)
            order[i] = i;
        index_sort_stable(order, scratch, count, before, context);
    } else {
        free(order);
        order = NULL;
    }
    free(scratch);
    return order;
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
    work->owner[op] = ops[op].is_operator ? op : parent == OP_NONE ? OP_NONE : work->owner[parent];
    work->stack[work->depth++] = op;
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
        if (work->depth == 0)
            continue;
        uint32_t top = work->stack[work->depth - 1];
        memory->op = work->operator[top];
        if (work->owner[top] != OP_NONE) {
            memory->shape = kineto->ops[work->owner[top]].shape;
            memory->type = kineto->ops[work->owner[top]].type;
        }
        memory->context = op_chain(work, top);
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
        /* The stack, and room above it for op_chain's walk up. */
        .stack = malloc(2 * ops * sizeof(uint32_t)),
    };
    size_t *order = sorted_order(kineto->memory_count, memory_by_thread, kineto->memory);
    bool ok = work.parent && work.level && work.head && work.operator && work.owner && work.chain &&
              work.stack && order;
    /* Python frames first: they ride on the same order (issue 22). */
    ok = ok && trace_kineto_attribute_frames(load, kineto, order);
    if (ok)
        for (size_t i = 0; i < kineto->ops_count; i++)
            work.chain[i] = CHAIN_UNKNOWN;
    size_t next_op = 0;
    for (size_t first = 0, end; ok && first < kineto->memory_count; first = end) {
        for (end = first + 1; end < kineto->memory_count &&
                              kineto->memory[order[end]].thread ==
                                  kineto->memory[order[first]].thread;
             end++)
            ;
        ok = attribute_thread(&work, order, first, end, &next_op);
    }
    free(order);
    free(work.parent);
    free(work.level);
    free(work.head);
    free(work.operator);
    free(work.owner);
    free(work.chain);
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

enum load_status trace_kineto_finish(struct trace_load *load)
{
    struct trace_kineto *kineto = load->kineto;
    if (!kineto)
        return LOAD_OK;
    if (!kineto_attribute(load, kineto))
        return trace_load_no_memory(load);
    kineto_assign_steps(kineto);
    size_t *order = sorted_order(kineto->memory_count, memory_by_time, kineto->memory);
    if (!order)
        return trace_load_no_memory(load);
    enum load_status status = trace_kineto_build(load, kineto, order);
    free(order);
    return status;
}
