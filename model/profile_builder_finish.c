/* profile_builder_finish: the builder's last stage (model/profile_builder.h's
 * profile_builder_finish): every allocator's out-of-memory errors sorted
 * by time, its timeline fitted, sorted (stably) and indexed, its
 * allocations and deallocations counted, and its rows made the live set
 * at the peak where that is asked for or XProf's table was given over a
 * complete timeline (or taken from a loader that found that live set on
 * its own pass: profile_builder_set_peak_live_rows), its allocation
 * blocks sorted by snapshot; then the profile is
 * handed over. Allocators are finished on threads of their own where
 * there are several big ones and a core for each (a PyTorch snapshot's
 * devices, an XSpace host's): each thread writes its allocator alone,
 * and the texts the rows share are interned before they start.
 * Called by: the loaders, through profile_builder_finish() and
 * profile_builder_set_peak_live_rows(). Calls the
 * builder's own helpers (model/profile_builder_internal.h), never the
 * other way round.
 * Must not: know any file format. */
#include "config.h"

#include "model/profile_builder.h"
#include "model/profile_builder_internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/query/live_rows.h"
#include "model/query/live_set.h"
#include "model/timeline.h"
#include "model/util/index_sort.h"

/* Blocks by snapshot index, least significant 11 bits first (a loader
 * hands them over in hash order: hundreds of thousands for a big
 * snapshot, where a comparison sort took tens of milliseconds); as many
 * passes as the largest index needs. False when memory runs out. */
#define BLOCK_DIGIT_BITS 11
static bool allocator_sort_blocks_array(struct allocation_block *blocks, size_t count)
{
    size_t largest = 0;
    bool sorted = true;
    for (size_t i = 0; i < count; i++) {
        if (blocks[i].snapshot_index > largest)
            largest = blocks[i].snapshot_index;
        sorted = sorted && (i == 0 || blocks[i - 1].snapshot_index <= blocks[i].snapshot_index);
    }
    if (sorted)
        return true;
    struct allocation_block *scratch = malloc(count * sizeof *scratch);
    if (!scratch)
        return false;
    struct allocation_block *from = blocks, *to = scratch;
    for (unsigned shift = 0; shift < sizeof(size_t) * 8 && (largest >> shift) != 0;
         shift += BLOCK_DIGIT_BITS) {
        size_t counts[1u << BLOCK_DIGIT_BITS] = {0};
        size_t mask = ((size_t)1 << BLOCK_DIGIT_BITS) - 1;
        for (size_t i = 0; i < count; i++)
            counts[(from[i].snapshot_index >> shift) & mask]++;
        size_t at = 0;
        for (size_t d = 0; d <= mask; d++) {
            size_t here = counts[d];
            counts[d] = at;
            at += here;
        }
        for (size_t i = 0; i < count; i++)
            to[counts[(from[i].snapshot_index >> shift) & mask]++] = from[i];
        struct allocation_block *swap = from;
        from = to;
        to = swap;
    }
    if (from != blocks)
        memcpy(blocks, from, count * sizeof *blocks);
    free(scratch);
    return true;
}

/* Counted in locals: a count kept in the summary, written through a
 * pointer the activity bytes may alias, is stored and loaded again each
 * snapshot (5 ms for 2 million), where locals let the loop run in vector
 * registers. */
static void allocator_count_activities(struct allocator *allocator)
{
    const int8_t *activity = allocator->timeline.activity;
    size_t count = allocator->timeline.count, allocations = 0, deallocations = 0;
    for (size_t i = 0; i < count; i++) {
        allocations += activity[i] == MEMORY_ACTIVITY_ALLOCATION;
        deallocations += activity[i] == MEMORY_ACTIVITY_DEALLOCATION;
    }
    allocator->summary.allocations = allocations;
    allocator->summary.deallocations = deallocations;
}

static bool oom_earlier(const void *context, size_t a, size_t b)
{
    const struct oom_event *ooms = context;
    return ooms[a].time_ps < ooms[b].time_ps;
}

