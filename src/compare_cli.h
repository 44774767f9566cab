/* compare_cli: two profiles compared on the command line: the loading
 * of BASE and NEW that every form needs first (the viewer's too), then
 * --summary [--json] --compare BASE NEW (report/compare_report.h) and
 * --export compare [--allocator ID] BASE NEW (the op table as CSV), with
 * --pair's pairings checked against both; and the same of two runs
 * compared host by host (src/input.h's compared_runs: a block, an entry
 * or the rows of each host in both runs), and the hosts the viewer steps
 * through. Called by main with the input it opened (two files: hosts 0
 * and 1 are BASE and NEW). Prints through src/cli_output.h and returns
 * the exit status; the report itself goes to standard output or -o's
 * file. */
#ifndef MEMTOP_COMPARE_CLI_H
#define MEMTOP_COMPARE_CLI_H

#include <stdbool.h>

#include "report/summary_report.h"
#include "src/input.h"
#include "src/options.h"

/* Loads BASE and NEW, saying on stderr why one failed (and, with
 * warnings, what each load found odd); EXIT_OK when both loaded. */
int compare_cli_load(struct host_list *hosts, bool warnings);

/* Each --pair's ids named in BASE and NEW (both loaded): EXIT_OK, or
 * EXIT_BAD_INPUT after saying which id a profile lacks and what it has. */
int compare_cli_check_pairings(const struct profile *base, const struct profile *new,
                               const struct options *options);

int compare_cli_summary(struct source *input, const struct options *options,
                        const struct summary_report_options *report);
int compare_cli_export(struct source *input, const struct options *options);

/* The same of two runs compared host by host (src/input.h). */
int compare_cli_runs_summary(struct compared_runs *runs, const struct options *options,
                             const struct summary_report_options *report);
int compare_cli_runs_export(struct compared_runs *runs, const struct options *options);
/* For the viewer: the files of the hosts in both runs, BASE then NEW of
 * each (paths holds 2 x match_count, names match_count), how many in
 * *count, and a line for the status line. */
int compare_cli_runs_hosts(struct compared_runs *runs, const char **paths, const char **names,
                           size_t *count, char *note, size_t note_size);

#endif
