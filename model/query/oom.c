/* oom: see oom.h. The OOMs of an allocator are few and sorted by time:
 * plain scans and binary searches over them. */
#include "config.h"

#include "model/query/oom.h"

#include <stdlib.h>

#include "model/util/integer_map.h"
#include "model/util/saturating.h"

const struct oom_event *allocator_last_oom(const struct allocator *allocator)
{
    return allocator->oom_count ? &allocator->ooms[allocator->oom_count - 1] : NULL;
}

/* The number of OOMs at or before `time_ps` (inclusive) or strictly
 * before it. */
static size_t ooms_until(const struct allocator *allocator, int64_t time_ps, bool inclusive)
{
    size_t low = 0, high = allocator->oom_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        int64_t time = allocator->ooms[middle].time_ps;
        if (time < time_ps || (inclusive && time == time_ps))
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}

const struct oom_event *allocator_oom_at(const struct allocator *allocator, int64_t time_ps)
{
    size_t at = ooms_until(allocator, time_ps, false);
    return at < allocator->oom_count && allocator->ooms[at].time_ps == time_ps
               ? &allocator->ooms[at]
               : NULL;
}

const struct oom_event *allocator_oom_after(const struct allocator *allocator, int64_t time_ps)
{
    size_t at = ooms_until(allocator, time_ps, true);
    return at < allocator->oom_count ? &allocator->ooms[at] : NULL;
}

const struct oom_event *allocator_oom_before(const struct allocator *allocator,
                                             int64_t time_ps)
{
    size_t at = ooms_until(allocator, time_ps, false);
    return at ? &allocator->ooms[at - 1] : NULL;
}

size_t allocator_oom_index(const struct allocator *allocator, const struct oom_event *oom)
{
    return (size_t)(oom - allocator->ooms);
}

long profile_oom_allocator(const struct profile *profile)
{
    long best = -1;
    for (size_t i = 0; i < profile->allocator_count; i++) {
        const struct oom_event *last = allocator_last_oom(&profile->allocators[i]);
        if (last && (best < 0 ||
                     last->time_ps > allocator_last_oom(&profile->allocators[best])->time_ps))
            best = (long)i;
    }
    return best;
}

size_t profile_oom_count(const struct profile *profile)
{
    size_t count = 0;
    for (size_t i = 0; i < profile->allocator_count; i++)
        count += profile->allocators[i].oom_count;
    return count;
}

struct oom_account oom_account_of(const struct allocator *allocator,
                                  const struct oom_event *oom)
{
    struct oom_account account = {-1, -1, -1, OOM_VERDICT_UNKNOWN};
    if (allocator_records(allocator, ALLOCATOR_FIELD_CAPACITY) &&
        allocator->summary.capacity_bytes > 0)
        account.capacity_bytes = allocator->summary.capacity_bytes;
    if (oom->reserved_bytes >= 0 && oom->allocated_bytes >= 0) {
        int64_t room = saturating_subtract(oom->reserved_bytes, oom->allocated_bytes);
        account.reserved_free_bytes = room > 0 ? room : 0;
    }
    /* All free memory: the pool's free part plus the device's; or, where
     * the device's is unknown but the capacity bounds the pool (a BFC
     * allocator's Limit), what the limit leaves. */
    bool whole = false;
    if (account.reserved_free_bytes >= 0 && oom->device_free_bytes >= 0) {
        account.free_bytes = saturating_add(account.reserved_free_bytes, oom->device_free_bytes);
        whole = true;
    } else if (oom->allocated_bytes >= 0 && account.capacity_bytes > 0) {
        int64_t room = saturating_subtract(account.capacity_bytes, oom->allocated_bytes);
        account.free_bytes = room > 0 ? room : 0;
        whole = true;
    } else if (account.reserved_free_bytes >= 0) {
        account.free_bytes = account.reserved_free_bytes;
    }
    if (oom->requested_bytes < 0 || account.free_bytes < 0)
        return account;
    if (oom->requested_bytes > account.free_bytes)
        account.verdict = whole ? OOM_VERDICT_TOO_LARGE : OOM_VERDICT_LARGER_THAN_CACHED;
    else /* enough was free, yet the request failed: no block was large enough */
        account.verdict = OOM_VERDICT_FRAGMENTED;
    return account;
}

