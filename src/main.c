/* memtop: the terminal viewer for TensorFlow / JAX / XProf memory profiles.
 * main parses the command line, opens the hosts and hands them to the
 * viewer or a report. It is the only place that prints errors and picks
 * the exit status: 0 ok, 1 runtime failure, 2 bad usage or bad input. */
#include "config.h"

#include <errno.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/format.h"
#include "model/host_list.h"
#include "model/message_text.h"
#include "report/export.h"
#include "report/json_writer.h"
#include "src/options.h"
#include "src/progress.h"
#include "report/summary_report.h"
#include "ui/keys.h"
#include "ui/ui.h"

enum exit_status {
    EXIT_OK = 0,
    EXIT_RUNTIME_FAILURE = 1,
    EXIT_BAD_INPUT = 2,
};

static int exit_status_for(enum load_status status)
{
    switch (status) {
    case LOAD_OK: return EXIT_OK;
    case LOAD_NO_MEMORY: return EXIT_RUNTIME_FAILURE;
    default: return EXIT_BAD_INPUT;
    }
}

/* Bad input outranks a runtime failure: it is what the user must fix. */
static int exit_status_worst(int a, int b)
{
    if (a == EXIT_BAD_INPUT || b == EXIT_BAD_INPUT)
        return EXIT_BAD_INPUT;
    return a > b ? a : b;
}

#define PRINT_LINE_SIZE 2048

/* Every error line goes through here: "memtop: " and the line, made safe
 * for the terminal once, since file names and the messages that quote a
 * profile's text come from other machines. The line is raw: a profile's
 * text in it (NUL bytes and all) is escaped here, not before. */
static void print_error_line(struct text line)
{
    char safe[4 * PRINT_LINE_SIZE + 1]; /* enough for any line (model/format.h) */
    if (line.length > PRINT_LINE_SIZE)
        line.length = PRINT_LINE_SIZE;
    format_safe_bytes(line, 0, safe, sizeof safe);
    fprintf(stderr, "memtop: %s\n", safe);
}

static void print_error(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void print_error(const char *format, ...)
{
    char line[PRINT_LINE_SIZE];
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(line, sizeof line, format, arguments);
    va_end(arguments);
    print_error_line(text_of(line));
}

/* "memtop: PATH: KIND MESSAGE": the message raw (a loader keeps the
 * file's text in it as the file had it), escaped once with the rest. */
static void print_file_message(const char *path, const char *kind, struct text message)
{
    char buffer[PRINT_LINE_SIZE];
    struct message_text line;
    message_text_start(&line, buffer, sizeof buffer);
    message_text_append_text(&line, path);
    message_text_append_text(&line, ": ");
    message_text_append_text(&line, kind);
    message_text_append_bytes(&line, message);
    print_error_line(message_text_get(&line));
}

static void print_load_error(const char *path, const struct load_error *error)
{
    print_file_message(path, "", load_error_message(error));
}

/* What the loader found odd but read, escaped as errors are:
 * "memtop: FILE: warning: ...". The exit status stays what the load gave. */
static void print_load_warnings(const char *path, const struct profile *profile)
{
    for (size_t i = 0; i < profile->warning_count; i++)
        print_file_message(path, "warning: ", profile_string(profile, profile->warnings[i]));
}

/* Loads host `index` with a progress bar on stderr (when it is a
 * terminal and the load is slow). */
static const struct profile *load_host(struct host_list *hosts, size_t index)
{
    struct progress_bar bar;
    progress_bar_start(&bar, stderr, hosts->hosts[index].name);
    struct load_options options = {.progress = progress_bar_update, .progress_context = &bar};
    const struct profile *profile = host_list_load(hosts, index, &options);
    progress_bar_finish(&bar);
    return profile;
}

/* Whether everything written to stdout reached it: 0, else the errno of
 * the failure (EIO when the stream kept none). */
static int stdout_error(void)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    return errno ? errno : EIO;
}

/* The end of a batch mode that wrote to stdout: "memtop: standard
 * output: No space left on device" and status 1 when the output did not
 * all get there (error_number, or what the final flush finds). */
