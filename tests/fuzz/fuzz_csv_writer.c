/* fuzz_csv_writer: any sequence of fields through the CSV writer, read
 * back by a strict RFC 4180 reader and compared with what went in.
 *
 * The input is a little program: one opcode byte, then its operand bytes.
 * Every text (any bytes, NUL included, as profile strings are) must come
 * back byte for byte once the formula guard is undone the way
 * csv_writer.h says; every number must read back as the same value; numbers are never
 * quoted; the writer's record count must match. The same fields are then
 * written again into a stream with room for only part of them, and
 * csv_writer_finish() must report an error exactly when the output did
 * not fit. Last, the fields are written for a terminal: the output must
 * hold no control, DEL, C1 or bidirectional control and only valid UTF-8,
 * and every text must read back as format_safe_bytes made it. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "model/format.h"
#include "report/csv_writer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum opcode {
    OP_TEXT,
    OP_INT,
    OP_UNSIGNED,
    OP_DOUBLE,
    OP_BOOL,
    OP_EMPTY,
    OP_FIXED_POINT,
    OP_END_RECORD,
    OP_COUNT,
};

struct field {
    enum opcode op;
    char *text; /* OP_TEXT: any bytes, NUL included */
    size_t text_length;
    int64_t integer;
    uint64_t unsigned_value;
    double real;
    bool truth;
    unsigned decimals;
};

struct program {
    struct field *fields; /* OP_END_RECORD entries separate records */
    size_t count;
};

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "memtop fuzz: broken promise: %s%s%s\n", what, detail ? ": " : "",
            detail ? detail : "");
    abort();
}

/* ---- decoding the input into fields ---- */

struct reader {
    const uint8_t *data;
    size_t size;
    size_t at;
};

static uint64_t read_bits(struct reader *reader, unsigned bytes)
{
    uint64_t value = 0;
    for (unsigned i = 0; i < bytes && reader->at < reader->size; i++)
        value |= (uint64_t)reader->data[reader->at++] << (8 * i);
    return value;
}

/* A text: a length byte, then that many bytes (NULs kept). */
static char *read_text(struct reader *reader, size_t *text_length)
{
    size_t length = (size_t)read_bits(reader, 1);
    if (length > reader->size - reader->at)
        length = reader->size - reader->at;
    char *text = malloc(length + 1);
    if (!text)
        return NULL;
    if (length > 0)
        memcpy(text, reader->data + reader->at, length);
    text[length] = '\0';
    *text_length = length;
    reader->at += length;
    return text;
}

static bool program_decode(const uint8_t *data, size_t size, struct program *program)
{
    struct reader reader = {data, size, 0};
    program->fields = calloc(size + 1, sizeof *program->fields);
    program->count = 0;
    if (!program->fields)
        return false;
    while (reader.at < size) {
        struct field *field = &program->fields[program->count++];
        uint64_t bits;
        field->op = (enum opcode)(data[reader.at++] % OP_COUNT);
        switch (field->op) {
        case OP_TEXT:
            if (!(field->text = read_text(&reader, &field->text_length)))
                return false;
            break;
        case OP_INT:
            bits = read_bits(&reader, 8);
            memcpy(&field->integer, &bits, sizeof bits);
            break;
        case OP_UNSIGNED:
            field->unsigned_value = read_bits(&reader, 8);
            break;
        case OP_DOUBLE:
            bits = read_bits(&reader, 8);
            memcpy(&field->real, &bits, sizeof bits);
            break;
        case OP_BOOL:
            field->truth = read_bits(&reader, 1) & 1;
            break;
        case OP_FIXED_POINT:
            bits = read_bits(&reader, 8);
            memcpy(&field->integer, &bits, sizeof bits);
            field->decimals = (unsigned)read_bits(&reader, 1) % 20; /* 19: clamped to 18 */
            break;
        default:
            break;
        }
    }
    return true;
}

