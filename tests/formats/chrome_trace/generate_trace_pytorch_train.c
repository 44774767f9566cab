/* The PyTorch producer, the training loop (tests/generate_trace): an MLP
 * trained with Adam, step by step: forward on the main thread, backward on
 * the autograd engine's thread, the optimizer step, zero_grad and the
 * loss item, an out-of-memory event with --oom, and the hand-made --tiny
 * trace. Uses the allocators and recording of generate_trace_pytorch.c. */
#include "config.h"

#include "tests/formats/chrome_trace/generate_trace_pytorch.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tests/formats/chrome_trace/generate_trace_pytorch_sim.h"

/* ---- the training loop ---- */

/* A leaf op that allocates its output and launches a kernel. */
static struct block leaf(struct pytorch *sim, struct model *model, int thread, int32_t name, int device,
                         int64_t bytes, int32_t kernel)
{
    op_begin(sim, thread, name);
    struct block block = allocate(sim, model, thread, device, bytes);
    launch(sim, thread, device, kernel);
    op_end(sim, thread);
    return block;
}

static struct block copy_to(struct pytorch *sim, struct model *model, int thread, int device, int64_t bytes)
{
    op_begin(sim, thread, N_TO);
    op_begin(sim, thread, N_TO_COPY);
    struct block block = leaf(sim, model, thread, N_EMPTY_STRIDED, device, bytes, KERNEL_FILL);
    op_begin(sim, thread, N_COPY);
    launch(sim, thread, device, KERNEL_FILL);
    op_end(sim, thread);
    op_end(sim, thread);
    op_end(sim, thread);
    return block;
}

static void forward(struct pytorch *sim, struct model *model, struct activations *act)
{
    int main = THREAD_MAIN;
    op_begin(sim, main, N_RANDN);
    act->input = leaf(sim, model, main, N_EMPTY, DEVICE_CUDA0, model->batch * model->features * 4, KERNEL_FILL);
    op_begin(sim, main, N_NORMAL);
    launch(sim, main, DEVICE_CUDA0, KERNEL_FILL);
    op_end(sim, main);
    op_end(sim, main);
    op_begin(sim, main, N_RANDINT);
    act->labels = leaf(sim, model, main, N_EMPTY, DEVICE_CUDA0, model->batch * 8, KERNEL_FILL);
    op_end(sim, main);
    int device = DEVICE_CUDA0;
    for (int layer = 0; layer < model->layers; layer++) {
        int64_t out = layer == model->layers - 1 ? model->classes : model->hidden;
        act->copies[layer] = (struct block){0};
        if (layer_device(model, layer) != device) {
            device = layer_device(model, layer);
            act->copies[layer] = copy_to(sim, model, main, device, model->batch * model->hidden * 4);
        }
        int32_t linear = op_begin(sim, main, N_LINEAR);
        sim->ops[linear].flow = ++sim->next_flow;
        sim->ops[linear].flow_start = true;
        op_begin(sim, main, N_T);
        op_begin(sim, main, N_TRANSPOSE);
        op_begin(sim, main, N_AS_STRIDED);
        op_end(sim, main);
        op_end(sim, main);
        op_end(sim, main);
        act->pre[layer] = leaf(sim, model, main, N_ADDMM, device, model->batch * out * 4, KERNEL_GEMM);
        op_end(sim, main);
        if (layer < model->layers - 1)
            act->post[layer] = leaf(sim, model, main, N_RELU, device, model->batch * out * 4, KERNEL_RELU);
    }
    op_begin(sim, main, N_CROSS_ENTROPY);
    op_begin(sim, main, N_LOG_SOFTMAX);
    act->log_softmax = leaf(sim, model, main, N_LOG_SOFTMAX_IMPL, device, model->batch * model->classes * 4,
                            KERNEL_SOFTMAX);
    op_end(sim, main);
    op_begin(sim, main, N_NLL_LOSS_ND);
    op_begin(sim, main, N_NLL_LOSS);
    op_begin(sim, main, N_NLL_LOSS_FORWARD);
    /* Two allocations at one ts on one thread. */
    act->loss = device_take(model, device, 4);
    record(sim, main, &act->loss, act->loss.bytes, false);
    set_totals(sim, model, device);
    act->total_weight = allocate(sim, model, main, device, 4);
    launch(sim, main, device, KERNEL_SUM);
    op_end(sim, main);
    op_end(sim, main);
    op_end(sim, main);
    op_end(sim, main);
}