static bool allocator_sort_ooms(struct allocator *allocator)
{
    size_t count = allocator->oom_count;
    if (count < 2)
        return true;
    size_t *order = index_sort_order(count, oom_earlier, allocator->ooms);
    struct oom_event *sorted = malloc(count * sizeof *sorted);
    bool ok = order && sorted;
    if (ok) {
        for (size_t i = 0; i < count; i++)
            sorted[i] = allocator->ooms[order[i]];
        free(allocator->ooms);
        allocator->ooms = sorted;
        sorted = NULL;
    }
    free(order);
    free(sorted);
    return ok;
}

/* *kept_order: whether the timeline was in time order already (a
 * loader's indices into it still hold). */
static bool allocator_finish(struct allocator *allocator, bool *kept_order)
{
    if (!allocator_sort_ooms(allocator) ||
        !allocator_sort_blocks_array(allocator->allocation_blocks,
                                     allocator->allocation_block_count))
        return false;
    snapshot_columns_fit(&allocator->timeline);
    *kept_order = snapshot_columns_times_sorted(&allocator->timeline);
    if (!*kept_order && !profile_builder_timeline_sorted(&allocator->timeline))
        return false;
    allocator_count_activities(allocator);
    allocator->timeline_sampled = allocator->timeline_kind == TIMELINE_SAMPLED;
    return timeline_index_build(&allocator->timeline);
}

static bool profile_builder_note_dropped_warnings(struct profile_builder *builder)
{
    if (builder->warnings_dropped == 0)
        return true;
    char line[96];
    snprintf(line, sizeof line, "... and %zu more warnings like these",
             builder->warnings_dropped);
    return profile_builder_append_warning(builder, text_of(line));
}

/* Where the timeline is complete and the loader gave XProf's peak-step
 * table, that table moves to xprof_rows and `rows` becomes what was live
 * at the peak instant: the live-set query's own rows at peak_time_ps, so
 * that the table at the peak and `--at <peak>` agree row for row. A
 * loader that `asked` (profile_builder_make_live_rows) gets those rows
 * without an XProf table. */
/* `live` (emptied) becomes `rows`; XProf's table, where the loader gave
 * one, moves to xprof_rows (other rows the loader added are dropped). */
static void allocator_adopt_live_rows(struct allocator *allocator, struct live_rows *live)
{
    if (allocator->rows_kind == ALLOCATOR_ROWS_XPROF) {
        allocator->xprof_rows = allocator->rows;
        allocator->xprof_row_count = allocator->row_count;
        allocator->xprof_kept = true;
    } else {
        free(allocator->rows);
    }
    allocator->rows = live->rows;
    allocator->row_count = live->count;
    allocator->live_allocations = live->allocations;
    allocator->rows_kind = ALLOCATOR_ROWS_LIVE;
    *live = (struct live_rows){.as_of_index = -1};
}

static bool allocator_wants_live_rows(const struct allocator *allocator,
                                      const struct live_at_finish *finish)
{
    bool asked = finish->asked;
    bool xprof = allocator->rows_kind == ALLOCATOR_ROWS_XPROF;
    return (xprof || asked) && allocator->timeline_kind == TIMELINE_COMPLETE &&
           allocator->timeline.count != 0;
}

static bool allocator_make_live_rows(const struct profile *profile, struct allocator *allocator,
                                     const struct live_at_finish *finish, bool kept_order,
                                     const struct live_special_texts *texts)
{
    if (!allocator_wants_live_rows(allocator, finish))
        return true;
    struct live_rows live = {0};
    struct live_timeline_hint hint = {finish->end, finish->live, finish->count};
    enum live_status status =
        live_rows_at_once_hinted(profile, allocator, allocator->summary.peak_time_ps, texts,
                                 finish->live && kept_order ? &hint : NULL, &live);
    if (status != LIVE_OK) {
        live_rows_free(&live);
        return false;
    }
    allocator_adopt_live_rows(allocator, &live);
    return true;
}

