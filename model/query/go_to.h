/* go_to: what a person typed to say where to go on a timeline ("412.3
 * ms", "1.5 s", "250 us", "step 5", "peak", "oom"), read into a place.
 * Called by the viewer's `g` prompt (ui/go_to_prompt.c); the viewer
 * finds the time a step's peak or an OOM is at. Must not: read a profile
 * (the caller resolves the place), or take a unit it does not know (an
 * unknown word is an error, never a guess). */
#ifndef MEMTOP_GO_TO_H
#define MEMTOP_GO_TO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum go_to_kind {
    GO_TO_TIME, /* time_ps */
    GO_TO_STEP, /* step: that step's peak */
    GO_TO_PEAK, /* the allocator's peak */
    GO_TO_OOM,  /* where memory ran out */
};

struct go_to {
    enum go_to_kind kind;
    int64_t time_ps;
    int64_t step;
};

/* Reads `text` (spaces around and between allowed; a bare number is
 * milliseconds, as the chart's axis counts); false with why in error. */
bool go_to_parse(const char *text, struct go_to *place, char *error, size_t error_size);

#endif
