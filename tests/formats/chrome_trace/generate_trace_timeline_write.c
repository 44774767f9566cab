/* The timeline.py producer, second half: the JSON that
 * generate_chrome_trace_format(show_dataflow=True, show_memory=True) writes
 * for the simulated StepStats (json.dumps with indent=4, ensure_ascii), in
 * timeline.py's array order, and the expectations: the Memory counter
 * tuples replayed as _show_memory_counters() replays them. */
#include "config.h"

#include "tests/formats/chrome_trace/generate_trace_timeline.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define I2 "        "
#define I3 "            "
#define I4 "                "
#define I5 "                    "

struct emit {
    struct writer *writer;
    const struct options *options;
    bool first;
    int64_t flow_id;
};

/* ---- json.dumps(..., ensure_ascii=True) strings ---- */

/* Decodes one UTF-8 sequence leniently (surrogates allowed: Python str
 * holds lone surrogates as code points, kept here as WTF-8). */
static size_t decode(const unsigned char *bytes, size_t length, uint32_t *code_point)
{
    unsigned char lead = bytes[0];
    size_t size = lead < 0x80 ? 1 : lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : 4;
    if (size > length)
        fatal("cut UTF-8 in a simulated name");
    uint32_t value = size == 1 ? lead : size == 2 ? lead & 0x1fu : size == 3 ? lead & 0x0fu : lead & 0x07u;
    for (size_t i = 1; i < size; i++)
        value = (value << 6) | (bytes[i] & 0x3fu);
    *code_point = value;
    return size;
}

static void py_string(struct writer *writer, struct text text)
{
    writer_bytes(writer, "\"", 1);
    const unsigned char *bytes = (const unsigned char *)text.bytes;
    for (size_t i = 0; i < text.length;) {
        uint32_t c;
        i += decode(bytes + i, text.length - i, &c);
        if (c == '"' || c == '\\') {
            char escaped[2] = {'\\', (char)c};
            writer_bytes(writer, escaped, 2);
        } else if (c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f') {
            char escaped[2] = {'\\', c == '\n' ? 'n' : c == '\r' ? 'r' : c == '\t' ? 't' : c == '\b' ? 'b' : 'f'};
            writer_bytes(writer, escaped, 2);
        } else if (c >= 0x20 && c <= 0x7e) {
            char plain = (char)c;
            writer_bytes(writer, &plain, 1);
        } else if (c < 0x10000) {
            writer_printf(writer, "\\u%04x", (unsigned)c);
        } else {
            uint32_t v = c - 0x10000;
            writer_printf(writer, "\\u%04x\\u%04x", (unsigned)(0xd800 + (v >> 10)), (unsigned)(0xdc00 + (v & 0x3ff)));
        }
    }
    writer_bytes(writer, "\"", 1);
}

/* ---- events, keys in _create_event's order ---- */

static void event_open(struct emit *emit)
{
    writer_text(emit->writer, emit->first ? I2 "{\n" : ",\n" I2 "{\n");
    emit->first = false;
}

static void event_head(struct emit *emit, const char *ph, const char *cat, struct text name, int64_t pid,
                       int64_t tid, int64_t ts)
{
    event_open(emit);
    writer_printf(emit->writer, I3 "\"ph\": \"%s\",\n" I3 "\"cat\": \"%s\",\n" I3 "\"name\": ", ph, cat);
    py_string(emit->writer, name);
    writer_printf(emit->writer, ",\n" I3 "\"pid\": %" PRId64 ",\n" I3 "\"tid\": %" PRId64 ",\n" I3 "\"ts\": %" PRId64,
                  pid, tid, ts);
    writer_note_ts(emit->writer, ts * 1000);
}

static void event_close(struct emit *emit)
{
    writer_text(emit->writer, "\n" I2 "}");
}

static void emit_process(struct emit *emit, int64_t pid, struct text name)
{
    event_open(emit);
    writer_printf(emit->writer, I3 "\"name\": \"process_name\",\n" I3 "\"ph\": \"M\",\n" I3 "\"pid\": %" PRId64
                                ",\n" I3 "\"args\": {\n" I4 "\"name\": ",
                  pid);
    py_string(emit->writer, name);
    writer_text(emit->writer, "\n" I3 "}");
    event_close(emit);
}

static int64_t compute_pid(int device)
{
    return 2 * device + 1;
}

