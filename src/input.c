#include "config.h"

#include "src/input.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* --compare takes two files: the first of its paths that names a
 * directory (a log directory holds many hosts), or NULL. */
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
    /* One path that is a directory is the model's to open (--compare has
     * two), and --run's complaint comes first. */
    const char *directory =
        options->path_count > 1 && !options->run ? compared_directory(options) : NULL;
    if (directory) {
        memset(input, 0, sizeof *input);
        *path = directory;
        snprintf(message, message_size, "--compare takes two profile files, and this is a "
                                        "directory (give one host's file of it)");
        return LOAD_BAD_INPUT;
    }
    return source_open(input, options->paths, options->path_count, options->run, options->host,
                       path, message, message_size);
}

void input_free(struct source *input)
{
    source_free(input);
}
