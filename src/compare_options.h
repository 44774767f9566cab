/* compare_options: the --compare part of the command line (see
 * src/compare_options.c). */
#ifndef MEMTOP_COMPARE_OPTIONS_H
#define MEMTOP_COMPARE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "src/options.h"

/* After the options: --compare's companions (--export compare implies
 * it); list: --list was given. */
bool compare_options_check(struct options *options, bool list, char *error,
                           size_t error_size);
/* --pair BASE_ID=NEW_ID into options->pairings. */
bool compare_pair_option_parse(const char *argument, struct options *options, char *error,
                               size_t error_size);
/* --run: the first is run (BASE's with --compare), the second run_new. */
bool compare_run_option_parse(const char *argument, struct options *options, char *error,
                              size_t error_size);
/* After the paths: BASE and NEW, or one log directory with two runs. */
bool compare_paths_check(struct options *options, char *error, size_t error_size);

#endif
