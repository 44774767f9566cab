/* load_trace_kineto: what PyTorch's [memory] events become, shared by the
 * files of its reader: load_trace_kineto.c (taking events),
 * load_trace_kineto_finish.c (the slice stacks, steps) and
 * load_trace_kineto_build.c (devices, timelines, rows, out-of-memory
 * warnings). Internal to them; see load_trace.h.
 * Must not: be included by anything else. */
#ifndef MEMTOP_LOAD_TRACE_KINETO_H
#define MEMTOP_LOAD_TRACE_KINETO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/formats/chrome_trace/chrome_trace_internal.h"

struct kineto_memory {
    int64_t time_ns;
    int64_t bytes;
    int64_t total_allocated;
    int64_t total_reserved;
    int64_t address;
    int64_t step;
    uint32_t thread; /* in the thread table */
    uint32_t op;
    uint32_t context;
    uint32_t site; /* struct frame_site index: the Python frames around it; 0 none */
    /* The allocating cpu_op's Input Dims and Input type (string ids, 0 none). */
    uint32_t shape;
    uint32_t type;
    int32_t device_type;
    int32_t device_id;
    bool has_reserved;
    bool has_address;
    /* Taken after Python frames were filtered (see struct trace_kineto's
     * memory_times): its frames may be gone, so it gets no site. */
    bool after_frames;
};

struct kineto_op {
    int64_t start_ns;
    int64_t end_ns;
    uint32_t thread;
    uint32_t name;
    uint32_t sequence;
    uint32_t shape; /* a cpu_op's Input Dims, Input type (string ids, 0 none) */
    uint32_t type;
    bool is_operator; /* cpu_op; else a user annotation */
    /* A forward op whose fwdbwd "s" flow was read after the Python
     * frames were filtered (see struct trace_kineto's memory_times): the
     * frames around its start may be gone, so it lends no site. */
    bool frames_unknown;
};

/* A python_function slice (with_stack=True): `file(line): function` or
 * `nn.Module: Linear_1`, or a built-in's name. */
struct kineto_frame {
    int64_t start_ns;
    int64_t end_ns;
    /* Its name where the text has it: interned only for the frames
     * around a memory event (most are not), when a site is made. */
    struct trace_value name;
    uint32_t thread;
    uint32_t sequence;
};

/* The order in which slices of one thread nest (ops and frames alike):
 * by thread, then start, the longer first (it encloses), then the file's
 * order. A qsort-style result. */
static inline int kineto_nesting_order(uint32_t thread_a, int64_t start_a, int64_t end_a,
                                       uint32_t sequence_a, uint32_t thread_b, int64_t start_b,
                                       int64_t end_b, uint32_t sequence_b)
{
    if (thread_a != thread_b)
        return thread_a < thread_b ? -1 : 1;
    if (start_a != start_b)
        return start_a < start_b ? -1 : 1;
    if (end_a != end_b)
        return end_a > end_b ? -1 : 1;
    return sequence_a < sequence_b ? -1 : sequence_a > sequence_b;
}

/* A `fwdbwd` flow event (issue 22): "s" on the forward op's thread, "f"
 * on the backward op's, at each op's start, paired by id. */
struct kineto_flow {
    int64_t time_ns;
    struct trace_id id;
    uint32_t thread;
    bool is_start;
    bool after_frames; /* read after the Python frames were filtered */
};

struct kineto_step {
    int64_t start_ns;
    int64_t end_ns;
    struct trace_id pid;
    int64_t number;
};

struct kineto_out_of_memory {
    int64_t time_ns;
    int64_t bytes;           /* -1 when the event has no Bytes */
    int64_t total_allocated; /* -1 when absent */
    int64_t total_reserved;  /* -1 when absent */
    int32_t device_type;
    int32_t device_id;
};

#define KINETO_LIST(type, name) \
    type *name;                 \
    size_t name##_count;        \
    size_t name##_capacity

struct trace_kineto {
    struct trace_pair_table threads; /* (pid, tid) */
    KINETO_LIST(struct kineto_memory, memory);
    KINETO_LIST(struct kineto_op, ops);
    KINETO_LIST(struct kineto_frame, frames);
    KINETO_LIST(struct kineto_step, steps);
    KINETO_LIST(struct kineto_flow, flows);
    KINETO_LIST(struct kineto_out_of_memory, out_of_memory);
    /* When the first Python frame comes, the memory events taken so far
     * and the starts of the forward ops fwdbwd flows link (the "s"
     * flows), by (thread, time): a frame around none of them is not kept
     * (PyTorch writes every thread's memory events and flows before its
     * frames, and most frames hold no allocation). frames_filtered: the
     * filter is on; without memory events then, every frame is kept. */
    struct kineto_time {
        uint32_t thread;
        int64_t time_ns;
    } *memory_times;
    size_t memory_time_count;
    size_t time_cursor; /* where the last frame's search ended: frames come mostly in order */
    struct kineto_time last_key;
    bool frames_started, frames_filtered;
    /* The last event's pid and tid text and their thread: a run of one
     * thread's events (Python frames come in thousands) looks it up once. */
    struct trace_value last_pid, last_tid;
    uint32_t last_thread;
    bool has_last_thread;
    size_t malformed;       /* [memory] events without Bytes, Total Allocated or device */
    size_t without_address; /* [memory] events without Addr (PyTorch < 1.10) */
};

#define KINETO_OP_NONE UINT32_MAX

/* load_trace_kineto_frames.c: each memory event's site (module, the
 * user's innermost frame, the stack) from the python_function slices
 * enclosing it on its thread, or for an event under a backward op, from
 * those enclosing the start of the forward op its fwdbwd flow links
 * (forward_of[i]: memory event i's, an index into the sorted ops, or
 * KINETO_OP_NONE); false when memory runs out. */
bool trace_kineto_attribute_frames(struct trace_load *load, struct trace_kineto *kineto,
                                   const size_t *by_thread, const uint32_t *forward_of);

/* load_trace_kineto_shapes.c: a cpu_op event's Input Dims and Input
 * type, interned (STRING_ID_EMPTY when it has none). */
enum load_status trace_kineto_op_shapes(struct trace_load *load, const struct trace_event *event,
                                        uint32_t *shape, uint32_t *type);
/* Devices, timelines, summaries and rows from the attributed events,
 * `order` being their indices sorted stably by time. */
enum load_status trace_kineto_build(struct trace_load *load, struct trace_kineto *kineto,
                                    const size_t *order);

#endif
