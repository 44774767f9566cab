/* summary_report: the --summary output, for people (text) and for
 * scripts and CI (JSON). Writes only what the model already computed. */
#ifndef MEMTOP_SUMMARY_REPORT_H
#define MEMTOP_SUMMARY_REPORT_H

#include <stdio.h>

#include "model/profile.h"

/* How many of the largest active allocations the text report lists. */
#define SUMMARY_REPORT_TOP_ROWS 10

/* host may be NULL (a single profile: no "host" key / line). */
void summary_report_text(FILE *out, const struct profile *profile, const char *host);
void summary_report_json(FILE *out, const struct profile *profile, const char *host);
/* The object for a host that failed to load: host, file and "error", so a
 * script reading the array sees every host it asked for. */
void summary_report_json_error(FILE *out, const char *path, const char *host, const char *error);

/* A JSON string literal for arbitrary bytes: quotes, backslashes and
 * controls escaped, invalid UTF-8 replaced by U+FFFD, so the output is
 * always valid JSON whatever the profile holds. */
void summary_report_json_string(FILE *out, const char *text);

#endif
