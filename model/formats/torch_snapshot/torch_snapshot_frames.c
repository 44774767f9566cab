/* torch_snapshot_frames: a traceback (a frames list) read once (see
 * torch_snapshot_internal.h): its frames into the profile's frame table
 * (struct stack_frame: line, whether Python or the machinery of
 * recording, as memory_viz tells them, and the file and name of those a
 * stack shows), each frame dict read once (pybind writes one dict per
 * distinct frame and one list per distinct traceback, the memo hands
 * them back again: both are interned by the object); its stack kept as
 * those frames, made into text only when drawn (model/stack_text.h); the
 * innermost user frame's location and the function that made the
 * memory, interned as the keys rows group by; and its site for the
 * profile (registered once, named by the entries). Also the load's
 * scratch text.
 * Called by torch_snapshot_entries.c (entries' frames) and
 * torch_snapshot_segments.c (blocks' frames). Must not: read anything of
 * the pickle but frames lists, nor make a stack's text. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/formats/torch_snapshot/torch_snapshot_internal.h"
#include "model/profile_builder.h"
#include "model/stack_text.h"
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

/* A frame as its dict has it (a value that is no string reads empty). */
struct ts_frame {
    struct text name, file;
    int64_t line;
};

static struct text string_of(const struct pickle_value *value)
{
    return value->kind == PICKLE_STR ? text_make((const char *)value->as.string, value->length)
                                     : text_make("", 0);
}

static struct ts_frame frame_read(const struct pickle_value *value)
{
    struct ts_frame frame = {.name = text_make("", 0), .file = text_make("", 0), .line = 0};
    if (value->kind != PICKLE_DICT)
        return frame;
    const struct pickle_object *dict = value->as.object;
    for (size_t i = 0; i + 1 < dict->count; i += 2) {
        const struct pickle_value *key = &dict->items[i], *item = &dict->items[i + 1];
        if (item->kind == PICKLE_STR && KEY_IS(key, "name"))
            frame.name = string_of(item);
        else if (item->kind == PICKLE_STR && KEY_IS(key, "filename"))
            frame.file = string_of(item);
        else if (KEY_IS(key, "line"))
            pickle_as_int64(item, &frame.line);
    }
    return frame;
}

static bool ends_with(struct text text, const char *suffix)
{
    size_t length = strlen(suffix);
    return text.length >= length && memcmp(text.bytes + text.length - length, suffix, length) == 0;
}

static bool contains(struct text text, const char *needle)
{
    size_t length = strlen(needle);
    for (size_t i = 0; i + length <= text.length; i++)
        if (memcmp(text.bytes + i, needle, length) == 0)
            return true;
    return false;
}

/* Python (and TorchScript/inductor) frames, as memory_viz tells them. */
static bool frame_is_python(const struct ts_frame *frame)
{
    return ends_with(frame->file, ".py") || (frame->file.length > 0 && frame->file.bytes[0] == '<');
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
        if (contains(frame->name, names[i]))
            return true;
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        if (contains(frame->file, files[i]))
            return true;
    return false;
}

/* The load's record of frame `index` of the profile's frame table. */
static struct ts_frame_seen *frame_seen(const struct ts_load *load, uint32_t index)
{
    return &load->frames_seen[index];
}

/* The frame table's index of a frames list's item: a frame dict is read
 * the first time it comes (by the object: the memo hands the same dict
 * back for the same frame) for its line and what it is; anything else is
 * one empty frame. Its file and name wait until a stack shows it
 * (frames_name). UINT32_MAX when memory runs out. */
static uint32_t frame_of(struct ts_load *load, const struct pickle_value *item)
{
    const struct pickle_object *dict = item->kind == PICKLE_DICT ? item->as.object : NULL;
    uint64_t key = (uint64_t)(uintptr_t)dict; /* 0: the empty frame */
    const uint32_t *found = integer_map_find(&load->frame_ids, key);
    if (found)
        return *found;
    struct ts_frame read = frame_read(item);
    struct stack_frame frame = {
        .line = read.line,
        .file = STRING_ID_EMPTY,
        .name = STRING_ID_EMPTY,
        .kind = (uint8_t)((frame_is_python(&read) ? STACK_FRAME_PYTHON : 0) |
                          (frame_is_machinery(&read) ? STACK_FRAME_MACHINERY : 0)),
    };
    uint32_t index;
    if (!profile_builder_add_stack_frame(load->builder, &frame, &index) ||
        !array_grow((void **)&load->frames_seen, &load->frames_seen_capacity, index,
                    sizeof *load->frames_seen, 64) ||
        !integer_map_put(&load->frame_ids, key, index))
        return UINT32_MAX;
    /* The empty frame has its (empty) file and name already. */
    load->frames_seen[index] = (struct ts_frame_seen){.dict = dict, .named = dict == NULL};
    return index;
}

/* Frame `index` as its dict has it. */
static struct ts_frame frame_text(const struct ts_load *load, uint32_t index)
{
    const struct pickle_object *dict = frame_seen(load, index)->dict;
    struct pickle_value value = {.kind = dict ? PICKLE_DICT : PICKLE_NONE,
                                 .as.object = (struct pickle_object *)(uintptr_t)dict};
    return frame_read(&value);
}

static uint8_t frame_kind(const struct ts_load *load, uint32_t index)
{
    return load->builder->profile->stack_frames[index].kind;
}

/* Gives the frames a stack shows (the lines of stack_text_fold, the
 * model's folding) their file and name: the strings of the frames only
 * ever folded into a count (a Python stack's C++ frames) are never kept. */
