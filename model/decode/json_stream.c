/* json_stream: see json_stream.h.
 *
 * A big document is a few small objects around one to a few huge arrays.
 * Parsed whole, cJSON holds a tree of six times the file. So the outline
 * is walked here in place and every value inside it, one snapshot say, is
 * handed to cJSON on its own. Memory is one value's tree.
 *
 * Errors read as they do when cJSON parses the whole text: the outline
 * follows cJSON's rules (what is whitespace, how deep it nests, the offset
 * it names for each kind of error), and a value parsed alone gets its
 * offsets moved back into the document. Reading goes in document order,
 * so a wrong value before a syntax error is the error reported. */
#include "config.h"

#include "model/decode/json_stream.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/decode/json_string.h"
#include "model/message_text.h"

/* ---- errors about values ---- */

static void message_append_path(struct message_text *message, const struct json_path *path)
{
    if (!path)
        return;
    message_append_path(message, path->parent);
    if (path->key) {
        if (path->parent)
            message_text_append_text(message, ".");
        message_text_append_cut(message, json_path_key(path), 64);
    } else {
        char index[32];
        snprintf(index, sizeof index, "[%zu]", path->index);
        message_text_append_text(message, index);
    }
}

static void message_append_value(struct message_text *message, const cJSON *value)
{
    char number[40];
    if (cJSON_IsString(value)) {
        message_text_append_text(message, "\"");
        message_text_append_cut(message, json_string_text(value), 40);
        message_text_append_text(message, "\"");
    } else if (cJSON_IsNumber(value)) {
        snprintf(number, sizeof number, "%.15g", value->valuedouble);
        if (strtod(number, NULL) != value->valuedouble)
            snprintf(number, sizeof number, "%.17g", value->valuedouble);
        message_text_append_text(message, number);
    } else if (cJSON_IsObject(value)) {
        message_text_append_text(message, "an object");
    } else if (cJSON_IsArray(value)) {
        message_text_append_text(message, "an array");
    } else if (cJSON_IsTrue(value)) {
        message_text_append_text(message, "true");
    } else if (cJSON_IsFalse(value)) {
        message_text_append_text(message, "false");
    } else {
        message_text_append_text(message, "null");
    }
}

enum load_status json_fail(struct load_error *error, const struct json_path *path,
                           const char *expected, const cJSON *value)
{
    struct message_text message;
    message_text_start(&message, error->message, sizeof error->message);
    error->has_offset = false;
    if (path)
        message_append_path(&message, path);
    else
        message_text_append_text(&message, "top level");
    message_text_append_text(&message, ": expected ");
    message_text_append_text(&message, expected);
    message_text_append_text(&message, ", got ");
    message_append_value(&message, value);
    error->message_length = message.length;
    return LOAD_BAD_INPUT;
}

struct text json_path_key(const struct json_path *path)
{
    if (!path->key)
        return text_make("", 0);
    return path->key_length ? text_make(path->key, path->key_length) : text_of(path->key);
}

enum load_status json_no_memory(struct load_error *error)
{
    load_error_set(error, "out of memory");
    return LOAD_NO_MEMORY;
}

/* ---- cJSON ---- */

/* cJSON reports a failed malloc as a failed parse; this tells them apart. */
static _Thread_local bool json_allocation_failed;

static void *json_allocate(size_t size)
{
    void *memory = malloc(size);
    if (!memory)
        json_allocation_failed = true;
    return memory;
}

/* cJSON's hooks are global: set once, since hosts load on several
 * threads at a time (model/host_loader.h). */
static void json_hooks_install(void)
{
    cJSON_InitHooks(&(cJSON_Hooks){.malloc_fn = json_allocate, .free_fn = free});
}

void json_stream_init(struct json_stream *stream, const uint8_t *text, size_t size,
                      struct load_error *error, struct load_tracker *tracker)
{
    static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;
    pthread_once(&hooks_once, json_hooks_install);
    *stream = (struct json_stream){(const char *)text, size, error, tracker, 0};
}

/* ---- the outline ---- */

#define JSON_NESTING_LIMIT CJSON_NESTING_LIMIT

enum load_status json_stream_fail(const struct json_stream *stream, size_t offset)
{
    /* cJSON names the last byte for an error at the end of the text. */
    if (offset >= stream->size && stream->size > 0)
        offset = stream->size - 1;
    load_error_at(stream->error, offset, "invalid JSON");
    return LOAD_BAD_INPUT;
}

enum load_status json_stream_too_deep(struct load_error *error, size_t offset)
{
    if (error) {
        load_error_set(error, "JSON nested deeper than %d levels at offset %zu",
                       JSON_STREAM_NESTING_LIMIT, offset);
        error->offset = offset;
        error->has_offset = true;
    }
    return LOAD_BAD_INPUT;
}

