/* The PyTorch producer, first half: simulates profile_memory=True over an
 * MLP trained with Adam, as torch.profiler records it: cpu_op X events
 * nested on the main thread (forward, optimizer) and on the autograd
 * engine's thread (backward), user annotations, [memory] events from a
 * CUDA caching allocator (512-byte blocks, addresses reused, blocks from
 * before the profile) and the CPU allocator, and kernel launches.
 *
 * This half holds the op and kernel names, the caching allocators and the
 * recording; generate_trace_pytorch_train.c runs the training loop, and
 * both share tests/generate_trace_pytorch_sim.h. */
#include "config.h"

#include "tests/formats/chrome_trace/generate_trace_pytorch.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tests/formats/chrome_trace/generate_trace_pytorch_sim.h"

const int64_t thread_tids[THREAD_COUNT] = {1265, KINETO_PID};
const int device_types[DEVICE_COUNT] = {1, 1, 0};
const int device_indices[DEVICE_COUNT] = {0, 1, -1};
const char *const device_labels[DEVICE_COUNT] = {"cuda:0", "cuda:1", "cpu"};

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

void pytorch_op_shapes(const struct pytorch *sim, const struct op *op, const char **data_type,
                       const char **shape)
{
    if (sim->options->hostile && (op->name == N_ADDMM || op->name == N_NLL_LOSS_FORWARD)) {
        *data_type = "float, float, float, Scalar, Scalar";
        *shape = "[[512], [256, 512], [512, 512], [], []]";
        return;
    }
    *data_type = "float, float, float";
    *shape = "[[256, 1024], [1024, 512], []]";
}

int64_t written_ns(const struct options *options, int64_t time)
{
    if (options->timestamps == TIMESTAMPS_ABSOLUTE)
        return time / 1000 * 1000;
    return time - BASE_TIME_NS;
}
/* ---- the caching allocators ---- */

int layer_device(const struct model *model, int layer)
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
struct block device_take(struct model *model, int device, int64_t bytes)
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

void tick(struct pytorch *sim, int64_t low, int64_t high)
{
    sim->clock += random_range(&sim->random, low, high);
}

int32_t op_begin_kind(struct pytorch *sim, int thread, int32_t name, int kind)
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

int32_t op_begin(struct pytorch *sim, int thread, int32_t name)
{
    return op_begin_kind(sim, thread, name, KIND_CPU_OP);
}

/* Ends the innermost op of the thread; `exact` leaves the clock at its
 * end, so the next event falls on the boundary (half-open: outside). */
void op_end_at(struct pytorch *sim, int thread, bool exact)
{
    sim->ops[sim->stack[thread][--sim->depth[thread]]].end = sim->clock;
    if (!exact)
        tick(sim, 200, 1000);
}

void op_end(struct pytorch *sim, int thread)
{
    op_end_at(sim, thread, false);
}

void record(struct pytorch *sim, int thread, const struct block *block, int64_t bytes, bool advance)
{
    grow_array((void **)&sim->events, &sim->event_capacity, sim->event_count, sizeof *sim->events);
    sim->events[sim->event_count++] = (struct memory_event){
        .time = sim->clock, .thread = (int16_t)thread, .device = block->device, .bytes = bytes,
        .address = block->address,
    };
    if (advance)
        tick(sim, 100, 600);
}

void set_totals(struct pytorch *sim, const struct model *model, int device)
{
    struct memory_event *event = &sim->events[sim->event_count - 1];
    event->allocated = model->devices[device].allocated;
    event->reserved = model->devices[device].reserved;
}

struct block allocate(struct pytorch *sim, struct model *model, int thread, int device, int64_t bytes)
{
    struct block block = device_take(model, device, bytes);
    record(sim, thread, &block, block.bytes, true);
    set_totals(sim, model, device);
    return block;
}

/* `advance` false: the next event gets the same ts (file order is the
 * true order on one thread). */
void release_at(struct pytorch *sim, struct model *model, int thread, struct block *block, bool advance)
{
    if (!block->live)
        fatal("simulation freed a block twice");
    device_give(model, block);
    record(sim, thread, block, -block->bytes, advance);
    set_totals(sim, model, block->device);
    block->live = false;
}

void release(struct pytorch *sim, struct model *model, int thread, struct block *block)
{
    release_at(sim, model, thread, block, true);
}

void launch(struct pytorch *sim, int thread, int device, int32_t kernel)
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
