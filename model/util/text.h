/* text: a view of bytes with their length, the form in which a profile's
 * strings (op names, allocator ids, ...) and the messages that quote them
 * travel from the loaders to every view, report and printer.
 *
 * A profile string may hold any byte, NUL included: two allocators named
 * "A\0x" and "A\0y" are two allocators, and must stay two wherever they
 * are shown, compared or written. So they never travel as NUL-terminated
 * C strings: the string table hands out a struct text
 * (model/string_table.h's string_table_get, model/profile.h's
 * profile_string), and the writers take one (format_safe_bytes,
 * draw_bytes, csv_writer_bytes, json_writer_bytes). text_of() is for
 * our own NUL-terminated text: literals, paths, what the user typed.
 * Called by: everything that handles a profile's text.
 * Must not: own the bytes (a view borrows them) or escape them: the
 * writers do that (model/format.h says how). */
#ifndef MEMTOP_TEXT_H
#define MEMTOP_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

struct text {
    const char *bytes; /* not NUL-terminated as far as a reader knows */
    size_t length;
};

static inline struct text text_make(const char *bytes, size_t length)
{
    return (struct text){bytes, length};
}

/* A NUL-terminated string as a view (NULL is the empty text). */
static inline struct text text_of(const char *string)
{
    return (struct text){string ? string : "", string ? strlen(string) : 0};
}

/* Bytewise, as std::string compares: a shorter text that is a prefix of
 * a longer one comes first; a NUL counts like any other byte. */
static inline int text_compare(struct text a, struct text b)
{
    size_t common = a.length < b.length ? a.length : b.length;
    int order = common ? memcmp(a.bytes, b.bytes, common) : 0;
    if (order != 0)
        return order;
    return (a.length > b.length) - (a.length < b.length);
}

static inline bool text_equal(struct text a, struct text b)
{
    return a.length == b.length && (a.length == 0 || memcmp(a.bytes, b.bytes, a.length) == 0);
}

/* Whether the text holds a NUL byte (and so cannot pass as a C string). */
static inline bool text_has_nul(struct text text)
{
    return text.length > 0 && memchr(text.bytes, '\0', text.length) != NULL;
}

#endif
