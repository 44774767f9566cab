/* The PyTorch producer, first half: simulates profile_memory=True over an
 * MLP trained with Adam, as torch.profiler records it: cpu_op X events
 * nested on the main thread (forward, optimizer) and on the autograd
 * engine's thread (backward), user annotations, [memory] events from a
 * CUDA caching allocator (512-byte blocks, addresses reused, blocks from
 * before the profile) and the CPU allocator, and kernel launches. */
#include "config.h"

#include "tests/generate_trace_pytorch.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const int64_t thread_tids[THREAD_COUNT] = {1265, KINETO_PID};
const int device_types[DEVICE_COUNT] = {1, 1, 0};
const int device_indices[DEVICE_COUNT] = {0, 1, -1};
const char *const device_labels[DEVICE_COUNT] = {"cuda:0", "cuda:1", "cpu"};

enum name_id {
    N_RANDN, N_EMPTY, N_NORMAL, N_RANDINT, N_RANDOM, N_LINEAR, N_T, N_TRANSPOSE, N_AS_STRIDED, N_ADDMM, N_RELU,
    N_TO, N_TO_COPY, N_EMPTY_STRIDED, N_COPY, N_CROSS_ENTROPY, N_LOG_SOFTMAX, N_LOG_SOFTMAX_IMPL, N_NLL_LOSS_ND,
    N_NLL_LOSS, N_NLL_LOSS_FORWARD, N_EVAL_NLL, N_NLL_BACKWARD, N_NLL_LOSS_BACKWARD, N_ZERO, N_FILL, N_EVAL_LOG_SOFTMAX,
    N_LOG_SOFTMAX_BACKWARD, N_LOG_SOFTMAX_BACKWARD_DATA, N_EVAL_ADDMM, N_ADDMM_BACKWARD, N_MM, N_SUM, N_EVAL_RELU,
    N_RELU_BACKWARD, N_THRESHOLD_BACKWARD, N_EVAL_ACCUMULATE, N_ACCUMULATE, N_DETACH, N_EVAL_TO_COPY,
    N_TO_COPY_BACKWARD, N_OPTIMIZER_STEP, N_ZERO_GRAD, N_FOREACH_ADD, N_FOREACH_SQRT, N_FOREACH_DIV,
    N_FOREACH_ADDCDIV, N_FUSED_CHECK, N_INNER_ANNOTATION, N_ITEM, N_LOCAL_SCALAR_DENSE, N_COUNT
};

/* Plain names, and for --hostile the JSON text written and the bytes
 * memtop must store (Kineto itself would write "unknown" for most of
 * these; older versions did not, and a loader must cope either way). */
#define HOSTILE(json, bytes) json, bytes, sizeof(bytes) - 1

