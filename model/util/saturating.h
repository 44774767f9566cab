/* saturating: int64 arithmetic that stops at the ends instead of
 * overflowing. Byte counts and times come from files and can be anything;
 * a sum past INT64_MAX then shows as the largest value, never as a
 * negative one (and is not undefined behaviour). Called by: anything in
 * the model that adds file values (columns, summaries, breakdowns). */
#ifndef MEMTOP_SATURATING_H
#define MEMTOP_SATURATING_H

#include <stdint.h>

static inline int64_t saturating_add(int64_t a, int64_t b)
{
    int64_t sum;
    if (__builtin_add_overflow(a, b, &sum))
        return a > 0 ? INT64_MAX : INT64_MIN;
    return sum;
}

static inline int64_t saturating_subtract(int64_t a, int64_t b)
{
    int64_t difference;
    if (__builtin_sub_overflow(a, b, &difference))
        return b < 0 ? INT64_MAX : INT64_MIN;
    return difference;
}

#endif
