#include "config.h"

#include "model/source.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "model/util/natural_order.h"
#include "model/path.h"

#include <stdlib.h>

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

/* The names a host or run asked for matched, "a, b, c" into text. */
struct candidates {
    char *text;
    size_t size, used;
    const char *(*name_of)(const void *, size_t);
    const void *items;
};

static void add_candidate(void *context, size_t index)
{
    struct candidates *found = context;
    if (found->used < found->size)
        found->used += (size_t)snprintf(found->text + found->used, found->size - found->used,
                                        "%s%s", found->used ? ", " : "",
                                        found->name_of(found->items, index));
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
    /* The whole name or folder, else a part of the name only one run has. */
    enum logdir_match match = logdir_find_run(logdir, run, &source->run_index);
    struct candidates found = {names, sizeof names, 0, run_name_at, logdir};
    if (match == LOGDIR_MATCH_NONE) {
        size_t count = natural_find(run, run_name_at, logdir, logdir->run_count,
                                    &source->run_index, add_candidate, &found);
        match = count == 0 ? LOGDIR_MATCH_NONE
                           : count == 1 ? LOGDIR_MATCH_ONE : LOGDIR_MATCH_SEVERAL;
    }
    switch (match) {
    case LOGDIR_MATCH_ONE:
        if (logdir_run_memory_hosts(&logdir->runs[source->run_index]) > 0)
            return LOAD_OK;
        snprintf(message, size, "run '%s' holds no memory profile", run);
        return LOAD_BAD_INPUT;
    case LOGDIR_MATCH_SEVERAL:
        if (found.used)
            snprintf(message, size, "several runs match '%s': %s", run, names);
        else
            snprintf(message, size, "several runs are named '%s': give the whole name (--list)",
                     run);
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

/* The host of that name, else the one whose name ends in it, else the
 * one holding it; the candidates when several do. */
static enum load_status source_pick_host(struct source *source, const char *name,
                                         char *message, size_t size)
{
    char names[SOURCE_MESSAGE_SIZE / 2];
    struct candidates found = {names, sizeof names, 0, host_name_at, &source->hosts};
    names[0] = '\0';
    size_t index = 0;
    size_t count = natural_find(name, host_name_at, &source->hosts, source->hosts.count, &index,
                                add_candidate, &found);
    if (count == 1) {
        source->first_host = index;
        source->host_count = 1;
        return LOAD_OK;
    }
    if (count > 1) {
        snprintf(message, size, "several hosts match '%s': %s", name, names);
        return LOAD_BAD_INPUT;
    }
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

/* "w-1: offset 3000: ...", the one host's failure, malloc'd. */
static char *run_error_of(const struct host *host)
{
    struct text message = load_error_message(&host->error);
    size_t size = strlen(host->name) + 2 + message.length + 1;
    char *text = malloc(size);
    if (!text)
        return NULL;
    int used = snprintf(text, size, "%s: ", host->name);
    /* A NUL among a message's bytes ends it here: what shows it escapes
     * the rest. */
    memcpy(text + used, message.bytes, message.length);
    text[(size_t)used + message.length] = '\0';
    return text;
}

/* Run `index`'s hosts when its first loads (or it has several): true,
 * with the list in *list; false with the reason kept in errors[index]. */
static bool run_try(const struct logdir *logdir, size_t index, char **errors,
                    struct host_list *list)
{
    const struct logdir_run *run = &logdir->runs[index];
    struct load_error error;
    if (logdir_run_memory_hosts(run) == 0 ||
        host_list_open_run(list, run, run->name, &error) != LOAD_OK)
        return false;
    if (list->count > 1 || (list->count == 1 && host_list_load(list, 0, NULL)))
        return true;
    if (list->count == 1)
        errors[index] = run_error_of(&list->hosts[0]);
    host_list_free(list);
    return false;
}

void source_check_runs(const struct logdir *logdir, char **errors)
{
    for (size_t i = 0; i < logdir->run_count; i++) {
        struct host_list list;
        if (run_try(logdir, i, errors, &list)) {
            host_list_free(&list);
            return;
        }
    }
}

bool source_fall_back_run(struct source *source)
{
    const struct logdir *logdir = &source->logdir;
    if (!source->directory || logdir->kind != LOGDIR_LOG_DIRECTORY || source->hosts.count != 1)
        return false;
    if (!source->run_errors)
        source->run_errors = calloc(logdir->run_count, sizeof *source->run_errors);
    if (!source->run_errors)
        return false;
    source->run_errors[source->run_index] = run_error_of(&source->hosts.hosts[0]);
    for (size_t i = source->run_index + 1; i < logdir->run_count; i++) {
        struct host_list list;
        if (!run_try(logdir, i, source->run_errors, &list))
            continue;
        host_list_free(&source->hosts);
        source->hosts = list;
        source->failed_run = source->run_index;
        source->run_index = i;
        source->first_host = 0;
        source->host_count = list.count;
        return true;
    }
    return false;
}

void source_free(struct source *source)
{
    for (size_t i = 0; source->run_errors && i < source->logdir.run_count; i++)
        free(source->run_errors[i]);
    free(source->run_errors);
    host_list_free(&source->hosts);
    logdir_free(&source->logdir);
    memset(source, 0, sizeof *source);
}
