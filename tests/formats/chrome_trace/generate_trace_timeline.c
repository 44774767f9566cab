/* The timeline.py producer: simulates a StepStats (devices, nodes with
 * start/end and outputs with a TensorDescription) and writes exactly what
 * tensorflow/python/client/timeline.py's
 * generate_chrome_trace_format(show_dataflow=True, show_memory=True)
 * writes for it: json.dumps(indent=4, separators=(",", ": ")), ASCII only.
 * The expectations replay the Memory counter tuples as
 * _show_memory_counters() builds them, with AllocationMaximum's set. */
#include "config.h"

#include "tests/formats/chrome_trace/generate_trace_timeline.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const char *const dtype_proto[] = {"DT_FLOAT", "DT_INT32", "DT_INT64", "DT_STRING", "DT_RESOURCE"};
static const int64_t dtype_size[] = {4, 4, 8, 8, 1};
const char *const allocator_names[] = {"GPU_0_bfc", "cpu", "gpu_host_bfc"};
static const uint64_t allocator_base[] = {UINT64_C(0x7f3a40000000), UINT64_C(0x55d2c8000000), UINT64_C(0x7f3b00000000)};
const char *const device_names[] = {
    "/job:localhost/replica:0/task:0/device:CPU:0",
    "/job:localhost/replica:0/task:0/device:GPU:0",
    "/device:GPU:0/stream:all",
};

/* ---- the tensor name table (timeline.py's self._tensors) ---- */

static uint64_t name_hash(struct text name)
{
    uint64_t hash = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < name.length; i++)
        hash = (hash ^ (unsigned char)name.bytes[i]) * UINT64_C(0x100000001b3);
    return hash;
}

static int32_t tensor_find(const struct timeline *tl, struct text name)
{
    if (tl->slot_capacity == 0)
        return -1;
    for (size_t slot = name_hash(name) & (tl->slot_capacity - 1);; slot = (slot + 1) & (tl->slot_capacity - 1)) {
        if (tl->slots[slot].tensor < 0)
            return -1;
        if (text_equal(tl->slots[slot].name, name))
            return tl->slots[slot].tensor;
    }
}

static void slots_insert(struct name_slot *slots, size_t capacity, struct text name, int32_t tensor)
{
    size_t slot = name_hash(name) & (capacity - 1);
    while (slots[slot].tensor >= 0)
        slot = (slot + 1) & (capacity - 1);
    slots[slot] = (struct name_slot){name, tensor};
}

static void tensor_index(struct timeline *tl, struct text name, int32_t tensor)
{
    if (tensor_find(tl, name) >= 0)
        fatal("duplicate tensor name in the simulation");
    if (2 * (tl->tensor_count + 1) > tl->slot_capacity) {
        size_t capacity = tl->slot_capacity ? 2 * tl->slot_capacity : 1024;
        struct name_slot *slots = checked_calloc(capacity, sizeof *slots);
        for (size_t i = 0; i < capacity; i++)
            slots[i].tensor = -1;
        for (size_t i = 0; i < tl->slot_capacity; i++)
            if (tl->slots[i].tensor >= 0)
                slots_insert(slots, capacity, tl->slots[i].name, tl->slots[i].tensor);
        free(tl->slots);
        tl->slots = slots;
        tl->slot_capacity = capacity;
    }
    slots_insert(tl->slots, tl->slot_capacity, name, tensor);
}

/* ---- building the StepStats ---- */

/* A node "name = op(inputs)"; inputs is the text between the parentheses.
 * A NULL op gives an empty timeline_label (like _SOURCE). */
static int32_t node_add(struct timeline *tl, int device, struct text name, const char *op, struct text inputs,
                        int64_t start, int64_t duration)
{
    grow_array((void **)&tl->nodes, &tl->node_capacity, tl->node_count, sizeof *tl->nodes);
    struct tf_node *node = &tl->nodes[tl->node_count];
    *node = (struct tf_node){.device = device, .name = name, .start = start, .duration = duration,
                             .first_output = (int32_t)tl->tensor_count};
    if (op != NULL)
        node->label = arena_printf(tl->arena, "%.*s = %s(%.*s)", (int)name.length, name.bytes, op,
                                   (int)inputs.length, inputs.bytes);
    else
        node->label = text_of("");
    return (int32_t)tl->node_count++;
}

