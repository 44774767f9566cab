/* peer_protobuf_c: the plain way to read a binary MemoryProfile in C, the
 * benchmark's peer for memtop's protobuf loader: read the file, unpack the
 * whole message with the code protoc-c generates, then compute the same
 * summary memtop --summary prints. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/peer_summary.h"
#include "model/memory_profile.pb-c.h"

typedef Tensorflow__Profiler__MemoryProfile MemoryProfile;
typedef Tensorflow__Profiler__PerAllocatorMemoryProfile PerAllocator;
typedef Tensorflow__Profiler__MemoryProfileSnapshot Snapshot;

static void summarize_allocator(const char *id, const PerAllocator *value,
                                struct peer_allocator *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->id, sizeof out->id, "%s", id);
    out->sorted = true;
    out->active_rows = value->n_active_allocations;
    out->derived = value->profile_summary == NULL;
    if (!out->derived) {
        const Tensorflow__Profiler__MemoryProfileSummary *summary = value->profile_summary;
        out->peak_time_ps = summary->peak_stats_time_ps;
        out->capacity_bytes = summary->memory_capacity;
        if (summary->peak_stats)
            out->peak_bytes =
                summary->peak_stats->stack_reserved_bytes + summary->peak_stats->heap_allocated_bytes;
    }
    Snapshot **timeline = value->n_sampled_timeline_snapshots ? value->sampled_timeline_snapshots
                                                              : value->memory_profile_snapshots;
    size_t count = value->n_sampled_timeline_snapshots ? value->n_sampled_timeline_snapshots
                                                       : value->n_memory_profile_snapshots;
    int64_t previous = 0;
    for (size_t i = 0; i < count; i++) {
        const Snapshot *s = timeline[i];
        int64_t stack = s->aggregation_stats ? s->aggregation_stats->stack_reserved_bytes : 0;
        int64_t heap = s->aggregation_stats ? s->aggregation_stats->heap_allocated_bytes : 0;
        int activity = s->activity_metadata ? (int)s->activity_metadata->memory_activity : 0;
        peer_summary_add(out, s->time_offset_ps, stack, heap, activity, &previous);
    }
}

int main(int argc, char **argv)
{
    size_t size = 0;
    char *bytes = peer_read_argument(argc, argv, "peer_protobuf_c FILE.pb", &size);
    if (!bytes)
        return 2;
    MemoryProfile *profile =
        tensorflow__profiler__memory_profile__unpack(NULL, size, (const uint8_t *)bytes);
    free(bytes);
    if (!profile) {
        fprintf(stderr, "%s: protobuf-c could not unpack it\n", argv[1]);
        return 2;
    }
    size_t count = profile->n_memory_profile_per_allocator;
    struct peer_allocator *allocators = calloc(count ? count : 1, sizeof *allocators);
    if (!allocators)
        return 1;
    for (size_t i = 0; i < count; i++) {
        const Tensorflow__Profiler__MemoryProfile__MemoryProfilePerAllocatorEntry *entry =
            profile->memory_profile_per_allocator[i];
        if (entry->value)
            summarize_allocator(entry->key, entry->value, &allocators[i]);
    }
    peer_summary_print(stdout, allocators, count);
    free(allocators);
    tensorflow__profiler__memory_profile__free_unpacked(profile, NULL);
    return 0;
}
