/* replay: an existing XSpace file shown to the oracle (generate_xspace
 * --replay FILE --expect OUT), to check the oracle against real captures.
 * Decodes; never writes. */
#ifndef XSPACE_GEN_REPLAY_H
#define XSPACE_GEN_REPLAY_H

#include <stddef.h>

#include "tests/formats/xspace/xspace_gen/xspace_writer.h"

struct replay {
    struct plane **planes;
    size_t count;
};

/* Reads FILE (plain, not gzip) and calls the observer for every event
 * and plane, in file order. Ends the program on malformed input. */
void replay_file(struct replay *replay, const char *path, const struct xspace_observer *observer);
void replay_free(struct replay *replay);

#endif
