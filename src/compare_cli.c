#include "config.h"

#include "src/compare_cli.h"

#include <stdio.h>
#include <string.h>

#include "model/compare.h"
#include "report/compare_report.h"
#include "report/json_writer.h"
#include "src/cli_output.h"
#include "src/gate_cli.h"

int compare_cli_load(struct host_list *hosts, bool warnings)
{
    int status = EXIT_OK;
    for (size_t i = 0; i < 2; i++) {
        const struct host *host = &hosts->hosts[i];
        const struct profile *profile = load_host(hosts, i);
        if (!profile) {
            print_load_error(host->path, &host->error);
            status = exit_status_worst(status, exit_status_for(host->status));
        } else if (warnings) {
            print_load_warnings(host->path, profile);
        }
    }
    return status;
}

int compare_cli_summary(struct source *input, const struct options *options,
                        const struct summary_report_options *report)
{
    int status = compare_cli_load(&input->hosts, true);
    if (status != EXIT_OK)
        return status;
    const struct profile *base = input->hosts.hosts[0].profile;
    const struct profile *new = input->hosts.hosts[1].profile;
    struct profile_comparison comparison;
    if (!profile_comparison_build(&comparison, base, new)) {
        print_error("out of memory");
        return EXIT_RUNTIME_FAILURE;
    }
    int write_error = 0;
    if (options->json) {
        struct json_writer writer;
        json_writer_init(&writer, stdout);
        compare_report_json_to(&writer, base, new, &comparison, report);
        if (!writer.error)
            fputc('\n', stdout);
        write_error = json_writer_finish(&writer);
    } else {
        compare_report_text(stdout, base, new, &comparison);
    }
    /* --fail-over is asked of NEW, the profile a change made. */
    bool crossed = gate_cli_growth(&options->gates, base, &comparison);
    crossed = gate_cli_over(&options->gates, new) || crossed;
    profile_comparison_free(&comparison);
    return stdout_finish(crossed ? EXIT_GATE_CROSSED : EXIT_OK, write_error);
}

/* The allocator --allocator's `id` names in `profile` (as memtop shows
 * an id, else by its bytes: profile_find_allocator_named), or NULL. */
static const struct allocator *named_allocator(const struct profile *profile, const char *id)
{
    long index = id ? profile_find_allocator_named(profile, id) : -1;
    return index >= 0 ? &profile->allocators[index] : NULL;
}

/* "no allocator 'X' in either profile; BASE has: a, b; NEW has: c", the
 * ids raw (escaped once, as --allocator takes them). */
static void print_unknown_pair(const struct profile *base, const struct profile *new,
                               const char *id)
{
    char buffer[PRINT_LINE_SIZE];
    struct message_text line;
    message_text_start(&line, buffer, sizeof buffer);
    message_text_append_format(&line, "no allocator '%s' in either profile; %s has: ", id,
                               base->path);
    append_allocator_ids(&line, base);
    message_text_append_format(&line, "; %s has: ", new->path);
    append_allocator_ids(&line, new);
    print_error_line(message_text_get(&line));
}

/* The pair --allocator names (matched by memory id), else the first
 * pair: EXIT_OK, or the status after saying why there is none. */
static int compare_pick_pair(const struct profile *base, const struct profile *new,
                              const char *id, const struct allocator **base_allocator,
                              const struct allocator **new_allocator)
{
    struct profile_comparison comparison;
    if (!profile_comparison_build(&comparison, base, new)) {
        print_error("out of memory");
        return EXIT_RUNTIME_FAILURE;
    }
    const struct allocator *in_base = named_allocator(base, id), *in_new = named_allocator(new, id);
    bool found = false;
    for (size_t i = 0; i < comparison.count && !found; i++) {
        const struct allocator_pair *pair = &comparison.pairs[i];
        if (id && !(pair->base && pair->base == in_base) && !(pair->new && pair->new == in_new))
            continue;
        *base_allocator = pair->base;
        *new_allocator = pair->new;
        found = true;
    }
    profile_comparison_free(&comparison);
    if (found)
        return EXIT_OK;
    if (id)
        print_unknown_pair(base, new, id);
    else
        print_error("%s, %s: neither profile has an allocator to compare", base->path,
                    new->path);
    return EXIT_BAD_INPUT;
}

int compare_cli_export(struct source *input, const struct options *options)
{
    int status = compare_cli_load(&input->hosts, true);
    if (status != EXIT_OK)
        return status;
    const struct profile *base = input->hosts.hosts[0].profile;
    const struct profile *new = input->hosts.hosts[1].profile;
    const struct allocator *base_allocator = NULL, *new_allocator = NULL;
    status = compare_pick_pair(base, new, options->export.allocator, &base_allocator,
                               &new_allocator);
    if (status != EXIT_OK)
        return status;
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_COMPARE, base, base_allocator);
    request.new_profile = new;
    request.new_allocator = new_allocator;
    return export_output(&request, NULL, &options->export);
}
