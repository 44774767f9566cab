/* json_string: see json_string.h. */
#include "config.h"

#include "model/decode/json_string.h"

#include <limits.h>
#include <string.h>

bool json_text_may_hold_nul(const char *text, size_t length)
{
    if (memchr(text, '\0', length))
        return true;
    const char *end = text + length;
    for (const char *at = text; (at = memchr(at, '\\', (size_t)(end - at))) != NULL; at++)
        if ((size_t)(end - at) >= 6 && memcmp(at + 1, "u0000", 5) == 0)
            return true;
    return false;
}

static unsigned hex_digit(char digit)
{
    if (digit >= '0' && digit <= '9')
        return (unsigned)(digit - '0');
    if (digit >= 'a' && digit <= 'f')
        return (unsigned)(digit - 'a' + 10);
    if (digit >= 'A' && digit <= 'F')
        return (unsigned)(digit - 'A' + 10);
    return 0;
}

/* The four hex digits after "\u" at escape (which has at least 6 bytes). */
static unsigned escape_value(const char *escape)
{
    unsigned value = 0;
    for (int i = 2; i < 6; i++)
        value = value << 4 | hex_digit(escape[i]);
    return value;
}

static size_t utf8_length(unsigned code_point)
{
    return code_point < 0x80 ? 1 : code_point < 0x800 ? 2 : code_point < 0x10000 ? 3 : 4;
}

size_t json_string_decoded_length(const char *token, size_t length)
{
    if (length < 2)
        return 0;
    size_t end = length - 1, decoded = 0;
    for (size_t at = 1; at < end;) {
        if (token[at] != '\\') {
            decoded++;
            at++;
        } else if (at + 1 < end && token[at + 1] != 'u') {
            decoded++; /* \n, \", \\, ...: one byte */
            at += 2;
        } else if (at + 6 <= end) {
            unsigned code_point = escape_value(token + at);
            at += 6;
            /* A high surrogate and its low one make one character, as
             * cJSON joins them (it refuses a lone one). */
            if (code_point >= 0xd800 && code_point <= 0xdbff && at + 6 <= end &&
                token[at] == '\\' && token[at + 1] == 'u') {
                code_point = 0x10000;
                at += 6;
            }
            decoded += utf8_length(code_point);
        } else {
            break; /* cut short: cJSON would have refused it */
        }
    }
    return decoded;
}

/* The string literals of a JSON text, one after another. */
struct token_cursor {
    const char *text;
    size_t length;
    size_t at;
};

/* The next string literal: *token at its opening quote, *token_length up
 * to its closing quote included. False when there is none. */
static bool next_token(struct token_cursor *cursor, const char **token, size_t *token_length)
{
    const char *quote = memchr(cursor->text + cursor->at, '"', cursor->length - cursor->at);
    if (!quote)
        return false;
    size_t start = (size_t)(quote - cursor->text), at = start + 1;
    while (at < cursor->length && cursor->text[at] != '"')
        at += cursor->text[at] == '\\' ? 2 : 1;
    if (at >= cursor->length)
        return false;
    *token = quote;
    *token_length = at + 1 - start;
    cursor->at = at + 1;
    return true;
}

/* Items in document order: an object member's name comes before its
 * value, and only strings and names are string literals in the text. */
static void mark_item(cJSON *item, struct token_cursor *cursor, bool named)
{
    const char *token;
    size_t token_length;
    if (named && !next_token(cursor, &token, &token_length))
        return;
    if (cJSON_IsString(item) && item->valuestring) {
        if (!next_token(cursor, &token, &token_length))
            return;
        size_t length = json_string_decoded_length(token, token_length);
        if (length != strlen(item->valuestring) && length <= INT_MAX)
            item->valueint = (int)length;
        return;
    }
    cJSON *child;
    cJSON_ArrayForEach(child, item)
        mark_item(child, cursor, cJSON_IsObject(item));
}

void json_string_mark_lengths(cJSON *item, const char *text, size_t length)
{
    struct token_cursor cursor = {text, length, 0};
    if (item)
        mark_item(item, &cursor, false);
}

struct text json_string_text(const cJSON *item)
{
    if (!item || !item->valuestring)
        return text_make("", 0);
    if (item->valueint > 0)
        return text_make(item->valuestring, (size_t)item->valueint);
    return text_of(item->valuestring);
}
