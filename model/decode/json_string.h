/* json_string: JSON strings with every byte they decode to, NUL included.
 *
 * cJSON decodes "c\u0000x" into the bytes c, NUL, x but hands them out
 * NUL-terminated, so a reader taking strlen() would see "c": two map keys
 * "c\u0000x" and "c\u0000y" would merge into one allocator "c", and an op
 * "a\u0000b" would read as "a". This module gives such strings their
 * length back. Values that may hold a NUL (a raw NUL byte or a \u0000
 * escape in their text; almost none do) have the strings of their cJSON
 * tree measured from the text, in document order, and a string that
 * holds a NUL keeps its length in its item's valueint, which cJSON
 * leaves 0 for strings; json_string_text() reads it back.
 * Called by: json_stream (every value it parses, every member name it
 * reads), and the readers of string values (proto3_json, load_json).
 * Must not: parse: cJSON has parsed the value and the stream has checked
 * it; this only counts the bytes cJSON wrote. */
#ifndef MEMTOP_JSON_STRING_H
#define MEMTOP_JSON_STRING_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "model/util/text.h"

/* Whether the JSON text [text, text + length) may decode to a string
 * holding a NUL: it has a NUL byte or a \u0000 escape. */
bool json_text_may_hold_nul(const char *text, size_t length);

/* The number of bytes cJSON decodes the string literal at token (its
 * opening quote; `length` bytes, the closing quote included) into. */
size_t json_string_decoded_length(const char *token, size_t length);

/* Gives each string of `item`, which cJSON parsed from the JSON text
 * [text, text + length), that holds a NUL its length (member names
 * aside). Call only when json_text_may_hold_nul() says so. */
void json_string_mark_lengths(cJSON *item, const char *text, size_t length);

/* The bytes of a cJSON string value, with their length. */
struct text json_string_text(const cJSON *item);

#endif
