/* logdir_report: `memtop --list LOGDIR`, what XProf's EnumSessions
 * returns for a repository (a run is its session_id, a run's tools its
 * available_tools) and more: each run's date, hosts, their files and
 * the file memtop opens for each; for people (text) and scripts (JSON,
 * through report/json_writer.h). Also the heading of batch reports on a
 * run of a log directory.
 * Called by: main. It writes only what model/logdir.h found, escaped as
 * every report is (format_safe_text, JSON strings); no loading, no exit
 * codes.
 *
 * JSON: {"log_directory": PATH, "runs": [{"run", "path", "date" (null
 * unless the folder is a timestamp), "modified" (seconds), "error" (only
 * when the directory could not be read), "load_error" (only when the run
 * was tried and did not load), "tools": [...], "hosts": [{"host",
 * "file" (what memtop opens; null: no memory events), "readable" (a
 * format of memtop reads it), "tools", "files": [{"file", "suffix" (XProf's,
 * or null), "format" (memtop's, or null), "memory", "tools"}]}]}]}. */
#ifndef MEMTOP_LOGDIR_REPORT_H
#define MEMTOP_LOGDIR_REPORT_H

#include <stdio.h>

#include "model/logdir.h"

/* run_errors (NULL, or one per run, NULL for a run that loads or was not
 * tried): why a run did not load, said under it ("✗ did not load: ...";
 * JSON: "load_error"). */
void logdir_report_text(FILE *out, const struct logdir *logdir, char *const *run_errors);
/* Returns 0 when everything reached out, else the errno of the failure. */
int logdir_report_json(FILE *out, const struct logdir *logdir, char *const *run_errors);

/* "run NAME (DATE)\n\n" before the text summaries of a run's hosts. */
void logdir_report_run_heading(FILE *out, const char *run);

#endif
