/* torch_snapshot_entries: what the reader keeps of the pickle's objects
 * (see torch_snapshot_internal.h): trace entries, taken from the pickle
 * reader batch by batch so that the dicts never pile up; tracebacks,
 * interned by the frames list object (pybind writes one list per distinct
 * traceback and one dict per distinct frame, the memo hands them back
 * again, so each is turned into text once); segments and their blocks;
 * external annotations.
 * Called by torch_snapshot.c. Must not: replay anything (the replay's). */
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
#include "model/user_frame.h"

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
        free(load->traces[i].entries);
    free(load->traces);
    integer_map_free(&load->traceback_ids);
    free(load->tracebacks);
    free(load->segments);
    free(load->blocks);
    free(load->annotations);
    free(load->scratch);
}

static bool key_is(const struct pickle_value *key, const char *name, size_t length)
{
    return key->kind == PICKLE_STR && key->length == length &&
           memcmp(key->as.string, name, length) == 0;
}
#define KEY_IS(key, literal) key_is(key, literal, sizeof literal - 1)

/* ---- text ---- */

static bool scratch_add(struct ts_load *load, const void *bytes, size_t length)
{
    if (load->scratch_length + length + 1 > load->scratch_capacity) {
        size_t capacity = load->scratch_capacity ? load->scratch_capacity : 1024;
        while (capacity < load->scratch_length + length + 1)
            capacity *= 2;
        char *grown = realloc(load->scratch, capacity);
        if (!grown)
            return false;
        load->scratch = grown;
        load->scratch_capacity = capacity;
    }
    memcpy(load->scratch + load->scratch_length, bytes, length);
    load->scratch_length += length;
    load->scratch[load->scratch_length] = '\0';
    return true;
}

