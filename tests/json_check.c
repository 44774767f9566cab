/* json_check: a tiny strict JSON validator for the generator's tests.
 *
 * json_check [--repair] FILE: exit 0 when FILE is one strict JSON value
 * (RFC 8259: no raw control characters in strings, valid UTF-8, no
 * trailing commas), 1 when not, 2 on usage or read errors. --repair first
 * does what catapult does to a bare array that stops early: trailing
 * white space and one trailing comma go, and a missing ']' is added. A
 * depth-first recursive descent; it owns nothing else and shares no code
 * with memtop. */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct input {
    const unsigned char *at, *end;
    int depth;
};

static bool parse_value(struct input *in);

static void skip_space(struct input *in)
{
    while (in->at < in->end && (*in->at == ' ' || *in->at == '\t' || *in->at == '\n' || *in->at == '\r'))
        in->at++;
}

static bool literal(struct input *in, const char *word)
{
    size_t length = strlen(word);
    if ((size_t)(in->end - in->at) < length || memcmp(in->at, word, length) != 0)
        return false;
    in->at += length;
    return true;
}

static bool utf8_sequence(struct input *in)
{
    unsigned char lead = *in->at;
    size_t size = lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
    if (size == 0 || (size_t)(in->end - in->at) < size)
        return false;
    unsigned value = lead & (size == 2 ? 0x1fu : size == 3 ? 0x0fu : 0x07u);
    for (size_t i = 1; i < size; i++) {
        if ((in->at[i] & 0xc0) != 0x80)
            return false;
        value = (value << 6) | (in->at[i] & 0x3fu);
    }
    if ((size == 3 && (value < 0x800 || (value >= 0xd800 && value <= 0xdfff))) || (size == 4 && (value < 0x10000 || value > 0x10ffff)))
        return false;
    in->at += size;
    return true;
}

static bool parse_string(struct input *in)
{
    in->at++; /* the opening quote */
    while (in->at < in->end) {
        unsigned char c = *in->at;
        if (c == '"') {
            in->at++;
            return true;
        }
        if (c < 0x20)
            return false;
        if (c == '\\') {
            in->at++;
            if (in->at >= in->end)
                return false;
            if (*in->at == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (in->at + i >= in->end || !strchr("0123456789abcdefABCDEF", in->at[i]) || in->at[i] == 0)
                        return false;
                in->at += 5;
            } else if (strchr("\"\\/bfnrt", *in->at) && *in->at != 0) {
                in->at++;
            } else {
                return false;
            }
        } else if (c < 0x80) {
            in->at++;
        } else if (!utf8_sequence(in)) {
            return false;
        }
    }
    return false;
}

static bool digits(struct input *in)
{
    const unsigned char *start = in->at;
    while (in->at < in->end && *in->at >= '0' && *in->at <= '9')
        in->at++;
    return in->at > start;
}

static bool parse_number(struct input *in)
{
    if (*in->at == '-')
        in->at++;
    if (in->at < in->end && *in->at == '0')
        in->at++;
    else if (!digits(in))
        return false;
    if (in->at < in->end && *in->at == '.') {
        in->at++;
        if (!digits(in))
            return false;
    }
    if (in->at < in->end && (*in->at == 'e' || *in->at == 'E')) {
        in->at++;
        if (in->at < in->end && (*in->at == '+' || *in->at == '-'))
            in->at++;
        if (!digits(in))
            return false;
    }
    return true;
}

/* An object or an array; members are "string: value" when `object`. */
static bool parse_container(struct input *in, bool object)
{
    char close = object ? '}' : ']';
    if (++in->depth > 512)
        return false;
    in->at++;
    skip_space(in);
    if (in->at < in->end && *in->at == close) {
        in->at++;
        in->depth--;
        return true;
    }
    for (;;) {
        skip_space(in);
        if (object) {
            if (in->at >= in->end || *in->at != '"' || !parse_string(in))
                return false;
            skip_space(in);
            if (in->at >= in->end || *in->at++ != ':')
                return false;
        }
        if (!parse_value(in))
            return false;
        skip_space(in);
        if (in->at >= in->end)
            return false;
        if (*in->at == ',') {
            in->at++;
            continue;
        }
        if (*in->at++ != close)
            return false;
        in->depth--;
        return true;
    }
}

static bool parse_value(struct input *in)
{
    skip_space(in);
    if (in->at >= in->end)
        return false;
    switch (*in->at) {
    case '{': return parse_container(in, true);
    case '[': return parse_container(in, false);
    case '"': return parse_string(in);
    case 't': return literal(in, "true");
    case 'f': return literal(in, "false");
    case 'n': return literal(in, "null");
    default: return (*in->at == '-' || (*in->at >= '0' && *in->at <= '9')) && parse_number(in);
    }
}

int main(int argc, char **argv)
{
    bool repair = argc == 3 && strcmp(argv[1], "--repair") == 0;
    if (argc != 2 + repair) {
        fputs("usage: json_check [--repair] FILE\n", stderr);
        return 2;
    }
    FILE *file = fopen(argv[1 + repair], "rb");
    if (file == NULL)
        return 2;
    size_t capacity = 1 << 16, length = 0;
    unsigned char *bytes = malloc(capacity + 1);
    size_t got;
    while (bytes != NULL && (got = fread(bytes + length, 1, capacity - length, file)) > 0) {
        length += got;
        if (length == capacity) {
            capacity *= 2;
            unsigned char *grown = realloc(bytes, capacity + 1);
            if (grown == NULL)
                free(bytes);
            bytes = grown;
        }
    }
    fclose(file);
    if (bytes == NULL)
        return 2;
    if (repair) {
        while (length > 0 && strchr(" \t\r\n", bytes[length - 1]))
            length--;
        if (length > 0 && bytes[length - 1] == ',')
            length--;
        size_t first = 0;
        while (first < length && strchr(" \t\r\n", bytes[first]))
            first++;
        if (first < length && bytes[first] == '[' && bytes[length - 1] != ']')
            bytes[length++] = ']';
        else if (length > 1 && bytes[length - 1] == ']') {
            /* a comma right before the ']' (perfetto issue 1822) */
            size_t before = length - 1;
            while (before > 0 && strchr(" \t\r\n", bytes[before - 1]))
                before--;
            if (before > 0 && bytes[before - 1] == ',')
                memmove(bytes + before - 1, bytes + before, length - before), length--;
        }
    }
    struct input in = {bytes, bytes + length, 0};
    bool ok = parse_value(&in);
    skip_space(&in);
    ok = ok && in.at == in.end;
    free(bytes);
    return ok ? 0 : 1;
}
