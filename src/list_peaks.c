/* list_peaks: see list_peaks.h. Up to LIST_PEAKS_THREADS loads at once,
 * each thread taking the next host of one shared counter: a pod's hosts
 * are of a size, and the order the results land in is fixed by index. */
#include "config.h"

#include "src/list_peaks.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/load.h"
#include "model/profile.h"

#define LIST_PEAKS_THREADS 8

struct job {
    const char *path; /* NULL: nothing memtop opens */
    struct logdir_host_peak *result;
};

struct pool {
    struct job *jobs;
    size_t count;
    atomic_size_t next;
};

static void read_one(const struct job *job)
{
    struct logdir_host_peak *result = job->result;
    struct profile *profile = NULL;
    struct load_error error;
    memset(&error, 0, sizeof error);
    result->read = true;
    if (profile_load(job->path, NULL, &profile, &error) != LOAD_OK) {
        result->error = strdup(error.message);
        return;
    }
    for (size_t i = 0; i < profile->allocator_count; i++) {
        const struct allocator_summary *summary = &profile->allocators[i].summary;
        if (i == 0 || summary->peak_bytes > result->peak_bytes) {
            result->peak_bytes = summary->peak_bytes;
            result->capacity_bytes = summary->capacity_bytes;
        }
    }
    result->loaded = true;
    profile_free(profile);
}

static void *pool_work(void *context)
{
    struct pool *pool = context;
    for (;;) {
        size_t index = atomic_fetch_add(&pool->next, 1);
        if (index >= pool->count)
            return NULL;
        if (pool->jobs[index].path)
            read_one(&pool->jobs[index]);
    }
}

bool list_peaks_read(const struct logdir *logdir, struct logdir_peaks *peaks)
{
    memset(peaks, 0, sizeof *peaks);
    size_t count = 0;
    for (size_t r = 0; r < logdir->run_count; r++)
        count += logdir->runs[r].host_count;
    peaks->hosts = calloc(count ? count : 1, sizeof *peaks->hosts);
    struct pool pool = {calloc(count ? count : 1, sizeof *pool.jobs), count, 0};
    if (!peaks->hosts || !pool.jobs) {
        free(pool.jobs);
        list_peaks_free(peaks);
        return false;
    }
    peaks->count = count;
    size_t at = 0;
    for (size_t r = 0; r < logdir->run_count; r++) {
        for (size_t h = 0; h < logdir->runs[r].host_count; h++, at++) {
            const struct run_file *source = run_host_source(&logdir->runs[r].hosts[h]);
            pool.jobs[at] = (struct job){source && source->format ? source->path : NULL,
                                         &peaks->hosts[at]};
        }
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t threads = cores > 0 && (size_t)cores < LIST_PEAKS_THREADS ? (size_t)cores
                                                                     : LIST_PEAKS_THREADS;
    pthread_t started[LIST_PEAKS_THREADS];
    size_t running = 0;
    for (size_t i = 0; i < threads && i < count; i++)
        running += pthread_create(&started[running], NULL, pool_work, &pool) == 0;
    pool_work(&pool); /* this thread too: none may have started */
    for (size_t i = 0; i < running; i++)
        pthread_join(started[i], NULL);
    free(pool.jobs);
    return true;
}

void list_peaks_free(struct logdir_peaks *peaks)
{
    for (size_t i = 0; peaks->hosts && i < peaks->count; i++)
        free(peaks->hosts[i].error);
    free(peaks->hosts);
    memset(peaks, 0, sizeof *peaks);
}
