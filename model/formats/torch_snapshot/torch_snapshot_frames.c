/* torch_snapshot_frames: a traceback (a frames list) turned into text once
 * (see torch_snapshot_internal.h): the stack as memtop shows it (Python
 * frames, runs of C++ frames folded into a count, memory_viz's machinery
 * hidden when there is no Python frame), the innermost user frame's
 * location and the function that made the memory, and its site for the
 * profile (registered once, named by the entries); tracebacks interned by
 * the list object (pybind writes one list per distinct traceback and one
 * dict per distinct frame, the memo hands them back again). Also the
 * load's scratch text.
 * Called by torch_snapshot_entries.c (entries' frames) and
 * torch_snapshot_segments.c (blocks' frames). Must not: read anything of
 * the pickle but frames lists. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/formats/torch_snapshot/torch_snapshot_internal.h"
#include "model/profile_builder.h"
#include "model/string_table.h"
#include "model/user_frame.h"
#include "model/util/array_grow.h"

static bool key_is(const struct pickle_value *key, const char *name, size_t length)
{
    return key->kind == PICKLE_STR && key->length == length &&
           memcmp(key->as.string, name, length) == 0;
}
#define KEY_IS(key, literal) key_is(key, literal, sizeof literal - 1)

/* ---- text ---- */

bool ts_scratch_add(struct ts_load *load, const void *bytes, size_t length)
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
    return length >= 0 && ts_scratch_add(load, buffer, (size_t)length < sizeof buffer
                                                        ? (size_t)length
                                                        : sizeof buffer - 1);
}

uint32_t ts_scratch_intern(struct ts_load *load)
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
    if (load->scratch_length && !ts_scratch_add(load, "\n", 1))
        return false;
    const struct pickle_value *file = &frame->filename, *name = &frame->name;
    return ts_scratch_add(load, file->kind == PICKLE_STR ? file->as.string : (const uint8_t *)"",
                       file->kind == PICKLE_STR ? file->length : 0) &&
           scratch_printf(load, ":%lld ", (long long)frame->line) &&
           ts_scratch_add(load, name->kind == PICKLE_STR ? name->as.string : (const uint8_t *)"",
                       name->kind == PICKLE_STR ? name->length : 0);
}

static bool fold_line(struct ts_load *load, size_t folded)
{
    return !folded || ((!load->scratch_length || ts_scratch_add(load, "\n", 1)) &&
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
    if (!ts_scratch_add(load, user->file.bytes, user->file.length) ||
        !scratch_printf(load, ":%lld", (long long)user->line))
        return false;
    out->location = ts_scratch_intern(load);
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
        (traceback.stack = ts_scratch_intern(load)) == STRING_ID_NONE ||
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
    /* A free_requested and its free_completed share one list: the last
     * one first. */
    if (frames->as.object == load->last_frames)
        return load->last_traceback;
    uint64_t key = (uint64_t)(uintptr_t)frames->as.object;
    const uint32_t *found = integer_map_find(&load->traceback_ids, key);
    uint32_t id = found ? *found : traceback_add(load, frames->as.object->items,
                                                 frames->as.object->count);
    if (id == UINT32_MAX || (!found && !integer_map_put(&load->traceback_ids, key, id)))
        return UINT32_MAX;
    load->last_frames = frames->as.object;
    load->last_traceback = id;
    return id;
}
