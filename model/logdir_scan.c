/* logdir_scan: the runs below a log directory (see logdir.h), and the
 * questions asked of the list: which run is newest, which has a name,
 * what date a name holds. */
#include "config.h"

#include "model/logdir.h"

#include "model/input_format.h"

#include <ctype.h>
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

/* A directory's own name, without trailing slashes; malloc'd. */
static char *directory_name(const char *path)
{
    const char *base = path_base_name(path);
    size_t length = strcspn(base, "/");
    return strndup(base, length ? length : strlen(base));
}

/* ---- the walk ---- */

struct directory_id {
    dev_t device;
    ino_t inode;
};

struct scan {
    struct logdir *logdir;
    size_t run_capacity;
    struct directory_id *visited;
    size_t visited_count, visited_capacity;
    bool out_of_memory;
};

/* false when the directory was seen before (a symlink loop, or two links
 * to one place) or memory ran out. */
static bool scan_visit(struct scan *scan, const struct stat *status)
{
    for (size_t i = 0; i < scan->visited_count; i++)
        if (scan->visited[i].device == status->st_dev && scan->visited[i].inode == status->st_ino)
            return false;
    if (!array_grow((void **)&scan->visited, &scan->visited_capacity, scan->visited_count,
                    sizeof *scan->visited, 64)) {
        scan->out_of_memory = true;
        return false;
    }
    scan->visited[scan->visited_count++] = (struct directory_id){status->st_dev, status->st_ino};
    return true;
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of the directories in `path` (symlinks followed, hidden ones
 * skipped), sorted so that the walk is the same every time; NULL with
 * *count 0 when there are none or it cannot be read. */
static char **subdirectories(struct scan *scan, const char *path, size_t *count)
{
    *count = 0;
    DIR *stream = opendir(path);
    if (!stream)
        return NULL;
    char **names = NULL;
    size_t capacity = 0;
    struct dirent *entry;
    while (!scan->out_of_memory && (entry = readdir(stream))) {
        if (entry->d_name[0] == '.')
            continue;
        char *child = path_join(path, entry->d_name);
        struct stat status;
        bool directory = child && stat(child, &status) == 0 && S_ISDIR(status.st_mode);
        free(child);
        if (!child || (directory && (!array_grow((void **)&names, &capacity, *count,
                                                 sizeof *names, 16) ||
                                     !(names[*count] = strdup(entry->d_name))))) {
            scan->out_of_memory = true;
            break;
        }
        *count += directory;
    }
    closedir(stream);
    if (*count > 1)
        qsort(names, *count, sizeof *names, compare_strings);
    return names;
}

static void free_names(char **names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
}

/* "prefix/name", or name alone at the top; malloc'd. */
static char *run_name_join(const char *prefix, const char *name)
{
    return prefix[0] ? path_join(prefix, name) : strdup(name);
}

/* Every directory in a plugins/profile directory is a run (XProf takes
 * any name); one that cannot be read stays in the list with its error. */
static void scan_profile_directory(struct scan *scan, const char *path, const char *prefix)
{
    size_t count;
    char **folders = subdirectories(scan, path, &count);
    struct logdir *logdir = scan->logdir;
    for (size_t i = 0; i < count && !scan->out_of_memory; i++) {
        char *run_path = path_join(path, folders[i]);
        char *name = run_name_join(prefix, folders[i]);
        struct load_error ignored;
        if (!run_path || !name ||
            !array_grow((void **)&logdir->runs, &scan->run_capacity, logdir->run_count,
                        sizeof *logdir->runs, 8) ||
            logdir_read_run(run_path, name, &logdir->runs[logdir->run_count], &ignored) ==
                LOAD_NO_MEMORY)
            scan->out_of_memory = true;
        else
            logdir->run_count++;
        free(run_path);
        free(name);
    }
    free_names(folders, count);
}

/* Walks `path` (named `prefix` from the top) looking for plugins/profile. */
static void scan_directory(struct scan *scan, const char *path, const char *prefix, int depth)
{
    size_t count;
    char **names = subdirectories(scan, path, &count);
    for (size_t i = 0; i < count && !scan->out_of_memory; i++) {
        char *child = path_join(path, names[i]);
        struct stat status;
        if (!child) {
            scan->out_of_memory = true;
        } else if (stat(child, &status) == 0 && scan_visit(scan, &status)) {
            if (strcmp(names[i], "plugins") == 0) {
                char *profile = path_join(child, "profile");
                if (!profile)
                    scan->out_of_memory = true;
                else if (stat(profile, &status) == 0 && S_ISDIR(status.st_mode))
                    scan_profile_directory(scan, profile, prefix);
                free(profile);
            } else if (depth < LOGDIR_MAX_DEPTH) {
                char *name = run_name_join(prefix, names[i]);
                if (name)
                    scan_directory(scan, child, name, depth + 1);
                scan->out_of_memory = scan->out_of_memory || !name;
                free(name);
            }
        }
        free(child);
    }
    free_names(names, count);
}

/* ---- the order of the runs ---- */

static const char *run_folder(const struct logdir_run *run)
{
    const char *slash = strrchr(run->name, '/');
    return slash ? slash + 1 : run->name;
}

/* Newest first: the folder's name (a timestamp; natural order, so that
 * run_9 comes after run_10) descending, then the
 * modification time descending, then the name, so the order is total. */
static int compare_runs(const void *left, const void *right)
{
    const struct logdir_run *a = left, *b = right;
    int order = natural_compare(run_folder(b), run_folder(a));
    if (order == 0 && a->modified != b->modified)
        order = a->modified > b->modified ? -1 : 1;
    return order ? order : natural_compare(a->name, b->name);
}

/* Given LOGDIR/plugins/profile or LOGDIR/plugins itself: the profile
 * directory, else NULL. */
static char *given_profile_directory(const char *path)
{
    char *name = directory_name(path);
    char *profile = NULL;
    if (name && strcmp(name, "plugins") == 0)
        profile = path_join(path, "profile");
    else if (name && strcmp(name, "profile") == 0)
        profile = strdup(path);
    free(name);
    return profile;
}

static enum load_status scan_log_directory(struct logdir *logdir, const struct stat *top,
                                           struct load_error *error)
{
    struct scan scan = {.logdir = logdir};
    char *profile = given_profile_directory(logdir->path);
    struct stat status;
    if (profile && stat(profile, &status) == 0 && S_ISDIR(status.st_mode))
        scan_profile_directory(&scan, profile, "");
    else if (scan_visit(&scan, top))
        scan_directory(&scan, logdir->path, "", 0);
    free(profile);
    free(scan.visited);
    if (scan.out_of_memory) {
        load_error_set(error, "out of memory");
        return LOAD_NO_MEMORY;
    }
    if (logdir->run_count > 1)
        qsort(logdir->runs, logdir->run_count, sizeof *logdir->runs, compare_runs);
    return LOAD_OK;
}

/* Whether `suffix` is another's with ".gz" after it (said once at the end). */
static bool gzip_of_listed(const char *suffix)
{
    size_t length = strlen(suffix);
    if (length < 4 || strcmp(suffix + length - 3, ".gz") != 0)
        return false;
    for (size_t i = 0; i < input_format_count(); i++)
        for (const char *const *other = input_format_at(i)->suffixes; other && *other; other++)
            if (strlen(*other) == length - 3 && strncmp(*other, suffix, length - 3) == 0)
                return true;
    return false;
}

/* "(*.pb, *.json, ..., gzip'd or not)": the suffixes of the format table. */
static void known_suffixes(char *text, size_t size)
{
    size_t used = (size_t)snprintf(text, size, "(");
    const char *separator = "";
    bool gzip = false;
    for (size_t rank = 0, listed = 1; listed > 0 && used < size; rank++) {
        listed = 0;
        for (size_t i = 0; i < input_format_count() && used < size; i++) {
            const char *const *suffixes = input_format_at(i)->suffixes;
            size_t count = 0;
            while (suffixes && suffixes[count])
                count++;
            if (rank >= count)
                continue;
            listed++;
            if (gzip_of_listed(suffixes[rank])) {
                gzip = true;
                continue;
            }
            used += (size_t)snprintf(text + used, size - used, "%s*%s", separator,
                                     suffixes[rank]);
            separator = ", ";
        }
    }
    if (used < size)
        snprintf(text + used, size - used, "%s)", gzip ? ", gzip'd or not" : "");
}

void logdir_error_no_profiles(struct load_error *error, bool log_directory)
{
    char suffixes[160];
    known_suffixes(suffixes, sizeof suffixes);
    load_error_set(error, "no memory profile files in this directory %s%s", suffixes,
                   log_directory ? ", and no plugins/profile directory below it" : "");
}

enum load_status logdir_open(const char *path, struct logdir *logdir, struct load_error *error)
{
    memset(logdir, 0, sizeof *logdir);
    struct stat top;
    if (stat(path, &top) != 0) {
        load_error_set(error, "%s", strerror(errno));
        return LOAD_BAD_INPUT;
    }
    logdir->path = strdup(path);
    char *name = directory_name(path);
    struct logdir_run run;
    enum load_status status = LOAD_NO_MEMORY;
    if (logdir->path && name)
        status = logdir_read_run(path, name, &run, error);
    else
        load_error_set(error, "out of memory");
    free(name);
    if (status == LOAD_BAD_INPUT)
        logdir_run_free(&run);
    if (status == LOAD_OK && run.host_count > 0) {
        logdir->kind = LOGDIR_RUN;
        logdir->runs = malloc(sizeof *logdir->runs);
        if (logdir->runs) {
            logdir->runs[0] = run;
            logdir->run_count = 1;
            return LOAD_OK;
        }
        logdir_run_free(&run);
        load_error_set(error, "out of memory");
        status = LOAD_NO_MEMORY;
    } else if (status == LOAD_OK) {
        logdir_run_free(&run);
        logdir->kind = LOGDIR_LOG_DIRECTORY;
        status = scan_log_directory(logdir, &top, error);
        if (status == LOAD_OK && logdir->run_count == 0) {
            logdir_error_no_profiles(error, true);
            status = LOAD_BAD_INPUT;
        }
    }
    if (status != LOAD_OK)
        logdir_free(logdir);
    return status;
}

void logdir_free(struct logdir *logdir)
{
    for (size_t i = 0; i < logdir->run_count; i++)
        logdir_run_free(&logdir->runs[i]);
    free(logdir->runs);
    free(logdir->path);
    memset(logdir, 0, sizeof *logdir);
}

enum logdir_match logdir_find_run(const struct logdir *logdir, const char *name, size_t *index)
{
    size_t matches = 0;
    for (size_t i = 0; i < logdir->run_count; i++) {
        if (strcmp(logdir->runs[i].name, name) == 0) {
            *index = i;
            return LOGDIR_MATCH_ONE;
        }
    }
    for (size_t i = 0; i < logdir->run_count; i++) {
        if (strcmp(run_folder(&logdir->runs[i]), name) == 0) {
            if (matches++ == 0)
                *index = i;
        }
    }
    return matches == 0 ? LOGDIR_MATCH_NONE
                        : matches == 1 ? LOGDIR_MATCH_ONE : LOGDIR_MATCH_SEVERAL;
}

bool logdir_run_date(const struct logdir_run *run, char *text, size_t size)
{
    /* strftime("%Y_%m_%d_%H_%M_%S"): digits where the pattern has 9. */
    static const char pattern[] = "9999_99_99_99_99_99";
    const char *folder = run_folder(run);
    if (strlen(folder) != sizeof pattern - 1)
        return false;
    for (size_t i = 0; pattern[i]; i++)
        if (pattern[i] == '9' ? !isdigit((unsigned char)folder[i]) : folder[i] != '_')
            return false;
    snprintf(text, size, "%.4s-%.2s-%.2s %.2s:%.2s:%.2s", folder, folder + 5, folder + 8,
             folder + 11, folder + 14, folder + 17);
    return true;
}
