/* viewer_reload: R and F5, and --follow's watch: the log directory read
 * again (new runs and hosts appear) and the open run's hosts made anew,
 * each host whose file has not changed keeping its profile, one that
 * changed read again whole when it is opened. The lists and log
 * directories replaced stay alive (retired) until the loader has stopped:
 * a load of one of their hosts may still be running. */
#include "config.h"

#include "ui/viewer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Keeps `list` (owned: freed at the end) alive until the viewer stops. */
static bool viewer_retire_list(struct viewer *viewer, struct host_list *list, bool owned)
{
    struct retired *retired = &viewer->retired;
    if (retired->list_count == retired->list_capacity) {
        size_t capacity = retired->list_capacity ? 2 * retired->list_capacity : 8;
        struct retired_list *grown = realloc(retired->lists, capacity * sizeof *grown);
        if (!grown)
            return false;
        retired->lists = grown;
        retired->list_capacity = capacity;
    }
    retired->lists[retired->list_count++] = (struct retired_list){list, owned};
    return true;
}

/* A new list for the open run's (or the files') hosts, each host whose
 * file is unchanged taking its profile over; *kept counts them, *fresh
 * the hosts that are new. */
static void adopt_unchanged(struct host_list *fresh_list, struct host_list *old, size_t *kept,
                            size_t *fresh)
{
    *kept = *fresh = 0;
    for (size_t i = 0; i < fresh_list->count; i++) {
        struct host *host = &fresh_list->hosts[i];
        bool found = false;
        for (size_t j = 0; j < old->count && !found; j++) {
            struct host *before = &old->hosts[j];
            if (strcmp(before->path, host->path) != 0)
                continue;
            found = true;
            if (host_file_unchanged(before) && host_adopt(host, before))
                (*kept)++;
        }
        *fresh += !found;
    }
}

/* The host of the new list named as the open one was, else the first. */
static size_t same_host(const struct host_list *list, const char *name)
{
    for (size_t i = 0; i < list->count; i++)
        if (strcmp(list->hosts[i].name, name) == 0)
            return i;
    return 0;
}

/* The open host's profile is in the old list: the panes let go of it
 * when the new host opens; then the old list's profiles go. */
static void switch_list(struct viewer *viewer, struct host_list *list, size_t host)
{
    struct host_list *old = viewer->hosts;
    if (viewer->profile && viewer->allocator)
        viewer_keep_allocator(viewer, viewer->profile, viewer->allocator_index);
    viewer->hosts = list;
    if (viewer->loader)
        host_loader_set_list(viewer->loader, list);
    if (viewer->zoomed == PANE_POD)
        viewer_zoom(viewer, PANE_NONE);
    viewer_select_host(viewer, host);
    for (size_t i = 0; i < old->count; i++)
        host_unload(&old->hosts[i]);
}

static bool reload_files(struct viewer *viewer, char *said, size_t size)
{
    struct host_list *old = viewer->hosts;
    char **paths = calloc(old->count ? old->count : 1, sizeof *paths);
    struct host_list *list = malloc(sizeof *list);
    const char *bad = NULL;
    struct load_error error;
    for (size_t i = 0; paths && i < old->count; i++)
        paths[i] = old->hosts[i].path;
    bool ok = paths && list && host_list_open(list, paths, old->count, &bad, &error) == LOAD_OK;
    free(paths);
    if (!ok || !viewer_retire_list(viewer, old, viewer->owns_hosts)) {
        if (ok)
            host_list_free(list);
        free(list);
        snprintf(said, size, "could not reload the files");
        return false;
    }
    size_t kept, fresh;
    adopt_unchanged(list, old, &kept, &fresh);
    viewer->owns_hosts = true;
    switch_list(viewer, list, same_host(list, old->hosts[viewer->host_index].name));
    snprintf(said, size, "%zu host%s, %zu unchanged", list->count,
             list->count == 1 ? "" : "s", kept);
    return true;
}

/* Whether the two lists name the same files, in the same order. */
static bool same_paths(const struct host_list *a, const struct host_list *b)
{
    for (size_t i = 0; i < a->count && i < b->count; i++)
        if (strcmp(a->hosts[i].path, b->hosts[i].path) != 0)
            return false;
    return a->count == b->count;
}

static size_t run_named(const struct logdir *logdir, const char *name)
{
    for (size_t i = 0; i < logdir->run_count; i++)
        if (strcmp(logdir->runs[i].name, name) == 0)
            return i;
    return logdir->run_count;
}

/* The runs of `fresh` that `old` did not have. */
static size_t new_runs(const struct logdir *old, const struct logdir *fresh)
{
    size_t count = 0;
    for (size_t i = 0; i < fresh->run_count; i++)
        count += run_named(old, fresh->runs[i].name) == old->run_count;
    return count;
}

