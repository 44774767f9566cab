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

#define PICKLE_NO_MEMO UINT32_MAX

/* A memo slot is 8 bytes, not a 16-byte value: a snapshot memoizes every
 * dict it writes, millions of slots. Its low two bits say what it holds:
 * the object (the arena aligns them to 8 at least), or a copy in the
 * arena of any other value (strings: a key is memoized once and fetched
 * for every entry, so it is one load and one copy), or that the object
 * was taken. */
enum {
    MEMO_OBJECT = 0,   /* a struct pickle_object * */
    MEMO_BOXED = 2,    /* a struct pickle_value * in the arena */
    MEMO_RECYCLED = 3, /* the object a consumer took, recycled: the whole slot */
};
#define MEMO_TAG 3u

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
    /* The memo in chunks of PICKLE_MEMO_CHUNK slots: a chunk whose every
     * slot holds an object a consumer took (trace entries, millions) is
     * freed and its pointer NULL, so that the memo does not keep 8 bytes
     * for each of them; memo_live counts each chunk's other slots. */
    uint64_t **memo_chunks;
    uint32_t *memo_live;
    size_t memo_chunk_count, memo_chunk_capacity;
    size_t memo_count;
    /* Counts the puts into a slot filled before (a memo index then names
     * another value): what a consumer caching by index checks. */
    uint64_t memo_generation;
};

#define PICKLE_MEMO_SHIFT 14
#define PICKLE_MEMO_CHUNK ((size_t)1 << PICKLE_MEMO_SHIFT)

/* Memo slot `id` (below memo_count), or NULL when its chunk was freed. */
static inline uint64_t *pickle_memo_slot(const struct machine *m, uint64_t id)
{
    uint64_t *chunk = m->memo_chunks[id >> PICKLE_MEMO_SHIFT];
    return chunk ? &chunk[id & (PICKLE_MEMO_CHUNK - 1)] : NULL;
}

/* Frees the memo (pickle.c, when the read ends). */
void pickle_memo_free(struct machine *m);

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

/* The slot that holds `value`: the object, or a copy of the value in the
 * arena; false when memory runs out. */
static inline bool pickle_memo_pack(struct machine *m, const struct pickle_value *value,
                                    uint64_t *slot)
{
    if (pickle_is_container(value)) {
        *slot = (uint64_t)(uintptr_t)value->as.object;
        return true;
    }
    struct pickle_value *box = pickle_arena_box(&m->document->arena);
    if (!box)
        return false;
    *box = *value;
    *slot = (uint64_t)(uintptr_t)box | MEMO_BOXED;
    return true;
}

/* The value of a slot that is not MEMO_RECYCLED. */
static inline struct pickle_value pickle_memo_unpack(uint64_t slot)
{
    if ((slot & MEMO_TAG) == MEMO_OBJECT) {
        struct pickle_object *object = (struct pickle_object *)(uintptr_t)slot;
        return (struct pickle_value){.kind = object->kind, .as.object = object};
    }
    return *(const struct pickle_value *)(uintptr_t)(slot & ~(uint64_t)MEMO_TAG);
}

#endif
