/* json_writer: compact JSON on a FILE*, one value at a time, for the
 * reports scripts read (--summary --json today; --list --json and the
 * Chrome-trace export later). Commas and colons are placed for the
 * caller; no whitespace is written.
 *
 * Strings are always valid JSON and safe on a terminal, whatever bytes a
 * profile holds: quotes and backslashes escaped, invalid UTF-8 replaced
 * by U+FFFD, and the code points model/format.h calls unsafe (C0 and C1
 * controls, DEL, the bidirectional controls U+202E and kin) written as
 * \uXXXX escapes, the same set the text reports escape. Integers are
 * exact (no trip through double); doubles are the shortest that read
 * back the same, and NaN and the infinities, which JSON lacks, are null.
 *
 * Write errors are sticky, as in csv_writer: the first failure's errno
 * is kept and json_writer_finish() reports it. It must not decide what a
 * report contains, only how it is spelled. */
#ifndef MEMTOP_JSON_WRITER_H
#define MEMTOP_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/util/text.h"

/* Objects and arrays nested deeper than this are a caller's bug: the
 * writer stops placing commas correctly past it (reports nest 4 deep). */
#define JSON_WRITER_DEPTH_MAX 32

struct json_writer {
    FILE *out;
    unsigned depth;
    bool has_member[JSON_WRITER_DEPTH_MAX]; /* a value written at this depth */
    bool after_key;                        /* the next value follows a key */
    int error;                             /* errno of the first failed write */
};

void json_writer_init(struct json_writer *writer, FILE *out);

void json_writer_object_begin(struct json_writer *writer);
void json_writer_object_end(struct json_writer *writer);
void json_writer_array_begin(struct json_writer *writer);
void json_writer_array_end(struct json_writer *writer);
/* An object member's name; the value comes next. */
void json_writer_key(struct json_writer *writer, const char *name);

/* A profile's text, NUL bytes and all ("\u0000"); json_writer_string is
 * for our own NUL-terminated text. */
void json_writer_bytes(struct json_writer *writer, struct text text);
void json_writer_string(struct json_writer *writer, const char *text);
void json_writer_int(struct json_writer *writer, int64_t value);
void json_writer_unsigned(struct json_writer *writer, uint64_t value);
void json_writer_double(struct json_writer *writer, double value);
void json_writer_bool(struct json_writer *writer, bool value);
void json_writer_null(struct json_writer *writer);

/* A member of an object: json_writer_key(), then the value. */
void json_writer_member_bytes(struct json_writer *writer, const char *name, struct text text);
void json_writer_member_string(struct json_writer *writer, const char *name, const char *text);
void json_writer_member_int(struct json_writer *writer, const char *name, int64_t value);
void json_writer_member_unsigned(struct json_writer *writer, const char *name, uint64_t value);
void json_writer_member_double(struct json_writer *writer, const char *name, double value);
void json_writer_member_bool(struct json_writer *writer, const char *name, bool value);

/* Flushes the stream; 0 when everything reached it, else the errno of
 * the first failure. */
int json_writer_finish(struct json_writer *writer);

/* A JSON string literal for text, straight to a stream (no writer). */
void json_write_string(FILE *out, const char *text);

#endif
