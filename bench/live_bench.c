/* live_bench: what a live-allocations query costs on a big timeline, and
 * what its checkpoints weigh next to the timeline's columns.
 *
 *     live_bench FILE [INTERVAL] [QUERIES]
 *
 * Loads FILE, takes its longest timeline, builds the live index
 * (checkpoints at least INTERVAL snapshots apart; default the model's),
 * then asks for the rows live at QUERIES (default 200) random times
 * across the timeline, and for what grew over the tenth of the timeline
 * before each. Prints lines for people on standard error and, for
 * scripts, on standard output:
 *
 *     live_snapshots N            (snapshots of the timeline)
 *     live_build_ms X             (building the index, once)
 *     live_query_median_ms X      (rows live at a time)
 *     live_query_max_ms X
 *     live_grown_max_ms X         (what grew)
 *     live_rows_max N             (rows of the biggest answer)
 *     live_column_bytes N         (the timeline's columns)
 *     live_checkpoint_bytes N     (the index's checkpoints)
 *     live_checkpoint_percent X   (the second over the first)
 *
 * The targets (issue 13): a query <= 20 ms on 10M snapshots, checkpoints
 * <= 25% of the columns. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "model/query/live_set.h"
#include "model/load.h"

static double now_ms(void)
{
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return (double)time.tv_sec * 1e3 + (double)time.tv_nsec / 1e6;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static uint64_t random_next(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Bytes of every column of the timeline (what loading it costs). */
static size_t column_bytes(const struct snapshot_columns *t)
{
    size_t per_snapshot = sizeof *t->time_ps + sizeof *t->stack_bytes + sizeof *t->heap_bytes +
                          sizeof *t->free_bytes + sizeof *t->fragmentation +
                          sizeof *t->peak_bytes_in_use + sizeof *t->activity +
                          sizeof *t->requested_bytes + sizeof *t->allocation_bytes +
                          sizeof *t->address + sizeof *t->step_id + sizeof *t->op_name +
                          sizeof *t->region_type + sizeof *t->data_type + sizeof *t->tensor_shape;
    return t->count * per_snapshot;
}

static const struct allocator *longest_allocator(const struct profile *profile)
{
    const struct allocator *longest = &profile->allocators[0];
    for (size_t i = 1; i < profile->allocator_count; i++)
        if (profile->allocators[i].timeline.count > longest->timeline.count)
            longest = &profile->allocators[i];
    return longest;
}

struct timings {
    double *at;
    double *grown;
    size_t rows_max;
};

/* Times `queries` queries of each kind at random times of the timeline. */
static int run_queries(struct live_index *index, const struct snapshot_columns *timeline,
                       size_t queries, struct timings *timings)
{
    int64_t first = snapshot_columns_time(timeline, 0),
            last = snapshot_columns_time(timeline, timeline->count - 1);
    int64_t span = last - first + 1;
    uint64_t state = 42;
    struct live_rows rows = {0};
    for (size_t q = 0; q < queries; q++) {
        int64_t time = first + (int64_t)(random_next(&state) % (uint64_t)span);
        double start = now_ms();
        if (live_index_rows_at(index, time, &rows) != LIVE_OK)
            return 1;
        timings->at[q] = now_ms() - start;
        if (rows.count > timings->rows_max)
            timings->rows_max = rows.count;
        start = now_ms();
        if (live_index_rows_grown(index, time - span / 10, time, &rows) != LIVE_OK)
            return 1;
        timings->grown[q] = now_ms() - start;
    }
    live_rows_free(&rows);
    qsort(timings->at, queries, sizeof *timings->at, compare_doubles);
    qsort(timings->grown, queries, sizeof *timings->grown, compare_doubles);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: live_bench FILE [INTERVAL] [QUERIES]\n");
        return 2;
    }
    size_t interval = argc > 2 ? (size_t)strtoull(argv[2], NULL, 10) : 0;
    size_t queries = argc > 3 ? (size_t)strtoull(argv[3], NULL, 10) : 200;
    if (queries == 0)
        queries = 1;
    struct profile *profile = NULL;
    struct load_error error;
    if (profile_load(argv[1], NULL, &profile, &error) != LOAD_OK) {
        fprintf(stderr, "live_bench: %s: %s\n", argv[1], error.message);
        return 1;
    }
    const struct allocator *allocator = longest_allocator(profile);
    const struct snapshot_columns *timeline = &allocator->timeline;
    struct live_index *index;
    double start = now_ms();
    enum live_status status = live_index_build(profile, allocator, interval, &index);
    double build_ms = now_ms() - start;
    if (status != LIVE_OK || timeline->count == 0) {
        fprintf(stderr, "live_bench: %s: %s\n", argv[1],
                status != LIVE_OK ? live_status_message(status) : "empty timeline");
        profile_free(profile);
        return 1;
    }
    struct timings timings = {malloc(queries * sizeof(double)), malloc(queries * sizeof(double)), 0};
    if (!timings.at || !timings.grown || run_queries(index, timeline, queries, &timings) != 0) {
        fprintf(stderr, "live_bench: out of memory\n");
        return 1;
    }
    size_t columns = column_bytes(timeline), checkpoints = live_index_checkpoint_bytes(index);
    fprintf(stderr, "%zu snapshots, %zu checkpoints: built in %.0f ms\n", timeline->count,
            live_index_checkpoint_count(index), build_ms);
    fprintf(stderr, "rows live at a time: median %.3f ms, max %.3f ms (%zu queries, up to %zu rows)\n",
            timings.at[queries / 2], timings.at[queries - 1], queries, timings.rows_max);
    fprintf(stderr, "what grew: median %.3f ms, max %.3f ms\n", timings.grown[queries / 2],
            timings.grown[queries - 1]);
    fprintf(stderr, "checkpoints %.1f MB for %.1f MB of columns (%.2f%%)\n", checkpoints / 1e6,
            columns / 1e6, 100.0 * (double)checkpoints / (double)columns);
    printf("live_snapshots %zu\n", timeline->count);
    printf("live_build_ms %.1f\n", build_ms);
    printf("live_query_median_ms %.3f\n", timings.at[queries / 2]);
    printf("live_query_max_ms %.3f\n", timings.at[queries - 1]);
    printf("live_grown_max_ms %.3f\n", timings.grown[queries - 1]);
    printf("live_rows_max %zu\n", timings.rows_max);
    printf("live_column_bytes %zu\n", columns);
    printf("live_checkpoint_bytes %zu\n", checkpoints);
    printf("live_checkpoint_percent %.3f\n", 100.0 * (double)checkpoints / (double)columns);
    free(timings.at);
    free(timings.grown);
    live_index_free(index);
    profile_free(profile);
    return 0;
}
