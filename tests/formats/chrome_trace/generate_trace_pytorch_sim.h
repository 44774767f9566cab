/* generate_trace_pytorch_sim: what the two halves of the PyTorch producer's
 * simulation share (tests/generate_trace).
 *
 * generate_trace_pytorch.c holds the op and kernel names, the CUDA caching
 * allocators and the recording of ops, memory events and launches;
 * generate_trace_pytorch_train.c runs the training loop with them. Only
 * those two files include it; the writer (generate_trace_pytorch_write.c)
 * sees only tests/generate_trace_pytorch.h. */
#ifndef GENERATE_TRACE_PYTORCH_SIM_H
#define GENERATE_TRACE_PYTORCH_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "tests/formats/chrome_trace/generate_trace_pytorch.h"

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
enum { KERNEL_FILL, KERNEL_GEMM, KERNEL_RELU, KERNEL_SOFTMAX, KERNEL_SUM, KERNEL_FOREACH, KERNEL_COUNT };

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

struct activations {
    struct block input, labels, pre[64], post[64], copies[64], log_softmax, loss, total_weight;
};

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

int layer_device(const struct model *model, int layer);
struct block device_take(struct model *model, int device, int64_t bytes);
void tick(struct pytorch *sim, int64_t low, int64_t high);
int32_t op_begin_kind(struct pytorch *sim, int thread, int32_t name, int kind);
int32_t op_begin(struct pytorch *sim, int thread, int32_t name);
void op_end_at(struct pytorch *sim, int thread, bool exact);
void op_end(struct pytorch *sim, int thread);
void record(struct pytorch *sim, int thread, const struct block *block, int64_t bytes, bool advance);
void set_totals(struct pytorch *sim, const struct model *model, int device);
struct block allocate(struct pytorch *sim, struct model *model, int thread, int device, int64_t bytes);
void release_at(struct pytorch *sim, struct model *model, int thread, struct block *block, bool advance);
void release(struct pytorch *sim, struct model *model, int thread, struct block *block);
void launch(struct pytorch *sim, int thread, int device, int32_t kernel);

#endif