bool json_stream_at(const struct json_stream *stream, size_t offset, char expected)
{
    return offset < stream->size && stream->text[offset] == expected;
}

/* cJSON's whitespace is every byte up to the space; reaching the end, it
 * stops on the last byte, and so errors there name the last byte. */
static size_t stream_skip_whitespace(const struct json_stream *stream, size_t offset)
{
    if (offset >= stream->size)
        return offset;
    while (offset < stream->size && (unsigned char)stream->text[offset] <= ' ')
        offset++;
    return offset == stream->size ? offset - 1 : offset;
}

/* Whether only whitespace is left from `offset` (as stream_skip_whitespace
 * leaves it) and the caller tolerates a document that stops there. */
static bool stream_ends_here(const struct json_stream *stream, size_t offset)
{
    if (!(stream->tolerate & JSON_STREAM_TOLERATE_UNTERMINATED))
        return false;
    return offset >= stream->size ||
           (offset + 1 == stream->size && (unsigned char)stream->text[offset] <= ' ');
}

/* The closing quote of the string opening at `offset`: the first quote
 * not escaped, that is not after an odd run of backslashes (cJSON skips
 * the byte after each backslash). False when the text ends first. */
static bool scan_string_end(const struct json_stream *stream, size_t offset, size_t *close)
{
    const char *text = stream->text;
    size_t from = offset + 1;
    while (from < stream->size) {
        const char *quote = memchr(text + from, '"', stream->size - from);
        if (!quote)
            return false;
        size_t at = (size_t)(quote - text);
        size_t backslashes = 0;
        while (at - backslashes > offset + 1 && text[at - backslashes - 1] == '\\')
            backslashes++;
        if (backslashes % 2 == 0) {
            *close = at;
            return true;
        }
        from = at + 1;
    }
    return false;
}

/* Bytes that continue a number or a literal; cJSON decides if they make one. */
static bool scan_is_scalar_byte(char byte)
{
    return (unsigned char)byte > ' ' && !strchr("{}[],:\"", byte);
}

/* What a value can start with; anything else is an error right there. */
static bool scan_is_value_start(char byte)
{
    return byte != '\0' && strchr("\"{[-0123456789tfn", byte);
}

enum scan_end {
    SCAN_COMPLETE,   /* [offset, end) holds a value (cJSON checks its inside) */
    SCAN_INCOMPLETE, /* the text ends inside it */
    SCAN_MISMATCH,   /* a closing bracket at `end` closes the wrong kind */
    SCAN_TOO_DEEP,   /* the bracket at `end` nests past cJSON's limit */
};

/* Brackets whose kind the stream remembers: one bit each. */
#define SCAN_STACK_WORDS ((JSON_NESTING_LIMIT + 63) / 64)

/* Where the value at `offset` (nested `depth` deep) ends, from its
 * brackets and strings alone. */
static enum scan_end scan_value_end(const struct json_stream *stream, size_t offset,
                                    size_t depth, size_t *end)
{
    const char *text = stream->text;
    size_t close;
    *end = stream->size;
    if (text[offset] == '"') {
        if (!scan_string_end(stream, offset, &close))
            return SCAN_INCOMPLETE;
        *end = close + 1;
        return SCAN_COMPLETE;
    }
    if (text[offset] != '{' && text[offset] != '[') {
        size_t at = offset;
        while (at < stream->size && scan_is_scalar_byte(text[at]))
            at++;
        *end = at;
        return SCAN_COMPLETE;
    }
    uint64_t is_object[SCAN_STACK_WORDS] = {0};
    size_t level = 0;
    for (size_t at = offset; at < stream->size; at++) {
        char byte = text[at];
        if (byte == '"') {
            if (!scan_string_end(stream, at, &close))
                return SCAN_INCOMPLETE;
            at = close;
        } else if (byte == '{' || byte == '[') {
            if (depth + level >= JSON_NESTING_LIMIT) {
                *end = at;
                return SCAN_TOO_DEEP;
            }
            uint64_t bit = (uint64_t)1 << (level % 64);
            is_object[level / 64] = byte == '{' ? is_object[level / 64] | bit
                                                : is_object[level / 64] & ~bit;
            level++;
        } else if (byte == '}' || byte == ']') {
            level--;
            bool object = (is_object[level / 64] >> (level % 64)) & 1;
            if (object != (byte == '}')) {
                *end = at;
                return SCAN_MISMATCH;
            }
            if (level == 0) {
                *end = at + 1;
                return SCAN_COMPLETE;
            }
        }
    }
    return SCAN_INCOMPLETE;
}

/* cJSON on the bytes [start, end) alone. On success *item is the value and
 * *stop the offset after it; on failure *stop is where cJSON stopped. */
