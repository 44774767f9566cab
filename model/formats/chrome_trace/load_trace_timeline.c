/* load_trace_timeline: TensorFlow timeline.py traces (see load_trace.h).
 *
 * Taken while the file streams past: the Memory counters (ph C, cat
 * Memory: one series per allocator, value args[name]), the process names
 * (which pid is "Allocators"), and the tensors' object events: N (created,
 * name), O (its TensorDescription text: dtype, shape, requested bytes,
 * allocator, ptr), D (last unref). Finishing (TRACE-SEMANTICS'):
 * - one allocator per counter series of the Allocators process, in order
 *   of first appearance; one snapshot per counter, heap = its value;
 * - each counter is paired with the tensor event it was made from:
 *   timeline.py sorts the tuples (time, +bytes or -bytes, name) as Python
 *   sorts tuples and writes one counter per tuple, so the k-th tuple of
 *   an allocator is its k-th counter. Pairing gives each snapshot its
 *   activity, size, op (the producing node), dtype and shape; where the
 *   counts or running totals disagree the rest stay unknown, with a
 *   warning;
 * - the peak is the first largest counter value (AllocationMaximum), and
 *   the rows are timeline.py's set at that tuple: a tuple with bytes < 0
 *   removes its name, any other adds it, so a zero-byte tensor and one
 *   whose last unref equals its creation are never removed (its quirks). */
#include "config.h"

#include "model/formats/chrome_trace/load_trace_timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/util/array_grow.h"


static struct trace_timeline *timeline_of(struct trace_load *load)
{
    if (!load->timeline)
        load->timeline = calloc(1, sizeof *load->timeline);
    return load->timeline;
}

size_t trace_timeline_memory_events(const struct trace_load *load)
{
    return load->timeline ? load->timeline->counter_count : 0;
}

void trace_timeline_free(struct trace_load *load)
{
    struct trace_timeline *timeline = load->timeline;
    if (!timeline)
        return;
    free(timeline->counters);
    free(timeline->processes);
    trace_pair_table_free(&timeline->objects);
    free(timeline->tensors);
    free(timeline);
    load->timeline = NULL;
}

/* ---- taking events ---- */

/* The member of args named as the value `name` (the counter's own name). */
static bool args_member(struct trace_load *load, const struct trace_event *event,
                        struct trace_value name, struct trace_value *member)
{
    const char *text;
    size_t length;
    struct trace_value args = event->member[TRACE_KEY_ARGS];
    if (!trace_value_is_object(&load->reader, args) ||
        !trace_value_text(&load->reader, name, &text, &length, NULL))
        return false;
    char *key = malloc(length + 1);
    if (!key)
        return false;
    memcpy(key, text, length);
    key[length] = '\0';
    const char *names[] = {key};
    const struct trace_keys keys = {names, 1, NULL, NULL, NULL};
    size_t at = args.start;
    bool found = trace_read_object(&load->reader, &at, 2, &keys, member) == LOAD_OK &&
                 trace_value_present(*member);
    free(key);
    return found;
}

enum load_status trace_timeline_take_counter(struct trace_load *load,
                                             const struct trace_event *event)
{
    struct trace_timeline *timeline = timeline_of(load);
    if (!timeline)
        return trace_load_no_memory(load);
    struct timeline_counter counter = {.time_ns = event->time_ns};
    struct trace_value value;
    if (!event->has_time || !args_member(load, event, event->member[TRACE_KEY_NAME], &value) ||
        !trace_value_integer(&load->reader, value, &counter.value)) {
        timeline->unreadable++;
        return LOAD_OK;
    }
    counter.series = trace_load_intern(load, event->member[TRACE_KEY_NAME]);
    if (counter.series == STRING_ID_NONE ||
        !trace_load_id(load, event->member[TRACE_KEY_PID], &counter.pid) ||
        !array_grow((void **)&timeline->counters, &timeline->counter_capacity,
                    timeline->counter_count, sizeof *timeline->counters, 64))
        return trace_load_no_memory(load);
    timeline->counters[timeline->counter_count++] = counter;
    return LOAD_OK;
}

