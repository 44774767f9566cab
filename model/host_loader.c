#include "config.h"

#include "model/host_loader.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LOADER_THREADS 2
#define NOTHING_WANTED SIZE_MAX

struct host_loader {
    pthread_mutex_t lock;
    pthread_cond_t work; /* a list, a wish or the end came */
    struct host_list *list;
    size_t wanted;
    bool prefetching; /* a thread loads a host nobody asked for */
    atomic_bool stopping;
    char *gate;       /* MEMTOP_TEST_LOAD_GATE, or NULL */
    int pipe[2];      /* [0] the caller polls, [1] the threads write */
    pthread_t threads[LOADER_THREADS];
    size_t thread_count;
};

/* One byte: the reader only needs to wake up. A full pipe already will. */
static void loader_notify(struct host_loader *loader)
{
    ssize_t written;
    do
        written = write(loader->pipe[1], "", 1);
    while (written < 0 && errno == EINTR);
}

struct load_watch {
    struct host_loader *loader;
    struct host *host;
};

/* The loaders' progress, as a percent the viewer shows; called on the
 * loading thread (or a thread it started: the percent is atomic). */
static void loader_progress(void *context, uint64_t done, uint64_t total)
{
    struct load_watch *watch = context;
    int percent = total ? (int)(done * 99 / total) : 0;
    if (atomic_exchange_explicit(&watch->host->percent, percent, memory_order_relaxed) != percent)
        loader_notify(watch->loader);
}

/* The next host for this thread, claimed; NULL when there is none now.
 * Called with the lock held. */
static struct host *loader_pick(struct host_loader *loader, bool *prefetch)
{
    struct host_list *list = loader->list;
    *prefetch = false;
    if (!list)
        return NULL;
    if (loader->wanted < list->count && host_claim(&list->hosts[loader->wanted]))
        return &list->hosts[loader->wanted];
    if (loader->prefetching)
        return NULL;
    for (size_t i = 0; i < list->count; i++) {
        if (host_claim(&list->hosts[i])) {
            *prefetch = true;
            return &list->hosts[i];
        }
    }
    return NULL;
}

/* The tests' gate (see host_loader.h): waits until its file exists or
 * the loader stops. */
static void loader_wait_for_gate(struct host_loader *loader)
{
    const struct timespec pause = {0, 20 * 1000 * 1000};
    while (loader->gate && access(loader->gate, F_OK) != 0 && !atomic_load(&loader->stopping))
        nanosleep(&pause, NULL);
}

static void *loader_thread(void *argument)
{
    struct host_loader *loader = argument;
    pthread_mutex_lock(&loader->lock);
    while (!loader->stopping) {
        bool prefetch;
        struct host *host = loader_pick(loader, &prefetch);
        if (!host) {
            pthread_cond_wait(&loader->work, &loader->lock);
            continue;
        }
        loader->prefetching = loader->prefetching || prefetch;
        pthread_mutex_unlock(&loader->lock);
        loader_notify(loader); /* a host is loading: the lists say so */
        loader_wait_for_gate(loader);
        struct load_watch watch = {loader, host};
        struct load_options options = {.progress = loader_progress, .progress_context = &watch};
        host_load_claimed(host, &options);
        loader_notify(loader);
        pthread_mutex_lock(&loader->lock);
        if (prefetch)
            loader->prefetching = false;
        /* The other thread may be waiting for the prefetch slot. */
        pthread_cond_broadcast(&loader->work);
    }
    pthread_mutex_unlock(&loader->lock);
    return NULL;
}

static bool pipe_setup(int fds[2])
{
    if (pipe(fds) != 0)
        return false;
    for (int i = 0; i < 2; i++) {
        int flags = fcntl(fds[i], F_GETFL);
        if (flags < 0 || fcntl(fds[i], F_SETFL, flags | O_NONBLOCK) != 0 ||
            fcntl(fds[i], F_SETFD, FD_CLOEXEC) != 0) {
            close(fds[0]);
            close(fds[1]);
            return false;
        }
    }
    return true;
}

struct host_loader *host_loader_start(void)
{
    struct host_loader *loader = calloc(1, sizeof *loader);
    if (!loader)
        return NULL;
    loader->wanted = NOTHING_WANTED;
    atomic_init(&loader->stopping, false);
    const char *gate = getenv("MEMTOP_TEST_LOAD_GATE");
    if (gate && gate[0] && !(loader->gate = strdup(gate))) {
        free(loader);
        return NULL;
    }
    if (!pipe_setup(loader->pipe)) {
        free(loader->gate);
        free(loader);
        return NULL;
    }
    pthread_mutex_init(&loader->lock, NULL);
    pthread_cond_init(&loader->work, NULL);
    for (size_t i = 0; i < LOADER_THREADS; i++) {
        if (pthread_create(&loader->threads[i], NULL, loader_thread, loader) != 0)
            break;
        loader->thread_count++;
    }
    if (loader->thread_count == 0) {
        host_loader_stop(loader);
        return NULL;
    }
    return loader;
}

void host_loader_stop(struct host_loader *loader)
{
    if (!loader)
        return;
    pthread_mutex_lock(&loader->lock);
    loader->stopping = true;
    pthread_cond_broadcast(&loader->work);
    pthread_mutex_unlock(&loader->lock);
    for (size_t i = 0; i < loader->thread_count; i++)
        pthread_join(loader->threads[i], NULL);
    pthread_cond_destroy(&loader->work);
    pthread_mutex_destroy(&loader->lock);
    close(loader->pipe[0]);
    close(loader->pipe[1]);
    free(loader->gate);
    free(loader);
}

void host_loader_set_list(struct host_loader *loader, struct host_list *list)
{
    pthread_mutex_lock(&loader->lock);
    loader->list = list;
    loader->wanted = NOTHING_WANTED;
    pthread_cond_broadcast(&loader->work);
    pthread_mutex_unlock(&loader->lock);
}

void host_loader_want(struct host_loader *loader, size_t index)
{
    pthread_mutex_lock(&loader->lock);
    loader->wanted = index;
    pthread_cond_broadcast(&loader->work);
    pthread_mutex_unlock(&loader->lock);
}

int host_loader_wake_fd(const struct host_loader *loader)
{
    return loader->pipe[0];
}

void host_loader_drain(struct host_loader *loader)
{
    char bytes[256];
    while (read(loader->pipe[0], bytes, sizeof bytes) > 0)
        ;
}
