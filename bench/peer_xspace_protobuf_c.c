/* peer_xspace_protobuf_c: the plain way to get XProf's memory profile out
 * of an XSpace in C, the benchmark's peer for memtop's XSpace loader: read
 * the file, unpack the whole XSpace with the code protoc-c generates from
 * bench/xplane.proto, then do the conversion straightforwardly: the first
 * /host:CPU plane's memory events by XProf's reading rules, the summary in
 * walk order, each allocator sorted by time, steps fixed, the peak step
 * and the table at the peak. It skips XProf's step grouping (every event
 * without a group_id stat is in step 0), which only makes it faster. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/peer_summary.h"
#include "bench/xplane.pb-c.h"

typedef Tensorflow__Profiler__XSpace XSpace;
typedef Tensorflow__Profiler__XPlane XPlane;
typedef Tensorflow__Profiler__XEvent XEvent;
typedef Tensorflow__Profiler__XStat XStat;

struct snapshot {
    int64_t time, stack, heap, free_bytes, peak_in_use, requested, bytes, step;
    double fragmentation;
    uint64_t address;
    int allocation;
    const char *op, *region, *shape;
    int32_t data_type; /* the enum: its name only matters for display */
};

struct allocator {
    char id[256];
    struct snapshot *snapshots;
    size_t count, capacity;
    int64_t lifetime, peak_in_use, peak_time, peak_stack, peak_heap, capacity_bytes;
};

struct name_entry {
    int64_t key;
    const char *name;
};

static int compare_names(const void *a, const void *b)
{
    int64_t x = ((const struct name_entry *)a)->key, y = ((const struct name_entry *)b)->key;
    return (x > y) - (x < y);
}

static const char *name_of(const struct name_entry *names, size_t count, int64_t key)
{
    struct name_entry wanted = {key, NULL};
    const struct name_entry *found = bsearch(&wanted, names, count, sizeof *names, compare_names);
    return found ? found->name : NULL;
}

static int64_t int_value(const XStat *stat)
{
    return stat->value_case == TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE ? stat->int64_value
                                                                              : 0;
}

static const char *string_value(const XStat *stat, const struct name_entry *stats, size_t count)
{
    if (stat->value_case == TENSORFLOW__PROFILER__XSTAT__VALUE_STR_VALUE)
        return stat->str_value;
    if (stat->value_case == TENSORFLOW__PROFILER__XSTAT__VALUE_REF_VALUE) {
        const char *name = name_of(stats, count, (int64_t)stat->ref_value);
        return name ? name : "";
    }
    return "";
}

static struct allocator *allocator_for(struct allocator **list, size_t *count, const char *id)
{
    for (size_t i = 0; i < *count; i++)
        if (strcmp((*list)[i].id, id) == 0)
            return &(*list)[i];
    *list = realloc(*list, (*count + 1) * sizeof **list);
    struct allocator *allocator = &(*list)[(*count)++];
    memset(allocator, 0, sizeof *allocator);
    snprintf(allocator->id, sizeof allocator->id, "%s", id);
    return allocator;
}

/* One memory event, read the way XProf reads it. */
static struct snapshot read_event(const XEvent *event, int allocation,
                                  const struct name_entry *stats, size_t stat_count,
                                  char *memory_id, size_t id_size)
{
    struct snapshot s = {.allocation = allocation, .step = -1, .op = "", .region = "",
                         .shape = ""};
    s.time = event->data_case == TENSORFLOW__PROFILER__XEVENT__DATA_OFFSET_PS ? event->offset_ps
                                                                              : 0;
    memory_id[0] = '\0';
    for (size_t i = 0; i < event->n_stats; i++) {
        const XStat *stat = event->stats[i];
        const char *name = name_of(stats, stat_count, stat->metadata_id);
        if (!name)
            continue;
        if (strcmp(name, "allocator_name") == 0)
            snprintf(memory_id, id_size, "%s", string_value(stat, stats, stat_count));
        else if (strcmp(name, "index_on_host") == 0 || strcmp(name, "device_ordinal") == 0)
            snprintf(memory_id, id_size, "%" PRId64, int_value(stat));
        else if (strcmp(name, "bytes_reserved") == 0)
            s.stack = int_value(stat);
        else if (strcmp(name, "bytes_allocated") == 0)
            s.heap = int_value(stat);
        else if (strcmp(name, "bytes_available") == 0)
            s.free_bytes = int_value(stat);
        else if (strcmp(name, "fragmentation") == 0)
            s.fragmentation = stat->value_case == TENSORFLOW__PROFILER__XSTAT__VALUE_DOUBLE_VALUE
                                  ? stat->double_value : 0.0;
        else if (strcmp(name, "peak_bytes_in_use") == 0)
            s.peak_in_use = int_value(stat);
        else if (strcmp(name, "requested_bytes") == 0)
            s.requested = int_value(stat);
        else if (strcmp(name, "allocation_bytes") == 0)
            s.bytes = int_value(stat);
        else if (strcmp(name, "addr") == 0)
            s.address = (uint64_t)int_value(stat);
        else if (strcmp(name, "tf_op") == 0)
            s.op = string_value(stat, stats, stat_count);
        else if (strcmp(name, "region_type") == 0)
            s.region = string_value(stat, stats, stat_count);
        else if (strcmp(name, "shape") == 0)
            s.shape = string_value(stat, stats, stat_count);
        else if (strcmp(name, "data_type") == 0)
            s.data_type = (int32_t)int_value(stat);
        else if (strcmp(name, "group_id") == 0)
            s.step = int_value(stat);
    }
    return s;
}

static int compare_time(const void *a, const void *b)
{
    const struct snapshot *x = a, *y = b;
    return (x->time > y->time) - (x->time < y->time);
}

