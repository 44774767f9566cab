/* load_trace_scan: reading trace events from their bytes (see load_trace.h).
 *
 * A big trace is mostly events memtop does not need (python_function
 * slices, kernels, flows): each one costs a walk over its bytes and
 * nothing else. A member's value is located (where it starts and ends)
 * and decoded only when a collector asks for it. Skipping a value checks
 * that its brackets and strings balance, no more: the numbers and
 * literals inside values nobody reads are not validated, as
 * json_stream_value_span() does not validate them either. A table of
 * keys may also say when it has read enough of an object: the rest is
 * then skipped like a value (most events are done once their phase,
 * category and time are known), and name an inner table to read a
 * member's object with as it is walked (a cpu_op's args: walked once).
 * A table lists its keys in the order producers write them: the key
 * after the last one found is tried first. */
#include "config.h"

#include "model/formats/chrome_trace/chrome_trace_internal.h"

#include <stdlib.h>
#include <string.h>

#include "model/decode/json_stream.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* ---- the outline of a value ---- */

/* cJSON's nesting limit, as the rest of the JSON reading keeps it. */
#define TRACE_NESTING_LIMIT CJSON_NESTING_LIMIT

enum byte_class { BYTE_PLAIN = 0, BYTE_QUOTE, BYTE_OPEN_OBJECT, BYTE_OPEN_ARRAY, BYTE_CLOSE };

static const uint8_t byte_classes[256] = {
    ['"'] = BYTE_QUOTE, ['{'] = BYTE_OPEN_OBJECT, ['['] = BYTE_OPEN_ARRAY,
    ['}'] = BYTE_CLOSE, [']'] = BYTE_CLOSE,
};

static enum load_status reader_fail(const struct trace_reader *reader, size_t offset)
{
    if (offset >= reader->size && reader->size > 0)
        offset = reader->size - 1;
    load_error_at(reader->error, offset, "invalid JSON");
    return LOAD_BAD_INPUT;
}

/* JSON's blanks, and the other bytes below the space that cJSON takes as
 * blanks too. */
static size_t skip_blanks(const struct trace_reader *reader, size_t at)
{
    while (at < reader->size && (unsigned char)reader->text[at] <= ' ')
        at++;
    return at;
}

/* Bytes that end the plain run of a string. */
static const bool string_stops[256] = {['"'] = 1, ['\\'] = 1};

#ifdef __SSE2__
/* The first quote or backslash from `at`, 16 bytes at a time; or a place
 * less than 16 bytes before `size` (the plain loop takes it from there). */
static inline size_t string_stop_sse(const unsigned char *text, size_t at, size_t size)
{
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
    for (; at + 16 <= size; at += 16) {
        __m128i chunk = _mm_loadu_si128((const __m128i *)(const void *)(text + at));
        unsigned mask = (unsigned)_mm_movemask_epi8(
            _mm_or_si128(_mm_cmpeq_epi8(chunk, quote), _mm_cmpeq_epi8(chunk, backslash)));
        if (mask)
            return at + (size_t)__builtin_ctz(mask);
    }
    return at;
}
#endif

#ifdef __SSE2__
/* The end of a number or literal from `at`: the first blank (a byte up
 * to the space), bracket, quote, comma or colon, 16 bytes at a time (a
 * ts has 17 digits; about 5% less wall time on a 300 MB PyTorch trace than
 * the byte loop alone, measured). */
static inline size_t scalar_stop_sse(const unsigned char *text, size_t at, size_t size)
{
    const __m128i quote = _mm_set1_epi8('"'), bit5 = _mm_set1_epi8(0x20);
    const __m128i open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}');
    const __m128i comma = _mm_set1_epi8(','), colon = _mm_set1_epi8(':');
    for (; at + 16 <= size; at += 16) {
        __m128i chunk = _mm_loadu_si128((const __m128i *)(const void *)(text + at));
        __m128i folded = _mm_or_si128(chunk, bit5);
        __m128i blank = _mm_cmpeq_epi8(_mm_min_epu8(chunk, bit5), chunk);
        __m128i stops = _mm_or_si128(
            _mm_or_si128(blank, _mm_cmpeq_epi8(chunk, quote)),
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(folded, open), _mm_cmpeq_epi8(folded, close)),
                         _mm_or_si128(_mm_cmpeq_epi8(chunk, comma), _mm_cmpeq_epi8(chunk, colon))));
        unsigned mask = (unsigned)_mm_movemask_epi8(stops);
        if (mask)
            return at + (size_t)__builtin_ctz(mask);
    }
    return at;
}
#endif

/* The closing quote of the string opening at `open`: the first quote not
 * escaped by a backslash (which escapes the byte after it, whatever it
 * is). Strings in traces are short: a loop beats a memchr call; with
 * SSE2, 16 bytes at a time first (9% fewer instructions on a PyTorch
 * trace, measured; the same for the outline's runs between brackets
 * gained nothing, measured twice, the second time 3% slower in wall
 * time though 30 M fewer instructions: those stay plain loops). */