/* An output of the last node added. dims end at a -1; rank -1: no shape. */
static void output_add(struct timeline *tl, int dtype, int rank, const int64_t *dims, int allocator)
{
    int32_t node_index = (int32_t)tl->node_count - 1;
    struct tf_node *node = &tl->nodes[node_index];
    grow_array((void **)&tl->tensors, &tl->tensor_capacity, tl->tensor_count, sizeof *tl->tensors);
    struct tf_tensor *tensor = &tl->tensors[tl->tensor_count];
    *tensor = (struct tf_tensor){.node = node_index, .dtype = dtype, .rank = rank, .allocator = allocator};
    int64_t elements = 1;
    for (int i = 0; i < rank; i++) {
        tensor->dims[i] = dims[i];
        elements *= dims[i];
    }
    tensor->requested = elements * dtype_size[dtype];
    tensor->allocated = allocator == ALLOC_CPU ? tensor->requested : (tensor->requested + 255) / 256 * 256;
    tensor->allocation_id = ++tl->next_allocation_id[allocator];
    if (tensor->requested > 0) {
        tensor->ptr = allocator_base[allocator] + tl->next_ptr[allocator];
        tl->next_ptr[allocator] += (uint64_t)(tensor->allocated + 255) / 256 * 256;
    }
    tensor->single_reference = (tensor->allocation_id % 3) != 0;
    if (node->output_count == 0)
        tensor->name = node->name;
    else
        tensor->name = arena_printf(tl->arena, "%.*s:%d", (int)node->name.length, node->name.bytes,
                                    (int)node->output_count);
    node->output_count++;
    tensor_index(tl, tensor->name, (int32_t)tl->tensor_count);
    tl->tensor_count++;
}

static struct text join_inputs(struct timeline *tl, const struct text *inputs, int count)
{
    char buffer[4096];
    size_t length = 0;
    for (int i = 0; i < count; i++) {
        if (length + inputs[i].length + 2 >= sizeof buffer)
            fatal("label too long");
        if (i > 0) {
            memcpy(buffer + length, ", ", 2);
            length += 2;
        }
        memcpy(buffer + length, inputs[i].bytes, inputs[i].length);
        length += inputs[i].length;
    }
    return arena_copy(tl->arena, buffer, length);
}


/* ---- the simulated graph: an MLP trained with gradient descent ---- */

struct model_shape {
    int layers;
    int64_t batch, features, hidden, classes;
};

static const char *const hostile_names[] = {
    /* ESC and an OSC title sequence, bidi override, Latin-1, an astral
     * character (a surrogate pair in JSON), a lone surrogate (WTF-8 here:
     * Python holds it as a code point), DEL, quote and backslash. */
    "model/dense_0/Relu\x1b]0;owned\x07",
    "model/dense_0/\xe2\x80\xae" "BiasAdd",
    "model/dense_0/MatMul\xc3\xa9",
    "loss/Mean\xf0\x9f\x98\x80",
    "gradients/\xed\xb2\x80ReluGrad\x7f",
    "summaries/\"q\\uote\x1b[2J",
};

enum hostile_slot { HOSTILE_RELU0, HOSTILE_BIAS0, HOSTILE_MATMUL0, HOSTILE_MEAN, HOSTILE_RELUGRAD0, HOSTILE_SUMMARY };

/* The node name, with the step prefix; hostile runs rename a few nodes of
 * every step. */
static struct text step_name(struct timeline *tl, const char *prefix, int hostile, const char *stem, int layer)
{
    if (tl->options->hostile && hostile >= 0)
        return arena_printf(tl->arena, "%s%s", prefix, hostile_names[hostile]);
    if (layer < 0)
        return arena_printf(tl->arena, "%s%s", prefix, stem);
    return arena_printf(tl->arena, "%s%s_%d/%s", prefix, "model/dense", layer, stem);
}

static int64_t advance(struct timeline *tl, int64_t low, int64_t high)
{
    int64_t start = tl->clock;
    tl->clock += random_range(&tl->random, low, high);
    return start;
}

/* A GPU node taking [start, start + duration) and moving the clock past it. */
static int32_t gpu_node(struct timeline *tl, struct text name, const char *op, const struct text *inputs, int count)
{
    int64_t duration = random_range(&tl->random, 8, 240);
    int64_t start = advance(tl, 2, 9);
    tl->clock = start + duration;
    return node_add(tl, DEVICE_GPU, name, op, join_inputs(tl, inputs, count), start, duration);
}

