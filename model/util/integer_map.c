#include "config.h"

#include "model/util/integer_map.h"

#include <stdlib.h>
#include <string.h>

enum { FIRST_CAPACITY = 16 };

/* Fibonacci hashing: addresses are aligned (their low bits are zero) and
 * step ids are small and dense; multiplying and keeping the high bits
 * spreads both. */
static size_t integer_map_home(const struct integer_map *map, uint64_t key)
{
    uint64_t hash = key * UINT64_C(0x9e3779b97f4a7c15);
    return (size_t)(hash ^ (hash >> 29)) & (map->capacity - 1);
}

static size_t capacity_for(size_t count)
{
    size_t capacity = FIRST_CAPACITY;
    while (capacity / 2 < count) {
        if (capacity > SIZE_MAX / 4 / sizeof(struct integer_map_slot))
            return 0;
        capacity *= 2;
    }
    return capacity;
}

/* Places a key known to be absent, in a map with room. */
static void integer_map_place(struct integer_map *map, uint64_t key, uint32_t value)
{
    size_t mask = map->capacity - 1;
    size_t slot = integer_map_home(map, key);
    while (map->slots[slot].used)
        slot = (slot + 1) & mask;
    map->slots[slot] = (struct integer_map_slot){key, value, 1};
    map->count++;
}

static bool integer_map_resize(struct integer_map *map, size_t capacity)
{
    struct integer_map_slot *slots = calloc(capacity, sizeof *slots);
    if (!slots)
        return false;
    struct integer_map old = *map;
    *map = (struct integer_map){slots, capacity, 0};
    for (size_t i = 0; i < old.capacity; i++)
        if (old.slots[i].used)
            integer_map_place(map, old.slots[i].key, old.slots[i].value);
    free(old.slots);
    return true;
}

bool integer_map_reserve(struct integer_map *map, size_t count)
{
    if (count <= map->capacity / 2)
        return true;
    size_t capacity = capacity_for(count);
    return capacity != 0 && integer_map_resize(map, capacity);
}

bool integer_map_reset(struct integer_map *map, size_t expected)
{
    size_t wanted = capacity_for(expected);
    if (wanted == 0)
        return false;
    if (map->capacity > 4 * wanted) {
        free(map->slots);
        *map = (struct integer_map){0};
    } else if (map->slots) {
        memset(map->slots, 0, map->capacity * sizeof *map->slots);
        map->count = 0;
    }
    return integer_map_reserve(map, expected);
}

/* The slot holding `key`, or SIZE_MAX. */
static size_t integer_map_slot_of(const struct integer_map *map, uint64_t key)
{
    if (map->count == 0)
        return SIZE_MAX;
    size_t mask = map->capacity - 1;
    for (size_t slot = integer_map_home(map, key); map->slots[slot].used;
         slot = (slot + 1) & mask)
        if (map->slots[slot].key == key)
            return slot;
    return SIZE_MAX;
}

uint32_t *integer_map_find(const struct integer_map *map, uint64_t key)
{
    size_t slot = integer_map_slot_of(map, key);
    return slot == SIZE_MAX ? NULL : &map->slots[slot].value;
}

bool integer_map_put(struct integer_map *map, uint64_t key, uint32_t value)
{
    uint32_t *found = integer_map_find(map, key);
    if (found) {
        *found = value;
        return true;
    }
    if (!integer_map_reserve(map, map->count + 1))
        return false;
    integer_map_place(map, key, value);
    return true;
}

/* Whether `home` lies cyclically in (hole, slot]: then the entry at `slot`
 * may stay where it is when `hole` empties. */
static bool stays_after_hole(size_t home, size_t hole, size_t slot)
{
    return hole <= slot ? (home > hole && home <= slot) : (home > hole || home <= slot);
}

bool integer_map_remove(struct integer_map *map, uint64_t key, uint32_t *value)
{
    size_t hole = integer_map_slot_of(map, key);
    if (hole == SIZE_MAX)
        return false;
    if (value)
        *value = map->slots[hole].value;
    size_t mask = map->capacity - 1;
    for (size_t slot = (hole + 1) & mask; map->slots[slot].used; slot = (slot + 1) & mask) {
        if (stays_after_hole(integer_map_home(map, map->slots[slot].key), hole, slot))
            continue;
        map->slots[hole] = map->slots[slot];
        hole = slot;
    }
    map->slots[hole].used = 0;
    map->count--;
    return true;
}

void integer_map_prefetch(const struct integer_map *map, uint64_t key)
{
    if (map->capacity)
        __builtin_prefetch(&map->slots[integer_map_home(map, key)]);
}

void integer_map_free(struct integer_map *map)
{
    free(map->slots);
    *map = (struct integer_map){0};
}
