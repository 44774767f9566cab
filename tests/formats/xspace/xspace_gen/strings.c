/* strings: see strings.h. An arena of bytes, a table of (offset, size)
 * and an open-addressing hash from bytes to id. */
#include "config.h"

#include "tests/formats/xspace/xspace_gen/strings.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/formats/xspace/xspace_gen/wire.h"

struct entry {
    size_t offset;
    size_t size;
};

static struct bytes arena;
static struct entry *entries;
static uint32_t entry_count, entry_capacity;
static uint32_t *slots; /* id + 1, 0 = empty */
static size_t slot_count;

static uint64_t hash_bytes(const uint8_t *data, size_t size)
{
    uint64_t hash = UINT64_C(14695981039346656037);
    for (size_t i = 0; i < size; i++)
        hash = (hash ^ data[i]) * UINT64_C(1099511628211);
    return hash;
}

/* The generator names most things with string literals, many times a
 * second: a small cache by address saves hashing them again. An entry is
 * used only when the bytes still match (the address may be a reused
 * buffer). */
struct literal_cache_entry {
    const char *text;
    uint32_t id;
};

static struct literal_cache_entry literal_cache[1024];

static void slots_grow(void)
{
    size_t count = slot_count ? slot_count * 2 : 1024;
    uint32_t *grown = xcalloc(count, sizeof *grown);
    for (uint32_t id = 0; id < entry_count; id++) {
        size_t slot = hash_bytes(arena.data + entries[id].offset, entries[id].size) & (count - 1);
        while (grown[slot] != 0)
            slot = (slot + 1) & (count - 1);
        grown[slot] = id + 1;
    }
    free(slots);
    slots = grown;
    slot_count = count;
}

void strings_init(void)
{
    strings_free();
    slots_grow();
    string_intern("", 0);
}

void strings_free(void)
{
    memset(literal_cache, 0, sizeof literal_cache);
    bytes_free(&arena);
    free(entries);
    free(slots);
    entries = NULL;
    slots = NULL;
    entry_count = entry_capacity = 0;
    slot_count = 0;
}

uint32_t string_intern(const void *data, size_t size)
{
    if ((size_t)entry_count * 2 >= slot_count)
        slots_grow();
    size_t slot = hash_bytes(data, size) & (slot_count - 1);
    while (slots[slot] != 0) {
        const struct entry *entry = &entries[slots[slot] - 1];
        if (entry->size == size && memcmp(arena.data + entry->offset, data, size) == 0)
            return slots[slot] - 1;
        slot = (slot + 1) & (slot_count - 1);
    }
    if (entry_count == entry_capacity) {
        entry_capacity = entry_capacity ? entry_capacity * 2 : 1024;
        entries = xrealloc(entries, entry_capacity, sizeof *entries);
    }
    entries[entry_count] = (struct entry){arena.size, size};
    bytes_put(&arena, data, size);
    slots[slot] = entry_count + 1;
    return entry_count++;
}

uint32_t string_c(const char *text)
{
    struct literal_cache_entry *entry = &literal_cache[((uintptr_t)text >> 3) % 1024];
    if (entry->text == text) {
        struct text cached = string_text(entry->id);
        if (strncmp(text, (const char *)cached.data, cached.size) == 0 &&
            text[cached.size] == '\0')
            return entry->id;
    }
    uint32_t id = string_intern(text, strlen(text));
    *entry = (struct literal_cache_entry){text, id};
    return id;
}

uint32_t string_printf(const char *format, ...)
{
    char text[1024];
    va_list arguments;
    va_start(arguments, format);
    int size = vsnprintf(text, sizeof text, format, arguments);
    va_end(arguments);
    if (size < 0 || (size_t)size >= sizeof text)
        fatal("string_printf: text too long");
    return string_intern(text, (size_t)size);
}

struct text string_text(uint32_t id)
{
    static const uint8_t empty[1];
    if (id >= entry_count)
        fatal("string_text: no such string");
    if (entries[id].size == 0)
        return (struct text){empty, 0};
    return (struct text){arena.data + entries[id].offset, entries[id].size};
}

bool string_is(uint32_t id, const char *text)
{
    struct text bytes = string_text(id);
    return bytes.size == strlen(text) && memcmp(bytes.data, text, bytes.size) == 0;
}

bool string_starts_with(uint32_t id, const char *prefix)
{
    struct text bytes = string_text(id);
    size_t size = strlen(prefix);
    return bytes.size >= size && memcmp(bytes.data, prefix, size) == 0;
}

int string_compare(uint32_t a, uint32_t b)
{
    struct text left = string_text(a), right = string_text(b);
    size_t common = left.size < right.size ? left.size : right.size;
    int order = memcmp(left.data, right.data, common);
    if (order != 0)
        return order;
    return (left.size > right.size) - (left.size < right.size);
}
