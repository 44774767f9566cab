/* memtop: the terminal viewer for TensorFlow / JAX / XProf memory profiles.
 * main parses the command line, opens the hosts and hands them to the
 * viewer or a report. It is the only place that prints errors and picks
 * the exit status: 0 ok, 1 runtime failure, 2 bad usage or bad input, 3
 * a CI gate crossed (--fail-over, --fail-growth). */
#include "config.h"

#include <errno.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/format.h"
#include "model/host_list.h"
#include "model/message_text.h"
#include "model/query/live_set.h"
#include "report/export.h"
#include "report/json_writer.h"
#include "report/logdir_report.h"
#include "src/input.h"
#include "src/list_peaks.h"
#include "src/options.h"
#include "src/progress.h"
#include "report/summary_report.h"
#include "src/cli_output.h"
#include "src/compare_cli.h"
#include "src/gate_cli.h"
#include "ui/keys.h"
#include "ui/ui.h"

/* One host's report (text reports after the first one get a blank line
 * before them); a host that failed to load is reported on stderr (and,
 * in a JSON array, as an object with its error). */
static int summary_host(struct host_list *hosts, size_t index, bool several, bool after_report,
                        struct json_writer *json, const struct summary_report_options *report,
                        const struct gate_options *gates, bool *crossed)
{
    struct host *host = &hosts->hosts[index];
    const struct profile *profile = load_host(hosts, index);
    const char *host_name = several ? host->name : NULL;
    if (!profile) {
        print_load_error(host->path, &host->error);
        if (json && several)
            summary_report_json_error_in_run_to(json, host->path, hosts->run, host_name,
                                                load_error_message(&host->error));
        /* Among several hosts' reports, an entry for it too (as in JSON). */
        if (!json && several) {
            if (after_report)
                fputc('\n', stdout);
            summary_report_text_error(stdout, host->path, host_name,
                                      load_error_message(&host->error));
        }
        return exit_status_for(host->status);
    }
    print_load_warnings(host->path, profile);
    if (json) {
        summary_report_json_in_run_to(json, profile, hosts->run, host_name, report);
    } else {
        if (after_report)
            fputc('\n', stdout);
        summary_report_text_with(stdout, profile, host_name, report);
    }
    *crossed = gate_cli_over(gates, profile) || *crossed;
    /* Reports need one host at a time: free it before the next. */
    profile_free(host->profile);
    host->profile = NULL;
    return EXIT_OK;
}

/* A directory's hosts are reported one entry each, whatever their
 * number: scripts read the same shape for one host as for 64. */
static int run_summary(struct source *input, const struct options *options,
                       const struct summary_report_options *report)
{
    bool json = options->json, crossed = false;
    struct host_list *hosts = &input->hosts;
    int status = EXIT_OK;
    bool several = input->directory || hosts->count > 1;
    struct json_writer writer;
    json_writer_init(&writer, stdout);
    if (json && several)
        json_writer_array_begin(&writer);
    if (!json && hosts->run)
        logdir_report_run_heading(stdout, hosts->run);
    int write_error = 0; /* of the text report, seen as soon as it happens */
    bool written = false;
    for (size_t i = input->first_host; i < input->first_host + input->host_count; i++) {
        int host_status = summary_host(hosts, i, several, written, json ? &writer : NULL, report,
                                       &options->gates, &crossed);
        written = written || host_status == EXIT_OK || (!json && several);
        status = exit_status_worst(status, host_status);
        if (!write_error && ferror(stdout))
            write_error = errno ? errno : EIO;
    }
    if (json && several)
        json_writer_array_end(&writer);
    if (json && (several || written))
        fputc('\n', stdout);
    /* A failure says more than a gate: 3 only when all else went well. */
    if (status == EXIT_OK && crossed)
        status = EXIT_GATE_CROSSED;
    return stdout_finish(status, json ? json_writer_finish(&writer) : write_error);
}

/* Whether a profile comes through standard input ("-", /dev/stdin or
 * another name of the same pipe or file): then the viewer reads keys
 * from the terminal instead. */
