/* peer_cjson: the plain way to read a proto3-JSON MemoryProfile in C, the
 * benchmark's peer for memtop's JSON loader: read the file, cJSON_Parse
 * the whole document, then compute the same summary memtop --summary
 * prints (int64 fields as proto3 JSON writes them: quoted strings). */
#include "config.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/peer_summary.h"

static int64_t member_int64(const cJSON *object, const char *name)
{
    const cJSON *value = cJSON_GetObjectItemCaseSensitive(object, name);
    if (cJSON_IsString(value))
        return strtoll(value->valuestring, NULL, 10);
    if (cJSON_IsNumber(value))
        return (int64_t)value->valuedouble;
    return 0;
}

static int member_activity(const cJSON *metadata)
{
    const cJSON *value = cJSON_GetObjectItemCaseSensitive(metadata, "memoryActivity");
    if (cJSON_IsNumber(value))
        return value->valueint;
    if (!cJSON_IsString(value))
        return 0;
    if (strcmp(value->valuestring, "ALLOCATION") == 0)
        return 1;
    if (strcmp(value->valuestring, "DEALLOCATION") == 0)
        return 2;
    return 0;
}

static void summarize_allocator(const cJSON *entry, struct peer_allocator *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->id, sizeof out->id, "%s", entry->string);
    out->sorted = true;
    out->active_rows =
        (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(entry, "activeAllocations"));
    const cJSON *summary = cJSON_GetObjectItemCaseSensitive(entry, "profileSummary");
    out->derived = !cJSON_IsObject(summary);
    if (!out->derived) {
        const cJSON *peak = cJSON_GetObjectItemCaseSensitive(summary, "peakStats");
        out->peak_bytes =
            member_int64(peak, "stackReservedBytes") + member_int64(peak, "heapAllocatedBytes");
        out->peak_time_ps = member_int64(summary, "peakStatsTimePs");
        out->capacity_bytes = member_int64(summary, "memoryCapacity");
    }
    const cJSON *timeline = cJSON_GetObjectItemCaseSensitive(entry, "sampledTimelineSnapshots");
    if (cJSON_GetArraySize(timeline) == 0)
        timeline = cJSON_GetObjectItemCaseSensitive(entry, "memoryProfileSnapshots");
    int64_t previous = 0;
    const cJSON *snapshot;
    cJSON_ArrayForEach(snapshot, timeline) {
        const cJSON *stats = cJSON_GetObjectItemCaseSensitive(snapshot, "aggregationStats");
        const cJSON *metadata = cJSON_GetObjectItemCaseSensitive(snapshot, "activityMetadata");
        peer_summary_add(out, member_int64(snapshot, "timeOffsetPs"),
                         member_int64(stats, "stackReservedBytes"),
                         member_int64(stats, "heapAllocatedBytes"), member_activity(metadata),
                         &previous);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: peer_cjson FILE.json\n");
        return 2;
    }
    size_t size = 0;
    char *text = peer_read_file(argv[1], &size);
    if (!text) {
        perror(argv[1]);
        return 2;
    }
    cJSON *root = cJSON_ParseWithLength(text, size);
    free(text);
    if (!root) {
        fprintf(stderr, "%s: cJSON could not parse it\n", argv[1]);
        return 2;
    }
    const cJSON *map = cJSON_GetObjectItemCaseSensitive(root, "memoryProfilePerAllocator");
    size_t count = (size_t)cJSON_GetArraySize(map);
    struct peer_allocator *allocators = calloc(count ? count : 1, sizeof *allocators);
    if (!allocators)
        return 1;
    size_t index = 0;
    const cJSON *entry;
    cJSON_ArrayForEach(entry, map)
        summarize_allocator(entry, &allocators[index++]);
    peer_summary_print(stdout, allocators, count);
    free(allocators);
    cJSON_Delete(root);
    return 0;
}
