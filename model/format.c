#include "config.h"

#include "model/format.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "%.2f unit" of magnitude / 2^shift without the C library's float
 * printing (the tables format every row's sizes when they measure their
 * columns): the quotient is exact in binary, so its hundredths are
 * magnitude * 100 >> shift, rounded half to even as printf rounds an
 * exact tie. False (nothing written) where that would not fit 64 bits or
 * the double the caller compared was not exact, or the buffer is short:
 * the caller prints it. */
static bool format_two_decimals(uint64_t magnitude, unsigned shift, const char *sign,
                                const char *unit, char *buffer, size_t size)
{
    if (magnitude >= (uint64_t)1 << 53 || shift == 0 || shift >= 64)
        return false;
    uint64_t scaled = magnitude * 100, rest = scaled & (((uint64_t)1 << shift) - 1);
    uint64_t half = (uint64_t)1 << (shift - 1);
    scaled >>= shift;
    if (rest > half || (rest == half && (scaled & 1)))
        scaled++;
    char digits[32];
    size_t length = 0;
    uint64_t whole = scaled / 100;
    do {
        digits[length++] = (char)('0' + whole % 10);
        whole /= 10;
    } while (whole);
    size_t sign_length = strlen(sign), unit_length = strlen(unit);
    if (sign_length + length + 4 + unit_length + 1 > size)
        return false;
    char *out = buffer;
    memcpy(out, sign, sign_length);
    out += sign_length;
    while (length)
        *out++ = digits[--length];
    *out++ = '.';
    *out++ = (char)('0' + scaled % 100 / 10);
    *out++ = (char)('0' + scaled % 10);
    *out++ = ' ';
    memcpy(out, unit, unit_length + 1);
    return true;
}

char *format_bytes(int64_t bytes, char *buffer, size_t size)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    /* Magnitude as unsigned so INT64_MIN does not overflow. */
    uint64_t magnitude = bytes < 0 ? 0 - (uint64_t)bytes : (uint64_t)bytes;
    const char *sign = bytes < 0 ? "-" : "";
    if (magnitude < 1024) {
        snprintf(buffer, size, "%s%llu B", sign, (unsigned long long)magnitude);
        return buffer;
    }
    double value = (double)magnitude;
    size_t unit = 0;
    while (value >= 1024.0 && unit + 1 < sizeof units / sizeof *units) {
        value /= 1024.0;
        unit++;
    }
    /* 1023.999 KiB would print as "1024.00 KiB": carry into the next unit. */
    if (value >= 1023.995 && unit + 1 < sizeof units / sizeof *units) {
        value /= 1024.0;
        unit++;
    }
    if (!format_two_decimals(magnitude, unit * 10, sign, units[unit], buffer, size))
        snprintf(buffer, size, "%s%.2f %s", sign, value, units[unit]);
    return buffer;
}

char *format_milliseconds_value(int64_t time_ps, int decimals, char *buffer, size_t size)
{
    if (decimals < 0)
        decimals = 0;
    if (decimals > 9)
        decimals = 9;
    uint64_t magnitude = time_ps < 0 ? 0 - (uint64_t)time_ps : (uint64_t)time_ps;
    uint64_t unit = 1;
    for (int i = decimals; i < 9; i++)
        unit *= 10;
    /* Rounded half up, like printf's "%.3f" in the summary. */
    uint64_t units = magnitude / unit + (magnitude % unit >= (unit + 1) / 2 && unit > 1 ? 1 : 0);
    uint64_t per_millisecond = 1000000000u / unit;
    uint64_t whole = units / per_millisecond, fraction = units % per_millisecond;
    const char *sign = time_ps < 0 ? "-" : "";
    if (decimals == 0)
        snprintf(buffer, size, "%s%llu", sign, (unsigned long long)whole);
    else
        snprintf(buffer, size, "%s%llu.%0*llu", sign, (unsigned long long)whole, decimals,
                 (unsigned long long)fraction);
    return buffer;
}

char *format_milliseconds(int64_t time_ps, char *buffer, size_t size)
{
    char number[32];
    snprintf(buffer, size, "%s ms", format_milliseconds_value(time_ps, 3, number, sizeof number));
    return buffer;
}

/* printf writes the decimal point of LC_NUMERIC, which a caller's
 * setlocale may have made ','; numbers for machines need '.'. */
static void decimal_point_to_dot(char *text)
{
    const char *point = localeconv()->decimal_point;
    if (!point || !point[0] || strcmp(point, ".") == 0)
        return;
    char *found = strstr(text, point);
    if (!found)
        return;
    size_t point_length = strlen(point);
    *found = '.';
    memmove(found + 1, found + point_length, strlen(found + point_length) + 1);
}

