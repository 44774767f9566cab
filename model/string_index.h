/* string_index: a fast front for string_table_intern() while a loader
 * runs. A big profile interns four strings per snapshot, millions of
 * lookups of a few hundred thousand distinct texts; the table's byte-wise
 * hash is what such a load spends its time on. The index hashes eight
 * bytes at a time and remembers every text it has seen, so the table is
 * asked only once per distinct string. The ids are the table's: dropping
 * the index after the load loses nothing. */
#ifndef MEMTOP_STRING_INDEX_H
#define MEMTOP_STRING_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "model/string_table.h"

struct string_index_slot {
    const char *text; /* the table's copy: stable while the table lives */
    uint32_t length;
    uint32_t id;
    uint32_t tag; /* high bits of the hash: most misses cost no memcmp */
};

#define STRING_INDEX_RECENT 16

struct string_index {
    struct string_table *table;
    struct string_index_slot *slots; /* NULL: every lookup goes to the table */
    size_t slot_count;               /* a power of two */
    size_t used;
    /* The last string interned under each hint (see below). */
    struct string_index_slot recent[STRING_INDEX_RECENT];
    /* A small direct-mapped copy of the hot entries, which stays in the
     * processor's cache where the full slot array does not. */
    struct string_index_slot *hot; /* STRING_INDEX_HOT entries, or NULL */
};

#define STRING_INDEX_HOT 1024

void string_index_init(struct string_index *index, struct string_table *table);
void string_index_free(struct string_index *index);

/* string_table_intern() of the same bytes: the same id, STRING_ID_NONE
 * only when memory runs out. */
uint32_t string_index_intern(struct string_index *index, const char *text, size_t length);

/* memcmp(a, b, length) == 0, inline for the short strings profiles are
 * full of (a library call costs more than comparing them). */
static inline bool string_index_same(const char *a, const char *b, size_t length)
{
    uint64_t x, y, u, v;
    if (length < 8 || length > 16)
        return memcmp(a, b, length) == 0;
    /* Two words that overlap when length < 16, both inside the strings. */
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
    memcpy(&u, a + length - 8, 8);
    memcpy(&v, b + length - 8, 8);
    return x == y && u == v;
}

/* The same, first comparing with the last string interned under `hint`
 * (any number naming a field, taken modulo STRING_INDEX_RECENT): columns
 * such as data_type and region_type repeat their value from one snapshot
 * to the next almost always, and then no hash is needed. */
static inline uint32_t string_index_intern_hinted(struct string_index *index, unsigned hint,
                                                  const char *text, size_t length)
{
    struct string_index_slot *recent = &index->recent[hint % STRING_INDEX_RECENT];
    if (recent->text && recent->length == length && string_index_same(recent->text, text, length))
        return recent->id;
    uint32_t id = string_index_intern(index, text, length);
    if (id != STRING_ID_NONE && length > 0 && length <= UINT32_MAX)
        *recent = (struct string_index_slot){string_table_text(index->table, id),
                                             (uint32_t)length, id, 0};
    return id;
}

#endif
