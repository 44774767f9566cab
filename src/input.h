/* input: what the command line's paths name, opened (model/source.h:
 * profile files, a directory of them, a run directory, or a log directory
 * with its runs, --run picking one; the hosts --host leaves), after the
 * rules of the command line's own for --compare: two files, or two runs
 * (two directories, or one log directory and --run twice) opened as two
 * sources whose hosts are matched by name, never a file beside a
 * directory. Called by main, which prints what goes wrong and picks the
 * exit status: this module only fills a message. */
#ifndef MEMTOP_INPUT_H
#define MEMTOP_INPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "model/query/compare.h"
#include "model/load.h"
#include "model/source.h"
#include "src/options.h"

#define INPUT_MESSAGE_SIZE SOURCE_MESSAGE_SIZE

/* Opens what options->paths name into *input. On failure: the status,
 * the path the message is about in *path, and the message. */
enum load_status input_open(struct source *input, const struct options *options,
                            const char **path, char *message, size_t message_size);
void input_free(struct source *input);

/* --compare on directories: BASE's and NEW's runs opened each as a
 * source (two log or run directories, or one log directory's two --run
 * runs), their hosts matched by name (model/query/compare.h). */
struct compared_runs {
    struct source sides[2]; /* BASE, NEW */
    struct host_match *matches;
    size_t match_count;
};

/* Whether --compare was given directories (or one log directory). */
bool input_compares_runs(const struct options *options);
enum load_status input_open_runs(struct compared_runs *runs, const struct options *options,
                                 const char **path, char *message, size_t message_size);
void input_free_runs(struct compared_runs *runs);

#endif