static inline bool string_close(const struct trace_reader *reader, size_t open, size_t *close)
{
    const unsigned char *text = (const unsigned char *)reader->text;
    size_t at = open + 1, size = reader->size;
    for (;;) {
#ifdef __SSE2__
        at = string_stop_sse(text, at, size);
#endif
        while (at < size && !string_stops[text[at]])
            at++;
        if (at >= size)
            return false;
        if (text[at] == '"') {
            *close = at;
            return true;
        }
        at += 2;
    }
}

/* Bytes that can start a number or a literal (cJSON decides, when a
 * value is parsed, whether they make one). */
static const bool scalar_starts[256] = {
    ['-'] = 1, ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1,
    ['7'] = 1, ['8'] = 1, ['9'] = 1, ['t'] = 1, ['f'] = 1, ['n'] = 1,
};

/* The punctuation that ends one (a blank too). */
static const bool scalar_ends[256] = {
    [','] = 1, [':'] = 1, ['"'] = 1, ['{'] = 1, ['['] = 1, ['}'] = 1, [']'] = 1,
};

/* Bytes that continue one: anything but blanks and punctuation. */
static inline bool is_scalar_byte(unsigned char byte)
{
    return byte > ' ' && !scalar_ends[byte];
}

/* An object or array at `at`: past its closing bracket, checking that
 * every bracket closes its own kind. */
static enum load_status skip_nested(const struct trace_reader *reader, size_t *offset,
                                    size_t depth, bool inside_object)
{
    const unsigned char *text = (const unsigned char *)reader->text;
    uint64_t is_object[(TRACE_NESTING_LIMIT + 63) / 64] = {1};
    /* Inside an object already: past its opening brace (depth counts it). */
    size_t level = inside_object, at = *offset, close, size = reader->size;
    depth -= inside_object;
    for (;;) {
        while (at < size && byte_classes[text[at]] == BYTE_PLAIN)
            at++;
        if (at >= size)
            return reader_fail(reader, size);
        unsigned char byte = text[at];
        enum byte_class kind = byte_classes[byte];
        if (kind == BYTE_QUOTE) {
            if (!string_close(reader, at, &close))
                return reader_fail(reader, size);
            at = close + 1;
        } else if (kind == BYTE_CLOSE) {
            if (level == 0)
                return reader_fail(reader, at);
            level--;
            if (((is_object[level / 64] >> (level % 64)) & 1) != (byte == '}'))
                return reader_fail(reader, at);
            at++;
            if (level == 0) {
                *offset = at;
                return LOAD_OK;
            }
        } else {
            if (depth + level >= TRACE_NESTING_LIMIT)
                return json_stream_too_deep(reader->error, at);
            uint64_t bit = (uint64_t)1 << (level % 64);
            if (byte == '{')
                is_object[level / 64] |= bit;
            else
                is_object[level / 64] &= ~bit;
            level++;
            at++;
        }
    }
}

enum load_status trace_skip_value(struct trace_reader *reader, size_t *offset, size_t depth)
{
    size_t at = *offset, close;
    if (at >= reader->size)
        return reader_fail(reader, at);
    unsigned char byte = (unsigned char)reader->text[at];
    if (byte == '"') {
        if (!string_close(reader, at, &close))
            return reader_fail(reader, reader->size);
        *offset = close + 1;
        return LOAD_OK;
    }
    if (byte == '{' || byte == '[')
        return skip_nested(reader, offset, depth, false);
    if (!scalar_starts[byte])
        return reader_fail(reader, at);
    const unsigned char *text = (const unsigned char *)reader->text;
    size_t size = reader->size;
#ifdef __SSE2__
    at = scalar_stop_sse(text, at, size);
#endif
    while (at < size && is_scalar_byte(text[at]))
        at++;
    *offset = at;
    return LOAD_OK;
}

static inline bool key_is(const struct trace_keys *keys, size_t k, const char *text,
                          size_t length)
{
    const char *name = keys->names[k];
    size_t name_length = keys->lengths ? keys->lengths[k] : strlen(name);
    if (name_length != length || name[0] != text[0])
        return false;
    size_t i = 1;
    while (i < length && name[i] == text[i])
        i++;
    return i == length;
}

static int key_find(const struct trace_keys *keys, const char *text, size_t length, size_t *next)
{
    for (size_t k = 0; k < keys->count; k++)
        if (key_is(keys, k, text, length)) {
            *next = k + 1;
            return (int)k;
        }
    return -1;
}

/* key_match's search of the whole table, escapes decoded. */
static int key_search(struct trace_reader *reader, size_t start, size_t end,
                      const struct trace_keys *keys, size_t *next)
{
    const char *text = reader->text + start;
    size_t length = end - start;
    int found = length ? key_find(keys, text, length, next) : -1;
    if (found >= 0 || !memchr(text, '\\', length))
        return found;
    /* An escaped key ("p\u0068") is the same key: decode it first. */
    const char *decoded;
    if (!trace_value_text(reader, (struct trace_value){start - 1, end + 1}, &decoded, &length,
                          NULL) ||
        length == 0)
        return -1;
    return key_find(keys, decoded, length, next);
}

