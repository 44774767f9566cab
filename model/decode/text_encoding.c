#include "config.h"

#include "model/decode/text_encoding.h"

#include <stdio.h>
#include <string.h>

/* How many code units after a mark (or from the start) must be ASCII text
 * for the bytes to count as wide text: enough that no protobuf does. */
#define WIDE_UNITS 16

/* A byte of JSON's outline or plain ASCII text: printable or a blank. */
static bool ascii_text(uint8_t byte)
{
    return (byte >= 0x20 && byte < 0x7f) || byte == '\t' || byte == '\n' || byte == '\r';
}

/* Whether the units of `width` bytes from `at` (as many as there are, up
 * to WIDE_UNITS, at least 2) are ASCII in the low byte at `low` and zero
 * elsewhere. */
static bool wide_ascii(const uint8_t *bytes, size_t size, size_t at, size_t width, size_t low)
{
    size_t units = (size - at) / width;
    if (units > WIDE_UNITS)
        units = WIDE_UNITS;
    if (units < 2)
        return false;
    for (size_t unit = 0; unit < units; unit++)
        for (size_t i = 0; i < width; i++) {
            uint8_t byte = bytes[at + unit * width + i];
            if (i == low ? !ascii_text(byte) : byte != 0)
                return false;
        }
    return true;
}

struct wide_form {
    const char *name;  /* iconv's name with the order */
    uint8_t mark[4];   /* the byte-order mark */
    size_t width, low; /* bytes per unit; where an ASCII unit's byte is */
};

/* UTF-32 first: its little-endian mark starts with UTF-16's. */
static const struct wide_form forms[] = {
    {"UTF-32LE", {0xff, 0xfe, 0, 0}, 4, 0},
    {"UTF-32BE", {0, 0, 0xfe, 0xff}, 4, 3},
    {"UTF-16LE", {0xff, 0xfe}, 2, 0},
    {"UTF-16BE", {0xfe, 0xff}, 2, 1},
};

bool text_encoding_is_wide(const uint8_t *bytes, size_t size, char *message,
                           size_t message_size)
{
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        const struct wide_form *form = &forms[i];
        bool marked = size >= form->width && memcmp(bytes, form->mark, form->width) == 0;
        /* A mark and then anything (text past ASCII too); no mark: ASCII. */
        if (marked ? size >= 2 * form->width
                   : wide_ascii(bytes, size, 0, form->width, form->low)) {
            /* With its mark iconv finds the order itself (and drops it). */
            snprintf(message, message_size,
                     "UTF-%zu text: convert it to UTF-8 (iconv -f %.*s -t UTF-8)",
                     8 * form->width, marked ? 6 : 8, form->name);
            return true;
        }
    }
    return false;
}
