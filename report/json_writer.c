#include "config.h"

#include "report/json_writer.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "model/format.h"

/* ---- strings ---- */

/* Where escaped bytes go: a writer (errors kept) or a bare stream. */
typedef void put_fn(void *sink, const char *bytes, size_t length);

/* Writes text (any bytes, NUL included: "\u0000") as a JSON string
 * literal through put. */
static void escape_string(struct text text, put_fn *put, void *sink)
{
    put(sink, "\"", 1);
    const char *in = text.bytes;
    size_t left = text.length;
    while (left > 0) {
        uint32_t code_point;
        size_t length = format_utf8_decode_bytes(in, left, &code_point);
        char escape[8];
        if (length == 0) {
            put(sink, "\\ufffd", 6); /* invalid UTF-8 */
            length = 1;
        } else if (code_point == '"' || code_point == '\\') {
            escape[0] = '\\';
            escape[1] = (char)code_point;
            put(sink, escape, 2);
        } else if (format_is_unsafe_code_point(code_point)) {
            /* Every unsafe code point is below U+10000: one \u escape. */
            snprintf(escape, sizeof escape, "\\u%04" PRIx32, code_point);
            put(sink, escape, 6);
        } else {
            put(sink, in, length);
        }
        in += length;
        left -= length;
    }
    put(sink, "\"", 1);
}

static void put_file(void *sink, const char *bytes, size_t length)
{
    fwrite(bytes, 1, length, (FILE *)sink);
}

void json_write_string(FILE *out, const char *text)
{
    escape_string(text_of(text), put_file, out);
}

/* ---- the writer ---- */

void json_writer_init(struct json_writer *writer, FILE *out)
{
    *writer = (struct json_writer){.out = out};
}

static void writer_put(void *sink, const char *bytes, size_t length)
{
    struct json_writer *writer = sink;
    if (writer->error)
        return;
    errno = 0;
    if (fwrite(bytes, 1, length, writer->out) != length)
        writer->error = errno ? errno : EIO;
}

static void writer_put_text(struct json_writer *writer, const char *text)
{
    writer_put(writer, text, strlen(text));
}

/* The comma before every value of a container but its first. */
static void value_begin(struct json_writer *writer)
{
    if (writer->after_key) {
        writer->after_key = false;
        return;
    }
    if (writer->depth == 0 || writer->depth > JSON_WRITER_DEPTH_MAX)
        return;
    if (writer->has_member[writer->depth - 1])
        writer_put(writer, ",", 1);
    writer->has_member[writer->depth - 1] = true;
}

static void container_begin(struct json_writer *writer, const char *bracket)
{
    value_begin(writer);
    writer_put_text(writer, bracket);
    writer->depth++;
    if (writer->depth <= JSON_WRITER_DEPTH_MAX)
        writer->has_member[writer->depth - 1] = false;
}

static void container_end(struct json_writer *writer, const char *bracket)
{
    if (writer->depth > 0)
        writer->depth--;
    writer_put_text(writer, bracket);
}

void json_writer_object_begin(struct json_writer *writer)
{
    container_begin(writer, "{");
}

void json_writer_object_end(struct json_writer *writer)
{
    container_end(writer, "}");
}

void json_writer_array_begin(struct json_writer *writer)
{
    container_begin(writer, "[");
}

void json_writer_array_end(struct json_writer *writer)
{
    container_end(writer, "]");
}

void json_writer_key(struct json_writer *writer, const char *name)
{
    value_begin(writer);
    escape_string(text_of(name), writer_put, writer);
    writer_put(writer, ":", 1);
    writer->after_key = true;
}

void json_writer_bytes(struct json_writer *writer, struct text text)
{
    value_begin(writer);
    escape_string(text, writer_put, writer);
}

void json_writer_string(struct json_writer *writer, const char *text)
{
    json_writer_bytes(writer, text_of(text));
}

void json_writer_int(struct json_writer *writer, int64_t value)
{
    char text[24];
    snprintf(text, sizeof text, "%" PRId64, value);
    value_begin(writer);
    writer_put_text(writer, text);
}

void json_writer_unsigned(struct json_writer *writer, uint64_t value)
{
    char text[24];
    snprintf(text, sizeof text, "%" PRIu64, value);
    value_begin(writer);
    writer_put_text(writer, text);
}

void json_writer_double(struct json_writer *writer, double value)
{
    char text[32];
    value_begin(writer);
    writer_put_text(writer, isfinite(value) ? format_double(value, text, sizeof text) : "null");
}

void json_writer_bool(struct json_writer *writer, bool value)
{
    value_begin(writer);
    writer_put_text(writer, value ? "true" : "false");
}

void json_writer_null(struct json_writer *writer)
{
    value_begin(writer);
    writer_put_text(writer, "null");
}

/* json_writer_member_KIND: the key, then json_writer_KIND's value. */
#define JSON_WRITER_MEMBER(kind, type)                                                     \
    void json_writer_member_##kind(struct json_writer *writer, const char *name, type value) \
    {                                                                                      \
        json_writer_key(writer, name);                                                     \
        json_writer_##kind(writer, value);                                                 \
    }

JSON_WRITER_MEMBER(bytes, struct text)
JSON_WRITER_MEMBER(string, const char *)
JSON_WRITER_MEMBER(int, int64_t)
JSON_WRITER_MEMBER(unsigned, uint64_t)
JSON_WRITER_MEMBER(double, double)
JSON_WRITER_MEMBER(bool, bool)

int json_writer_finish(struct json_writer *writer)
{
    if (!writer->error) {
        errno = 0;
        if (fflush(writer->out) != 0 || ferror(writer->out))
            writer->error = errno ? errno : EIO;
    }
    return writer->error;
}