static bool reads_standard_input(const struct options *options)
{
    struct stat input;
    if (isatty(STDIN_FILENO) || fstat(STDIN_FILENO, &input) != 0)
        return false;
    for (size_t i = 0; i < options->path_count; i++) {
        struct stat named;
        if (strcmp(options->paths[i], LOAD_STANDARD_INPUT) == 0)
            return true;
        if (stat(options->paths[i], &named) == 0 && named.st_dev == input.st_dev &&
            named.st_ino == input.st_ino)
            return true;
    }
    return false;
}

/* Two runs compared in the viewer: the hosts in both, and the runs. */
struct compare_hosts {
    size_t count;
    const char *const *names;
    const char *runs;
};

static int run_viewer(struct source *input, const struct options *options, const char *note,
                      const struct compare_hosts *compare_hosts)
{
    struct host_list *hosts = &input->hosts;
    /* Two profiles compared: both load before the screen opens. */
    int compare_status = options->compare ? compare_cli_load(hosts, false) : EXIT_OK;
    /* Two files: a --pair naming neither is said here, as --summary says it. */
    if (compare_status == EXIT_OK && options->compare && !compare_hosts)
        compare_status = compare_cli_check_pairings(hosts->hosts[0].profile,
                                                    hosts->hosts[1].profile, options);
    if (compare_status != EXIT_OK)
        return compare_status;
    /* With one profile, a load error belongs in the shell, not a screen;
     * unless the log directory has an older run that loads: the viewer
     * opens it and says why the newest did not. */
    bool fell_back = false;
    if (hosts->count == 1 && !load_host(hosts, 0)) {
        /* Only the run memtop picked itself: a run or host asked for fails. */
        fell_back = !options->run && !options->host && !options->compare &&
                    source_fall_back_run(input);
        if (!fell_back) {
            print_load_error(hosts->hosts[0].path, &hosts->hosts[0].error);
            return exit_status_for(hosts->hosts[0].status);
        }
    }
    struct ui_options ui_options = {
        .ascii = options->ascii,
        .no_color = options->no_color,
        .mouse = options->mouse,
        .keys_from_terminal = reads_standard_input(options),
        .no_settings = options->no_settings,
        .follow = options->follow,
    };
    struct ui_session session = {
        .hosts = hosts,
        .first_host = input->first_host,
        .logdir = input->directory && input->logdir.kind == LOGDIR_LOG_DIRECTORY
                      ? &input->logdir
                      : NULL,
        .run_index = input->run_index,
        .compare = options->compare,
        .run_errors = input->run_errors,
        .failed_run = fell_back ? input->failed_run : input->logdir.run_count,
        .pairings = options->pairings,
        .pairing_count = options->pairing_count,
        .note = note,
        .compare_hosts = compare_hosts ? compare_hosts->count : 0,
        .compare_host_names = compare_hosts ? compare_hosts->names : NULL,
        .compare_runs = compare_hosts ? compare_hosts->runs : NULL,
    };
    return ui_run(&session, &ui_options);
}

/* --list: the runs of a log directory, their hosts and tools. */
static int run_list(const struct options *options)
{
    struct logdir logdir;
    struct load_error error;
    enum load_status status = logdir_open(options->paths[0], &logdir, &error);
    if (status != LOAD_OK) {
        print_load_error(options->paths[0], &error);
        return exit_status_for(status);
    }
    /* Which runs the viewer could not open, as it would try them. */
    char **errors = calloc(logdir.run_count ? logdir.run_count : 1, sizeof *errors);
    if (errors && logdir.kind == LOGDIR_LOG_DIRECTORY)
        source_check_runs(&logdir, errors);
    struct logdir_peaks peaks = {0};
    bool with_peaks = options->peaks && list_peaks_read(&logdir, &peaks);
    int write_error = 0;
    if (options->json)
        write_error = logdir_report_json(stdout, &logdir, errors, with_peaks ? &peaks : NULL);
    else
        logdir_report_text(stdout, &logdir, errors, with_peaks ? &peaks : NULL);
    list_peaks_free(&peaks);
    for (size_t i = 0; errors && i < logdir.run_count; i++)
        free(errors[i]);
    free(errors);
    logdir_free(&logdir);
    return stdout_finish(EXIT_OK, write_error);
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
    append_allocator_ids(&line, profile);
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
    if (export->view == EXPORT_VIEW_SUMMARY || export->view == EXPORT_VIEW_HLO ||
        export->view == EXPORT_VIEW_CHROME_TRACE)
        return true;
    if (profile->allocator_count == 0) {
        print_error("%s: the profile has no allocator to export", path);
        return false;
    }
    *allocator = &profile->allocators[0];
    return true;
}