static int stdout_finish(int status, int error_number)
{
    if (!error_number)
        error_number = stdout_error();
    if (!error_number)
        return status;
    print_error("standard output: %s", strerror(error_number));
    return exit_status_worst(status, EXIT_RUNTIME_FAILURE);
}

/* One host's report (text reports after the first one get a blank line
 * before them); a host that failed to load is reported on stderr (and,
 * in a JSON array, as an object with its error). */
static int summary_host(struct host_list *hosts, size_t index, bool several, bool after_report,
                        struct json_writer *json)
{
    struct host *host = &hosts->hosts[index];
    const struct profile *profile = load_host(hosts, index);
    const char *host_name = several ? host->name : NULL;
    if (!profile) {
        print_load_error(host->path, &host->error);
        if (json && several)
            summary_report_json_error_to(json, host->path, host_name,
                                         load_error_message(&host->error));
        return exit_status_for(host->status);
    }
    print_load_warnings(host->path, profile);
    if (json) {
        summary_report_json_to(json, profile, host_name);
    } else {
        if (after_report)
            fputc('\n', stdout);
        summary_report_text(stdout, profile, host_name);
    }
    /* Reports need one host at a time: free it before the next. */
    profile_free(host->profile);
    host->profile = NULL;
    return EXIT_OK;
}

static int run_summary(struct host_list *hosts, bool json)
{
    int status = EXIT_OK;
    bool several = hosts->count > 1;
    struct json_writer writer;
    json_writer_init(&writer, stdout);
    if (json && several)
        json_writer_array_begin(&writer);
    int write_error = 0; /* of the text report, seen as soon as it happens */
    bool written = false;
    for (size_t i = 0; i < hosts->count; i++) {
        int host_status = summary_host(hosts, i, several, written, json ? &writer : NULL);
        written = written || host_status == EXIT_OK;
        status = exit_status_worst(status, host_status);
        if (!write_error && ferror(stdout))
            write_error = errno ? errno : EIO;
    }
    if (json && several)
        json_writer_array_end(&writer);
    if (json && (several || written))
        fputc('\n', stdout);
    return stdout_finish(status, json ? json_writer_finish(&writer) : write_error);
}

static int run_viewer(struct host_list *hosts, const struct options *options)
{
    /* With one profile, a load error belongs in the shell, not a screen. */
    if (hosts->count == 1 && !load_host(hosts, 0)) {
        print_load_error(hosts->hosts[0].path, &hosts->hosts[0].error);
        return exit_status_for(hosts->hosts[0].status);
    }
    struct ui_options ui_options = {
        .ascii = options->ascii,
        .no_color = options->no_color,
        .mouse = options->mouse,
    };
    return ui_run(hosts, &ui_options);
}

/* "memtop: FILE: no allocator 'X'; the allocators are: a, b", each id
 * as memtop shows it (so as --allocator takes it). */
static void print_unknown_allocator(const char *path, const struct profile *profile,
                                    const char *id)
{
    char buffer[PRINT_LINE_SIZE];
    struct message_text line;
    message_text_start(&line, buffer, sizeof buffer);
    message_text_append_format(&line, "%s: no allocator '%s'; the allocators are: ", path, id);
    if (profile->allocator_count == 0)
        message_text_append_text(&line, "(none)");
    for (size_t i = 0; i < profile->allocator_count; i++) {
        if (i > 0)
            message_text_append_text(&line, ", ");
        message_text_append_bytes(&line, profile_string(profile, profile->allocators[i].id));
    }
    print_error_line(message_text_get(&line));
}

/* The allocator to export: --allocator, else the first (summary and hlo:
 * none, meaning all or not needed). false after printing why not. */
static bool export_pick_allocator(const char *path, const struct profile *profile,
                                  const struct export_options *export,
                                  const struct allocator **allocator)
{
    *allocator = NULL;
    if (export->allocator) {
        long index = profile_find_allocator_named(profile, export->allocator);
        if (index < 0) {
            print_unknown_allocator(path, profile, export->allocator);
            return false;
        }
        *allocator = &profile->allocators[index];
        return true;
    }
    if (export->view == EXPORT_VIEW_SUMMARY || export->view == EXPORT_VIEW_HLO)
        return true;
    if (profile->allocator_count == 0) {
        print_error("%s: the profile has no allocator to export", path);
        return false;
    }
    *allocator = &profile->allocators[0];
    return true;
}