/* A row's key: its location when it has one, else its op, else (a row
 * of neither, an XLA entry parameter) its kind. */
static uint64_t holder_key(const struct allocation_row *row)
{
    if (row->location)
        return (uint64_t)1 << 32 | row->location;
    return row->op_name || !row->kind ? row->op_name : (uint64_t)2 << 32 | row->kind;
}

/* Whether holder a goes before b: more bytes, else seen first (the
 * order they were added in). */
static bool holder_before(const struct oom_holder *a, size_t a_index, const struct oom_holder *b,
                          size_t b_index)
{
    return a->bytes != b->bytes ? a->bytes > b->bytes : a_index < b_index;
}

size_t oom_top_holders(const struct allocation_row *rows, size_t count, struct oom_holder *out,
                       size_t max)
{
    struct integer_map groups = {0};
    struct oom_holder *sums = malloc((count ? count : 1) * sizeof *sums);
    size_t group_count = 0;
    bool ok = sums != NULL;
    for (size_t i = 0; ok && i < count; i++) {
        const struct allocation_row *row = &rows[i];
        uint64_t key = holder_key(row);
        uint32_t *found = integer_map_find(&groups, key);
        size_t at = found ? *found : group_count;
        if (!found) {
            ok = integer_map_put(&groups, key, (uint32_t)group_count);
            sums[group_count++] = (struct oom_holder){
                .name = row->location ? row->location
                        : row->op_name || !row->kind ? row->op_name
                                                     : row->kind,
                .is_location = row->location != 0,
            };
        }
        int64_t occurrences = row->occurrences > 0 ? row->occurrences : 1;
        int64_t bytes = row->allocation_bytes > 0 ? row->allocation_bytes : 0;
        int64_t total = bytes > INT64_MAX / occurrences ? INT64_MAX : bytes * occurrences;
        sums[at].bytes = saturating_add(sums[at].bytes, total);
        sums[at].allocations = saturating_add(sums[at].allocations, occurrences);
    }
    /* The largest `max` by selection: max is a handful. */
    size_t taken = 0;
    size_t *order = ok ? malloc((max ? max : 1) * sizeof *order) : NULL;
    for (; order && taken < max && taken < group_count; taken++) {
        size_t best = SIZE_MAX;
        for (size_t g = 0; g < group_count; g++) {
            bool used = false;
            for (size_t t = 0; t < taken && !used; t++)
                used = order[t] == g;
            if (!used && (best == SIZE_MAX || holder_before(&sums[g], g, &sums[best], best)))
                best = g;
        }
        order[taken] = best;
        out[taken] = sums[best];
    }
    free(order);
    free(sums);
    integer_map_free(&groups);
    return ok ? taken : 0;
}

bool oom_memory_map_cells(const struct allocator *allocator, double *cells, int width)
{
    long double total = 0;
    for (size_t i = 0; i < allocator->memory_map_count; i++)
        total += allocator->memory_map[i].bytes > 0 ? allocator->memory_map[i].bytes : 0;
    if (width <= 0 || total <= 0)
        return false;
    /* Cell c covers bytes [c * total / width, (c + 1) * total / width). */
    long double start = 0;
    for (int c = 0; c < width; c++)
        cells[c] = 0.0;
    for (size_t i = 0; i < allocator->memory_map_count; i++) {
        const struct memory_block *block = &allocator->memory_map[i];
        long double bytes = block->bytes > 0 ? block->bytes : 0, end = start + bytes;
        if (block->in_use) {
            for (int c = (int)(start * width / total); c < width; c++) {
                long double from = (long double)c * total / width;
                long double to = (long double)(c + 1) * total / width;
                if (from >= end)
                    break;
                long double overlap = (end < to ? end : to) - (start > from ? start : from);
                if (overlap > 0)
                    cells[c] += (double)(overlap / (to - from));
            }
        }
        start = end;
    }
    return true;
}
