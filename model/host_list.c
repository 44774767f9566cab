#include "config.h"

#include "model/host_list.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/load_internal.h"
#include "model/path.h"

char *host_name_from_path(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const struct input_format *format;
    const struct xprof_file_kind *kind;
    size_t length;
    /* A file of no known kind: the name before its first dot; a name
     * that starts with a dot would be empty: the whole name. */
    if (!run_file_classify(base, &format, &kind, &length)) {
        length = strcspn(base, ".");
        if (length == 0)
            length = strlen(base);
    }
    return strndup(base, length);
}

/* ---- building the list ---- */

static struct host *host_list_append(struct host_list *list, const char *path, char *name)
{
    struct host *hosts = name ? realloc(list->hosts, (list->count + 1) * sizeof *hosts) : NULL;
    if (!hosts) {
        free(name);
        return NULL;
    }
    list->hosts = hosts;
    struct host *host = &hosts[list->count];
    memset(host, 0, sizeof *host);
    atomic_init(&host->state, HOST_IDLE);
    atomic_init(&host->percent, 0);
    host->path = strdup(path);
    host->name = name;
    if (!host->path) {
        free(host->name);
        return NULL;
    }
    list->count++;
    return host;
}

/* The memory hosts of a run, appended. */
static bool host_list_append_run(struct host_list *list, const struct logdir_run *run)
{
    for (size_t i = 0; i < run->host_count; i++) {
        const struct run_file *source = run_host_source(&run->hosts[i]);
        if (!source)
            continue;
        struct host *host = host_list_append(list, source->path, strdup(run->hosts[i].name));
        if (!host)
            return false;
        host->unread_kind = source->format ? NULL : source->kind;
    }
    return true;
}

/* A directory among the paths: its files as one run. */
static enum load_status host_list_add_directory(struct host_list *list, const char *directory,
                                                struct load_error *error)
{
    struct logdir_run run;
    enum load_status status = logdir_read_run(directory, directory, &run, error);
    if (status == LOAD_BAD_INPUT)
        logdir_run_free(&run);
    if (status != LOAD_OK)
        return status;
    if (logdir_run_memory_hosts(&run) == 0) {
        /* What the directory is, since it is not a run: a log directory
         * is opened alone, where its runs can be chosen. */
        struct logdir logdir;
        status = logdir_open(directory, &logdir, error);
        if (status == LOAD_OK) {
            if (logdir.kind == LOGDIR_LOG_DIRECTORY)
                load_error_set(error, "a log directory (%zu runs): open it alone to pick a run",
                               logdir.run_count);
            else
                logdir_error_no_profiles(error, false);
            logdir_free(&logdir);
            status = LOAD_BAD_INPUT;
        }
    } else if (!host_list_append_run(list, &run)) {
        load_error_set(error, "out of memory");
        status = LOAD_NO_MEMORY;
    }
    logdir_run_free(&run);
    return status;
}

/* ---- naming hosts apart ---- */

/* Candidate names for a host named `shared` like another, by level: its
 * file name, then "directory/shared", then its path; malloc'd. */
static char *host_other_name(const struct host *host, const char *shared, int level)
{
    const char *base = path_base_name(host->path);
    if (level == 0)
        return strdup(base);
    if (level >= 2)
        return strdup(host->path);
    size_t directory_length = (size_t)(base - host->path);
    while (directory_length > 0 && host->path[directory_length - 1] == '/')
        directory_length--;
    if (directory_length == 0)
        return strdup(shared);
    char *directory = strndup(host->path, directory_length);
    char *name = directory ? path_join(path_base_name(directory), shared) : NULL;
    free(directory);
    return name;
}

static size_t count_named(const struct host_list *list, const char *name)
{
    size_t count = 0;
    for (size_t i = 0; i < list->count; i++)
        count += strcmp(list->hosts[i].name, name) == 0;
    return count;
}

/* Whether host `member`'s name at `level` is its own: no other member
 * of its group would take it at that level, and no host has it. */