static void emit_metadata(struct emit *emit, struct arena *arena)
{
    emit_process(emit, 0, text_of("Allocators"));
    for (int device = 0; device < DEVICE_COUNT; device++) {
        emit_process(emit, compute_pid(device), arena_printf(arena, "%s Compute", device_names[device]));
        emit_process(emit, compute_pid(device) + 1, arena_printf(arena, "%s Tensors", device_names[device]));
    }
}

/* str(TensorDescription) with every '"' deleted: protobuf text format,
 * default values left out. */
static size_t tensor_description(const struct tf_tensor *tensor, char *out, size_t size)
{
    size_t length = (size_t)snprintf(out, size, "dtype: %s\n", dtype_proto[tensor->dtype]);
    if (tensor->rank >= 0) {
        length += (size_t)snprintf(out + length, size - length, "shape {\n");
        for (int i = 0; i < tensor->rank; i++) {
            if (tensor->dims[i] != 0)
                length += (size_t)snprintf(out + length, size - length, "  dim {\n    size: %" PRId64 "\n  }\n",
                                           tensor->dims[i]);
            else
                length += (size_t)snprintf(out + length, size - length, "  dim {\n  }\n");
        }
        length += (size_t)snprintf(out + length, size - length, "}\n");
    }
    length += (size_t)snprintf(out + length, size - length, "allocation_description {\n");
    if (tensor->requested != 0)
        length += (size_t)snprintf(out + length, size - length, "  requested_bytes: %" PRId64 "\n", tensor->requested);
    if (tensor->allocated != 0)
        length += (size_t)snprintf(out + length, size - length, "  allocated_bytes: %" PRId64 "\n", tensor->allocated);
    length += (size_t)snprintf(out + length, size - length, "  allocator_name: %s\n", allocator_names[tensor->allocator]);
    if (tensor->allocation_id != 0)
        length += (size_t)snprintf(out + length, size - length, "  allocation_id: %" PRId64 "\n", tensor->allocation_id);
    if (tensor->single_reference)
        length += (size_t)snprintf(out + length, size - length, "  has_single_reference: true\n");
    if (tensor->ptr != 0)
        length += (size_t)snprintf(out + length, size - length, "  ptr: %" PRIu64 "\n", tensor->ptr);
    length += (size_t)snprintf(out + length, size - length, "}\n");
    if (length >= size)
        fatal("tensor description too long");
    return length;
}

/* _analyze_tensors: N at the producer's start, O at its end - 1. */
static void emit_objects(struct emit *emit, const struct timeline *tl, const struct derived *derived)
{
    int64_t object_id = 0;
    for (size_t i = 0; i < derived->node_order_count; i++) {
        const struct tf_node *node = &tl->nodes[derived->node_order[i]];
        int64_t pid = compute_pid(node->device) + 1;
        for (int32_t k = 0; k < node->output_count; k++, object_id++) {
            const struct tf_tensor *tensor = &tl->tensors[node->first_output + k];
            event_head(emit, "N", "Tensor", tensor->name, pid, node->lane, node->start);
            writer_printf(emit->writer, ",\n" I3 "\"id\": %" PRId64, object_id);
            event_close(emit);
            event_head(emit, "O", "Tensor", tensor->name, pid, node->lane, node->start + node->duration - 1);
            writer_printf(emit->writer, ",\n" I3 "\"id\": %" PRId64 ",\n" I3 "\"args\": {\n" I4 "\"snapshot\": {\n" I5
                                        "\"tensor_description\": ",
                          object_id);
            char text[1024];
            size_t length = tensor_description(tensor, text, sizeof text);
            py_string(emit->writer, (struct text){text, length});
            writer_text(emit->writer, "\n" I4 "}\n" I3 "}");
            event_close(emit);
        }
    }
}

/* _emit_op: the X event; for GPU tracer devices name and op come from the
 * kernel label ("...@@node:op#..."). */
