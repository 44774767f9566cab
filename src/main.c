/* memtop: the terminal viewer for TensorFlow / JAX / XProf memory profiles.
 * main parses the command line, opens the hosts and hands them to the
 * viewer or a report. It is the only place that prints errors and picks
 * the exit status: 0 ok, 1 runtime failure, 2 bad usage or bad input. */
#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/host_list.h"
#include "src/options.h"
#include "src/summary_report.h"
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

static void print_load_error(const char *path, const struct load_error *error)
{
    fprintf(stderr, "memtop: %s: %s\n", path, error->message);
}

static int run_summary(struct host_list *hosts, bool json)
{
    int status = EXIT_OK;
    bool several = hosts->count > 1;
    bool first = true;
    if (json && several)
        fputc('[', stdout);
    for (size_t i = 0; i < hosts->count; i++) {
        struct host *host = &hosts->hosts[i];
        const struct profile *profile = host_list_load(hosts, i, NULL);
        const char *host_name = several ? host->name : NULL;
        if (!profile) {
            print_load_error(host->path, &host->error);
            status = exit_status_worst(status, exit_status_for(host->status));
            if (json && several) {
                if (!first)
                    fputc(',', stdout);
                summary_report_json_error(stdout, host->path, host_name, host->error.message);
                first = false;
            }
            continue;
        }
        if (json) {
            if (!first)
                fputc(',', stdout);
            summary_report_json(stdout, profile, host_name);
        } else {
            if (!first)
                fputc('\n', stdout);
            summary_report_text(stdout, profile, host_name);
        }
        first = false;
        /* Reports need one host at a time: free it before the next. */
        profile_free(host->profile);
        host->profile = NULL;
    }
    if (json && several)
        fputc(']', stdout);
    if (json && !first)
        fputc('\n', stdout);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        perror("memtop: writing the summary");
        status = exit_status_worst(status, EXIT_RUNTIME_FAILURE);
    }
    return status;
}

static int run_viewer(struct host_list *hosts, const struct options *options)
{
    /* With one profile, a load error belongs in the shell, not a screen. */
    if (hosts->count == 1 && !host_list_load(hosts, 0, NULL)) {
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

int main(int argc, char **argv)
{
    setlocale(LC_ALL, "");
    struct options options;
    char error[OPTIONS_ERROR_SIZE];
    if (!options_parse(argc, argv, &options, error, sizeof error)) {
        fprintf(stderr, "memtop: %s\nTry 'memtop --help' for more information.\n", error);
        return EXIT_BAD_INPUT;
    }
    if (options.mode == RUN_HELP) {
        options_print_help(stdout);
        return EXIT_OK;
    }
    if (options.mode == RUN_VERSION) {
        puts(PACKAGE_STRING);
        return EXIT_OK;
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
    int exit_status = options.mode == RUN_SUMMARY ? run_summary(&hosts, options.json)
                                                  : run_viewer(&hosts, &options);
    host_list_free(&hosts);
    return exit_status;
}
