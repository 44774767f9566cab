/* live_set: which allocations were live at any time of a complete
 * timeline, and which of them grew since an earlier time, as allocation
 * rows that a row source can hand to the allocation table.
 *
 * Definition (issue 13; the tests check it against a brute-force replay):
 * the allocations live at time T are the state after every snapshot with
 * time_ps <= T, in timeline order, starting from the allocator's initial
 * allocations (struct allocator's initial: live when the timeline begins,
 * each mapped from its address; none for most formats): an ALLOCATION
 * maps its address to itself (replacing whatever the address held), a
 * DEALLOCATION unmaps its address (one never seen allocated unmaps
 * nothing); other activities change nothing. An initial allocation's
 * row is the one the loader gave (origin ROW_FROM_SPECIAL with an
 * address, no time, special_index its position among them); it never
 * counts as grown. Two special rows complete the picture, from the last
 * snapshot at or before T, when positive: "stack" (its stack bytes,
 * region "stack") and "allocated before the profile" (its heap bytes
 * minus the sum of the live allocations' sizes, region
 * "persist/dynamic"), both with data type "INVALID" and shape "unknown",
 * as XProf writes its special rows, with that snapshot's step: where the
 * initial allocations explain all of the heap (a PyTorch memory
 * snapshot) the second is absent. Before the first snapshot only the
 * initial allocations are live, and there are no special rows.
 *
 * Rows are merged and ordered as XProf orders its peak table: allocation
 * bytes descending, requested bytes descending, then op name, region,
 * data type and shape (bytewise, ascending); equal rows become one whose
 * `occurrences` counts them and whose snapshot fields (index, time, step,
 * address) are those of the latest of them, as XProf keeps the last one.
 * A snapshot row has origin ROW_FROM_SNAPSHOT, snapshot_index = its
 * timeline index (allocator->timeline, after time sorting), has_time and
 * time_ps = the allocation's time. Special rows have origin
 * ROW_FROM_SPECIAL, snapshot_index -1 - i and special_index i, i counting
 * the special rows present in XProf's order ("allocated before the
 * profile" first, then "stack"): the numbering XProf gives its own.
 *
 * How: a replay by address with checkpoints. live_index_build() replays
 * the timeline once, from the initial allocations, and stores, every K
 * snapshots or more (see live_index_build), the live set as a sorted
 * list of allocation numbers (the initial allocations', then timeline
 * indices after them), delta- and varint-coded: the first checkpoint,
 * before any snapshot, holds the initial allocations. A query starts from the last checkpoint at or
 * before T and replays at most the gap to T, so it costs O(K + live rows)
 * whatever T is. The checkpoints' total size is bounded by one entry per
 * snapshot at worst (a checkpoint holding L allocations is followed by a
 * gap of at least L snapshots) and is typically a few percent of the
 * timeline's columns.
 *
 * Owns: the index (checkpoints and query scratch), the rows it returns
 * (in a struct live_rows the caller keeps and frees). Called by the
 * viewer (the table following the chart cursor, the mark) and by the
 * batch export (--at, --since), each building an index per allocator the
 * first time it needs one (live_index_cache does that). Must not: change
 * the profile, with one exception said at live_index_build; draw; print;
 * answer from a sampled timeline (it refuses with LIVE_SAMPLED_TIMELINE).
 * An index reads the profile's columns as it answers: free it before the
 * profile. It is not safe to query from two threads at once, nor to
 * build while another thread interns into the same profile. */
#ifndef MEMTOP_LIVE_SET_H
#define MEMTOP_LIVE_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"

enum live_status {
    LIVE_OK = 0,
    /* The timeline is XProf's sample (allocator->timeline_sampled): live
     * sets cannot be computed from it. Bad input: exit status 2. */
    LIVE_SAMPLED_TIMELINE,
    /* The format records no timeline (a Skyline report: timeline_kind
     * TIMELINE_NONE): there is no time to ask about. Bad input: exit
     * status 2. */
    LIVE_NO_TIMELINE,
    /* Memory ran out (or the timeline has 2^32 snapshots or more, which
     * would not fit in memory anyway). Runtime failure: exit status 1. */
    LIVE_NO_MEMORY,
};

/* One line for people, without the file name (main and the viewer add
 * it): for LIVE_SAMPLED_TIMELINE "live allocations need the full
 * timeline; this file keeps XProf's 1000-snapshot sample (open the run's
 * .xplane.pb instead)"; for LIVE_NO_TIMELINE "live allocations need a
 * timeline; this report records none". */
const char *live_status_message(enum live_status status);

/* The op names of the special rows, as they appear in the rows. */
#define LIVE_STACK_NAME "stack"
#define LIVE_BEFORE_PROFILE_NAME "allocated before the profile"

/* K: checkpoints are at least this many snapshots apart (a query replays
 * fewer than max(K, live allocations at the checkpoint) snapshots). */
#define LIVE_INDEX_DEFAULT_INTERVAL 16384

struct live_index;
struct live_special_texts; /* model/query/live_rows.h */

/* Rows of one query, owned by the caller: start from {0}, pass to as
 * many queries as you like (each replaces the rows, their array too:
 * the query sorts its groups in place and hands that array over), free
 * with live_rows_free(). */
