#include "config.h"

#include "model/logdir.h"

#include "model/input_format.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/util/array_grow.h"
#include "model/load_internal.h"
#include "model/util/natural_order.h"
#include "model/path.h"

/* ---- one file's name ---- */

bool run_file_classify(const char *name, const struct input_format **format,
                       const struct xprof_file_kind **kind, size_t *host_length)
{
    *format = NULL;
    *kind = NULL;
    *host_length = 0;
    if (name[0] == '.')
        return false;
    size_t length = strlen(name), format_length, kind_length;
    const struct input_format *row = input_format_for_name(name, &format_length);
    const struct xprof_file_kind *named = xprof_file_kind_for_name(name, &kind_length);
    if (named && kind_length >= format_length) {
        /* XProf's name: the host is all that comes before it, dots and
         * all; memtop opens the file only when a format row lists the
         * suffix it needs (".xplane.pb" is not a MemoryProfile ".pb"). */
        const char *needed = named->format_suffix ? named->format_suffix : named->suffix;
        *format = row && format_length >= strlen(needed) ? row : NULL;
        *kind = named;
        *host_length = length - kind_length;
        return true;
    }
    if (!row)
        return false;
    *format = row;
    *host_length = row->host_before_first_dot ? strcspn(name, ".") : length - format_length;
    if (*host_length == 0)
        *host_length = length;
    return true;
}

/* ---- one run directory ---- */

/* A file of the directory while the hosts are put together. */
struct found_file {
    struct run_file file;
    size_t host_length;
    /* The host's name when it is not the file name's first host_length
     * bytes (a format's own rule, a rank's folder); malloc'd or NULL. */
    char *host;
};

static const char *found_host(const struct found_file *found)
{
    return found->host ? found->host : found->file.name;
}

static unsigned file_rank(const struct run_file *file)
{
    if (!file->kind)
        return 0; /* a plain profile file: the host's one source */
    return file->kind->memory_rank ? file->kind->memory_rank : 1000;
}

static bool file_is_source(const struct run_file *file)
{
    return !file->kind || file->kind->memory_rank > 0;
}

/* By host, in natural order (w-2 before w-10); XProf's files of one host together (plain files are hosts of
 * their own); sources first, the preferred one first; then by name. */
static int compare_found(const void *left, const void *right)
{
    const struct found_file *a = left, *b = right;
    int order = natural_compare_bytes(a->file.name, a->host_length, b->file.name, b->host_length);
    if (order == 0 && (a->file.kind == NULL) != (b->file.kind == NULL))
        order = a->file.kind ? -1 : 1;
    if (order == 0 && file_rank(&a->file) != file_rank(&b->file))
        order = file_rank(&a->file) < file_rank(&b->file) ? -1 : 1;
    return order ? order : strcmp(a->file.name, b->file.name);
}

static bool same_host(const struct found_file *a, const struct found_file *b)
{
    return a->file.kind && b->file.kind && a->host_length == b->host_length &&
           memcmp(found_host(a), found_host(b), a->host_length) == 0;
}

/* Hands the sorted files over to hosts; false when memory runs out (the
 * files not handed over are freed). */
static bool run_make_hosts(struct logdir_run *run, struct found_file *found, size_t count)
{
    bool ok = true;
    size_t capacity = 0;
    for (size_t first = 0, end; first < count; first = end) {
        for (end = first + 1; end < count && same_host(&found[first], &found[end]); end++)
            ;
        struct run_host *host = NULL;
        if (ok && array_grow((void **)&run->hosts, &capacity, run->host_count, sizeof *host, 8)) {
            host = &run->hosts[run->host_count];
            memset(host, 0, sizeof *host);
            host->name = strndup(found_host(&found[first]), found[first].host_length);
            host->files = malloc((end - first) * sizeof *host->files);
        }
        if (!host || !host->name || !host->files) {
            if (host) {
                free(host->name);
                free(host->files);
            }
            ok = false;
            for (size_t i = first; i < end; i++) {
                free(found[i].file.path);
                free(found[i].host);
            }
            continue;
        }
        run->host_count++;
        for (size_t i = first; i < end; i++) {
            host->files[host->file_count++] = found[i].file;
            host->source_count += file_is_source(&found[i].file);
            free(found[i].host);
        }
    }
    return ok;
}

