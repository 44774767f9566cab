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
};

#define INPUT_MESSAGE_SIZE 1024

/* Opens what options->paths name. On failure: the status, the path the
 * message is about in *path, and the message. */
enum load_status input_open(struct input *input, const struct options *options,
                            const char **path, char *message, size_t message_size);
void input_free(struct input *input);

#endif
