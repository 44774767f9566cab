#include "config.h"

#include "model/string_table.h"

#include <stdlib.h>
#include <string.h>

/* Open addressing with linear probing over a power-of-two slot array; the
 * texts live in large chunks so a million interned strings are not a
 * million mallocs. Each slot stores id + 1 (0 = empty). */
struct string_entry {
    const char *text;
    size_t length;
    uint64_t hash;
};

struct string_chunk {
    struct string_chunk *next;
    size_t used;
    size_t size;
    char bytes[];
};

struct string_table {
    struct string_entry *entries; /* by id */
    size_t count;
    size_t capacity;
    uint32_t *slots;
    size_t slot_count; /* power of two */
    struct string_chunk *chunks;
};

enum { CHUNK_SIZE = 64 * 1024 };

static uint64_t string_hash(const char *text, size_t length)
{
    /* FNV-1a: short op names dominate, where it is fast and spreads well. */
    uint64_t hash = 1469598103934665603ull;
    for (size_t i = 0; i < length; i++) {
        hash ^= (unsigned char)text[i];
        hash *= 1099511628211ull;
    }
    return hash;
}

static char *string_table_store(struct string_table *table, const char *text, size_t length)
{
    struct string_chunk *chunk = table->chunks;
    if (!chunk || chunk->size - chunk->used < length + 1) {
        size_t size = length + 1 > CHUNK_SIZE ? length + 1 : CHUNK_SIZE;
        chunk = malloc(sizeof *chunk + size);
        if (!chunk)
            return NULL;
        chunk->next = table->chunks;
        chunk->used = 0;
        chunk->size = size;
        table->chunks = chunk;
    }
    char *copy = chunk->bytes + chunk->used;
    if (length)
        memcpy(copy, text, length);
    copy[length] = '\0';
    chunk->used += length + 1;
    return copy;
}

static bool string_table_grow_slots(struct string_table *table)
{
    size_t slot_count = table->slot_count ? table->slot_count * 2 : 256;
    uint32_t *slots = calloc(slot_count, sizeof *slots);
    if (!slots)
        return false;
    for (size_t id = 0; id < table->count; id++) {
        size_t slot = table->entries[id].hash & (slot_count - 1);
        while (slots[slot])
            slot = (slot + 1) & (slot_count - 1);
        slots[slot] = (uint32_t)id + 1;
    }
    free(table->slots);
    table->slots = slots;
    table->slot_count = slot_count;
    return true;
}

static uint32_t string_table_add(struct string_table *table, const char *text, size_t length,
                                 uint64_t hash)
{
    if (table->count >= UINT32_MAX - 1)
        return STRING_ID_NONE;
    if (table->count == table->capacity) {
        size_t capacity = table->capacity ? table->capacity * 2 : 64;
        struct string_entry *entries = realloc(table->entries, capacity * sizeof *entries);
        if (!entries)
            return STRING_ID_NONE;
        table->entries = entries;
        table->capacity = capacity;
    }
    /* Keep the load factor under one half. */
    if ((table->count + 1) * 2 > table->slot_count && !string_table_grow_slots(table))
        return STRING_ID_NONE;
    char *copy = string_table_store(table, text, length);
    if (!copy)
        return STRING_ID_NONE;
    uint32_t id = (uint32_t)table->count++;
    table->entries[id] = (struct string_entry){copy, length, hash};
    size_t slot = hash & (table->slot_count - 1);
    while (table->slots[slot])
        slot = (slot + 1) & (table->slot_count - 1);
    table->slots[slot] = id + 1;
    return id;
}

struct string_table *string_table_new(void)
{
    struct string_table *table = calloc(1, sizeof *table);
    if (!table)
        return NULL;
    if (string_table_add(table, "", 0, string_hash("", 0)) != STRING_ID_EMPTY) {
        string_table_free(table);
        return NULL;
    }
    return table;
}

void string_table_free(struct string_table *table)
{
    if (!table)
        return;
    while (table->chunks) {
        struct string_chunk *next = table->chunks->next;
        free(table->chunks);
        table->chunks = next;
    }
    free(table->entries);
    free(table->slots);
    free(table);
}

uint32_t string_table_intern(struct string_table *table, const char *text, size_t length)
{
    if (length == 0)
        return STRING_ID_EMPTY;
    uint64_t hash = string_hash(text, length);
    size_t slot = hash & (table->slot_count - 1);
    while (table->slots[slot]) {
        uint32_t id = table->slots[slot] - 1;
        const struct string_entry *entry = &table->entries[id];
        if (entry->hash == hash && entry->length == length &&
            memcmp(entry->text, text, length) == 0)
            return id;
        slot = (slot + 1) & (table->slot_count - 1);
    }
    return string_table_add(table, text, length, hash);
}

const char *string_table_text(const struct string_table *table, uint32_t id)
{
    if (!table || id >= table->count)
        return "";
    return table->entries[id].text;
}

size_t string_table_length(const struct string_table *table, uint32_t id)
{
    if (!table || id >= table->count)
        return 0;
    return table->entries[id].length;
}

size_t string_table_count(const struct string_table *table)
{
    return table ? table->count : 0;
}