static void program_free(struct program *program)
{
    for (size_t i = 0; i < program->count; i++)
        free(program->fields[i].text);
    free(program->fields);
}

static void program_write(const struct program *program, struct csv_writer *writer)
{
    for (size_t i = 0; i < program->count; i++) {
        const struct field *field = &program->fields[i];
        switch (field->op) {
        case OP_TEXT:
            csv_writer_bytes(writer, text_make(field->text, field->text_length));
            break;
        case OP_INT: csv_writer_int(writer, field->integer); break;
        case OP_UNSIGNED: csv_writer_unsigned(writer, field->unsigned_value); break;
        case OP_DOUBLE: csv_writer_double(writer, field->real); break;
        case OP_BOOL: csv_writer_bool(writer, field->truth); break;
        case OP_EMPTY: csv_writer_empty(writer); break;
        case OP_FIXED_POINT:
            csv_writer_fixed_point(writer, field->integer, field->decimals);
            break;
        default: csv_writer_end_record(writer); break;
        }
    }
}

/* ---- reading the CSV back, strictly ---- */

struct csv_field {
    char *text; /* unquoted, quotes undoubled */
    size_t length;
    bool quoted;
};

/* Reads one field at *at; false when the CSV breaks RFC 4180. */
static bool csv_read_field(const char *csv, size_t size, size_t *at, struct csv_field *out)
{
    size_t i = *at;
    out->quoted = i < size && csv[i] == '"';
    out->text = malloc(size - i + 1);
    out->length = 0;
    if (!out->text)
        return false;
    if (!out->quoted) {
        while (i < size && csv[i] != ',' && csv[i] != '\n') {
            if (csv[i] == '"' || csv[i] == '\r')
                return false;
            out->text[out->length++] = csv[i++];
        }
    } else {
        for (i++;; i++) {
            if (i >= size)
                return false;
            if (csv[i] == '"') {
                if (i + 1 < size && csv[i + 1] == '"') {
                    out->text[out->length++] = '"';
                    i++;
                    continue;
                }
                i++;
                break;
            }
            out->text[out->length++] = csv[i];
        }
        if (i < size && csv[i] != ',' && csv[i] != '\n')
            return false;
    }
    out->text[out->length] = '\0';
    *at = i;
    return true;
}

/* The text as written, from the field as read: undo the formula guard. */
static struct text unguard(const struct csv_field *read)
{
    size_t quotes = 0;
    while (quotes < read->length && read->text[quotes] == '\'')
        quotes++;
    if (quotes > 0 && quotes < read->length && read->text[quotes] != '\0' &&
        strchr("=+-@\t\r", read->text[quotes]))
        return text_make(read->text + 1, read->length - 1);
    return text_make(read->text, read->length);
}

static void expect_unquoted(const struct csv_field *read)
{
    if (read->quoted)
        fail("numbers are never quoted", read->text);
}

/* value / 10^decimals, as csv_writer.h promises to write it. */
static void expect_fixed_point(const struct field *field, const struct csv_field *read)
{
    unsigned decimals = field->decimals > 18 ? 18 : field->decimals;
    const char *p = read->text;
    bool negative = *p == '-';
    if (negative)
        p++;
    unsigned __int128 whole = 0, fraction = 0;
    size_t whole_digits = 0, fraction_digits = 0;
    for (; *p >= '0' && *p <= '9'; p++, whole_digits++)
        whole = whole * 10 + (unsigned)(*p - '0');
    if (*p == '.') {
        for (p++; *p >= '0' && *p <= '9'; p++, fraction_digits++)
            fraction = fraction * 10 + (unsigned)(*p - '0');
        if (fraction_digits == 0 || p[-1] == '0')
            fail("fixed point: a fraction has digits and no trailing zero", read->text);
    }
    if (*p != '\0' || whole_digits == 0 || fraction_digits > decimals ||
        (whole_digits > 1 && read->text[negative] == '0'))
        fail("fixed point: plain decimal", read->text);
    for (size_t i = fraction_digits; i < decimals; i++)
        fraction *= 10;
    unsigned __int128 scale = 1;
    for (unsigned i = 0; i < decimals; i++)
        scale *= 10;
    uint64_t magnitude =
        field->integer < 0 ? 0 - (uint64_t)field->integer : (uint64_t)field->integer;
    if (whole * scale + fraction != magnitude || negative != (field->integer < 0))
        fail("fixed point: the exact value", read->text);
}

