/* oom_log_text: the log's lines, their prefixes, and numbers as the
 * reports print them (see oom_log_internal.h). */
#include "config.h"

#include "model/formats/oom_log/oom_log_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/util/array_grow.h"

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* The body of a line: after "file.cc:123] " when the line has such a
 * prefix (TF's and absl's log lines both end theirs so), else the line. */
static struct text line_body(struct text line)
{
    for (size_t i = 1; i + 1 < line.length; i++) {
        if (line.bytes[i] != ']' || line.bytes[i + 1] != ' ' || !is_digit(line.bytes[i - 1]))
            continue;
        size_t j = i;
        while (j > 0 && is_digit(line.bytes[j - 1]))
            j--;
        if (j > 0 && line.bytes[j - 1] == ':')
            return text_make(line.bytes + i + 2, line.length - i - 2);
    }
    return line;
}

bool oom_log_lines_split(const uint8_t *bytes, size_t size, struct oom_log_lines *lines)
{
    memset(lines, 0, sizeof *lines);
    size_t capacity = 0;
    const char *text = (const char *)bytes;
    for (size_t at = 0; at < size;) {
        const char *end = memchr(text + at, '\n', size - at);
        size_t length = end ? (size_t)(end - (text + at)) : size - at;
        size_t kept = length;
        if (kept > 0 && text[at + kept - 1] == '\r')
            kept--;
        if (!array_grow((void **)&lines->lines, &capacity, lines->count, sizeof *lines->lines,
                        256)) {
            oom_log_lines_free(lines);
            return false;
        }
        struct text line = text_make(text + at, kept);
        lines->lines[lines->count] = (struct oom_log_line){line, line_body(line), lines->count + 1};
        lines->count++;
        at += length + 1;
    }
    return true;
}

void oom_log_lines_free(struct oom_log_lines *lines)
{
    free(lines->lines);
    memset(lines, 0, sizeof *lines);
}

long oom_log_find(struct text text, const char *needle)
{
    size_t length = strlen(needle);
    if (length == 0 || length > text.length)
        return length == 0 ? 0 : -1;
    const char *found = memmem(text.bytes, text.length, needle, length);
    return found ? (long)(found - text.bytes) : -1;
}

bool oom_log_after(struct text text, const char *needle, struct text *rest)
{
    long at = oom_log_find(text, needle);
    if (at < 0) {
        *rest = text_make(text.bytes + text.length, 0);
        return false;
    }
    size_t skip = (size_t)at + strlen(needle);
    *rest = text_make(text.bytes + skip, text.length - skip);
    return true;
}

struct text oom_log_trim(struct text text)
{
    while (text.length && is_blank(text.bytes[0])) {
        text.bytes++;
        text.length--;
    }
    while (text.length && is_blank(text.bytes[text.length - 1]))
        text.length--;
    return text;
}

bool oom_log_starts(struct text text, const char *prefix, struct text *rest)
{
    text = oom_log_trim(text);
    size_t length = strlen(prefix);
    if (text.length < length || memcmp(text.bytes, prefix, length) != 0)
        return false;
    if (rest)
        *rest = text_make(text.bytes + length, text.length - length);
    return true;
}

bool oom_log_key(struct text text, const char *key, struct text *rest)
{
    size_t length = strlen(key);
    for (size_t at = 0; at + length <= text.length;) {
        const char *found = memmem(text.bytes + at, text.length - at, key, length);
        if (!found)
            return false;
        size_t where = (size_t)(found - text.bytes);
        char before = where ? text.bytes[where - 1] : ' ';
        if (is_blank(before) || before == '|' || before == ']' || before == ':') {
            if (rest)
                *rest = text_make(found + length, text.length - where - length);
            return true;
        }
        at = where + 1;
    }
    return false;
}

bool oom_log_integer(struct text text, int64_t *value, size_t *end)
{
    size_t at = 0;
    while (at < text.length && is_blank(text.bytes[at]))
        at++;
    if (at >= text.length || !is_digit(text.bytes[at]))
        return false;
    int64_t number = 0;
    for (; at < text.length && is_digit(text.bytes[at]); at++) {
        int digit = text.bytes[at] - '0';
        if (number > (INT64_MAX - digit) / 10)
            return false;
        number = number * 10 + digit;
    }
    *value = number;
    if (end)
        *end = at;
    return true;
}

/* The multiplier of a unit at text (KiB, MiB, GiB, TiB, KB, MB, GB, TB,
 * B), and its length; 0 when none (a bare number: bytes). */
static double unit_at(struct text text, size_t at, size_t *length)
{
    static const struct {
        const char *name;
        double factor;
    } units[] = {
        {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},
        {"KB", 1024.0},  {"MB", 1048576.0},  {"GB", 1073741824.0},  {"TB", 1099511627776.0},
        {"B", 1.0},
    };
    for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
        size_t n = strlen(units[i].name);
        if (at + n <= text.length && memcmp(text.bytes + at, units[i].name, n) == 0) {
            *length = n;
            return units[i].factor;
        }
    }
    *length = 0;
    return 0.0;
}

bool oom_log_size(struct text text, int64_t *bytes, size_t *end)
{
    size_t at = 0;
    while (at < text.length && is_blank(text.bytes[at]))
        at++;
    size_t start = at;
    while (at < text.length && (is_digit(text.bytes[at]) || text.bytes[at] == '.'))
        at++;
    if (at == start || !is_digit(text.bytes[start]) || at - start > 40)
        return false;
    char number[48];
    memcpy(number, text.bytes + start, at - start);
    number[at - start] = '\0';
    double value = strtod(number, NULL);
    size_t after = at;
    if (after < text.length && text.bytes[after] == ' ')
        after++;
    size_t unit_length;
    double factor = unit_at(text, after, &unit_length);
    if (factor == 0.0)
        factor = 1.0; /* a bare number of bytes */
    else
        at = after + unit_length;
    double total = value * factor;
    if (!(total >= 0.0) || total >= 9.2e18)
        return false;
    *bytes = (int64_t)llround(total);
    if (end)
        *end = at;
    return true;
}