static int32_t evaluate(struct pytorch *sim, int32_t eval_name, int32_t node_name)
{
    op_begin(sim, THREAD_AUTOGRAD, eval_name);
    return op_begin(sim, THREAD_AUTOGRAD, node_name);
}

static void backward_layer(struct pytorch *sim, struct model *model, struct activations *act, int layer,
                           struct block *gradient)
{
    int autograd = THREAD_AUTOGRAD;
    int device = layer_device(model, layer);
    int64_t in = layer == 0 ? model->features : model->hidden;
    int64_t out = layer == model->layers - 1 ? model->classes : model->hidden;
    if (layer < model->layers - 1) {
        evaluate(sim, N_EVAL_RELU, N_RELU_BACKWARD);
        struct block grad = leaf(sim, model, autograd, N_THRESHOLD_BACKWARD, device, model->batch * out * 4, KERNEL_RELU);
        op_end(sim, autograd);
        release(sim, model, autograd, gradient);
        release(sim, model, autograd, &act->post[layer]);
        op_end(sim, autograd);
        *gradient = grad;
    }
    int32_t node = evaluate(sim, N_EVAL_ADDMM, N_ADDMM_BACKWARD);
    sim->ops[node].flow = sim->next_flow - (model->layers - 1 - layer);
    op_begin(sim, autograd, N_T);
    op_end(sim, autograd);
    struct block input_grad = {0};
    if (layer > 0)
        input_grad = leaf(sim, model, autograd, N_MM, device, model->batch * in * 4, KERNEL_GEMM);
    model->weight_grads[layer] = leaf(sim, model, autograd, N_MM, device, in * out * 4, KERNEL_GEMM);
    op_begin(sim, autograd, N_SUM);
    model->bias_grads[layer] = allocate(sim, model, autograd, device, out * 4);
    launch(sim, autograd, device, KERNEL_SUM);
    op_end_at(sim, autograd, true); /* the next free falls on the end of aten::sum: its parent's */
    op_end_at(sim, autograd, true);
    release_at(sim, model, autograd, gradient, false); /* two frees at one ts */
    release(sim, model, autograd, &act->pre[layer]);
    op_end(sim, autograd);
    evaluate(sim, N_EVAL_ACCUMULATE, N_ACCUMULATE);
    op_begin(sim, autograd, N_DETACH);
    op_end(sim, autograd);
    op_end(sim, autograd);
    op_end(sim, autograd);
    if (act->copies[layer].live) {
        evaluate(sim, N_EVAL_TO_COPY, N_TO_COPY_BACKWARD);
        struct block back = copy_to(sim, model, autograd, DEVICE_CUDA0, input_grad.bytes);
        op_end(sim, autograd);
        release(sim, model, autograd, &input_grad);
        release(sim, model, autograd, &act->copies[layer]);
        op_end(sim, autograd);
        input_grad = back;
    }
    *gradient = input_grad;
}

