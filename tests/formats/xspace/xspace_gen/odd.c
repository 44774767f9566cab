/* odd: --odd variants of memory events, odd but valid input as
 * xspace.md section 8 lists it (tests/generate_xspace).
 *
 * Each rule applies to every Nth memory event (N prime, so rules mix),
 * counted over the whole file, and changes only what is written: the
 * oracle reads the result by XProf's rules like any other event. What
 * XProf makes of each rule is said beside it. */
#include "config.h"

#include <string.h>

#include "tests/formats/xspace/xspace_gen/styles.h"

static int find_stat(struct job *job, const char *name, const struct stat_item *stats,
                     uint32_t count)
{
    uint64_t key = job_stat_key(job, name);
    for (uint32_t i = 0; i < count; i++)
        if (stats[i].key == key)
            return (int)i;
    return -1;
}

static void insert_stat(struct stat_item *stats, uint32_t *count, uint32_t at,
                        struct stat_item stat)
{
    if (*count >= MAX_EVENT_STATS)
        return;
    memmove(&stats[at + 1], &stats[at], (*count - at) * sizeof *stats);
    stats[at] = stat;
    (*count)++;
}

static void remove_stat(struct stat_item *stats, uint32_t *count, uint32_t at)
{
    memmove(&stats[at], &stats[at + 1], (*count - at - 1) * sizeof *stats);
    (*count)--;
}

/* Data types XProf names oddly: a ref type, the offset itself, a value
 * that is 1 in 32 bits, a negative one, one past the table. */
static const int64_t odd_data_types[] = {131, 100, INT64_C(4294967297), 105, -3, 31};

void odd_memory_event(struct job *job, bool allocation, uint64_t *metadata_key,
                      struct stat_item *stats, uint32_t *count)
{
    uint64_t n = ++job->odd_counter;
    int at;
    /* requested_bytes as uint64: XProf reads an integer field from
     * int64_value only, so 0. */
    if (n % 7 == 0 && (at = find_stat(job, "requested_bytes", stats, *count)) >= 0)
        stats[at].kind = STAT_UINT64;
    /* A stat whose metadata the file does not define: ignored. */
    if (n % 11 == 0 && (at = find_stat(job, "bytes_allocated", stats, *count)) >= 0)
        insert_stat(stats, count, (uint32_t)at + 1,
                    stat_int64(plane_missing_key(job->host), 1));
    /* The same name under a second key: still bytes_allocated. */
    if (n % 13 == 0 && (at = find_stat(job, "bytes_allocated", stats, *count)) >= 0)
        stats[at].key = plane_stat_key_duplicate(job->host, string_c("bytes_allocated"));
    /* A second event-metadata entry named MemoryAllocation (or
     * MemoryDeallocation): still a memory event. */
    if (n % 17 == 0)
        *metadata_key = plane_event_key_duplicate(
            job->host, string_c(allocation ? "MemoryAllocation" : "MemoryDeallocation"));
    /* No bytes_available: free memory 0 for XProf. */
    if (n % 19 == 0 && (at = find_stat(job, "bytes_available", stats, *count)) >= 0)
        remove_stat(stats, count, (uint32_t)at);
    /* bytes_reserved as a double: an integer field reads 0. */
    if (n % 23 == 0 && (at = find_stat(job, "bytes_reserved", stats, *count)) >= 0)
        stats[at] = stat_double(stats[at].key, (double)(int64_t)stats[at].bits);
    /* Odd data type numbers on allocations. */
    if (allocation && n % 29 == 0 && (at = find_stat(job, "data_type", stats, *count)) >= 0)
        stats[at].bits = (uint64_t)odd_data_types[(n / 29) % (sizeof odd_data_types /
                                                               sizeof odd_data_types[0])];
    /* fragmentation as int64 1: a double field reads 0.0. */
    if (n % 31 == 0 && (at = find_stat(job, "fragmentation", stats, *count)) >= 0)
        stats[at] = stat_int64(stats[at].key, 1);
    /* peak_bytes_in_use as uint64: reads 0 (the lifetime peak, when this
     * is the last event visited). */
    if (n % 37 == 0 && (at = find_stat(job, "peak_bytes_in_use", stats, *count)) >= 0)
        stats[at].kind = STAT_UINT64;
    /* Two memory ids: the last one wins. An index_on_host before the
     * allocator_name; a device_ordinal after a TPU's index_on_host with
     * the same value. */
    if (n % 41 == 0) {
        if ((at = find_stat(job, "allocator_name", stats, *count)) >= 0)
            insert_stat(stats, count, (uint32_t)at,
                        stat_int64(job_stat_key(job, "index_on_host"), 7));
        else if ((at = find_stat(job, "index_on_host", stats, *count)) >= 0)
            insert_stat(stats, count, (uint32_t)at + 1,
                        stat_int64(job_stat_key(job, "device_ordinal"),
                                   (int64_t)stats[at].bits));
    }
    /* bytes_allocated twice, a wrong value first: the last one wins. */
    if (n % 43 == 0 && (at = find_stat(job, "bytes_allocated", stats, *count)) >= 0)
        insert_stat(stats, count, (uint32_t)at,
                    stat_int64(stats[at].key, (int64_t)stats[at].bits + 12345));
}

/* ---- structure ---- */

void odd_add_lines(struct job *job, int64_t timestamp_ns)
{
    job->aggregate_line =
        job_add_host_line(job, 77, string_c("(aggregated)"), timestamp_ns, false);
}

void odd_step_extras(struct job *job, uint32_t main_line, struct allocator *allocator)
{
    /* An event whose metadata id the file does not define, carrying the
     * stats of an allocation: not a memory event for XProf. */
    struct block fake = {.address = 4096, .requested = 1 << 20, .size = 1 << 20};
    struct memory_annotation annotation = {.op = string_c("not_a_memory_event"),
                                           .has_data_type = true};
    struct stat_item stats[MAX_EVENT_STATS];
    uint32_t count = memory_event_stats(job, allocator, &fake, true, &annotation, stats);
    job_instant(job, main_line, plane_missing_key(job->host), stats, count);
    if (job->aggregated_done || !job_capturing(job))
        return;
    job->aggregated_done = true;
    /* Aggregated events: num_occurrences instead of offset_ps (offset 0
     * for XProf). One is an allocation that is never freed. */
    job_aggregate(job, job->aggregate_line, job_event_key(job, "AggregatedHostOps"), 40, 12,
                  NULL, 0);
    struct block block = allocator_allocate(allocator, 12345);
    annotation = (struct memory_annotation){.op = string_c("aggregated_allocation"),
                                            .region = string_c("persist"),
                                            .data_type = 1,
                                            .has_data_type = true};
    count = memory_event_stats(job, allocator, &block, true, &annotation, stats);
    job->next_is_memory = true;
    job_aggregate(job, job->aggregate_line, job_event_key(job, "MemoryAllocation"), 0, 1, stats,
                  count);
    job->memory_events++;
    job_advance_ns(job, 1);
}