/* --at MS [--since MS0]: the rows live at MS (those allocated after MS0),
 * into *live (the caller frees it), as a row source; EXIT_OK, or the
 * status after saying why not (a sampled timeline, none at all). */
static int export_live_source(const struct host *host, const struct allocator *allocator,
                              const struct export_options *export, struct live_rows *live,
                              struct allocation_row_source *source)
{
    struct live_index *index;
    enum live_status status = live_index_build(host->profile, allocator, 0, &index);
    if (status == LIVE_OK && export->has_since)
        status = live_index_rows_grown(index, export->since_ps, export->at_ps, live);
    else if (status == LIVE_OK)
        status = live_index_rows_at(index, export->at_ps, live);
    live_index_free(index);
    if (status != LIVE_OK) {
        print_file_message(host->path, "", text_of(live_status_message(status)));
        return status == LIVE_NO_MEMORY ? EXIT_RUNTIME_FAILURE : EXIT_BAD_INPUT;
    }
    *source = (struct allocation_row_source){host->profile, allocator, live->rows, live->count,
                                             export->has_since ? "grown" : "live"};
    return EXIT_OK;
}

/* The table of rows to export: those at the peak, or --at's. */
static int export_table_init(const struct host *host, const struct allocator *allocator,
                             const struct export_options *export, struct allocation_table *table,
                             struct live_rows *live)
{
    if (!export->has_at)
        return allocation_table_init(table, host->profile, allocator) ? EXIT_OK
                                                                      : EXIT_RUNTIME_FAILURE;
    struct allocation_row_source source;
    int status = export_live_source(host, allocator, export, live, &source);
    if (status != EXIT_OK)
        return status;
    return allocation_table_init_source(table, &source) ? EXIT_OK : EXIT_RUNTIME_FAILURE;
}

/* --export steps on XProf's sample describes the sample: said, not refused. */
static void export_warn_sampled_steps(const char *path, const struct export_options *export,
                                      const struct allocator *allocator)
{
    if (export->view == EXPORT_VIEW_STEPS && allocator && allocator->timeline_sampled)
        print_file_message(path, "warning: ",
                           text_of("the steps of XProf's 1000-snapshot sample: their times, "
                                   "peaks and counts are the sample's"));
}

/* One host's request as --export asks for it: the same request the
 * viewer's `e` key makes, with the allocations in the table's order
 * (file order unless --sort); *table (and *live, with --at) is set up
 * (and must be freed) for the allocations view. EXIT_OK, or the status
 * after saying why. */
static int export_prepare(const struct host *host, const struct export_options *export,
                          struct export_request *request, struct allocation_table *table,
                          struct live_rows *live)
{
    const struct profile *profile = host->profile;
    print_load_warnings(host->path, profile);
    const struct allocator *allocator;
    if (!export_pick_allocator(host->path, profile, export, &allocator))
        return EXIT_BAD_INPUT;
    export_request_init(request, export->view, profile, allocator);
    request->from_ps = export->from_ps;
    request->to_ps = export->to_ps;
    request->has_at = export->has_at;
    request->at_ps = export->at_ps;
    export_warn_sampled_steps(host->path, export, allocator);
    if (export->view != EXPORT_VIEW_ALLOCATIONS)
        return EXIT_OK;
    /* --group-by scope:model lists the scopes under "model/". */
    static char scope[ALLOCATION_TABLE_FILTER_SIZE];
    const char *given = export->has_group_by ? export->group_scope : "";
    size_t length = strlen(given);
    snprintf(scope, sizeof scope, "%s%s", given, length && given[length - 1] != '/' ? "/" : "");
    int status = export_table_init(host, allocator, export, table, live);
    const char *filter = export->filter ? export->filter : "";
    if (status == EXIT_OK && (!allocation_table_set_filter(table, filter) ||
                              !allocation_table_set_within(
                                  table, scope[0] ? ROW_GROUP_OP_SCOPE : ROW_GROUP_NONE,
                                  text_of(scope))))
        status = EXIT_RUNTIME_FAILURE;
    if (status != EXIT_OK) {
        allocation_table_free(table);
        if (status == EXIT_RUNTIME_FAILURE)
            print_error("out of memory");
        return status;
    }
    allocation_table_set_min_bytes(table, export->min_bytes);
    /* A key the file does not record (module of an XProf file) would
     * make one nameless group: say so instead. */
    if (export->has_group_by && !row_group_key_recorded(table, export->group_by)) {
        print_error("%s: --group-by %s: the rows record no %s", host->path,
                    row_group_key_name(export->group_by), row_group_key_name(export->group_by));
        allocation_table_free(table);
        return EXIT_BAD_INPUT;
    }
    if (export->has_group_by) {
        request->group_by = export->group_by;
        request->group_scope = text_of(scope);
    }
    allocation_table_set_sort(table, export->has_sort ? export->sort_column
                                                      : TABLE_COLUMN_FILE_ORDER,
                              export->has_sort && export->sort_descending);
    request->table = table;
    return EXIT_OK;
}

