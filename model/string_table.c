#include "config.h"

#include "model/string_table.h"

#include <stdlib.h>
#include <string.h>

/* A big profile interns four strings per snapshot: millions of lookups of
 * a few hundred thousand distinct texts, so lookups are what a load spends
 * its time on. Hence: a hash that takes eight bytes a step; slots that hold
 * a 32-bit tag of the hash next to the id, so most misses cost no string
 * compare and no visit to the entry; a small direct-mapped cache of hot
 * entries that stays in the processor's cache where the slots do not; and
 * the last string of each field (string_table_intern_hinted), since data
 * types and regions repeat from one snapshot to the next. Texts live in
 * large chunks, not one allocation each. */

struct string_entry {
    const char *text;
    size_t length;
};

struct string_chunk {
    struct string_chunk *next;
    size_t used;
    size_t size;
    char bytes[];
};

/* A copy of an entry kept where it is quick to check. */
struct string_cached {
    const char *text;
    uint32_t length;
    uint32_t id;
    uint32_t tag;
};

#define STRING_TABLE_HOT 1024
#define STRING_TABLE_HINTS 16

struct string_table {
    struct string_entry *entries; /* by id */
    size_t count;
    size_t capacity;
    uint64_t *slots; /* tag << 32 | (id + 1); 0 is empty */
    size_t slot_count; /* a power of two */
    struct string_chunk *chunks;
    struct string_cached hot[STRING_TABLE_HOT];
    struct string_cached recent[STRING_TABLE_HINTS];
};

enum { CHUNK_SIZE = 64 * 1024, FIRST_SLOT_COUNT = 1024 };

static uint64_t load_word(const char *bytes)
{
    uint64_t word;
    memcpy(&word, bytes, sizeof word);
    return word;
}

static uint64_t mix(uint64_t hash, uint64_t word)
{
    hash = (hash ^ word) * 0x9e3779b97f4a7c15u;
    return hash ^ (hash >> 32);
}

static uint64_t load_half_word(const char *bytes)
{
    uint32_t half;
    memcpy(&half, bytes, sizeof half);
    return half;
}

/* Eight bytes per step; the tail is the last eight bytes again (they
 * overlap the step before), so there is no byte loop past 8 bytes, and
 * from 4 to 7 bytes two overlapping 4-byte loads. */
static uint64_t string_hash(const char *text, size_t length)
{
    uint64_t hash = mix(0x243f6a8885a308d3u, length);
    if (length >= 8) {
        size_t i = 0;
        for (; i + 8 < length; i += 8)
            hash = mix(hash, load_word(text + i));
        hash = mix(hash, load_word(text + length - 8));
    } else if (length >= 4) {
        hash = mix(hash, load_half_word(text) | load_half_word(text + length - 4) << 32);
    } else {
        uint64_t word = 0;
        for (size_t i = 0; i < length; i++)
            word |= (uint64_t)(unsigned char)text[i] << (8 * i);
        hash = mix(hash, word);
    }
    return mix(hash, 0xff51afd7ed558ccdu);
}

static uint32_t string_tag(uint64_t hash)
{
    return (uint32_t)(hash >> 32);
}

/* memcmp(a, b, length) == 0, inline: profiles are full of short strings
 * (regions, data types, shapes) and op names of a few words, where a
 * library call costs more than the compare. Loads overlap at the tail
 * instead of looping over bytes. */
