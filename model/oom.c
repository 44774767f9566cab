/* oom: see oom.h. The OOMs of an allocator are few and sorted by time:
 * plain scans and binary searches over them. */
#include "config.h"

#include "model/oom.h"

#include "model/saturating.h"

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