static enum load_status scan_cjson(const struct json_stream *stream, size_t start, size_t end,
                                   cJSON **item, size_t *stop)
{
    const char *text = stream->text + start;
    size_t length = end - start;
    char *copy = NULL;
    /* cJSON 1.7.15 may read a byte past the length on a value cut short,
     * and past the text's end there may be no byte at all. */
    if (end == stream->size) {
        copy = malloc(length + 1);
        if (!copy)
            return json_no_memory(stream->error);
        memcpy(copy, text, length);
        copy[length] = '\0';
        text = copy;
    }
    json_allocation_failed = false;
    const char *parse_end = NULL;
    *item = cJSON_ParseWithLengthOpts(text, length, &parse_end, false);
    *stop = start + (parse_end ? (size_t)(parse_end - text) : 0);
    free(copy);
    if (!*item && json_allocation_failed)
        return json_no_memory(stream->error);
    return LOAD_OK;
}

enum load_status json_stream_parse_value(const struct json_stream *stream, size_t *offset,
                                         size_t depth, cJSON **item)
{
    size_t start = *offset;
    *item = NULL;
    if (start >= stream->size || !scan_is_value_start(stream->text[start]))
        return json_stream_fail(stream, start);
    size_t end;
    enum scan_end kind = scan_value_end(stream, start, depth, &end);
    /* cJSON names the byte after a missing key ("{"a":1,}" fails one past
     * the brace), so it gets one byte more than the value, two past a
     * wrong bracket; at a bracket too deep it stops at that bracket. */
    size_t parse_end = end;
    if (kind == SCAN_COMPLETE || kind == SCAN_MISMATCH) {
        size_t extra = kind == SCAN_COMPLETE ? 1 : 2;
        parse_end = stream->size - end > extra ? end + extra : stream->size;
    } else if (kind == SCAN_TOO_DEEP) {
        parse_end = end + 1;
    }
    size_t stop;
    enum load_status status = scan_cjson(stream, start, parse_end, item, &stop);
    if (status != LOAD_OK)
        return status;
    if (kind == SCAN_COMPLETE && *item && stop == end) {
        if (json_text_may_hold_nul(stream->text + start, end - start))
            json_string_mark_lengths(*item, stream->text + start, end - start);
        *offset = end;
        return LOAD_OK;
    }
    cJSON_Delete(*item);
    *item = NULL;
    if (kind == SCAN_TOO_DEEP && stop >= end)
        return json_stream_too_deep(stream->error, end);
    return json_stream_fail(stream, stop);
}

/* A member's name: the string at *offset, unescaped by cJSON, and its
 * length (it may hold a NUL). */
static enum load_status scan_key(const struct json_stream *stream, size_t *offset, cJSON **key,
                                 size_t *key_length)
{
    size_t start = *offset, close;
    *key = NULL;
    /* cJSON names the byte after a key that is no string. */
    if (!json_stream_at(stream, start, '"'))
        return json_stream_fail(stream, start + 1);
    size_t end = scan_string_end(stream, start, &close) ? close + 1 : stream->size;
    size_t stop;
    enum load_status status = scan_cjson(stream, start, end, key, &stop);
    if (status != LOAD_OK)
        return status;
    if (!*key || stop != end) {
        cJSON_Delete(*key);
        *key = NULL;
        return json_stream_fail(stream, stop);
    }
    const char *token = stream->text + start;
    *key_length = json_text_may_hold_nul(token, end - start)
                      ? json_string_decoded_length(token, end - start)
                      : strlen((*key)->valuestring);
    *offset = end;
    return LOAD_OK;
}

/* The start of an object or array at *offset, as cJSON takes it: true
 * when empty (and *offset is past it), or, tolerated, cut off right there. */
static enum load_status scan_open(const struct json_stream *stream, size_t *offset,
                                  size_t depth, char close, bool *empty)
{
    if (depth >= JSON_NESTING_LIMIT)
        return json_stream_too_deep(stream->error, *offset);
    size_t at = stream_skip_whitespace(stream, *offset + 1);
    if (stream_ends_here(stream, at)) {
        *empty = true;
        *offset = stream->size;
        return LOAD_OK;
    }
    *empty = json_stream_at(stream, at, close);
    if (*empty) {
        *offset = at + 1;
        return LOAD_OK;
    }
    if (at >= stream->size)
        return json_stream_fail(stream, at - 1);
    *offset = at - 1; /* before the first member, like after a comma */
    return LOAD_OK;
}

/* After a member or element: a comma (true: another follows) or the
 * closing bracket (*offset moves past it); or, tolerated, the end. */
