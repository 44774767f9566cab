/* The timeline.py producer's private pieces, shared by
 * generate_trace_timeline.c (the simulated StepStats and what timeline.py
 * derives from it) and generate_trace_timeline_write.c (the JSON it writes
 * and the expectations). Nothing else includes this. */
#ifndef GENERATE_TRACE_TIMELINE_H
#define GENERATE_TRACE_TIMELINE_H

#include "tests/formats/chrome_trace/generate_trace.h"

#define T0_MICROS INT64_C(1712345678000000) /* Env::NowMicros() */
#define MAX_RANK 4
#define MAX_INPUTS 8

enum dtype_id { DTYPE_FLOAT, DTYPE_INT32, DTYPE_INT64, DTYPE_STRING, DTYPE_RESOURCE };
extern const char *const dtype_proto[];

enum allocator_id { ALLOC_GPU, ALLOC_CPU, ALLOC_HOST, ALLOC_COUNT };
extern const char *const allocator_names[];

struct tf_tensor {
    struct text name;
    int32_t node;
    int dtype;
    int rank; /* -1: no shape in the description */
    int64_t dims[MAX_RANK];
    int64_t requested, allocated;
    int allocator;
    int64_t allocation_id;
    uint64_t ptr;
    bool single_reference;
    int64_t create, last_unref;
};

struct tf_node {
    int device;
    struct text name;  /* node_name */
    struct text label; /* timeline_label */
    int64_t start, duration;
    int32_t first_output, output_count;
    int64_t lane;
};

enum device_id { DEVICE_CPU, DEVICE_GPU, DEVICE_STREAM, DEVICE_COUNT };
extern const char *const device_names[];

struct name_slot {
    struct text name;
    int32_t tensor; /* -1: empty */
};

struct timeline {
    const struct options *options;
    uint64_t random;
    struct arena *arena;
    struct tf_node *nodes;
    size_t node_count, node_capacity;
    struct tf_tensor *tensors;
    size_t tensor_count, tensor_capacity;
    struct name_slot *slots; /* tensor name -> index, open addressing */
    size_t slot_capacity;
    uint64_t next_ptr[ALLOC_COUNT];
    int64_t next_allocation_id[ALLOC_COUNT];
    int64_t clock; /* micros */
    int64_t kernel_count;
};

struct derived {
    int32_t *order;      /* tensor indices in object-id order */
    int32_t *node_order; /* node indices, device by device */
    size_t node_order_count;
};

/* Builds the StepStats of the run (or of --tiny). */
void timeline_simulate(struct timeline *tl);
/* Lanes, the tensor order of timeline.py, and every last unref. */
void timeline_derive(struct timeline *tl, struct derived *derived);
bool parse_op_label(struct text label, struct text *op, struct text *inputs);
int split_inputs(struct text inputs, struct text *out, int limit);
int32_t resolve_input(const struct timeline *tl, struct text input);
bool is_gputrace(int device);
int64_t lane_for(int64_t *lanes, size_t *lane_count, int64_t start, int64_t end);

#endif
