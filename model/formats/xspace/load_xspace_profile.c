/* load_xspace_profile: XProf's memory profile of the snapshots the walk
 * made (openxla/xprof xprof/convert/xplane_to_memory_profile.cc, read for
 * this file and restated in docs/formats/xspace.md).
 *
 * Per allocator: each snapshot's step is its event's group (-1: none);
 * the timeline is sorted by time (XProf's sort is unstable; here equal
 * times keep the walk's order); a step of -1 becomes the last step seen
 * plus one (UpdateStepId); each deallocation takes op, region, type and
 * shape from the first unmatched allocation at its address; the peak step
 * is the step of the latest snapshot whose stack + heap is the peak; the
 * table at the peak walks the snapshots up to the peak time in the peak
 * step (allocations mapped by address, deallocations unmapping them), adds
 * "unused preallocated device memory" and "stack" rows, sorts by size then
 * text and merges equal neighbours. The summary was kept in walk order by
 * the walk itself. Unlike XProf, the whole timeline stays (no sample of
 * 1000). Arithmetic on file values wraps, as XProf's int64 does.
 * The table memtop shows at the peak, the live set there (issue 22), is
 * read off the deallocation matching as it passes the peak, so that the
 * builder need not replay the timeline once more (see struct peak_live). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "model/util/index_sort.h"
#include "model/util/integer_map.h"
#include "model/query/live_rows.h"
#include "model/query/live_set.h"
#include "model/timeline.h"
#include "model/formats/xspace/xspace_internal.h"

static int64_t wrapping_add(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

static int64_t wrapping_subtract(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a - (uint64_t)b);
}

/* ---- steps ---- */

/* A snapshot's step before UpdateStepId, from what its step_id holds (see
 * struct xspace_loader): -1 when none. */
static int64_t event_group(const struct xspace_loader *loader, int64_t raw)
{
    if (loader->grouped)
        return loader->host_groups ? raw : -1;
    if (loader->loop_ops || raw < 0 || raw >= (int64_t)loader->forest.node_count)
        return -1;
    return loader->forest.groups[raw];
}

/* UpdateStepId: a snapshot without a group takes the last group + 1. */
static void fix_steps(struct snapshot_columns *timeline)
{
    int64_t last = -1;
    for (size_t i = 0; i < timeline->count; i++) {
        if (timeline->step_id[i] == -1)
            timeline->step_id[i] = wrapping_add(last, 1);
        else
            last = timeline->step_id[i];
    }
}

/* ---- the time sort ---- */

/* A stable sort by time. The timeline comes in runs already sorted (a
 * line's events are, and an allocator's events come from a few lines), so
 * the runs are found and merged pairwise: a few passes, not log2(n). */
static void merge_runs(const int64_t *time, uint32_t *order, uint32_t *scratch, size_t count,
                       uint32_t *runs, size_t run_count)
{
    while (run_count > 1) {
        size_t merged = 0;
        for (size_t r = 0; r < run_count; r += 2) {
            size_t low = runs[r], middle = r + 1 < run_count ? runs[r + 1] : count;
            size_t high = r + 2 < run_count ? runs[r + 2] : count;
            size_t a = low, b = middle, out = low;
            while (a < middle && b < high)
                scratch[out++] = time[order[b]] < time[order[a]] ? order[b++] : order[a++];
            while (a < middle)
                scratch[out++] = order[a++];
            while (b < high)
                scratch[out++] = order[b++];
            runs[merged++] = (uint32_t)low;
        }
        memcpy(order, scratch, count * sizeof *order);
        run_count = merged;
    }
}

/* Column `column` of `size`-byte elements put in `order`, through scratch. */
static void permute(void *column, size_t size, const uint32_t *order, size_t count, void *scratch)
{
    const char *from = column;
    char *to = scratch;
    for (size_t i = 0; i < count; i++)
        memcpy(to + i * size, from + (size_t)order[i] * size, size);
    memcpy(column, scratch, count * size);
}