/* Whether a loaded host's file changed since its load. */
static bool any_file_changed(const struct host_list *hosts)
{
    for (size_t i = 0; i < hosts->count; i++)
        if (host_state(&hosts->hosts[i]) == HOST_LOADED && !host_file_unchanged(&hosts->hosts[i]))
            return true;
    return false;
}

static bool reload_logdir(struct viewer *viewer, bool quiet_when_same, char *said, size_t size)
{
    const struct logdir *old = viewer->logdir;
    struct logdir *fresh = calloc(1, sizeof *fresh);
    struct load_error error;
    if (!fresh || logdir_open(old->path, fresh, &error) != LOAD_OK) {
        snprintf(said, size, "could not read the log directory again: %s",
                 fresh ? error.message : "out of memory");
        free(fresh);
        return false;
    }
    size_t open = run_named(fresh, old->runs[viewer->run_index].name);
    struct host_list **run_hosts = calloc(fresh->run_count, sizeof *run_hosts);
    struct host_list *list = malloc(sizeof *list);
    bool ok = run_hosts && list && open < fresh->run_count &&
              host_list_open_run(list, &fresh->runs[open], fresh->runs[open].name, &error) ==
                  LOAD_OK;
    if (!ok) {
        snprintf(said, size, open < fresh->run_count ? "out of memory reloading"
                                                    : "the open run is gone from the log directory");
        free(list);
        free(run_hosts);
        logdir_free(fresh);
        free(fresh);
        return false;
    }
    size_t added_runs = new_runs(old, fresh);
    bool same = added_runs == 0 && list->count == viewer->hosts->count &&
                same_paths(list, viewer->hosts) && !any_file_changed(viewer->hosts);
    if (same && quiet_when_same) {
        host_list_free(list);
        free(list);
        free(run_hosts);
        logdir_free(fresh);
        free(fresh);
        return false;
    }
    size_t kept, added_hosts;
    adopt_unchanged(list, viewer->hosts, &kept, &added_hosts);
    /* Every list of the old directory retires: the open one's profiles
     * are the panes' until the new list opens. */
    for (size_t i = 0; i < old->run_count; i++)
        if (viewer->run_hosts[i])
            viewer_retire_list(viewer, viewer->run_hosts[i], i != viewer->main_run);
    free(viewer->run_hosts);
    if (viewer->owned_logdir) {
        struct logdir **grown = realloc(viewer->retired.logdirs,
                                        (viewer->retired.logdir_count + 1) * sizeof *grown);
        if (grown) {
            grown[viewer->retired.logdir_count++] = viewer->owned_logdir;
            viewer->retired.logdirs = grown;
        } /* else it stays allocated: a leak, never a dangling name */
    }
    const char *open_host = viewer->hosts->hosts[viewer->host_index].name;
    size_t host = same_host(list, open_host);
    viewer->owned_logdir = fresh;
    viewer->logdir = fresh;
    viewer->run_hosts = run_hosts;
    viewer->run_hosts[open] = list;
    viewer->main_run = SIZE_MAX;
    viewer->run_errors = NULL;
    viewer->run_index = open;
    switch_list(viewer, list, host);
    snprintf(said, size, "%zu run%s (%zu new), %zu host%s in this run (%zu new), %zu unchanged",
             fresh->run_count, fresh->run_count == 1 ? "" : "s", added_runs,
             list->count, list->count == 1 ? "" : "s", added_hosts, kept);
    return true;
}

void viewer_reload(struct viewer *viewer, bool watching)
{
    if (watching && !viewer->logdir && !any_file_changed(viewer->hosts))
        return;
    char said[sizeof viewer->status];
    bool changed = viewer->logdir ? reload_logdir(viewer, watching, said, sizeof said)
                                  : reload_files(viewer, said, sizeof said);
    if (changed || !watching)
        viewer_status(viewer, !changed, "%s%s", !changed ? "" : watching ? "following: " : "reloaded: ",
                      said);
}

void viewer_reload_free(struct viewer *viewer)
{
    struct retired *retired = &viewer->retired;
    for (size_t i = 0; i < retired->list_count; i++) {
        if (!retired->lists[i].owned)
            continue;
        host_list_free(retired->lists[i].list);
        free(retired->lists[i].list);
    }
    free(retired->lists);
    for (size_t i = 0; i < retired->logdir_count; i++) {
        logdir_free(retired->logdirs[i]);
        free(retired->logdirs[i]);
    }
    free(retired->logdirs);
    if (viewer->owns_hosts && !viewer->logdir) {
        host_list_free(viewer->hosts);
        free(viewer->hosts);
        viewer->hosts = NULL;
        viewer->owns_hosts = false;
    }
    if (viewer->owned_logdir) {
        logdir_free(viewer->owned_logdir);
        free(viewer->owned_logdir);
    }
    memset(retired, 0, sizeof *retired);
    viewer->owned_logdir = NULL;
}