static void emit_op(struct emit *emit, const struct timeline *tl, const struct tf_node *node, struct text op,
                    const struct text *inputs, int count)
{
    struct text name = node->name;
    if (is_gputrace(node->device)) {
        struct text label = node->label;
        const char *at = NULL;
        for (size_t i = 0; at == NULL && i + 1 < label.length; i++)
            if (label.bytes[i] == '@' && label.bytes[i + 1] == '@')
                at = label.bytes + i;
        const char *hash = memchr(label.bytes, '#', label.length);
        if (at != NULL && hash != NULL && at + 2 < hash)
            name = (struct text){at + 2, (size_t)(hash - at - 2)};
        /* fields = node_name.split(":") + ["unknown"]; name, op = fields[:2] */
        const char *colon = memchr(name.bytes, ':', name.length);
        op = text_of("unknown");
        if (colon != NULL) {
            const char *rest = colon + 1;
            size_t rest_length = name.length - (size_t)(rest - name.bytes);
            const char *second = memchr(rest, ':', rest_length);
            op = (struct text){rest, second ? (size_t)(second - rest) : rest_length};
            name.length = (size_t)(colon - name.bytes);
        }
    }
    (void)tl;
    event_head(emit, "X", "Op", op, compute_pid(node->device), node->lane, node->start);
    writer_printf(emit->writer, ",\n" I3 "\"dur\": %" PRId64 ",\n" I3 "\"args\": {\n" I4 "\"name\": ", node->duration);
    py_string(emit->writer, name);
    writer_text(emit->writer, ",\n" I4 "\"op\": ");
    py_string(emit->writer, op);
    for (int i = 0; i < count; i++) {
        writer_printf(emit->writer, ",\n" I4 "\"input%d\": ", i);
        py_string(emit->writer, inputs[i]);
    }
    writer_text(emit->writer, "\n" I3 "}");
    event_close(emit);
}

static void emit_flow(struct emit *emit, const char *ph, struct text name, int64_t ts, int64_t pid, int64_t tid)
{
    event_head(emit, ph, "DataFlow", name, pid, tid, ts);
    writer_printf(emit->writer, ",\n" I3 "\"id\": %" PRId64, emit->flow_id);
    event_close(emit);
}

/* _show_compute for one node: its X, then a flow per input read from
 * another pid or tid. */
static void emit_compute(struct emit *emit, const struct timeline *tl, const struct tf_node *node)
{
    struct text op = text_of("unknown"), inputs_text = text_of(""), inputs[MAX_INPUTS];
    int count = 0;
    if (!is_gputrace(node->device) && parse_op_label(node->label, &op, &inputs_text))
        count = split_inputs(inputs_text, inputs, MAX_INPUTS);
    emit_op(emit, tl, node, op, inputs, count);
    for (int i = 0; i < count; i++) {
        int32_t index = resolve_input(tl, inputs[i]);
        if (index < 0)
            continue;
        const struct tf_tensor *tensor = &tl->tensors[index];
        const struct tf_node *producer = &tl->nodes[tensor->node];
        if (producer->device == node->device && producer->lane == node->lane)
            continue;
        /* _flow_starts holds the name as the input wrote it after the
         * cut: the tensor's own name. */
        emit_flow(emit, "s", tensor->name, producer->start + producer->duration, compute_pid(producer->device),
                  producer->lane);
        emit_flow(emit, "t", tensor->name, node->start, compute_pid(node->device), node->lane);
        emit->flow_id++;
    }
}

/* ---- _show_memory_counters ---- */

struct tuple {
    int64_t time;
    int64_t bytes; /* -0 is 0, as in Python */
    int32_t tensor;
    int64_t sequence; /* append order: a stable sort keeps it for equal tuples */
    bool create;
};

static const struct timeline *sort_timeline; /* for tuple_compare */

static int tuple_compare(const void *left_pointer, const void *right_pointer)
{
    const struct tuple *left = left_pointer, *right = right_pointer;
    if (left->time != right->time)
        return left->time < right->time ? -1 : 1;
    if (left->bytes != right->bytes)
        return left->bytes < right->bytes ? -1 : 1;
    int order = text_compare(sort_timeline->tensors[left->tensor].name, sort_timeline->tensors[right->tensor].name);
    if (order != 0)
        return order;
    return left->sequence < right->sequence ? -1 : left->sequence > right->sequence;
}

struct series {
    int allocator;
    struct tuple *tuples;
    size_t count, capacity;
};

/* One series per allocator, in the order the allocators first appear in
 * the tensor dict; tuples sorted as Python sorts them. */
static size_t build_series(const struct timeline *tl, const struct derived *derived, struct series *series)
{
    size_t series_count = 0;
    for (size_t i = 0; i < tl->tensor_count; i++) {
        const struct tf_tensor *tensor = &tl->tensors[derived->order[i]];
        size_t s = 0;
        while (s < series_count && series[s].allocator != tensor->allocator)
            s++;
        if (s == series_count)
            series[series_count++] = (struct series){.allocator = tensor->allocator};
        for (int create = 1; create >= 0; create--) {
            grow_array((void **)&series[s].tuples, &series[s].capacity, series[s].count, sizeof *series[s].tuples);
            series[s].tuples[series[s].count++] = (struct tuple){
                .time = create ? tensor->create : tensor->last_unref,
                .bytes = create ? tensor->requested : -tensor->requested,
                .tensor = derived->order[i],
                .sequence = 2 * (int64_t)i + !create,
                .create = create,
            };
        }
    }
    sort_timeline = tl;
    for (size_t s = 0; s < series_count; s++)
        qsort(series[s].tuples, series[s].count, sizeof *series[s].tuples, tuple_compare);
    return series_count;
}

