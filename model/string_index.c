#include "config.h"

#include "model/string_index.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum { FIRST_SLOT_COUNT = 1024 };

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

/* Eight bytes per step; the tail is the last eight bytes again (they
 * overlap the step before), so no byte-wise loop even there. */
static uint64_t index_hash(const char *text, size_t length)
{
    uint64_t hash = mix(0x243f6a8885a308d3u, length);
    if (length >= 8) {
        size_t i = 0;
        for (; i + 8 < length; i += 8)
            hash = mix(hash, load_word(text + i));
        hash = mix(hash, load_word(text + length - 8));
    } else {
        uint64_t word = 0;
        for (size_t i = 0; i < length; i++)
            word |= (uint64_t)(unsigned char)text[i] << (8 * i);
        hash = mix(hash, word);
    }
    return mix(hash, 0xff51afd7ed558ccdu);
}

void string_index_init(struct string_index *index, struct string_table *table)
{
    *index = (struct string_index){.table = table};
    index->slots = calloc(FIRST_SLOT_COUNT, sizeof *index->slots);
    index->hot = calloc(STRING_INDEX_HOT, sizeof *index->hot);
    if (!index->slots || !index->hot) {
        string_index_free(index);
        index->table = table;
        return;
    }
    index->slot_count = FIRST_SLOT_COUNT;
}

void string_index_free(struct string_index *index)
{
    free(index->hot);
    free(index->slots);
    *index = (struct string_index){0};
}

static uint32_t index_tag(uint64_t hash)
{
    return (uint32_t)(hash >> 32);
}

static bool slot_holds(const struct string_index_slot *slot, uint32_t tag, const char *text,
                       size_t length)
{
    return slot->tag == tag && slot->length == length &&
           string_index_same(slot->text, text, length);
}

static void index_place(struct string_index_slot *slots, size_t slot_count,
                        const struct string_index_slot *entry)
{
    size_t slot = index_hash(entry->text, entry->length) & (slot_count - 1);
    while (slots[slot].text)
        slot = (slot + 1) & (slot_count - 1);
    slots[slot] = *entry;
}

/* Doubles the slots; on failure the index just stops learning. */
static bool index_grow(struct string_index *index)
{
    size_t slot_count = index->slot_count * 2;
    struct string_index_slot *slots = calloc(slot_count, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i < index->slot_count; i++)
        if (index->slots[i].text)
            index_place(slots, slot_count, &index->slots[i]);
    free(index->slots);
    index->slots = slots;
    index->slot_count = slot_count;
    return true;
}

uint32_t string_index_intern(struct string_index *index, const char *text, size_t length)
{
    if (length == 0)
        return STRING_ID_EMPTY;
    if (!index->slots || length > UINT32_MAX)
        return string_table_intern(index->table, text, length);
    uint64_t hash = index_hash(text, length);
    uint32_t tag = index_tag(hash);
    struct string_index_slot *hot = &index->hot[(hash >> 40) % STRING_INDEX_HOT];
    if (hot->text && slot_holds(hot, tag, text, length))
        return hot->id;
    size_t mask = index->slot_count - 1;
    size_t slot = hash & mask;
    for (; index->slots[slot].text; slot = (slot + 1) & mask) {
        const struct string_index_slot *entry = &index->slots[slot];
        if (slot_holds(entry, tag, text, length)) {
            *hot = *entry;
            return entry->id;
        }
    }
    uint32_t id = string_table_intern(index->table, text, length);
    if (id == STRING_ID_NONE)
        return id;
    /* Under one half full, or no new entries once growing fails. */
    if ((index->used + 1) * 2 > index->slot_count) {
        if (!index_grow(index))
            return id;
        mask = index->slot_count - 1;
        slot = hash & mask;
        while (index->slots[slot].text)
            slot = (slot + 1) & mask;
    }
    index->slots[slot] = (struct string_index_slot){
        string_table_text(index->table, id), (uint32_t)length, id, tag};
    *hot = index->slots[slot];
    index->used++;
    return id;
}
