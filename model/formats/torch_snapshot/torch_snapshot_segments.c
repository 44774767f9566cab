/* torch_snapshot_segments: the allocator's state when the snapshot was
 * taken (segments and their blocks) and the external annotations, read
 * from the decoded pickle into plain arrays (see torch_snapshot_internal.h).
 * Called by torch_snapshot.c. Must not: replay the trace. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/util/array_grow.h"
#include "model/formats/torch_snapshot/torch_snapshot_internal.h"
#include "model/profile_builder.h"
#include "model/string_table.h"

static int64_t int_of(const struct pickle_value *dict, const char *key, int64_t otherwise)
{
    int64_t value;
    return pickle_as_int64(pickle_dict_get(dict, key), &value) ? value : otherwise;
}

static uint64_t uint_of(const struct pickle_value *dict, const char *key)
{
    uint64_t value;
    return pickle_as_uint64(pickle_dict_get(dict, key), &value) ? value : 0;
}

static uint8_t state_of(const struct pickle_value *state)
{
    if (pickle_is_string(state, "active_allocated"))
        return TS_BLOCK_ALLOCATED;
    /* memory.py's docstring says active_awaiting_free; the files say pending */
    if (pickle_is_string(state, "active_pending_free") ||
        pickle_is_string(state, "active_awaiting_free"))
        return TS_BLOCK_PENDING_FREE;
    return TS_BLOCK_INACTIVE;
}

/* One block dict into load->blocks (its address, when it has none, is
 * set by the segment: place_blocks); false when memory runs out. An
 * inactive block (free room) is left out when it has an address: only
 * the active ones are read after, and blocks without an address (whose
 * place the ones before tell) come in files where none has one. */
static bool block_read(struct ts_load *load, const struct pickle_value *dict)
{
    const struct pickle_value *address = pickle_dict_get(dict, "address");
    uint8_t state = state_of(pickle_dict_get(dict, "state"));
    if (address && state == TS_BLOCK_INACTIVE)
        return true;
    if (!array_grow((void **)&load->blocks, &load->block_capacity, load->block_count,
                    sizeof *load->blocks, 256))
        return false;
    struct ts_block *block = &load->blocks[load->block_count];
    block->address = address ? uint_of(dict, "address") : 0;
    block->addressed = address != NULL;
    block->size = int_of(dict, "size", 0);
    block->requested = int_of(dict, "requested_size", block->size);
    block->state = state;
    block->traceback = ts_traceback_of(load, pickle_dict_get(dict, "frames"));
    if (block->traceback == UINT32_MAX)
        return false;
    load->block_count++;
    return true;
}

/* Blocks without an address (PyTorch 2.0) tile the segment from its base. */
static void place_blocks(struct ts_load *load, const struct ts_segment *segment)
{
    uint64_t next = segment->address;
    for (size_t i = segment->first_block; i < segment->first_block + segment->block_count; i++) {
        struct ts_block *block = &load->blocks[i];
        if (!block->addressed)
            block->address = next;
        next = block->address + (uint64_t)block->size;
    }
}

int ts_take_blocks(struct ts_load *load, struct pickle_object *list,
                   const struct pickle_value *items, size_t count, struct pickle_error *error)
{
    bool blocks = list->taken && load->taken_block_count &&
                  load->taken_blocks[load->taken_block_count - 1].list == list;
    if (!blocks) {
        if (items[0].kind != PICKLE_DICT || !pickle_dict_get(&items[0], "state") ||
            pickle_dict_get(&items[0], "action"))
            return 0;
        /* Anything else among them: the list keeps them, and reading the
         * segment says what is wrong. */
        for (size_t i = 1; i < count; i++)
            if (items[i].kind != PICKLE_DICT)
                return 0;
        if (!array_grow((void **)&load->taken_blocks, &load->taken_block_capacity,
                        load->taken_block_count, sizeof *load->taken_blocks, 64))
            goto no_memory;
        load->taken_blocks[load->taken_block_count++] =
            (struct ts_taken_blocks){list, load->block_count, 0, 0};
    }
    struct ts_taken_blocks *taken = &load->taken_blocks[load->taken_block_count - 1];
    for (size_t i = 0; i < count; i++) {
        if (items[i].kind != PICKLE_DICT) {
            snprintf(error->message, sizeof error->message,
                     "a pickle, but not a PyTorch memory snapshot (block %zu of a segment is "
                     "not a dict)", taken->items + i);
            return -1;
        }
        if (!block_read(load, &items[i]))
            goto no_memory;
    }
    taken->items += count;
    taken->count = load->block_count - taken->first;
    return 1;
no_memory:
    error->status = PICKLE_NO_MEMORY;
    snprintf(error->message, sizeof error->message, "out of memory");
    return -1;
}

/* The blocks taken as `list` filled (NULL: none were). The segments come
 * in the order their lists were read: the search starts after the last
 * one found. */
