/* load_trace_kineto_shapes: a cpu_op's `Input Dims` and `Input type`
 * (recorded with record_shapes=True) as the shape and the type of the
 * memory its allocations hold (issue 22): the allocating op's inputs are
 * what a PyTorch user reads to tell one aten::mm from another.
 *
 * Kineto writes them as JSON arrays, `"Input Dims": [[256, 10], []]`,
 * `"Input type": ["float", "Scalar"]`; the shape is the array's text
 * with its whitespace between values made ", " (`[[256, 10], []]`), the
 * type the names without quotes or brackets (`float, Scalar`), each cut at
 * SHAPE_TEXT_MAX bytes; dims without a number (`[[], []]`: scalars and
 * lists, empty_strided's inputs) are no shape. The bytes stay as the file had them otherwise:
 * the views escape them.
 *
 * Called by load_trace_kineto.c as it takes a cpu_op. Must not: keep
 * anything of the event's text, or decode strings (the names are
 * shown, never interpreted). */
#include "config.h"

#include "model/formats/chrome_trace/load_trace_kineto.h"

#include <string.h>

#include "model/string_table.h"

#define SHAPE_TEXT_MAX 200

enum { ARG_INPUT_DIMS, ARG_INPUT_TYPE, ARG_SHAPE_COUNT };
static const char *const shape_arg_names[ARG_SHAPE_COUNT] = {
    [ARG_INPUT_DIMS] = "Input Dims",
    [ARG_INPUT_TYPE] = "Input type",
};

static bool is_space(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* The value's text, whitespace dropped and ", " after each comma; the
 * type's without quotes or its outer brackets. */
static size_t compact(const char *text, size_t length, bool names, char *out)
{
    size_t used = 0;
    if (names && length >= 2 && text[0] == '[' && text[length - 1] == ']') {
        text++;
        length -= 2;
    }
    bool quoted = false; /* inside a name: its spaces are its own ("long int") */
    for (size_t i = 0; i < length && used < SHAPE_TEXT_MAX; i++) {
        char c = text[i];
        if (c == '"' && (i == 0 || text[i - 1] != '\\'))
            quoted = !quoted;
        if ((!quoted && is_space(c)) || (names && c == '"'))
            continue;
        out[used++] = c;
        if (c == ',' && used < SHAPE_TEXT_MAX)
            out[used++] = ' ';
    }
    return used;
}

/* value's compact text, interned; STRING_ID_EMPTY for none. */
static uint32_t intern_compact(struct trace_load *load, struct trace_value value, bool names)
{
    if (value.end <= value.start || load->reader.text[value.start] != '[')
        return STRING_ID_EMPTY;
    char text[SHAPE_TEXT_MAX];
    size_t length =
        compact(load->reader.text + value.start, value.end - value.start, names, text);
    /* Dims without a number ("[[], []]": scalars, lists) say nothing. */
    bool any = names;
    for (size_t i = 0; !any && i < length; i++)
        any = text[i] >= '0' && text[i] <= '9';
    return length && any ? string_table_intern(load->strings, text, length) : STRING_ID_EMPTY;
}

enum load_status trace_kineto_op_shapes(struct trace_load *load, const struct trace_event *event,
                                        uint32_t *shape, uint32_t *type)
{
    *shape = *type = STRING_ID_EMPTY;
    struct trace_value args_value = event->member[TRACE_KEY_ARGS];
    if (!trace_value_is_object(&load->reader, args_value))
        return LOAD_OK;
    struct trace_value args[ARG_SHAPE_COUNT] = {{0, 0}};
    size_t at = args_value.start;
    static const struct trace_keys keys = {shape_arg_names, ARG_SHAPE_COUNT, NULL, NULL};
    enum load_status status = trace_read_object(&load->reader, &at, 2, &keys, args);
    if (status != LOAD_OK)
        return status;
    *shape = intern_compact(load, args[ARG_INPUT_DIMS], false);
    *type = intern_compact(load, args[ARG_INPUT_TYPE], true);
    if (*shape == STRING_ID_NONE || *type == STRING_ID_NONE)
        return trace_load_no_memory(load);
    return LOAD_OK;
}
