/* xspace_expect: the tests' reader of `generate_xspace --expect` files
 * (the format its --help and tests/generate_xspace.c describe), and the
 * check of a loaded profile against one.
 *
 * Owns: splitting the file into records (a keyword and tokens, %XX
 * escapes undone, "" as the empty string) and comparing each record with
 * what memtop loaded: memory ids in order, per allocator the counts, the
 * summary, the peak step (the step of the latest snapshot at the peak),
 * every snapshot's step in time order (run-length and FNV-1a), the rows of
 * the table at the peak, and XProf's HLO modules (the TPU planes' ones:
 * memtop lists GPU planes' modules after them).
 * Called by: tests/test_load_xspace.c. Must not: use the generator's code:
 * the oracle and the loader stay independent. */
#ifndef MEMTOP_TESTS_XSPACE_EXPECT_H
#define MEMTOP_TESTS_XSPACE_EXPECT_H

#include <stdbool.h>
#include <stddef.h>

#include "model/profile.h"

/* True when the profile matches the expectations in [text, text+size);
 * else false, with the first difference (its line number, what was
 * expected and what memtop has) in message. */
bool xspace_expect_check(const struct profile *profile, const char *text, size_t size,
                         char *message, size_t message_size);

/* The number of groups the oracle made ("step_groups N"), or -1. */
long xspace_expect_step_groups(const char *text, size_t size);

#endif
