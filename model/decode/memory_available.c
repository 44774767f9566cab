#include "config.h"

#include "model/decode/memory_available.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static uint64_t smaller(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* The first number of a small file (a /proc or /sys one); false when it
 * cannot be read or starts with no number ("max"). */
static bool file_number(const char *path, uint64_t *number)
{
    FILE *file = fopen(path, "re");
    if (!file)
        return false;
    bool read = fscanf(file, "%" SCNu64, number) == 1;
    fclose(file);
    return read;
}

/* /proc/meminfo's MemAvailable, in bytes. */
static uint64_t meminfo_available(void)
{
    FILE *file = fopen("/proc/meminfo", "re");
    if (!file)
        return UINT64_MAX;
    char line[128];
    uint64_t kib, bytes = UINT64_MAX;
    while (fgets(line, sizeof line, file))
        if (sscanf(line, "MemAvailable: %" SCNu64 " kB", &kib) == 1) {
            bytes = kib * 1024;
            break;
        }
    fclose(file);
    return bytes;
}

/* A soft rlimit less what it already counts (pages from /proc/self/statm's
 * field `field`: 0 the whole mapping, 5 data and stack). */
static uint64_t rlimit_left(int resource, int field)
{
    struct rlimit limit;
    if (getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
        return UINT64_MAX;
    uint64_t pages[7] = {0};
    FILE *file = fopen("/proc/self/statm", "re");
    if (file) {
        for (int i = 0; i < 7 && fscanf(file, "%" SCNu64, &pages[i]) == 1; i++)
            ;
        fclose(file);
    }
    uint64_t used = pages[field] * (uint64_t)sysconf(_SC_PAGESIZE);
    return (uint64_t)limit.rlim_cur > used ? (uint64_t)limit.rlim_cur - used : 0;
}

/* A container's limit (cgroup v2, its root as the container sees it). */
static uint64_t cgroup_left(void)
{
    uint64_t limit, current;
    if (!file_number("/sys/fs/cgroup/memory.max", &limit) ||
        !file_number("/sys/fs/cgroup/memory.current", &current))
        return UINT64_MAX;
    return limit > current ? limit - current : 0;
}

uint64_t memory_available(void)
{
    uint64_t available = meminfo_available();
    available = smaller(available, rlimit_left(RLIMIT_AS, 0));
    available = smaller(available, rlimit_left(RLIMIT_DATA, 5));
    return smaller(available, cgroup_left());
}