static int export_output(const struct export_request *request,
                         const struct export_options *export)
{
    char error[EXPORT_ERROR_SIZE];
    bool to_stdout = !export->output || strcmp(export->output, "-") == 0;
    enum export_status status =
        to_stdout ? export_write(stdout, request, NULL, error, sizeof error)
                  : export_to_path(export->output, export->force, request, NULL, error,
                                   sizeof error);
    if (status == EXPORT_OK)
        return EXIT_OK;
    if (status == EXPORT_EXISTS)
        print_error("%s: already exists; --force replaces it", export->output);
    else
        print_error("%s: %s", to_stdout ? "standard output" : export->output, error);
    return EXIT_RUNTIME_FAILURE;
}

/* --export: the same request the viewer's `e` key makes, with the
 * allocations in the table's order (file order unless --sort). */
static int run_export(struct host_list *hosts, const struct options *options)
{
    const struct export_options *export = &options->export;
    if (hosts->count != 1) {
        print_error("%s: --export takes one profile, not a directory of %zu",
                options->paths[0], hosts->count);
        return EXIT_BAD_INPUT;
    }
    const struct host *host = &hosts->hosts[0];
    const struct profile *profile = load_host(hosts, 0);
    if (!profile) {
        print_load_error(host->path, &host->error);
        return exit_status_for(host->status);
    }
    print_load_warnings(host->path, profile);
    const struct allocator *allocator;
    if (!export_pick_allocator(host->path, profile, export, &allocator))
        return EXIT_BAD_INPUT;
    struct export_request request;
    export_request_init(&request, export->view, profile, allocator);
    request.from_ps = export->from_ps;
    request.to_ps = export->to_ps;
    if (export->view != EXPORT_VIEW_ALLOCATIONS)
        return export_output(&request, export);
    struct allocation_table table;
    if (!allocation_table_init(&table, profile, allocator) ||
        !allocation_table_set_filter(&table, export->filter ? export->filter : "")) {
        allocation_table_free(&table);
        print_error("out of memory");
        return EXIT_RUNTIME_FAILURE;
    }
    allocation_table_set_sort(&table, export->has_sort ? export->sort_column
                                                       : TABLE_COLUMN_FILE_ORDER,
                              export->has_sort && export->sort_descending);
    request.table = &table;
    int status = export_output(&request, export);
    allocation_table_free(&table);
    return status;
}

int main(int argc, char **argv)
{
    setlocale(LC_ALL, "");
    /* Reports and CSV print numbers for machines: always a '.' decimal
     * point, whatever the user's locale says. */
    setlocale(LC_NUMERIC, "C");
    struct options options;
    char error[OPTIONS_ERROR_SIZE];
    if (!options_parse(argc, argv, &options, error, sizeof error)) {
        print_error("%s", error);
        fputs("Try 'memtop --help' for more information.\n", stderr);
        return EXIT_BAD_INPUT;
    }
    if (options.mode == RUN_HELP) {
        options_print_help(stdout);
        return stdout_finish(EXIT_OK, 0);
    }
    if (options.mode == RUN_VERSION) {
        puts(PACKAGE_STRING);
        return stdout_finish(EXIT_OK, 0);
    }
    if (options.mode == RUN_LIST_KEYS) {
        keys_print_markdown(stdout);
        return stdout_finish(EXIT_OK, 0);
    }
    struct host_list hosts;
    struct load_error load_error;
    const char *bad_path = NULL;
    enum load_status status =
        host_list_open(&hosts, options.paths, options.path_count, &bad_path, &load_error);
    if (status != LOAD_OK) {
        print_load_error(bad_path, &load_error);
        return exit_status_for(status);
    }
    if (options.mode == RUN_EXPORT) {
        int export_status = run_export(&hosts, &options);
        host_list_free(&hosts);
        return export_status;
    }
    int exit_status = options.mode == RUN_SUMMARY ? run_summary(&hosts, options.json)
                                                  : run_viewer(&hosts, &options);
    host_list_free(&hosts);
    return exit_status;
}
