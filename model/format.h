/* format: numbers as people read them, and the rules for making a
 * profile's text safe to show, shared by every view and report (ui/,
 * report/, main's error lines). Sizes are 1024-based with two decimals
 * ("13.75 GiB"), plain bytes below 1 KiB ("512 B"); times are
 * picoseconds shown in milliseconds. It writes into the caller's
 * buffers only: it must not print, and must not know about screens. */
#ifndef MEMTOP_FORMAT_H
#define MEMTOP_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/util/text.h"

#define FORMAT_BYTES_SIZE 32

/* Writes into buffer (FORMAT_BYTES_SIZE is always enough); returns buffer. */
char *format_bytes(int64_t bytes, char *buffer, size_t size);
/* "1685.890 ms"-style: milliseconds with three decimals. */
char *format_milliseconds(int64_t time_ps, char *buffer, size_t size);
/* time_ps in milliseconds, exactly, rounded half up to `decimals` (0..9)
 * places, no unit: "1685.9". */
char *format_milliseconds_value(int64_t time_ps, int decimals, char *buffer, size_t size);
/* A finite double for machines (JSON, CSV): the shortest decimal that
 * reads back as the same value (0.1, not 0.10000000000000001), always
 * with a '.' decimal point. 32 bytes are enough. */
char *format_double(double value, char *buffer, size_t size);
/* Fragmentation 0..1 as a percentage, "12.34 %"; other values as-is. */
char *format_percent(double fraction, char *buffer, size_t size);
/* A peak's share of its capacity as a whole percentage ("58%"), for the
 * hosts list and the pod overview; "" when the capacity is unknown. */
char *format_capacity_share(int64_t peak, int64_t capacity, char *buffer, size_t size);

/* What must never reach a terminal raw; the one definition that every
 * escaping writer uses (format_safe_text, JSON strings, CSV to a
 * terminal), so that the text and JSON reports escape the same set.
 * Controls: C0 (U+0000..U+001F), DEL and C1 (U+0080..U+009F), which move
 * the cursor, set titles, write the clipboard. Bidirectional controls:
 * U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069, which reorder
 * the text around them, so a name could read as something it is not. */
bool format_is_control(uint32_t code_point);
bool format_is_bidi_control(uint32_t code_point);
bool format_is_unsafe_code_point(uint32_t code_point); /* either of them */

/* Text from a profile made safe to show: C0 and C1 controls, ESC, DEL and
 * NUL become "\x1b"-style escapes ("\x00" for NUL, so that "A\0x" and
 * "A\0y" read apart), bidirectional controls (U+202E and its kin) become
 * "\u{202e}", a backslash becomes "\\" (so that a name holding the four
 * characters \x1b reads differently from one holding ESC), invalid UTF-8
 * becomes U+FFFD (or '?' when FORMAT_SAFE_ASCII is set, which also
 * escapes every non-ASCII character as "\u{e9}"). Always NUL-terminates;
 * cuts on a character boundary when short of room. Returns the number of
 * bytes written. A buffer of 4 * text.length + 1 bytes always holds all
 * of it (no character grows more than fourfold). */
enum {
    FORMAT_SAFE_ASCII = 1,
};
size_t format_safe_bytes(struct text text, unsigned options, char *buffer, size_t size);
/* The same for our own NUL-terminated text (ascii: FORMAT_SAFE_ASCII). */
size_t format_safe_text(const char *text, bool ascii, char *buffer, size_t size);

/* Decodes the UTF-8 character at bytes, of which `available` may be read;
 * returns its length, or 0 when the bytes there are not valid UTF-8
 * (overlong, surrogate, past U+10FFFF, cut short, or none available). A
 * NUL byte is the character U+0000, of length 1. */
size_t format_utf8_decode_bytes(const char *bytes, size_t available, uint32_t *code_point);
/* The same for NUL-terminated bytes (the NUL ends a character early). */
size_t format_utf8_decode(const char *bytes, uint32_t *code_point);

#endif
