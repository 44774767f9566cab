/* natural_order: see natural_order.h. Digit runs compare by their value
 * without converting them (a 40-digit run still orders right): leading
 * zeros skipped, then the longer run is the larger, then digit by digit. */
#include "config.h"

#include "model/util/natural_order.h"

#include <stdbool.h>
#include <string.h>

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* The digit run at text[*at] compared with other's at other[*other_at];
 * both positions move past their runs. */
static int compare_numbers(const char *a, size_t a_length, size_t *a_at, const char *b,
                           size_t b_length, size_t *b_at)
{
    size_t i = *a_at, j = *b_at;
    while (i < a_length && a[i] == '0')
        i++;
    while (j < b_length && b[j] == '0')
        j++;
    size_t a_start = i, b_start = j;
    while (i < a_length && is_digit(a[i]))
        i++;
    while (j < b_length && is_digit(b[j]))
        j++;
    *a_at = i;
    *b_at = j;
    size_t a_digits = i - a_start, b_digits = j - b_start;
    if (a_digits != b_digits)
        return a_digits < b_digits ? -1 : 1;
    return memcmp(a + a_start, b + b_start, a_digits);
}

int natural_compare_bytes(const char *a, size_t a_length, const char *b, size_t b_length)
{
    size_t i = 0, j = 0;
    while (i < a_length && j < b_length) {
        if (is_digit(a[i]) && is_digit(b[j])) {
            int order = compare_numbers(a, a_length, &i, b, b_length, &j);
            if (order)
                return order < 0 ? -1 : 1;
            continue;
        }
        if (a[i] != b[j])
            return (unsigned char)a[i] < (unsigned char)b[j] ? -1 : 1;
        i++;
        j++;
    }
    if (i < a_length || j < b_length)
        return i < a_length ? 1 : -1;
    /* Equal as numbers: the bytes decide, so that the order is total. */
    size_t shorter = a_length < b_length ? a_length : b_length;
    int order = memcmp(a, b, shorter);
    if (order)
        return order < 0 ? -1 : 1;
    return (a_length > b_length) - (a_length < b_length);
}

int natural_compare(const char *a, const char *b)
{
    return natural_compare_bytes(a, strlen(a), b, strlen(b));
}

enum name_kind { NAME_EQUAL, NAME_SUFFIX, NAME_SUBSTRING };

static bool name_matches(const char *name, const char *wanted, enum name_kind kind)
{
    size_t length = strlen(name), wanted_length = strlen(wanted);
    switch (kind) {
    case NAME_EQUAL: return strcmp(name, wanted) == 0;
    case NAME_SUFFIX:
        return length >= wanted_length && strcmp(name + length - wanted_length, wanted) == 0;
    default: return strstr(name, wanted) != NULL;
    }
}

size_t natural_find(const char *wanted, name_at_fn name_at, const void *items, size_t count,
                    size_t *index, name_matched_fn matched, void *context)
{
    if (!wanted[0])
        return 0;
    for (enum name_kind kind = NAME_EQUAL; kind <= NAME_SUBSTRING; kind++) {
        size_t found = 0;
        for (size_t i = 0; i < count; i++)
            if (name_matches(name_at(items, i), wanted, kind) && found++ == 0)
                *index = i;
        if (found > 1 && matched)
            for (size_t i = 0; i < count; i++)
                if (name_matches(name_at(items, i), wanted, kind))
                    matched(context, i);
        if (found)
            return found;
    }
    return 0;
}