struct step_state {
    struct text layer_input[64]; /* the input name each layer's MatMul reads */
    int64_t layer_in[64];
};

static void simulate_forward(struct timeline *tl, const struct model_shape *shape, const char *prefix, int step,
                             struct step_state *state, struct text *logits)
{
    struct text x = arena_printf(tl->arena, "%sIteratorGetNext/_%d", prefix, 2 * step + 1); /* a Recv */
    int64_t width = shape->features;
    for (int layer = 0; layer < shape->layers; layer++) {
        state->layer_input[layer] = x;
        state->layer_in[layer] = width;
        struct text kernel = arena_printf(tl->arena, "model/dense_%d/kernel/read", layer);
        struct text bias = arena_printf(tl->arena, "model/dense_%d/bias/read", layer);
        int64_t out = layer == shape->layers - 1 ? shape->classes : shape->hidden;
        int64_t dims[2] = {shape->batch, out};
        struct text matmul = step_name(tl, prefix, layer == 0 ? HOSTILE_MATMUL0 : -1, "MatMul", layer);
        gpu_node(tl, matmul, "MatMul", (struct text[]){x, kernel}, 2);
        output_add(tl, DTYPE_FLOAT, 2, dims, ALLOC_GPU);
        if (layer == 0) {
            /* A zero-byte tensor: a dim of size 0 prints as "dim {\n  }". */
            struct text empty = arena_printf(tl->arena, "%smodel/dense_0/dropout/Empty", prefix);
            gpu_node(tl, empty, "Empty", &matmul, 1);
            output_add(tl, DTYPE_FLOAT, 2, (int64_t[]){0, out}, ALLOC_GPU);
        }
        struct text bias_add = step_name(tl, prefix, layer == 0 ? HOSTILE_BIAS0 : -1, "BiasAdd", layer);
        gpu_node(tl, bias_add, "BiasAdd", (struct text[]){matmul, bias}, 2);
        output_add(tl, DTYPE_FLOAT, 2, dims, ALLOC_GPU);
        x = bias_add;
        if (layer < shape->layers - 1) {
            struct text relu = step_name(tl, prefix, layer == 0 ? HOSTILE_RELU0 : -1, "Relu", layer);
            gpu_node(tl, relu, "Relu", &bias_add, 1);
            output_add(tl, DTYPE_FLOAT, 2, dims, ALLOC_GPU);
            x = relu;
        }
        width = out;
    }
    *logits = x;
}

/* Two equal outputs of one node (one row, two occurrences) and a node
 * that reads them late, during the backward pass. */
static struct text simulate_split(struct timeline *tl, const struct model_shape *shape, const char *prefix)
{
    struct text split = arena_printf(tl->arena, "%smodel/split", prefix);
    struct text input = arena_printf(tl->arena, "%smodel/dense_0/MatMul", prefix);
    if (tl->options->hostile)
        input = arena_printf(tl->arena, "%s%s", prefix, hostile_names[HOSTILE_MATMUL0]);
    gpu_node(tl, split, "Split", (struct text[]){text_of("model/split/split_dim"), input}, 2);
    int64_t half[2] = {shape->batch, shape->hidden / 2};
    output_add(tl, DTYPE_FLOAT, 2, half, ALLOC_GPU);
    output_add(tl, DTYPE_FLOAT, 2, half, ALLOC_GPU);
    return split;
}