static const struct {
    const char *name;
    const char *hostile_json;
    const char *hostile_bytes;
    size_t hostile_length;
} names[N_COUNT] = {
    [N_RANDN] = {"aten::randn"},
    [N_EMPTY] = {"aten::empty"},
    [N_NORMAL] = {"aten::normal_"},
    [N_RANDINT] = {"aten::randint"},
    [N_RANDOM] = {"aten::random_"},
    [N_LINEAR] = {"aten::linear"},
    [N_T] = {"aten::t"},
    [N_TRANSPOSE] = {"aten::transpose"},
    [N_AS_STRIDED] = {"aten::as_strided"},
    [N_ADDMM] = {"aten::addmm", HOSTILE("aten::addmm\\u001b]0;owned\\u0007", "aten::addmm\x1b]0;owned\x07")},
    [N_RELU] = {"aten::relu", HOSTILE("aten::\\u202erelu", "aten::\xe2\x80\xaerelu")},
    [N_TO] = {"aten::to"},
    [N_TO_COPY] = {"aten::_to_copy"},
    [N_EMPTY_STRIDED] = {"aten::empty_strided", HOSTILE("aten::empty\xff\xfe_strided", "aten::empty\xff\xfe_strided")},
    [N_COPY] = {"aten::copy_"},
    [N_CROSS_ENTROPY] = {"aten::cross_entropy_loss"},
    [N_LOG_SOFTMAX] = {"aten::log_softmax"},
    [N_LOG_SOFTMAX_IMPL] = {"aten::_log_softmax"},
    [N_NLL_LOSS_ND] = {"aten::nll_loss_nd"},
    [N_NLL_LOSS] = {"aten::nll_loss"},
    [N_NLL_LOSS_FORWARD] = {"aten::nll_loss_forward", HOSTILE("aten::nll_loss_forward \\\"q\\\" {[", "aten::nll_loss_forward \"q\" {[")},
    [N_EVAL_NLL] = {"autograd::engine::evaluate_function: NllLossBackward0"},
    [N_NLL_BACKWARD] = {"NllLossBackward0"},
    [N_NLL_LOSS_BACKWARD] = {"aten::nll_loss_backward"},
    [N_ZERO] = {"aten::zero_"},
    [N_FILL] = {"aten::fill_"},
    [N_EVAL_LOG_SOFTMAX] = {"autograd::engine::evaluate_function: LogSoftmaxBackward0"},
    [N_LOG_SOFTMAX_BACKWARD] = {"LogSoftmaxBackward0"},
    [N_LOG_SOFTMAX_BACKWARD_DATA] = {"aten::_log_softmax_backward_data"},
    [N_EVAL_ADDMM] = {"autograd::engine::evaluate_function: AddmmBackward0"},
    [N_ADDMM_BACKWARD] = {"AddmmBackward0"},
    [N_MM] = {"aten::mm", HOSTILE("aten::mm\\udc80", "aten::mm\xed\xb2\x80")},
    [N_SUM] = {"aten::sum", HOSTILE("aten::sum\x1b[2J\x01", "aten::sum\x1b[2J\x01")},
    [N_EVAL_RELU] = {"autograd::engine::evaluate_function: ReluBackward0"},
    [N_RELU_BACKWARD] = {"ReluBackward0"},
    [N_THRESHOLD_BACKWARD] = {"aten::threshold_backward", "aten::threshold_backward\\ud83d\\ude00",
                              "aten::threshold_backward\xf0\x9f\x98\x80", 28},
    [N_EVAL_ACCUMULATE] = {"autograd::engine::evaluate_function: torch::autograd::AccumulateGrad"},
    [N_ACCUMULATE] = {"torch::autograd::AccumulateGrad"},
    [N_DETACH] = {"aten::detach"},
    [N_EVAL_TO_COPY] = {"autograd::engine::evaluate_function: ToCopyBackward0"},
    [N_TO_COPY_BACKWARD] = {"ToCopyBackward0"},
    [N_OPTIMIZER_STEP] = {"Optimizer.step#Adam.step"},
    [N_ZERO_GRAD] = {"Optimizer.zero_grad#Adam.zero_grad"},
    [N_FOREACH_ADD] = {"aten::_foreach_add_"},
    [N_FOREACH_SQRT] = {"aten::_foreach_sqrt"},
    [N_FOREACH_DIV] = {"aten::_foreach_div_"},
    [N_FOREACH_ADDCDIV] = {"aten::_foreach_addcdiv_"},
    [N_FUSED_CHECK] = {"aten::_amp_foreach_non_finite_check_and_unscale_"},
    [N_INNER_ANNOTATION] = {"## adam: unscale ##"},
    [N_ITEM] = {"aten::item"},
    [N_LOCAL_SCALAR_DENSE] = {"aten::_local_scalar_dense"},
};

static const char *const kernel_names[] = {
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)",
    "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
    "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::(anonymous namespace)::clamp_min_kernel_cuda(at::TensorIteratorBase&, c10::Scalar const&)::{lambda()#1}::operator()() const::{lambda()#8}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, at::native::(anonymous namespace)::clamp_min_kernel_cuda(at::TensorIteratorBase&, c10::Scalar const&)::{lambda()#1}::operator()() const::{lambda()#8}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::(anonymous namespace)::clamp_min_kernel_cuda(at::TensorIteratorBase&, c10::Scalar const&)::{lambda()#1}::operator()() const::{lambda()#8}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, at::native::(anonymous namespace)::clamp_min_kernel_cuda(at::TensorIteratorBase&, c10::Scalar const&)::{lambda()#1}::operator()() const::{lambda()#8}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1})",
    "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, float const*, int)",
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4, 4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4, 4>)",
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::BinaryOpListAlphaFunctor<float, 2, 2, 0>, std::plus<float>, float>(at::native::(anonymous namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::BinaryOpListAlphaFunctor<float, 2, 2, 0>, std::plus<float>, float)",
};
enum { KERNEL_FILL, KERNEL_GEMM, KERNEL_RELU, KERNEL_SOFTMAX, KERNEL_SUM, KERNEL_FOREACH, KERNEL_COUNT };

const char *pytorch_kernel_name(int32_t kernel)
{
    return kernel_names[kernel];
}

