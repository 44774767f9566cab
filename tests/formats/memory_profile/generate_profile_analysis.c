/* generate_profile_analysis: what XProf computes from a simulated
 * allocator (tests/generate_profile).
 *
 * Pass 1 finds the peak, samples the timeline with XProf's box filter and
 * notes step times; pass 2 walks up to the peak for the active
 * allocations, sorted and merged as XProf does, with the special rows. */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/formats/memory_profile/generate_profile.h"

/* ---- what XProf computes: peak, active allocations, sampled timeline ---- */

void sampler_start(struct sampler *sampler, int64_t count)
{
    *sampler = (struct sampler){0};
    if (count > SAMPLE_LIMIT) {
        sampler->width = count / SAMPLE_LIMIT;
        sampler->first_count = SAMPLE_LIMIT * (sampler->width + 1) - count;
    } else {
        sampler->width = 1;
        sampler->first_count = count;
    }
    sampler->window_end = sampler->first_count > 0 ? sampler->width : sampler->width + 1;
}

void sampler_add(struct sampler *sampler, struct analysis *analysis, const struct event *event,
                        int64_t index)
{
    int64_t bytes = event->stack_bytes + event->heap_bytes;
    struct sample *slot = &analysis->sampled[analysis->sampled_count];
    if (!sampler->have_best || bytes > sampler->best_bytes) {
        slot->event = *event;
        sampler->best_bytes = bytes;
        sampler->have_best = true;
    }
    if (index + 1 == sampler->window_end) {
        analysis->sampled_count++;
        sampler->have_best = false;
        sampler->window++;
        sampler->window_end += sampler->window < sampler->first_count ? sampler->width : sampler->width + 1;
    }
}

void step_times_note(struct step_times *times, const struct event *event, int64_t index)
{
    if (index == 0)
        times->begin_ps = event->time_ps;
    times->end_ps = event->time_ps;
    int64_t step = event->step_id;
    if (step < 0 || step > times->steps)
        return;
    if (times->first_ps[step] < 0)
        times->first_ps[step] = event->time_ps;
    times->last_ps[step] = event->time_ps;
}

/* Pass 1: the peak (largest stack+heap, a later one wins ties), the
 * lifetime peak (the last snapshot's peak_bytes_in_use), the sampled
 * timeline and, for protobuf version 0, the encoded size of the timeline. */
void analysis_scan(struct analysis *analysis, struct simulator *sim, const struct options *options,
                          struct step_times *times)
{
    const struct allocator_config *config = sim->config;
    struct sampler sampler = {0};
    bool sampling = options->version == 1;
    bool sizing = options->version == 0 && options->format == FORMAT_PB;
    if (sampling) {
        analysis->sampled = checked_calloc(SAMPLE_LIMIT, sizeof *analysis->sampled);
        sampler_start(&sampler, config->snapshots);
    }
    int64_t peak_bytes = 0;
    struct event event;
    for (int64_t index = 0; index < config->snapshots; index++) {
        simulator_next(sim, &event);
        int64_t bytes = event.stack_bytes + event.heap_bytes;
        if (index == 0 || bytes >= peak_bytes) {
            peak_bytes = bytes;
            analysis->peak = event;
            analysis->peak_index = index;
        }
        if (sampling)
            sampler_add(&sampler, analysis, &event, index);
        if (sizing)
            analysis->snapshot_field_bytes += snapshot_field_size(&event);
        if (times != NULL)
            step_times_note(times, &event, index);
    }
    analysis->count = config->snapshots;
    analysis->lifetime_peak = event.peak_bytes_in_use;
}

size_t live_map_slot(const struct live_map *map, uint64_t address)
{
    return (size_t)(hash_mix(address, 0x11) & (map->capacity - 1));
}

void live_map_grow(struct live_map *map)
{
    struct live_map old = *map;
    map->capacity = old.capacity ? 2 * old.capacity : 256;
    map->entries = checked_calloc(map->capacity, sizeof *map->entries);
    map->count = 0;
    for (size_t i = 0; i < old.capacity; i++)
        if (old.entries[i].used)
            live_map_put(map, old.entries[i].address, old.entries[i].index, &old.entries[i].event);
    free(old.entries);
}

void live_map_put(struct live_map *map, uint64_t address, int64_t index, const struct event *event)
{
    if (2 * (map->count + 1) > map->capacity)
        live_map_grow(map);
    size_t slot = live_map_slot(map, address);
    while (map->entries[slot].used && map->entries[slot].address != address)
        slot = (slot + 1) & (map->capacity - 1);
    if (!map->entries[slot].used)
        map->count++;
    map->entries[slot] = (struct live_entry){true, address, index, *event};
}

/* Removes `address`; returns false when it was not there. */
bool live_map_remove(struct live_map *map, uint64_t address)
{
    if (map->capacity == 0)
        return false;
    size_t mask = map->capacity - 1;
    size_t slot = live_map_slot(map, address);
    while (map->entries[slot].used && map->entries[slot].address != address)
        slot = (slot + 1) & mask;
    if (!map->entries[slot].used)
        return false;
    size_t hole = slot;
    for (size_t next = (hole + 1) & mask; map->entries[next].used; next = (next + 1) & mask) {
        size_t home = live_map_slot(map, map->entries[next].address);
        /* move `next` back when its home is not cyclically in (hole, next] */
        bool stays = hole <= next ? (home > hole && home <= next) : (home > hole || home <= next);
        if (!stays) {
            map->entries[hole] = map->entries[next];
            hole = next;
        }
    }
    map->entries[hole].used = false;
    map->count--;
    return true;
}

