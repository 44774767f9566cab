/* logdir_watch: see logdir_watch.h. inotify watches are not recursive:
 * each directory a run can appear in or be written to is watched by
 * itself, and logdir_watch_add() adds the ones a reload found. Adding a
 * watch twice is harmless (inotify gives back the same one). */
#include "config.h"

#include "ui/logdir_watch.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_SYS_INOTIFY_H
#include <sys/inotify.h>
#endif

static void watch_directory(struct logdir_watch *watch, const char *path)
{
#ifdef HAVE_SYS_INOTIFY_H
    if (watch->fd >= 0)
        inotify_add_watch(watch->fd, path,
                          IN_CREATE | IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE);
#else
    (void)watch, (void)path;
#endif
}

/* The directory a file or run directory is in ("a/b" for "a/b/c"). */
static void watch_parent(struct logdir_watch *watch, const char *path)
{
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", path);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent) {
        *slash = '\0';
        watch_directory(watch, parent);
    } else if (!slash) {
        watch_directory(watch, ".");
    }
}

void logdir_watch_add(struct logdir_watch *watch, const struct logdir *logdir,
                      const struct host_list *hosts)
{
    if (logdir) {
        watch_directory(watch, logdir->path);
        for (size_t i = 0; i < logdir->run_count; i++) {
            watch_directory(watch, logdir->runs[i].path);
            watch_parent(watch, logdir->runs[i].path);
        }
        return;
    }
    for (size_t i = 0; hosts && i < hosts->count; i++)
        watch_parent(watch, hosts->hosts[i].path);
}

void logdir_watch_start(struct logdir_watch *watch, const struct logdir *logdir,
                        const struct host_list *hosts)
{
    watch->fd = -1;
    watch->timeout_ms = LOGDIR_WATCH_POLL_MS;
#ifdef HAVE_SYS_INOTIFY_H
    /* With inotify too, a look now and then: a file written into a run
     * directory before its watch was added is found by the next look. */
    watch->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
#endif
    logdir_watch_add(watch, logdir, hosts);
}

bool logdir_watch_drain(struct logdir_watch *watch)
{
    if (watch->fd < 0)
        return false;
    bool any = false;
    char buffer[4096];
    for (;;) {
        ssize_t got = read(watch->fd, buffer, sizeof buffer);
        if (got > 0) {
            any = true;
            continue;
        }
        if (got < 0 && errno == EINTR)
            continue;
        return any;
    }
}

void logdir_watch_stop(struct logdir_watch *watch)
{
    if (watch->fd >= 0)
        close(watch->fd);
    watch->fd = -1;
}