static void backward(struct pytorch *sim, struct model *model, struct activations *act)
{
    int autograd = THREAD_AUTOGRAD;
    int device = layer_device(model, model->layers - 1);
    int64_t logits = model->batch * model->classes * 4;
    evaluate(sim, N_EVAL_NLL, N_NLL_BACKWARD);
    op_begin(sim, autograd, N_NLL_LOSS_BACKWARD);
    struct block grad = allocate(sim, model, autograd, device, logits);
    op_begin(sim, autograd, N_ZERO);
    op_begin(sim, autograd, N_FILL);
    launch(sim, autograd, device, KERNEL_FILL);
    op_end(sim, autograd);
    op_end(sim, autograd);
    op_end(sim, autograd);
    op_end(sim, autograd);
    release(sim, model, autograd, &act->total_weight);
    op_end(sim, autograd);
    evaluate(sim, N_EVAL_LOG_SOFTMAX, N_LOG_SOFTMAX_BACKWARD);
    struct block grad2 = leaf(sim, model, autograd, N_LOG_SOFTMAX_BACKWARD_DATA, device, logits, KERNEL_SOFTMAX);
    op_end(sim, autograd);
    release(sim, model, autograd, &grad);
    release(sim, model, autograd, &act->log_softmax);
    op_end(sim, autograd);
    struct block gradient = grad2;
    for (int layer = model->layers - 1; layer >= 0; layer--)
        backward_layer(sim, model, act, layer, &gradient);
}

static void optimizer_step(struct pytorch *sim, struct model *model)
{
    int main = THREAD_MAIN;
    op_begin_kind(sim, main, N_OPTIMIZER_STEP, KIND_USER_ANNOTATION);
    /* Allocated inside the annotation but in no cpu_op. */
    struct block steps = allocate(sim, model, main, DEVICE_CUDA0, 512 * model->layers);
    op_begin(sim, main, N_FOREACH_ADD);
    launch(sim, main, DEVICE_CUDA0, KERNEL_FOREACH);
    op_end(sim, main);
    struct block scratch[64];
    op_begin(sim, main, N_FOREACH_SQRT);
    for (int layer = 0; layer < model->layers; layer++)
        scratch[layer] = allocate(sim, model, main, model->weight_grads[layer].device, model->weight_grads[layer].bytes);
    launch(sim, main, DEVICE_CUDA0, KERNEL_FOREACH);
    op_end(sim, main);
    op_begin(sim, main, N_FOREACH_DIV);
    launch(sim, main, DEVICE_CUDA0, KERNEL_FOREACH);
    op_end(sim, main);
    op_begin(sim, main, N_FOREACH_ADDCDIV);
    launch(sim, main, DEVICE_CUDA0, KERNEL_FOREACH);
    op_end(sim, main);
    for (int layer = 0; layer < model->layers; layer++)
        release(sim, model, main, &scratch[layer]);
    /* A user annotation inside a cpu_op: the innermost cpu_op still counts. */
    op_begin(sim, main, N_FUSED_CHECK);
    op_begin_kind(sim, main, N_INNER_ANNOTATION, KIND_USER_ANNOTATION);
    struct block found_inf = allocate(sim, model, main, DEVICE_CUDA0, 4);
    op_end(sim, main);
    op_end(sim, main);
    release(sim, model, main, &found_inf);
    release(sim, model, main, &steps);
    op_end(sim, main);
}

static void zero_grad(struct pytorch *sim, struct model *model)
{
    op_begin_kind(sim, THREAD_MAIN, N_ZERO_GRAD, KIND_USER_ANNOTATION);
    for (int layer = 0; layer < model->layers; layer++) {
        release(sim, model, THREAD_MAIN, &model->weight_grads[layer]);
        release(sim, model, THREAD_MAIN, &model->bias_grads[layer]);
    }
    op_end(sim, THREAD_MAIN);
}

static void loss_item(struct pytorch *sim, struct model *model, struct activations *act)
{
    int main = THREAD_MAIN;
    op_begin(sim, main, N_ITEM);
    op_begin(sim, main, N_LOCAL_SCALAR_DENSE);
    struct block scalar = allocate(sim, model, main, DEVICE_CPU, 4);
    launch(sim, main, DEVICE_CUDA0, KERNEL_FILL);
    op_end(sim, main);
    op_end(sim, main);
    /* Outside any op: the loss, the inputs and the scalar go; the last two
     * at one ts on one thread, on different devices. */
    release(sim, model, main, &act->input);
    release(sim, model, main, &act->labels);
    release_at(sim, model, main, &act->loss, false);
    release(sim, model, main, &scalar);
}