enum load_status trace_timeline_take_process_name(struct trace_load *load,
                                                  const struct trace_event *event)
{
    struct trace_timeline *timeline = timeline_of(load);
    if (!timeline)
        return trace_load_no_memory(load);
    static const char *const names[] = {"name"};
    static const struct trace_keys keys = {names, 1, NULL, NULL, NULL};
    struct trace_value args = event->member[TRACE_KEY_ARGS], name;
    if (!trace_value_is_object(&load->reader, args))
        return LOAD_OK;
    size_t at = args.start;
    enum load_status status = trace_read_object(&load->reader, &at, 2, &keys, &name);
    if (status != LOAD_OK)
        return status;
    struct timeline_process process = {.name = trace_load_intern(load, name)};
    if (process.name == STRING_ID_NONE ||
        !trace_load_id(load, event->member[TRACE_KEY_PID], &process.pid) ||
        !array_grow((void **)&timeline->processes, &timeline->process_capacity,
                    timeline->process_count, sizeof *timeline->processes, 16))
        return trace_load_no_memory(load);
    timeline->processes[timeline->process_count++] = process;
    return LOAD_OK;
}

/* args.snapshot.tensor_description of an O event. */
static enum load_status description_text(struct trace_load *load, const struct trace_event *event,
                                         struct trace_value *text)
{
    static const char *const snapshot_names[] = {"snapshot"};
    static const char *const description_names[] = {"tensor_description"};
    static const struct trace_keys snapshot_keys = {snapshot_names, 1, NULL, NULL, NULL};
    static const struct trace_keys description_keys = {description_names, 1, NULL, NULL, NULL};
    struct trace_value args = event->member[TRACE_KEY_ARGS], snapshot = {0, 0};
    *text = (struct trace_value){0, 0};
    size_t at = args.start;
    if (!trace_value_is_object(&load->reader, args))
        return LOAD_OK;
    enum load_status status = trace_read_object(&load->reader, &at, 2, &snapshot_keys, &snapshot);
    at = snapshot.start;
    if (status == LOAD_OK && trace_value_is_object(&load->reader, snapshot))
        status = trace_read_object(&load->reader, &at, 3, &description_keys, text);
    return status;
}

/* ---- the TensorDescription text ---- */

/* Where a line of the text is: the blocks it is nested in that matter. */
enum description_block { BLOCK_TOP, BLOCK_SHAPE, BLOCK_DIM, BLOCK_ALLOCATION, BLOCK_OTHER };

#define DESCRIPTION_DEPTH 16

struct description {
    enum description_block blocks[DESCRIPTION_DEPTH];
    size_t depth; /* blocks open; past DESCRIPTION_DEPTH they count as other */
    const char *dtype;
    size_t dtype_length;
    bool has_shape;
    int64_t *dims;
    size_t dim_count, dim_capacity;
    const char *allocator;
    size_t allocator_length;
};

static bool text_is(const char *text, size_t length, const char *word)
{
    return strlen(word) == length && memcmp(text, word, length) == 0;
}

static enum description_block description_top(const struct description *description)
{
    if (description->depth == 0)
        return BLOCK_TOP;
    return description->depth <= DESCRIPTION_DEPTH ? description->blocks[description->depth - 1]
                                                   : BLOCK_OTHER;
}

/* "name {": a block opens. */
static bool description_open(struct description *description, const char *name, size_t length)
{
    enum description_block top = description_top(description), block = BLOCK_OTHER;
    if (top == BLOCK_TOP && text_is(name, length, "shape")) {
        block = BLOCK_SHAPE;
        description->has_shape = true;
        description->dim_count = 0;
    } else if (top == BLOCK_SHAPE && text_is(name, length, "dim")) {
        block = BLOCK_DIM;
        if (!array_grow((void **)&description->dims, &description->dim_capacity,
                        description->dim_count, sizeof *description->dims, 8))
            return false;
        description->dims[description->dim_count++] = 0; /* a zero size is not printed */
    } else if (top == BLOCK_TOP && text_is(name, length, "allocation_description")) {
        block = BLOCK_ALLOCATION;
    }
    if (description->depth < DESCRIPTION_DEPTH)
        description->blocks[description->depth] = block;
    description->depth++;
    return true;
}