/* Adds directory entry `name` when it is a regular file of a run. */
static bool found_add(struct found_file **found, size_t *count, size_t *capacity,
                      const char *directory, const char *name)
{
    const struct input_format *format;
    const struct xprof_file_kind *kind;
    size_t host_length;
    if (!run_file_classify(name, &format, &kind, &host_length))
        return true;
    char *path = path_join(directory, name);
    if (!path)
        return false;
    struct stat file_status;
    if (stat(path, &file_status) != 0 || !S_ISREG(file_status.st_mode) ||
        (kind && !kind->names_host)) {
        free(path);
        return true;
    }
    if (!array_grow((void **)found, capacity, *count, sizeof **found, 16)) {
        free(path);
        return false;
    }
    struct found_file *file = &(*found)[(*count)++];
    file->file = (struct run_file){path, path_base_name(path), format, kind};
    file->host_length = host_length;
    file->host = NULL;
    /* The format's own name for the host ("rank3" for oom_rank3.pickle). */
    if (format && format->host_name && !kind) {
        file->host = format->host_name(name, host_length);
        if (file->host)
            file->host_length = strlen(file->host);
    }
    return true;
}

/* A folder of the run holding one file of a format that names its hosts
 * (rank3/snapshot.pickle): that file, its host the folder's name. */
static bool found_add_folder(struct found_file **found, size_t *count, size_t *capacity,
                             const char *directory, const char *name)
{
    if (name[0] == '.')
        return true;
    char *folder = path_join(directory, name);
    if (!folder)
        return false;
    struct stat folder_status;
    DIR *stream = stat(folder, &folder_status) == 0 && S_ISDIR(folder_status.st_mode)
                      ? opendir(folder)
                      : NULL;
    char *chosen = NULL;
    size_t candidates = 0;
    struct dirent *entry;
    while (stream && (entry = readdir(stream))) {
        const struct input_format *format;
        const struct xprof_file_kind *kind;
        size_t host_length;
        if (!run_file_classify(entry->d_name, &format, &kind, &host_length) || kind ||
            !format || !format->host_name)
            continue;
        if (++candidates == 1)
            chosen = strdup(entry->d_name);
    }
    if (stream)
        closedir(stream);
    bool ok = true;
    if (candidates == 1 && chosen) {
        size_t before = *count;
        ok = found_add(found, count, capacity, folder, chosen);
        if (ok && *count > before) {
            struct found_file *file = &(*found)[*count - 1];
            free(file->host);
            file->host = strdup(name);
            file->host_length = file->host ? strlen(file->host) : 0;
            ok = file->host != NULL;
        }
    }
    free(chosen);
    free(folder);
    return ok;
}

static int compare_hosts_natural(const void *left, const void *right)
{
    return natural_compare(((const struct run_host *)left)->name,
                           ((const struct run_host *)right)->name);
}

/* Hosts all named by their format's rule (ranks) in natural order. */
static void run_order_ranks(struct logdir_run *run)
{
    for (size_t i = 0; i < run->host_count; i++) {
        const struct run_file *file = &run->hosts[i].files[0];
        if (!file->format || !file->format->host_name)
            return;
    }
    if (run->host_count > 1)
        qsort(run->hosts, run->host_count, sizeof *run->hosts, compare_hosts_natural);
}

