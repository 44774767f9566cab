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
    /* Runs of the log directory that were tried and did not load: one
     * malloc'd message each ("w-1: offset 3000: ..."), NULL for the
     * others; NULL until source_fall_back_run() fills it. */
    char **run_errors;
    size_t failed_run; /* the run given up on */
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

/* The viewer on a log directory whose run (picked as the newest: the
 * caller asks only without a run or host named) has one host and it
 * failed to load: the newest older run whose one host loads (or that has
 * several hosts, which the viewer loads itself) replaces it, why each
 * run tried did not load kept in run_errors. false when none does or the
 * source is not such a log directory. */
bool source_fall_back_run(struct source *source);
/* --list: the runs the viewer would open, newest first, loaded until one
 * does, as source_fall_back_run() tries them; why each that did not
 * failed into errors[run] (malloc'd; errors holds run_count). */
void source_check_runs(const struct logdir *logdir, char **errors);

#endif