static void emit_deletes(struct emit *emit, const struct timeline *tl, const struct derived *derived)
{
    for (size_t i = 0; i < tl->tensor_count; i++) {
        const struct tf_tensor *tensor = &tl->tensors[derived->order[i]];
        event_head(emit, "D", "Tensor", tensor->name, compute_pid(tl->nodes[tensor->node].device) + 1, 0,
                   tensor->last_unref);
        writer_printf(emit->writer, ",\n" I3 "\"id\": %zu", i);
        event_close(emit);
    }
}

static void emit_counters(struct emit *emit, const struct series *series, size_t series_count)
{
    for (size_t s = 0; s < series_count; s++) {
        struct text name = text_of(allocator_names[series[s].allocator]);
        int64_t total = 0;
        for (size_t i = 0; i < series[s].count; i++) {
            total += series[s].tuples[i].bytes;
            event_head(emit, "C", "Memory", name, 0, 0, series[s].tuples[i].time);
            writer_text(emit->writer, ",\n" I3 "\"args\": {\n" I4);
            py_string(emit->writer, name);
            writer_printf(emit->writer, ": %" PRId64 "\n" I3 "}", total);
            event_close(emit);
        }
    }
}

/* ---- the expectations (TRACE-SEMANTICS.md, timeline.py traces) ---- */

static struct text data_type_of(struct arena *arena, const struct tf_tensor *tensor)
{
    const char *proto = dtype_proto[tensor->dtype] + 3; /* after "DT_" */
    char lower[32];
    size_t length = strlen(proto);
    for (size_t i = 0; i < length && i < sizeof lower; i++)
        lower[i] = (char)(proto[i] >= 'A' && proto[i] <= 'Z' ? proto[i] - 'A' + 'a' : proto[i]);
    return arena_copy(arena, lower, length);
}

static struct text shape_of(struct arena *arena, const struct tf_tensor *tensor)
{
    if (tensor->rank < 0)
        return text_of("unknown");
    char shape[256];
    size_t length = 0;
    shape[length++] = '[';
    for (int i = 0; i < tensor->rank; i++)
        length += (size_t)snprintf(shape + length, sizeof shape - length, "%s%" PRId64, i ? "," : "", tensor->dims[i]);
    shape[length++] = ']';
    return arena_copy(arena, shape, length);
}

static void expect_series(struct expectations *expect, const struct timeline *tl, const struct series *series)
{
    struct arena *arena = &expect->strings;
    struct expect_allocator *allocator = expect_add_allocator(expect, text_of(allocator_names[series->allocator]));
    int64_t total = 0;
    for (size_t i = 0; i < series->count; i++) {
        const struct tuple *tuple = &series->tuples[i];
        const struct tf_tensor *tensor = &tl->tensors[tuple->tensor];
        total += tuple->bytes;
        struct expect_snapshot snapshot = {
            .time_ns = tuple->time * 1000,
            .heap_bytes = total,
            .activity = tuple->create ? ACTIVITY_ALLOCATION : ACTIVITY_DEALLOCATION,
            .bytes = tensor->requested,
            .address = tensor->ptr,
            .step = -1,
            .op = tl->nodes[tensor->node].name,
            .region = text_of("output"),
            .data_type = data_type_of(arena, tensor),
            .shape = shape_of(arena, tensor),
            .chain = text_of(""),
        };
        expect_add_snapshot(allocator, &snapshot);
    }
    /* AllocationMaximum's set: "if num_bytes < 0: discard, else add",
     * replayed up to the tuple that first reaches the maximum. */
    size_t peak = expect_peak_index(allocator);
    bool *live = checked_calloc(tl->tensor_count, sizeof *live);
    for (size_t i = 0; i <= peak; i++)
        live[series->tuples[i].tensor] = series->tuples[i].bytes >= 0;
    for (size_t i = 0; i <= peak; i++) {
        const struct tuple *tuple = &series->tuples[i];
        if (!live[tuple->tensor] || !tuple->create)
            continue;
        live[tuple->tensor] = false; /* one row per tensor */
        const struct expect_snapshot *made = &allocator->snapshots[i];
        struct expect_row row = {made->bytes, made->bytes, 1, made->op, made->region, made->data_type, made->shape};
        expect_add_row(allocator, &row);
    }
    free(live);
}

