/* array_grow: room for one more element in an array that is appended to.
 *
 * Owns: doubling growth with the overflow checks, so that every list a
 * loader builds grows the same way. Called by: the profile builder and the
 * XProf draft. Must not: shrink, or zero what it adds. */
#ifndef MEMTOP_ARRAY_GROW_H
#define MEMTOP_ARRAY_GROW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

/* Makes *array hold more than `count` elements of element_size bytes,
 * doubling *capacity (from `first`) when it is full; false on overflow or
 * when memory runs out (*array is then unchanged). */
static inline bool array_grow(void **array, size_t *capacity, size_t count, size_t element_size,
                              size_t first)
{
    if (count < *capacity)
        return true;
    size_t grown = *capacity ? *capacity * 2 : first;
    if (grown <= count || grown > SIZE_MAX / element_size)
        return false;
    void *bigger = realloc(*array, grown * element_size);
    if (!bigger)
        return false;
    *array = bigger;
    *capacity = grown;
    return true;
}

#endif
