/* The PyTorch producer, second half: the JSON Kineto's ChromeTraceLogger
 * (libkineto/src/output_json.cpp) writes for the simulated run, laid out
 * like the real capture data/real/torch-mlp.pt.trace.json.gz (per thread:
 * its ops, then its [memory] events; then every python_function event;
 * then GPU activity, metadata, the trace span and "Record Window End"),
 * and the expectations of docs/formats/chrome_trace.md for PyTorch traces. */
#include "config.h"

#include "tests/formats/chrome_trace/generate_trace_pytorch.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct kineto {
    struct writer *writer;
    const struct options *options;
    const struct pytorch *sim;
    int64_t event_index; /* "Ev Idx" */
};

/* "ts": as Kineto prints it; notes the written value for the earliest. */
static void put_ts(struct kineto *out, const char *key, int64_t time)
{
    int64_t ns = written_ns(out->options, time);
    writer_note_ts(out->writer, ns);
    if (out->options->timestamps == TIMESTAMPS_ABSOLUTE)
        writer_printf(out->writer, "\"%s\": %" PRId64, key, ns / 1000);
    else
        writer_printf(out->writer, "\"%s\": %" PRId64 ".%03" PRId64, key, ns / 1000, ns % 1000);
}

static void put_span(struct kineto *out, int64_t start, int64_t end)
{
    put_ts(out, "ts", start);
    int64_t duration = written_ns(out->options, end) - written_ns(out->options, start);
    if (out->options->timestamps == TIMESTAMPS_ABSOLUTE)
        writer_printf(out->writer, ", \"dur\": %" PRId64, duration / 1000);
    else
        writer_printf(out->writer, ", \"dur\": %" PRId64 ".%03" PRId64, duration / 1000, duration % 1000);
}

static void write_op(struct kineto *out, const struct op *op)
{
    char buffer[64];
    struct op_name name = pytorch_op_name(out->sim, op, buffer, sizeof buffer);
    writer_printf(out->writer, "\n  {\n    \"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %d, \"tid\": %" PRId64 ",\n    ",
                  op->kind == KIND_CPU_OP ? "cpu_op" : "user_annotation", name.json, KINETO_PID,
                  thread_tids[op->thread]);
    put_span(out, op->start, op->end);
    writer_printf(out->writer, ",\n    \"args\": {\n      \"External id\": %d,%s, \"Ev Idx\": %" PRId64 "\n    }\n  },",
                  op->external, pytorch_op_args(out->sim, op), out->event_index++);
    if (op->flow != 0) {
        writer_printf(out->writer, "\n  {\n    \"ph\": \"%s\", \"id\": %d, \"pid\": %d, \"tid\": %" PRId64 ", ",
                      op->flow_start ? "s" : "f", op->flow, KINETO_PID, thread_tids[op->thread]);
        put_ts(out, "ts", op->start);
        writer_printf(out->writer, ",\n    \"cat\": \"fwdbwd\", \"name\": \"fwdbwd\"%s\n  },",
                      op->flow_start ? "" : ", \"bp\": \"e\"");
    }
}

static void write_memory(struct kineto *out, const struct memory_event *event)
{
    writer_printf(out->writer,
                  "\n  {\n    \"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"%s\",\n"
                  "    \"pid\": %d, \"tid\": %" PRId64 ",\n    ",
                  event->out_of_memory ? "[OutOfMemory]" : "[memory]", KINETO_PID, thread_tids[event->thread]);
    put_ts(out, "ts", event->time);
    writer_printf(out->writer,
                  ",\n    \"args\": {\n      \"Total Reserved\": %" PRId64 ", \"Total Allocated\": %" PRId64
                  ", \"Bytes\": %" PRId64 ", \"Device Id\": %d, \"Device Type\": %d",
                  event->reserved, event->allocated, event->bytes, device_indices[event->device],
                  device_types[event->device]);
    if (!event->out_of_memory)
        writer_printf(out->writer, ", \"Addr\": %" PRId64, (int64_t)event->address);
    writer_printf(out->writer, ", \"finished\": false, \"Ev Idx\": %" PRId64 "\n    }\n  },", out->event_index++);
}

/* Per thread (the autograd engine's first, as in the real file): every
 * op, then every [memory] event, then the out-of-memory events. */
