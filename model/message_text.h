/* message_text: one bounded line of text for an error or a warning.
 *
 * Owns: appending to a fixed buffer without overflowing it (what does not
 * fit is dropped, the text stays NUL-terminated), and quoting file text in
 * it: control bytes become "\x1b"-style escapes, quotes and backslashes get
 * a backslash, and long text is cut on a UTF-8 boundary with "...".
 * Called by: the loaders' error messages (json_stream.c) and warnings
 * (xprof_draft.c).
 * Must not: do the terminal's full escaping (C1 controls, invalid UTF-8,
 * bidirectional marks): main passes every line through format_safe_text(),
 * the one place that makes text safe to print. */
#ifndef MEMTOP_MESSAGE_TEXT_H
#define MEMTOP_MESSAGE_TEXT_H

#include <stddef.h>

struct message_text {
    char *text;
    size_t size; /* of the buffer, NUL included */
    size_t length;
};

/* Starts an empty text in buffer[size] (size > 0). */
void message_text_start(struct message_text *message, char *buffer, size_t size);
void message_text_append(struct message_text *message, const char *bytes, size_t length);
void message_text_append_text(struct message_text *message, const char *text);
/* File text [text, text+length), escaped, at most `limit` bytes of it. */
void message_text_append_escaped(struct message_text *message, const char *text, size_t length,
                                 size_t limit);

#endif
