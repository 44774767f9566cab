/* compare: two profiles side by side (memtop --compare BASE NEW): their
 * allocators matched by memory id (or paired by --pair) with the deltas
 * of their summaries, and what was live at each one's peak grouped by op
 * name (or by location); and the hosts of two runs matched by name.
 *
 * Definitions:
 * - Allocators match when their memory ids ("GPU_0_bfc") are the same
 *   bytes, or when a pairing names them (see below). Pairs are listed in the base's allocator order, then the
 *   allocators only the new profile has, in its order; an allocator in
 *   one profile only has NULL on the other side and no deltas.
 * - Deltas are new minus base (saturating): peak (stack+heap at the
 *   window peak), heap and stack at that peak, capacity, and the
 *   allocation and deallocation counts (counts of the sample when a
 *   timeline is XProf's sample: allocator->timeline_sampled says so).
 * - The op table: each side's rows at its peak (allocator->rows, XProf's
 *   peak table, special rows included) summed by op name: bytes are a
 *   row's allocation bytes times its occurrences, counts its
 *   occurrences (as allocation_row_bytes() counts an occurrence below 1
 *   as 1, so does this). A row that names no snapshot (unresolved)
 *   counts under the op name "(unresolved)". Op names match by their
 *   bytes. Sorted by |delta| descending, ties by op name bytewise
 *   ascending: the CSV op_name,base_bytes,new_bytes,delta_bytes,
 *   base_count,new_count (report layer, later wave).
 *
 * Owns: the pair list, the op table and the host matches it builds (op
 * names point into the profiles' string tables: the profiles must
 * outlive them). Called by the compare view, --export compare,
 * --summary [--json] --compare and src/input.c (the hosts of two runs).
 * Must not: change either profile, draw, print. */
#ifndef MEMTOP_COMPARE_H
#define MEMTOP_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/host_list.h"
#include "model/profile.h"

#define COMPARE_UNRESOLVED_NAME "(unresolved)"

struct allocator_delta {
    int64_t peak_bytes;
    int64_t heap_bytes;
    int64_t stack_bytes;
    int64_t capacity_bytes;
    int64_t allocations;
    int64_t deallocations;
};

struct allocator_pair {
    const struct allocator *base; /* NULL: only in the new profile */
    const struct allocator *new;  /* NULL: only in the base profile */
    struct allocator_delta delta; /* all zero unless both are there */
};

struct profile_comparison {
    struct allocator_pair *pairs;
    size_t count;
};

/* False when memory runs out (the comparison is then empty but valid). */
bool profile_comparison_build(struct profile_comparison *comparison, const struct profile *base,
                              const struct profile *new);

/* --pair BASE_ID=NEW_ID: two allocators of different names paired (a
 * JAX port's cuda:0 against its PyTorch baseline's GPU_0_bfc). Ids as
 * memtop shows them (profile_find_allocator_named). */
struct allocator_pairing {
    const char *base_id;
    const char *new_id;
};

/* As profile_comparison_build, with the pairings first: a pairing whose
 * two ids both name an allocator pairs those two (each allocator in one
 * pair at most: the first pairing naming it wins), and the allocators
 * left match by memory id as above. A pairing naming an id a profile
 * lacks pairs nothing (the caller says so where it must). */
bool profile_comparison_build_paired(struct profile_comparison *comparison,
                                     const struct profile *base, const struct profile *new,
                                     const struct allocator_pairing *pairings,
                                     size_t pairing_count);
void profile_comparison_free(struct profile_comparison *comparison);

struct op_delta {
    const char *op_name; /* NUL-terminated, but may hold NULs: see the length */
    size_t op_name_length;
    int64_t base_bytes;
    int64_t new_bytes;
    int64_t delta_bytes; /* new - base, saturating */
    int64_t base_count;
    int64_t new_count;
};

/* The row's op name, all its bytes (how views and exports take it). */
struct text op_delta_name(const struct op_delta *row);

struct op_comparison {
    struct op_delta *rows;
    size_t count;
};

/* The op table of two allocators' peak rows; either allocator may be
 * NULL (no rows on that side). False when memory runs out (the table is
 * then empty but valid). O(r log r) in the rows. */
bool op_comparison_build(struct op_comparison *table, const struct profile *base,
                         const struct allocator *base_allocator, const struct profile *new,
                         const struct allocator *new_allocator);

/* What the rows are summed by: the op name (above), or where in the
 * user's code they were made (allocation_row.location, "file:line"; a
 * row without one counts under "(no location)"). */
enum op_comparison_key { COMPARE_BY_OP, COMPARE_BY_LOCATION };
#define COMPARE_NO_LOCATION_NAME "(no location)"

/* The key a format records: by location when a row of either side has
 * one, else by op. */
enum op_comparison_key op_comparison_key_for(const struct allocator *base_allocator,
                                             const struct allocator *new_allocator);
/* op_comparison_build, summed by `key` (op_name then holds the key). */
bool op_comparison_build_by(struct op_comparison *table, enum op_comparison_key key,
                            const struct profile *base, const struct allocator *base_allocator,
                            const struct profile *new, const struct allocator *new_allocator);
void op_comparison_free(struct op_comparison *table);

/* Two runs compared host by host: the hosts matched by name (all their
 * bytes), in BASE's order, then the hosts only NEW has, in its order;
 * -1 for the side a host is missing from. */
struct host_match {
    long base; /* index into BASE's host list, or -1 */
    long new;  /* index into NEW's, or -1 */
};

/* The matches of base's hosts [base_first, base_first + base_count) and
 * new's [new_first, new_first + new_count), malloc'd into *matches;
 * false when memory runs out. */
bool compare_match_hosts(const struct host_list *base, size_t base_first, size_t base_count,
                         const struct host_list *new, size_t new_first, size_t new_count,
                         struct host_match **matches, size_t *count);

#endif