int row_compare(const void *a, const void *b)
{
    const struct row *left = a, *right = b;
    if (left->event.allocation_bytes != right->event.allocation_bytes)
        return left->event.allocation_bytes > right->event.allocation_bytes ? -1 : 1;
    if (left->event.requested_bytes != right->event.requested_bytes)
        return left->event.requested_bytes > right->event.requested_bytes ? -1 : 1;
    int order = strcmp(left->text.op, right->text.op);
    if (order == 0)
        order = strcmp(left->text.region, right->text.region);
    if (order == 0)
        order = strcmp(left->text.dtype, right->text.dtype);
    if (order == 0)
        order = strcmp(left->text.shape, right->text.shape);
    if (order == 0 && left->index != right->index)
        order = left->index < right->index ? -1 : 1;
    return order;
}

bool row_same(const struct row *a, const struct row *b)
{
    return a->event.allocation_bytes == b->event.allocation_bytes &&
           a->event.requested_bytes == b->event.requested_bytes && strcmp(a->text.op, b->text.op) == 0 &&
           strcmp(a->text.region, b->text.region) == 0 && strcmp(a->text.dtype, b->text.dtype) == 0 &&
           strcmp(a->text.shape, b->text.shape) == 0;
}

struct event special_event(enum tensor_kind kind, int64_t bytes, int64_t step, bool host)
{
    struct event event = {
        .activity = ACTIVITY_ALLOCATION,
        .requested_bytes = bytes,
        .allocation_bytes = bytes,
        .step_id = step,
    };
    event.tensor = (struct tensor_info){.kind = (uint8_t)kind, .dtype = DTYPE_INVALID, .host = host};
    return event;
}

/* Sorts the rows and merges equal neighbours; a merged row keeps the last
 * snapshot of its group. */
void rows_sort_and_merge(struct analysis *analysis)
{
    qsort(analysis->rows, analysis->row_count, sizeof *analysis->rows, row_compare);
    size_t kept = 0;
    for (size_t i = 0; i < analysis->row_count; i++) {
        if (kept > 0 && row_same(&analysis->rows[kept - 1], &analysis->rows[i])) {
            int64_t occurrences = analysis->rows[kept - 1].occurrences + 1;
            analysis->rows[kept - 1] = analysis->rows[i];
            analysis->rows[kept - 1].occurrences = occurrences;
        } else {
            analysis->rows[kept++] = analysis->rows[i];
        }
    }
    analysis->row_count = kept;
}

/* Pass 2: the active allocations at the peak, walking the snapshots up to
 * the peak time that belong to the peak step. */
void analysis_walk(struct analysis *analysis, struct simulator *sim)
{
    const struct event *peak = &analysis->peak;
    struct live_map map = {0};
    int64_t unmatched_bytes = 0;
    struct event event;
    for (int64_t index = 0; index < analysis->count; index++) {
        simulator_next(sim, &event);
        if (event.time_ps > peak->time_ps)
            break;
        if (event.step_id != peak->step_id)
            continue;
        if (event.activity == ACTIVITY_ALLOCATION)
            live_map_put(&map, event.address, index, &event);
        else if (!live_map_remove(&map, event.address))
            unmatched_bytes += event.allocation_bytes;
    }
    int64_t unmapped = peak->heap_bytes - unmatched_bytes;
    analysis->rows = checked_calloc(map.count + 2, sizeof *analysis->rows);
    for (size_t i = 0; i < map.capacity; i++) {
        if (!map.entries[i].used)
            continue;
        struct row *row = &analysis->rows[analysis->row_count++];
        row->event = map.entries[i].event;
        row->index = map.entries[i].index;
        row->special = -1;
        row->occurrences = 1;
        unmapped -= row->event.allocation_bytes;
    }
    free(map.entries);
    if (unmapped > 0)
        analysis->specials[analysis->special_count++] =
            special_event(KIND_UNMAPPED, unmapped, peak->step_id, sim->config->host);
    if (peak->stack_bytes > 0)
        analysis->specials[analysis->special_count++] =
            special_event(KIND_STACK, peak->stack_bytes, peak->step_id, sim->config->host);
    for (int i = 0; i < analysis->special_count; i++) {
        struct row *row = &analysis->rows[analysis->row_count++];
        row->event = analysis->specials[i];
        row->index = -1 - i;
        row->special = i;
        row->occurrences = 1;
    }
    for (size_t i = 0; i < analysis->row_count; i++)
        tensor_text(&analysis->rows[i].event.tensor, &analysis->rows[i].text);
    rows_sort_and_merge(analysis);
}

void analysis_free(struct analysis *analysis)
{
    free(analysis->sampled);
    free(analysis->rows);
    *analysis = (struct analysis){0};
}
