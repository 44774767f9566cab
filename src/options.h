/* options: the command line, parsed into a struct main acts on.
 * GNU-style long options through getopt_long; no printing here except
 * the help text, which main asks for. */
#ifndef MEMTOP_OPTIONS_H
#define MEMTOP_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum run_mode {
    RUN_VIEWER,  /* the full-screen viewer (default) */
    RUN_SUMMARY, /* --summary [--json] */
    RUN_HELP,
    RUN_VERSION,
};

struct options {
    enum run_mode mode;
    bool json;     /* --json, with --summary */
    bool ascii;    /* --ascii: no UTF-8 glyphs */
    bool no_color; /* --no-color or NO_COLOR in the environment */
    bool mouse;    /* --mouse: opt-in, so text selection keeps working */
    char **paths;  /* FILE or DIR arguments, pointing into argv */
    size_t path_count;
};

#define OPTIONS_ERROR_SIZE 256

/* false on bad usage, with a one-line reason in `error`. */
bool options_parse(int argc, char **argv, struct options *options, char *error,
                   size_t error_size);

void options_print_help(FILE *out);

#endif
