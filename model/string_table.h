/* string_table: owns every string read from a profile (op names, regions,
 * data types, shapes, allocator ids, HLO names), stored once each.
 *
 * Columns hold 32-bit ids instead of pointers: a 1M-snapshot timeline has a
 * few hundred distinct op names, so interning saves most of the memory and
 * lets views compare strings by id. Id 0 is always the empty string.
 * Strings are kept byte for byte as the file had them, with their length
 * (they may hold any bytes, NUL and control characters included), and
 * are handed out as a struct text (model/util/text.h); making them safe to
 * draw is the views' job. Called by: the loaders (through the builder's table),
 * every view and report (text by id). Must not: change a string once
 * given out: ids are kept for the profile's life. */
#ifndef MEMTOP_STRING_TABLE_H
#define MEMTOP_STRING_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/util/text.h"

#define STRING_ID_EMPTY 0u
#define STRING_ID_NONE UINT32_MAX /* returned when memory runs out */
/* Ids stay below this: a stack id (model/stack_text.h) with this bit
 * set names a stack kept as frames, not a string. */
#define STRING_ID_LIMIT 0x80000000u

struct string_table;

struct string_table *string_table_new(void);
void string_table_free(struct string_table *table);

/* The id of the bytes [text, text+length); adds them if new.
 * Returns STRING_ID_NONE only when memory runs out. */
uint32_t string_table_intern(struct string_table *table, const char *text, size_t length);

/* The same, first checking the last string interned under `hint` (any
 * number naming a field, such as its place in a struct): fields like
 * data_type and region_type repeat their value from one snapshot to the
 * next almost always, and then no hash is needed. */
uint32_t string_table_intern_hinted(struct string_table *table, unsigned hint, const char *text,
                                    size_t length);

/* Adds every string of `other` to `table`: ids[i] becomes the id in
 * `table` of other's id i (ids has string_table_count(other) elements).
 * Faster than interning them one by one. False when memory runs out
 * (`table` then holds some of them). */
bool string_table_merge(struct string_table *table, const struct string_table *other,
                        uint32_t *ids);

/* The bytes of an id with their length; the empty text for an id the
 * table never gave out. What views, reports and messages use. */
struct text string_table_get(const struct string_table *table, uint32_t id);
/* The same bytes, NUL-terminated (the table keeps a NUL after each), and
 * their length. A string may hold a NUL of its own, where a C string
 * stops short: only the tests and string_table_get's callers that need
 * a C string of text known to hold none use this. */
const char *string_table_text(const struct string_table *table, uint32_t id);
size_t string_table_length(const struct string_table *table, uint32_t id);

/* Number of distinct strings, the empty one included. */
size_t string_table_count(const struct string_table *table);

/* Two strings' order, bytewise as C++'s std::string compares them (a NUL
 * inside counts, a prefix comes first): XProf's order of names. */
int string_table_compare(const struct string_table *table, uint32_t a, uint32_t b);

#endif