/* ---- --size: GPU tracer kernels that fill the trace up ---- */

static void emit_padding_kernel(struct emit *emit, const struct timeline *tl, int64_t index, int64_t start)
{
    char label[256];
    int length = snprintf(label, sizeof label,
                          "void tensorflow::functor::FillPhiloxRandomKernelLaunch<tensorflow::random::"
                          "UniformDistribution<float>> @@input_pipeline/random_uniform_%" PRId64
                          ":RandomUniform#id=%" PRId64 "#",
                          index % 997, index);
    struct tf_node node = {.device = DEVICE_STREAM, .name = text_of("padding"),
                           .label = (struct text){label, (size_t)length}, .start = start, .duration = 2};
    emit_op(emit, tl, &node, text_of("unknown"), NULL, 0);
}

/* Kernels after every other event on the stream device (so lane 0: each
 * starts after the previous lane end) until the trace would pass the
 * target once the deletes, counters and the end are written. */
static void emit_padding(struct emit *emit, const struct timeline *tl, const struct derived *derived,
                         const struct series *series, size_t series_count)
{
    struct writer counter;
    writer_counting(&counter);
    struct emit probe = {.writer = &counter, .options = emit->options};
    emit_deletes(&probe, tl, derived);
    emit_counters(&probe, series, series_count);
    uint64_t tail = counter.bytes + 16;
    int64_t start = 0;
    for (size_t n = 0; n < tl->node_count; n++)
        if (tl->nodes[n].start + tl->nodes[n].duration > start)
            start = tl->nodes[n].start + tl->nodes[n].duration;
    start += 5;
    for (int64_t index = 0;; index++, start += 3) {
        writer_counting(&counter);
        emit_padding_kernel(&probe, tl, index, start);
        if (emit->writer->bytes + counter.bytes + tail > (uint64_t)emit->options->size_target)
            break;
        emit_padding_kernel(emit, tl, index, start);
    }
}

static void container_open(struct writer *writer, enum ending ending)
{
    bool object = ending == ENDING_OBJECT || ending == ENDING_TRAILING_EMPTY_OBJECT;
    writer_text(writer, object ? "{\n    \"traceEvents\": [\n" : "[\n");
}

static void container_close(struct writer *writer, enum ending ending)
{
    static const char *const ends[] = {
        [ENDING_OBJECT] = "\n    ]\n}",
        [ENDING_BARE] = "\n]",
        [ENDING_BARE_UNTERMINATED] = "\n",
        [ENDING_BARE_UNTERMINATED_COMMA] = ",\n",
        [ENDING_BARE_TRAILING_COMMA] = ",\n]",
        [ENDING_TRAILING_EMPTY_OBJECT] = ",\n" I2 "{}\n    ]\n}",
    };
    writer_text(writer, ends[ending]);
}

void timeline_generate(const struct options *options, struct writer *writer, struct expectations *expect)
{
    struct timeline tl = {.options = options, .random = options->seed ^ UINT64_C(0x7f4a7c159e3779b9),
                          .arena = &expect->strings};
    timeline_simulate(&tl);
    struct derived derived;
    timeline_derive(&tl, &derived);
    struct series series[ALLOC_COUNT] = {{0}};
    size_t series_count = build_series(&tl, &derived, series);

    struct emit emit = {.writer = writer, .options = options, .first = true};
    container_open(writer, options->ending);
    emit_metadata(&emit, tl.arena);
    emit_objects(&emit, &tl, &derived);
    for (size_t i = 0; i < derived.node_order_count; i++)
        emit_compute(&emit, &tl, &tl.nodes[derived.node_order[i]]);
    if (options->size_target > 0)
        emit_padding(&emit, &tl, &derived, series, series_count);
    emit_deletes(&emit, &tl, &derived);
    emit_counters(&emit, series, series_count);
    container_close(writer, options->ending);

    for (size_t s = 0; s < series_count; s++) {
        expect_series(expect, &tl, &series[s]);
        free(series[s].tuples);
    }
    free(derived.order);
    free(derived.node_order);
    free(tl.nodes);
    free(tl.tensors);
    free(tl.slots);
}
