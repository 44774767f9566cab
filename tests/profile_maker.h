/* profile_maker: finished profiles made by hand or cut from a loaded one,
 * for the tests of the queries over a profile (live sets, steps,
 * compare) and for their generated-profile cases.
 *
 * The one place those tests touch the profile builder: when the
 * builder's calls change, only this file changes. Everything here asserts
 * (cmocka) instead of returning errors. */
#ifndef MEMTOP_PROFILE_MAKER_H
#define MEMTOP_PROFILE_MAKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"

/* What a hand-made snapshot or row says, in text. NULL texts are "". */
struct made_event {
    int64_t time_ps;
    int activity;
    uint64_t address;
    int64_t allocation_bytes;
    int64_t requested_bytes; /* 0: same as allocation_bytes */
    const char *op;
    int64_t step_id;
    int64_t heap_bytes;
    int64_t stack_bytes;
    const char *region; /* NULL: "output" */
};

struct profile *profile_maker_new(void);
/* The allocator with this memory id, created if new. */
struct allocator *profile_maker_allocator(struct profile *profile, const char *id);
/* Appends to the allocator's full timeline (sampled: to XProf's sample). */
void profile_maker_append(struct profile *profile, struct allocator *allocator,
                          const struct made_event *event, bool sampled);
/* A peak-table row: a snapshot the row points at (not on the timeline
 * when the allocator has a sample, else on it) with this many
 * occurrences. */
void profile_maker_add_row(struct profile *profile, struct allocator *allocator,
                           const struct made_event *event, int64_t occurrences);
/* A special row (XProf's "stack" and the like) and a row that points
 * nowhere (unresolved). */
void profile_maker_add_special_row(struct profile *profile, struct allocator *allocator,
                                   const struct made_event *event);
void profile_maker_add_unresolved_row(struct allocator *allocator);
/* A named span (struct time_span) from start_ps to end_ps on the
 * allocator of memory id `allocator_id` (NULL: every allocator). */
void profile_maker_add_span(struct profile *profile, const char *allocator_id, const char *name,
                            int64_t start_ps, int64_t end_ps);
/* The allocations live when the allocator's timeline begins
 * (profile_builder_set_initial_allocations): rows with the events'
 * address, sizes and op, and `locations[i]` as row i's location and
 * stack when `locations` is not NULL. */
void profile_maker_set_initial(struct profile *profile, struct allocator *allocator,
                               const struct made_event *events, const char *const *locations,
                               size_t count);
/* Finish makes the allocator's rows the live set at its peak
 * (profile_builder_make_live_rows). */
void profile_maker_live_rows(struct profile *profile, struct allocator *allocator);
/* XProf's finishing and the builder's (profile_builder_finish), asserted. */
void profile_maker_finish(struct profile *profile);

/* A finished profile with one allocator of the same memory id whose full
 * timeline is snapshots [first, count) of `source`'s allocator
 * `allocator_index`, each time rounded down to a multiple of `time_grid`
 * when it is above 0 (which makes many equal times and keeps the order):
 * a profiling window that opens late, with frees of allocations made
 * before it. */
struct profile *profile_maker_window(const struct profile *source, size_t allocator_index,
                                     size_t first, int64_t time_grid);

/* A finished profile like profile_maker_window's (no time grid) whose
 * allocator also starts from the allocations live after the first
 * `first` snapshots of the source's (its last allocation or free per
 * address decides), handed over as initial allocations in the order of
 * their snapshots, each with its snapshot's address, sizes and op. */
struct profile *profile_maker_window_seeded(const struct profile *source, size_t allocator_index,
                                            size_t first);

/* Runs tests/generate_profile (from $MEMTOP_BUILDDIR) with `arguments`
 * into the test directory as `name`, loads it; NULL when the build
 * directory is unknown (outside make check). */
struct profile *profile_maker_generate(const char *name, const char *arguments);

#endif
