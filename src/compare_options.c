/* compare_options: the command line's options of --compare (--pair,
 * --run twice) and the rules of what goes with it, for options_parse().
 * Called by src/options.c only; like it, it opens no file and prints
 * nothing: a bad option comes back as a one-line reason. */
#include "config.h"

#include "src/compare_options.h"

#include <stdio.h>
#include <string.h>

/* --compare (which --export compare implies) goes with the viewer,
 * --summary or --export compare, never --list. */
bool compare_options_check(struct options *options, bool list, char *error,
                                  size_t error_size)
{
    bool export_compare = options->export.requested &&
                          options->export.view == EXPORT_VIEW_COMPARE;
    options->compare = options->compare || export_compare;
    if (!options->compare)
        return true;
    if (options->mode == RUN_EXPORT && !export_compare) {
        snprintf(error, error_size, "--compare exports one view: --export compare (the op table)");
        return false;
    }
    if (list) {
        snprintf(error, error_size, "--compare and --list do not go together");
        return false;
    }
    return true;
}

/* --pair BASE_ID=NEW_ID, split at its first '=' into pair_text. */
bool compare_pair_option_parse(const char *argument, struct options *options, char *error,
                              size_t error_size)
{
    const char *equals = strchr(argument, '=');
    size_t length = strlen(argument);
    if (!equals || equals == argument || !equals[1]) {
        snprintf(error, error_size, "--pair: '%s' is not BASE_ID=NEW_ID", argument);
        return false;
    }
    if (options->pairing_count == OPTIONS_PAIRS_MAX || length >= OPTIONS_PAIR_SIZE) {
        snprintf(error, error_size, "--pair: at most %d pairs of %d bytes", OPTIONS_PAIRS_MAX,
                 OPTIONS_PAIR_SIZE - 1);
        return false;
    }
    char *text = options->pair_text[options->pairing_count];
    memcpy(text, argument, length + 1);
    text[equals - argument] = '\0';
    options->pairings[options->pairing_count++] =
        (struct allocator_pairing){text, text + (equals - argument) + 1};
    return true;
}

/* --run given twice: NEW's run, and only with --compare. */
bool compare_run_option_parse(const char *argument, struct options *options, char *error,
                             size_t error_size)
{
    if (options->run_new) {
        snprintf(error, error_size, "--run goes at most twice (BASE's and NEW's, with --compare)");
        return false;
    }
    if (options->run)
        options->run_new = argument;
    else
        options->run = argument;
    return true;
}

/* BASE and NEW: two of them, standard input one of them at most. */
bool compare_paths_check(struct options *options, char *error, size_t error_size)
{
    const char *what = options->mode == RUN_EXPORT ? "--export compare" : "--compare";
    if (options->path_count == 1 && options->run_new)
        return true; /* one log directory, two of its runs */
    if (options->path_count != 2) {
        snprintf(error, error_size,
                 "%s takes two profiles, BASE and NEW (%zu given), or one log directory "
                 "with --run BASE_RUN --run NEW_RUN", what, options->path_count);
        return false;
    }
    if (strcmp(options->paths[0], "-") == 0 && strcmp(options->paths[1], "-") == 0) {
        snprintf(error, error_size, "%s: standard input can be BASE or NEW, not both", what);
        return false;
    }
    return true;
}
