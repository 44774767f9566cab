/* The PyTorch (Kineto) producer's private pieces, shared by
 * generate_trace_pytorch.c (the simulated training loop: ops, [memory]
 * events, kernels) and generate_trace_pytorch_write.c (the JSON Kineto
 * writes for it and the expectations). Nothing else includes this. */
#ifndef GENERATE_TRACE_PYTORCH_H
#define GENERATE_TRACE_PYTORCH_H

#include "tests/formats/chrome_trace/generate_trace.h"

#define KINETO_PID 1240
#define BASE_TIME_NS INT64_C(1790857026000000000) /* baseTimeNanoseconds */
#define START_NS (BASE_TIME_NS + INT64_C(4558953768941529))

enum thread_id { THREAD_AUTOGRAD, THREAD_MAIN, THREAD_COUNT }; /* in file order */
extern const int64_t thread_tids[THREAD_COUNT];

enum device_id { DEVICE_CUDA0, DEVICE_CUDA1, DEVICE_CPU, DEVICE_COUNT };
extern const int device_types[DEVICE_COUNT];
extern const int device_indices[DEVICE_COUNT];
extern const char *const device_labels[DEVICE_COUNT]; /* memtop's allocator ids */

enum op_kind { KIND_CPU_OP, KIND_USER_ANNOTATION };

/* An op name as Kineto writes it (JSON string content, maybe hostile) and
 * the bytes memtop stores for it. */
struct op_name {
    const char *json;
    const char *bytes;
    size_t length;
};

struct op {
    int64_t start, end; /* true ns since the epoch */
    int32_t name;       /* index into the name table, or -1 - ProfilerStep number */
    int16_t thread;
    uint8_t kind;
    int32_t flow;   /* fwdbwd flow id, 0 for none */
    bool flow_start;
    int32_t external;
};

struct memory_event {
    int64_t time;
    int16_t thread;
    uint8_t device;
    bool out_of_memory;
    int64_t bytes, allocated, reserved;
    uint64_t address;
};

struct launch {
    int64_t start, end, gpu_start, gpu_end;
    int16_t thread;
    uint8_t device;
    int32_t kernel;
    int32_t correlation, external;
};

struct gap {
    int64_t start, end; /* main thread: no cpu_op open */
};

struct pytorch {
    const struct options *options;
    uint64_t random;
    int64_t clock;
    struct op *ops;
    size_t op_count, op_capacity;
    struct memory_event *events;
    size_t event_count, event_capacity;
    struct launch *launches;
    size_t launch_count, launch_capacity;
    struct gap *gaps;
    size_t gap_count, gap_capacity;
    int32_t stack[THREAD_COUNT][64];
    int depth[THREAD_COUNT];
    int64_t end_time;
    int32_t next_external, next_correlation, next_flow;
};

void pytorch_simulate(struct pytorch *sim);
/* The name of op `op`: JSON text (hostile when asked) or stored bytes. */
struct op_name pytorch_op_name(const struct pytorch *sim, const struct op *op, char *buffer, size_t size);
/* cpu_op args after "External id", as Kineto writes them. */
const char *pytorch_op_args(const struct pytorch *sim, const struct op *op);
/* What memtop makes of those args (issue 22): the Input type names and
 * the Input Dims, as the loader writes them. */
void pytorch_op_shapes(const struct pytorch *sim, const struct op *op, const char **data_type,
                       const char **shape);
const char *pytorch_kernel_name(int32_t kernel);
/* The ts Kineto prints for a true time, in ns as memtop parses it. */
int64_t written_ns(const struct options *options, int64_t time);

#endif
