/* json_stream: walking a big JSON document in place, one value at a time.
 *
 * Owns: the outline of a document (an object's members, an array's
 * elements) walked without a tree of the whole text, each value inside
 * handed to cJSON on its own (or, as bytes, to the caller); the syntax
 * errors, at exactly the offsets cJSON gives when it parses the whole
 * text ("offset 5: invalid JSON"); the errors about values, named by their
 * path in the document ("a.b[3].c: expected a string, got 12"); and what a
 * caller asks to tolerate (a document cut short after a whole element, as
 * trace writers that never close their array leave it).
 * Called by: the MemoryProfile JSON loader (load_json.c) and the proto3
 * JSON readers (proto3_json.c); a Chrome trace importer next.
 * Must not: know any schema: what a member means is the callback's. It
 * reads only [text, text + size): no NUL after the text is needed. */
#ifndef MEMTOP_JSON_STREAM_H
#define MEMTOP_JSON_STREAM_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/load_internal.h"

/* Where a value sits in the document: a chain of stack frames from the
 * value up to the root (NULL). Only an error turns it into text, so
 * descending costs three stores. */
struct json_path {
    const struct json_path *parent;
    const char *key; /* member name; NULL for an array element */
    size_t index;
    /* The name's length, which json_stream's walks set: a name may hold
     * a NUL ("c\u0000x"). 0 means up to its NUL (names cJSON parsed
     * inside a value). Read it through json_path_key(). */
    size_t key_length;
};

/* A member's name with its length; the empty text for an element. */
struct text json_path_key(const struct json_path *path);

/* What a walk accepts beyond strict JSON, when its caller asks. */
enum {
    /* The text may end where another element, member or closing bracket
     * would come (after a whole value, or after its comma): every open
     * object and array ends there, as if closed. */
    JSON_STREAM_TOLERATE_UNTERMINATED = 1,
};

struct json_stream {
    const char *text;
    size_t size;
    struct load_error *error;
    struct load_tracker *tracker; /* may be NULL */
    unsigned tolerate;            /* JSON_STREAM_TOLERATE_* */
};

/* Sets cJSON up (an allocator that tells a failed malloc from bad text)
 * and the stream over [text, text + size); error must not be NULL. */
void json_stream_init(struct json_stream *stream, const uint8_t *text, size_t size,
                      struct load_error *error, struct load_tracker *tracker);

/* Where the document's first value starts (after a UTF-8 byte order mark
 * and whitespace), and whether only blanks follow `offset` at its end:
 * LOAD_OK, or "offset N: invalid JSON" at the first byte that is not. */
size_t json_stream_start(const struct json_stream *stream);
enum load_status json_stream_finish(const struct json_stream *stream, size_t offset);

/* "offset N: invalid JSON" (the last byte for an error at the end). */
enum load_status json_stream_fail(const struct json_stream *stream, size_t offset);
/* "JSON nested deeper than 1000 levels at offset N" (valid JSON, maybe,
 * but deeper than cJSON and memtop's scanners go): the bracket at offset. */
#define JSON_STREAM_NESTING_LIMIT CJSON_NESTING_LIMIT
enum load_status json_stream_too_deep(struct load_error *error, size_t offset);
bool json_stream_at(const struct json_stream *stream, size_t offset, char expected);

/* Called for each member of a walked object with its name (NUL-terminated;
 * its whole bytes are json_path_key(path)), its path and
 * the offset of its value, which it moves past the value (by walking it,
 * parsing it, or json_stream_value_span). `depth` is the value's nesting. */
typedef enum load_status (*json_member_fn)(const struct json_stream *stream, void *context,
                                           const char *key, const struct json_path *path,
                                           size_t *offset, size_t depth);
/* The same for each element of a walked array. */
typedef enum load_status (*json_element_fn)(const struct json_stream *stream, void *context,
                                            const struct json_path *path, size_t *offset,
                                            size_t depth);

/* Walks the object (or array) at *offset, whose path is `path`; *offset
 * moves past it. The tracker hears of every member or element done. */
enum load_status json_stream_object(const struct json_stream *stream, size_t *offset,
                                    size_t depth, const struct json_path *path,
                                    json_member_fn member, void *context);
enum load_status json_stream_array(const struct json_stream *stream, size_t *offset, size_t depth,
                                   const struct json_path *path, json_element_fn element,
                                   void *context);

/* The value at *offset parsed alone by cJSON into *item, which the caller
 * deletes; *offset moves past it. */
enum load_status json_stream_parse_value(const struct json_stream *stream, size_t *offset,
                                         size_t depth, cJSON **item);
/* The same, the item named `key` (borrowed: it must outlive the item) as
 * a member is, for readers that look at item->string. */
enum load_status json_stream_member_value(const struct json_stream *stream, size_t *offset,
                                          size_t depth, const char *key, cJSON **item);
/* The bytes of the value at *offset, [*start, *end), for a caller that
 * reads them itself: brackets and strings balance, the rest is unchecked.
 * *offset moves past it. A value that does not end fails as cJSON would. */
enum load_status json_stream_value_span(const struct json_stream *stream, size_t *offset,
                                        size_t depth, size_t *start, size_t *end);

/* ---- errors about values, for readers of what the stream hands out ---- */

/* "a.b[3].c: expected EXPECTED, got VALUE" ("top level" for a NULL path),
 * the file's text in it raw (escaped where it is shown) and cut short. */
enum load_status json_fail(struct load_error *error, const struct json_path *path,
                           const char *expected, const cJSON *value);
enum load_status json_no_memory(struct load_error *error);

#endif