static enum load_status scan_next(const struct json_stream *stream, size_t *offset, char close,
                                  bool *more)
{
    size_t at = stream_skip_whitespace(stream, *offset);
    *more = json_stream_at(stream, at, ',');
    if (stream_ends_here(stream, *more ? stream_skip_whitespace(stream, at + 1) : at)) {
        *more = false;
        *offset = stream->size;
        return LOAD_OK;
    }
    if (*more) {
        *offset = at;
        return LOAD_OK;
    }
    if (!json_stream_at(stream, at, close))
        return json_stream_fail(stream, at);
    *offset = at + 1;
    return LOAD_OK;
}

/* What a walk calls: member for an object's members, element for an
 * array's elements. */
struct stream_walk {
    const struct json_path *path;
    json_member_fn member;
    json_element_fn element;
    void *context;
};

/* One member at *at: its name, the colon, then the callback on its value. */
static enum load_status walk_member(const struct json_stream *stream,
                                    const struct stream_walk *walk, size_t *at, size_t depth)
{
    cJSON *key;
    size_t key_length;
    enum load_status status = scan_key(stream, at, &key, &key_length);
    if (status != LOAD_OK)
        return status;
    *at = stream_skip_whitespace(stream, *at);
    if (!json_stream_at(stream, *at, ':')) {
        cJSON_Delete(key);
        return json_stream_fail(stream, *at);
    }
    *at = stream_skip_whitespace(stream, *at + 1);
    struct json_path member_path = {walk->path, key->valuestring, 0, key_length};
    status = walk->member(stream, walk->context, key->valuestring, &member_path, at, depth + 1);
    cJSON_Delete(key);
    return status;
}

/* The object or array at *offset, one member or element at a time. */
static enum load_status stream_walk(const struct json_stream *stream, size_t *offset,
                                    size_t depth, char close, const struct stream_walk *walk)
{
    bool empty, more = true;
    enum load_status status = scan_open(stream, offset, depth, close, &empty);
    for (size_t index = 0; status == LOAD_OK && !empty && more; index++) {
        size_t at = stream_skip_whitespace(stream, *offset + 1);
        struct json_path element_path = {walk->path, NULL, index, 0};
        status = walk->member ? walk_member(stream, walk, &at, depth)
                              : walk->element(stream, walk->context, &element_path, &at,
                                              depth + 1);
        if (status == LOAD_OK)
            status = scan_next(stream, &at, close, &more);
        *offset = at;
        load_tracker_advance(stream->tracker, at);
    }
    return status;
}

enum load_status json_stream_object(const struct json_stream *stream, size_t *offset,
                                    size_t depth, const struct json_path *path,
                                    json_member_fn member, void *context)
{
    const struct stream_walk walk = {path, member, NULL, context};
    return stream_walk(stream, offset, depth, '}', &walk);
}

enum load_status json_stream_array(const struct json_stream *stream, size_t *offset,
                                   size_t depth, const struct json_path *path,
                                   json_element_fn element, void *context)
{
    const struct stream_walk walk = {path, NULL, element, context};
    return stream_walk(stream, offset, depth, ']', &walk);
}

enum load_status json_stream_member_value(const struct json_stream *stream, size_t *offset,
                                          size_t depth, const char *key, cJSON **item)
{
    enum load_status status = json_stream_parse_value(stream, offset, depth, item);
    if (status == LOAD_OK) {
        /* Borrowed: cJSON_Delete leaves a constant name alone. */
        (*item)->string = (char *)key;
        (*item)->type |= cJSON_StringIsConst;
    }
    return status;
}

enum load_status json_stream_value_span(const struct json_stream *stream, size_t *offset,
                                        size_t depth, size_t *start, size_t *end)
{
    size_t from = *offset, until;
    if (from < stream->size && scan_is_value_start(stream->text[from]) &&
        scan_value_end(stream, from, depth, &until) == SCAN_COMPLETE && until > from) {
        *start = from;
        *end = *offset = until;
        return LOAD_OK;
    }
    /* cJSON names the place where the value goes wrong. */
    cJSON *item;
    enum load_status status = json_stream_parse_value(stream, offset, depth, &item);
    cJSON_Delete(item);
    *start = from;
    *end = *offset;
    return status;
}

size_t json_stream_start(const struct json_stream *stream)
{
    size_t offset = 0;
    if (stream->size > 4 && memcmp(stream->text, "\xef\xbb\xbf", 3) == 0)
        offset = 3;
    return stream_skip_whitespace(stream, offset);
}

/* The only blanks allowed after the document (cJSON's own rule inside it
 * is wider, see stream_skip_whitespace). */
enum load_status json_stream_finish(const struct json_stream *stream, size_t offset)
{
    while (offset < stream->size &&
           (stream->text[offset] == ' ' || stream->text[offset] == '\t' ||
            stream->text[offset] == '\n' || stream->text[offset] == '\r'))
        offset++;
    if (offset == stream->size)
        return LOAD_OK;
    load_error_at(stream->error, offset, "invalid JSON");
    return LOAD_BAD_INPUT;
}
