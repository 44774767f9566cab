/* steps: one allocator's timeline told step by step, from the snapshots'
 * step_id: when each step ran, its peak, the memory in use at its end,
 * its allocations and frees, how its end moved from the step before, and
 * whether it looks like a leak.
 *
 * Definitions:
 * - A step is every snapshot with one step_id. Steps are listed in the
 *   order their first snapshot appears on the (time-sorted) timeline;
 *   steps may overlap in time (an input pipeline allocating for step N+1
 *   during step N), each keeps its own snapshots.
 * - start/end: the times of the step's first and last snapshot.
 * - peak: the largest stack+heap among its snapshots and when; a later
 *   snapshot wins ties, as XProf's summary and peak step do.
 * - end_bytes: stack+heap of its last snapshot.
 * - allocations / deallocations: its ALLOCATION / DEALLOCATION snapshots.
 * - end_delta_bytes: end_bytes minus the end_bytes of the step listed
 *   before it (saturating); the first step has none (has_previous false,
 *   end_delta_bytes 0).
 * - possible_leak: the step ended higher than the step before it, and so
 *   did each of the STEP_LEAK_RISES - 1 steps before it: with 3, a step
 *   is flagged when end_bytes rose strictly over 3 consecutive steps
 *   ending with it (4 steps, each end above the one before). Every step
 *   of a longer run of rises from the third rise on is flagged.
 * - step_id -1 (the default of files that record no step; XProf itself
 *   renumbers them, other formats may not) is not a step of the loop:
 *   such snapshots are gathered in one entry with step_id -1 (is_none),
 *   listed last, with no delta and never flagged, and they do not break
 *   the chain of the steps around them. Any other id, negative ones
 *   included, is a step like the others.
 *
 * On XProf's 1000-snapshot sample (allocator->timeline_sampled) the table
 * describes the sample: times and peaks are those of the kept snapshots
 * and the counts count the sample. `sampled` says so; a view must say it
 * too.
 *
 * The CSV the batch export writes from it (report layer, later wave):
 * step_id,start_time_ps,end_time_ps,peak_bytes,peak_time_ps,end_bytes,
 * allocations,deallocations,end_delta_bytes.
 *
 * Owns: the table it builds. Called by the steps view and the steps
 * export. Must not: change the profile, draw, print. */
#ifndef MEMTOP_STEPS_H
#define MEMTOP_STEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"

#define STEP_LEAK_RISES 3
#define STEP_ID_NONE (-1)

struct step_row {
    int64_t step_id;
    bool is_none; /* step_id -1: snapshots outside any step, listed last */
    int64_t start_time_ps;
    int64_t end_time_ps;
    int64_t peak_bytes; /* stack + heap */
    int64_t peak_time_ps;
    int64_t end_bytes;
    size_t allocations;
    size_t deallocations;
    bool has_previous; /* false for the first step and for step -1 */
    int64_t end_delta_bytes;
    bool possible_leak;
    /* Timeline indices: for zooming the chart to the step. */
    size_t first_index;
    size_t last_index;
    size_t peak_index;
    size_t snapshot_count;
};

struct step_table {
    struct step_row *rows;
    size_t count;
    bool sampled; /* built from XProf's sample: counts count the sample */
};

/* Builds the table of `allocator`'s steps (empty for an empty timeline);
 * false when memory runs out (the table is then empty but valid). O(n)
 * in the snapshots. */
bool step_table_build(struct step_table *table, const struct allocator *allocator);
void step_table_free(struct step_table *table);

#endif