static bool time_sort(struct snapshot_columns *timeline)
{
    size_t count = timeline->count, run_count = 1;
    for (size_t i = 1; i < count; i++)
        run_count += snapshot_columns_time(timeline, i) < snapshot_columns_time(timeline, i - 1);
    if (run_count == 1)
        return true;
    if (count > UINT32_MAX)
        return false;
    uint32_t *order = malloc(count * sizeof *order);
    uint32_t *runs = malloc(run_count * sizeof *runs);
    int64_t *scratch = malloc(count * sizeof *scratch); /* 8 bytes: the widest column */
    bool ok = order && runs && scratch;
    if (ok) {
        runs[0] = 0;
        for (size_t i = 1, r = 1; i < count; i++)
            if (snapshot_columns_time(timeline, i) < snapshot_columns_time(timeline, i - 1))
                runs[r++] = (uint32_t)i;
        for (size_t i = 0; i < count; i++)
            order[i] = (uint32_t)i;
        /* XSpace's columns are all plain arrays (it narrows nothing). */
        merge_runs(timeline->time_ps, order, (uint32_t *)scratch, count, runs, run_count);
#define PERMUTE(name) permute(timeline->name, sizeof *timeline->name, order, count, scratch);
        PERMUTE(time_ps) PERMUTE(stack_bytes) PERMUTE(heap_bytes) PERMUTE(free_bytes)
        PERMUTE(fragmentation) PERMUTE(peak_bytes_in_use) PERMUTE(activity)
        PERMUTE(requested_bytes) PERMUTE(allocation_bytes) PERMUTE(address) PERMUTE(step_id)
        PERMUTE(op_name) PERMUTE(region_type) PERMUTE(data_type) PERMUTE(tensor_shape)
        if (timeline->context)
            PERMUTE(context)
        if (timeline->site)
            PERMUTE(site)
#undef PERMUTE
    }
    free(order);
    free(runs);
    free(scratch);
    return ok;
}

/* ---- deallocations ---- */

/* The allocations live after the first `end` snapshots (the peak), read
 * off the matching's map of open allocations as the walk passes `end`,
 * so that the builder need not replay the timeline a second time for the
 * table at the peak. The map is that live set exactly while no
 * allocation has come at an address already open (XProf's matching keeps
 * the first, the live set the latest) and every event is an allocation
 * or a deallocation; otherwise `known` stays false and the builder
 * replays (model/query/live_set.c). */
struct peak_live {
    size_t end;
    uint32_t *live;
    size_t count;
    bool known;
};

static void peak_live_take(struct peak_live *peak, const struct integer_map *open)
{
    peak->live = malloc((open->count + 1) * sizeof *peak->live);
    if (!peak->live)
        return; /* not known: the builder replays */
    for (size_t s = 0; s < open->capacity; s++)
        if (open->slots[s].used)
            peak->live[peak->count++] = open->slots[s].value;
    peak->known = true;
}

/* UpdateDeallocation: a deallocation takes the text of the first
 * allocation at its address not yet matched (after the pair settles an
 * execution buffer's role: load_xspace_attribution.c). */
static bool match_deallocations(struct xspace_loader *loader, struct snapshot_columns *timeline,
                                struct peak_live *peak)
{
    struct integer_map open = {0};
    /* same: no allocation at an open address (nor an event of neither
     * activity) so far */
    bool ok = xspace_attribute_settle_ready(loader), same = true;
    for (size_t i = 0; ok && i < timeline->count; i++) {
        if (i == peak->end && same)
            peak_live_take(peak, &open);
        uint64_t address = timeline->address[i];
        uint32_t *found = integer_map_find(&open, address);
        int activity = timeline->activity[i];
        if (activity == MEMORY_ACTIVITY_DEALLOCATION) {
            if (!found)
                continue;
            size_t from = *found;
            xspace_attribute_settle(loader, timeline, from, i);
            timeline->op_name[i] = timeline->op_name[from];
            timeline->region_type[i] = timeline->region_type[from];
            timeline->data_type[i] = timeline->data_type[from];
            timeline->tensor_shape[i] = timeline->tensor_shape[from];
            integer_map_remove(&open, address, NULL);
            continue;
        }
        if (found || activity != MEMORY_ACTIVITY_ALLOCATION)
            same = false;
        if (!found)
            ok = integer_map_put(&open, address, (uint32_t)i);
    }
    if (ok && peak->end == timeline->count && same)
        peak_live_take(peak, &open);
    /* With no allocation at an open address, the map holds every
     * allocation never freed: only those can still wait for a role. */
    if (ok)
        xspace_attribute_unfreed(loader, timeline, same ? &open : NULL);
    integer_map_free(&open);
    return ok;
}

/* ---- the table at the peak ---- */

struct row_order {
    const struct allocation_row *rows;
    const struct profile *profile;
};

/* XProf's order of rows (live_rows.h). */
static int compare_rows(const struct row_order *context, size_t a, size_t b)
{
    return live_row_key_compare(context->profile, &context->rows[a], &context->rows[b]);
}

static bool row_before(const void *context, size_t a, size_t b)
{
    return compare_rows(context, a, b) < 0;
}

/* The rows sorted and merged (occurrences summed), added to allocator
 * `index`. */
