#include "config.h"

#include "src/input.h"

#include "model/natural_order.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* The names a --host or --run matched, "a, b, c" into text. */
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

/* Whether a run directory sits in a plugins/profile directory, where its
 * name is a run's (a plain directory of profiles has none). */
static bool in_profile_plugin(const char *path)
{
    char resolved[PATH_MAX];
    if (!realpath(path, resolved))
        return false;
    char *slash = strrchr(resolved, '/');
    if (!slash || slash == resolved)
        return false;
    *slash = '\0';
    size_t length = strlen(resolved), tail = strlen("/plugins/profile");
    return length >= tail && strcmp(resolved + length - tail, "/plugins/profile") == 0;
}

/* The run to open: --run's, else the newest with memory profiles. */
static enum load_status input_pick_run(struct input *input, const struct options *options,
                                       char *message, size_t size)
{
    const struct logdir *logdir = &input->logdir;
    char names[INPUT_MESSAGE_SIZE / 2];
    if (!options->run) {
        input->run_index = logdir_newest_run(logdir);
        if (input->run_index < logdir->run_count)
            return LOAD_OK;
        snprintf(message, size, "no run holds a memory profile (%zu run%s; --list shows them)",
                 logdir->run_count, logdir->run_count == 1 ? "" : "s");
        return LOAD_BAD_INPUT;
    }
    if (logdir->kind != LOGDIR_LOG_DIRECTORY) {
        snprintf(message, size, "--run picks a run of a log directory, and this is a run");
        return LOAD_BAD_INPUT;
    }
    enum logdir_match match = logdir_find_run(logdir, options->run, &input->run_index);
    struct candidates found = {names, sizeof names, 0, run_name_at, logdir};
    if (match == LOGDIR_MATCH_NONE) {
        size_t count = natural_find(options->run, run_name_at, logdir, logdir->run_count,
                                    &input->run_index, add_candidate, &found);
        match = count == 0 ? LOGDIR_MATCH_NONE
                           : count == 1 ? LOGDIR_MATCH_ONE : LOGDIR_MATCH_SEVERAL;
    }
    switch (match) {
    case LOGDIR_MATCH_ONE:
        if (logdir_run_memory_hosts(&logdir->runs[input->run_index]) > 0)
            return LOAD_OK;
        snprintf(message, size, "run '%s' holds no memory profile", options->run);
        return LOAD_BAD_INPUT;
    case LOGDIR_MATCH_SEVERAL:
        if (found.used)
            snprintf(message, size, "several runs match '%s': %s", options->run, names);
        else
            snprintf(message, size, "several runs are named '%s': give the whole name (--list)",
                     options->run);
        return LOAD_BAD_INPUT;
    default:
        name_list(names, sizeof names, run_name_at, logdir, logdir->run_count);
        snprintf(message, size, "no run '%s'; the runs are: %s", options->run, names);
        return LOAD_BAD_INPUT;
    }
}

static enum load_status input_open_directory(struct input *input, const struct options *options,
                                             char *message, size_t size)
{
    struct load_error error;
    enum load_status status = logdir_open(options->paths[0], &input->logdir, &error);
    if (status == LOAD_OK)
        status = input_pick_run(input, options, message, size);
    else
        snprintf(message, size, "%s", error.message);
    if (status != LOAD_OK)
        return status;
    const struct logdir_run *run = &input->logdir.runs[input->run_index];
    bool named = input->logdir.kind == LOGDIR_LOG_DIRECTORY || in_profile_plugin(run->path);
    status = host_list_open_run(&input->hosts, run, named ? run->name : NULL, &error);
    if (status == LOAD_OK && input->hosts.count == 0) {
        logdir_error_no_profiles(&error, false);
        status = LOAD_BAD_INPUT;
    }
    if (status != LOAD_OK)
        snprintf(message, size, "%s", error.message);
    return status;
}

