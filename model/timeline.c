#include "config.h"

#include "model/timeline.h"

size_t timeline_find_time(const struct snapshot_columns *timeline, int64_t time_ps)
{
    size_t low = 0, high = timeline->count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (timeline->time_ps[middle] < time_ps)
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}

/* Distance between two times without signed overflow. */
static uint64_t time_distance(int64_t a, int64_t b)
{
    return a > b ? (uint64_t)a - (uint64_t)b : (uint64_t)b - (uint64_t)a;
}

size_t timeline_nearest(const struct snapshot_columns *timeline, int64_t time_ps)
{
    if (timeline->count == 0)
        return SIZE_MAX;
    size_t after = timeline_find_time(timeline, time_ps);
    if (after == timeline->count)
        return timeline_find_time(timeline, timeline->time_ps[after - 1]);
    if (after == 0)
        return 0;
    size_t before = after - 1;
    if (time_distance(timeline->time_ps[before], time_ps) <=
        time_distance(timeline->time_ps[after], time_ps))
        return timeline_find_time(timeline, timeline->time_ps[before]);
    return after;
}

void timeline_range(const struct snapshot_columns *timeline, int64_t from_ps, int64_t to_ps,
                    size_t *first, size_t *end)
{
    *first = timeline_find_time(timeline, from_ps);
    if (from_ps > to_ps) {
        *end = *first;
        return;
    }
    *end = to_ps == INT64_MAX ? timeline->count : timeline_find_time(timeline, to_ps + 1);
}

size_t timeline_max_in_use(const struct snapshot_columns *timeline, size_t first, size_t end)
{
    if (end > timeline->count)
        end = timeline->count;
    if (first >= end)
        return SIZE_MAX;
    size_t best = first;
    int64_t best_in_use = snapshot_columns_in_use(timeline, first);
    for (size_t i = first + 1; i < end; i++) {
        int64_t in_use = snapshot_columns_in_use(timeline, i);
        if (in_use > best_in_use) {
            best = i;
            best_in_use = in_use;
        }
    }
    return best;
}