static bool add_sorted_rows(struct profile_builder *builder, size_t index,
                            struct allocation_row *rows, size_t count)
{
    struct row_order context = {rows, builder->profile};
    size_t *order = index_sort_order(count, row_before, &context);
    bool ok = order && profile_builder_reserve_rows(builder, index, count);
    for (size_t i = 0; ok && i < count;) {
        struct allocation_row row = rows[order[i]];
        size_t next = i + 1;
        for (; next < count && compare_rows(&context, order[i], order[next]) == 0; next++)
            row.occurrences = wrapping_add(row.occurrences, rows[order[next]].occurrences);
        ok = profile_builder_add_row(builder, index, &row);
        i = next;
    }
    free(order);
    return ok;
}

/* The allocations in `live` (address -> timeline index) as rows, grouped
 * and ordered by live_rows (XProf's order), with room for two more. */
static struct allocation_row *live_allocation_rows(struct profile_builder *builder,
                                                   const struct snapshot_columns *timeline,
                                                   const struct integer_map *live, size_t *count)
{
    uint32_t *indices = malloc((live->count + 1) * sizeof *indices);
    struct live_rows merged = {0};
    struct allocation_row *rows = NULL;
    size_t found = 0;
    for (size_t s = 0; indices && s < live->capacity; s++)
        if (live->slots[s].used)
            indices[found++] = live->slots[s].value;
    struct live_rows_request request = {
        .profile = builder->profile, .timeline = timeline, .live = indices, .live_count = found};
    if (indices && live_rows_make(&request, &merged) &&
        (rows = malloc((merged.count + 2) * sizeof *rows)) != NULL) {
        if (merged.count > 0)
            memcpy(rows, merged.rows, merged.count * sizeof *rows);
        *count = merged.count;
    }
    free(merged.rows);
    free(indices);
    return rows;
}

/* ProcessActiveAllocations: the allocations of the peak step live at the
 * peak time, and the special rows. */
static bool peak_rows(struct profile_builder *builder, size_t index,
                      const struct xspace_walk_summary *summary, int64_t step)
{
    const struct snapshot_columns *timeline = profile_builder_timeline(builder, index);
    struct integer_map live = {0};
    int64_t unmapped = summary->peak.heap_bytes, unmatched = 0;
    bool ok = true;
    for (size_t i = 0; ok && i < timeline->count; i++) {
        if (snapshot_columns_time(timeline, i) > summary->peak_time_ps)
            break;
        if (timeline->step_id[i] != step)
            continue;
        int64_t bytes = timeline->allocation_bytes[i];
        if (timeline->activity[i] == MEMORY_ACTIVITY_ALLOCATION) {
            ok = integer_map_put(&live, timeline->address[i], (uint32_t)i);
            unmapped = wrapping_subtract(unmapped, bytes);
        } else {
            if (!integer_map_remove(&live, timeline->address[i], NULL))
                unmatched = wrapping_add(unmatched, bytes);
            unmapped = wrapping_add(unmapped, bytes);
        }
    }
    unmapped = wrapping_subtract(unmapped, unmatched);
    size_t count = 0;
    struct allocation_row *rows = ok ? live_allocation_rows(builder, timeline, &live, &count)
                                     : NULL;
    integer_map_free(&live);
    ok = rows != NULL;
    /* InsertSpecialAllocations: numbered 0, 1 in the order added. */
    struct string_table *strings = profile_builder_strings(builder);
    struct live_special_texts texts;
    static const char unused[] = "unused preallocated device memory";
    uint32_t unused_name = string_table_intern(strings, unused, sizeof unused - 1);
    ok = ok && unused_name != STRING_ID_NONE && live_special_texts_intern(strings, &texts);
    int64_t specials = 0;
    if (ok && unmapped > 0)
        rows[count++] = live_special_row(specials++, unmapped, unused_name, texts.before_region,
                                         &texts, step);
    if (ok && summary->peak.stack_bytes > 0)
        rows[count++] = live_special_row(specials++, summary->peak.stack_bytes, texts.stack_name,
                                         texts.stack_region, &texts, step);
    ok = ok && add_sorted_rows(builder, index, rows, count);
    free(rows);
    return ok;
}

/* GetPeakMemoryStep: the step of the latest snapshot at the peak. */
static int64_t peak_step(const struct snapshot_columns *timeline, int64_t peak_bytes)
{
    int64_t step = 0;
    for (size_t i = 0; i < timeline->count; i++)
        if (wrapping_add(timeline->stack_bytes[i], timeline->heap_bytes[i]) == peak_bytes)
            step = timeline->step_id[i];
    return step;
}

/* The step of the summary's peak: the snapshot at its time with its bytes. */
static int64_t peak_time_step(const struct snapshot_columns *timeline, int64_t time_ps,
                              int64_t peak_bytes)
{
    for (size_t i = 0; i < timeline->count; i++)
        if (snapshot_columns_time(timeline, i) == time_ps &&
            wrapping_add(timeline->stack_bytes[i], timeline->heap_bytes[i]) == peak_bytes)
            return timeline->step_id[i];
    return 0;
}

