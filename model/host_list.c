#include "config.h"

#include "model/host_list.h"

#include "model/input_format.h"
#include "model/load_internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char *host_name_from_path(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t suffix_length;
    const struct input_format *format = input_format_for_name(base, &suffix_length);
    size_t length = strlen(base);
    if (!format || format->host_before_first_dot)
        length = strcspn(base, ".");
    else
        length -= suffix_length;
    /* A name that starts with a dot would be empty: keep the whole name. */
    if (length == 0)
        length = strlen(base);
    return strndup(base, length);
}

static bool host_list_append(struct host_list *list, const char *path)
{
    struct host *hosts = realloc(list->hosts, (list->count + 1) * sizeof *hosts);
    if (!hosts)
        return false;
    list->hosts = hosts;
    struct host *host = &hosts[list->count];
    memset(host, 0, sizeof *host);
    host->path = strdup(path);
    host->name = host_name_from_path(path);
    if (!host->path || !host->name) {
        free(host->path);
        free(host->name);
        return false;
    }
    list->count++;
    return true;
}

/* Profile files by name: the suffixes of the format table. Hidden files
 * are not hosts. */
static bool name_is_profile(const char *name)
{
    size_t suffix_length;
    if (name[0] == '.')
        return false;
    return input_format_for_name(name, &suffix_length) != NULL;
}

/* "(*.pb, *.json, *.pb.gz, ...)": the suffixes the table knows, each
 * row's first ones first. */
static void known_suffixes(char *text, size_t size)
{
    size_t used = (size_t)snprintf(text, size, "(");
    const char *separator = "";
    for (size_t rank = 0, listed = 1; listed > 0 && used < size; rank++) {
        listed = 0;
        for (size_t i = 0; i < input_format_count() && used < size; i++) {
            const char *const *suffixes = input_format_at(i)->suffixes;
            size_t count = 0;
            while (suffixes && suffixes[count])
                count++;
            if (rank >= count)
                continue;
            used += (size_t)snprintf(text + used, size - used, "%s*%s", separator,
                                     suffixes[rank]);
            separator = ", ";
            listed++;
        }
    }
    if (used < size)
        snprintf(text + used, size - used, ")");
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static enum load_status host_list_add_directory(struct host_list *list, const char *directory,
                                                struct load_error *error)
{
    DIR *stream = opendir(directory);
    if (!stream) {
        load_error_set(error, "%s", strerror(errno));
        return LOAD_BAD_INPUT;
    }
    char **names = NULL;
    size_t count = 0;
    enum load_status status = LOAD_OK;
    struct dirent *entry;
    while (status == LOAD_OK && (entry = readdir(stream))) {
        if (!name_is_profile(entry->d_name))
            continue;
        char **grown = realloc(names, (count + 1) * sizeof *names);
        if (!grown) {
            status = LOAD_NO_MEMORY;
            break;
        }
        names = grown;
        size_t length = strlen(directory) + strlen(entry->d_name) + 2;
        char *path = malloc(length);
        if (!path) {
            status = LOAD_NO_MEMORY;
            break;
        }
        snprintf(path, length, "%s/%s", directory, entry->d_name);
        struct stat file_status;
        if (stat(path, &file_status) == 0 && S_ISREG(file_status.st_mode))
            names[count++] = path;
        else
            free(path);
    }
    closedir(stream);
    if (count > 1)
        qsort(names, count, sizeof *names, compare_names);
    if (status == LOAD_OK && count == 0) {
        char suffixes[128];
        known_suffixes(suffixes, sizeof suffixes);
        load_error_set(error, "no memory profile files in this directory %s", suffixes);
        status = LOAD_BAD_INPUT;
    }
    for (size_t i = 0; i < count; i++) {
        if (status == LOAD_OK && !host_list_append(list, names[i]))
            status = LOAD_NO_MEMORY;
        free(names[i]);
    }
    free(names);
    if (status == LOAD_NO_MEMORY)
        load_error_set(error, "out of memory");
    return status;
}

enum load_status host_list_open(struct host_list *list, char *const *paths, size_t path_count,
                                const char **bad_path, struct load_error *error)
{
    memset(list, 0, sizeof *list);
    for (size_t i = 0; i < path_count; i++) {
        struct stat file_status;
        enum load_status status = LOAD_OK;
        if (stat(paths[i], &file_status) == 0 && S_ISDIR(file_status.st_mode))
            status = host_list_add_directory(list, paths[i], error);
        else if (!host_list_append(list, paths[i])) {
            load_error_set(error, "out of memory");
            status = LOAD_NO_MEMORY;
        }
        if (status != LOAD_OK) {
            *bad_path = paths[i];
            host_list_free(list);
            return status;
        }
    }
    return LOAD_OK;
}

struct profile *host_list_load(struct host_list *list, size_t index,
                               const struct load_options *options)
{
    if (index >= list->count)
        return NULL;
    struct host *host = &list->hosts[index];
    if (!host->attempted) {
        host->attempted = true;
        host->status = profile_load(host->path, options, &host->profile, &host->error);
    }
    return host->profile;
}

void host_list_free(struct host_list *list)
{
    for (size_t i = 0; i < list->count; i++) {
        free(list->hosts[i].name);
        free(list->hosts[i].path);
        profile_free(list->hosts[i].profile);
    }
    free(list->hosts);
    memset(list, 0, sizeof *list);
}
