/* message_text: one bounded line of text for an error, a warning or a
 * status line, built from pieces that may hold a file's raw bytes.
 *
 * Owns: appending to a fixed buffer without overflowing it (what does not
 * fit is dropped; the bytes stay NUL-terminated, and the length counts
 * any NUL a piece brought with it), and cutting a long piece of file text
 * on a UTF-8 boundary with "...".
 * Called by: the loaders' error messages (json_stream.c) and warnings
 * (xprof_draft.c), main's error lines and the viewer's status line.
 * Must not: escape. A message keeps the file's bytes as they are; the
 * one place that prints or draws it escapes them, once
 * (model/format.h's format_safe_bytes, ui/draw.h's draw_bytes). */
#ifndef MEMTOP_MESSAGE_TEXT_H
#define MEMTOP_MESSAGE_TEXT_H

#include <stddef.h>

#include "model/util/text.h"

struct message_text {
    char *text;
    size_t size; /* of the buffer, NUL included */
    size_t length;
};

/* Starts an empty text in buffer[size] (size > 0). */
void message_text_start(struct message_text *message, char *buffer, size_t size);
void message_text_append(struct message_text *message, const char *bytes, size_t length);
void message_text_append_text(struct message_text *message, const char *text);
void message_text_append_bytes(struct message_text *message, struct text text);
void message_text_append_format(struct message_text *message, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
/* File text, raw, at most `limit` bytes of it: a longer one is cut on a
 * UTF-8 boundary and ends with "...". */
void message_text_append_cut(struct message_text *message, struct text text, size_t limit);
/* What was built so far. */
struct text message_text_get(const struct message_text *message);

#endif
