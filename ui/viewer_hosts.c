/* viewer_hosts: what the viewer opens: hosts (loaded in the background
 * by model/host_loader.h, opened as soon as their load ends), runs of a
 * log directory, and the memory id kept from host to host. */
#include "config.h"

#include "ui/viewer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/status_line.h"

void viewer_start_loading(struct viewer *viewer)
{
    /* One profile is loaded before the viewer starts; more load here. */
    if (viewer->hosts->count < 2 && !viewer->logdir)
        return;
    viewer->loader = host_loader_start();
    if (viewer->loader)
        host_loader_set_list(viewer->loader, viewer->hosts);
}

void viewer_stop_loading(struct viewer *viewer)
{
    host_loader_stop(viewer->loader);
    viewer->loader = NULL;
    for (size_t i = 0; viewer->run_hosts && i < viewer->logdir->run_count; i++) {
        if (i == viewer->main_run || !viewer->run_hosts[i])
            continue;
        host_list_free(viewer->run_hosts[i]);
        free(viewer->run_hosts[i]);
    }
    free(viewer->run_hosts);
    viewer->run_hosts = NULL;
    viewer_reload_free(viewer);
}

size_t viewer_allocator_for(const struct viewer *viewer, const struct profile *profile)
{
    long index = -1;
    if (viewer->kept_allocator)
        index = profile_find_allocator(
            profile, text_make(viewer->kept_allocator, viewer->kept_allocator_length));
    else if (viewer->allocator && viewer->profile)
        index = profile_find_allocator(profile,
                                       profile_string(viewer->profile, viewer->allocator->id));
    return index >= 0 ? (size_t)index : 0;
}

void viewer_keep_allocator(struct viewer *viewer, const struct profile *profile, size_t index)
{
    struct text id = profile_string(profile, profile->allocators[index].id);
    free(viewer->kept_allocator);
    viewer->kept_allocator = malloc(id.length ? id.length : 1);
    viewer->kept_allocator_length = viewer->kept_allocator ? id.length : 0;
    if (viewer->kept_allocator && id.length)
        memcpy(viewer->kept_allocator, id.bytes, id.length);
}

/* "loading NAME: 42%" on the status line while the open host loads. */
static void viewer_show_progress(struct viewer *viewer)
{
    const struct host *host = &viewer->hosts->hosts[viewer->host_index];
    viewer_status(viewer, false, "loading %s: %d%%", host->name, host_load_percent(host));
}

/* Without the loader (its threads could not start), hosts load here,
 * the status line saying how far as they do. */
struct load_progress {
    struct viewer *viewer;
    const char *name;
    int last_percent;
};

static void show_load_progress(void *context, uint64_t done, uint64_t total)
{
    struct load_progress *progress = context;
    int percent = total ? (int)(done * 100 / total) : 0;
    if (percent == progress->last_percent || !progress->viewer->terminal_ready)
        return;
    progress->last_percent = percent;
    char text[300];
    snprintf(text, sizeof text, "loading %s: %d%%", progress->name, percent);
    status_line_show_now(progress->viewer, text);
}

static void viewer_load_here(struct viewer *viewer, size_t index)
{
    struct host *host = &viewer->hosts->hosts[index];
    struct load_progress progress = {viewer, host->name, -1};
    struct load_options options = {.progress = show_load_progress, .progress_context = &progress};
    if (host_state(host) == HOST_IDLE)
        show_load_progress(&progress, 0, 1);
    host_list_load(viewer->hosts, index, &options);
}

void viewer_select_host(struct viewer *viewer, size_t index)
{
    struct host_list *hosts = viewer->hosts;
    if (index >= hosts->count)
        return;
    struct host *host = &hosts->hosts[index];
    if (!viewer->loader)
        viewer_load_here(viewer, index);
    else if (host_state(host) != HOST_LOADED)
        host_loader_want(viewer->loader, index);
    viewer_open_host(viewer, index);
    if (viewer->host_pending)
        viewer_show_progress(viewer);
}

void viewer_select_host_allocator(struct viewer *viewer, size_t host, size_t allocator)
{
    if (host >= viewer->hosts->count)
        return;
    const struct host *chosen = &viewer->hosts->hosts[host];
    if (host_state(chosen) == HOST_LOADED && chosen->profile &&
        allocator < chosen->profile->allocator_count) {
        viewer_keep_allocator(viewer, chosen->profile, allocator);
    }
    viewer_select_host(viewer, host);
}

void viewer_poll_loads(struct viewer *viewer)
{
    if (viewer->loader)
        host_loader_drain(viewer->loader);
    if (!viewer->host_pending)
        return;
    const struct host *host = &viewer->hosts->hosts[viewer->host_index];
    if (host_state(host) != HOST_LOADED) {
        viewer_show_progress(viewer);
        return;
    }
    viewer_status_clear(viewer);
    viewer_open_host(viewer, viewer->host_index);
}

/* The hosts of run `index`, made on first use; NULL when memory runs out. */
static struct host_list *viewer_run_hosts(struct viewer *viewer, size_t index)
{
    if (viewer->run_hosts[index])
        return viewer->run_hosts[index];
    const struct logdir_run *run = &viewer->logdir->runs[index];
    struct host_list *list = malloc(sizeof *list);
    struct load_error error;
    if (!list || host_list_open_run(list, run, run->name, &error) != LOAD_OK) {
        free(list);
        return NULL;
    }
    viewer->run_hosts[index] = list;
    return list;
}

const char *viewer_run_error(const struct viewer *viewer, size_t index)
{
    if (!viewer->logdir || index >= viewer->logdir->run_count)
        return NULL;
    if (viewer->run_errors && viewer->run_errors[index])
        return viewer->run_errors[index];
    const struct host_list *list = viewer->run_hosts ? viewer->run_hosts[index] : NULL;
    if (!list || list->count == 0)
        return NULL;
    for (size_t i = 0; i < list->count; i++) {
        const struct host *host = &list->hosts[i];
        if (host_state(host) != HOST_LOADED || host->profile)
            return NULL;
    }
    return list->hosts[0].error.message;
}

void viewer_select_run(struct viewer *viewer, size_t index)
{
    const struct logdir *logdir = viewer->logdir;
    if (!logdir || index >= logdir->run_count || index == viewer->run_index)
        return;
    const struct logdir_run *run = &logdir->runs[index];
    if (logdir_run_memory_hosts(run) == 0) {
        viewer_status(viewer, true, "%s: no memory profile in this run", run->name);
        return;
    }
    struct host_list *list = viewer_run_hosts(viewer, index);
    if (!list) {
        viewer_status(viewer, true, "out of memory opening %s", run->name);
        return;
    }
    struct host_list *previous = viewer->hosts;
    viewer->hosts = list;
    viewer->run_index = index;
    if (viewer->loader)
        host_loader_set_list(viewer->loader, list);
    viewer_select_host(viewer, 0);
    /* The run left behind: its profiles go (a host still loading stays
     * with the loader and is kept for when the run opens again). */
    for (size_t i = 0; i < previous->count; i++)
        host_unload(&previous->hosts[i]);
}
