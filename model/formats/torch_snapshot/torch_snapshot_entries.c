/* torch_snapshot_entries: the trace entries as the pickle reader hands
 * them over (see torch_snapshot_internal.h), batch by batch so that the
 * dicts never pile up: each read into a struct ts_entry at once (keys and
 * actions known by where their bytes are, the frames list's traceback
 * from torch_snapshot_frames.c), then replayed into its trace
 * (torch_snapshot_trace.c),
 * on the replay thread when there is one (torch_snapshot_pipe.c); the
 * load's error helpers and its end.
 * Called by torch_snapshot.c. Must not: replay anything itself (the
 * trace's), or keep the entries. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/util/array_grow.h"
#include "model/formats/torch_snapshot/torch_snapshot_internal.h"
#include "model/load_internal.h"
#include "model/profile_builder.h"
#include "model/string_table.h"

enum load_status ts_bad(struct ts_load *load, const char *format, ...)
{
    char message[LOAD_ERROR_SIZE];
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(message, sizeof message, format, arguments);
    va_end(arguments);
    load_error_set(load->error, "%s", message);
    return LOAD_BAD_INPUT;
}

enum load_status ts_no_memory(struct ts_load *load)
{
    load_error_set(load->error, "out of memory");
    return LOAD_NO_MEMORY;
}

void ts_load_free(struct ts_load *load)
{
    for (size_t i = 0; i < load->trace_count; i++)
        ts_trace_free(&load->traces[i]);
    free(load->traces);
    ts_frames_forget(load);
    free(load->tracebacks);
    free(load->segments);
    free(load->blocks);
    free(load->taken_blocks);
    free(load->annotations);
    free(load->scratch);
    free(load->batch);
    free(load->claimed);
    free(load->memo_cache);
}

static bool key_is(const struct pickle_value *key, const char *name, size_t length)
{
    return key->kind == PICKLE_STR && key->length == length &&
           memcmp(key->as.string, name, length) == 0;
}
#define KEY_IS(key, literal) key_is(key, literal, sizeof literal - 1)

/* ---- trace entries ---- */

static uint8_t action_of(const struct pickle_value *text)
{
    static const char *const names[] = {
        [TS_ALLOC] = "alloc",
        [TS_FREE_REQUESTED] = "free_requested",
        [TS_FREE_COMPLETED] = "free_completed",
        [TS_SEGMENT_ALLOC] = "segment_alloc",
        [TS_SEGMENT_FREE] = "segment_free",
        [TS_SEGMENT_MAP] = "segment_map",
        [TS_SEGMENT_UNMAP] = "segment_unmap",
        [TS_SNAPSHOT] = "snapshot",
        [TS_OOM] = "oom",
    };
    for (uint8_t i = 0; i < TS_OTHER; i++)
        if (pickle_is_string(text, names[i]))
            return i;
    return TS_OTHER;
}

/* compile_context and user_metadata as one context string, "" when
 * neither says anything: the entry's own part of its row's context (the
 * stream and the annotations open then are added when its device is
 * built). */
uint32_t ts_entry_context(struct ts_load *load, const struct pickle_value *compile,
                          const struct pickle_value *metadata)
{
    const uint8_t *c = compile && compile->kind == PICKLE_STR ? compile->as.string : NULL;
    const uint8_t *u = metadata && metadata->kind == PICKLE_STR ? metadata->as.string : NULL;
    uint32_t c_length = c ? compile->length : 0, u_length = u ? metadata->length : 0;
    if (load->context_id != STRING_ID_NONE && c == load->context_compile &&
        u == load->context_metadata && c_length == load->context_compile_length &&
        u_length == load->context_metadata_length)
        return load->context_id;
    load->scratch_length = 0;
    bool ok = true;
    if (c && !(c_length == 3 && memcmp(c, "N/A", 3) == 0) && c_length)
        ok = ts_scratch_add(load, "compile ", 8) && ts_scratch_add(load, c, c_length);
    if (ok && u && u_length)
        ok = (!load->scratch_length || ts_scratch_add(load, "; ", 2)) &&
             ts_scratch_add(load, "metadata ", 9) && ts_scratch_add(load, u, u_length);
    uint32_t id = ok ? ts_scratch_intern(load) : STRING_ID_NONE;
    load->context_compile = c;
    load->context_metadata = u;
    load->context_compile_length = c_length;
    load->context_metadata_length = u_length;
    load->context_id = id;
    return id;
}