static void simulate_backward(struct timeline *tl, const struct model_shape *shape, const char *prefix,
                              const struct step_state *state, struct text gradient, struct text *kernel_grads,
                              struct text *bias_grads)
{
    for (int layer = shape->layers - 1; layer >= 0; layer--) {
        int64_t out = layer == shape->layers - 1 ? shape->classes : shape->hidden;
        if (layer < shape->layers - 1) {
            struct text relu = step_name(tl, prefix, layer == 0 ? HOSTILE_RELU0 : -1, "Relu", layer);
            struct text grad = layer == 0 && tl->options->hostile
                                 ? step_name(tl, prefix, HOSTILE_RELUGRAD0, "", -1)
                                 : arena_printf(tl->arena, "%sgradients/model/dense_%d/Relu_grad/ReluGrad", prefix, layer);
            gpu_node(tl, grad, "ReluGrad", (struct text[]){gradient, relu}, 2);
            output_add(tl, DTYPE_FLOAT, 2, (int64_t[]){shape->batch, out}, ALLOC_GPU);
            gradient = grad;
        }
        bias_grads[layer] = arena_printf(tl->arena, "%sgradients/model/dense_%d/BiasAdd_grad/BiasAddGrad", prefix, layer);
        gpu_node(tl, bias_grads[layer], "BiasAddGrad", &gradient, 1);
        output_add(tl, DTYPE_FLOAT, 1, &out, ALLOC_GPU);
        /* The kernel gradient and the input gradient run side by side:
         * the same start, so the second takes another lane. */
        kernel_grads[layer] = arena_printf(tl->arena, "%sgradients/model/dense_%d/MatMul_grad/MatMul_1", prefix, layer);
        int64_t start = advance(tl, 2, 9);
        int64_t duration = random_range(&tl->random, 20, 200);
        node_add(tl, DEVICE_GPU, kernel_grads[layer], "MatMul",
                 join_inputs(tl, (struct text[]){state->layer_input[layer], gradient}, 2), start, duration);
        output_add(tl, DTYPE_FLOAT, 2, (int64_t[]){state->layer_in[layer], out}, ALLOC_GPU);
        tl->clock = start + duration;
        if (layer > 0) {
            struct text input_grad = arena_printf(tl->arena, "%sgradients/model/dense_%d/MatMul_grad/MatMul", prefix, layer);
            int64_t other = random_range(&tl->random, 20, 200);
            node_add(tl, DEVICE_GPU, input_grad, "MatMul",
                     join_inputs(tl, (struct text[]){gradient, arena_printf(tl->arena, "model/dense_%d/kernel/read", layer)}, 2),
                     start, other);
            output_add(tl, DTYPE_FLOAT, 2, (int64_t[]){shape->batch, state->layer_in[layer]}, ALLOC_GPU);
            if (start + other > tl->clock)
                tl->clock = start + other;
            gradient = input_grad;
        }
    }
}

static void simulate_optimizer(struct timeline *tl, const struct model_shape *shape, const char *prefix,
                               const struct text *kernel_grads, const struct text *bias_grads, struct text mean)
{
    struct text control = arena_printf(tl->arena, "^%.*s", (int)mean.length, mean.bytes);
    for (int layer = 0; layer < shape->layers; layer++) {
        for (int which = 0; which < 2; which++) {
            struct text name = arena_printf(tl->arena, "%sGradientDescent/update_model/dense_%d/%s/ApplyGradientDescent",
                                            prefix, layer, which ? "bias" : "kernel");
            struct text variable = arena_printf(tl->arena, "model/dense_%d/%s", layer, which ? "bias" : "kernel");
            gpu_node(tl, name, "ApplyGradientDescent",
                     (struct text[]){variable, text_of("GradientDescent/learning_rate"),
                                     which ? bias_grads[layer] : kernel_grads[layer], control},
                     4);
        }
    }
}

/* The host side of a step: the input pipeline runs ahead of the GPU. */
static void simulate_input(struct timeline *tl, const struct model_shape *shape, const char *prefix)
{
    struct text name = arena_printf(tl->arena, "%sIteratorGetNext", prefix);
    int64_t start = tl->clock;
    node_add(tl, DEVICE_CPU, name, "IteratorGetNext", text_of("iterator"), start, random_range(&tl->random, 30, 300));
    output_add(tl, DTYPE_FLOAT, 2, (int64_t[]){shape->batch, shape->features}, ALLOC_CPU);
    output_add(tl, DTYPE_INT64, 1, &shape->batch, ALLOC_CPU);
    tl->clock += 3;
}

