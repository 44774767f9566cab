#include "config.h"

#include "ui/oom_view.h"

#include "model/format.h"
#include "model/query/oom.h"
#include "ui/viewer.h"

/* The OOM to go to on the allocator shown: o from nowhere takes the last
 * (the one that ended the job), o on an OOM the next (after the last:
 * the first), O the previous (before the first: the last). */
static size_t oom_view_target(const struct viewer *viewer, bool next)
{
    const struct allocator *allocator = viewer->allocator;
    size_t count = allocator->oom_count;
    const struct oom_event *at = live_view_oom(viewer);
    if (!at)
        return next || count < 2 ? count - 1 : count - 2;
    size_t index = allocator_oom_index(allocator, at);
    if (next)
        return index + 1 < count ? index + 1 : 0;
    return index > 0 ? index - 1 : count - 1;
}

/* "out of memory 2 of 3 at 12.031 ms: 80.00 GiB requested (o: next, O: previous)" */
static void oom_view_say(struct viewer *viewer, size_t index)
{
    const struct allocator *allocator = viewer->allocator;
    const struct oom_event *oom = &allocator->ooms[index];
    char which[48] = "", at[64] = "", request[FORMAT_BYTES_SIZE] = "an unknown size";
    if (allocator->oom_count > 1)
        snprintf(which, sizeof which, " %zu of %zu", index + 1, allocator->oom_count);
    if (allocator->timeline_kind != TIMELINE_NONE) {
        char time[48];
        snprintf(at, sizeof at, " at %s", time_window_text(&viewer->time, oom->time_ps, time,
                                                           sizeof time));
    }
    if (oom->requested_bytes >= 0)
        format_bytes(oom->requested_bytes, request, sizeof request);
    viewer_status(viewer, false, "out of memory%s%s: %s requested%s", which, at, request,
                  allocator->oom_count > 1 ? " (o: next, O: previous)" : "");
}

/* The cursor to OOM `index` of the allocator shown (where its timeline
 * can place it), the table held at it while the cursor stays. */
static void oom_view_go(struct viewer *viewer, size_t index)
{
    const struct allocator *allocator = viewer->allocator;
    int64_t time_ps = allocator->ooms[index].time_ps;
    viewer->time.marked = false;
    if (allocator->timeline.count > 0 && allocator->timeline_kind != TIMELINE_NONE)
        time_window_jump_to(&viewer->time, &allocator->timeline, time_ps);
    struct live_pin pin = {.time_ps = time_ps,
                           .hold = LIVE_PIN_WHILE_CURSOR_STAYS,
                           .title = LIVE_PIN_TITLE_LIVE_AT_ON,
                           .oom_number = index + 1,
                           .name = "the OOM"};
    live_view_pin(viewer, &pin);
}

bool oom_view_handle(struct viewer *viewer, enum request request)
{
    if (request != REQUEST_OOM_NEXT && request != REQUEST_OOM_PREVIOUS)
        return false;
    if (viewer_comparing(viewer)) {
        viewer_status(viewer, false, "o goes to one profile's out-of-memory error: open it alone");
        return true;
    }
    const struct profile *profile = viewer->profile;
    if (!profile || !viewer->allocator)
        return true;
    if (viewer->allocator->oom_count == 0) {
        long other = profile_oom_allocator(profile);
        if (other < 0) {
            viewer_status(viewer, false, "no out-of-memory error in this profile");
            return true;
        }
        viewer_select_allocator(viewer, (size_t)other);
    }
    size_t index = oom_view_target(viewer, request == REQUEST_OOM_NEXT);
    oom_view_go(viewer, index);
    viewer_show_oom_card(viewer);
    oom_view_say(viewer, index);
    return true;
}