static const struct ts_taken_blocks *taken_blocks_of(struct ts_load *load,
                                                      const struct pickle_value *list)
{
    if (!list || list->kind != PICKLE_LIST || !list->as.object->taken)
        return NULL;
    for (size_t n = 0; n < load->taken_block_count; n++) {
        size_t i = (load->taken_block_next + n) % load->taken_block_count;
        if (load->taken_blocks[i].list == list->as.object) {
            load->taken_block_next = i + 1;
            return &load->taken_blocks[i];
        }
    }
    return NULL;
}

static enum load_status read_blocks(struct ts_load *load, struct ts_segment *segment,
                                    const struct pickle_value *blocks)
{
    const struct ts_taken_blocks *taken = taken_blocks_of(load, blocks);
    if (taken) {
        segment->first_block = taken->first;
        segment->block_count = taken->count;
        place_blocks(load, segment);
        return LOAD_OK;
    }
    size_t count;
    const struct pickle_value *items = pickle_items(blocks, &count);
    segment->first_block = load->block_count;
    for (size_t i = 0; i < count; i++) {
        if (items[i].kind != PICKLE_DICT)
            return ts_bad(load, "a block that is not a dict");
        if (!block_read(load, &items[i]))
            return ts_no_memory(load);
    }
    segment->block_count = load->block_count - segment->first_block;
    place_blocks(load, segment);
    return LOAD_OK;
}

static bool pool_is_private(const struct pickle_value *pool)
{
    size_t count;
    const struct pickle_value *items = pickle_items(pool, &count);
    for (size_t i = 0; i < count; i++) {
        int64_t value;
        if (pickle_as_int64(&items[i], &value) && value != 0)
            return true;
    }
    return false;
}

enum load_status ts_read_segments(struct ts_load *load, const struct pickle_value *segments)
{
    size_t count;
    const struct pickle_value *items = pickle_items(segments, &count);
    if (segments && segments->kind == PICKLE_LIST && !items && segments->as.object->taken)
        return ts_bad(load, "a pickle, but not a PyTorch memory snapshot (its segments are "
                            "trace entries)");
    for (size_t i = 0; i < count; i++) {
        const struct pickle_value *dict = &items[i];
        if (dict->kind != PICKLE_DICT)
            return ts_bad(load, "a pickle, but not a PyTorch memory snapshot (segment %zu is not "
                                "a dict)", i);
        if (!array_grow((void **)&load->segments, &load->segment_capacity, load->segment_count,
                        sizeof *load->segments, 64))
            return ts_no_memory(load);
        struct ts_segment *segment = &load->segments[load->segment_count];
        *segment = (struct ts_segment){
            .device = int_of(dict, "device", 0),
            .address = uint_of(dict, "address"),
            .total_size = int_of(dict, "total_size", 0),
            .stream = uint_of(dict, "stream"),
            .private_pool = pool_is_private(pickle_dict_get(dict, "segment_pool_id")),
        };
        const struct pickle_value *expandable = pickle_dict_get(dict, "is_expandable");
        segment->expandable = expandable && expandable->kind == PICKLE_BOOL &&
                              expandable->as.boolean;
        enum load_status status = read_blocks(load, segment, pickle_dict_get(dict, "blocks"));
        if (status != LOAD_OK)
            return status;
        load->segment_count++;
    }
    return LOAD_OK;
}

static int annotation_order(const void *a, const void *b)
{
    const struct ts_annotation *x = a, *y = b;
    if (x->time_us != y->time_us)
        return x->time_us < y->time_us ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

/* The annotations, by time (the rows' sweep needs them so). */
enum load_status ts_read_annotations(struct ts_load *load, const struct pickle_value *list)
{
    size_t count;
    const struct pickle_value *items = pickle_items(list, &count);
    for (size_t i = 0; i < count; i++) {
        const struct pickle_value *name = pickle_dict_get(&items[i], "name");
        const struct pickle_value *stage = pickle_dict_get(&items[i], "stage");
        int64_t time_us;
        /* A stage other than START and END (none so far) opens and closes nothing. */
        if (!name || name->kind != PICKLE_STR ||
            !(pickle_is_string(stage, "START") || pickle_is_string(stage, "END")) ||
            !pickle_as_int64(pickle_dict_get(&items[i], "time_us"), &time_us))
            continue;
        if (!array_grow((void **)&load->annotations, &load->annotation_capacity,
                        load->annotation_count, sizeof *load->annotations, 64))
            return ts_no_memory(load);
        uint32_t id = string_table_intern(load->strings, (const char *)name->as.string,
                                          name->length);
        if (id == STRING_ID_NONE)
            return ts_no_memory(load);
        size_t order = load->annotation_count++;
        load->annotations[order] = (struct ts_annotation){
            .time_us = time_us,
            .order = order,
            .device = int_of(&items[i], "device", 0),
            .name = id,
            .start = pickle_is_string(stage, "START"),
        };
    }
    /* No annotations: the array may be NULL, which qsort must not get. */
    if (load->annotation_count > 1)
        qsort(load->annotations, load->annotation_count, sizeof *load->annotations,
              annotation_order);
    return LOAD_OK;
}
