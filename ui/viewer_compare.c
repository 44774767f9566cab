/* viewer_compare: the viewer on two profiles (--compare BASE NEW): the
 * second subject (NEW), the pairs of allocators matched by memory id
 * (or --pair), the pair shown with its op table, and what the compare
 * chart draws; with two runs compared, which matched host is shown.
 * The compare panes read it; only the viewer changes it. */
#include "config.h"

#include "ui/viewer.h"

#include <string.h>

#include "ui/status_line.h"

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
    uint64_t span = chart_range_diff(snapshot_columns_time(timeline, 0),
                                     snapshot_columns_time(timeline, timeline->count - 1));
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
                          const struct profile *new, const struct allocator_pairing *pairings,
                          size_t pairing_count)
{
    struct viewer_compare *compare = &viewer->compare;
    compare->active = true;
    compare->profile = new;
    compare->pairings = pairings;
    compare->pairing_count = pairing_count;
    viewer->profile = base;
    viewer->host_index = 0;
    if (!profile_comparison_build_paired(&compare->comparison, base, new, pairings,
                                         pairing_count))
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

void viewer_step_compare_host(struct viewer *viewer, int direction)
{
    struct viewer_compare *compare = &viewer->compare;
    size_t count = compare->host_pairs;
    if (count < 2) {
        viewer_status(viewer, false, count ? "one host in both runs" : "{ } step through the "
                                                                      "hosts of two runs compared");
        return;
    }
    size_t next = direction > 0 ? (compare->host_pair + 1) % count
                                : (compare->host_pair + count - 1) % count;
    struct host_list *hosts = viewer->hosts;
    struct load_options options = {0};
    status_line_show_now(viewer, "loading the next host's two profiles");
    for (size_t side = 0; side < 2; side++)
        if (!host_list_load(hosts, 2 * next + side, &options)) {
            const struct host *host = &hosts->hosts[2 * next + side];
            viewer_status(viewer, true, "host %s did not load: %s", compare->host_names[next],
                          host->error.message);
            return;
        }
    struct viewer_compare kept = *compare;
    viewer_compare_free(viewer);
    viewer->allocator = NULL; /* into the profile unloaded below */
    compare->host_pair = next;
    compare->host_pairs = kept.host_pairs;
    compare->host_names = kept.host_names;
    compare->runs_label = kept.runs_label;
    host_unload(&hosts->hosts[2 * kept.host_pair]);
    host_unload(&hosts->hosts[2 * kept.host_pair + 1]);
    if (!viewer_compare_start(viewer, hosts->hosts[2 * next].profile,
                              hosts->hosts[2 * next + 1].profile, kept.pairings,
                              kept.pairing_count))
        viewer_status(viewer, true, "out of memory: nothing compared");
    else if (viewer->status_length == 0)
        viewer_status(viewer, false, "host %s (%zu/%zu)", compare->host_names[next], next + 1,
                      count);
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
