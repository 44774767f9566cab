/* pickle_arena: where the pickle reader's objects live (see pickle.h).
 *
 * Owns: big blocks handed out by bumping a pointer, so that a snapshot of
 * millions of dicts costs no malloc per dict, and free lists by size (item
 * arrays of 2^k values, object headers) so that what a consumer took is
 * reused by the next items instead of growing the arena; boxes for the
 * memo's values. Everything it hands out is aligned as malloc aligns, 8
 * bytes at least (the memo keeps a 2-bit tag in a pointer's low bits).
 * Called by: pickle.c, pickle_step.c and pickle_machine.h only (the
 * object and item pops in line, the rest out of line). Must not: know
 * opcodes. */
#ifndef MEMTOP_DECODE_PICKLE_ARENA_H
#define MEMTOP_DECODE_PICKLE_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "model/decode/pickle.h"

#define PICKLE_ARENA_CLASSES 40

struct pickle_arena_block;

struct pickle_arena {
    struct pickle_arena_block *blocks;
    unsigned char *next, *limit; /* the room left in the newest block */
    void *free_objects;
    void *free_items[PICKLE_ARENA_CLASSES]; /* arrays of 2^k values */
    size_t bytes; /* held in blocks, for tests and the bench */
};

/* The out-of-line halves of the two below. */
struct pickle_object *pickle_arena_object_new(struct pickle_arena *arena);
/* Room for one value, 16-aligned, uninitialised (the memo's boxes); NULL
 * when memory runs out. */
struct pickle_value *pickle_arena_box(struct pickle_arena *arena);
bool pickle_arena_items_grow(struct pickle_arena *arena, struct pickle_object *object,
                             size_t needed);

/* A header, uninitialised; NULL when memory runs out. In line: the
 * reader makes one per dict of the file, most from the free list. */
static inline struct pickle_object *pickle_arena_object(struct pickle_arena *arena)
{
    void *object = arena->free_objects;
    if (!object)
        return pickle_arena_object_new(arena);
    memcpy(&arena->free_objects, object, sizeof(void *));
    return object;
}

/* The k of the smallest 2^k >= needed (needed >= 2). */
static inline unsigned pickle_arena_class(size_t needed)
{
    return (unsigned)(sizeof(unsigned long long) * 8) -
           (unsigned)__builtin_clzll((unsigned long long)needed - 1);
}

/* Room in object->items for at least `needed` values, keeping the first
 * object->count; false when memory runs out (the object is unchanged).
 * In line for a new dict whose size has an array on the free list: each
 * trace entry the consumer took left one there for the next. */
static inline bool pickle_arena_items(struct pickle_arena *arena, struct pickle_object *object,
                                      size_t needed)
{
    if (needed <= object->capacity)
        return true;
    if (object->capacity == 0 && needed >= 2 && needed <= ((size_t)1 << 31)) {
        unsigned k = pickle_arena_class(needed);
        void *items = arena->free_items[k];
        if (items) {
            memcpy(&arena->free_items[k], items, sizeof(void *));
            object->items = items;
            object->capacity = (uint32_t)((size_t)1 << k);
            return true;
        }
    }
    return pickle_arena_items_grow(arena, object, needed);
}
/* The object and its items are unreachable: keep them for reuse. */
void pickle_arena_recycle(struct pickle_arena *arena, struct pickle_object *object);
void pickle_arena_free(struct pickle_arena *arena);

#endif
