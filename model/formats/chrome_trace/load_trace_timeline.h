/* load_trace_timeline: what timeline.py's events become, shared by the two
 * halves of its reader: load_trace_timeline.c (taking events, the
 * TensorDescription text) and load_trace_timeline_build.c (series, the
 * tuples and their pairing with the counters, rows). Internal to them;
 * see load_trace.h. Must not: be included by anything else. */
#ifndef MEMTOP_LOAD_TRACE_TIMELINE_H
#define MEMTOP_LOAD_TRACE_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/formats/chrome_trace/chrome_trace_internal.h"

struct timeline_counter {
    int64_t time_ns;
    int64_t value;
    struct trace_id pid;
    uint32_t series; /* the counter's name: the allocator */
};

struct timeline_tensor {
    int64_t create_ns;
    int64_t delete_ns;
    int64_t requested_bytes;
    uint64_t address;
    uint32_t name;
    uint32_t allocator; /* allocator_name, a string id */
    uint32_t data_type;
    uint32_t shape;
    bool created;
    bool deleted;
    bool described;
};

struct timeline_process {
    struct trace_id pid;
    uint32_t name;
};

struct trace_timeline {
    struct timeline_counter *counters;
    size_t counter_count, counter_capacity;
    struct timeline_process *processes;
    size_t process_count, process_capacity;
    struct trace_pair_table objects; /* (pid, id): the tensor's index */
    struct timeline_tensor *tensors; /* by object index */
    size_t tensor_capacity;
    size_t unreadable; /* counters without a value */
};

/* The allocators, from the counters kept and the tensors. */
enum load_status trace_timeline_build(struct trace_load *load, struct trace_timeline *timeline);

#endif
