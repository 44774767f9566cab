/* load_trace_values: the values a trace event's reader located, decoded
 * (see load_trace.h): strings with their escapes, whole numbers, and
 * decimal numbers scaled to integers from their text, so that a time in
 * microseconds with three decimals is exact nanoseconds, never a double. */
#include "config.h"

#include "model/formats/chrome_trace/chrome_trace_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- strings ---- */

bool trace_value_is_string(const struct trace_reader *reader, struct trace_value value)
{
    return trace_value_present(value) && reader->text[value.start] == '"';
}

bool trace_value_is_object(const struct trace_reader *reader, struct trace_value value)
{
    return trace_value_present(value) && reader->text[value.start] == '{';
}

static bool scratch_reserve(struct trace_reader *reader, size_t size)
{
    if (size <= reader->scratch_capacity)
        return true;
    size_t capacity = reader->scratch_capacity ? reader->scratch_capacity : 256;
    while (capacity < size)
        capacity *= 2;
    char *grown = realloc(reader->scratch, capacity);
    if (!grown)
        return false;
    reader->scratch = grown;
    reader->scratch_capacity = capacity;
    return true;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* The code unit of "\uXXXX" at text (pointing at the backslash); -1 when
 * it is not one. */
static long unicode_escape(const char *text, const char *end)
{
    if (end - text < 6 || text[0] != '\\' || text[1] != 'u')
        return -1;
    long unit = 0;
    for (int i = 2; i < 6; i++) {
        int digit = hex_digit(text[i]);
        if (digit < 0)
            return -1;
        unit = unit * 16 + digit;
    }
    return unit;
}

static size_t utf8_put(char *out, unsigned long code_point)
{
    if (code_point < 0x80) {
        out[0] = (char)code_point;
        return 1;
    }
    if (code_point < 0x800) {
        out[0] = (char)(0xc0 | (code_point >> 6));
        out[1] = (char)(0x80 | (code_point & 0x3f));
        return 2;
    }
    if (code_point < 0x10000) {
        out[0] = (char)(0xe0 | (code_point >> 12));
        out[1] = (char)(0x80 | ((code_point >> 6) & 0x3f));
        out[2] = (char)(0x80 | (code_point & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | (code_point >> 18));
    out[1] = (char)(0x80 | ((code_point >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((code_point >> 6) & 0x3f));
    out[3] = (char)(0x80 | (code_point & 0x3f));
    return 4;
}

/* One escape at *in (a backslash): its bytes to out; *in moves past it.
 * An escape JSON does not know keeps its backslash, as lenient readers
 * (Python's strict=False is not one of them) would rather show it. */
static size_t decode_escape(const char **in, const char *end, char *out)
{
    const char *text = *in;
    if (end - text < 2) {
        *in = end;
        out[0] = '\\';
        return 1;
    }
    static const char simple_from[] = "\"\\/bfnrt", simple_to[] = "\"\\/\b\f\n\r\t";
    const char *simple = strchr(simple_from, text[1]);
    if (simple && text[1]) {
        *in = text + 2;
        out[0] = simple_to[simple - simple_from];
        return 1;
    }
    long unit = unicode_escape(text, end);
    if (unit < 0) {
        *in = text + 1;
        out[0] = '\\';
        return 1;
    }
    *in = text + 6;
    if (unit >= 0xd800 && unit < 0xdc00) {
        long low = unicode_escape(*in, end);
        if (low >= 0xdc00 && low < 0xe000) {
            *in += 6;
            return utf8_put(out, 0x10000 + (((unsigned long)unit - 0xd800) << 10) +
                                     ((unsigned long)low - 0xdc00));
        }
    }
    /* A lone surrogate: its code unit as generalized UTF-8 (WTF-8). */
    return utf8_put(out, (unsigned long)unit);
}

bool trace_value_text(struct trace_reader *reader, struct trace_value value, const char **text,
                      size_t *length, bool *no_memory)
{
    if (no_memory)
        *no_memory = false;
    if (!trace_value_present(value))
        return false;
    const char *start = reader->text + value.start, *end = reader->text + value.end;
    if (*start != '"') {
        if (*start != '-' && (*start < '0' || *start > '9'))
            return false;
        *text = start;
        *length = value.end - value.start;
        return true;
    }
    start++;
    end--; /* the quotes */
    if (!memchr(start, '\\', (size_t)(end - start))) {
        *text = start;
        *length = (size_t)(end - start);
        return true;
    }
    /* Escapes only shrink the text but one: a lone surrogate's 3 bytes
     * come from 6. */
    if (!scratch_reserve(reader, (size_t)(end - start) + 1)) {
        if (no_memory)
            *no_memory = true;
        return false;
    }
    char *out = reader->scratch;
    size_t used = 0;
    while (start < end) {
        const char *backslash = memchr(start, '\\', (size_t)(end - start));
        size_t plain = backslash ? (size_t)(backslash - start) : (size_t)(end - start);
        memcpy(out + used, start, plain);
        used += plain;
        start += plain;
        if (start < end)
            used += decode_escape(&start, end, out + used);
    }
    out[used] = '\0';
    *text = out;
    *length = used;
    return true;
}

bool trace_value_equals(struct trace_reader *reader, struct trace_value value,
                        const char *literal)
{
    if (!trace_value_is_string(reader, value))
        return false;
    size_t wanted = strlen(literal), raw = value.end - value.start - 2;
    const char *inside = reader->text + value.start + 1;
    if (raw == wanted && memcmp(inside, literal, wanted) == 0)
        return true;
    if (!memchr(inside, '\\', raw))
        return false;
    const char *text;
    size_t length;
    return trace_value_text(reader, value, &text, &length, NULL) && length == wanted &&
           memcmp(text, literal, wanted) == 0;
}

/* ---- numbers, from their text ---- */

/* A JSON number's parts: its significant digits (as many as a uint64
 * holds, as an integer; the first digit that did not fit, and whether a
 * non-zero one followed it), and the power of ten to apply. */
struct decimal {
    bool negative;
    uint64_t mantissa;
    int digits;          /* significant digits kept */
    int dropped_first;   /* the first digit not kept, -1 none */
    bool dropped_more;   /* a non-zero digit after it */
    long exponent;       /* value = mantissa * 10^exponent (+ dropped) */
};

static void decimal_add_digit(struct decimal *number, int digit, bool fraction)
{
    if (number->digits == 0 && digit == 0) {
        if (fraction)
            number->exponent--;
        return;
    }
    if (number->dropped_first < 0 && number->mantissa <= (UINT64_MAX - (uint64_t)digit) / 10) {
        number->mantissa = number->mantissa * 10 + (uint64_t)digit;
        number->digits++;
        if (fraction)
            number->exponent--;
        return;
    }
    if (number->dropped_first < 0)
        number->dropped_first = digit;
    else if (digit)
        number->dropped_more = true;
    if (!fraction)
        number->exponent++;
}

/* [-]digits[.digits][(e|E)[+-]digits], the whole of [text, text+length). */
static bool decimal_parse(const char *text, size_t length, struct decimal *number)
{
    *number = (struct decimal){.dropped_first = -1};
    const char *end = text + length;
    if (text < end && (*text == '-' || *text == '+'))
        number->negative = *text++ == '-';
    bool any = false;
    for (; text < end && *text >= '0' && *text <= '9'; text++, any = true)
        decimal_add_digit(number, *text - '0', false);
    if (text < end && *text == '.')
        for (text++; text < end && *text >= '0' && *text <= '9'; text++, any = true)
            decimal_add_digit(number, *text - '0', true);
    if (!any)
        return false;
    if (text < end && (*text == 'e' || *text == 'E')) {
        text++;
        bool negative = text < end && *text == '-';
        if (text < end && (*text == '-' || *text == '+'))
            text++;
        long exponent = 0;
        if (text == end)
            return false;
        for (; text < end && *text >= '0' && *text <= '9'; text++)
            if (exponent < 100000)
                exponent = exponent * 10 + (*text - '0');
        number->exponent += negative ? -exponent : exponent;
    }
    return text == end;
}

/* number x 10^decimals, rounded half away from zero, as a magnitude;
 * false past UINT64_MAX. */
static bool decimal_scale(const struct decimal *number, unsigned decimals, uint64_t *magnitude)
{
    long power = number->exponent + (long)decimals;
    uint64_t value = number->mantissa;
    if (value == 0) {
        *magnitude = 0;
        return true;
    }
    if (power >= 0) {
        for (long i = 0; i < power; i++) {
            if (value > UINT64_MAX / 10)
                return false;
            value *= 10;
        }
        /* Digits that did not fit are past the point here: they only round. */
        if (number->dropped_first >= 5 && power == 0) {
            if (value == UINT64_MAX)
                return false;
            value++;
        }
        *magnitude = value;
        return true;
    }
    if (power < -20) {
        *magnitude = 0;
        return true;
    }
    uint64_t divisor = 1;
    for (long i = 0; i < -power; i++) {
        if (divisor > UINT64_MAX / 10) {
            *magnitude = 0;
            return true;
        }
        divisor *= 10;
    }
    uint64_t quotient = value / divisor, remainder = value % divisor;
    bool up = remainder >= divisor - remainder; /* remainder >= divisor / 2, exactly */
    *magnitude = quotient + (up ? 1 : 0);
    return true;
}

static bool magnitude_to_int64(bool negative, uint64_t magnitude, int64_t *out)
{
    if (negative) {
        if (magnitude > (uint64_t)INT64_MAX + 1)
            return false;
        *out = magnitude == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)magnitude;
        return true;
    }
    if (magnitude > (uint64_t)INT64_MAX)
        return false;
    *out = (int64_t)magnitude;
    return true;
}

/* The common case, fast: [-]digits[.digits] with at most 18 digits and at
 * most `decimals` of them after the point (every ts of a trace). */
static inline bool text_scaled_simple(const char *text, size_t length, unsigned decimals,
                                      int64_t *out)
{
    const char *end = text + length;
    bool negative = text < end && *text == '-';
    text += negative;
    /* The digits before the point, then after it: a loop each, without
     * a test per digit for the point (every event's ts comes here). */
    uint64_t value = 0; /* wraps only past 19 digits, refused below */
    const char *first = text;
    for (; text < end && (unsigned char)(*text - '0') < 10; text++)
        value = value * 10 + (uint64_t)(*text - '0');
    size_t digits = (size_t)(text - first), fraction = 0;
    if (text < end && *text == '.') {
        const char *point = ++text;
        for (; text < end && (unsigned char)(*text - '0') < 10; text++)
            value = value * 10 + (uint64_t)(*text - '0');
        fraction = (size_t)(text - point);
        if (fraction == 0)
            return false;
    }
    digits += fraction;
    if (text != end || digits == 0 || digits > 18 || fraction > decimals)
        return false; /* the general path takes what it can */
    int64_t scaled = (int64_t)value;
    for (; fraction < decimals; fraction++) {
        if (scaled > INT64_MAX / 10)
            return false;
        scaled *= 10;
    }
    *out = negative ? -scaled : scaled;
    return true;
}

bool trace_text_scaled(const char *text, size_t length, unsigned decimals, int64_t *out)
{
    if (text_scaled_simple(text, length, decimals, out))
        return true;
    struct decimal number;
    uint64_t magnitude;
    return decimal_parse(text, length, &number) && decimal_scale(&number, decimals, &magnitude) &&
           magnitude_to_int64(number.negative && magnitude, magnitude, out);
}

/* The text of a number, or of a string holding one (Perfetto takes both). */
static bool number_text(const struct trace_reader *reader, struct trace_value value,
                        const char **text, size_t *length)
{
    if (!trace_value_present(value))
        return false;
    *text = reader->text + value.start;
    *length = value.end - value.start;
    if (**text == '"') {
        (*text)++;
        *length -= 2;
    }
    return *length > 0;
}

bool trace_value_scaled(const struct trace_reader *reader, struct trace_value value,
                        unsigned decimals, int64_t *out)
{
    /* A plain number, the usual case, without the calls. */
    if (trace_value_present(value) && reader->text[value.start] != '"' &&
        text_scaled_simple(reader->text + value.start, value.end - value.start, decimals, out))
        return true;
    const char *text;
    size_t length;
    return number_text(reader, value, &text, &length) &&
           trace_text_scaled(text, length, decimals, out);
}

/* A whole number's magnitude: no fraction may be left (1.5 is not one). */
static bool whole_number(const struct trace_reader *reader, struct trace_value value,
                         bool *negative, uint64_t *magnitude)
{
    const char *text;
    size_t length;
    struct decimal number;
    if (!number_text(reader, value, &text, &length) || !decimal_parse(text, length, &number))
        return false;
    if (number.dropped_first > 0 || number.dropped_more)
        return false;
    if (number.exponent < 0) {
        for (long i = 0; i < -number.exponent; i++) {
            if (number.mantissa % 10)
                return false;
            number.mantissa /= 10;
        }
        number.exponent = 0;
    }
    *negative = number.negative;
    return decimal_scale(&number, 0, magnitude);
}

bool trace_value_integer(const struct trace_reader *reader, struct trace_value value, int64_t *out)
{
    if (trace_value_present(value) && reader->text[value.start] != '"' &&
        text_scaled_simple(reader->text + value.start, value.end - value.start, 0, out))
        return true;
    bool negative;
    uint64_t magnitude;
    return whole_number(reader, value, &negative, &magnitude) &&
           magnitude_to_int64(negative && magnitude, magnitude, out);
}

bool trace_value_unsigned(const struct trace_reader *reader, struct trace_value value,
                          uint64_t *out)
{
    bool negative;
    return whole_number(reader, value, &negative, out) && (!negative || *out == 0);
}

bool trace_value_double(const struct trace_reader *reader, struct trace_value value, double *out)
{
    const char *text;
    size_t length;
    struct decimal number;
    char copy[64];
    if (!number_text(reader, value, &text, &length) || length >= sizeof copy ||
        !decimal_parse(text, length, &number))
        return false;
    memcpy(copy, text, length);
    copy[length] = '\0';
    *out = strtod(copy, NULL);
    return true;
}