/* The table at the peak the builder would make (profile_builder.h),
 * from the live set the matching found. */
static bool peak_live_rows(struct profile_builder *builder, size_t index,
                           const struct peak_live *peak)
{
    const struct snapshot_columns *timeline = profile_builder_timeline(builder, index);
    if (!peak->known || timeline->count == 0)
        return true; /* the builder's finish replays */
    struct live_rows live = {0};
    bool ok = live_rows_of_set(builder->profile, timeline, peak->live, peak->count, peak->end,
                               &live) == LIVE_OK;
    if (ok)
        profile_builder_set_peak_live_rows(builder, index, &live);
    live_rows_free(&live);
    return ok;
}

static bool finish_allocator(struct xspace_loader *loader, size_t index)
{
    struct profile_builder *builder = loader->builder;
    struct snapshot_columns *timeline = profile_builder_timeline(builder, index);
    if (!time_sort(timeline))
        return false;
    fix_steps(timeline);
    const struct xspace_walk_summary *walked = &loader->summaries[index];
    /* The live-set query's end at the peak: the snapshots at or before it. */
    struct peak_live peak = {
        .end = walked->peak_time_ps == INT64_MAX
                   ? timeline->count
                   : timeline_find_time(timeline, walked->peak_time_ps + 1)};
    if (!match_deallocations(loader, timeline, &peak)) {
        free(peak.live);
        return false;
    }
    struct allocator_summary summary = {
        .capacity_bytes = walked->capacity_bytes,
        .lifetime_peak_bytes = walked->lifetime_peak_bytes,
        .peak = walked->peak,
        .peak_time_ps = walked->peak_time_ps,
        .derived = true,
        .one_step_rows = true,
        .rows_step = peak_step(timeline, walked->peak.peak_bytes_in_use),
        .peak_time_step = peak_time_step(timeline, walked->peak_time_ps,
                                         walked->peak.peak_bytes_in_use),
    };
    profile_builder_set_summary(builder, index, &summary);
    profile_builder_set_timeline_kind(builder, index, TIMELINE_COMPLETE);
    profile_builder_set_rows_kind(builder, index, ALLOCATOR_ROWS_XPROF);
    bool ok = peak_rows(builder, index, walked, summary.rows_step) &&
              peak_live_rows(builder, index, &peak);
    free(peak.live);
    return ok;
}

/* ---- memory ids ---- */

static bool memory_id_before(const void *context, size_t a, size_t b)
{
    const struct profile *profile = context;
    return string_table_compare(profile->strings, profile->allocators[a].id,
                                profile->allocators[b].id) < 0;
}

/* XProf lists memory ids sorted bytewise: the allocators in that order. */
static bool order_allocators(struct profile_builder *builder)
{
    const struct profile *profile = builder->profile;
    size_t count = profile->allocator_count;
    size_t *order = index_sort_order(count, memory_id_before, profile);
    uint32_t *ids = malloc((count + 1) * sizeof *ids);
    bool ok = order && ids;
    if (ok) {
        for (size_t i = 0; i < count; i++)
            ids[i] = profile->allocators[order[i]].id;
        ok = profile_builder_order_allocators(builder, ids, count);
    }
    free(order);
    free(ids);
    return ok;
}

bool xspace_finish_profile(struct xspace_loader *loader)
{
    if (!loader->loop_ops && !loader->grouped && !xspace_forest_group(&loader->forest))
        return false;
    /* The grouping is done with: its memory goes before the sorts need theirs. */
    int32_t *groups = loader->forest.groups;
    uint32_t nodes = loader->forest.node_count;
    loader->forest.groups = NULL;
    xspace_forest_free(&loader->forest);
    loader->forest.groups = groups;
    loader->forest.node_count = nodes;
    struct profile_builder *builder = loader->builder;
    for (size_t a = 0; a < builder->profile->allocator_count; a++) {
        struct snapshot_columns *timeline = profile_builder_timeline(builder, a);
        for (size_t i = 0; i < timeline->count; i++)
            timeline->step_id[i] = event_group(loader, timeline->step_id[i]);
    }
    xspace_forest_free(&loader->forest);
    for (size_t i = 0; i < builder->profile->allocator_count; i++)
        if (!finish_allocator(loader, i))
            return false;
    /* XProf converts an XSpace to a version-1 MemoryProfile (JSON keeps
     * that 1), but the number means nothing here: version 1 is XProf's
     * sample, and this timeline is complete. The header and --summary's
     * text say no version (issue 22). */
    profile_builder_set_version(builder, 1, 1);
    builder->profile->version_known = false;
    return order_allocators(builder);
}