struct live_rows {
    struct allocation_row *rows;
    size_t count;
    size_t capacity;
    /* The rows' bytes (allocation bytes times occurrences), special rows
     * included, saturating: what allocation_table_shown_bytes() shows
     * unfiltered. */
    int64_t total_bytes;
    /* Live allocations behind the rows, before merging; specials not
     * counted. */
    size_t allocations;
    /* The last snapshot at or before the query's time (the one the
     * special rows come from); -1 when the time is before the first. */
    int64_t as_of_index;
};

void live_rows_free(struct live_rows *rows);

/* Replays allocator's timeline and builds its index with checkpoints at
 * least `interval` snapshots apart (0: LIVE_INDEX_DEFAULT_INTERVAL).
 * Refuses a sampled timeline (LIVE_SAMPLED_TIMELINE, *out = NULL) and a
 * format without one (LIVE_NO_TIMELINE).
 * The one change to the profile: the special rows' texts (op names,
 * regions, "INVALID", "unknown") are interned into profile->strings, so
 * that rows name strings by id as every other row does. The string table
 * only grows: no existing id or text changes or moves. O(n) time, plus
 * O(L log L) per checkpoint of L live allocations. */
enum live_status live_index_build(const struct profile *profile, const struct allocator *allocator,
                                  size_t interval, struct live_index **out);
void live_index_free(struct live_index *index);

/* The rows live at time_ps (see the definition above). LIVE_OK or
 * LIVE_NO_MEMORY (the rows are then empty). */
enum live_status live_index_rows_at(struct live_index *index, int64_t time_ps,
                                    struct live_rows *rows);

/* The same rows as live_index_rows_at, by one replay from the start up to
 * time_ps and no index: for one question asked once (the builder's table
 * at the peak). Refuses as live_index_build does; the special rows'
 * texts are interned into profile->strings. */
enum live_status live_rows_at_once(const struct profile *profile, const struct allocator *allocator,
                                   int64_t time_ps, struct live_rows *rows);
/* What a loader's own replay found live after the first `end` snapshots
 * of the timeline, before it was handed over: the timeline indices
 * (any order) of the allocations live then, by the definition above
 * less the initial allocations (the loader's replay held none). */
struct live_timeline_hint {
    size_t end;
    const uint32_t *live;
    size_t count;
};

/* live_rows_at_once with the special rows' texts interned by the caller:
 * nothing of the profile is written, so that the builder may ask it for
 * several allocators of one profile at once, on threads of its own. And
 * from `hint` where its end is time_ps's (the caller vouches that the
 * timeline kept the order the loader saw): the initial allocations still
 * live are found by a replay of their own addresses alone, and no map of
 * every open address is built. Any other hint, or none (NULL), and the
 * whole timeline is replayed. */
enum live_status live_rows_at_once_hinted(const struct profile *profile,
                                          const struct allocator *allocator, int64_t time_ps,
                                          const struct live_special_texts *texts,
                                          const struct live_timeline_hint *hint,
                                          struct live_rows *rows);

/* The same rows from a live set the caller already has: the timeline
 * indices `live` (any order) of the allocations live after the first
 * `end` snapshots, for a loader whose own pass over the timeline found
 * them (XSpace's deallocation matching), so that no second replay is
 * needed. The special rows' texts are interned into profile->strings. */
enum live_status live_rows_of_set(const struct profile *profile,
                                  const struct snapshot_columns *timeline, const uint32_t *live,
                                  size_t count, size_t end, struct live_rows *rows);

/* What grew: the rows live at time_ps whose allocation time is strictly
 * after since_ps, without special rows; total_bytes is their total.
 * Empty when since_ps >= time_ps. */
enum live_status live_index_rows_grown(struct live_index *index, int64_t since_ps,
                                       int64_t time_ps, struct live_rows *rows);

/* The allocations live at time_ps by number, ascending, in a new array
 * the caller frees (*indices is NULL when none): initial allocation k
 * as k, timeline index i as i + the allocator's initial_count (so a
 * timeline index where there are no initial allocations). The unmerged
 * set behind live_index_rows_at(), for tests and tools. */
enum live_status live_index_allocations_at(struct live_index *index, int64_t time_ps,
                                           size_t **indices, size_t *count);

/* The checkpoints, for tests and the benchmark: how many, where each one
 * is (the number of snapshots replayed before it; the first is at 0),
 * and the bytes they take (entries and bookkeeping, not query scratch). */
size_t live_index_checkpoint_count(const struct live_index *index);
size_t live_index_checkpoint_position(const struct live_index *index, size_t checkpoint);
size_t live_index_checkpoint_bytes(const struct live_index *index);

/* One index per allocator of a profile, each built the first time it is
 * asked for. Start from live_index_cache_init(); the cache owns the
 * indexes. */
struct live_index_cache {
    const struct profile *profile;
    struct live_index **indexes; /* by allocator position; NULL: not built */
    size_t interval;             /* for the indexes it builds; 0: default */
};

void live_index_cache_init(struct live_index_cache *cache, const struct profile *profile);
/* The index of profile->allocators[allocator_index], built now if it is
 * not yet; a refusal (sampled timeline) or a failure is not remembered,
 * so asking again costs a check, and a build that ran out of memory is
 * tried again. */
enum live_status live_index_cache_get(struct live_index_cache *cache, size_t allocator_index,
                                      struct live_index **index);
void live_index_cache_free(struct live_index_cache *cache);

#endif
