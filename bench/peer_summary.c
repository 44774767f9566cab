#include "config.h"

#include "bench/peer_summary.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

void peer_summary_add(struct peer_allocator *allocator, int64_t time_ps, int64_t stack_bytes,
                      int64_t heap_bytes, int activity, int64_t *previous_time_ps)
{
    if (allocator->snapshots > 0 && time_ps < *previous_time_ps)
        allocator->sorted = false;
    *previous_time_ps = time_ps;
    allocator->snapshots++;
    if (activity == 1)
        allocator->allocations++;
    else if (activity == 2)
        allocator->deallocations++;
    int64_t in_use = stack_bytes + heap_bytes;
    /* A later snapshot wins ties, as in XProf. */
    if (allocator->derived && (allocator->snapshots == 1 || in_use >= allocator->peak_bytes)) {
        allocator->peak_bytes = in_use;
        allocator->peak_time_ps = time_ps;
    }
}

void peer_summary_print(FILE *out, const struct peer_allocator *allocators, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        const struct peer_allocator *a = &allocators[i];
        fprintf(out,
                "%s: %zu snapshots%s, %zu allocations, %zu deallocations, peak %" PRId64
                " bytes at %" PRId64 " ps%s, capacity %" PRId64 ", %zu rows\n",
                a->id, a->snapshots, a->sorted ? "" : " (unsorted)", a->allocations,
                a->deallocations, a->peak_bytes, a->peak_time_ps,
                a->derived ? " (derived)" : "", a->capacity_bytes, a->active_rows);
    }
}

char *peer_read_file(const char *path, size_t *size)
{
    int descriptor = open(path, O_RDONLY | O_CLOEXEC);
    if (descriptor < 0)
        return NULL;
    struct stat status;
    char *bytes = NULL;
    if (fstat(descriptor, &status) == 0 && status.st_size >= 0)
        bytes = malloc((size_t)status.st_size + 1);
    size_t done = 0;
    while (bytes && done < (size_t)status.st_size) {
        ssize_t got = read(descriptor, bytes + done, (size_t)status.st_size - done);
        if (got <= 0) {
            free(bytes);
            bytes = NULL;
            break;
        }
        done += (size_t)got;
    }
    close(descriptor);
    if (bytes) {
        bytes[done] = '\0';
        *size = done;
    }
    return bytes;
}

char *peer_read_argument(int argc, char **argv, const char *usage, size_t *size)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s\n", usage);
        return NULL;
    }
    char *bytes = peer_read_file(argv[1], size);
    if (!bytes)
        perror(argv[1]);
    return bytes;
}