static uint8_t entry_key_of(const struct pickle_value *key)
{
    if (KEY_IS(key, "action"))
        return KEY_ACTION;
    if (KEY_IS(key, "addr") || KEY_IS(key, "device_free"))
        return KEY_ADDRESS;
    if (KEY_IS(key, "size"))
        return KEY_SIZE;
    if (KEY_IS(key, "stream"))
        return KEY_STREAM;
    if (KEY_IS(key, "time_us"))
        return KEY_TIME;
    if (KEY_IS(key, "compile_context"))
        return KEY_COMPILE;
    if (KEY_IS(key, "user_metadata"))
        return KEY_METADATA;
    if (KEY_IS(key, "frames"))
        return KEY_FRAMES;
    return KEY_OTHER;
}

/* A string's meaning (an entry key, an action) by where its bytes are:
 * pybind writes each key and action once and the memo hands the same
 * bytes back, so a few slots remember it (one string at one place has
 * one meaning: the input does not change). */
static uint8_t string_meaning(struct ts_string_cache *cache, const struct pickle_value *text,
                              uint8_t (*meaning)(const struct pickle_value *))
{
    size_t slot = ((uintptr_t)text->as.string >> 2) % TS_STRING_CACHE;
    if (cache[slot].bytes == text->as.string && cache[slot].length == text->length)
        return cache[slot].meaning;
    uint8_t found = meaning(text);
    cache[slot] = (struct ts_string_cache){text->as.string, text->length, found};
    return found;
}

static uint8_t action_meaning(const struct pickle_value *text)
{
    return action_of(text);
}

void ts_entry_begin(struct ts_entry *entry, struct ts_entry_reading *reading)
{
    *entry = (struct ts_entry){.action = TS_OTHER};
    *reading = (struct ts_entry_reading){.has_time = false};
}

uint8_t ts_entry_key_meaning(struct ts_load *load, const struct pickle_value *key)
{
    if (key->kind != PICKLE_STR || key->length < 4)
        return KEY_NONE;
    return string_meaning(load->key_cache, key, entry_key_of);
}

uint8_t ts_entry_action_meaning(struct ts_load *load, const struct pickle_value *value)
{
    return value->kind == PICKLE_STR ? string_meaning(load->action_cache, value, action_meaning)
                                     : TS_OTHER;
}

void ts_entry_pair(struct ts_load *load, struct ts_entry *entry, struct ts_entry_reading *reading,
                   const struct pickle_value *key, const struct pickle_value *value)
{
    switch (ts_entry_key_meaning(load, key)) {
    case KEY_ACTION: entry->action = ts_entry_action_meaning(load, value); break;
    case KEY_ADDRESS: pickle_as_uint64(value, &entry->address); break;
    case KEY_SIZE: pickle_as_int64(value, &entry->size); break;
    case KEY_STREAM: pickle_as_uint64(value, &entry->stream); break;
    case KEY_TIME: reading->has_time = pickle_as_int64(value, &entry->time_us); break;
    case KEY_COMPILE: reading->compile = *value; break;
    case KEY_METADATA: reading->metadata = *value; break;
    case KEY_FRAMES: entry->traceback = ts_traceback_of(load, value); break;
    default: break;
    }
}

bool ts_entry_finish(struct ts_load *load, struct ts_entry *entry,
                     struct ts_entry_reading *reading, struct pickle_error *error)
{
    if (entry->traceback == UINT32_MAX ||
        (entry->context = ts_entry_context(load, &reading->compile, &reading->metadata)) ==
            STRING_ID_NONE) {
        error->status = PICKLE_NO_MEMORY;
        snprintf(error->message, sizeof error->message, "out of memory");
        return false;
    }
    ts_entry_count(load, entry, reading->has_time);
    return true;
}

void ts_entry_count(struct ts_load *load, const struct ts_entry *entry, bool has_time)
{
    if (entry->action == TS_OTHER)
        load->unknown_actions++;
    if (!has_time) {
        load->entries_without_time = true;
    } else if (!load->any_time || entry->time_us < load->earliest_time_us) {
        load->earliest_time_us = entry->time_us;
        load->any_time = true;
    }
}

static bool entry_read(struct ts_load *load, const struct pickle_object *dict,
                       struct ts_entry *entry, struct pickle_error *error)
{
    struct ts_entry_reading reading;
    ts_entry_begin(entry, &reading);
    for (size_t i = 0; i + 1 < dict->count && entry->traceback != UINT32_MAX; i += 2)
        ts_entry_pair(load, entry, &reading, &dict->items[i], &dict->items[i + 1]);
    return ts_entry_finish(load, entry, &reading, error);
}

static int no_memory(struct pickle_error *error)
{
    error->status = PICKLE_NO_MEMORY;
    snprintf(error->message, sizeof error->message, "out of memory");
    return -1;
}

/* Where a batch's entries go: a slot of the pipe's, or the load's own
 * batch replayed here; NULL when the pipe's replay ran out of memory. */
static struct ts_batch *batch_to_fill(struct ts_load *load)
{
    return load->pipe ? ts_pipe_slot(load->pipe) : load->batch;
}

