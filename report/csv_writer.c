#include "config.h"

#include "report/csv_writer.h"

#include "model/format.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void csv_writer_init(struct csv_writer *writer, FILE *out)
{
    *writer = (struct csv_writer){.out = out};
}

/* Keeps the first failure's errno; a stream that fails without setting
 * errno still counts as an I/O error. */
static void writer_fail(struct csv_writer *writer)
{
    if (!writer->error)
        writer->error = errno ? errno : EIO;
}

void csv_writer_escape_controls(struct csv_writer *writer, bool escape)
{
    writer->escape_controls = escape;
}

void csv_writer_fail(struct csv_writer *writer, int error_number)
{
    if (!writer->error)
        writer->error = error_number ? error_number : EIO;
}

void csv_writer_lead(struct csv_writer *writer, const char *const *names,
                     const char *const *values, size_t count, bool skip_header)
{
    writer->lead_names = names;
    writer->lead_values = values;
    writer->lead_count = count;
    writer->skip_header = skip_header;
}

static void writer_put(struct csv_writer *writer, const char *bytes, size_t length)
{
    if (writer->error || length == 0 || (writer->skip_header && writer->records == 0))
        return;
    errno = 0;
    if (fwrite(bytes, 1, length, writer->out) != length)
        writer_fail(writer);
}

static void writer_put_char(struct csv_writer *writer, char byte)
{
    writer_put(writer, &byte, 1);
}

/* The comma before every field but a record's first; the lead cells
 * before a record's first. */
static void writer_begin_field(struct csv_writer *writer)
{
    if (writer->fields == 0 && writer->lead_count && !writer->in_lead) {
        const char *const *cells = writer->records == 0 ? writer->lead_names : writer->lead_values;
        writer->in_lead = true;
        for (size_t i = 0; i < writer->lead_count; i++)
            csv_writer_text(writer, cells[i]);
        writer->in_lead = false;
    }
    if (writer->fields++ > 0)
        writer_put_char(writer, ',');
}

static bool is_formula_start(char byte)
{
    return byte == '=' || byte == '+' || byte == '-' || byte == '@' || byte == '\t' ||
           byte == '\r';
}

/* Apostrophes are skipped so that a text already starting with one gets
 * another: that keeps the guard reversible. */
static bool text_needs_guard(struct text text)
{
    size_t i = 0;
    while (i < text.length && text.bytes[i] == '\'')
        i++;
    return i < text.length && is_formula_start(text.bytes[i]);
}

bool csv_writer_needs_guard(const char *text)
{
    return text_needs_guard(text_of(text));
}

/* The text as it goes out: escaped for a terminal into buffer (or a
 * malloc'd one, in *allocated, when it is long), else as it is. */
static struct text writer_safe_text(struct csv_writer *writer, struct text text, char *buffer,
                                    size_t size, char **allocated)
{
    *allocated = NULL;
    if (!writer->escape_controls)
        return text;
    size_t needed = 4 * text.length + 1; /* no character grows more than fourfold */
    if (needed > size) {
        *allocated = malloc(needed);
        if (!*allocated) {
            csv_writer_fail(writer, ENOMEM);
            return text_make("", 0);
        }
        buffer = *allocated;
        size = needed;
    }
    return text_make(buffer, format_safe_bytes(text, 0, buffer, size));
}

static void writer_text(struct csv_writer *writer, struct text text);

void csv_writer_bytes(struct csv_writer *writer, struct text text)
{
    char buffer[1024], *allocated;
    writer_text(writer, writer_safe_text(writer, text, buffer, sizeof buffer, &allocated));
    free(allocated);
}

void csv_writer_text(struct csv_writer *writer, const char *text)
{
    csv_writer_bytes(writer, text_of(text));
}

static bool needs_quotes(struct text text)
{
    for (size_t i = 0; i < text.length; i++) {
        char byte = text.bytes[i];
        if (byte == ',' || byte == '"' || byte == '\r' || byte == '\n')
            return true;
    }
    return false;
}