static bool other_name_is_free(const struct host_list *list, const size_t *group,
                               size_t group_size, size_t member, const char *shared, int level,
                               const char *name)
{
    if (count_named(list, name) > 0)
        return false;
    for (size_t i = 0; i < group_size; i++) {
        if (group[i] == group[member])
            continue;
        char *other = host_other_name(&list->hosts[group[i]], shared, level);
        bool same = !other || strcmp(other, name) == 0;
        free(other);
        if (same)
            return false;
    }
    return true;
}

/* Renames each host that shares host `index`'s name with the first level
 * of host_other_name() that is its own: w.pb beside w.json in one
 * directory, run1/w beside run2/w. */
static bool host_list_rename_group(struct host_list *list, size_t index)
{
    size_t *group = malloc(list->count * sizeof *group), group_size = 0;
    char *shared = strdup(list->hosts[index].name);
    if (!group || !shared) {
        free(group);
        free(shared);
        return false;
    }
    for (size_t i = index; i < list->count; i++)
        if (strcmp(list->hosts[i].name, list->hosts[index].name) == 0)
            group[group_size++] = i;
    bool ok = true;
    for (size_t member = 0; member < group_size && ok; member++) {
        struct host *host = &list->hosts[group[member]];
        for (int level = 0; level < 3 && ok; level++) {
            char *name = host_other_name(host, shared, level);
            ok = name != NULL;
            if (ok && other_name_is_free(list, group, group_size, member, shared, level, name)) {
                free(host->name);
                host->name = name;
                break;
            }
            free(name);
        }
    }
    free(group);
    free(shared);
    return ok;
}

/* The same path given twice keeps its name twice: nothing tells them
 * apart, and that is what was asked for. */
static bool host_list_name_apart(struct host_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        if (count_named(list, list->hosts[i].name) > 1 && !host_list_rename_group(list, i))
            return false;
    return true;
}

enum load_status host_list_open(struct host_list *list, char *const *paths, size_t path_count,
                                const char **bad_path, struct load_error *error)
{
    memset(list, 0, sizeof *list);
    for (size_t i = 0; i < path_count; i++) {
        struct stat file_status;
        enum load_status status = LOAD_OK;
        if (stat(paths[i], &file_status) == 0 && S_ISDIR(file_status.st_mode)) {
            status = host_list_add_directory(list, paths[i], error);
        } else if (!host_list_append(list, paths[i], host_name_from_path(paths[i]))) {
            load_error_set(error, "out of memory");
            status = LOAD_NO_MEMORY;
        }
        if (status != LOAD_OK) {
            *bad_path = paths[i];
            host_list_free(list);
            return status;
        }
    }
    if (host_list_name_apart(list))
        return LOAD_OK;
    *bad_path = paths[0];
    load_error_set(error, "out of memory");
    host_list_free(list);
    return LOAD_NO_MEMORY;
}

enum load_status host_list_open_run(struct host_list *list, const struct logdir_run *run,
                                    const char *run_name, struct load_error *error)
{
    memset(list, 0, sizeof *list);
    if ((!run_name || (list->run = strdup(run_name))) && host_list_append_run(list, run) &&
        host_list_name_apart(list))
        return LOAD_OK;
    host_list_free(list);
    load_error_set(error, "out of memory");
    return LOAD_NO_MEMORY;
}

/* ---- loading ---- */

enum host_state host_state(const struct host *host)
{
    return (enum host_state)atomic_load_explicit(&host->state, memory_order_acquire);
}

int host_load_percent(const struct host *host)
{
    return atomic_load_explicit(&host->percent, memory_order_relaxed);
}

bool host_claim(struct host *host)
{
    int idle = HOST_IDLE;
    return atomic_compare_exchange_strong_explicit(&host->state, &idle, HOST_LOADING,
                                                   memory_order_acq_rel, memory_order_acquire);
}

/* The file's size and modification time; false when it cannot be read
 * or is no regular file (a pipe or a FIFO is read once, as it comes). */
static bool host_file_stamp(const char *path, int64_t *size, int64_t *mtime_ns)
{
    struct stat status;
    if (stat(path, &status) != 0 || !S_ISREG(status.st_mode))
        return false;
    *size = (int64_t)status.st_size;
    *mtime_ns = (int64_t)status.st_mtim.tv_sec * 1000000000 + status.st_mtim.tv_nsec;
    return true;
}

