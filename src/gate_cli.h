/* gate_cli: the CI gates on the command line (issue 24): each crossing
 * as one line on stderr, and whether any was crossed, so that main exits
 * with status 3. The arithmetic is model/query/gate.h's. Called by main (each
 * host's profile while it is loaded) and compare_cli (the matched
 * pairs). */
#ifndef MEMTOP_GATE_CLI_H
#define MEMTOP_GATE_CLI_H

#include <stdbool.h>

#include "model/query/compare.h"
#include "model/profile.h"
#include "src/options.h"

/* --fail-over against every allocator of `profile`; true when one of
 * them crossed it. */
bool gate_cli_over(const struct gate_options *gates, const struct profile *profile);
/* --fail-growth against every pair matched in both profiles; true when
 * one of them crossed it. */
bool gate_cli_growth(const struct gate_options *gates, const struct profile *base,
                     const struct profile_comparison *pairs);

#endif