struct op_name pytorch_op_name(const struct pytorch *sim, const struct op *op, char *buffer, size_t size)
{
    if (op->name < 0) {
        int length = snprintf(buffer, size, "ProfilerStep#%d", (int)(-1 - op->name));
        return (struct op_name){buffer, buffer, (size_t)length};
    }
    if (sim->options->hostile && names[op->name].hostile_json != NULL)
        return (struct op_name){names[op->name].hostile_json, names[op->name].hostile_bytes,
                                names[op->name].hostile_length};
    return (struct op_name){names[op->name].name, names[op->name].name, strlen(names[op->name].name)};
}

const char *pytorch_op_args(const struct pytorch *sim, const struct op *op)
{
    if (op->kind == KIND_USER_ANNOTATION)
        return "\"Record function id\": 0";
    if (sim->options->hostile && (op->name == N_ADDMM || op->name == N_NLL_LOSS_FORWARD))
        /* Kineto writes args raw: control bytes, invalid UTF-8, an escaped
         * quote and brackets inside strings. */
        return "\"Record function id\": 0, \"Concrete Inputs\": [\"\x01\x1b[31m\t\", \"\xff\xfe\xc3\", \"\\\"{[\", \"1\", \"1\"], "
               "\"Input type\": [\"float\", \"float\", \"float\", \"Scalar\", \"Scalar\"], \"Input Strides\": [[1], [512, 1], [1, 512], [], []], "
               "\"Input Dims\": [[512], [256, 512], [512, 512], [], []]";
    return "\"Record function id\": 0, \"Concrete Inputs\": [\"\", \"\", \"\"], \"Input type\": [\"float\", \"float\", \"float\"], "
           "\"Input Strides\": [[1024, 1], [1, 1024], []], \"Input Dims\": [[256, 1024], [1024, 512], []]";
}

int64_t written_ns(const struct options *options, int64_t time)
{
    if (options->timestamps == TIMESTAMPS_ABSOLUTE)
        return time / 1000 * 1000;
    return time - BASE_TIME_NS;
}

/* ---- the caching allocators ---- */

struct block {
    uint64_t address;
    int64_t bytes;
    uint8_t device;
    bool live;
};

struct free_block {
    uint64_t address;
    int64_t bytes;
};

struct device_state {
    int64_t allocated, reserved;
    uint64_t next_address;
    struct free_block *cached;
    size_t cached_count, cached_capacity;
};

struct model {
    int layers;
    int64_t batch, features, hidden, classes;
    struct device_state devices[DEVICE_COUNT];
    struct block weights[64], biases[64], weight_grads[64], bias_grads[64];
    int devices_used;
};

static int layer_device(const struct model *model, int layer)
{
    return model->devices_used == 2 && layer == model->layers - 1 ? DEVICE_CUDA1 : DEVICE_CUDA0;
}

static int64_t block_size(int device, int64_t bytes)
{
    return device == DEVICE_CPU ? bytes : (bytes + 511) / 512 * 512;
}

/* The caching allocator: a cached block of the same size when there is
 * one (the most recently freed), else a new address; reserved grows in
 * 2 MiB segments and never shrinks. */
static struct block device_take(struct model *model, int device, int64_t bytes)
{
    struct device_state *state = &model->devices[device];
    int64_t size = block_size(device, bytes);
    struct block block = {.bytes = size, .device = (uint8_t)device, .live = true};
    size_t i = state->cached_count;
    while (i > 0 && state->cached[i - 1].bytes != size)
        i--;
    if (i > 0) {
        block.address = state->cached[i - 1].address;
        memmove(&state->cached[i - 1], &state->cached[i], (state->cached_count - i) * sizeof *state->cached);
        state->cached_count--;
    } else {
        block.address = state->next_address;
        state->next_address += (uint64_t)(size + 511) / 512 * 512;
    }
    state->allocated += size;
    if (device != DEVICE_CPU && state->allocated > state->reserved)
        state->reserved = (state->allocated + (INT64_C(2) << 20)) / (INT64_C(2) << 20) * (INT64_C(2) << 20);
    return block;
}

static void device_give(struct model *model, const struct block *block)
{
    struct device_state *state = &model->devices[block->device];
    state->allocated -= block->bytes;
    grow_array((void **)&state->cached, &state->cached_capacity, state->cached_count, sizeof *state->cached);
    state->cached[state->cached_count++] = (struct free_block){block->address, block->bytes};
}

/* ---- recording ---- */