static void write_threads(struct kineto *out)
{
    const struct pytorch *sim = out->sim;
    for (int thread = 0; thread < THREAD_COUNT; thread++) {
        for (size_t i = 0; i < sim->op_count; i++)
            if (sim->ops[i].thread == thread)
                write_op(out, &sim->ops[i]);
        for (int oom = 0; oom < 2; oom++)
            for (size_t i = 0; i < sim->event_count; i++)
                if (sim->events[i].thread == thread && sim->events[i].out_of_memory == oom)
                    write_memory(out, &sim->events[i]);
    }
}

static void write_python(struct kineto *out, const char *name, int64_t start, int64_t end, int64_t id, int64_t parent)
{
    writer_printf(out->writer, "\n  {\n    \"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d,\n    ",
                  name, KINETO_PID, KINETO_PID);
    put_span(out, start, end);
    if (parent == 0)
        writer_text(out->writer, ",\n    \"args\": {\n      \"Python parent id\": null");
    else
        writer_printf(out->writer, ",\n    \"args\": {\n      \"Python parent id\": %" PRId64, parent);
    writer_printf(out->writer, ", \"Python id\": %" PRId64 ", \"Ev Idx\": %" PRId64 "\n    }\n  },", id,
                  out->event_index++);
}

static const char *const python_frames[] = {
    "torch/nn/modules/module.py(1773): _wrapped_call_impl",
    "torch/nn/modules/module.py(1784): _call_impl",
    "torch/nn/modules/linear.py(125): forward",
    "torch/autograd/graph.py(829): _engine_run_backward",
    "torch/_tensor.py(625): backward",
    "torch/optim/optimizer.py(485): wrapper",
    "<built-in method run_backward of torch._C._EngineBase object at 0x7f3a2c1b5e40>",
};

/* The main thread's Python stack: one root frame over the whole run and
 * `count` leaf frames spread over the gaps where no cpu_op is open (the
 * main thread waits for the backward pass), so every X event on the
 * thread stays properly nested. */
static void write_python_functions(struct kineto *out, int64_t count)
{
    const struct pytorch *sim = out->sim;
    int64_t root_start = START_NS + 500, root_end = sim->end_time - 500;
    write_python(out, "torch_trace.py(25): <module>", root_start, root_end, 1, 0);
    int64_t total = 0;
    for (size_t g = 0; g < sim->gap_count; g++)
        total += sim->gaps[g].end - sim->gaps[g].start;
    int64_t id = 2, written = 0;
    for (size_t g = 0; g < sim->gap_count && total > 0; g++) {
        const struct gap *gap = &sim->gaps[g];
        int64_t share = (int64_t)((double)count * (double)(gap->end - gap->start) / (double)total);
        if (g == sim->gap_count - 1)
            share = count - written;
        if (share <= 0)
            continue;
        int64_t slot = (gap->end - gap->start) / share;
        for (int64_t k = 0; k < share; k++, id++) {
            int64_t start = gap->start + k * slot;
            write_python(out, python_frames[id % 7], start, start + (slot > 1 ? slot / 2 : 0), id, 1);
        }
        written += share;
    }
}

static void write_launch(struct kineto *out, const struct launch *launch)
{
    int64_t tid = thread_tids[launch->thread];
    writer_printf(out->writer, "\n  {\n    \"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": %d, \"tid\": %" PRId64 ",\n    ",
                  KINETO_PID, tid);
    put_span(out, launch->start, launch->end);
    writer_printf(out->writer, ",\n    \"args\": {\n      \"External id\": %d,      \"cbid\": 211, \"correlation\": %d\n    }\n  },",
                  launch->external, launch->correlation);
    writer_printf(out->writer, "\n  {\n    \"ph\": \"s\", \"id\": %d, \"pid\": %d, \"tid\": %" PRId64 ", ", launch->correlation,
                  KINETO_PID, tid);
    put_ts(out, "ts", launch->start);
    writer_text(out->writer, ",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"\n  },");
    int device = device_indices[launch->device];
    writer_printf(out->writer, "\n  {\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": %d, \"tid\": 7,\n    ",
                  pytorch_kernel_name(launch->kernel), device);
    put_span(out, launch->gpu_start, launch->gpu_end);
    writer_printf(out->writer,
                  ",\n    \"args\": {\n      \"External id\": %d,      \"queued\": 0, \"device\": %d, \"context\": 1,      "
                  "\"stream\": 7, \"correlation\": %d,      \"registers per thread\": 16,      \"shared memory\": 0,      "
                  "\"blocks per SM\": 0.022727,      \"warps per SM\": 0.090909,      \"grid\": [3, 1, 1],      "
                  "\"block\": [128, 1, 1],      \"est. achieved occupancy %%\": 0\n    }\n  },",
                  launch->external, device, launch->correlation);
    writer_printf(out->writer, "\n  {\n    \"ph\": \"f\", \"id\": %d, \"pid\": %d, \"tid\": 7, ", launch->correlation, device);
    put_ts(out, "ts", launch->gpu_start);
    writer_text(out->writer, ",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"\n  },");
}

