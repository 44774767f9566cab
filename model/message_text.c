#include "config.h"

#include "model/message_text.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void message_text_start(struct message_text *message, char *buffer, size_t size)
{
    *message = (struct message_text){buffer, size, 0};
    buffer[0] = '\0';
}

void message_text_append(struct message_text *message, const char *bytes, size_t length)
{
    size_t room = message->size - 1 - message->length;
    if (length > room)
        length = room;
    memcpy(message->text + message->length, bytes, length);
    message->length += length;
    message->text[message->length] = '\0';
}

void message_text_append_text(struct message_text *message, const char *text)
{
    message_text_append(message, text, strlen(text));
}

void message_text_append_bytes(struct message_text *message, struct text text)
{
    message_text_append(message, text.bytes, text.length);
}

void message_text_append_format(struct message_text *message, const char *format, ...)
{
    size_t room = message->size - message->length;
    va_list arguments;
    va_start(arguments, format);
    int written = vsnprintf(message->text + message->length, room, format, arguments);
    va_end(arguments);
    if (written > 0)
        message->length += (size_t)written < room ? (size_t)written : room - 1;
}

void message_text_append_cut(struct message_text *message, struct text text, size_t limit)
{
    size_t length = text.length;
    bool cut = length > limit;
    if (cut) {
        length = limit;
        while (length > 0 && ((unsigned char)text.bytes[length] & 0xc0) == 0x80)
            length--;
    }
    message_text_append(message, text.bytes, length);
    if (cut)
        message_text_append_text(message, "...");
}

struct text message_text_get(const struct message_text *message)
{
    return text_make(message->text, message->length);
}