/* "key: value" inside the current block. */
static void description_field(struct description *description, struct timeline_tensor *tensor,
                              const char *key, size_t key_length, const char *value,
                              size_t value_length)
{
    /* timeline.py deletes every '"'; another writer may have kept them. */
    if (value_length >= 2 && value[0] == '"' && value[value_length - 1] == '"') {
        value++;
        value_length -= 2;
    }
    switch (description_top(description)) {
    case BLOCK_TOP:
        if (text_is(key, key_length, "dtype")) {
            description->dtype = value;
            description->dtype_length = value_length;
        }
        break;
    case BLOCK_DIM:
        if (text_is(key, key_length, "size"))
            trace_text_scaled(value, value_length, 0,
                              &description->dims[description->dim_count - 1]);
        break;
    case BLOCK_ALLOCATION:
        if (text_is(key, key_length, "requested_bytes"))
            trace_text_scaled(value, value_length, 0, &tensor->requested_bytes);
        else if (text_is(key, key_length, "ptr"))
            trace_text_scaled(value, value_length, 0, (int64_t *)&tensor->address);
        else if (text_is(key, key_length, "allocator_name")) {
            description->allocator = value;
            description->allocator_length = value_length;
        }
        break;
    default: break;
    }
}

/* One line; false when memory runs out. */
static bool description_line(struct description *description, struct timeline_tensor *tensor,
                             const char *line, size_t length)
{
    while (length && (*line == ' ' || *line == '\t')) {
        line++;
        length--;
    }
    while (length && (line[length - 1] == ' ' || line[length - 1] == '\r'))
        length--;
    if (length == 1 && line[0] == '}') {
        if (description->depth)
            description->depth--;
        return true;
    }
    const char *colon = memchr(line, ':', length);
    if (length && line[length - 1] == '{' && !colon) {
        size_t name = length - 1;
        while (name && line[name - 1] == ' ')
            name--;
        return description_open(description, line, name);
    }
    if (!colon)
        return true;
    const char *value = colon + 1;
    size_t value_length = length - (size_t)(value - line);
    while (value_length && *value == ' ') {
        value++;
        value_length--;
    }
    description_field(description, tensor, line, (size_t)(colon - line), value, value_length);
    return true;
}

/* "DT_FLOAT" -> "float", as XProf names data types; others as written. */
static uint32_t intern_data_type(struct trace_load *load, const char *text, size_t length)
{
    if (!text)
        return string_table_intern(load->strings, "invalid", 7);
    if (length <= 3 || memcmp(text, "DT_", 3) != 0)
        return string_table_intern(load->strings, text, length);
    char lower[64];
    if (length - 3 >= sizeof lower)
        return string_table_intern(load->strings, text, length);
    for (size_t i = 3; i < length; i++)
        lower[i - 3] = text[i] >= 'A' && text[i] <= 'Z' ? (char)(text[i] - 'A' + 'a') : text[i];
    return string_table_intern(load->strings, lower, length - 3);
}

/* "[d0,d1]", "[]" for a scalar, "unknown" without a shape. */
static uint32_t intern_shape(struct trace_load *load, const struct description *description)
{
    if (!description->has_shape)
        return string_table_intern(load->strings, "unknown", 7);
    size_t size = 3 + description->dim_count * 21;
    char *text = malloc(size);
    if (!text)
        return STRING_ID_NONE;
    size_t used = 0;
    text[used++] = '[';
    for (size_t i = 0; i < description->dim_count; i++)
        used += (size_t)snprintf(text + used, size - used, "%s%lld", i ? "," : "",
                                 (long long)description->dims[i]);
    text[used++] = ']';
    uint32_t id = string_table_intern(load->strings, text, used);
    free(text);
    return id;
}

/* str(TensorDescription) with its quotes deleted, one field a line. */
static enum load_status tensor_describe(struct trace_load *load, struct trace_value value,
                                        struct timeline_tensor *tensor)
{
    const char *text;
    size_t length;
    bool no_memory;
    if (!trace_value_text(&load->reader, value, &text, &length, &no_memory))
        return no_memory ? trace_load_no_memory(load) : LOAD_OK;
    struct description description = {.depth = 0};
    tensor->requested_bytes = 0;
    tensor->address = 0;
    bool ok = true;
    for (const char *end = text + length; ok && text < end;) {
        const char *newline = memchr(text, '\n', (size_t)(end - text));
        size_t line = newline ? (size_t)(newline - text) : (size_t)(end - text);
        ok = description_line(&description, tensor, text, line);
        text += line + (newline ? 1 : 0);
    }
    tensor->allocator = description.allocator
                            ? string_table_intern(load->strings, description.allocator,
                                                  description.allocator_length)
                            : STRING_ID_EMPTY;
    tensor->data_type = intern_data_type(load, description.dtype, description.dtype_length);
    tensor->shape = intern_shape(load, &description);
    free(description.dims);
    if (!ok || tensor->allocator == STRING_ID_NONE || tensor->data_type == STRING_ID_NONE ||
        tensor->shape == STRING_ID_NONE)
        return trace_load_no_memory(load);
    return LOAD_OK;
}