static void write_metadata_event(struct kineto *out, const char *name, int64_t pid, int64_t tid, const char *key,
                                 const char *value)
{
    writer_printf(out->writer, "\n  {\n    \"name\": \"%s\", \"ph\": \"M\", ", name);
    put_ts(out, "ts", START_NS + 905281);
    writer_printf(out->writer, ", \"pid\": %" PRId64 ", \"tid\": %" PRId64 ",\n    \"args\": {\n      \"%s\": %s\n    }\n  },",
                  pid, tid, key, value);
}

/* GPU activity, the overhead span, metadata, the trace span. */
static void write_tail_events(struct kineto *out)
{
    const struct pytorch *sim = out->sim;
    for (size_t i = 0; i < sim->launch_count; i++)
        write_launch(out, &sim->launches[i]);
    writer_text(out->writer, "\n  {\n    \"ph\": \"X\", \"cat\": \"overhead\", \"name\": \"Activity Buffer Request\", \"pid\": -1, \"tid\": 0,\n    ");
    put_span(out, START_NS + 1375598, START_NS + 3747602);
    writer_text(out->writer, "\n  },");
    for (size_t i = 0; i < sim->op_count; i++) {
        const struct op *op = &sim->ops[i];
        if (op->kind != KIND_USER_ANNOTATION || op->name < 0 || op->thread != THREAD_MAIN)
            continue;
        char buffer[64];
        writer_printf(out->writer, "\n  {\n    \"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7,\n    ",
                      pytorch_op_name(sim, op, buffer, sizeof buffer).json);
        put_span(out, op->start + 2999, op->end + 3001); /* one ns early, as Kineto shifts them */
        writer_printf(out->writer, ",\n    \"args\": {\n      \"External id\": %d\n    }\n  },", op->external);
    }
    char value[128];
    write_metadata_event(out, "process_name", KINETO_PID, 0, "name", "\"python3\"");
    write_metadata_event(out, "process_labels", KINETO_PID, 0, "labels", "\"CPU\"");
    write_metadata_event(out, "process_sort_index", KINETO_PID, 0, "sort_index", "1240");
    for (int gpu = 0; gpu < 8; gpu++) {
        write_metadata_event(out, "process_name", gpu, 0, "name", "\"python3\"");
        snprintf(value, sizeof value, "\"GPU %d\"", gpu);
        write_metadata_event(out, "process_labels", gpu, 0, "labels", value);
        snprintf(value, sizeof value, "%d", 5000000 + gpu);
        write_metadata_event(out, "process_sort_index", gpu, 0, "sort_index", value);
    }
    write_metadata_event(out, "thread_name", 0, 7, "name", "\"stream 7 \"");
    write_metadata_event(out, "thread_sort_index", 0, 7, "sort_index", "7");
    /* Thread names come from the OS and are written raw. */
    write_metadata_event(out, "thread_name", KINETO_PID, thread_tids[THREAD_AUTOGRAD], "name",
                         out->options->hostile ? "\"thread 1265 (pt_\x1b]0;x\x07\xff\xc3)\"" : "\"thread 1265 (pt_autograd_0)\"");
    write_metadata_event(out, "thread_sort_index", KINETO_PID, thread_tids[THREAD_AUTOGRAD], "sort_index", "1265");
    write_metadata_event(out, "thread_name", KINETO_PID, KINETO_PID, "name", "\"thread 1240 (python3)\"");
    write_metadata_event(out, "thread_sort_index", KINETO_PID, KINETO_PID, "sort_index", "1240");
    writer_text(out->writer, "\n  {\n    \"ph\": \"X\", \"cat\": \"Trace\", ");
    put_span(out, START_NS, sim->end_time);
    writer_text(out->writer, ",\n    \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\",\n    \"name\": \"PyTorch Profiler (0)\",\n"
                             "    \"args\": {\n      \"Op count\": 0\n    }\n  },");
    writer_text(out->writer, "\n  {\n    \"name\": \"process_sort_index\", \"ph\": \"M\", ");
    put_ts(out, "ts", START_NS);
    writer_text(out->writer, ",\n    \"pid\": \"Spans\", \"tid\": 0,\n    \"args\": {\n      \"sort_index\": 536870912\n    }\n  },");
    writer_text(out->writer, "\n  {\n    \"name\": \"Iteration Start: PyTorch Profiler\", \"ph\": \"i\", \"s\": \"g\",\n"
                             "    \"pid\": \"Traces\", \"tid\": \"Trace PyTorch Profiler\", ");
    put_ts(out, "ts", START_NS);
    writer_text(out->writer, "\n  },");
    writer_text(out->writer, "\n  {\n    \"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\",\n    \"pid\": \"\", \"tid\": \"\", ");
    put_ts(out, "ts", sim->end_time);
    writer_text(out->writer, "\n  }");
}