/* --export on a directory: every host (or --host's) in one CSV, each row
 * after a "host" cell ("run" and "host" for a log directory's run). */
struct export_hosts {
    struct source *input;
    const struct export_options *export;
    struct allocation_table table;
    struct live_rows live;
    const char *lead_values[2];
    int status;
};

static const char *const lead_names_run_host[] = {"run", "host"};

static bool export_hosts_next(void *context, size_t index, struct export_request *request)
{
    struct export_hosts *hosts = context;
    struct host_list *list = &hosts->input->hosts;
    size_t host_index = hosts->input->first_host + index;
    struct host *host = &list->hosts[host_index];
    memset(&hosts->table, 0, sizeof hosts->table);
    int status = EXIT_OK;
    if (!load_host(list, host_index)) {
        print_load_error(host->path, &host->error);
        status = exit_status_for(host->status);
    } else {
        status = export_prepare(host, hosts->export, request, &hosts->table, &hosts->live);
    }
    hosts->status = exit_status_worst(hosts->status, status);
    if (status != EXIT_OK) {
        host_unload(host);
        return false;
    }
    bool with_run = list->run != NULL;
    hosts->lead_values[0] = list->run;
    hosts->lead_values[1] = host->name;
    request->lead_names = lead_names_run_host + !with_run;
    request->lead_values = hosts->lead_values + !with_run;
    request->lead_count = with_run ? 2 : 1;
    return true;
}

static const char *export_hosts_name(void *context, size_t index)
{
    struct export_hosts *hosts = context;
    return hosts->input->hosts.hosts[hosts->input->first_host + index].name;
}

/* Exports need one host at a time: free it before the next. */
static void export_hosts_done(void *context, size_t index)
{
    struct export_hosts *hosts = context;
    allocation_table_free(&hosts->table);
    live_rows_free(&hosts->live);
    host_unload(&hosts->input->hosts.hosts[hosts->input->first_host + index]);
}

static int run_export(struct source *input, const struct options *options)
{
    const struct export_options *export = &options->export;
    /* One JSON document holds one profile: several hosts would be several
     * documents glued together, which no trace viewer opens. */
    if (input->directory && input->host_count > 1 && !export_view_is_csv(export->view)) {
        print_error("%s: --export %s writes one profile, and this holds %zu hosts: "
                    "pick one with --host NAME",
                    options->paths[0], export_view_name(export->view), input->host_count);
        return EXIT_BAD_INPUT;
    }
    if (input->directory) {
        struct export_hosts hosts = {.input = input, .export = export};
        struct export_each each = {input->host_count, export_hosts_next, export_hosts_done,
                                   export_hosts_name, &hosts};
        int status = export_output(NULL, &each, export);
        live_rows_free(&hosts.live); /* a host that failed after its rows */
        return exit_status_worst(hosts.status, status);
    }
    struct host *host = &input->hosts.hosts[0];
    if (!load_host(&input->hosts, 0)) {
        print_load_error(host->path, &host->error);
        return exit_status_for(host->status);
    }
    struct export_request request;
    struct allocation_table table;
    memset(&table, 0, sizeof table);
    struct live_rows live = {0};
    int status = export_prepare(host, export, &request, &table, &live);
    if (status == EXIT_OK)
        status = export_output(&request, NULL, export);
    allocation_table_free(&table);
    live_rows_free(&live);
    return status;
}