/* The items are trace entries when the first is a dict with an action:
 * each is read at once (the pickle reader recycles the dicts after), and
 * replayed into its trace by batches (torch_snapshot_trace.c), on the
 * pipe's thread when there is one. */
static int take_entries(struct ts_load *load, struct pickle_object *list,
                        const struct pickle_value *items, size_t count,
                        struct pickle_error *error)
{
    if (items[0].kind != PICKLE_CLAIMED &&
        (items[0].kind != PICKLE_DICT || !pickle_dict_get(&items[0], "action")))
        return 0;
    load->entry_list = list;
    size_t left = load->input && load->input->size > load->offset
                      ? (size_t)(load->input->size - load->offset)
                      : 0;
    for (size_t done = 0; done < count; done += TS_BATCH) {
        struct ts_batch *batch = batch_to_fill(load);
        if (!batch)
            return no_memory(error);
        size_t n = count - done < TS_BATCH ? count - done : TS_BATCH;
        for (size_t i = 0; i < n; i++) {
            struct ts_entry *entry = &batch->entries[i];
            /* The dicts were written a thousand entries ago: their
             * headers and items are fetched a few ahead. */
            if (i + 8 < n && items[done + i + 8].kind == PICKLE_DICT)
                __builtin_prefetch(items[done + i + 8].as.object);
            if (i + 4 < n && items[done + i + 4].kind == PICKLE_DICT &&
                items[done + i + 4].as.object->items) { /* an empty dict has none */
                const struct pickle_value *ahead = items[done + i + 4].as.object->items;
                __builtin_prefetch(ahead);
                __builtin_prefetch((const char *)ahead + 64);
                __builtin_prefetch((const char *)ahead + 128);
                __builtin_prefetch((const char *)ahead + 192);
            }
            if (items[done + i].kind == PICKLE_CLAIMED) {
                /* Read from its bytes already, in the same order. */
                if (load->claimed_next >= load->claimed_count || list != load->claimed_list) {
                    load->claims_misplaced = true;
                    snprintf(error->message, sizeof error->message,
                             "a trace entry out of its place");
                    return -1;
                }
                *entry = load->claimed[load->claimed_next++];
                if (load->claimed_next == load->claimed_count)
                    load->claimed_next = load->claimed_count = 0;
            } else if (items[done + i].kind != PICKLE_DICT) {
                /* Which item of its trace: once the replay has caught up. */
                if (load->pipe)
                    ts_pipe_drain(load->pipe);
                const struct ts_trace *trace = ts_trace_find(load, list, false);
                snprintf(error->message, sizeof error->message,
                         "a trace entry that is not a dict (item %zu of a trace)",
                         (trace ? trace->count : 0) + i);
                return -1;
            } else if (!entry_read(load, items[done + i].as.object, entry, error)) {
                return -1;
            }
            const struct ts_traceback *traceback =
                load->tracebacks ? &load->tracebacks[entry->traceback] : NULL;
            batch->op_names[i] = traceback ? traceback->function : 0;
            batch->sites[i] = traceback ? traceback->site : 0;
        }
        batch->list = list;
        batch->count = n;
        batch->bytes_left = left;
        if (load->pipe)
            ts_pipe_push(load->pipe);
        else if (!ts_replay_batch(load, batch))
            return no_memory(error);
    }
    return 1;
}

/* Trace entries, or a segment's blocks (torch_snapshot_segments.c): read
 * as they come, so that their dicts go back to the reader at once. */
int ts_take_items(void *context, struct pickle_object *list, const struct pickle_value *items,
                  size_t count, struct pickle_error *error)
{
    struct ts_load *load = context;
    int taken = ts_take_blocks(load, list, items, count, error);
    return taken ? taken : take_entries(load, list, items, count, error);
}

struct ts_trace *ts_trace_of(struct ts_load *load, const struct pickle_value *list)
{
    static struct ts_trace empty = {0};
    if (list->kind != PICKLE_LIST)
        return NULL;
    struct ts_trace *trace = ts_trace_find(load, list->as.object, false);
    if (trace)
        return trace;
    if (list->as.object->taken)
        return NULL; /* its items were taken as something else: blocks */
    size_t count = list->as.object->count;
    if (!count)
        return &empty;
    struct pickle_error error = {0};
    /* A list the reader kept (its items were not entries as they came). */
    if (take_entries(load, list->as.object, list->as.object->items, count, &error) != 1)
        return NULL;
    return ts_trace_find(load, list->as.object, false);
}

void ts_trace_release(struct ts_load *load, const struct ts_trace *trace)
{
    for (size_t i = 0; i < load->trace_count; i++)
        if (&load->traces[i] == trace)
            ts_trace_free(&load->traces[i]);
}
