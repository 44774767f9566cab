/* torch_snapshot_spans: the snapshot's external_annotations (read by
 * torch_snapshot_segments.c, sorted by time) paired into the profile's
 * named spans (struct time_span): each END closes the latest START of
 * the same name on the same device. A START left open (the snapshot
 * was dumped inside it) runs to the device's last entry, an END with
 * no START (it began before the trace) from its first, each said so.
 * Called by torch_snapshot.c once every device is built (the spans go
 * on their device's allocator, "cuda:N", on its time axis).
 * Must not: replay the trace or read the pickle. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/formats/torch_snapshot/torch_snapshot_internal.h"
#include "model/profile_builder.h"
#include "model/string_table.h"
#include "model/util/array_grow.h"
#include "model/util/saturating.h"

struct open_span {
    int64_t device;
    uint32_t name;
    int64_t time_us;
};

/* An annotation's time on the timeline (the replay's clock: picoseconds
 * from the earliest entry of any device). */
static int64_t span_time_ps(const struct ts_load *load, int64_t time_us)
{
    int64_t since = saturating_subtract(time_us, load->earliest_time_us);
    if (since > INT64_MAX / 1000000)
        return INT64_MAX;
    return since < INT64_MIN / 1000000 ? INT64_MIN : since * 1000000;
}

/* The allocator of `device` and its timeline's first and last times;
 * false when the device has no allocator with a timeline. */
static bool device_span(struct ts_load *load, int64_t device, uint32_t *id, int64_t *first_ps,
                        int64_t *last_ps)
{
    char name[32];
    int length = snprintf(name, sizeof name, "cuda:%lld", (long long)device);
    uint32_t string_id = string_table_intern(load->strings, name, (size_t)length);
    long index = string_id == STRING_ID_NONE
                     ? -1
                     : profile_builder_find_allocator(load->builder, string_id);
    if (index < 0)
        return false;
    const struct snapshot_columns *timeline = profile_builder_timeline(load->builder,
                                                                       (size_t)index);
    if (timeline->count == 0)
        return false;
    *id = string_id;
    *first_ps = snapshot_columns_time(timeline, 0);
    *last_ps = snapshot_columns_time(timeline, timeline->count - 1);
    return true;
}

/* One span from START at start_us (or the device's first time) to END
 * at end_us (or its last); a device without a timeline gets none. */
static enum load_status add_span(struct ts_load *load, int64_t device, uint32_t name,
                                 const int64_t *start_us, const int64_t *end_us)
{
    struct time_span span = {.name = name, .open_start = !start_us, .open_end = !end_us};
    int64_t first_ps, last_ps;
    if (!device_span(load, device, &span.allocator, &first_ps, &last_ps))
        return LOAD_OK;
    span.start_ps = start_us ? span_time_ps(load, *start_us) : first_ps;
    span.end_ps = end_us ? span_time_ps(load, *end_us) : last_ps;
    if (span.end_ps < span.start_ps)
        span.end_ps = span.start_ps;
    return profile_builder_add_span(load->builder, &span) ? LOAD_OK : ts_no_memory(load);
}

enum load_status ts_add_spans(struct ts_load *load)
{
    /* Without times the timeline counts entries: annotations have no place on it. */
    if (load->annotation_count == 0 || load->entries_without_time || !load->any_time)
        return LOAD_OK;
    struct open_span *open = NULL;
    size_t open_count = 0, open_capacity = 0;
    enum load_status status = LOAD_OK;
    for (size_t i = 0; status == LOAD_OK && i < load->annotation_count; i++) {
        const struct ts_annotation *note = &load->annotations[i];
        if (note->start) {
            if (!array_grow((void **)&open, &open_capacity, open_count, sizeof *open, 16)) {
                status = ts_no_memory(load);
                break;
            }
            open[open_count++] = (struct open_span){note->device, note->name, note->time_us};
            continue;
        }
        size_t match = open_count;
        while (match-- > 0)
            if (open[match].device == note->device && open[match].name == note->name)
                break;
        if (match == SIZE_MAX) {
            status = add_span(load, note->device, note->name, NULL, &note->time_us);
            continue;
        }
        status = add_span(load, note->device, note->name, &open[match].time_us, &note->time_us);
        memmove(&open[match], &open[match + 1], (open_count - match - 1) * sizeof *open);
        open_count--;
    }
    for (size_t k = 0; status == LOAD_OK && k < open_count; k++)
        status = add_span(load, open[k].device, open[k].name, &open[k].time_us, NULL);
    free(open);
    return status;
}
