#include "config.h"

#include "model/source.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "model/path.h"

/* "a, b, c" of names into text, cut when it is full. */
static void name_list(char *text, size_t size, const char *(*name_of)(const void *, size_t),
                      const void *items, size_t count)
{
    size_t used = 0;
    text[0] = '\0';
    for (size_t i = 0; i < count && used < size; i++)
        used += (size_t)snprintf(text + used, size - used, "%s%s", i ? ", " : "",
                                 name_of(items, i));
}

static const char *run_name_at(const void *logdir, size_t index)
{
    return ((const struct logdir *)logdir)->runs[index].name;
}

static const char *host_name_at(const void *hosts, size_t index)
{
    return ((const struct host_list *)hosts)->hosts[index].name;
}

/* The run to open: the one named run, else the newest with memory
 * profiles. */
static enum load_status source_pick_run(struct source *source, const char *run, char *message,
                                        size_t size)
{
    const struct logdir *logdir = &source->logdir;
    char names[SOURCE_MESSAGE_SIZE / 2];
    if (!run) {
        source->run_index = logdir_newest_run(logdir);
        if (source->run_index < logdir->run_count)
            return LOAD_OK;
        snprintf(message, size, "no run holds a memory profile (%zu run%s; --list shows them)",
                 logdir->run_count, logdir->run_count == 1 ? "" : "s");
        return LOAD_BAD_INPUT;
    }
    if (logdir->kind != LOGDIR_LOG_DIRECTORY) {
        snprintf(message, size, "--run picks a run of a log directory, and this is a run");
        return LOAD_BAD_INPUT;
    }
    switch (logdir_find_run(logdir, run, &source->run_index)) {
    case LOGDIR_MATCH_ONE:
        if (logdir_run_memory_hosts(&logdir->runs[source->run_index]) > 0)
            return LOAD_OK;
        snprintf(message, size, "run '%s' holds no memory profile", run);
        return LOAD_BAD_INPUT;
    case LOGDIR_MATCH_SEVERAL:
        snprintf(message, size, "several runs are named '%s': give the whole name (--list)", run);
        return LOAD_BAD_INPUT;
    default:
        name_list(names, sizeof names, run_name_at, logdir, logdir->run_count);
        snprintf(message, size, "no run '%s'; the runs are: %s", run, names);
        return LOAD_BAD_INPUT;
    }
}

static enum load_status source_open_directory(struct source *source, const char *directory,
                                              const char *run, char *message, size_t size)
{
    struct load_error error;
    enum load_status status = logdir_open(directory, &source->logdir, &error);
    if (status == LOAD_OK)
        status = source_pick_run(source, run, message, size);
    else
        snprintf(message, size, "%s", error.message);
    if (status != LOAD_OK)
        return status;
    const struct logdir_run *picked = &source->logdir.runs[source->run_index];
    bool named =
        source->logdir.kind == LOGDIR_LOG_DIRECTORY || path_in_profile_plugin(picked->path);
    status = host_list_open_run(&source->hosts, picked, named ? picked->name : NULL, &error);
    if (status == LOAD_OK && source->hosts.count == 0) {
        logdir_error_no_profiles(&error, false);
        status = LOAD_BAD_INPUT;
    }
    if (status != LOAD_OK)
        snprintf(message, size, "%s", error.message);
    return status;
}

/* The one host of that name. */
static enum load_status source_pick_host(struct source *source, const char *name,
                                         char *message, size_t size)
{
    for (size_t i = 0; i < source->hosts.count; i++) {
        if (strcmp(source->hosts.hosts[i].name, name) == 0) {
            source->first_host = i;
            source->host_count = 1;
            return LOAD_OK;
        }
    }
    char names[SOURCE_MESSAGE_SIZE / 2];
    name_list(names, sizeof names, host_name_at, &source->hosts, source->hosts.count);
    snprintf(message, size, "no host '%s'; the hosts are: %s", name, names);
    return LOAD_BAD_INPUT;
}

enum load_status source_open(struct source *source, char *const *paths, size_t path_count,
                             const char *run, const char *host, const char **path,
                             char *message, size_t message_size)
{
    memset(source, 0, sizeof *source);
    *path = paths[0];
    struct stat file_status;
    enum load_status status;
    if (path_count == 1 && stat(paths[0], &file_status) == 0 && S_ISDIR(file_status.st_mode)) {
        source->directory = true;
        status = source_open_directory(source, paths[0], run, message, message_size);
    } else if (run) {
        snprintf(message, message_size, "--run picks a run of a log directory, given alone");
        status = LOAD_BAD_INPUT;
    } else {
        struct load_error error;
        status = host_list_open(&source->hosts, paths, path_count, path, &error);
        if (status != LOAD_OK)
            snprintf(message, message_size, "%s", error.message);
    }
    source->host_count = source->hosts.count;
    if (status == LOAD_OK && host)
        status = source_pick_host(source, host, message, message_size);
    if (status != LOAD_OK)
        source_free(source);
    return status;
}

void source_free(struct source *source)
{
    host_list_free(&source->hosts);
    logdir_free(&source->logdir);
    memset(source, 0, sizeof *source);
}