void profile_builder_set_peak_live_rows(struct profile_builder *builder, size_t index,
                                        struct live_rows *live)
{
    struct allocator *allocator = &builder->profile->allocators[index];
    builder->row_capacity[index] = live->capacity;
    allocator_adopt_live_rows(allocator, live);
}

/* ---- the allocators, on as many threads as pay ---- */

/* Below this many snapshots in all, threads cost more than they save. */
#define FINISH_THREADS_MIN_SNAPSHOTS 200000
#define FINISH_THREADS_MAX 8

struct finish_work {
    struct profile *profile;
    const struct live_at_finish *finish; /* per allocator */
    const struct live_special_texts *texts;
    atomic_size_t next;    /* the next allocator to take */
    atomic_bool failed;
};

static bool finish_one(struct finish_work *work, size_t i)
{
    struct allocator *allocator = &work->profile->allocators[i];
    bool kept_order;
    return allocator_finish(allocator, &kept_order) &&
           allocator_make_live_rows(work->profile, allocator, &work->finish[i], kept_order,
                                    work->texts);
}

static void *finish_thread(void *context)
{
    struct finish_work *work = context;
    for (;;) {
        size_t i = atomic_fetch_add(&work->next, 1);
        if (i >= work->profile->allocator_count || atomic_load(&work->failed))
            return NULL;
        if (!finish_one(work, i))
            atomic_store(&work->failed, true);
    }
}

/* How many threads: one per allocator while cores last, none extra for
 * a small profile. MEMTOP_TEST_FINISH_THREADS (set, non-empty) asks for
 * one per allocator whatever the size and the cores, so that the tests'
 * small files take the threaded path too. */
static size_t finish_thread_count(const struct profile *profile)
{
    const char *forced = getenv("MEMTOP_TEST_FINISH_THREADS");
    if (forced && *forced)
        return profile->allocator_count < FINISH_THREADS_MAX ? profile->allocator_count
                                                              : FINISH_THREADS_MAX;
    size_t snapshots = 0;
    for (size_t i = 0; i < profile->allocator_count; i++)
        snapshots += profile->allocators[i].timeline.count;
    if (profile->allocator_count < 2 || snapshots < FINISH_THREADS_MIN_SNAPSHOTS)
        return 1;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t count = cores > 1 ? (size_t)cores : 1;
    if (count > profile->allocator_count)
        count = profile->allocator_count;
    return count < FINISH_THREADS_MAX ? count : FINISH_THREADS_MAX;
}

/* Every allocator finished and given its rows; the calling thread takes
 * its share, so that a thread that cannot start costs only time. */
static bool finish_allocators(struct profile *profile, const struct live_at_finish *finish)
{
    /* Interned only where rows are made: a profile without them keeps
     * the strings it had. */
    struct live_special_texts texts = {0};
    bool rows = false;
    for (size_t i = 0; i < profile->allocator_count && !rows; i++)
        rows = allocator_wants_live_rows(&profile->allocators[i], &finish[i]);
    if (rows && !live_special_texts_intern(profile->strings, &texts))
        return false;
    struct finish_work work = {.profile = profile, .finish = finish, .texts = &texts};
    atomic_init(&work.next, 0);
    atomic_init(&work.failed, false);
    pthread_t threads[FINISH_THREADS_MAX];
    size_t started = 0, wanted = finish_thread_count(profile);
    while (started + 1 < wanted &&
           pthread_create(&threads[started], NULL, finish_thread, &work) == 0)
        started++;
    finish_thread(&work);
    for (size_t i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    return !atomic_load(&work.failed);
}

struct profile *profile_builder_finish(struct profile_builder *builder)
{
    struct profile *profile = builder->profile;
    bool ok = profile_builder_note_dropped_warnings(builder) &&
              finish_allocators(profile, builder->live_at_finish);
    if (!ok) {
        profile_builder_discard(builder);
        return NULL;
    }
    profile_builder_free_state(builder);
    return profile;
}
