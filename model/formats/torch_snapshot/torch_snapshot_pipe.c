/* torch_snapshot_pipe: the replay of a big snapshot's trace entries on a
 * thread of its own (see torch_snapshot_internal.h).
 *
 * The pickle reader's thread reads each batch of entries out of the dicts
 * (which it recycles after) into a slot of a ring, with all it needs from
 * the load's shared tables (the op name), and goes on decoding; the
 * replay thread takes the slots in order and replays them into their
 * traces (torch_snapshot_trace.c: the open allocations, the timeline
 * columns and their fresh pages, most of a trace entry's cost after the
 * pickle's). The replay thread alone touches the traces while the pipe
 * runs; the reader's thread alone the rest of the load. Same result as
 * the replay inline, in the same order.
 * Called by torch_snapshot.c (start, finish) and torch_snapshot_entries.c
 * (slot, push, drain). Must not: read the pickle, or run for a small
 * input (a thread costs more than it saves there). */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>

#include "model/formats/torch_snapshot/torch_snapshot_internal.h"
#include "model/load_internal.h"

/* Below this many bytes the replay stays inline. */
#define PIPE_THRESHOLD ((size_t)16 << 20)
#define PIPE_SLOTS 8

static size_t pipe_threshold = PIPE_THRESHOLD;

void load_torch_snapshot_set_pipeline_threshold(size_t threshold)
{
    pipe_threshold = threshold ? threshold : PIPE_THRESHOLD;
}

struct ts_pipe {
    struct ts_load *load;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    struct ts_batch *slots; /* PIPE_SLOTS */
    size_t pushed, replayed; /* batches so far: slot = count % PIPE_SLOTS */
    bool done, failed;
};

static void *pipe_replay(void *argument)
{
    struct ts_pipe *pipe = argument;
    pthread_mutex_lock(&pipe->lock);
    for (;;) {
        while (pipe->replayed == pipe->pushed && !pipe->done)
            pthread_cond_wait(&pipe->changed, &pipe->lock);
        if (pipe->replayed == pipe->pushed)
            break;
        const struct ts_batch *batch = &pipe->slots[pipe->replayed % PIPE_SLOTS];
        bool failed = pipe->failed;
        pthread_mutex_unlock(&pipe->lock);
        /* After a failure the rest is only let through: the reader stops. */
        bool ok = failed || ts_replay_batch(pipe->load, batch);
        pthread_mutex_lock(&pipe->lock);
        pipe->failed |= !ok;
        pipe->replayed++;
        pthread_cond_broadcast(&pipe->changed);
    }
    pthread_mutex_unlock(&pipe->lock);
    return NULL;
}

void ts_pipe_start(struct ts_load *load)
{
    if (!load->input || load->input->size < pipe_threshold)
        return;
    struct ts_pipe *pipe = calloc(1, sizeof *pipe);
    if (!pipe)
        return;
    pipe->load = load;
    pipe->slots = malloc(PIPE_SLOTS * sizeof *pipe->slots);
    bool lock = pipe->slots && pthread_mutex_init(&pipe->lock, NULL) == 0;
    bool changed = lock && pthread_cond_init(&pipe->changed, NULL) == 0;
    if (changed && pthread_create(&pipe->thread, NULL, pipe_replay, pipe) == 0) {
        load->pipe = pipe;
        return;
    }
    if (changed)
        pthread_cond_destroy(&pipe->changed);
    if (lock)
        pthread_mutex_destroy(&pipe->lock);
    free(pipe->slots);
    free(pipe);
}

struct ts_batch *ts_pipe_slot(struct ts_pipe *pipe)
{
    pthread_mutex_lock(&pipe->lock);
    while (pipe->pushed - pipe->replayed == PIPE_SLOTS && !pipe->failed)
        pthread_cond_wait(&pipe->changed, &pipe->lock);
    struct ts_batch *slot = pipe->failed ? NULL : &pipe->slots[pipe->pushed % PIPE_SLOTS];
    pthread_mutex_unlock(&pipe->lock);
    return slot;
}

void ts_pipe_push(struct ts_pipe *pipe)
{
    pthread_mutex_lock(&pipe->lock);
    pipe->pushed++;
    pthread_cond_broadcast(&pipe->changed);
    pthread_mutex_unlock(&pipe->lock);
}

void ts_pipe_drain(struct ts_pipe *pipe)
{
    pthread_mutex_lock(&pipe->lock);
    while (pipe->replayed != pipe->pushed)
        pthread_cond_wait(&pipe->changed, &pipe->lock);
    pthread_mutex_unlock(&pipe->lock);
}

bool ts_pipe_finish(struct ts_load *load)
{
    struct ts_pipe *pipe = load->pipe;
    if (!pipe)
        return true;
    pthread_mutex_lock(&pipe->lock);
    pipe->done = true;
    pthread_cond_broadcast(&pipe->changed);
    pthread_mutex_unlock(&pipe->lock);
    pthread_join(pipe->thread, NULL);
    bool ok = !pipe->failed;
    pthread_cond_destroy(&pipe->changed);
    pthread_mutex_destroy(&pipe->lock);
    free(pipe->slots);
    free(pipe);
    load->pipe = NULL;
    return ok;
}
