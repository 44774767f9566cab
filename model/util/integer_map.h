/* integer_map: a hash map from 64-bit integers (addresses, step ids) to
 * 32-bit values (positions in the caller's arrays), open addressing with
 * linear probing and deletion by backward shift, so no tombstones pile up
 * on a timeline of millions of allocations and frees.
 *
 * Owns only its slots. Called by the model's queries that key by address
 * or id (live_set, steps); it knows nothing about profiles. Not for
 * strings: those are interned by string_table. */
#ifndef MEMTOP_INTEGER_MAP_H
#define MEMTOP_INTEGER_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct integer_map_slot {
    uint64_t key;
    uint32_t value;
    uint32_t used; /* 0: empty; any key, 0 included, is a valid key */
};

struct integer_map {
    struct integer_map_slot *slots; /* capacity slots, a power of two */
    size_t capacity;
    size_t count;
};

/* Room for `count` keys without growing (the load stays at most one
 * half); false when memory runs out. */
bool integer_map_reserve(struct integer_map *map, size_t count);
/* Empties the map. When its room is far more than `expected` keys need,
 * it is given back first, so that clearing costs about what the next use
 * will cost; false when memory runs out (the map is then empty). */
bool integer_map_reset(struct integer_map *map, size_t expected);
/* The value stored under `key`, or NULL. The pointer is valid until the
 * map next changes. */
uint32_t *integer_map_find(const struct integer_map *map, uint64_t key);
/* Stores `value` under `key`, replacing any value there; false when
 * memory runs out (the map is then unchanged). */
bool integer_map_put(struct integer_map *map, uint64_t key, uint32_t value);
/* Removes `key`; false when it was not there. *value (may be NULL) gets
 * the value it had. */
bool integer_map_remove(struct integer_map *map, uint64_t key, uint32_t *value);
/* Asks the processor to fetch the slot where `key` would be, ahead of a
 * find, put or remove of it (for a caller that knows its next keys: a
 * big map's slots are far apart in memory). A hint; nothing changes. */
void integer_map_prefetch(const struct integer_map *map, uint64_t key);
void integer_map_free(struct integer_map *map);

#endif