bool host_file_unchanged(const struct host *host)
{
    int64_t size, mtime_ns;
    return host_state(host) == HOST_LOADED &&
           host_file_stamp(host->path, &size, &mtime_ns) && size == host->file_size &&
           mtime_ns == host->file_mtime_ns;
}

bool host_adopt(struct host *to, struct host *from)
{
    int loaded = HOST_LOADED, idle = HOST_IDLE;
    if (!atomic_compare_exchange_strong_explicit(&from->state, &loaded, HOST_LOADING,
                                                 memory_order_acq_rel, memory_order_acquire))
        return false;
    if (!atomic_compare_exchange_strong_explicit(&to->state, &idle, HOST_LOADING,
                                                 memory_order_acq_rel, memory_order_acquire)) {
        atomic_store_explicit(&from->state, HOST_LOADED, memory_order_release);
        return false;
    }
    to->attempted = from->attempted;
    to->status = from->status;
    to->error = from->error;
    to->error.file = to->path;
    to->profile = from->profile;
    to->file_size = from->file_size;
    to->file_mtime_ns = from->file_mtime_ns;
    from->profile = NULL;
    from->attempted = false;
    atomic_store_explicit(&to->percent, 100, memory_order_relaxed);
    atomic_store_explicit(&to->state, HOST_LOADED, memory_order_release);
    atomic_store_explicit(&from->percent, 0, memory_order_relaxed);
    atomic_store_explicit(&from->state, HOST_IDLE, memory_order_release);
    return true;
}

void host_load_claimed(struct host *host, const struct load_options *options)
{
    int64_t size_before = -1, mtime_before = -1, size_after, mtime_after;
    host_file_stamp(host->path, &size_before, &mtime_before);
    host->file_size = size_before;
    host->file_mtime_ns = mtime_before;
    if (host->unread_kind) {
        host->profile = NULL;
        host->status = LOAD_BAD_INPUT;
        load_error_set(&host->error, "memtop does not read *%s files yet",
                       host->unread_kind->suffix);
    } else {
        host->status = profile_load(host->path, options, &host->profile, &host->error);
        /* Never half a file: one that changed while it was read (still
         * being written) is read again whole by the next reload. */
        if (size_before >= 0 && host_file_stamp(host->path, &size_after, &mtime_after) &&
            (size_after != size_before || mtime_after != mtime_before)) {
            profile_free(host->profile);
            host->profile = NULL;
            host->status = LOAD_BAD_INPUT;
            load_error_set(&host->error, "the file changed while it was read (still being "
                                         "written?): R reads it again");
        }
    }
    host->attempted = true;
    atomic_store_explicit(&host->percent, 100, memory_order_relaxed);
    atomic_store_explicit(&host->state, HOST_LOADED, memory_order_release);
}

struct profile *host_list_load(struct host_list *list, size_t index,
                               const struct load_options *options)
{
    if (index >= list->count)
        return NULL;
    struct host *host = &list->hosts[index];
    if (host_claim(host))
        host_load_claimed(host, options);
    return host_state(host) == HOST_LOADED ? host->profile : NULL;
}

void host_unload(struct host *host)
{
    int loaded = HOST_LOADED;
    if (!atomic_compare_exchange_strong_explicit(&host->state, &loaded, HOST_LOADING,
                                                 memory_order_acq_rel, memory_order_acquire))
        return;
    profile_free(host->profile);
    host->profile = NULL;
    host->attempted = false;
    atomic_store_explicit(&host->percent, 0, memory_order_relaxed);
    atomic_store_explicit(&host->state, HOST_IDLE, memory_order_release);
}

void host_list_free(struct host_list *list)
{
    for (size_t i = 0; i < list->count; i++) {
        free(list->hosts[i].name);
        free(list->hosts[i].path);
        profile_free(list->hosts[i].profile);
    }
    free(list->hosts);
    free(list->run);
    memset(list, 0, sizeof *list);
}