static bool scratch_printf(struct ts_load *load, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
static bool scratch_printf(struct ts_load *load, const char *format, ...)
{
    char buffer[64];
    va_list arguments;
    va_start(arguments, format);
    int length = vsnprintf(buffer, sizeof buffer, format, arguments);
    va_end(arguments);
    return length >= 0 && scratch_add(load, buffer, (size_t)length < sizeof buffer
                                                        ? (size_t)length
                                                        : sizeof buffer - 1);
}

static uint32_t scratch_intern(struct ts_load *load)
{
    return string_table_intern(load->strings, load->scratch, load->scratch_length);
}

/* ---- frames ---- */

struct ts_frame {
    struct pickle_value name, filename;
    int64_t line;
};

static struct ts_frame frame_read(const struct pickle_value *value)
{
    struct ts_frame frame = {.line = 0};
    if (value->kind != PICKLE_DICT)
        return frame;
    const struct pickle_object *dict = value->as.object;
    for (size_t i = 0; i + 1 < dict->count; i += 2) {
        const struct pickle_value *key = &dict->items[i], *item = &dict->items[i + 1];
        if (item->kind == PICKLE_STR && KEY_IS(key, "name"))
            frame.name = *item;
        else if (item->kind == PICKLE_STR && KEY_IS(key, "filename"))
            frame.filename = *item;
        else if (KEY_IS(key, "line"))
            pickle_as_int64(item, &frame.line);
    }
    return frame;
}

static bool ends_with(const struct pickle_value *text, const char *suffix)
{
    size_t length = strlen(suffix);
    return text->kind == PICKLE_STR && text->length >= length &&
           memcmp(text->as.string + text->length - length, suffix, length) == 0;
}

static bool contains(const struct pickle_value *text, const char *needle)
{
    size_t length = strlen(needle);
    if (text->kind != PICKLE_STR || text->length < length)
        return false;
    for (size_t i = 0; i + length <= text->length; i++)
        if (memcmp(text->as.string + i, needle, length) == 0)
            return true;
    return false;
}

/* Python (and TorchScript/inductor) frames, as memory_viz tells them. */
static bool frame_is_python(const struct ts_frame *frame)
{
    return ends_with(&frame->filename, ".py") ||
           (frame->filename.kind == PICKLE_STR && frame->filename.length > 0 &&
            frame->filename.as.string[0] == '<');
}

/* The frames memory_viz hides as the machinery of recording or of the
 * interpreter. */
static bool frame_is_machinery(const struct ts_frame *frame)
{
    static const char *const names[] = {"unwind", "CapturedTraceback", "gather_with_cpp",
                                        "_start", "__libc_start_main", "PyEval_",
                                        "PyObject_", "PyFunction_", "_PyEval", "_PyObject"};
    static const char *const files[] = {"core/boxing", "/Register", "/Redispatch", "pythonrun.c",
                                        "Modules/main.c", "Objects/call.c", "ceval.c"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (contains(&frame->name, names[i]))
            return true;
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        if (contains(&frame->filename, files[i]))
            return true;
    return false;
}

static bool frame_line(struct ts_load *load, const struct ts_frame *frame)
{
    if (load->scratch_length && !scratch_add(load, "\n", 1))
        return false;
    const struct pickle_value *file = &frame->filename, *name = &frame->name;
    return scratch_add(load, file->kind == PICKLE_STR ? file->as.string : (const uint8_t *)"",
                       file->kind == PICKLE_STR ? file->length : 0) &&
           scratch_printf(load, ":%lld ", (long long)frame->line) &&
           scratch_add(load, name->kind == PICKLE_STR ? name->as.string : (const uint8_t *)"",
                       name->kind == PICKLE_STR ? name->length : 0);
}

static bool fold_line(struct ts_load *load, size_t folded)
{
    return !folded || ((!load->scratch_length || scratch_add(load, "\n", 1)) &&
                       scratch_printf(load, "[%zu C++ frame%s]", folded, folded == 1 ? "" : "s"));
}

/* The stack text: Python frames, runs of C++ frames folded into a count;
 * a stack with no Python frame keeps its C++ frames but the machinery. */
static bool traceback_stack(struct ts_load *load, const struct pickle_value *frames, size_t count,
                            bool has_python)
{
    load->scratch_length = 0;
    size_t folded = 0;
    for (size_t i = 0; i < count; i++) {
        struct ts_frame frame = frame_read(&frames[i]);
        bool python = frame_is_python(&frame);
        if (has_python ? !python : frame_is_machinery(&frame)) {
            folded++;
            continue;
        }
        if (!fold_line(load, folded) || !frame_line(load, &frame))
            return false;
        folded = 0;
    }
    return fold_line(load, folded);
}

/* A C++ function's name without its argument list ("(anonymous
 * namespace)" is part of the name, not an argument list). */
static size_t function_length(const struct pickle_value *name)
{
    static const char anonymous[] = "(anonymous namespace)";
    for (size_t i = 0; i < name->length; i++) {
        if (name->as.string[i] != '(')
            continue;
        if (name->length - i >= sizeof anonymous - 1 &&
            memcmp(name->as.string + i, anonymous, sizeof anonymous - 1) == 0) {
            i += sizeof anonymous - 2;
            continue;
        }
        return i;
    }
    return name->length;
}

/* In a stack without Python frames (autograd's thread), the frame that
 * says what the memory is for: the autograd node if there is one, else
 * the first frame that is neither recording, allocator nor dispatch. */
static size_t cpp_user_frame(const struct pickle_value *frames, size_t count)
{
    static const char *const plumbing[] = {"CUDACachingAllocator", "at::detail::empty",
                                           "c10::impl::", "at::_ops::", "create_out",
                                           "set_output", "at::meta::"};
    size_t first = count;
    for (size_t i = 0; i < count; i++) {
        struct ts_frame frame = frame_read(&frames[i]);
        if (contains(&frame.name, "autograd::generated::"))
            return i;
        if (first < count || frame_is_machinery(&frame))
            continue;
        bool skip = false;
        for (size_t k = 0; k < sizeof plumbing / sizeof *plumbing && !skip; k++)
            skip = contains(&frame.name, plumbing[k]);
        if (!skip)
            first = i;
    }
    return first;
}

/* Where a traceback was made: the function is the innermost Python
 * frame's (what made the memory: `_multi_tensor_adam`), the location the
 * innermost user frame's `file:line` by model/user_frame.h (the line the
 * user wrote: `train.py:16`; the innermost Python frame when all are
 * library code). For a stack without a Python frame, the C++ frame
 * cpp_user_frame picks names it, and the location is "<no python frame>". */
#define PYTHON_FRAMES_MAX 256
static bool traceback_location(struct ts_load *load, const struct pickle_value *frames,
                               size_t count, bool has_python, struct ts_traceback *out)
{
    if (!has_python) {
        size_t i = cpp_user_frame(frames, count);
        if (i >= count)
            return true;
        struct ts_frame frame = frame_read(&frames[i]);
        out->function = frame.name.kind == PICKLE_STR
                            ? string_table_intern(load->strings,
                                                  (const char *)frame.name.as.string,
                                                  function_length(&frame.name))
                            : STRING_ID_EMPTY;
        out->location = string_table_intern(load->strings, "<no python frame>", 17);
        out->location_file = out->location;
        return out->function != STRING_ID_NONE && out->location != STRING_ID_NONE;
    }
    struct user_frame python[PYTHON_FRAMES_MAX];
    size_t python_count = 0;
    for (size_t i = 0; i < count && python_count < PYTHON_FRAMES_MAX; i++) {
        struct ts_frame frame = frame_read(&frames[i]);
        if (!frame_is_python(&frame))
            continue;
        python[python_count++] = (struct user_frame){
            .file = {(const char *)frame.filename.as.string, frame.filename.length},
            .line = frame.line,
            .function = {frame.name.kind == PICKLE_STR ? (const char *)frame.name.as.string : "",
                         frame.name.kind == PICKLE_STR ? frame.name.length : 0},
        };
    }
    long pick = user_frame_pick(python, python_count);
    if (pick < 0)
        return true;
    const struct user_frame *user = &python[pick];
    out->function = string_table_intern(load->strings, python[0].function.bytes,
                                        python[0].function.length);
    load->scratch_length = 0;
    if (!scratch_add(load, user->file.bytes, user->file.length) ||
        !scratch_printf(load, ":%lld", (long long)user->line))
        return false;
    out->location = scratch_intern(load);
    out->location_file = string_table_intern(load->strings, user->file.bytes, user->file.length);
    out->location_line = user->line;
    return out->function != STRING_ID_NONE && out->location != STRING_ID_NONE &&
           out->location_file != STRING_ID_NONE;
}

static uint32_t traceback_add(struct ts_load *load, const struct pickle_value *frames,
                              size_t count)
{
    bool has_python = false;
    for (size_t i = 0; i < count && !has_python; i++) {
        struct ts_frame frame = frame_read(&frames[i]);
        has_python = frame_is_python(&frame);
    }
    struct ts_traceback traceback = {0};
    if (!traceback_location(load, frames, count, has_python, &traceback) ||
        !traceback_stack(load, frames, count, has_python) ||
        (traceback.stack = scratch_intern(load)) == STRING_ID_NONE ||
        !array_grow((void **)&load->tracebacks, &load->traceback_capacity, load->traceback_count,
                    sizeof *load->tracebacks, 64))
        return UINT32_MAX;
    /* Its site, once: what the rows of its allocations show at any time. */
    struct frame_site site = {
        .location = traceback.location,
        .location_file = traceback.location_file,
        .location_line = traceback.location_line,
        .stack = traceback.stack,
    };
    if (!profile_builder_add_site(load->builder, &site, &traceback.site))
        return UINT32_MAX;
    load->tracebacks[load->traceback_count] = traceback;
    return (uint32_t)load->traceback_count++;
}

uint32_t ts_traceback_of(struct ts_load *load, const struct pickle_value *frames)
{
    if (!frames || frames->kind != PICKLE_LIST || !frames->as.object->count)
        return 0;
    if (load->traceback_count == 0) {
        /* [0]: no frames */
        if (!array_grow((void **)&load->tracebacks, &load->traceback_capacity, 0,
                        sizeof *load->tracebacks, 64))
            return UINT32_MAX;
        load->tracebacks[0] = (struct ts_traceback){0};
        load->traceback_count = 1;
    }
    uint64_t key = (uint64_t)(uintptr_t)frames->as.object;
    const uint32_t *found = integer_map_find(&load->traceback_ids, key);
    if (found)
        return *found;
    uint32_t id = traceback_add(load, frames->as.object->items, frames->as.object->count);
    if (id == UINT32_MAX || !integer_map_put(&load->traceback_ids, key, id))
        return UINT32_MAX;
    return id;
}

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
 * neither says anything. */
static uint32_t entry_context(struct ts_load *load, const struct pickle_value *compile,
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
        ok = scratch_add(load, "compile ", 8) && scratch_add(load, c, c_length);
    if (ok && u && u_length)
        ok = (!load->scratch_length || scratch_add(load, "; ", 2)) &&
             scratch_add(load, "metadata ", 9) && scratch_add(load, u, u_length);
    uint32_t id = ok ? scratch_intern(load) : STRING_ID_NONE;
    load->context_compile = c;
    load->context_metadata = u;
    load->context_compile_length = c_length;
    load->context_metadata_length = u_length;
    load->context_id = id;
    return id;
}

static bool entry_read(struct ts_load *load, const struct pickle_object *dict,
                       struct ts_entry *entry, struct pickle_error *error)
{
    const struct pickle_value *compile = NULL, *metadata = NULL;
    bool has_time = false;
    *entry = (struct ts_entry){.action = TS_OTHER};
    for (size_t i = 0; i + 1 < dict->count; i += 2) {
        const struct pickle_value *key = &dict->items[i], *value = &dict->items[i + 1];
        if (key->kind != PICKLE_STR || key->length < 4)
            continue;
        if (KEY_IS(key, "action"))
            entry->action = action_of(value);
        else if (KEY_IS(key, "addr") || KEY_IS(key, "device_free"))
            pickle_as_uint64(value, &entry->address);
        else if (KEY_IS(key, "size"))
            pickle_as_int64(value, &entry->size);
        else if (KEY_IS(key, "stream"))
            pickle_as_uint64(value, &entry->stream);
        else if (KEY_IS(key, "time_us"))
            has_time = pickle_as_int64(value, &entry->time_us);
        else if (KEY_IS(key, "compile_context"))
            compile = value;
        else if (KEY_IS(key, "user_metadata"))
            metadata = value;
        else if (KEY_IS(key, "frames") &&
                 (entry->traceback = ts_traceback_of(load, value)) == UINT32_MAX)
            break;
    }
    if (entry->traceback == UINT32_MAX ||
        (entry->context = entry_context(load, compile, metadata)) == STRING_ID_NONE) {
        error->status = PICKLE_NO_MEMORY;
        snprintf(error->message, sizeof error->message, "out of memory");
        return false;
    }
    if (entry->action == TS_OTHER)
        load->unknown_actions++;
    if (!has_time) {
        load->entries_without_time = true;
    } else if (!load->any_time || entry->time_us < load->earliest_time_us) {
        load->earliest_time_us = entry->time_us;
        load->any_time = true;
    }
    return true;
}

static struct ts_trace *trace_find(struct ts_load *load, const struct pickle_object *list,
                                   bool create)
{
    for (size_t i = load->trace_count; i-- > 0;)
        if (load->traces[i].list == list)
            return &load->traces[i];
    if (!create || !array_grow((void **)&load->traces, &load->trace_capacity, load->trace_count,
                               sizeof *load->traces, 8))
        return NULL;
    struct ts_trace *trace = &load->traces[load->trace_count++];
    *trace = (struct ts_trace){.list = list};
    return trace;
}

/* The items are trace entries when the first is a dict with an action. */
int ts_take_items(void *context, struct pickle_object *list, const struct pickle_value *items,
                  size_t count, struct pickle_error *error)
{
    struct ts_load *load = context;
    if (items[0].kind != PICKLE_DICT || !pickle_dict_get(&items[0], "action"))
        return 0;
    struct ts_trace *trace = trace_find(load, list, true);
    if (!trace || trace->count + count < trace->count) {
        error->status = PICKLE_NO_MEMORY;
        snprintf(error->message, sizeof error->message, "out of memory");
        return -1;
    }
    while (trace->count + count > trace->capacity) {
        size_t capacity = trace->capacity ? trace->capacity * 2 : 1024;
        struct ts_entry *grown = realloc(trace->entries, capacity * sizeof *grown);
        if (!grown) {
            snprintf(error->message, sizeof error->message, "out of memory");
            return -1;
        }
        trace->entries = grown;
        trace->capacity = capacity;
    }
    for (size_t i = 0; i < count; i++) {
        if (items[i].kind != PICKLE_DICT) {
            snprintf(error->message, sizeof error->message,
                     "a trace entry that is not a dict (item %zu of a trace)", trace->count);
            return -1;
        }
        if (!entry_read(load, items[i].as.object, &trace->entries[trace->count], error))
            return -1;
        trace->count++;
    }
    return 1;
}

const struct ts_trace *ts_trace_of(struct ts_load *load, const struct pickle_value *list)
{
    static const struct ts_trace empty = {0};
    if (list->kind != PICKLE_LIST)
        return NULL;
    struct ts_trace *trace = trace_find(load, list->as.object, false);
    if (trace)
        return trace;
    size_t count = list->as.object->count;
    if (!count)
        return &empty;
    struct pickle_error error = {0};
    /* A list the reader kept (its items were not entries as they came). */
    if (ts_take_items(load, list->as.object, list->as.object->items, count, &error) != 1)
        return NULL;
    return trace_find(load, list->as.object, false);
}

void ts_trace_release(struct ts_load *load, const struct ts_trace *trace)
{
    for (size_t i = 0; i < load->trace_count; i++)
        if (&load->traces[i] == trace) {
            free(load->traces[i].entries);
            load->traces[i].entries = NULL;
            load->traces[i].count = load->traces[i].capacity = 0;
        }
}
