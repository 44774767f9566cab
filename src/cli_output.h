/* cli_output: what the command line prints besides its reports: the
 * exit status a load's outcome means, error lines ("memtop: FILE: what is
 * wrong", made safe for the terminal), a profile's load warnings, a host
 * loaded with a progress bar on stderr, an export written where -o says,
 * and whether everything sent to standard output got there. Called by
 * main and the batch modes beside it in src/ (compare_cli.c): with them
 * the only place that prints errors. Writes to standard output only what
 * an export asks for. */
#ifndef MEMTOP_CLI_OUTPUT_H
#define MEMTOP_CLI_OUTPUT_H

#include "model/host_list.h"
#include "model/load.h"
#include "model/message_text.h"
#include "model/profile.h"
#include "model/util/text.h"
#include "report/export.h"
#include "src/options.h"

enum exit_status {
    EXIT_OK = 0,
    EXIT_RUNTIME_FAILURE = 1,
    EXIT_BAD_INPUT = 2,
    EXIT_GATE_CROSSED = 3, /* --fail-over or --fail-growth: a limit was crossed */
};

/* The exit status of a load's outcome. */
int exit_status_for(enum load_status status);
/* The worse of two: bad input outranks a runtime failure, which
 * outranks a crossed gate. */
int exit_status_worst(int a, int b);

/* The longest error line (longer ones are cut). */
#define PRINT_LINE_SIZE 2048

/* "memtop: " and the line, made safe for the terminal once (the line
 * raw: a profile's text in it, NUL bytes and all, is escaped here). */
void print_error_line(struct text line);
/* The same, printf-style, for lines of our own text and file names. */
void print_error(const char *format, ...) __attribute__((format(printf, 1, 2)));
/* "memtop: PATH: KIND MESSAGE" (kind "" or "warning: "), the message raw. */
void print_file_message(const char *path, const char *kind, struct text message);
void print_load_error(const char *path, const struct load_error *error);
/* Appends "a, b, c", the profile's memory ids raw ("(none)" when it has
 * none): print_error_line shows each as --allocator takes it. */
void append_allocator_ids(struct message_text *line, const struct profile *profile);
/* Each of the profile's load warnings, "memtop: FILE: warning: ...". */
void print_load_warnings(const char *path, const struct profile *profile);

/* Host `index` loaded (once) with a progress bar on stderr when it is a
 * terminal and the load is slow; NULL when it failed (the host says why). */
const struct profile *load_host(struct host_list *hosts, size_t index);

/* The end of a batch mode that wrote to standard output: "memtop:
 * standard output: REASON" and status 1 when the output did not all get
 * there (error_number, or what the final flush finds); else status. */
int stdout_finish(int status, int error_number);

/* Writes --export's output where -o says (stdout when absent or "-"):
 * the request, or (each not NULL) several hosts' requests as one CSV;
 * EXIT_OK, or status 1 after saying what failed. */
int export_output(const struct export_request *request, const struct export_each *each,
                  const struct export_options *export);

#endif