/* What a text field holds once written: the text, or for a terminal the
 * text made safe (malloc'd; NULL when memory runs out). */
static char *written_text(const struct field *field, bool escaped, size_t *length)
{
    struct text text = text_make(field->text, field->text_length);
    size_t size = escaped ? 4 * text.length + 1 : text.length + 1;
    char *copy = malloc(size);
    if (copy && escaped) {
        *length = format_safe_bytes(text, 0, copy, size);
    } else if (copy) {
        memcpy(copy, text.bytes, text.length);
        *length = text.length;
    }
    return copy;
}

static void expect_text(const struct field *field, const struct csv_field *read, bool escaped)
{
    size_t length;
    char *expected = written_text(field, escaped, &length);
    if (!expected)
        return;
    if (!text_equal(unguard(read), text_make(expected, length)))
        fail(escaped ? "a text for a terminal reads back as format_safe_bytes made it"
                     : "a text reads back byte for byte",
             read->text);
    free(expected);
}

static void expect_field(const struct field *field, const struct csv_field *read, bool escaped)
{
    char *end;
    switch (field->op) {
    case OP_TEXT:
        expect_text(field, read, escaped);
        break;
    case OP_INT:
        expect_unquoted(read);
        errno = 0;
        if (strtoll(read->text, &end, 10) != field->integer || *end || errno)
            fail("an integer reads back", read->text);
        break;
    case OP_UNSIGNED:
        expect_unquoted(read);
        errno = 0;
        if (read->text[0] == '-' || strtoull(read->text, &end, 10) != field->unsigned_value ||
            *end || errno)
            fail("an unsigned integer reads back", read->text);
        break;
    case OP_DOUBLE: {
        expect_unquoted(read);
        double back = strtod(read->text, &end);
        bool same = isnan(field->real) ? isnan(back) && strcmp(read->text, "nan") == 0
                                       : back == field->real;
        if (!same || *end)
            fail("a double reads back as the same value", read->text);
        break;
    }
    case OP_BOOL:
        expect_unquoted(read);
        if (strcmp(read->text, field->truth ? "true" : "false") != 0)
            fail("a bool is true or false", read->text);
        break;
    case OP_EMPTY:
        if (read->length != 0 || read->quoted)
            fail("an empty field is empty", read->text);
        break;
    case OP_FIXED_POINT:
        expect_unquoted(read);
        expect_fixed_point(field, read);
        break;
    default:
        break;
    }
}

/* Reads the whole CSV and compares it with the program, record by record. */
static void expect_csv(const struct program *program, const char *csv, size_t size,
                       size_t records, bool escaped)
{
    size_t at = 0, next = 0, seen_records = 0;
    while (next < program->count) {
        size_t end = next;
        while (end < program->count && program->fields[end].op != OP_END_RECORD)
            end++;
        if (end == program->count)
            break; /* an unfinished last record: its fields have no LF yet */
        /* A record of no fields reads as one empty field. */
        size_t field = next;
        do {
            struct csv_field read;
            if (!csv_read_field(csv, size, &at, &read))
                fail("the output is RFC 4180 CSV", csv);
            if (field < end)
                expect_field(&program->fields[field], &read, escaped);
            else if (read.length != 0 || field != next)
                fail("a record has as many fields as were written", csv);
            free(read.text);
            field++;
            if (at >= size)
                fail("a record ends with LF", csv);
        } while (csv[at++] == ',');
        if (field < end)
            fail("a record has as many fields as were written", csv);
        seen_records++;
        next = end + 1;
    }
    if (seen_records != records)
        fail("the writer counts the records it ended", NULL);
}