/* The table at the peak: rows of live allocations (by address) + specials. */
static size_t peak_rows(const struct allocator *allocator, int64_t step)
{
    size_t slots = 64;
    while (slots < allocator->count * 2)
        slots *= 2;
    uint64_t *keys = calloc(slots, sizeof *keys);
    char *used = calloc(slots, 1);
    size_t live = 0;
    int64_t unmapped = allocator->peak_heap, unmatched = 0;
    for (size_t i = 0; i < allocator->count; i++) {
        const struct snapshot *s = &allocator->snapshots[i];
        if (s->time > allocator->peak_time)
            break;
        if (s->step != step)
            continue;
        size_t slot = (size_t)(s->address * 0x9e3779b97f4a7c15u >> 20) & (slots - 1);
        while (used[slot] == 1 && keys[slot] != s->address)
            slot = (slot + 1) & (slots - 1);
        if (s->allocation) {
            live += used[slot] != 1;
            used[slot] = 1;
            keys[slot] = s->address;
            unmapped -= s->bytes;
        } else {
            if (used[slot] == 1) {
                used[slot] = 2; /* a tombstone is enough for a peer */
                live--;
            } else {
                unmatched += s->bytes;
            }
            unmapped += s->bytes;
        }
    }
    free(keys);
    free(used);
    return live + (unmapped - unmatched > 0) + (allocator->peak_stack > 0);
}

int main(int argc, char **argv)
{
    size_t size = 0;
    char *bytes = peer_read_argument(argc, argv, "peer_xspace_protobuf_c FILE.xplane.pb", &size);
    if (!bytes)
        return 2;
    XSpace *space = tensorflow__profiler__xspace__unpack(NULL, size, (const uint8_t *)bytes);
    free(bytes);
    if (!space) {
        fprintf(stderr, "%s: protobuf-c could not unpack it\n", argv[1]);
        return 2;
    }
    const XPlane *host = NULL;
    for (size_t p = 0; p < space->n_planes && !host; p++)
        if (strcmp(space->planes[p]->name, "/host:CPU") == 0)
            host = space->planes[p];
    if (!host) {
        fprintf(stderr, "%s: no host plane\n", argv[1]);
        return 2;
    }
    struct name_entry *events = malloc((host->n_event_metadata + 1) * sizeof *events);
    struct name_entry *stats = malloc((host->n_stat_metadata + 1) * sizeof *stats);
    for (size_t i = 0; i < host->n_event_metadata; i++)
        events[i] = (struct name_entry){host->event_metadata[i]->key,
                                        host->event_metadata[i]->value
                                            ? host->event_metadata[i]->value->name : ""};
    for (size_t i = 0; i < host->n_stat_metadata; i++)
        stats[i] = (struct name_entry){host->stat_metadata[i]->key,
                                       host->stat_metadata[i]->value
                                           ? host->stat_metadata[i]->value->name : ""};
    qsort(events, host->n_event_metadata, sizeof *events, compare_names);
    qsort(stats, host->n_stat_metadata, sizeof *stats, compare_names);
    struct allocator *allocators = NULL;
    size_t allocator_count = 0;
    for (size_t l = 0; l < host->n_lines; l++) {
        for (size_t e = 0; e < host->lines[l]->n_events; e++) {
            const XEvent *event = host->lines[l]->events[e];
            const char *name = name_of(events, host->n_event_metadata, event->metadata_id);
            int allocation = name && strcmp(name, "MemoryAllocation") == 0;
            if (!allocation && !(name && strcmp(name, "MemoryDeallocation") == 0))
                continue;
            char id[256];
            struct snapshot s = read_event(event, allocation, stats, host->n_stat_metadata, id,
                                           sizeof id);
            struct allocator *a = allocator_for(&allocators, &allocator_count, id);
            if (a->count == a->capacity) {
                a->capacity = a->capacity ? a->capacity * 2 : 1024;
                a->snapshots = realloc(a->snapshots, a->capacity * sizeof *a->snapshots);
            }
            a->snapshots[a->count++] = s;
            a->lifetime = s.peak_in_use;
            if (s.stack + s.heap >= a->peak_in_use) {
                a->peak_in_use = s.stack + s.heap;
                a->peak_time = s.time;
                a->peak_stack = s.stack;
                a->peak_heap = s.heap;
                a->capacity_bytes = s.stack + s.heap + s.free_bytes;
            }
        }
    }
    for (size_t i = 0; i < allocator_count; i++) {
        struct allocator *a = &allocators[i];
        /* qsort is not stable: equal times may swap, as in XProf */
        qsort(a->snapshots, a->count, sizeof *a->snapshots, compare_time);
        int64_t last = -1, peak_step = 0;
        size_t allocations = 0;
        for (size_t k = 0; k < a->count; k++) {
            if (a->snapshots[k].step == -1)
                a->snapshots[k].step = last + 1;
            else
                last = a->snapshots[k].step;
            if (a->snapshots[k].stack + a->snapshots[k].heap == a->peak_in_use)
                peak_step = a->snapshots[k].step;
            allocations += (size_t)a->snapshots[k].allocation;
        }
        printf("%s: %zu snapshots, %zu allocations, %zu deallocations, peak %" PRId64
               " bytes at %" PRId64 " ps, lifetime %" PRId64 ", capacity %" PRId64
               ", step %" PRId64 ", %zu rows\n",
               a->id, a->count, allocations, a->count - allocations, a->peak_in_use,
               a->peak_time, a->lifetime, a->capacity_bytes, peak_step, peak_rows(a, peak_step));
        free(a->snapshots);
    }
    free(allocators);
    free(events);
    free(stats);
    tensorflow__profiler__xspace__free_unpacked(space, NULL);
    return 0;
}