static void simulate_step(struct timeline *tl, const struct model_shape *shape, int step, int steps)
{
    char prefix[64] = "";
    if (steps > 1)
        snprintf(prefix, sizeof prefix, "microbatch_%d/", step);
    simulate_input(tl, shape, prefix);
    struct step_state state;
    struct text logits;
    simulate_forward(tl, shape, prefix, step, &state, &logits);
    struct text split = simulate_split(tl, shape, prefix);
    struct text loss = arena_printf(tl->arena, "%sloss/SparseSoftmaxCrossEntropyWithLogits", prefix);
    struct text labels = arena_printf(tl->arena, "%sIteratorGetNext:1/_%d", prefix, 2 * step + 2);
    gpu_node(tl, loss, "SparseSoftmaxCrossEntropyWithLogits", (struct text[]){logits, labels}, 2);
    output_add(tl, DTYPE_FLOAT, 1, &shape->batch, ALLOC_GPU);
    output_add(tl, DTYPE_FLOAT, 2, (int64_t[]){shape->batch, shape->classes}, ALLOC_GPU);
    struct text mean = step_name(tl, prefix, HOSTILE_MEAN, "loss/Mean", -1);
    gpu_node(tl, mean, "Mean", (struct text[]){loss, text_of("loss/Const")}, 2);
    output_add(tl, DTYPE_FLOAT, 0, NULL, ALLOC_GPU); /* a scalar: shape {} */
    struct text host = arena_printf(tl->arena, "%sloss/Mean/host_copy", prefix);
    gpu_node(tl, host, "Identity", &mean, 1);
    output_add(tl, DTYPE_FLOAT, 0, NULL, ALLOC_HOST);
    struct text kernel_grads[64], bias_grads[64];
    struct text gradient = arena_printf(tl->arena, "%s:1", loss.bytes);
    simulate_backward(tl, shape, prefix, &state, gradient, kernel_grads, bias_grads);
    struct text concat = arena_printf(tl->arena, "%smodel/concat", prefix);
    struct text split1 = arena_printf(tl->arena, "%s:1", split.bytes);
    gpu_node(tl, concat, "ConcatV2", (struct text[]){split, split1, text_of("model/concat/axis")}, 3);
    output_add(tl, DTYPE_FLOAT, 2, (int64_t[]){shape->batch, shape->hidden}, ALLOC_HOST);
    simulate_optimizer(tl, shape, prefix, kernel_grads, bias_grads, mean);
    /* A summary of zero duration that nothing reads: its last unref is its
     * creation, so timeline.py never takes it out of its set. */
    struct text summary = step_name(tl, prefix, HOSTILE_SUMMARY, "summaries/loss_scalar", -1);
    node_add(tl, DEVICE_CPU, summary, "ScalarSummary", join_inputs(tl, (struct text[]){text_of("summaries/tag"), host}, 2),
             tl->clock, 0);
    output_add(tl, DTYPE_STRING, 0, NULL, ALLOC_CPU);
    tl->clock += 5;
}

static struct model_shape model_for(const struct options *options, int64_t *steps)
{
    struct model_shape shape = {.layers = 3, .batch = 64, .features = 784, .hidden = 512, .classes = 10};
    int64_t events = options->events;
    if (events == 0 && options->size_target > 0)
        events = options->size_target / 5 / 850; /* about 20% of the bytes */
    int64_t wanted_steps = options->steps ? options->steps : 2;
    if (events > 0) {
        int64_t per_step_target = events / wanted_steps;
        int64_t layers = (per_step_target - 16) / 14;
        shape.layers = (int)(layers < 1 ? 1 : layers > 48 ? 48 : layers);
        if (options->steps == 0) {
            int64_t per_step = 14 * shape.layers + 16;
            wanted_steps = (events + per_step / 2) / per_step;
            if (wanted_steps < 1)
                wanted_steps = 1;
        }
    }
    *steps = wanted_steps;
    return shape;
}

static void simulate_run(struct timeline *tl)
{
    int64_t steps;
    struct model_shape shape = model_for(tl->options, &steps);
    tl->clock = T0_MICROS + random_range(&tl->random, 0, 999);
    node_add(tl, DEVICE_CPU, text_of("_SOURCE"), NULL, text_of(""), tl->clock, 0);
    node_add(tl, DEVICE_CPU, text_of("iterator"), "IteratorV2", text_of(""), tl->clock, 1);
    output_add(tl, DTYPE_RESOURCE, -1, NULL, ALLOC_CPU); /* no shape: "unknown" */
    tl->tensors[tl->tensor_count - 1].requested = 32;
    tl->tensors[tl->tensor_count - 1].allocated = 32;
    node_add(tl, DEVICE_CPU, text_of("global_step"), "VariableV2", text_of(""), tl->clock + 1, 2);
    output_add(tl, DTYPE_INT64, 0, NULL, ALLOC_CPU);
    tl->clock += 10;
    for (int step = 0; step < steps; step++)
        simulate_step(tl, &shape, step, (int)steps);
    node_add(tl, DEVICE_CPU, text_of("global_step/AssignAdd"), "AssignAdd",
             text_of("global_step, global_step/increment"), tl->clock, 4);
    tl->clock += 10;
}

/* ---- what timeline.py derives from the StepStats ---- */