enum load_status trace_timeline_take_object(struct trace_load *load,
                                            const struct trace_event *event, char phase)
{
    if (!trace_value_present(event->member[TRACE_KEY_ID]))
        return LOAD_OK;
    struct trace_timeline *timeline = timeline_of(load);
    struct trace_pair key;
    uint32_t index;
    bool added;
    if (!timeline || !trace_load_id(load, event->member[TRACE_KEY_PID], &key.first) ||
        !trace_load_id(load, event->member[TRACE_KEY_ID], &key.second) ||
        !trace_pair_table_find_or_add(&timeline->objects, &key, &index, &added) ||
        !array_grow((void **)&timeline->tensors, &timeline->tensor_capacity, index,
                    sizeof *timeline->tensors, 64))
        return trace_load_no_memory(load);
    struct timeline_tensor *tensor = &timeline->tensors[index];
    if (added)
        *tensor = (struct timeline_tensor){0};
    if (phase == 'N' && event->has_time) {
        tensor->name = trace_load_intern(load, event->member[TRACE_KEY_NAME]);
        tensor->create_ns = event->time_ns;
        tensor->created = tensor->name != STRING_ID_NONE;
        return tensor->created ? LOAD_OK : trace_load_no_memory(load);
    }
    if (phase == 'D' && event->has_time) {
        tensor->delete_ns = event->time_ns;
        tensor->deleted = true;
        return LOAD_OK;
    }
    if (phase != 'O')
        return LOAD_OK;
    struct trace_value text;
    enum load_status status = description_text(load, event, &text);
    if (status != LOAD_OK || !trace_value_is_string(&load->reader, text))
        return status;
    tensor->described = true;
    return tensor_describe(load, text, tensor);
}

/* ---- finishing ---- */

/* Whether process `i` is named "Allocators" (all of it: "Allocators"
 * and a NUL and more is another name). */
static bool process_is_allocators(struct trace_load *load, const struct trace_timeline *timeline,
                                  size_t i)
{
    return text_equal(string_table_get(load->strings, timeline->processes[i].name),
                      text_of("Allocators"));
}

/* Whether `pid` is named "Allocators". */
static bool allocators_process(struct trace_load *load, const struct trace_timeline *timeline,
                               const struct trace_id *pid)
{
    for (size_t i = 0; i < timeline->process_count; i++)
        if (trace_id_equal(&timeline->processes[i].pid, pid) &&
            process_is_allocators(load, timeline, i))
            return true;
    return false;
}

/* Only the counters of the Allocators process count; when no process
 * has that name (a trace without its metadata), all of them do. */
static bool keep_allocator_counters(struct trace_load *load, struct trace_timeline *timeline)
{
    bool named = false;
    for (size_t i = 0; !named && i < timeline->process_count; i++)
        named = process_is_allocators(load, timeline, i);
    if (!named)
        return trace_load_warn(load, "no process is named Allocators: the Memory counters of "
                                     "every process are read");
    size_t kept = 0;
    for (size_t i = 0; i < timeline->counter_count; i++)
        if (allocators_process(load, timeline, &timeline->counters[i].pid))
            timeline->counters[kept++] = timeline->counters[i];
    timeline->counter_count = kept;
    return true;
}

enum load_status trace_timeline_finish(struct trace_load *load)
{
    struct trace_timeline *timeline = load->timeline;
    if (!timeline || timeline->counter_count == 0)
        return LOAD_OK;
    if (!keep_allocator_counters(load, timeline) ||
        (timeline->unreadable &&
         !trace_load_warn(load, "%zu Memory counters without a ts or a whole value were left out",
                          timeline->unreadable)))
        return trace_load_no_memory(load);
    return trace_timeline_build(load, timeline);
}