/* The viewer on two runs: the hosts in both, their two files each opened
 * as one host list (BASE, NEW, BASE, NEW, ...), the first pair loaded. */
static int run_compare_runs_viewer(struct compared_runs *runs, const struct options *options)
{
    size_t most = runs->match_count ? runs->match_count : 1, count;
    const char **paths = calloc(2 * most, sizeof *paths);
    const char **names = calloc(most, sizeof *names);
    char note[512], label[1024];
    int status = paths && names ? EXIT_OK : EXIT_RUNTIME_FAILURE;
    if (status != EXIT_OK)
        print_error("out of memory");
    else
        status = compare_cli_runs_hosts(runs, paths, names, &count, note, sizeof note);
    struct source pair;
    memset(&pair, 0, sizeof pair);
    const char *bad_path = NULL;
    struct load_error error;
    if (status == EXIT_OK &&
        host_list_open(&pair.hosts, (char *const *)paths, 2 * count, &bad_path, &error) != LOAD_OK) {
        print_load_error(bad_path, &error);
        status = EXIT_BAD_INPUT;
    } else if (status == EXIT_OK) {
        const char *base_run = runs->sides[0].hosts.run, *new_run = runs->sides[1].hosts.run;
        snprintf(label, sizeof label, "%s vs %s", base_run ? base_run : options->paths[0],
                 new_run ? new_run : options->paths[options->path_count - 1]);
        pair.host_count = 2 * count;
        struct compare_hosts hosts = {count, names, label};
        status = run_viewer(&pair, options, note, &hosts);
        source_free(&pair);
    }
    free(paths);
    free(names);
    return status;
}

/* --compare of two runs: --summary, --export compare, or the viewer. */
static int run_compare_runs(const struct options *options,
                            const struct summary_report_options *report)
{
    struct compared_runs runs;
    const char *bad_path = NULL;
    char message[INPUT_MESSAGE_SIZE];
    enum load_status status = input_open_runs(&runs, options, &bad_path, message, sizeof message);
    if (status != LOAD_OK) {
        print_file_message(bad_path, "", text_of(message));
        return exit_status_for(status);
    }
    int exit_status;
    if (options->mode == RUN_EXPORT) {
        exit_status = compare_cli_runs_export(&runs, options);
    } else if (options->mode == RUN_SUMMARY) {
        exit_status = compare_cli_runs_summary(&runs, options, report);
    } else {
        exit_status = run_compare_runs_viewer(&runs, options);
    }
    input_free_runs(&runs);
    return exit_status;
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
        if (options.show_usage)
            options_print_usage(stderr);
        fputs("Try 'memtop --help' for more information.\n", stderr);
        return EXIT_BAD_INPUT;
    }
    if (options.mode == RUN_HELP) {
        return stdout_finish(EXIT_OK, options_print_help(stdout));
    }
    if (options.mode == RUN_VERSION) {
        puts(PACKAGE_STRING);
        return stdout_finish(EXIT_OK, 0);
    }
    if (options.mode == RUN_LIST_KEYS) {
        if (options.list_keys_man)
            keys_print_man(stdout);
        else
            keys_print_markdown(stdout);
        return stdout_finish(EXIT_OK, 0);
    }
    if (options.mode == RUN_LIST)
        return run_list(&options);
    struct summary_report_options report = {options.top_rows, options.min_bytes};
    if (input_compares_runs(&options))
        return run_compare_runs(&options, &report);
    struct source input;
    const char *bad_path = NULL;
    char message[INPUT_MESSAGE_SIZE];
    enum load_status status = input_open(&input, &options, &bad_path, message, sizeof message);
    if (status != LOAD_OK) {
        print_file_message(bad_path, "", text_of(message));
        return exit_status_for(status);
    }
    int exit_status;
    if (options.compare && options.mode == RUN_EXPORT)
        exit_status = compare_cli_export(&input, &options);
    else if (options.compare && options.mode == RUN_SUMMARY)
        exit_status = compare_cli_summary(&input, &options, &report);
    else if (options.mode == RUN_EXPORT)
        exit_status = run_export(&input, &options);
    else if (options.mode == RUN_SUMMARY)
        exit_status = run_summary(&input, &options, &report);
    else
        exit_status = run_viewer(&input, &options, NULL, NULL);
    input_free(&input);
    return exit_status;
}