/* re.match(r"(.*) = (.*)\((.*)\)", label), greedy, '.' not matching a
 * newline: the op and the inputs text; false when it does not match. */
bool parse_op_label(struct text label, struct text *op, struct text *inputs)
{
    size_t line = 0;
    while (line < label.length && label.bytes[line] != '\n')
        line++;
    for (size_t equals = line >= 3 ? line - 3 + 1 : 0; equals-- > 0;) {
        if (memcmp(label.bytes + equals, " = ", 3) != 0)
            continue;
        size_t rest = equals + 3;
        for (size_t open = line; open-- > rest;) {
            if (label.bytes[open] != '(')
                continue;
            for (size_t close = line; close-- > open + 1;) {
                if (label.bytes[close] != ')')
                    continue;
                *op = (struct text){label.bytes + rest, open - rest};
                *inputs = (struct text){label.bytes + open + 1, close - open - 1};
                return true;
            }
        }
    }
    return false;
}

/* inputs.split(", "); an empty text gives no inputs. */
int split_inputs(struct text inputs, struct text *out, int limit)
{
    if (inputs.length == 0)
        return 0;
    int count = 0;
    size_t begin = 0;
    for (size_t i = 0; i + 1 < inputs.length; i++) {
        if (inputs.bytes[i] == ',' && inputs.bytes[i + 1] == ' ') {
            if (count == limit)
                fatal("too many inputs");
            out[count++] = (struct text){inputs.bytes + begin, i - begin};
            begin = i + 2;
            i++;
        }
    }
    if (count == limit)
        fatal("too many inputs");
    out[count++] = (struct text){inputs.bytes + begin, inputs.length - begin};
    return count;
}

/* _show_compute's lookup: the name, else the name cut at its last "/_". */
int32_t resolve_input(const struct timeline *tl, struct text input)
{
    int32_t tensor = tensor_find(tl, input);
    if (tensor >= 0)
        return tensor;
    for (size_t i = input.length; i-- > 1;) {
        if (input.bytes[i - 1] == '/' && input.bytes[i] == '_') {
            if (i - 1 == 0)
                return -1; /* rfind gave 0: "index > 0" fails */
            return tensor_find(tl, (struct text){input.bytes, i - 1});
        }
    }
    return -1;
}

bool is_gputrace(int device)
{
    return strstr(device_names[device], "/stream:") != NULL || strstr(device_names[device], "/memcpy") != NULL;
}

/* _assign_lanes for one device, continuing from `lanes`. */
int64_t lane_for(int64_t *lanes, size_t *lane_count, int64_t start, int64_t end)
{
    for (size_t i = 0; i < *lane_count; i++) {
        if (start > lanes[i]) {
            lanes[i] = end;
            return (int64_t)i;
        }
    }
    if (*lane_count == 64)
        fatal("too many lanes");
    lanes[(*lane_count)++] = end;
    return (int64_t)*lane_count - 1;
}

/* Lanes, the timeline.py tensor order, and each tensor's last unref. */
void timeline_derive(struct timeline *tl, struct derived *derived)
{
    derived->order = checked_calloc(tl->tensor_count, sizeof *derived->order);
    derived->node_order = checked_calloc(tl->node_count, sizeof *derived->node_order);
    size_t tensors = 0, nodes = 0;
    for (int device = 0; device < DEVICE_COUNT; device++) {
        int64_t lanes[64] = {0};
        size_t lane_count = 1;
        for (size_t n = 0; n < tl->node_count; n++) {
            struct tf_node *node = &tl->nodes[n];
            if (node->device != device)
                continue;
            node->lane = lane_for(lanes, &lane_count, node->start, node->start + node->duration);
            derived->node_order[nodes++] = (int32_t)n;
            for (int32_t k = 0; k < node->output_count; k++) {
                struct tf_tensor *tensor = &tl->tensors[node->first_output + k];
                tensor->create = node->start;
                tensor->last_unref = node->start + node->duration;
                derived->order[tensors++] = node->first_output + k;
            }
        }
    }
    derived->node_order_count = nodes;
    for (size_t n = 0; n < tl->node_count; n++) {
        const struct tf_node *node = &tl->nodes[n];
        struct text op, inputs, names[MAX_INPUTS];
        if (is_gputrace(node->device) || !parse_op_label(node->label, &op, &inputs))
            continue;
        int count = split_inputs(inputs, names, MAX_INPUTS);
        for (int i = 0; i < count; i++) {
            int32_t tensor = resolve_input(tl, names[i]);
            int64_t unref = node->start + node->duration - 1;
            if (tensor >= 0 && unref > tl->tensors[tensor].last_unref)
                tl->tensors[tensor].last_unref = unref;
        }
    }
}

