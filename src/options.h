/* options: the command line, parsed into a struct main acts on.
 * GNU-style long options through getopt_long. Called by main only. It
 * must not open files or print (except the help text, which main asks
 * for): a bad option comes back as a one-line reason. */
#ifndef MEMTOP_OPTIONS_H
#define MEMTOP_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/query/compare.h"
#include "model/query/gate.h"
#include "report/export.h"

enum run_mode {
    RUN_VIEWER,  /* the full-screen viewer (default) */
    RUN_SUMMARY, /* --summary [--json] */
    RUN_EXPORT,  /* --export VIEW: CSV to stdout or -o FILE */
    RUN_HELP,
    RUN_VERSION,
    RUN_LIST_KEYS, /* --list-keys[=markdown|man]: the key table */
    RUN_LIST,      /* --list [--json] LOGDIR: the runs, hosts and tools */
};

/* --export and the options that only go with it. */
struct export_options {
    bool requested;         /* --export was given */
    enum export_view view;
    const char *allocator;  /* --allocator ID; NULL: the first (summary: all) */
    bool has_from, has_to;
    int64_t from_ps;        /* --from MS; INT64_MIN when absent */
    int64_t to_ps;          /* --to MS; INT64_MAX when absent */
    const char *filter;     /* --filter TEXT; NULL: none */
    bool has_sort;          /* --sort COLUMN[:asc|:desc] */
    enum table_column sort_column;
    bool sort_descending;
    bool has_at;            /* --at MS: the allocations live then, not at the peak */
    int64_t at_ps;
    bool has_since;         /* --since MS0 (with --at): only those allocated after MS0 */
    int64_t since_ps;
    const char *output;     /* -o FILE; NULL or "-": standard output */
    bool force;             /* --force: -o may replace FILE */
    int64_t min_bytes;      /* --min-size (options.min_bytes), for the allocations */
    bool has_group_by;      /* --group-by KEY[:SCOPE] */
    enum row_group_key group_by;
    const char *group_scope; /* "" for the top */
};

/* The CI gates (issue 24): with --summary [--json], exit status 3 when
 * one is crossed. */
struct gate_options {
    bool fail_over;           /* --fail-over SIZE|PCT */
    struct gate_limit over;
    const char *over_text;    /* as given, for the lines that name it */
    bool fail_growth;         /* --fail-growth PCT (with --compare) */
    double growth_percent;
    const char *growth_text;
};

#define OPTIONS_PAIRS_MAX 16
#define OPTIONS_PAIR_SIZE 512

struct options {
    enum run_mode mode;
    struct gate_options gates;
    bool json;     /* --json, with --summary */
    bool ascii;    /* --ascii: no UTF-8 glyphs */
    bool no_color; /* --no-color or NO_COLOR in the environment */
    bool mouse;    /* --mouse: opt-in, so text selection keeps working */
    bool no_settings; /* --no-settings: the viewer neither reads nor writes them */
    bool follow;      /* --follow: the viewer watches the log directory */
    bool peaks;       /* --list --peaks: each host read for its peak */
    bool show_usage;  /* a failed parse that wants the usage lines printed */
    bool list_keys_man; /* --list-keys=man: roff for the man page, not Markdown */
    bool has_top;  /* --top N was given (it goes with --summary) */
    size_t top_rows; /* --top N: the largest rows a summary lists (default 10) */
    bool has_min_size; /* --min-size BYTES (with --summary or --export allocations) */
    int64_t min_bytes; /* rows holding less are left out; 0: none */
    struct export_options export;
    const char *run;  /* --run NAME: that run of a log directory (default: the newest) */
    const char *run_new; /* a second --run, with --compare: NEW's run (run is BASE's) */
    const char *host; /* --host NAME: that host (batch: only it; viewer: it first) */
    /* --compare, or --export compare: BASE then NEW (paths[0], paths[1]:
     * two files, or two directories), or one log directory with --run
     * twice (run, run_new); with --summary, --export compare or the viewer. */
    bool compare;
    /* --pair BASE_ID=NEW_ID (with --compare), split into pair_text. */
    struct allocator_pairing pairings[OPTIONS_PAIRS_MAX];
    size_t pairing_count;
    char pair_text[OPTIONS_PAIRS_MAX][OPTIONS_PAIR_SIZE];
    char **paths;  /* FILE or DIR arguments, pointing into argv */
    size_t path_count;
};

#define OPTIONS_ERROR_SIZE 640

/* false on bad usage, with a one-line reason in `error`. */
bool options_parse(int argc, char **argv, struct options *options, char *error,
                   size_t error_size);

/* Writes --help to out: 0, or the errno of a write that failed. */
int options_print_help(FILE *out);
/* The three usage lines. */
void options_print_usage(FILE *out);

#endif