static bool same_bytes(const char *a, const char *b, size_t length)
{
    if (length >= 8) {
        for (size_t i = 0; i + 8 < length; i += 8)
            if (load_word(a + i) != load_word(b + i))
                return false;
        return load_word(a + length - 8) == load_word(b + length - 8);
    }
    if (length >= 4)
        return load_half_word(a) == load_half_word(b) &&
               load_half_word(a + length - 4) == load_half_word(b + length - 4);
    for (size_t i = 0; i < length; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

static bool cached_holds(const struct string_cached *cached, const char *text, size_t length)
{
    return cached->text && cached->length == length && same_bytes(cached->text, text, length);
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

/* memset through a pointer the compiler cannot see through, so that it
 * does not turn malloc + memset into calloc. calloc leaves fresh pages
 * unmapped: the probes would read them first (as the shared zero page) and
 * the first write to each would then cost a copy and, with two loader
 * threads, a TLB flush on the other CPU (an interrupt; slow in a VM). */
static void *(*volatile zero_by_writing_memset)(void *, int, size_t) = memset;

static void zero_by_writing(void *bytes, size_t size)
{
    zero_by_writing_memset(bytes, 0, size);
}

static void slots_place(uint64_t *slots, size_t slot_count, uint64_t hash, uint32_t id)
{
    size_t slot = hash & (slot_count - 1);
    while (slots[slot])
        slot = (slot + 1) & (slot_count - 1);
    slots[slot] = (uint64_t)string_tag(hash) << 32 | ((uint64_t)id + 1);
}

static bool string_table_grow_slots(struct string_table *table)
{
    size_t slot_count = table->slot_count ? table->slot_count * 2 : FIRST_SLOT_COUNT;
    if (slot_count > SIZE_MAX / sizeof(uint64_t))
        return false;
    uint64_t *slots = malloc(slot_count * sizeof *slots);
    if (!slots)
        return false;
    zero_by_writing(slots, slot_count * sizeof *slots);
    for (size_t id = 0; id < table->count; id++) {
        const struct string_entry *entry = &table->entries[id];
        slots_place(slots, slot_count, string_hash(entry->text, entry->length), (uint32_t)id);
    }
    free(table->slots);
    table->slots = slots;
    table->slot_count = slot_count;
    return true;
}

static uint32_t string_table_add(struct string_table *table, const char *text, size_t length,
                                 uint64_t hash)
{
    if (table->count >= STRING_ID_LIMIT)
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
    table->entries[id] = (struct string_entry){copy, length};
    slots_place(table->slots, table->slot_count, hash, id);
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

/* The id of the bytes in the slots, or STRING_ID_NONE. */
static uint32_t string_table_find(const struct string_table *table, const char *text,
                                  size_t length, uint64_t hash)
{
    uint32_t tag = string_tag(hash);
    size_t mask = table->slot_count - 1;
    for (size_t slot = hash & mask; table->slots[slot]; slot = (slot + 1) & mask) {
        uint64_t packed = table->slots[slot];
        const struct string_entry *entry = &table->entries[(uint32_t)packed - 1];
        if ((uint32_t)(packed >> 32) == tag && entry->length == length &&
            same_bytes(entry->text, text, length))
            return (uint32_t)packed - 1;
    }
    return STRING_ID_NONE;
}

uint32_t string_table_intern(struct string_table *table, const char *text, size_t length)
{
    if (length == 0)
        return STRING_ID_EMPTY;
    uint64_t hash = string_hash(text, length);
    uint32_t tag = string_tag(hash);
    struct string_cached *hot = &table->hot[(hash >> 40) % STRING_TABLE_HOT];
    if (hot->tag == tag && cached_holds(hot, text, length))
        return hot->id;
    uint32_t id = string_table_find(table, text, length, hash);
    if (id == STRING_ID_NONE)
        id = string_table_add(table, text, length, hash);
    if (id != STRING_ID_NONE && length <= UINT32_MAX)
        *hot = (struct string_cached){table->entries[id].text, (uint32_t)length, id, tag};
    return id;
}

/* How many strings ahead the merge hashes and fetches their slots: a
 * slot is a cache miss (the slots of a big table are megabytes), and
 * several misses in flight cost little more than one. */
enum { MERGE_AHEAD = 8 };

bool string_table_merge(struct string_table *table, const struct string_table *other,
                        uint32_t *ids)
{
    size_t count = other->count;
    /* A slot fetched ahead may move when an addition grows the slots:
     * that fetch is wasted, nothing worse (a prefetch never faults). */
    uint64_t hashes[MERGE_AHEAD];
    for (size_t ahead = 0; ahead < count + MERGE_AHEAD; ahead++) {
        if (ahead >= MERGE_AHEAD) {
            size_t id = ahead - MERGE_AHEAD;
            const struct string_entry *entry = &other->entries[id];
            uint64_t hash = hashes[id % MERGE_AHEAD];
            uint32_t found = string_table_find(table, entry->text, entry->length, hash);
            if (found == STRING_ID_NONE)
                found = string_table_add(table, entry->text, entry->length, hash);
            if (found == STRING_ID_NONE)
                return false;
            ids[id] = found;
        }
        if (ahead < count) {
            const struct string_entry *entry = &other->entries[ahead];
            uint64_t hash = string_hash(entry->text, entry->length);
            hashes[ahead % MERGE_AHEAD] = hash;
            __builtin_prefetch(&table->slots[hash & (table->slot_count - 1)]);
        }
    }
    return true;
}

uint32_t string_table_intern_hinted(struct string_table *table, unsigned hint, const char *text,
                                    size_t length)
{
    struct string_cached *recent = &table->recent[hint % STRING_TABLE_HINTS];
    if (cached_holds(recent, text, length))
        return recent->id;
    uint32_t id = string_table_intern(table, text, length);
    if (id != STRING_ID_NONE && length > 0 && length <= UINT32_MAX)
        *recent = (struct string_cached){table->entries[id].text, (uint32_t)length, id, 0};
    return id;
}

struct text string_table_get(const struct string_table *table, uint32_t id)
{
    if (!table || id >= table->count)
        return text_make("", 0);
    return text_make(table->entries[id].text, table->entries[id].length);
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

int string_table_compare(const struct string_table *table, uint32_t a, uint32_t b)
{
    if (a == b)
        return 0;
    return text_compare(string_table_get(table, a), string_table_get(table, b));
}
