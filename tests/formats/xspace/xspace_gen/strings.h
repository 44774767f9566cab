/* strings: the generator's interned byte strings (tests/generate_xspace).
 *
 * Every name, op, shape and allocator the generator writes is interned
 * once and named by a small id, so events can carry strings cheaply and
 * the oracle can compare them by id or bytes. Strings are bytes with a
 * length: hostile ones hold NUL, escapes and invalid UTF-8. Id 0 is the
 * empty string. Ids and their order depend only on the calls made, so the
 * output is deterministic. */
#ifndef XSPACE_GEN_STRINGS_H
#define XSPACE_GEN_STRINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct text {
    const uint8_t *data;
    size_t size;
};

void strings_init(void);
void strings_free(void);
/* The id of these bytes, interning them on first sight. */
uint32_t string_intern(const void *data, size_t size);
/* The same for a C string (no NUL inside). */
uint32_t string_c(const char *text);
/* printf into a new interned string (at most 1023 bytes). */
uint32_t string_printf(const char *format, ...) __attribute__((format(printf, 1, 2)));
struct text string_text(uint32_t id);
/* Whether string `id` is exactly `text` (a C string), or starts with it. */
bool string_is(uint32_t id, const char *text);
bool string_starts_with(uint32_t id, const char *prefix);
/* Bytewise comparison (as std::string compares): <0, 0, >0. */
int string_compare(uint32_t a, uint32_t b);

#endif