static bool frames_name(struct ts_load *load, const uint32_t *frames, size_t count)
{
    size_t lines = stack_text_fold(load->builder->profile, frames, count, load->line_scratch);
    for (size_t i = 0; i < lines; i++) {
        uint32_t index = load->line_scratch[i];
        if ((index & STACK_REF_FOLDED) || frame_seen(load, index)->named)
            continue;
        struct ts_frame read = frame_text(load, index);
        uint32_t file = string_table_intern(load->strings, read.file.bytes, read.file.length);
        uint32_t name = string_table_intern(load->strings, read.name.bytes, read.name.length);
        if (file == STRING_ID_NONE || name == STRING_ID_NONE ||
            !profile_builder_name_stack_frame(load->builder, index, file, name))
            return false;
        frame_seen(load, index)->named = true;
    }
    return true;
}

/* A C++ function's name without its argument list ("(anonymous
 * namespace)" is part of the name, not an argument list). */
static size_t function_length(struct text name)
{
    static const char anonymous[] = "(anonymous namespace)";
    for (size_t i = 0; i < name.length; i++) {
        if (name.bytes[i] != '(')
            continue;
        if (name.length - i >= sizeof anonymous - 1 &&
            memcmp(name.bytes + i, anonymous, sizeof anonymous - 1) == 0) {
            i += sizeof anonymous - 2;
            continue;
        }
        return i;
    }
    return name.length;
}

/* In a stack without Python frames (autograd's thread), the frame that
 * says what the memory is for: the autograd node if there is one, else
 * the first frame that is neither recording, allocator nor dispatch. */
static size_t cpp_user_frame(const struct ts_load *load, const uint32_t *frames, size_t count)
{
    static const char *const plumbing[] = {"CUDACachingAllocator", "at::detail::empty",
                                           "c10::impl::", "at::_ops::", "create_out",
                                           "set_output", "at::meta::"};
    size_t first = count;
    for (size_t i = 0; i < count; i++) {
        struct text name = frame_text(load, frames[i]).name;
        if (contains(name, "autograd::generated::"))
            return i;
        if (first < count || (frame_kind(load, frames[i]) & STACK_FRAME_MACHINERY))
            continue;
        bool skip = false;
        for (size_t k = 0; k < sizeof plumbing / sizeof *plumbing && !skip; k++)
            skip = contains(name, plumbing[k]);
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
static bool traceback_location(struct ts_load *load, const uint32_t *frames, size_t count,
                               bool has_python, struct ts_traceback *out)
{
    if (!has_python) {
        size_t i = cpp_user_frame(load, frames, count);
        if (i >= count)
            return true;
        struct text name = frame_text(load, frames[i]).name;
        out->function = string_table_intern(load->strings, name.bytes, function_length(name));
        out->location = string_table_intern(load->strings, "<no python frame>", 17);
        out->location_file = out->location;
        return out->function != STRING_ID_NONE && out->location != STRING_ID_NONE;
    }
    struct user_frame python[PYTHON_FRAMES_MAX];
    size_t python_count = 0;
    for (size_t i = 0; i < count && python_count < PYTHON_FRAMES_MAX; i++) {
        if (!(frame_kind(load, frames[i]) & STACK_FRAME_PYTHON))
            continue;
        struct ts_frame frame = frame_text(load, frames[i]);
        python[python_count++] = (struct user_frame){
            .file = {frame.file.bytes, frame.file.length},
            .line = frame.line,
            .function = {frame.name.bytes, frame.name.length},
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

/* Room for a traceback of `count` frames in the load's scratch (its
 * frames, then its lines). */
static bool frame_scratch_reserve(struct ts_load *load, size_t count)
{
    if (count <= load->frame_scratch_capacity)
        return true;
    size_t capacity = load->frame_scratch_capacity ? load->frame_scratch_capacity : 64;
    while (capacity < count)
        capacity *= 2;
    uint32_t *grown = realloc(load->frame_scratch, 2 * capacity * sizeof *grown);
    if (!grown)
        return false;
    load->frame_scratch = grown;
    load->line_scratch = grown + capacity;
    load->frame_scratch_capacity = capacity;
    return true;
}

/* Out of line: met once per distinct traceback, where ts_traceback_of
 * runs once per entry. */
__attribute__((noinline)) static uint32_t traceback_add(struct ts_load *load,
                                                        const struct pickle_value *items,
                                                        size_t count)
{
    if (!frame_scratch_reserve(load, count))
        return UINT32_MAX;
    uint32_t *frames = load->frame_scratch;
    bool has_python = false;
    for (size_t i = 0; i < count; i++) {
        if ((frames[i] = frame_of(load, &items[i])) == UINT32_MAX)
            return UINT32_MAX;
        has_python = has_python || (frame_kind(load, frames[i]) & STACK_FRAME_PYTHON);
    }
    struct ts_traceback traceback = {0};
    if (!traceback_location(load, frames, count, has_python, &traceback) ||
        !frames_name(load, frames, count) ||
        !profile_builder_add_frame_stack(load->builder, frames, count, &traceback.stack) ||
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

void ts_frames_forget(struct ts_load *load)
{
    integer_map_free(&load->traceback_ids);
    integer_map_free(&load->frame_ids);
    free(load->frame_scratch);
    load->frame_scratch = load->line_scratch = NULL;
    load->frame_scratch_capacity = 0;
    free(load->frames_seen);
    load->frames_seen = NULL;
    load->frames_seen_capacity = 0;
    load->last_frames = NULL;
}
