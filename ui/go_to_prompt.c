/* go_to_prompt: see go_to_prompt.h. */
#include "config.h"

#include "ui/go_to_prompt.h"

#include <stdio.h>

#include "model/query/go_to.h"
#include "model/query/oom.h"
#include "model/query/steps.h"
#include "ui/viewer.h"

/* The peak of step `step` of the open allocator: true with its time. */
static bool step_peak(const struct viewer *viewer, int64_t step, int64_t *time_ps, char *error,
                      size_t size)
{
    struct step_table table;
    if (!step_table_build(&table, viewer->allocator)) {
        snprintf(error, size, "out of memory finding the steps");
        return false;
    }
    bool found = false;
    for (size_t i = 0; i < table.count && !found; i++) {
        if (!table.rows[i].is_none && table.rows[i].step_id == step) {
            *time_ps = table.rows[i].peak_time_ps;
            found = true;
        }
    }
    if (!found && table.count && !table.rows[0].is_none)
        snprintf(error, size, "no step %lld (steps %lld to %lld)", (long long)step,
                 (long long)table.rows[0].step_id,
                 (long long)table.rows[table.count - 1 - table.rows[table.count - 1].is_none]
                     .step_id);
    else if (!found)
        snprintf(error, size, "no step %lld: this timeline records no steps", (long long)step);
    step_table_free(&table);
    return found;
}

/* The time `place` stands for in the open allocator; false with why. */
static bool place_time(const struct viewer *viewer, const struct go_to *place, int64_t *time_ps,
                       char *what, size_t what_size, char *error, size_t size)
{
    switch (place->kind) {
    case GO_TO_PEAK:
        *time_ps = viewer->allocator->summary.peak_time_ps;
        snprintf(what, what_size, "the peak");
        return true;
    case GO_TO_STEP:
        snprintf(what, what_size, "step %lld's peak", (long long)place->step);
        return step_peak(viewer, place->step, time_ps, error, size);
    case GO_TO_OOM: {
        /* The last one of the open allocator: the one that ended the job. */
        const struct oom_event *oom = allocator_last_oom(viewer->allocator);
        if (!oom) {
            snprintf(error, size, profile_oom_count(viewer->profile)
                                      ? "no OOM recorded for this allocator ([ ] another)"
                                      : "no OOM recorded in this profile");
            return false;
        }
        *time_ps = oom->time_ps;
        snprintf(what, what_size, "the OOM");
        return true;
    }
    default:
        *time_ps = place->time_ps;
        what[0] = '\0';
        return true;
    }
}

void go_to_prompt_go(struct viewer *viewer, const char *text)
{
    struct go_to place;
    char error[256], what[64];
    if (!go_to_parse(text, &place, error, sizeof error)) {
        viewer_status(viewer, true, "%s", error);
        return;
    }
    if (!viewer->allocator || viewer->allocator->timeline.count == 0) {
        viewer_status(viewer, true, "no timeline to go to a time on");
        return;
    }
    int64_t time_ps;
    if (!place_time(viewer, &place, &time_ps, what, sizeof what, error, sizeof error)) {
        viewer_status(viewer, true, "%s", error);
        return;
    }
    const struct snapshot_columns *timeline = &viewer->allocator->timeline;
    int64_t first = snapshot_columns_time(timeline, 0),
            last = snapshot_columns_time(timeline, timeline->count - 1);
    struct follow_up follow_up = {.kind = FOLLOW_UP_JUMP_TO_TIME, .from_ps = time_ps};
    viewer_follow_up(viewer, PANE_CHART, &follow_up);
    char at[64];
    time_window_text(&viewer->time, time_ps, at, sizeof at);
    if (place.kind == GO_TO_TIME && (time_ps < first || time_ps > last))
        viewer_status(viewer, false, "%s is outside the timeline: the cursor is at its %s", at,
                      time_ps < first ? "start" : "end");
    else
        viewer_status(viewer, false, "cursor at %s%s%s%s", what, what[0] ? " (" : "", at,
                      what[0] ? ")" : "");
}

static void go_to_accepted(struct viewer *viewer, const char *text)
{
    go_to_prompt_go(viewer, text);
}

void go_to_prompt_begin(struct viewer *viewer)
{
    viewer_prompt_begin(viewer, "go to (412.3 ms, step 5, peak, oom):", "", NULL,
                        go_to_accepted, NULL);
}