enum load_status logdir_read_run(const char *path, const char *name, struct logdir_run *run,
                                 struct load_error *error)
{
    memset(run, 0, sizeof *run);
    struct stat directory_status;
    if (stat(path, &directory_status) == 0)
        run->modified = (int64_t)directory_status.st_mtime;
    run->name = strdup(name);
    run->path = strdup(path);
    if (!run->name || !run->path) {
        logdir_run_free(run);
        load_error_set(error, "out of memory");
        return LOAD_NO_MEMORY;
    }
    DIR *stream = opendir(path);
    if (!stream) {
        run->read_error = errno;
        load_error_set(error, "%s", strerror(errno));
        return LOAD_BAD_INPUT;
    }
    struct found_file *found = NULL;
    size_t count = 0, capacity = 0;
    bool ok = true;
    struct dirent *entry;
    while (ok && (entry = readdir(stream))) {
        ok = found_add(&found, &count, &capacity, path, entry->d_name);
        if (ok && entry->d_type != DT_REG)
            ok = found_add_folder(&found, &count, &capacity, path, entry->d_name);
    }
    closedir(stream);
    if (count > 1)
        qsort(found, count, sizeof *found, compare_found);
    if (!ok)
        for (size_t i = 0; i < count; i++) {
            free(found[i].file.path);
            free(found[i].host);
        }
    ok = ok && run_make_hosts(run, found, count);
    free(found);
    if (ok)
        run_order_ranks(run);
    if (ok)
        return LOAD_OK;
    logdir_run_free(run);
    load_error_set(error, "out of memory");
    return LOAD_NO_MEMORY;
}

void logdir_run_free(struct logdir_run *run)
{
    for (size_t i = 0; i < run->host_count; i++) {
        for (size_t f = 0; f < run->hosts[i].file_count; f++)
            free(run->hosts[i].files[f].path);
        free(run->hosts[i].files);
        free(run->hosts[i].name);
    }
    free(run->hosts);
    free(run->name);
    free(run->path);
    memset(run, 0, sizeof *run);
}

/* ---- what a run holds ---- */

const struct run_file *run_host_source(const struct run_host *host)
{
    for (size_t i = 0; i < host->source_count; i++)
        if (host->files[i].format)
            return &host->files[i];
    return host->source_count > 0 ? &host->files[0] : NULL;
}

size_t logdir_run_memory_hosts(const struct logdir_run *run)
{
    size_t count = 0;
    for (size_t i = 0; i < run->host_count; i++)
        count += run->hosts[i].source_count > 0;
    return count;
}

size_t logdir_newest_run(const struct logdir *logdir)
{
    for (size_t i = 0; i < logdir->run_count; i++)
        if (logdir_run_memory_hosts(&logdir->runs[i]) > 0)
            return i;
    return logdir->run_count;
}

static bool hosts_have_kind(const struct run_host *hosts, size_t count,
                            const struct xprof_file_kind *kind)
{
    for (size_t h = 0; h < count; h++)
        for (size_t f = 0; f < hosts[h].file_count; f++)
            if (hosts[h].files[f].kind == kind)
                return true;
    return false;
}

static void tools_add(const char *const *add, const char **tools, size_t *count, size_t size)
{
    for (; add && *add; add++) {
        bool seen = false;
        for (size_t i = 0; i < *count && !seen; i++)
            seen = strcmp(tools[i], *add) == 0;
        if (!seen && *count < size)
            tools[(*count)++] = *add;
    }
}

size_t logdir_tools(const struct logdir_run *run, const struct run_host *host, const char **tools,
                    size_t size)
{
    const struct run_host *hosts = host ? host : run->hosts;
    size_t host_count = host ? 1 : run->host_count, count = 0;
    /* XProf converts every tool from the XSpace when a run has one, and
     * then lists those alone (profile_plugin.py, _get_tools). */
    bool xspace = false;
    for (size_t i = 0; i < xprof_file_kind_count(); i++) {
        const struct xprof_file_kind *kind = xprof_file_kind_at(i);
        if (xprof_file_kind_is_xspace(kind) && hosts_have_kind(hosts, host_count, kind)) {
            tools_add(kind->tools, tools, &count, size);
            xspace = true;
        }
    }
    for (size_t i = 0; i < xprof_file_kind_count() && !xspace; i++) {
        const struct xprof_file_kind *kind = xprof_file_kind_at(i);
        if (hosts_have_kind(hosts, host_count, kind))
            tools_add(kind->tools, tools, &count, size);
    }
    return count;
}