static void tick(struct pytorch *sim, int64_t low, int64_t high)
{
    sim->clock += random_range(&sim->random, low, high);
}

static int32_t op_begin_kind(struct pytorch *sim, int thread, int32_t name, int kind)
{
    grow_array((void **)&sim->ops, &sim->op_capacity, sim->op_count, sizeof *sim->ops);
    sim->ops[sim->op_count] = (struct op){.start = sim->clock, .name = name, .thread = (int16_t)thread,
                                          .kind = (uint8_t)kind, .external = ++sim->next_external};
    if (sim->depth[thread] == 64)
        fatal("ops nested too deep");
    sim->stack[thread][sim->depth[thread]++] = (int32_t)sim->op_count;
    tick(sim, 300, 1500);
    return (int32_t)sim->op_count++;
}

static int32_t op_begin(struct pytorch *sim, int thread, int32_t name)
{
    return op_begin_kind(sim, thread, name, KIND_CPU_OP);
}

/* Ends the innermost op of the thread; `exact` leaves the clock at its
 * end, so the next event falls on the boundary (half-open: outside). */
static void op_end_at(struct pytorch *sim, int thread, bool exact)
{
    sim->ops[sim->stack[thread][--sim->depth[thread]]].end = sim->clock;
    if (!exact)
        tick(sim, 200, 1000);
}

static void op_end(struct pytorch *sim, int thread)
{
    op_end_at(sim, thread, false);
}

static void record(struct pytorch *sim, int thread, const struct block *block, int64_t bytes, bool advance)
{
    grow_array((void **)&sim->events, &sim->event_capacity, sim->event_count, sizeof *sim->events);
    sim->events[sim->event_count++] = (struct memory_event){
        .time = sim->clock, .thread = (int16_t)thread, .device = block->device, .bytes = bytes,
        .address = block->address,
    };
    if (advance)
        tick(sim, 100, 600);
}

static void set_totals(struct pytorch *sim, const struct model *model, int device)
{
    struct memory_event *event = &sim->events[sim->event_count - 1];
    event->allocated = model->devices[device].allocated;
    event->reserved = model->devices[device].reserved;
}

static struct block allocate(struct pytorch *sim, struct model *model, int thread, int device, int64_t bytes)
{
    struct block block = device_take(model, device, bytes);
    record(sim, thread, &block, block.bytes, true);
    set_totals(sim, model, device);
    return block;
}

/* `advance` false: the next event gets the same ts (file order is the
 * true order on one thread). */
static void release_at(struct pytorch *sim, struct model *model, int thread, struct block *block, bool advance)
{
    if (!block->live)
        fatal("simulation freed a block twice");
    device_give(model, block);
    record(sim, thread, block, -block->bytes, advance);
    set_totals(sim, model, block->device);
    block->live = false;
}

static void release(struct pytorch *sim, struct model *model, int thread, struct block *block)
{
    release_at(sim, model, thread, block, true);
}

static void launch(struct pytorch *sim, int thread, int device, int32_t kernel)
{
    grow_array((void **)&sim->launches, &sim->launch_capacity, sim->launch_count, sizeof *sim->launches);
    struct launch *launch = &sim->launches[sim->launch_count++];
    int64_t duration = random_range(&sim->random, 2000, 9000);
    *launch = (struct launch){.start = sim->clock, .end = sim->clock + duration, .thread = (int16_t)thread,
                              .device = (uint8_t)device, .kernel = kernel,
                              .correlation = ++sim->next_correlation, .external = sim->next_external};
    int64_t gpu_start = launch->end + random_range(&sim->random, 3000, 9000);
    if (sim->launch_count > 1 && sim->launches[sim->launch_count - 2].gpu_end + 500 > gpu_start)
        gpu_start = sim->launches[sim->launch_count - 2].gpu_end + 500;
    launch->gpu_start = gpu_start;
    launch->gpu_end = gpu_start + random_range(&sim->random, 1000, 60000);
    sim->clock = launch->end;
    tick(sim, 200, 800);
}

/* ---- the training loop ---- */

struct activations {
    struct block input, labels, pre[64], post[64], copies[64], log_softmax, loss, total_weight;
};

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

/* --tiny: a few ops and [memory] events placed by hand (the worked values
 * are in tests/test_generate_trace.c). Times are ns after START_NS. */
struct tiny_op {
    int64_t start, end;
    int32_t name;
    int thread, kind;
};

struct tiny_event {
    int thread, device;
    int64_t time, bytes, allocated, reserved;
    uint64_t address;
};

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