/* Output for a terminal: nothing a terminal would act on, valid UTF-8. */
static void expect_terminal_safe(const char *csv, size_t size)
{
    for (size_t at = 0; at < size;) {
        uint32_t code_point;
        size_t length = format_utf8_decode_bytes(csv + at, size - at, &code_point);
        if (length == 0 || at + length > size)
            fail("CSV for a terminal is valid UTF-8", csv + at);
        if (code_point != '\n' && format_is_unsafe_code_point(code_point))
            fail("CSV for a terminal holds no control", csv + at);
        at += length;
    }
}

/* The fields written for a terminal: escaped, safe, still RFC 4180. */
static void expect_terminal_csv(const struct program *program)
{
    char *csv = NULL;
    size_t length = 0;
    FILE *out = open_memstream(&csv, &length);
    if (!out)
        return;
    struct csv_writer writer;
    csv_writer_init(&writer, out);
    csv_writer_escape_controls(&writer, true);
    program_write(program, &writer);
    if (csv_writer_finish(&writer) != 0)
        fail("writing to memory succeeds", NULL);
    fclose(out);
    expect_terminal_safe(csv, length);
    expect_csv(program, csv, length, writer.records, true);
    free(csv);
}

/* A stream that takes at most `room` bytes, then fails like a full disk. */
struct limited {
    char *bytes;
    size_t used;
    size_t room;
};

static ssize_t limited_write(void *cookie, const char *bytes, size_t size)
{
    struct limited *limited = cookie;
    size_t left = limited->room - limited->used;
    size_t take = left < size ? left : size;
    memcpy(limited->bytes + limited->used, bytes, take);
    limited->used += take;
    if (take < size) {
        errno = ENOSPC;
        return take ? (ssize_t)take : -1;
    }
    return (ssize_t)take;
}

/* The same fields into a stream of `room` bytes: an error exactly when
 * the output (`needed` bytes) does not fit. */
static void expect_write_error(const struct program *program, const char *csv, size_t needed,
                               size_t room)
{
    struct limited limited = {malloc(room + 1), 0, room};
    cookie_io_functions_t functions = {.write = limited_write};
    FILE *out = limited.bytes ? fopencookie(&limited, "w", functions) : NULL;
    if (!out) {
        free(limited.bytes);
        return;
    }
    struct csv_writer writer;
    csv_writer_init(&writer, out);
    program_write(program, &writer);
    int error = csv_writer_finish(&writer);
    fclose(out);
    if ((error != 0) != (needed > room))
        fail("csv_writer_finish reports exactly the output that did not fit", NULL);
    if (!error && (limited.used != needed || memcmp(limited.bytes, csv, needed) != 0))
        fail("a stream that takes everything gets the same bytes", NULL);
    free(limited.bytes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct program program;
    if (!program_decode(data, size, &program)) {
        program_free(&program);
        return 0;
    }
    char *csv = NULL;
    size_t length = 0;
    FILE *out = open_memstream(&csv, &length);
    if (!out) {
        program_free(&program);
        return 0;
    }
    struct csv_writer writer;
    csv_writer_init(&writer, out);
    program_write(&program, &writer);
    if (csv_writer_finish(&writer) != 0)
        fail("writing to memory succeeds", NULL);
    fclose(out);
    expect_csv(&program, csv, length, writer.records, false);
    /* Room for all of it, or for a part chosen by the first byte. */
    if (size > 0)
        expect_write_error(&program, csv, length,
                           data[0] % 2 ? length : length * data[0] / 256);
    expect_terminal_csv(&program);
    free(csv);
    program_free(&program);
    return 0;
}
