/* source: what the paths given to memtop name, opened: profile files (one
 * host each), a directory of them, a run directory, or a log directory
 * with its runs (the run asked for by name, else the newest that holds
 * memory profiles); and which hosts a host name leaves. What a log
 * directory is, how its run is picked and how its hosts are named lives
 * here, so the command line asks the model one question (source_open).
 *
 * Called by src/input.c. Fills a message and returns a status: it never
 * prints. Its messages name the command-line options (--run, --list)
 * because they are printed as the answer to them. */
#ifndef MEMTOP_SOURCE_H
#define MEMTOP_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

#include "model/host_list.h"
#include "model/load.h"
#include "model/logdir.h"

struct source {
    /* One directory was given: its runs (one for a run directory), and
     * reports name each host (and the run, for a log directory's). */
    bool directory;
    struct logdir logdir; /* run_count 0 unless directory */
    size_t run_index;     /* the run `hosts` holds */
    struct host_list hosts;
    /* The hosts `host` leaves: [first_host, first_host + host_count). */
    size_t first_host, host_count;
};

/* A message of source_open fits in this many bytes. */
#define SOURCE_MESSAGE_SIZE 1024

/* Opens what paths name: one directory (a log or run directory, or a
 * directory of profiles), else path_count profile files. run (or NULL)
 * picks a log directory's run by name; host (or NULL) leaves the one host
 * of that name. On failure: the status, the path the message is about in
 * *path, and the message; the source is left empty. */
enum load_status source_open(struct source *source, char *const *paths, size_t path_count,
                             const char *run, const char *host, const char **path,
                             char *message, size_t message_size);
void source_free(struct source *source);

#endif
