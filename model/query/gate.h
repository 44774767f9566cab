/* gate: the CI gates' arithmetic (issue 24): whether an allocator's peak
 * is over a limit in bytes or over a share of its capacity
 * (--fail-over), and whether a peak grew by more than a share from BASE
 * to NEW (--fail-growth). A peak equal to the limit passes.
 * Called by main (src/gate_cli.c), which words and prints the crossings
 * and picks exit status 3. Must not print. */
#ifndef MEMTOP_GATE_H
#define MEMTOP_GATE_H

#include <stdbool.h>
#include <stdint.h>

#include "model/profile.h"

struct gate_limit {
    bool percent;   /* a share of the capacity, else bytes */
    int64_t bytes;  /* the limit in bytes (percent: false) */
    double share;   /* the limit as a percentage, 0..inf (percent: true) */
};

enum gate_result {
    GATE_PASSES,
    GATE_CROSSED,
    GATE_UNKNOWN, /* a share of a capacity the file does not record */
};

/* The allocator's peak (summary.peak_bytes) against the limit; *limit
 * gets the limit in bytes (for a share: of the capacity, rounded down). */
enum gate_result gate_over(const struct allocator *allocator, const struct gate_limit *limit,
                           int64_t *limit_bytes);
/* NEW's peak against BASE's grown by `percent` %: crossed when it grew by
 * more (from a peak of 0, any growth); *growth gets the growth in %
 * (INFINITY from 0). */
enum gate_result gate_growth(const struct allocator *base, const struct allocator *new,
                             double percent, double *growth);

#endif