static void out_of_memory(struct pytorch *sim, struct model *model)
{
    op_begin(sim, THREAD_MAIN, N_EMPTY);
    grow_array((void **)&sim->events, &sim->event_capacity, sim->event_count, sizeof *sim->events);
    sim->events[sim->event_count++] = (struct memory_event){
        .time = sim->clock, .thread = THREAD_MAIN, .device = DEVICE_CUDA0, .out_of_memory = true,
        .bytes = INT64_C(85899345920), .allocated = model->devices[DEVICE_CUDA0].allocated,
        .reserved = model->devices[DEVICE_CUDA0].reserved,
    };
    tick(sim, 100, 600);
    op_end(sim, THREAD_MAIN);
}

static void model_setup(const struct options *options, struct model *model, int64_t *steps)
{
    *model = (struct model){.layers = 3, .batch = 256, .features = 512, .hidden = 1024, .classes = 10,
                            .devices_used = options->devices};
    static const uint64_t bases[DEVICE_COUNT] = {UINT64_C(139744708132864), UINT64_C(139752298225664),
                                                 UINT64_C(1155384960)};
    for (int device = 0; device < DEVICE_COUNT; device++)
        model->devices[device].next_address = bases[device];
    int64_t events = options->events;
    if (events == 0 && options->size_target > 0)
        events = options->size_target * 8 / 100 / 330; /* about 8% of the bytes */
    *steps = options->steps ? options->steps : 5;
    if (events > 0) {
        int64_t layers = (events / *steps - 10) / 14;
        model->layers = (int)(layers < 1 ? 1 : layers > 48 ? 48 : layers);
        if (options->steps == 0) {
            int64_t per_step = 14 * model->layers + 10;
            *steps = (events + per_step / 2) / per_step;
            if (*steps < 1)
                *steps = 1;
        }
    }
    if (options->devices == 2 && model->layers < 2)
        model->layers = 2;
    /* Before the profile: parameters, Adam's two moments, and the
     * gradients of the step before (freed by the first zero_grad: frees
     * of addresses the trace never saw allocated). */
    for (int layer = 0; layer < model->layers; layer++) {
        int device = layer_device(model, layer);
        int64_t in = layer == 0 ? model->features : model->hidden;
        int64_t out = layer == model->layers - 1 ? model->classes : model->hidden;
        model->weights[layer] = device_take(model, device, in * out * 4);
        model->biases[layer] = device_take(model, device, out * 4);
        for (int moment = 0; moment < 2; moment++) {
            device_take(model, device, in * out * 4);
            device_take(model, device, out * 4);
        }
        model->weight_grads[layer] = device_take(model, device, in * out * 4);
        model->bias_grads[layer] = device_take(model, device, out * 4);
    }
}

static void note_gap(struct pytorch *sim, int64_t start, int64_t end)
{
    grow_array((void **)&sim->gaps, &sim->gap_capacity, sim->gap_count, sizeof *sim->gaps);
    sim->gaps[sim->gap_count++] = (struct gap){start, end};
}

static void pytorch_step(struct pytorch *sim, struct model *model, int64_t step, bool last)
{
    if (sim->options->schedule)
        op_begin_kind(sim, THREAD_MAIN, (int32_t)(-1 - (2 + step)), KIND_USER_ANNOTATION);
    zero_grad(sim, model);
    struct activations act;
    forward(sim, model, &act);
    int64_t idle = sim->clock;
    tick(sim, 2000, 9000);
    backward(sim, model, &act);
    note_gap(sim, idle, sim->clock);
    tick(sim, 2000, 9000);
    optimizer_step(sim, model);
    loss_item(sim, model, &act);
    if (last && sim->options->oom)
        out_of_memory(sim, model);
    if (sim->options->schedule)
        op_end(sim, THREAD_MAIN);
}

