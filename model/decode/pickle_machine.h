/* pickle_machine: the state of the pickle reader's stack machine, shared
 * by its two files (see pickle.h): pickle.c runs the loop, with the
 * opcodes a snapshot is made of done in line, and hands every other
 * opcode, and every one of those whose checks do not all pass at once,
 * to pickle_step.c, which runs any opcode with every check and message.
 * Called by: pickle.c and pickle_step.c only. Must not: be included by
 * anything outside model/decode/pickle*.c. */
#ifndef MEMTOP_DECODE_PICKLE_MACHINE_H
#define MEMTOP_DECODE_PICKLE_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/decode/pickle.h"
#include "model/decode/pickle_arena.h"

/* A memo slot whose object a consumer took and recycled. */
#define PICKLE_RECYCLED 0xff
#define PICKLE_NO_MEMO UINT32_MAX

struct pickle_document {
    struct pickle_arena arena;
    struct pickle_value root;
    int protocol;
};

struct machine {
    const uint8_t *start, *p, *end;
    const uint8_t *opcode; /* the opcode being run, for messages */
    struct pickle_document *document;
    const struct pickle_consumer *consumer;
    struct pickle_error *error;
    struct pickle_value *stack;
    size_t stack_count, stack_capacity;
    size_t *marks;
    size_t mark_count, mark_capacity;
    struct pickle_value *memo;
    size_t memo_count, memo_capacity;
};

/* Runs the opcode at m->opcode (m->p just past it), other than STOP,
 * with every check; false with m->error set. */
bool pickle_step(struct machine *m, uint8_t opcode);
/* STOP at m->opcode: the root, or false with m->error set. */
bool pickle_step_stop(struct machine *m);
/* The file ends before STOP. */
bool pickle_step_cut(struct machine *m);

static inline bool pickle_is_container(const struct pickle_value *value)
{
    return value->kind == PICKLE_LIST || value->kind == PICKLE_DICT ||
           value->kind == PICKLE_TUPLE;
}

#endif
