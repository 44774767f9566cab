/* text_encoding: naming JSON saved as UTF-16 or UTF-32 (PowerShell's
 * `>` writes UTF-16, some editors too), which no format memtop reads is.
 *
 * Owns: the sniff of a byte-order mark, or of the zero bytes that ASCII
 * text in a wider encoding has in a fixed place, and the message that
 * says how to convert it.
 * Called by: load.c, before the formats' probes see the bytes (a binary
 * probe would otherwise claim the text and name a wire type).
 * Must not: convert anything, or look past the first bytes. */
#ifndef MEMTOP_TEXT_ENCODING_H
#define MEMTOP_TEXT_ENCODING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* When the bytes are text in UTF-16 or UTF-32 (with a byte-order mark, or
 * ASCII text, JSON say, without one): true, and *message says so and how
 * to convert ("UTF-16 text: convert it to UTF-8 (iconv -f UTF-16LE -t
 * UTF-8)"). */
bool text_encoding_is_wide(const uint8_t *bytes, size_t size, char *message,
                           size_t message_size);

#endif