static const char device_properties[] =
    "\n    {\n      \"id\": %d, \"name\": \"NVIDIA H100 80GB HBM3\", \"totalGlobalMem\": 85017493504,\n"
    "      \"computeMajor\": 9, \"computeMinor\": 0,\n"
    "      \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048,\n"
    "      \"regsPerBlock\": 65536, \"warpSize\": 32,\n"
    "      \"sharedMemPerBlock\": 49152, \"numSms\": 132\n"
    "    , \"regsPerMultiprocessor\": 65536, \"sharedMemPerBlockOptin\": 232448, \"sharedMemPerMultiprocessor\": 233472\n"
    "    }";

static void write_head(struct kineto *out)
{
    enum ending ending = out->options->ending;
    if (ending != ENDING_OBJECT && ending != ENDING_TRAILING_EMPTY_OBJECT) {
        writer_text(out->writer, "[");
        return;
    }
    writer_text(out->writer, "\n  {\n    \"schemaVersion\": 1,\n    \"deviceProperties\": [");
    for (int device = 0; device < out->options->devices; device++) {
        if (device > 0)
            writer_text(out->writer, ",");
        writer_printf(out->writer, device_properties, device);
    }
    writer_text(out->writer, "\n    ],\n      \"trace_id\": \"071F0E91CEC044EEA5428CDC1B5C988B\",\n"
                             "      \"with_stack\": 1,\n      \"profile_memory\": 1,\n"
                             "      \"cuda_driver_version\": 13000,\n      \"record_shapes\": 1,\n"
                             "      \"cuda_runtime_version\": 13000,\n      \"cupti_version\": 130001,");
    if (out->options->timestamps == TIMESTAMPS_RELATIVE)
        writer_printf(out->writer, "\n  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": %" PRId64 ",",
                      BASE_TIME_NS);
    writer_text(out->writer, "\n  \"traceEvents\": [");
}

static void write_end(struct kineto *out)
{
    static const char *const ends[] = {
        [ENDING_OBJECT] = "\n  ],\n  \"traceName\": \"/tmp/cap/torch_mlp.pt.trace.json\"\n}",
        [ENDING_BARE] = "\n]",
        [ENDING_BARE_UNTERMINATED] = "\n",
        [ENDING_BARE_UNTERMINATED_COMMA] = ",\n",
        [ENDING_BARE_TRAILING_COMMA] = ",\n]",
        [ENDING_TRAILING_EMPTY_OBJECT] = ",\n  {}\n  ],\n  \"traceName\": \"/tmp/cap/torch_mlp.pt.trace.json\"\n}",
    };
    writer_text(out->writer, ends[out->options->ending]);
}

/* ---- the expectations (docs/formats/chrome_trace.md, PyTorch traces) ---- */

struct placed {
    int64_t ns;   /* as written */
    size_t file;  /* position among the [memory] events of the file */
    const struct memory_event *event;
    struct text op, chain;
    struct text data_type, shape; /* the innermost cpu_op's inputs */
    int64_t step;
};

static int placed_compare(const void *left_pointer, const void *right_pointer)
{
    const struct placed *left = left_pointer, *right = right_pointer;
    if (left->ns != right->ns)
        return left->ns < right->ns ? -1 : 1;
    return left->file < right->file ? -1 : left->file > right->file;
}

struct interval {
    int64_t start, end; /* as written */
    const struct op *op;
    size_t index;
};

