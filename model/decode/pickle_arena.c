/* pickle_arena: bump allocation and free lists (see pickle_arena.h). */
#include "config.h"

#include "model/decode/pickle_arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_BYTES ((size_t)1 << 20)
#define ALIGNMENT 16

struct pickle_arena_block {
    struct pickle_arena_block *next;
    size_t size;
    /* the room follows, aligned */
};

#define HEADER_BYTES ((sizeof(struct pickle_arena_block) + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT)

/* A block of at least `size` bytes of room; the bump pointer moves to it
 * unless it is a block of its own for one big array. */
static void *block_new(struct pickle_arena *arena, size_t size, bool own)
{
    size_t room = own ? size : BLOCK_BYTES;
    struct pickle_arena_block *block = malloc(HEADER_BYTES + room);
    if (!block)
        return NULL;
    block->next = arena->blocks;
    block->size = room;
    arena->blocks = block;
    arena->bytes += HEADER_BYTES + room;
    unsigned char *start = (unsigned char *)block + HEADER_BYTES;
    if (own)
        return start;
    arena->next = start + size;
    arena->limit = start + room;
    return start;
}

static void *bump(struct pickle_arena *arena, size_t size)
{
    size = (size + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
    if (size > BLOCK_BYTES / 4)
        return block_new(arena, size, true);
    if ((size_t)(arena->limit - arena->next) < size)
        return block_new(arena, size, false);
    void *at = arena->next;
    arena->next += size;
    return at;
}

struct pickle_object *pickle_arena_object_new(struct pickle_arena *arena)
{
    return bump(arena, sizeof(struct pickle_object));
}

struct pickle_value *pickle_arena_box(struct pickle_arena *arena)
{
    return bump(arena, sizeof(struct pickle_value));
}

bool pickle_arena_items_grow(struct pickle_arena *arena, struct pickle_object *object,
                             size_t needed)
{
    unsigned k = pickle_arena_class(needed < 2 ? 2 : needed);
    if (k >= PICKLE_ARENA_CLASSES || k > 32)
        return false;
    struct pickle_value *items;
    if (arena->free_items[k]) {
        items = arena->free_items[k];
        memcpy(&arena->free_items[k], items, sizeof(void *));
    } else if (!(items = bump(arena, ((size_t)1 << k) * sizeof *items))) {
        return false;
    }
    if (object->count)
        memcpy(items, object->items, object->count * sizeof *items);
    if (object->capacity) {
        unsigned old = pickle_arena_class(object->capacity);
        memcpy(object->items, &arena->free_items[old], sizeof(void *));
        arena->free_items[old] = object->items;
    }
    object->items = items;
    object->capacity = (uint32_t)((size_t)1 << k);
    return true;
}

void pickle_arena_recycle(struct pickle_arena *arena, struct pickle_object *object)
{
    if (object->capacity) {
        unsigned k = pickle_arena_class(object->capacity);
        memcpy(object->items, &arena->free_items[k], sizeof(void *));
        arena->free_items[k] = object->items;
    }
    memcpy(object, &arena->free_objects, sizeof(void *));
    arena->free_objects = object;
}

void pickle_arena_free(struct pickle_arena *arena)
{
    struct pickle_arena_block *block = arena->blocks;
    while (block) {
        struct pickle_arena_block *next = block->next;
        free(block);
        block = next;
    }
    *arena = (struct pickle_arena){0};
}
