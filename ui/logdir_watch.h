/* logdir_watch: --follow's eyes on a log directory: inotify where there
 * is one (the directory, each plugins/profile directory and each run
 * directory, for files written, moved in or removed and directories
 * made), and a look every LOGDIR_WATCH_POLL_MS (all there is without
 * inotify). The viewer's loop waits
 * on it (terminal_watch_follow) and reloads when it says something
 * happened; the reload decides whether anything is new.
 * Called by ui.c. Must not: read a profile or decide what changed. */
#ifndef MEMTOP_LOGDIR_WATCH_H
#define MEMTOP_LOGDIR_WATCH_H

#include <stdbool.h>

#include "model/host_list.h"
#include "model/logdir.h"

#define LOGDIR_WATCH_POLL_MS 3000

struct logdir_watch {
    int fd;         /* inotify's; -1 when polling */
    int timeout_ms; /* LOGDIR_WATCH_POLL_MS */
};

/* Watches the log directory (or, without one, the directories of the
 * hosts' files); always succeeds, polling when inotify cannot be had. */
void logdir_watch_start(struct logdir_watch *watch, const struct logdir *logdir,
                        const struct host_list *hosts);
/* After a reload: the directories found since watched too. */
void logdir_watch_add(struct logdir_watch *watch, const struct logdir *logdir,
                      const struct host_list *hosts);
/* Empties the news; true when inotify said something happened. */
bool logdir_watch_drain(struct logdir_watch *watch);
void logdir_watch_stop(struct logdir_watch *watch);

#endif