static int interval_compare(const void *left_pointer, const void *right_pointer)
{
    const struct interval *left = left_pointer, *right = right_pointer;
    if (left->start != right->start)
        return left->start < right->start ? -1 : 1;
    if (left->end != right->end)
        return left->end > right->end ? -1 : 1;
    return left->index < right->index ? -1 : left->index > right->index;
}

static bool is_evaluate(const struct pytorch *sim, const struct op *op)
{
    static const char prefix[] = "autograd::engine::evaluate_function: ";
    char buffer[64];
    struct op_name name = pytorch_op_name(sim, op, buffer, sizeof buffer);
    return name.length > sizeof prefix - 1 && memcmp(name.bytes, prefix, sizeof prefix - 1) == 0;
}

/* The innermost cpu_op (user annotations nest but are not operators) and
 * the chain of enclosing ops and annotations, for the memory events of
 * one thread, sorted by time: a sweep over its ops in (start, longest
 * first) order with a stack of the open ones, intervals half-open. */
static void attribute_thread(struct kineto *out, struct arena *arena, int thread, struct placed *placed, size_t count)
{
    const struct pytorch *sim = out->sim;
    struct interval *intervals = checked_calloc(sim->op_count, sizeof *intervals);
    size_t interval_count = 0;
    for (size_t i = 0; i < sim->op_count; i++)
        if (sim->ops[i].thread == thread)
            intervals[interval_count++] = (struct interval){written_ns(out->options, sim->ops[i].start),
                                                            written_ns(out->options, sim->ops[i].end), &sim->ops[i], i};
    qsort(intervals, interval_count, sizeof *intervals, interval_compare);
    const struct op **flow_starts = checked_calloc((size_t)sim->next_flow + 1, sizeof *flow_starts);
    for (size_t i = 0; i < sim->op_count; i++)
        if (sim->ops[i].flow > 0 && sim->ops[i].flow_start && sim->ops[i].flow <= sim->next_flow)
            flow_starts[sim->ops[i].flow] = &sim->ops[i];
    const struct interval *stack[128];
    int depth = 0;
    size_t next = 0;
    for (size_t e = 0; e < count; e++) {
        if (placed[e].event->thread != thread)
            continue;
        int64_t t = placed[e].ns;
        for (; next < interval_count && intervals[next].start <= t; next++) {
            while (depth > 0 && stack[depth - 1]->end <= intervals[next].start)
                depth--;
            if (depth == 128)
                fatal("ops nested too deep");
            stack[depth++] = &intervals[next];
        }
        while (depth > 0 && stack[depth - 1]->end <= t)
            depth--;
        char chain[8192];
        size_t length = 0;
        placed[e].op = placed[e].data_type = placed[e].shape = text_of("");
        for (int i = 0; i < depth; i++) {
            char buffer[64];
            struct op_name name = pytorch_op_name(sim, stack[i]->op, buffer, sizeof buffer);
            if (length + name.length + 3 >= sizeof chain)
                fatal("chain too long");
            if (i > 0) {
                memcpy(chain + length, " > ", 3);
                length += 3;
            }
            memcpy(chain + length, name.bytes, name.length);
            length += name.length;
            if (stack[i]->op->kind == KIND_CPU_OP) { /* cpu_op names are static */
                placed[e].op = (struct text){name.bytes, name.length};
                const char *data_type, *shape;
                pytorch_op_shapes(sim, stack[i]->op, &data_type, &shape);
                placed[e].data_type = text_of(data_type);
                placed[e].shape = text_of(shape);
            }
        }
        /* memtop's fwdbwd link: the innermost backward op (or the
         * evaluate_function op just before it) names its forward op. */
        const struct op *forward = NULL;
        for (int i = depth - 1; i >= 0 && !forward; i--) {
            const struct op *node = stack[i]->op;
            if (stack[i]->index + 1 < sim->op_count && node->flow == 0 &&
                sim->ops[stack[i]->index + 1].thread == thread && is_evaluate(sim, node))
                node = &sim->ops[stack[i]->index + 1];
            if (node->flow != 0 && !node->flow_start && node->flow <= sim->next_flow)
                forward = flow_starts[node->flow];
        }
        if (forward) {
            char buffer[64];
            struct op_name name = pytorch_op_name(sim, forward, buffer, sizeof buffer);
            if (length + name.length + 12 >= sizeof chain)
                fatal("chain too long");
            length += (size_t)snprintf(chain + length, sizeof chain - length, " [forward: %.*s]",
                                       (int)name.length, name.bytes);
        }
        placed[e].chain = arena_copy(arena, chain, length);
    }
    free(intervals);
    free(flow_starts);
}

