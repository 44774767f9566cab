/* peer_summary: what the benchmark's peer programs compute once they have
 * parsed a profile the plain way, so that they do the same work memtop's
 * --summary does: per allocator the timeline's length, its allocations and
 * deallocations, the peak (from the file, or derived the way XProf does)
 * and the number of active-allocation rows. */
#ifndef MEMTOP_PEER_SUMMARY_H
#define MEMTOP_PEER_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct peer_allocator {
    char id[64];
    size_t snapshots;
    size_t allocations;
    size_t deallocations;
    size_t active_rows;
    bool sorted;
    bool derived;          /* no summary in the file: peak from the timeline */
    int64_t peak_bytes;    /* stack + heap at the peak */
    int64_t peak_time_ps;
    int64_t capacity_bytes;
};

/* Folds one timeline snapshot into the allocator's running summary. */
void peer_summary_add(struct peer_allocator *allocator, int64_t time_ps, int64_t stack_bytes,
                      int64_t heap_bytes, int activity, int64_t *previous_time_ps);

void peer_summary_print(FILE *out, const struct peer_allocator *allocators, size_t count);

/* Reads a whole file into a malloc'd, NUL-terminated buffer; NULL on failure. */
char *peer_read_file(const char *path, size_t *size);

/* The file a peer's command line names (its one argument), read whole; NULL
 * after saying why on standard error ("usage: USAGE" or the file's error). */
char *peer_read_argument(int argc, char **argv, const char *usage, size_t *size);

#endif
