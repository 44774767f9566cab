/* viewer_compare: the viewer on two profiles (--compare BASE NEW): the
 * second subject (NEW), the pairs of allocators matched by memory id,
 * the pair shown with its op table, and what the compare chart draws.
 * The compare panes read it; only the viewer changes it. */
#include "config.h"

#include "ui/viewer.h"

#include <string.h>

bool viewer_comparing(const struct viewer *viewer)
{
    return viewer->compare.active;
}

const struct allocator_pair *viewer_pair(const struct viewer *viewer)
{
    const struct viewer_compare *compare = &viewer->compare;
    if (!compare->active || compare->pair_index >= compare->comparison.count)
        return NULL;
    return &compare->comparison.pairs[compare->pair_index];
}

/* A timeline's length: from its first snapshot to its last. */
static int64_t timeline_span(const struct allocator *allocator)
{
    const struct snapshot_columns *timeline = &allocator->timeline;
    if (timeline->count == 0)
        return 0;
    uint64_t span = chart_range_diff(timeline->time_ps[0], timeline->time_ps[timeline->count - 1]);
    return span > INT64_MAX ? INT64_MAX : (int64_t)span;
}

/* The chart: NEW as bars, BASE as a line over them when both have the
 * allocator, the window over the longer of the two from its start. */
static void viewer_compare_chart(struct viewer *viewer, const struct allocator_pair *pair)
{
    struct viewer_compare *compare = &viewer->compare;
    bool both = pair->base && pair->new;
    compare->bars_profile = pair->new ? compare->profile : viewer->profile;
    compare->bars_allocator = pair->new ? pair->new : pair->base;
    compare->overlay = (struct chart_overlay){
        .profile = viewer->profile,
        .allocator = both ? pair->base : NULL,
        .line_name = "base",
        .bars_name = "new",
        .title = both       ? "Memory: new vs base"
                 : pair->new ? "Memory: new only"
                             : "Memory: base only",
    };
    compare->time.least_span_ps = both ? timeline_span(pair->base) : 0;
    time_window_reset(&compare->time, compare->bars_allocator);
}

void viewer_select_pair(struct viewer *viewer, size_t index)
{
    struct viewer_compare *compare = &viewer->compare;
    if (!compare->active || index >= compare->comparison.count)
        return;
    const struct allocator_pair *pair = &compare->comparison.pairs[index];
    const struct profile *base = viewer->profile;
    compare->pair_index = index;
    viewer->allocator = pair->base;
    viewer->allocator_index = pair->base ? (size_t)(pair->base - base->allocators) : 0;
    compare->allocator = pair->new;
    op_comparison_free(&compare->ops);
    if (!op_comparison_build(&compare->ops, base, pair->base, compare->profile, pair->new))
        viewer_status(viewer, true, "out of memory: the op table is empty");
    viewer_compare_chart(viewer, pair);
    viewer_reset_panes(viewer, false);
}

void viewer_step_pair(struct viewer *viewer, int direction)
{
    size_t count = viewer->compare.comparison.count;
    if (count < 2) {
        viewer_status(viewer, false,
                      count ? "one allocator to compare" : "no allocator to compare");
        return;
    }
    size_t current = viewer->compare.pair_index;
    viewer_select_pair(viewer, direction > 0 ? (current + 1) % count
                                             : (current + count - 1) % count);
}

bool viewer_compare_start(struct viewer *viewer, const struct profile *base,
                          const struct profile *new)
{
    struct viewer_compare *compare = &viewer->compare;
    compare->active = true;
    compare->profile = new;
    viewer->profile = base;
    viewer->host_index = 0;
    if (!profile_comparison_build(&compare->comparison, base, new))
        return false;
    viewer_focus(viewer, PANE_COMPARE_OPS);
    if (compare->comparison.count == 0) {
        viewer_status(viewer, true, "neither profile has an allocator to compare");
        return true;
    }
    viewer_select_pair(viewer, 0);
    /* main printed no warnings for the viewer: the first one shows here. */
    for (size_t i = 0; i < 2 && i < viewer->hosts->count && viewer->status_length == 0; i++) {
        const struct host *host = &viewer->hosts->hosts[i];
        if (host->profile && host->profile->warning_count > 0)
            viewer_status_load_warnings(viewer, host, host->profile);
    }
    return true;
}

void viewer_compare_free(struct viewer *viewer)
{
    struct viewer_compare *compare = &viewer->compare;
    op_comparison_free(&compare->ops);
    profile_comparison_free(&compare->comparison);
    memset(compare, 0, sizeof *compare);
}

bool viewer_compare_export_request(const struct viewer *viewer, struct export_request *request)
{
    const struct allocator_pair *pair = viewer_pair(viewer);
    if (!pair)
        return false;
    export_request_init(request, EXPORT_VIEW_COMPARE, viewer->profile, pair->base);
    request->new_profile = viewer->compare.profile;
    request->new_allocator = pair->new;
    return true;
}
