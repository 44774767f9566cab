/* ui: the full-screen viewer. Owns the terminal from ui_run() until it
 * returns; reads the profiles through the model and never changes them.
 * Called by main (src/); ui.c runs the loop and draws each frame: the
 * header, the panes of the pane table where the layout puts them, the
 * overlay and the status line. Prints only when it cannot run: one line
 * on stderr saying why the terminal could not be used, or that memory ran
 * out before the first frame. */
#ifndef MEMTOP_UI_H
#define MEMTOP_UI_H

#include <stdbool.h>

#include "model/query/compare.h"
#include "model/host_list.h"
#include "model/logdir.h"

struct ui_options {
    bool ascii;    /* ASCII drawing even in a UTF-8 locale */
    bool no_color;
    bool mouse;    /* opt-in mouse reporting */
    /* Standard input carried a profile: keys come from /dev/tty. */
    bool keys_from_terminal;
    /* --no-settings: neither read nor write the remembered settings. */
    bool no_settings;
    /* --follow: watch the log directory (or the files) and reload. */
    bool follow;
};

/* What the viewer opens. */
struct ui_session {
    struct host_list *hosts; /* the run (or files) shown first; main's */
    size_t first_host;       /* the host opened first */
    /* The log directory's runs (a runs list), or NULL; hosts is run
     * run_index of it. The viewer opens the others' hosts itself. */
    const struct logdir *logdir;
    size_t run_index;
    /* --compare: hosts holds BASE and NEW, both loaded; the viewer
     * compares them instead of showing one host. */
    bool compare;
    /* --pair BASE_ID=NEW_ID (with compare): allocators paired by hand. */
    const struct allocator_pairing *pairings;
    size_t pairing_count;
    /* A line for the status line once the viewer opens (two runs
     * compared: which host is shown), or NULL. */
    const char *note;
    /* Two runs compared host by host: hosts holds BASE then NEW of each
     * of compare_hosts matched hosts, named compare_host_names; the
     * header says compare_runs ("RUN_A vs RUN_B"). 0: two files. */
    size_t compare_hosts;
    const char *const *compare_host_names;
    const char *compare_runs;
    /* Why runs of logdir did not load, one message per run (NULL: not
     * tried, or fine), or NULL; and the run that was to open and did
     * not (run_count: none), which the status line names at the start. */
    char *const *run_errors;
    size_t failed_run;
};

/* Runs the viewer over the hosts until the user quits. Returns the exit
 * status for main: 0 on a normal quit, 1 when the terminal failed. */
int ui_run(const struct ui_session *session, const struct ui_options *options);

#endif
