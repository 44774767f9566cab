/* host_loader: loads the hosts of a host list in the background, so that
 * a viewer never waits on a big file to show another host.
 *
 * Two threads take hosts one at a time: the host a person asked for
 * (host_loader_want) first, on whichever thread is free; the others in
 * list order, on one thread at most, so the other stays free for the
 * next host asked for. A load cannot be interrupted: a host being loaded
 * when the list changes or the loader stops is finished first.
 * A host's state (model/host_list.h) says when its profile is there;
 * profiles are immutable once loaded, so publishing the state is the
 * whole hand-over. A pipe becomes readable whenever a host's state or
 * load percent changes, for a caller that waits in poll().
 * Called by: the viewer. Must not: touch a host another thread claimed,
 * free a host list (its owner does, after host_loader_stop).
 *
 * A switch for the tests (the result is the same either way): with
 * MEMTOP_TEST_LOAD_GATE=PATH in the environment, a thread that took a
 * host starts loading it only once PATH exists, so the viewer's tests
 * see hosts loading, then loaded, whatever the machine's speed. */
#ifndef MEMTOP_HOST_LOADER_H
#define MEMTOP_HOST_LOADER_H

#include <stddef.h>

#include "model/host_list.h"

struct host_loader;

/* Starts the threads, loading nothing until given a list; NULL when the
 * threads or the pipe cannot be made (the caller then loads on its own
 * thread). */
struct host_loader *host_loader_start(void);
/* Waits for the loads in progress, stops the threads, frees the loader. */
void host_loader_stop(struct host_loader *loader);

/* The hosts to load from now on (NULL: none); a list given before must
 * stay alive until host_loader_stop(), since a load of one of its hosts
 * may still be running. */
void host_loader_set_list(struct host_loader *loader, struct host_list *list);
/* Loads host `index` of the list next. */
void host_loader_want(struct host_loader *loader, size_t index);

/* Readable when something changed; host_loader_drain() empties it. */
int host_loader_wake_fd(const struct host_loader *loader);
void host_loader_drain(struct host_loader *loader);

#endif