/* One text field, quoted and guarded; text is already what goes out. */
static void writer_text(struct csv_writer *writer, struct text text)
{
    writer_begin_field(writer);
    bool quoted = needs_quotes(text);
    if (quoted)
        writer_put_char(writer, '"');
    if (text_needs_guard(text))
        writer_put_char(writer, '\'');
    if (!quoted) {
        writer_put(writer, text.bytes, text.length);
        return;
    }
    /* Each quote goes out with the run before it, then once more. */
    const char *run = text.bytes, *end = text.bytes + text.length;
    const char *quote;
    while ((quote = memchr(run, '"', (size_t)(end - run))) != NULL) {
        writer_put(writer, run, (size_t)(quote - run) + 1);
        writer_put_char(writer, '"');
        run = quote + 1;
    }
    writer_put(writer, run, (size_t)(end - run));
    writer_put_char(writer, '"');
}

/* Decimal digits of value, right-aligned, ending at end; returns the start. */
static char *digits_of(uint64_t value, char *end)
{
    char *start = end;
    do {
        *--start = (char)('0' + value % 10);
        value /= 10;
    } while (value);
    return start;
}

static uint64_t magnitude_of(int64_t value)
{
    return value < 0 ? 0 - (uint64_t)value : (uint64_t)value;
}

void csv_writer_unsigned(struct csv_writer *writer, uint64_t value)
{
    char buffer[24];
    char *end = buffer + sizeof buffer;
    char *start = digits_of(value, end);
    writer_begin_field(writer);
    writer_put(writer, start, (size_t)(end - start));
}

void csv_writer_int(struct csv_writer *writer, int64_t value)
{
    char buffer[24];
    char *end = buffer + sizeof buffer;
    char *start = digits_of(magnitude_of(value), end);
    if (value < 0)
        *--start = '-';
    writer_begin_field(writer);
    writer_put(writer, start, (size_t)(end - start));
}

void csv_writer_fixed_point(struct csv_writer *writer, int64_t value, unsigned decimals)
{
    if (decimals > 18)
        decimals = 18;
    uint64_t scale = 1;
    for (unsigned i = 0; i < decimals; i++)
        scale *= 10;
    uint64_t magnitude = magnitude_of(value);
    uint64_t whole = magnitude / scale, fraction = magnitude % scale;
    char buffer[48];
    char *end = buffer + sizeof buffer;
    char *start = end;
    if (fraction) {
        /* Zero-padded to `decimals` digits, then trailing zeros dropped. */
        start = digits_of(fraction, end);
        while (start > end - decimals)
            *--start = '0';
        while (end[-1] == '0')
            end--;
        *--start = '.';
    }
    start = digits_of(whole, start);
    if (value < 0)
        *--start = '-';
    writer_begin_field(writer);
    writer_put(writer, start, (size_t)(end - start));
}

void csv_writer_double(struct csv_writer *writer, double value)
{
    char text[40];
    if (isnan(value)) {
        strcpy(text, "nan");
    } else if (isinf(value)) {
        strcpy(text, value < 0 ? "-inf" : "inf");
    } else {
        format_double(value, text, sizeof text);
    }
    writer_begin_field(writer);
    writer_put(writer, text, strlen(text));
}

void csv_writer_bool(struct csv_writer *writer, bool value)
{
    const char *text = value ? "true" : "false";
    writer_begin_field(writer);
    writer_put(writer, text, strlen(text));
}

void csv_writer_empty(struct csv_writer *writer)
{
    writer_begin_field(writer);
}

void csv_writer_end_record(struct csv_writer *writer)
{
    writer_put_char(writer, '\n');
    writer->fields = 0;
    writer->records++;
}

void csv_writer_record(struct csv_writer *writer, const char *const *fields, size_t count)
{
    for (size_t i = 0; i < count; i++)
        csv_writer_text(writer, fields[i]);
    csv_writer_end_record(writer);
}

int csv_writer_finish(struct csv_writer *writer)
{
    if (!writer->error) {
        errno = 0;
        if (fflush(writer->out) != 0 || ferror(writer->out))
            writer_fail(writer);
    }
    return writer->error;
}
