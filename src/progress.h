/* progress: a bar on standard error while a batch mode (--summary) loads a
 * big profile:
 *
 *     loading worker-3 [##########..........]  52%
 *
 * Only when standard error is a terminal, and only once the load has taken
 * PROGRESS_DELAY_SECONDS: a quick load prints nothing, and neither does a
 * redirected one, so scripts and logs never see it. Called by main around
 * each batch load (the viewer shows progress in its status line); it must
 * not touch standard output, which carries the report. */
#ifndef MEMTOP_PROGRESS_H
#define MEMTOP_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define PROGRESS_DELAY_SECONDS 0.3

struct progress_bar {
    FILE *out;
    bool enabled; /* out is a terminal */
    bool shown;   /* something is on the line now */
    char name[64];
    double started;
    int percent; /* last drawn, -1 before */
};

/* For one load of the profile called `name` (a host or file name). */
void progress_bar_start(struct progress_bar *bar, FILE *out, const char *name);
/* A load_progress_fn (model/load.h): `context` is the progress_bar. */
void progress_bar_update(void *context, uint64_t done, uint64_t total);
/* Clears the bar's line, so what is printed next starts clean. */
void progress_bar_finish(struct progress_bar *bar);

#endif
