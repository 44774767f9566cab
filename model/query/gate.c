/* gate: see gate.h. Comparisons in long double, so that a peak equal to
 * its limit compares equal (and passes) for every int64 size. */
#include "config.h"

#include "model/query/gate.h"

#include <math.h>

enum gate_result gate_over(const struct allocator *allocator, const struct gate_limit *limit,
                           int64_t *limit_bytes)
{
    int64_t peak = allocator->summary.peak_bytes;
    if (!limit->percent) {
        *limit_bytes = limit->bytes;
        return peak > limit->bytes ? GATE_CROSSED : GATE_PASSES;
    }
    int64_t capacity = allocator->summary.capacity_bytes;
    if (!allocator_records(allocator, ALLOCATOR_FIELD_CAPACITY) || capacity <= 0) {
        *limit_bytes = -1;
        return GATE_UNKNOWN;
    }
    long double bound = (long double)capacity * (long double)limit->share / 100.0L;
    *limit_bytes = bound >= (long double)INT64_MAX ? INT64_MAX : (int64_t)bound;
    /* peak > capacity * share / 100, exactly: peak * 100 > capacity * share. */
    return (long double)peak * 100.0L > (long double)capacity * (long double)limit->share
               ? GATE_CROSSED
               : GATE_PASSES;
}

enum gate_result gate_growth(const struct allocator *base, const struct allocator *new,
                             double percent, double *growth)
{
    int64_t before = base->summary.peak_bytes, after = new->summary.peak_bytes;
    if (before <= 0) {
        *growth = after > 0 ? INFINITY : 0.0;
        return after > 0 ? GATE_CROSSED : GATE_PASSES;
    }
    *growth = (double)(((long double)after - (long double)before) * 100.0L / (long double)before);
    /* after - before > before * percent / 100, without rounding the share. */
    return ((long double)after - (long double)before) * 100.0L >
                   (long double)before * (long double)percent
               ? GATE_CROSSED
               : GATE_PASSES;
}
