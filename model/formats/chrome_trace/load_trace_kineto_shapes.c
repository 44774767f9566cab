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
 * Called by load_trace_kineto.c as it takes a cpu_op, with the two
 * values the event reader found as it walked the args (load_trace.c
 * names the keys as its inner table), or reads them itself. Must not: keep
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
static const uint8_t shape_arg_lengths[ARG_SHAPE_COUNT] = {10, 10};

/* The event reader reads a cpu_op's args with these as it walks them
 * (load_trace.c's inner table), so they are walked once. */
const struct trace_keys trace_kineto_op_arg_keys = {shape_arg_names, ARG_SHAPE_COUNT,
                                                    shape_arg_lengths, NULL, NULL};

static bool is_space(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* The bytes compact() looks at; the rest are copied as they are. */
static const bool compact_stops[256] = {
    [' '] = 1, ['\n'] = 1, ['\r'] = 1, ['\t'] = 1, ['"'] = 1, [','] = 1,
};

/* Byte i of text onto out at used; the new used. `capped`: the cap may
 * be reached (not in a short value: each byte makes at most two). */
static inline size_t compact_byte(const char *text, size_t i, bool names, bool *quoted,
                                  char *out, size_t used, bool capped)
{
    char c = text[i];
    if (!compact_stops[(unsigned char)c]) {
        out[used] = c;
        return used + 1;
    }
    if (c == '"' && (i == 0 || text[i - 1] != '\\'))
        *quoted = !*quoted;
    if ((!*quoted && is_space(c)) || (names && c == '"'))
        return used;
    out[used++] = c;
    if (c == ',' && (!capped || used < SHAPE_TEXT_MAX))
        out[used++] = ' ';
    return used;
}

/* The value's text, whitespace dropped and ", " after each comma; the
 * type's without quotes or its outer brackets. */
static size_t compact(const char *text, size_t length, bool names, char *out)
{
    size_t used = 0, i = 0;
    if (names && length >= 2 && text[0] == '[' && text[length - 1] == ']') {
        text++;
        length -= 2;
    }
    bool quoted = false; /* inside a name: its spaces are its own ("long int") */
    if (2 * length <= SHAPE_TEXT_MAX)
        for (; i < length; i++)
            used = compact_byte(text, i, names, &quoted, out, used, false);
    for (; i < length && used < SHAPE_TEXT_MAX; i++)
        used = compact_byte(text, i, names, &quoted, out, used, true);
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
    struct trace_value read = event->member[TRACE_ARGS_READ];
    if (read.start == args_value.start && read.end == args_value.end) {
        args[ARG_INPUT_DIMS] = event->member[TRACE_ARG_INPUT_DIMS];
        args[ARG_INPUT_TYPE] = event->member[TRACE_ARG_INPUT_TYPE];
    } else {
        /* Not read as the event was (its category after its args, or
         * escaped; or args that the walk's reading refused). */
        size_t at = args_value.start;
        enum load_status status =
            trace_read_object(&load->reader, &at, 2, &trace_kineto_op_arg_keys, args);
        if (status != LOAD_OK)
            return status;
    }
    *shape = intern_compact(load, args[ARG_INPUT_DIMS], false);
    *type = intern_compact(load, args[ARG_INPUT_TYPE], true);
    if (*shape == STRING_ID_NONE || *type == STRING_ID_NONE)
        return trace_load_no_memory(load);
    return LOAD_OK;
}
