/* frame_bench: the time to compute the memory chart's columns, for every
 * zoom level, with the timeline's range-maximum index (what the viewer
 * does) and with a scan of the window's snapshots per frame (the plain
 * way, which the index replaces; at full zoom it scans the whole
 * timeline).
 *
 *     frame_bench FILE [WIDTH]
 *
 * Loads FILE, takes its longest timeline, and for windows of 1/1, 1/4,
 * 1/16, ... of the time range (down to about 2 snapshots per column on
 * average), at 9 positions each, times chart_columns_compute() for WIDTH (default 200)
 * columns. Prints a line per zoom level, then two lines for scripts:
 *
 *     indexed_max_ms X   (the slowest zoom level's median frame, indexed)
 *     scan_full_ms Y     (the median frame at full zoom, scanning) */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "model/load.h"
#include "model/timeline.h"
#include "ui/chart_columns.h"

#define POSITIONS 9

static double now_seconds(void)
{
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return (double)time.tv_sec + (double)time.tv_nsec / 1e9;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median seconds per frame over repeated frames (at least 3, about 20 ms
 * in all); `sink` keeps the work from being optimised away. */
static double time_frame(const struct snapshot_columns *timeline,
                         const struct chart_window *window, struct chart_column *columns,
                         int64_t *sink)
{
    double samples[64];
    int count = 0;
    double started = now_seconds();
    while (count < 64 && (count < 3 || now_seconds() - started < 0.02)) {
        double start = now_seconds();
        chart_columns_compute(timeline, window, columns);
        samples[count++] = now_seconds() - start;
        *sink += columns[window->width / 2].in_use;
    }
    qsort(samples, (size_t)count, sizeof samples[0], compare_doubles);
    return samples[count / 2];
}

static const struct snapshot_columns *longest_timeline(const struct profile *profile)
{
    const struct snapshot_columns *longest = &profile->allocators[0].timeline;
    for (size_t i = 1; i < profile->allocator_count; i++)
        if (profile->allocators[i].timeline.count > longest->count)
            longest = &profile->allocators[i].timeline;
    return longest;
}

/* Frames at POSITIONS windows of `span` picoseconds: the slowest median. */
static double time_zoom(const struct snapshot_columns *timeline, int64_t from, int64_t to,
                        int64_t span, int width, struct chart_column *columns, int64_t *sink)
{
    double slowest = 0;
    for (int position = 0; position < POSITIONS; position++) {
        int64_t start = from + (int64_t)((double)(to - from - span) * position / (POSITIONS - 1));
        struct chart_window window = {start, start + span, width};
        double seconds = time_frame(timeline, &window, columns, sink);
        if (seconds > slowest)
            slowest = seconds;
    }
    return slowest;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fputs("usage: frame_bench FILE [WIDTH]\n", stderr);
        return 2;
    }
    int width = argc == 3 ? atoi(argv[2]) : 200;
    struct profile *profile;
    struct load_error error;
    if (width < 1 || profile_load(argv[1], NULL, &profile, &error) != LOAD_OK) {
        fprintf(stderr, "frame_bench: %s: %s\n", argv[1], width < 1 ? "bad width" : error.message);
        return 2;
    }
    /* The timeline is the profile's; the bench only hides its index a while. */
    struct snapshot_columns *timeline = (struct snapshot_columns *)longest_timeline(profile);
    struct chart_column *columns = calloc((size_t)width, sizeof *columns);
    if (!columns || timeline->count < 2)
        return 1;
    int64_t from = snapshot_columns_time(timeline, 0),
            to = snapshot_columns_time(timeline, timeline->count - 1);
    int64_t sink = 0;
    double indexed_max = 0, scan_full = 0;
    printf("%zu snapshots, %d columns; slowest of %d windows per zoom, median frame\n",
           timeline->count, width, POSITIONS);
    printf("%8s %14s %12s %12s\n", "zoom", "snapshots", "indexed ms", "scan ms");
    fflush(stdout);
    for (int64_t zoom = 1; (to - from) / zoom > 0; zoom *= 4) {
        int64_t span = (to - from) / zoom;
        size_t average = timeline->count / (size_t)zoom;
        if (zoom > 1 && average < (size_t)width * 2)
            break;
        double indexed = time_zoom(timeline, from, to, span, width, columns, &sink);
        struct timeline_index *index = timeline->index;
        timeline->index = NULL;
        double scan = time_zoom(timeline, from, to, span, width, columns, &sink);
        timeline->index = index;
        printf("%7lldx %14zu %12.3f %12.3f\n", (long long)zoom, average, indexed * 1e3,
               scan * 1e3);
        if (indexed > indexed_max)
            indexed_max = indexed;
        if (zoom == 1)
            scan_full = scan;
    }
    printf("indexed_max_ms %.3f\nscan_full_ms %.3f\n", indexed_max * 1e3, scan_full * 1e3);
    fprintf(stderr, "(checksum %lld)\n", (long long)sink);
    free(columns);
    profile_free(profile);
    return 0;
}
