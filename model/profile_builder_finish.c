/* profile_builder_finish: the builder's last stage (model/profile_builder.h's
 * profile_builder_finish): every allocator's out-of-memory errors sorted
 * by time, its timeline fitted, sorted (stably) and indexed, its
 * allocations and deallocations counted, and its rows made the live set
 * at the peak where that is asked for or XProf's table was given over a
 * complete timeline (or taken from a loader that found that live set on
 * its own pass: profile_builder_set_peak_live_rows); then the profile is
 * handed over.
 * Called by: the loaders, through profile_builder_finish() and
 * profile_builder_set_peak_live_rows(). Calls the
 * builder's own helpers (model/profile_builder_internal.h), never the
 * other way round.
 * Must not: know any file format. */
#include "config.h"

#include "model/profile_builder.h"
#include "model/profile_builder_internal.h"

#include <stdio.h>
#include <stdlib.h>

#include "model/query/live_set.h"
#include "model/timeline.h"
#include "model/util/index_sort.h"

static void allocator_count_activities(struct allocator *allocator)
{
    const struct snapshot_columns *timeline = &allocator->timeline;
    allocator->summary.allocations = allocator->summary.deallocations = 0;
    for (size_t i = 0; i < timeline->count; i++) {
        if (timeline->activity[i] == MEMORY_ACTIVITY_ALLOCATION)
            allocator->summary.allocations++;
        else if (timeline->activity[i] == MEMORY_ACTIVITY_DEALLOCATION)
            allocator->summary.deallocations++;
    }
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

static bool allocator_finish(struct allocator *allocator)
{
    if (!allocator_sort_ooms(allocator))
        return false;
    snapshot_columns_fit(&allocator->timeline);
    if (!profile_builder_timeline_sorted(&allocator->timeline))
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

static bool allocator_make_live_rows(struct profile *profile, struct allocator *allocator,
                                     bool asked)
{
    bool xprof = allocator->rows_kind == ALLOCATOR_ROWS_XPROF;
    if ((!xprof && !asked) || allocator->timeline_kind != TIMELINE_COMPLETE ||
        allocator->timeline.count == 0)
        return true;
    struct live_rows live = {0};
    enum live_status status =
        live_rows_at_once(profile, allocator, allocator->summary.peak_time_ps, &live);
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

struct profile *profile_builder_finish(struct profile_builder *builder)
{
    struct profile *profile = builder->profile;
    bool ok = profile_builder_note_dropped_warnings(builder);
    for (size_t i = 0; ok && i < profile->allocator_count; i++)
        ok = allocator_finish(&profile->allocators[i]);
    for (size_t i = 0; ok && i < profile->allocator_count; i++)
        ok = allocator_make_live_rows(profile, &profile->allocators[i],
                                      builder->live_at_finish[i]);
    if (!ok) {
        profile_builder_discard(builder);
        return NULL;
    }
    profile_builder_free_state(builder);
    return profile;
}