static void simulate_tiny(struct pytorch *sim)
{
    static const struct tiny_op ops[] = {
        {4000, 8000, N_EVAL_ADDMM, THREAD_AUTOGRAD, KIND_CPU_OP},
        {5000, 6000, N_MM, THREAD_AUTOGRAD, KIND_CPU_OP},
        {1000, 9000, N_LINEAR, THREAD_MAIN, KIND_CPU_OP},
        {2000, 5000, N_ADDMM, THREAD_MAIN, KIND_CPU_OP},
        {2500, 3000, N_EMPTY, THREAD_MAIN, KIND_CPU_OP},
        {10000, 20000, N_OPTIMIZER_STEP, THREAD_MAIN, KIND_USER_ANNOTATION},
        {11000, 15000, N_FOREACH_SQRT, THREAD_MAIN, KIND_CPU_OP},
        {12000, 14000, N_INNER_ANNOTATION, THREAD_MAIN, KIND_USER_ANNOTATION},
    };
    /* In file order: the autograd thread's block, then the main thread's. */
    static const struct tiny_event events[] = {
        {THREAD_AUTOGRAD, DEVICE_CUDA0, 5500, 1024, 13072, 2097152, 0x1000},
        {THREAD_AUTOGRAD, DEVICE_CUDA0, 6000, -512, 12816, 2097152, 0x2000},
        {THREAD_AUTOGRAD, DEVICE_CUDA0, 8000, -1024, 11792, 2097152, 0x1000},
        {THREAD_MAIN, DEVICE_CUDA0, 2500, 512, 10512, 2097152, 0x3000},
        {THREAD_MAIN, DEVICE_CUDA0, 2500, 2048, 12560, 2097152, 0x4000},
        {THREAD_MAIN, DEVICE_CUDA0, 3000, -512, 12048, 2097152, 0x3000},
        {THREAD_MAIN, DEVICE_CPU, 12500, 4, 4, 0, 0x5000},
        {THREAD_MAIN, DEVICE_CPU, 16000, -4, 0, 0, 0x5000},
        {THREAD_MAIN, DEVICE_CUDA0, 21000, -2048, 9744, 2097152, 0x4000},
        {THREAD_MAIN, DEVICE_CUDA0, 5500, 256, 13328, 2097152, 0x6000},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        grow_array((void **)&sim->ops, &sim->op_capacity, sim->op_count, sizeof *sim->ops);
        sim->ops[sim->op_count++] = (struct op){
            .start = START_NS + ops[i].start, .end = START_NS + ops[i].end, .name = ops[i].name,
            .thread = (int16_t)ops[i].thread, .kind = (uint8_t)ops[i].kind, .external = (int32_t)i + 1,
        };
    }
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++) {
        grow_array((void **)&sim->events, &sim->event_capacity, sim->event_count, sizeof *sim->events);
        sim->events[sim->event_count++] = (struct memory_event){
            .time = START_NS + events[i].time, .thread = (int16_t)events[i].thread,
            .device = (uint8_t)events[i].device, .bytes = events[i].bytes, .allocated = events[i].allocated,
            .reserved = events[i].reserved, .address = events[i].address,
        };
    }
    sim->end_time = START_NS + 30000;
}

void pytorch_simulate(struct pytorch *sim)
{
    if (sim->options->tiny) {
        simulate_tiny(sim);
        return;
    }
    struct model model;
    int64_t steps;
    model_setup(sim->options, &model, &steps);
    sim->clock = START_NS + 905281;
    for (int64_t step = 0; step < steps; step++)
        pytorch_step(sim, &model, step, step == steps - 1);
    /* After the last step (outside every ProfilerStep): a CPU scalar. */
    struct block scalar = allocate(sim, &model, THREAD_MAIN, DEVICE_CPU, 4);
    release(sim, &model, THREAD_MAIN, &scalar);
    sim->end_time = sim->clock + 40000;
    for (int device = 0; device < DEVICE_COUNT; device++)
        free(model.devices[device].cached);
}
