/* natural_order: the one order of names people read (hosts, runs,
 * allocators): runs of digits compare as numbers, so "w-2" comes before
 * "w-10" and "10.0.0.9" before "10.0.0.10"; other bytes compare as bytes.
 * Called by: the log directory (hosts, runs), the viewer's lists and the
 * pod overview; and the --host/--run matching (natural_find). Must not: allocate, or
 * depend on the locale (a list sorts the same on every machine). */
#ifndef MEMTOP_NATURAL_ORDER_H
#define MEMTOP_NATURAL_ORDER_H

#include <stddef.h>

/* <0, 0, >0 as a comes before, with, after b. Total: names equal as
 * numbers ("w-02", "w-2") are then ordered by their bytes. */
int natural_compare(const char *a, const char *b);
/* The same over byte ranges (names not ending in a NUL). */
int natural_compare_bytes(const char *a, size_t a_length, const char *b, size_t b_length);

/* A name a person typed (--host w-7, --run 06_39) among `count` names:
 * the one equal to it, else the names ending in it, else those holding
 * it, the first of these kinds that has any. Returns how many names the
 * kind matched (0: none; 1: *index is it; more: ambiguous, and
 * matched(context, i) is called for each, in order, for the message). */
typedef const char *(*name_at_fn)(const void *items, size_t index);
typedef void (*name_matched_fn)(void *context, size_t index);
size_t natural_find(const char *wanted, name_at_fn name_at, const void *items, size_t count,
                    size_t *index, name_matched_fn matched, void *context);

#endif
