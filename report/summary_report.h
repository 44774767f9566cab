/* summary_report: the --summary output, for people (text: summary_text.c)
 * and for scripts and CI (JSON: summary_json.c, through json_writer);
 * what both list (summary_report.c) is computed once, below them.
 * Called by main, one host at a time. It writes only what the model
 * already computed (no loading, no exit codes) and never prints a
 * profile's text unescaped: the text report through format_safe_text,
 * the JSON one through json_writer's string escaping (the same unsafe
 * set, as \u escapes). */
#ifndef MEMTOP_SUMMARY_REPORT_H
#define MEMTOP_SUMMARY_REPORT_H

#include <stdio.h>

#include "model/query/allocation_table.h"
#include "model/profile.h"

struct json_writer;

/* How many of the largest active allocations a report lists unless told
 * otherwise (--top N). */
#define SUMMARY_REPORT_TOP_ROWS 10

/* What a report holds beyond the summary itself. */
struct summary_report_options {
    size_t top_rows;   /* the largest rows at the peak to list (0: none) */
    int64_t min_bytes; /* of them, only those holding this much (--min-size; 0: all) */
};

/* host may be NULL (a single profile: no "host" key / line). These two
 * list SUMMARY_REPORT_TOP_ROWS rows. */
void summary_report_text(FILE *out, const struct profile *profile, const char *host);
void summary_report_json(FILE *out, const struct profile *profile, const char *host);
/* The text report as options say (NULL: the defaults). */
void summary_report_text_with(FILE *out, const struct profile *profile, const char *host,
                              const struct summary_report_options *options);
/* The entry of a host that failed to load, among several hosts' text
 * reports: "FILE: not loaded (host NAME): MESSAGE", escaped (the message
 * raw, as the loader keeps it). */
void summary_report_text_error(FILE *out, const char *path, const char *host, struct text error);
/* The object for a host that failed to load: host, file and "error" (the
 * load's message, raw: the file's text in it is escaped here), so a
 * script reading the array sees every host it asked for. */
void summary_report_json_error(FILE *out, const char *path, const char *host, struct text error);

/* The same two objects as values of a writer (main puts several hosts
 * in one array). */
void summary_report_json_to(struct json_writer *writer, const struct profile *profile,
                            const char *host, const struct summary_report_options *options);
void summary_report_json_error_to(struct json_writer *writer, const char *path,
                                  const char *host, struct text error);
/* The same with "run" first: the hosts of a run of a log directory. */
void summary_report_json_in_run_to(struct json_writer *writer, const struct profile *profile,
                                   const char *run, const char *host,
                                   const struct summary_report_options *options);
void summary_report_json_error_in_run_to(struct json_writer *writer, const char *path,
                                         const char *run, const char *host, struct text error);

/* The rows both reports list: the allocator's rows at the peak, largest
 * first (ties in the file's order), those holding less than min_bytes
 * left out; false when memory runs out (the table is then empty but
 * valid). The caller frees the table. */
bool summary_report_top_table(struct allocation_table *table, const struct profile *profile,
                              const struct allocator *allocator, int64_t min_bytes);

/* The peak over the capacity (XProf's command-line tool calls it
 * utilisation); NaN when the capacity is unknown (0 or less). */
double summary_report_utilization(const struct allocator_summary *summary);

/* A JSON string literal for arbitrary bytes (json_write_string): quotes,
 * backslashes, controls and bidirectional controls escaped, invalid
 * UTF-8 replaced by U+FFFD, so the output is always valid JSON and safe
 * on a terminal whatever the profile holds. */
void summary_report_json_string(FILE *out, const char *text);

#endif