/* The kernels of the GPU tracer: one per GPU node that ran, on the stream
 * device, with the "<kernel> @@<node>:<op>#id=N#" label. */
static void add_kernels(struct timeline *tl)
{
    size_t count = tl->node_count;
    for (size_t n = 0; n < count; n++) {
        struct tf_node node = tl->nodes[n];
        struct text op, inputs;
        if (node.device != DEVICE_GPU || node.duration < 3 || !parse_op_label(node.label, &op, &inputs))
            continue;
        struct text name = arena_printf(tl->arena, "%.*s:%.*s", (int)node.name.length, node.name.bytes,
                                        (int)op.length, op.bytes);
        int32_t index = node_add(tl, DEVICE_STREAM, name, NULL, text_of(""), node.start + 1, node.duration - 2);
        tl->nodes[index].label = arena_printf(tl->arena, "void tensorflow::%.*sKernel<float>(float const*, float*, int) @@%.*s#id=%" PRId64 "#",
                                              (int)op.length, op.bytes, (int)name.length, name.bytes,
                                              ++tl->kernel_count);
    }
}

/* --tiny: a StepStats small enough to work out by hand (the worked values
 * are in tests/test_generate_trace.c). Times are T0 + the numbers. */
static void tiny_node(struct timeline *tl, int device, const char *name, const char *op, const char *inputs,
                      int64_t start, int64_t duration)
{
    node_add(tl, device, text_of(name), op, text_of(inputs), T0_MICROS + start, duration);
}

static void simulate_tiny(struct timeline *tl)
{
    tiny_node(tl, DEVICE_CPU, "_SOURCE", NULL, "", 0, 0);
    tiny_node(tl, DEVICE_CPU, "input", "IteratorGetNext", "iterator", 10, 20);
    output_add(tl, DTYPE_FLOAT, 2, (int64_t[]){2, 4}, ALLOC_CPU);  /* 32 bytes */
    output_add(tl, DTYPE_INT64, 1, (int64_t[]){2}, ALLOC_CPU);     /* 16 bytes */
    tiny_node(tl, DEVICE_CPU, "summary", "ScalarSummary", "tag, loss", 100, 0);
    output_add(tl, DTYPE_STRING, 0, NULL, ALLOC_CPU);              /* 8 bytes */
    tiny_node(tl, DEVICE_GPU, "matmul", "MatMul", "input/_1, w/read", 40, 10);
    output_add(tl, DTYPE_FLOAT, 2, (int64_t[]){2, 8}, ALLOC_GPU);  /* 64 */
    tiny_node(tl, DEVICE_GPU, "relu", "Relu", "matmul", 50, 5);
    output_add(tl, DTYPE_FLOAT, 2, (int64_t[]){2, 8}, ALLOC_GPU);  /* 64 */
    tiny_node(tl, DEVICE_GPU, "empty", "Empty", "relu", 56, 2);
    output_add(tl, DTYPE_FLOAT, 2, (int64_t[]){0, 8}, ALLOC_GPU);  /* 0 */
    tiny_node(tl, DEVICE_GPU, "loss", "Mean", "relu, ^matmul", 60, 4);
    output_add(tl, DTYPE_FLOAT, 0, NULL, ALLOC_GPU);               /* 4 */
    tiny_node(tl, DEVICE_GPU, "split", "Split", "relu", 70, 0);
    output_add(tl, DTYPE_FLOAT, 2, (int64_t[]){4, 8}, ALLOC_GPU);  /* 128 */
    output_add(tl, DTYPE_FLOAT, 2, (int64_t[]){4, 8}, ALLOC_GPU);  /* 128 */
    tiny_node(tl, DEVICE_GPU, "concat", "ConcatV2", "split, split:1", 80, 10);
    output_add(tl, DTYPE_FLOAT, 2, (int64_t[]){2, 8}, ALLOC_HOST); /* 64 */
}

void timeline_simulate(struct timeline *tl)
{
    if (tl->options->tiny) {
        simulate_tiny(tl);
        return;
    }
    simulate_run(tl);
    add_kernels(tl);
}