/* Which of `keys` the key [start, end) (a string's inside, escapes and
 * all) names; -1 none. The key after the last one found is tried first
 * (*next): producers write an event's members in one order (Kineto: ph,
 * cat, name, pid, tid, ts, dur, args), and a table listing them in that
 * order finds each in one comparison. */
static inline int key_match(struct trace_reader *reader, size_t start, size_t end,
                            const struct trace_keys *keys, size_t *next)
{
    if (*next < keys->count && key_is(keys, *next, reader->text + start, end - start))
        return (int)(*next)++;
    return key_search(reader, start, end, keys, next);
}

/* Member `key`'s object at *offset read with the keys' inner table, when
 * it has one for it. Quietly (no message): when it fails, the caller
 * skips the member as it would any other, so what a bad object is told
 * as, and when, stays the skipping's. */
static enum load_status read_inner(struct trace_reader *reader, size_t *offset, size_t depth,
                                   const struct trace_keys *keys, int key,
                                   struct trace_value *values)
{
    const struct trace_keys *inner = keys->inner(reader->text, values, key);
    if (!inner)
        return LOAD_BAD_INPUT;
    struct load_error *error = reader->error;
    size_t at = *offset;
    reader->error = NULL;
    enum load_status status = trace_read_object(reader, &at, depth, inner, values + keys->count);
    reader->error = error;
    if (status == LOAD_OK) {
        values[keys->count + inner->count] = (struct trace_value){*offset, at};
        *offset = at;
    }
    return status;
}

enum load_status trace_read_object(struct trace_reader *reader, size_t *offset, size_t depth,
                                   const struct trace_keys *keys, struct trace_value *values)
{
    memset(values, 0, keys->count * sizeof *values);
    if (depth >= TRACE_NESTING_LIMIT)
        return json_stream_too_deep(reader->error, *offset);
    const char *text = reader->text;
    size_t size = reader->size;
    size_t at = skip_blanks(reader, *offset + 1), close, next = 0;
    if (at < size && text[at] == '}') {
        *offset = at + 1;
        return LOAD_OK;
    }
    /* The usual layout, `"key": value, ` or `"key": "text",`, takes the
     * first branch at each step. */
    for (;;) {
        if (at >= size || text[at] != '"')
            return reader_fail(reader, at);
        if (!string_close(reader, at, &close))
            return reader_fail(reader, size);
        int key = key_match(reader, at + 1, close, keys, &next);
        at = close + 1;
        if (at >= size || text[at] != ':') {
            at = skip_blanks(reader, at);
            if (at >= size || text[at] != ':')
                return reader_fail(reader, at);
        }
        at = skip_blanks(reader, at + 1);
        size_t start = at;
        if (at < size && text[at] == '"') {
            if (!string_close(reader, at, &close))
                return reader_fail(reader, size);
            at = close + 1;
        } else {
            enum load_status status = LOAD_BAD_INPUT;
            if (key >= 0 && keys->inner && at < size && text[at] == '{')
                status = read_inner(reader, &at, depth + 1, keys, key, values);
            if (status != LOAD_OK)
                status = trace_skip_value(reader, &at, depth + 1);
            if (status != LOAD_OK)
                return status;
        }
        if (key >= 0) {
            values[key] = (struct trace_value){start, at};
            if (keys->enough && keys->enough(text, values)) {
                *offset = at;
                return skip_nested(reader, offset, depth + 1, true);
            }
        }
        if (at >= size || text[at] != ',')
            at = skip_blanks(reader, at);
        if (at < size && text[at] == ',') {
            at = skip_blanks(reader, at + 1);
            continue;
        }
        if (at < size && text[at] == '}') {
            *offset = at + 1;
            return LOAD_OK;
        }
        return reader_fail(reader, at);
    }
}

enum load_status trace_for_each_element(struct trace_reader *reader, struct trace_value array,
                                        size_t depth, trace_element_fn element, void *context)
{
    if (!trace_value_present(array) || reader->text[array.start] != '[')
        return LOAD_OK;
    size_t at = skip_blanks(reader, array.start + 1);
    if (at < array.end && reader->text[at] == ']')
        return LOAD_OK;
    for (;;) {
        size_t start = at;
        enum load_status status = trace_skip_value(reader, &at, depth + 1);
        if (status == LOAD_OK)
            status = element(context, (struct trace_value){start, at});
        if (status != LOAD_OK)
            return status;
        at = skip_blanks(reader, at);
        if (at >= array.end || reader->text[at] != ',')
            return at < array.end && reader->text[at] == ']' ? LOAD_OK : reader_fail(reader, at);
        at = skip_blanks(reader, at + 1);
    }
}