/* --host: the host of that name, else the one whose name ends in it,
 * else the one holding it; the candidates when several do. */
static enum load_status input_pick_host(struct input *input, const char *name, char *message,
                                        size_t size)
{
    char names[INPUT_MESSAGE_SIZE / 2];
    struct candidates found = {names, sizeof names, 0, host_name_at, &input->hosts};
    names[0] = '\0';
    size_t index = 0;
    size_t count = natural_find(name, host_name_at, &input->hosts, input->hosts.count, &index,
                                add_candidate, &found);
    if (count == 1) {
        input->first_host = index;
        input->host_count = 1;
        return LOAD_OK;
    }
    if (count > 1) {
        snprintf(message, size, "several hosts match '%s': %s", name, names);
        return LOAD_BAD_INPUT;
    }
    name_list(names, sizeof names, host_name_at, &input->hosts, input->hosts.count);
    snprintf(message, size, "no host '%s'; the hosts are: %s", name, names);
    return LOAD_BAD_INPUT;
}

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

enum load_status input_open(struct input *input, const struct options *options,
                            const char **path, char *message, size_t message_size)
{
    memset(input, 0, sizeof *input);
    *path = options->paths[0];
    struct stat file_status;
    enum load_status status;
    if (options->path_count == 1 && stat(options->paths[0], &file_status) == 0 &&
        S_ISDIR(file_status.st_mode)) {
        input->directory = true;
        status = input_open_directory(input, options, message, message_size);
    } else if (options->run) {
        snprintf(message, message_size, "--run picks a run of a log directory, given alone");
        status = LOAD_BAD_INPUT;
    } else if (compared_directory(options)) {
        *path = compared_directory(options);
        snprintf(message, message_size, "--compare takes two profile files, and this is a "
                                        "directory (give one host's file of it)");
        status = LOAD_BAD_INPUT;
    } else {
        struct load_error error;
        status = host_list_open(&input->hosts, options->paths, options->path_count, path, &error);
        if (status != LOAD_OK)
            snprintf(message, message_size, "%s", error.message);
    }
    input->host_count = input->hosts.count;
    if (status == LOAD_OK && options->host)
        status = input_pick_host(input, options->host, message, message_size);
    if (status != LOAD_OK)
        input_free(input);
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
    /* A NUL among a message's bytes ends it here: the viewer escapes the
     * rest of what it shows. */
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

void input_check_runs(const struct logdir *logdir, char **errors)
{
    for (size_t i = 0; i < logdir->run_count; i++) {
        struct host_list list;
        if (run_try(logdir, i, errors, &list)) {
            host_list_free(&list);
            return;
        }
    }
}

bool input_fall_back_run(struct input *input, const struct options *options)
{
    const struct logdir *logdir = &input->logdir;
    if (!input->directory || logdir->kind != LOGDIR_LOG_DIRECTORY || options->run ||
        options->host || options->compare || input->hosts.count != 1)
        return false;
    if (!input->run_errors)
        input->run_errors = calloc(logdir->run_count, sizeof *input->run_errors);
    if (!input->run_errors)
        return false;
    input->run_errors[input->run_index] = run_error_of(&input->hosts.hosts[0]);
    for (size_t i = input->run_index + 1; i < logdir->run_count; i++) {
        struct host_list list;
        if (!run_try(logdir, i, input->run_errors, &list))
            continue;
        host_list_free(&input->hosts);
        input->hosts = list;
        input->failed_run = input->run_index;
        input->run_index = i;
        input->first_host = 0;
        input->host_count = list.count;
        return true;
    }
    return false;
}

void input_free(struct input *input)
{
    for (size_t i = 0; input->run_errors && i < input->logdir.run_count; i++)
        free(input->run_errors[i]);
    free(input->run_errors);
    host_list_free(&input->hosts);
    logdir_free(&input->logdir);
    memset(input, 0, sizeof *input);
}
