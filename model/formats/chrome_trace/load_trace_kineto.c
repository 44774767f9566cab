/* load_trace_kineto: PyTorch profiler traces (see load_trace.h), taking
 * their events.
 *
 * Taken while the file streams past: each [memory] instant (time, thread,
 * device, Addr, Bytes, Total Allocated, Total Reserved), each
 * [OutOfMemory], and the cpu_op and user_annotation slices that
 * attribution needs (their interval, thread, name); ProfilerStep#N
 * annotations also as step windows, the `fwdbwd` flow events (id,
 * thread, time) that link a backward op to its forward op, and the
 * python_function slices (with_stack=True) around a memory event or a
 * forward op's start. Everything else of the file is gone by then. Finishing (the slice stacks, steps, then the allocators) is
 * load_trace_kineto_finish.c's, which says what is decided there; this
 * file and that one never call each other.
 * Called by load_trace.c as events stream past. Must not: attribute,
 * sort or build (finishing's). */
#include "config.h"

#include "model/formats/chrome_trace/load_trace_kineto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/util/array_grow.h"
#include "model/format.h"
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
    free(kineto->flows);
    free(kineto->out_of_memory);
    free(kineto);
    load->kineto = NULL;
}

/* ---- taking events ---- */

/* Whether two values are the same bytes of the text (a pid or tid: a
 * few bytes, compared without a call). */
static inline bool same_text(const struct trace_load *load, struct trace_value a,
                             struct trace_value b)
{
    size_t length = a.end - a.start;
    if (length != b.end - b.start)
        return false;
    const char *x = load->reader.text + a.start, *y = load->reader.text + b.start;
    if (length > 16)
        return memcmp(x, y, length) == 0;
    for (size_t i = 0; i < length; i++)
        if (x[i] != y[i])
            return false;
    return true;
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

/* In the order Kineto writes them (the reader tries the next one first). */
enum memory_arg {
    ARG_RESERVED,
    ARG_ALLOCATED,
    ARG_BYTES,
    ARG_DEVICE_ID,
    ARG_DEVICE_TYPE,
    ARG_ADDRESS,
    ARG_COUNT
};

static const char *const memory_arg_names[ARG_COUNT] = {
    [ARG_RESERVED] = "Total Reserved", [ARG_ALLOCATED] = "Total Allocated",
    [ARG_BYTES] = "Bytes",             [ARG_DEVICE_ID] = "Device Id",
    [ARG_DEVICE_TYPE] = "Device Type", [ARG_ADDRESS] = "Addr",
};
static const uint8_t memory_arg_lengths[ARG_COUNT] = {
    [ARG_RESERVED] = 14, [ARG_ALLOCATED] = 15, [ARG_BYTES] = 5,
    [ARG_DEVICE_ID] = 9, [ARG_DEVICE_TYPE] = 11, [ARG_ADDRESS] = 4,
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
        static const struct trace_keys keys = {memory_arg_names, ARG_COUNT, memory_arg_lengths,
                                               NULL, NULL};
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

/* At the first frame: the memory events' times and the forward ops'
 * starts ("s" flows: a backward event takes the frames there) by
 * (thread, time), and the filter on when there are memory events. False
 * when memory runs out. */
static bool frames_start(struct trace_kineto *kineto)
{
    kineto->frames_started = true;
    if (kineto->memory_count == 0)
        return true;
    size_t count = kineto->memory_count;
    for (size_t i = 0; i < kineto->flows_count; i++)
        count += kineto->flows[i].is_start;
    kineto->memory_times = malloc(count * sizeof *kineto->memory_times);
    if (!kineto->memory_times)
        return false;
    for (size_t i = 0; i < kineto->memory_count; i++)
        kineto->memory_times[i] =
            (struct kineto_time){kineto->memory[i].thread, kineto->memory[i].time_ns};
    for (size_t i = 0, at = kineto->memory_count; i < kineto->flows_count; i++)
        if (kineto->flows[i].is_start)
            kineto->memory_times[at++] =
                (struct kineto_time){kineto->flows[i].thread, kineto->flows[i].time_ns};
    kineto->memory_time_count = count;
    qsort(kineto->memory_times, kineto->memory_time_count, sizeof *kineto->memory_times,
          time_compare);
    kineto->frames_filtered = true;
    return true;
}

/* Whether a memory event (or a forward op's start) of `thread` lies in
 * [start, end): the events a frame can be around (half-open, as the
 * attribution reads them). */
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

enum load_status trace_kineto_take_flow(struct trace_load *load, const struct trace_event *event,
                                        bool is_start)
{
    if (!event->has_time)
        return LOAD_OK;
    struct trace_kineto *kineto = kineto_of(load);
    if (!kineto)
        return trace_load_no_memory(load);
    struct kineto_flow flow = {
        .time_ns = event->time_ns,
        .is_start = is_start,
        .after_frames = kineto->frames_filtered,
    };
    if (!trace_load_id(load, event->member[TRACE_KEY_ID], &flow.id) ||
        !event_thread(load, kineto, event, &flow.thread))
        return trace_load_no_memory(load);
    return LIST_APPEND(kineto, flows, flow) ? LOAD_OK : trace_load_no_memory(load);
}