/* step_id: N of the ProfilerStep#N whose [ts, ts + dur) holds the time
 * (the steps are disjoint and few: a scan over them). */
static void assign_steps(struct kineto *out, struct placed *placed, size_t count)
{
    const struct pytorch *sim = out->sim;
    struct interval *steps = checked_calloc(sim->op_count, sizeof *steps);
    size_t step_count = 0;
    for (size_t i = 0; i < sim->op_count; i++)
        if (sim->ops[i].name < 0)
            steps[step_count++] = (struct interval){written_ns(out->options, sim->ops[i].start),
                                                    written_ns(out->options, sim->ops[i].end), &sim->ops[i], i};
    for (size_t e = 0; e < count; e++) {
        placed[e].step = -1;
        for (size_t i = 0; i < step_count; i++)
            if (steps[i].start <= placed[e].ns && placed[e].ns < steps[i].end)
                placed[e].step = -1 - steps[i].op->name;
    }
    free(steps);
}

struct address_entry {
    uint64_t address;
    int64_t value; /* a snapshot index, or -1 */
    bool used;
};

struct address_map {
    struct address_entry *entries;
    size_t capacity, count;
};

static struct address_entry *address_slot(struct address_map *map, uint64_t address)
{
    if (2 * (map->count + 1) > map->capacity) {
        struct address_map bigger = {.capacity = map->capacity ? 2 * map->capacity : 1024};
        bigger.entries = checked_calloc(bigger.capacity, sizeof *bigger.entries);
        for (size_t i = 0; i < map->capacity; i++)
            if (map->entries[i].used)
                *address_slot(&bigger, map->entries[i].address) = map->entries[i], bigger.count++;
        free(map->entries);
        *map = bigger;
    }
    size_t slot = (size_t)((address * UINT64_C(0x9e3779b97f4a7c15)) >> 20) & (map->capacity - 1);
    while (map->entries[slot].used && map->entries[slot].address != address)
        slot = (slot + 1) & (map->capacity - 1);
    return &map->entries[slot];
}

static int64_t address_get(struct address_map *map, uint64_t address)
{
    struct address_entry *entry = address_slot(map, address);
    return entry->used ? entry->value : -1;
}

static void address_put(struct address_map *map, uint64_t address, int64_t value)
{
    struct address_entry *entry = address_slot(map, address);
    if (!entry->used)
        map->count++;
    *entry = (struct address_entry){address, value, true};
}

/* Rows at the peak: replay by address up to and including the peak
 * snapshot, plus what Total Allocated holds beyond the live blocks. */
static void expect_rows(struct expect_allocator *allocator)
{
    size_t peak = expect_peak_index(allocator);
    struct address_map live = {0};
    for (size_t i = 0; i <= peak; i++) {
        const struct expect_snapshot *snapshot = &allocator->snapshots[i];
        if (snapshot->activity == ACTIVITY_ALLOCATION)
            address_put(&live, snapshot->address, (int64_t)i);
        else if (address_get(&live, snapshot->address) >= 0)
            address_put(&live, snapshot->address, -1);
    }
    int64_t live_bytes = 0;
    for (size_t i = 0; i < live.capacity; i++) {
        if (!live.entries[i].used || live.entries[i].value < 0)
            continue;
        const struct expect_snapshot *made = &allocator->snapshots[live.entries[i].value];
        struct expect_row row = {made->bytes, made->bytes, 1, made->op, made->region, made->data_type, made->shape};
        expect_add_row(allocator, &row);
        live_bytes += made->bytes;
    }
    int64_t before = allocator->snapshots[peak].heap_bytes - live_bytes;
    if (before > 0) {
        struct expect_row row = {before, before, 1, text_of("allocated before the profile"), text_of("persist/dynamic"),
                                 text_of("INVALID"), text_of("unknown")};
        expect_add_row(allocator, &row);
    }
    free(live.entries);
}