char *format_double(double value, char *buffer, size_t size)
{
    for (int precision = 15; precision <= 17; precision++) {
        snprintf(buffer, size, "%.*g", precision, value);
        if (strtod(buffer, NULL) == value) /* in the same locale as the snprintf */
            break;
    }
    decimal_point_to_dot(buffer);
    return buffer;
}

char *format_percent(double fraction, char *buffer, size_t size)
{
    if (isfinite(fraction))
        snprintf(buffer, size, "%.2f %%", fraction * 100.0);
    else
        snprintf(buffer, size, "%f", fraction);
    return buffer;
}

char *format_capacity_share(int64_t peak, int64_t capacity, char *buffer, size_t size)
{
    if (capacity <= 0 || peak < 0)
        snprintf(buffer, size, "%s", "");
    else
        snprintf(buffer, size, "%d%%", (int)((double)peak * 100.0 / (double)capacity));
    return buffer;
}

size_t format_utf8_decode_bytes(const char *bytes, size_t available, uint32_t *code_point)
{
    const unsigned char *text = (const unsigned char *)bytes;
    if (available == 0)
        return 0;
    unsigned char lead = text[0];
    size_t length;
    uint32_t value, minimum;
    if (lead < 0x80) {
        *code_point = lead;
        return 1;
    } else if ((lead & 0xe0) == 0xc0) {
        length = 2, value = lead & 0x1f, minimum = 0x80;
    } else if ((lead & 0xf0) == 0xe0) {
        length = 3, value = lead & 0x0f, minimum = 0x800;
    } else if ((lead & 0xf8) == 0xf0) {
        length = 4, value = lead & 0x07, minimum = 0x10000;
    } else {
        return 0;
    }
    if (length > available)
        return 0;
    for (size_t i = 1; i < length; i++) {
        if ((text[i] & 0xc0) != 0x80)
            return 0;
        value = value << 6 | (text[i] & 0x3f);
    }
    if (value < minimum || value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff))
        return 0;
    *code_point = value;
    return length;
}

size_t format_utf8_decode(const char *bytes, uint32_t *code_point)
{
    /* A character is at most 4 bytes; the terminating NUL ends it early,
     * and a NUL in first place is the character U+0000. */
    return format_utf8_decode_bytes(bytes, bytes[0] ? strnlen(bytes, 4) : 1, code_point);
}

bool format_is_control(uint32_t code_point)
{
    return code_point < 0x20 || code_point == 0x7f || (code_point >= 0x80 && code_point < 0xa0);
}

bool format_is_bidi_control(uint32_t code_point)
{
    return code_point == 0x061c || code_point == 0x200e || code_point == 0x200f ||
           (code_point >= 0x202a && code_point <= 0x202e) ||
           (code_point >= 0x2066 && code_point <= 0x2069);
}

bool format_is_unsafe_code_point(uint32_t code_point)
{
    return format_is_control(code_point) || format_is_bidi_control(code_point);
}

/* The character at in (of `available` bytes), made safe, into piece (16
 * bytes); *length gets the bytes it took from in. Returns the piece's
 * length. */
static size_t safe_piece(const unsigned char *in, size_t available, unsigned options,
                         char *piece, size_t *length)
{
    bool ascii = options & FORMAT_SAFE_ASCII;
    uint32_t code_point;
    *length = format_utf8_decode_bytes((const char *)in, available, &code_point);
    if (*length == 0) {
        *length = 1;
        return (size_t)snprintf(piece, 16, "%s", ascii ? "?" : "\xef\xbf\xbd");
    }
    if (format_is_control(code_point))
        return (size_t)snprintf(piece, 16, "\\x%02x", (unsigned)code_point);
    if (format_is_bidi_control(code_point) || (ascii && code_point >= 0x80))
        return (size_t)snprintf(piece, 16, "\\u{%x}", (unsigned)code_point);
    if (code_point == '\\')
        return (size_t)snprintf(piece, 16, "\\\\");
    memcpy(piece, in, *length);
    return *length;
}

size_t format_safe_bytes(struct text text, unsigned options, char *buffer, size_t size)
{
    if (size == 0)
        return 0;
    const unsigned char *in = (const unsigned char *)text.bytes;
    size_t left = text.length, used = 0;
    while (left > 0) {
        char piece[16];
        size_t length;
        size_t piece_length = safe_piece(in, left, options, piece, &length);
        if (used + piece_length >= size)
            break;
        memcpy(buffer + used, piece, piece_length);
        used += piece_length;
        in += length;
        left -= length;
    }
    buffer[used] = '\0';
    return used;
}

size_t format_safe_text(const char *text, bool ascii, char *buffer, size_t size)
{
    return format_safe_bytes(text_of(text), ascii ? FORMAT_SAFE_ASCII : 0, buffer, size);
}
