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

/* What --list --peaks found of one host (src/list_peaks.h reads them). */
struct logdir_host_peak {
    bool read;   /* a load was tried (the host has a file memtop opens) */
    bool loaded; /* and it loaded: peak_bytes and capacity_bytes hold */
    int64_t peak_bytes, capacity_bytes; /* of the allocator peaking highest */
    char *error; /* why it did not load (malloc'd), else NULL */
};
/* One per host of every run, run by run, hosts in each run's order. */
struct logdir_peaks {
    struct logdir_host_peak *hosts;
    size_t count;
};

/* Runs of more hosts than this are listed as a table, a row a host. */
#define LOGDIR_REPORT_TABLE_HOSTS 16

/* run_errors (NULL, or one per run, NULL for a run that loads or was not
 * tried): why a run did not load, said under it ("✗ did not load: ...";
 * JSON: "load_error"). */
/* peaks (NULL without --peaks): each host's peak and % of capacity
 * (JSON: "peak_bytes", "capacity_bytes", "load_error"). */
void logdir_report_text(FILE *out, const struct logdir *logdir, char *const *run_errors,
                        const struct logdir_peaks *peaks);
/* Returns 0 when everything reached out, else the errno of the failure. */
int logdir_report_json(FILE *out, const struct logdir *logdir, char *const *run_errors,
                       const struct logdir_peaks *peaks);

/* "run NAME (DATE)\n\n" before the text summaries of a run's hosts. */
void logdir_report_run_heading(FILE *out, const char *run);

#endif