static void expect_device(struct kineto *out, struct expectations *expect, int device, const struct placed *placed,
                          size_t count)
{
    struct expect_allocator *allocator = expect_add_allocator(expect, text_of(device_labels[device]));
    struct address_map allocated_by = {0}; /* address -> its latest allocation's snapshot */
    for (size_t e = 0; e < count; e++) {
        const struct memory_event *event = placed[e].event;
        if (event->device != device || event->out_of_memory)
            continue;
        struct expect_snapshot snapshot = {
            .time_ns = placed[e].ns,
            .heap_bytes = event->allocated,
            .free_bytes = event->reserved >= event->allocated ? event->reserved - event->allocated : 0,
            .activity = event->bytes >= 0 ? ACTIVITY_ALLOCATION : ACTIVITY_DEALLOCATION,
            .bytes = event->bytes >= 0 ? event->bytes : -event->bytes,
            .address = event->address,
            .step = placed[e].step,
            .op = placed[e].op,
            .chain = placed[e].chain,
            .data_type = placed[e].data_type,
            .shape = placed[e].shape,
        };
        int64_t origin = address_get(&allocated_by, event->address);
        if (snapshot.activity == ACTIVITY_DEALLOCATION && origin >= 0) {
            snapshot.op = allocator->snapshots[origin].op;
            snapshot.chain = allocator->snapshots[origin].chain;
            snapshot.data_type = allocator->snapshots[origin].data_type;
            snapshot.shape = allocator->snapshots[origin].shape;
        }
        if (snapshot.activity == ACTIVITY_ALLOCATION)
            address_put(&allocated_by, event->address, (int64_t)allocator->count);
        expect_add_snapshot(allocator, &snapshot);
    }
    free(allocated_by.entries);
    expect_rows(allocator);
    (void)out;
}

static void expect_trace(struct kineto *out, struct expectations *expect)
{
    const struct pytorch *sim = out->sim;
    struct placed *placed = checked_calloc(sim->event_count, sizeof *placed);
    size_t count = 0;
    for (int thread = 0; thread < THREAD_COUNT; thread++)
        for (int oom = 0; oom < 2; oom++)
            for (size_t i = 0; i < sim->event_count; i++)
                if (sim->events[i].thread == thread && sim->events[i].out_of_memory == oom) {
                    placed[count] = (struct placed){.ns = written_ns(out->options, sim->events[i].time), .file = count,
                                                    .event = &sim->events[i]};
                    count++;
                }
    qsort(placed, count, sizeof *placed, placed_compare);
    for (int thread = 0; thread < THREAD_COUNT; thread++)
        attribute_thread(out, &expect->strings, thread, placed, count);
    assign_steps(out, placed, count);
    bool seen[DEVICE_COUNT] = {false};
    for (size_t e = 0; e < count; e++) {
        const struct memory_event *event = placed[e].event;
        if (event->out_of_memory) {
            struct expect_oom oom = {text_of(device_labels[event->device]), placed[e].ns, event->bytes,
                                     event->allocated, event->reserved};
            expect_add_oom(expect, &oom);
        } else if (!seen[event->device]) {
            seen[event->device] = true;
            expect_device(out, expect, event->device, placed, count);
        }
    }
    free(placed);
}

void pytorch_generate(const struct options *options, struct writer *writer, struct expectations *expect)
{
    struct pytorch sim = {.options = options, .random = options->seed ^ UINT64_C(0x2545f4914f6cdd1d)};
    pytorch_simulate(&sim);
    struct kineto out = {.writer = writer, .options = options, .sim = &sim};
    write_head(&out);
    write_threads(&out);
    int64_t leaves = 0;
    if (options->size_target > 0) {
        struct writer counter;
        writer_counting(&counter);
        struct kineto probe = {.writer = &counter, .options = options, .sim = &sim, .event_index = out.event_index};
        write_tail_events(&probe);
        write_end(&probe);
        write_python(&probe, python_frames[0], START_NS, START_NS + 1000, 1, 0);
        uint64_t tail = counter.bytes;
        writer_counting(&counter);
        write_python(&probe, python_frames[3], sim.end_time, sim.end_time + 123456, 123456, 1);
        uint64_t leaf = counter.bytes;
        if (writer->bytes + tail < (uint64_t)options->size_target)
            leaves = (int64_t)(((uint64_t)options->size_target - writer->bytes - tail) / leaf);
    }
    write_python_functions(&out, leaves);
    write_tail_events(&out);
    write_end(&out);
    expect_trace(&out, expect);
    free(sim.ops);
    free(sim.events);
    free(sim.launches);
    free(sim.gaps);
}
