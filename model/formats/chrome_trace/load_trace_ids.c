/* load_trace_ids: pid, tid and object ids, numbers or strings, and the
 * table that numbers pairs of them (threads, tensors) as they are first
 * seen (see load_trace.h). */
#include "config.h"

#include "model/formats/chrome_trace/chrome_trace_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- ids and pairs of them ---- */

int trace_id_compare(const struct trace_id *a, const struct trace_id *b)
{
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    return a->value < b->value ? -1 : a->value > b->value;
}

bool trace_id_equal(const struct trace_id *a, const struct trace_id *b)
{
    return a->kind == b->kind && a->value == b->value;
}

static uint64_t pair_hash(const struct trace_pair *pair)
{
    uint64_t hash = 0x9e3779b97f4a7c15u;
    const int64_t parts[] = {pair->first.value, pair->first.kind, pair->second.value,
                             pair->second.kind};
    for (size_t i = 0; i < 4; i++) {
        hash ^= (uint64_t)parts[i];
        hash *= 0xff51afd7ed558ccdu;
        hash ^= hash >> 33;
    }
    return hash;
}

static bool pair_equal(const struct trace_pair *a, const struct trace_pair *b)
{
    return trace_id_equal(&a->first, &b->first) && trace_id_equal(&a->second, &b->second);
}

static void pair_place(uint32_t *slots, size_t slot_count, const struct trace_pair *pair,
                       uint32_t index)
{
    size_t slot = (size_t)pair_hash(pair) & (slot_count - 1);
    while (slots[slot])
        slot = (slot + 1) & (slot_count - 1);
    slots[slot] = index + 1;
}

static bool pair_table_grow(struct trace_pair_table *table)
{
    if (table->count == table->capacity) {
        if (table->count >= UINT32_MAX / 4)
            return false;
        size_t capacity = table->capacity ? table->capacity * 2 : 16;
        struct trace_pair *pairs = realloc(table->pairs, capacity * sizeof *pairs);
        if (!pairs)
            return false;
        table->pairs = pairs;
        table->capacity = capacity;
    }
    if ((table->count + 1) * 2 <= table->slot_count)
        return true;
    size_t slot_count = table->slot_count ? table->slot_count * 2 : 32;
    uint32_t *slots = calloc(slot_count, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i < table->count; i++)
        pair_place(slots, slot_count, &table->pairs[i], (uint32_t)i);
    free(table->slots);
    table->slots = slots;
    table->slot_count = slot_count;
    return true;
}

bool trace_pair_table_find_or_add(struct trace_pair_table *table, const struct trace_pair *pair,
                                  uint32_t *index, bool *added)
{
    if (added)
        *added = false;
    if (table->slot_count) {
        for (size_t slot = (size_t)pair_hash(pair) & (table->slot_count - 1); table->slots[slot];
             slot = (slot + 1) & (table->slot_count - 1)) {
            uint32_t found = table->slots[slot] - 1;
            if (pair_equal(&table->pairs[found], pair)) {
                *index = found;
                return true;
            }
        }
    }
    if (!pair_table_grow(table))
        return false;
    *index = (uint32_t)table->count;
    table->pairs[table->count++] = *pair;
    pair_place(table->slots, table->slot_count, pair, *index);
    if (added)
        *added = true;
    return true;
}

void trace_pair_table_free(struct trace_pair_table *table)
{
    free(table->pairs);
    free(table->slots);
    memset(table, 0, sizeof *table);
}
