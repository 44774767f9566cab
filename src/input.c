#include "config.h"

#include "src/input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* --compare on files and a directory: the first of its paths that
 * names a directory, or NULL. */
static const char *compared_directory(const struct options *options)
{
    struct stat file_status;
    for (size_t i = 0; options->compare && i < options->path_count; i++)
        if (stat(options->paths[i], &file_status) == 0 && S_ISDIR(file_status.st_mode))
            return options->paths[i];
    return NULL;
}

enum load_status input_open(struct source *input, const struct options *options,
                            const char **path, char *message, size_t message_size)
{
    /* One path that is a directory is the model's to open; --compare of
     * two directories is main's (input_open_runs), of a directory beside
     * a file refused here, and --run or --host with two files too. */
    const char *directory = options->path_count > 1 ? compared_directory(options) : NULL;
    if (directory) {
        memset(input, 0, sizeof *input);
        *path = directory;
        snprintf(message, message_size, "--compare takes two profile files or two directories, "
                                        "and this is a directory beside a file");
        return LOAD_BAD_INPUT;
    }
    if (options->compare && (options->run || options->host)) {
        memset(input, 0, sizeof *input);
        *path = options->paths[0];
        snprintf(message, message_size, "%s goes with directories, and BASE and NEW are files",
                 options->run ? "--run" : "--host");
        return LOAD_BAD_INPUT;
    }
    return source_open(input, options->paths, options->path_count, options->run, options->host,
                       path, message, message_size);
}

void input_free(struct source *input)
{
    source_free(input);
}

bool input_compares_runs(const struct options *options)
{
    struct stat file_status;
    if (!options->compare)
        return false;
    if (options->path_count == 1)
        return true;
    for (size_t i = 0; i < options->path_count; i++)
        if (stat(options->paths[i], &file_status) != 0 || !S_ISDIR(file_status.st_mode))
            return false;
    return true;
}

enum load_status input_open_runs(struct compared_runs *runs, const struct options *options,
                                 const char **path, char *message, size_t message_size)
{
    memset(runs, 0, sizeof *runs);
    if (options->path_count == 2 && options->run && !options->run_new) {
        *path = options->paths[0];
        snprintf(message, message_size, "--compare of two directories takes --run twice "
                                        "(BASE's, then NEW's), or none (the newest of each)");
        return LOAD_BAD_INPUT;
    }
    const char *run_names[2] = {options->run, options->run_new};
    for (size_t side = 0; side < 2; side++) {
        char *const *paths = &options->paths[options->path_count == 2 ? side : 0];
        enum load_status status = source_open(&runs->sides[side], paths, 1, run_names[side],
                                              options->host, path, message, message_size);
        if (status != LOAD_OK) {
            if (side == 1)
                source_free(&runs->sides[0]);
            memset(runs, 0, sizeof *runs);
            return status;
        }
    }
    const struct source *base = &runs->sides[0], *new = &runs->sides[1];
    if (!compare_match_hosts(&base->hosts, base->first_host, base->host_count, &new->hosts,
                             new->first_host, new->host_count, &runs->matches,
                             &runs->match_count)) {
        input_free_runs(runs);
        *path = options->paths[0];
        snprintf(message, message_size, "out of memory");
        return LOAD_NO_MEMORY;
    }
    return LOAD_OK;
}

void input_free_runs(struct compared_runs *runs)
{
    source_free(&runs->sides[0]);
    source_free(&runs->sides[1]);
    free(runs->matches);
    memset(runs, 0, sizeof *runs);
}
