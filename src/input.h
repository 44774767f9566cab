/* input: what the command line's paths name, opened: profile files, a
 * directory of them, a run directory, or a log directory with its runs
 * (--run picks one, else the newest that holds memory profiles); and
 * which hosts --host leaves. Called by main, which prints what goes
 * wrong and picks the exit status: this module only fills a message. */
#ifndef MEMTOP_INPUT_H
#define MEMTOP_INPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "model/host_list.h"
#include "model/logdir.h"
#include "src/options.h"

struct input {
    /* One directory was given: its runs (one for a run directory), and
     * reports name each host (and the run, for a log directory's). */
    bool directory;
    struct logdir logdir; /* run_count 0 unless directory */
    size_t run_index;     /* the run `hosts` holds */
    struct host_list hosts;
    /* The hosts --host leaves: [first_host, first_host + host_count). */
    size_t first_host, host_count;
    /* Runs of the log directory that were tried and did not load: one
     * malloc'd message each ("w-1: offset 3000: ..."), NULL for the
     * others; NULL until input_fall_back_run() fills it. */
    char **run_errors;
    size_t failed_run; /* the run given up on (run_count: none) */
};

#define INPUT_MESSAGE_SIZE 1024

/* Opens what options->paths name. On failure: the status, the path the
 * message is about in *path, and the message. */
enum load_status input_open(struct input *input, const struct options *options,
                            const char **path, char *message, size_t message_size);
void input_free(struct input *input);

/* The viewer on a log directory whose run (the newest, no --run, --host
 * or --compare) has one host and it failed to load: opens the newest
 * older run whose one host loads (or that has several hosts, which the
 * viewer loads itself), recording why each run tried did not. false
 * when none does or the input is not such a log directory: then the
 * caller reports the first failure as before. */
bool input_fall_back_run(struct input *input, const struct options *options);

/* --list: the runs the viewer would open, newest first, loaded until one
 * does, as input_fall_back_run() tries them; why each that did not
 * failed into errors[run] (malloc'd; errors holds run_count). */
void input_check_runs(const struct logdir *logdir, char **errors);

#endif
