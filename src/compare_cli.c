#include "config.h"

#include "src/compare_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/query/compare.h"
#include "model/format.h"
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

/* A --pair naming an allocator BASE (or NEW) lacks: EXIT_BAD_INPUT after
 * saying which and what the profile has; else EXIT_OK. */
int compare_cli_check_pairings(const struct profile *base, const struct profile *new,
                               const struct options *options)
{
    for (size_t p = 0; p < options->pairing_count; p++) {
        const struct allocator_pairing *pairing = &options->pairings[p];
        bool in_base = profile_find_allocator_named(base, pairing->base_id) >= 0;
        if (in_base && profile_find_allocator_named(new, pairing->new_id) >= 0)
            continue;
        const struct profile *lacking = in_base ? new : base;
        char buffer[PRINT_LINE_SIZE];
        struct message_text line;
        message_text_start(&line, buffer, sizeof buffer);
        message_text_append_format(&line, "--pair %s=%s: %s has no allocator '%s'; it has: ",
                                   pairing->base_id, pairing->new_id, lacking->path,
                                   in_base ? pairing->new_id : pairing->base_id);
        append_allocator_ids(&line, lacking);
        print_error_line(message_text_get(&line));
        return EXIT_BAD_INPUT;
    }
    return EXIT_OK;
}

static bool compare_build(struct profile_comparison *comparison, const struct profile *base,
                          const struct profile *new, const struct options *options)
{
    return profile_comparison_build_paired(comparison, base, new, options->pairings,
                                           options->pairing_count);
}

/* One comparison written (text, or a JSON value of the writer); true
 * when a gate was crossed. *status is EXIT_RUNTIME_FAILURE when memory
 * ran out. */
static bool compare_write(const struct profile *base, const struct profile *new,
                          const struct options *options,
                          const struct summary_report_options *report,
                          struct json_writer *writer, int *status)
{
    struct profile_comparison comparison;
    if (!compare_build(&comparison, base, new, options)) {
        print_error("out of memory");
        *status = EXIT_RUNTIME_FAILURE;
        if (writer)
            json_writer_null(writer);
        return false;
    }
    if (writer)
        compare_report_json_to(writer, base, new, &comparison, report);
    else
        compare_report_text(stdout, base, new, &comparison, report);
    /* --fail-over is asked of NEW, the profile a change made. */
    bool crossed = gate_cli_growth(&options->gates, base, &comparison);
    crossed = gate_cli_over(&options->gates, new) || crossed;
    profile_comparison_free(&comparison);
    return crossed;
}

int compare_cli_summary(struct source *input, const struct options *options,
                        const struct summary_report_options *report)
{
    int status = compare_cli_load(&input->hosts, true);
    if (status != EXIT_OK)
        return status;
    const struct profile *base = input->hosts.hosts[0].profile;
    const struct profile *new = input->hosts.hosts[1].profile;
    status = compare_cli_check_pairings(base, new, options);
    if (status != EXIT_OK)
        return status;
    int write_error = 0;
    bool crossed;
    if (options->json) {
        struct json_writer writer;
        json_writer_init(&writer, stdout);
        crossed = compare_write(base, new, options, report, &writer, &status);
        if (!writer.error)
            fputc('\n', stdout);
        write_error = json_writer_finish(&writer);
    } else {
        crossed = compare_write(base, new, options, report, NULL, &status);
    }
    if (status == EXIT_OK && crossed)
        status = EXIT_GATE_CROSSED;
    return stdout_finish(status, write_error);
}

/* ---- two runs, host by host ---- */

static const char *match_presence(const struct host_match *match)
{
    return match->base >= 0 && match->new >= 0 ? "both" : match->base >= 0 ? "base" : "new";
}

static const char *match_name(const struct compared_runs *runs, const struct host_match *match)
{
    return match->base >= 0 ? runs->sides[0].hosts.hosts[match->base].name
                            : runs->sides[1].hosts.hosts[match->new].name;
}

/* A run's name as reports give it: the log directory's, else its path. */
static const char *side_run_name(const struct compared_runs *runs, size_t side,
                                 const struct options *options)
{
    const struct source *source = &runs->sides[side];
    if (source->hosts.run)
        return source->hosts.run;
    return options->paths[options->path_count == 2 ? side : 0];
}

/* Loads the matched host's two profiles (saying why one failed). */
static int match_load(struct compared_runs *runs, const struct host_match *match, bool warnings)
{
    int status = EXIT_OK;
    long index[2] = {match->base, match->new};
    for (size_t side = 0; side < 2; side++) {
        struct host_list *hosts = &runs->sides[side].hosts;
        const struct host *host = &hosts->hosts[index[side]];
        const struct profile *profile = load_host(hosts, (size_t)index[side]);
        if (!profile) {
            print_load_error(host->path, &host->error);
            status = exit_status_worst(status, exit_status_for(host->status));
        } else if (warnings) {
            print_load_warnings(host->path, profile);
        }
    }
    return status;
}

static void match_unload(struct compared_runs *runs, const struct host_match *match)
{
    host_unload(&runs->sides[0].hosts.hosts[match->base]);
    host_unload(&runs->sides[1].hosts.hosts[match->new]);
}

static void runs_text_head(const struct compared_runs *runs, const struct options *options)
{
    size_t both = 0, base_only = 0, new_only = 0;
    for (size_t i = 0; i < runs->match_count; i++) {
        const struct host_match *match = &runs->matches[i];
        both += match->base >= 0 && match->new >= 0;
        base_only += match->new < 0;
        new_only += match->base < 0;
    }
    char base_run[1024], new_run[1024];
    format_safe_text(side_run_name(runs, 0, options), false, base_run, sizeof base_run);
    format_safe_text(side_run_name(runs, 1, options), false, new_run, sizeof new_run);
    printf("Two runs compared host by host (delta: new minus base)\n  base  run %s\n"
           "  new   run %s\n  hosts: %zu matched by name, %zu only in base, %zu only in new\n",
           base_run, new_run, both, base_only, new_only);
}

int compare_cli_runs_summary(struct compared_runs *runs, const struct options *options,
                             const struct summary_report_options *report)
{
    int status = EXIT_OK, write_error = 0;
    bool crossed = false;
    struct json_writer writer;
    if (options->json) {
        json_writer_init(&writer, stdout);
        json_writer_object_begin(&writer);
        json_writer_member_string(&writer, "base_run", side_run_name(runs, 0, options));
        json_writer_member_string(&writer, "new_run", side_run_name(runs, 1, options));
        json_writer_key(&writer, "hosts");
        json_writer_array_begin(&writer);
    } else {
        runs_text_head(runs, options);
    }
    for (size_t i = 0; i < runs->match_count; i++) {
        const struct host_match *match = &runs->matches[i];
        const char *name = match_name(runs, match);
        bool both = match->base >= 0 && match->new >= 0;
        if (options->json) {
            json_writer_object_begin(&writer);
            json_writer_member_string(&writer, "host", name);
            json_writer_member_string(&writer, "in", match_presence(match));
            json_writer_key(&writer, "comparison");
        } else {
            char safe[512];
            format_safe_text(name, false, safe, sizeof safe);
            printf("\n== host %s%s ==\n", safe,
                   both ? "" : match->base >= 0 ? ": only in base" : ": only in new");
        }
        int host_status = both ? match_load(runs, match, true) : EXIT_OK;
        if (both && host_status == EXIT_OK) {
            const struct profile *base = runs->sides[0].hosts.hosts[match->base].profile;
            const struct profile *new = runs->sides[1].hosts.hosts[match->new].profile;
            crossed = compare_write(base, new, options, report, options->json ? &writer : NULL,
                                    &host_status) || crossed;
        } else if (options->json) {
            json_writer_null(&writer);
        } else if (both) {
            printf("(not compared: a profile did not load)\n");
        }
        if (both)
            match_unload(runs, match);
        if (options->json)
            json_writer_object_end(&writer);
        status = exit_status_worst(status, host_status);
    }
    if (options->json) {
        json_writer_array_end(&writer);
        json_writer_object_end(&writer);
        if (!writer.error)
            fputc('\n', stdout);
        write_error = json_writer_finish(&writer);
    }
    if (status == EXIT_OK && crossed)
        status = EXIT_GATE_CROSSED;
    return stdout_finish(status, write_error);
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
                              const struct options *options,
                              const struct allocator **base_allocator,
                              const struct allocator **new_allocator)
{
    const char *id = options->export.allocator;
    struct profile_comparison comparison;
    if (!compare_build(&comparison, base, new, options)) {
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
    status = compare_cli_check_pairings(base, new, options);
    if (status == EXIT_OK)
        status = compare_pick_pair(base, new, options, &base_allocator, &new_allocator);
    if (status != EXIT_OK)
        return status;
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_COMPARE, base, base_allocator);
    request.new_profile = new;
    request.new_allocator = new_allocator;
    return export_output(&request, NULL, &options->export);
}

/* --export compare of two runs: one CSV, a "host" column first, the
 * matched hosts one after the other (a host in one run only is said on
 * stderr and left out). */
struct runs_export {
    struct compared_runs *runs;
    const struct options *options;
    size_t *both; /* indices into runs->matches of the matched hosts */
    const char *lead_values[1];
    int status;
};

static const char *const lead_host[] = {"host"};

static bool runs_export_next(void *context, size_t index, struct export_request *request)
{
    struct runs_export *export = context;
    const struct host_match *match = &export->runs->matches[export->both[index]];
    int status = match_load(export->runs, match, true);
    const struct allocator *base_allocator = NULL, *new_allocator = NULL;
    const struct profile *base = NULL, *new = NULL;
    if (status == EXIT_OK) {
        base = export->runs->sides[0].hosts.hosts[match->base].profile;
        new = export->runs->sides[1].hosts.hosts[match->new].profile;
        status = compare_pick_pair(base, new, export->options, &base_allocator, &new_allocator);
    }
    export->status = exit_status_worst(export->status, status);
    if (status != EXIT_OK) {
        match_unload(export->runs, match);
        return false;
    }
    export_request_init(request, EXPORT_VIEW_COMPARE, base, base_allocator);
    request->new_profile = new;
    request->new_allocator = new_allocator;
    export->lead_values[0] = match_name(export->runs, match);
    request->lead_names = lead_host;
    request->lead_values = export->lead_values;
    request->lead_count = 1;
    return true;
}

static void runs_export_done(void *context, size_t index)
{
    struct runs_export *export = context;
    match_unload(export->runs, &export->runs->matches[export->both[index]]);
}

static const char *runs_export_name(void *context, size_t index)
{
    struct runs_export *export = context;
    return match_name(export->runs, &export->runs->matches[export->both[index]]);
}

int compare_cli_runs_export(struct compared_runs *runs, const struct options *options)
{
    size_t *both = calloc(runs->match_count ? runs->match_count : 1, sizeof *both);
    if (!both) {
        print_error("out of memory");
        return EXIT_RUNTIME_FAILURE;
    }
    size_t count = 0;
    for (size_t i = 0; i < runs->match_count; i++) {
        const struct host_match *match = &runs->matches[i];
        if (match->base >= 0 && match->new >= 0) {
            both[count++] = i;
            continue;
        }
        char safe[512];
        format_safe_text(match_name(runs, match), false, safe, sizeof safe);
        fprintf(stderr, "memtop: host %s is only in %s: not compared\n", safe,
                match->base >= 0 ? "base" : "new");
    }
    struct runs_export export = {runs, options, both, {NULL}, EXIT_OK};
    struct export_each each = {count, runs_export_next, runs_export_done, runs_export_name,
                               &export};
    int status = EXIT_OK;
    if (count == 0) {
        print_error("no host is in both runs: nothing to compare");
        status = EXIT_BAD_INPUT;
    } else {
        status = export_output(NULL, &each, &options->export);
    }
    free(both);
    return exit_status_worst(export.status, status);
}

/* The viewer on two runs: the matched hosts' files, BASE then NEW of
 * each (paths, 2 x *count), their names, and a line for the status. */
int compare_cli_runs_hosts(struct compared_runs *runs, const char **paths, const char **names,
                           size_t *count, char *note, size_t note_size)
{
    size_t only = 0;
    *count = 0;
    for (size_t i = 0; i < runs->match_count; i++) {
        const struct host_match *match = &runs->matches[i];
        if (match->base < 0 || match->new < 0) {
            only++;
            continue;
        }
        paths[2 * *count] = runs->sides[0].hosts.hosts[match->base].path;
        paths[2 * *count + 1] = runs->sides[1].hosts.hosts[match->new].path;
        names[(*count)++] = match_name(runs, match);
    }
    if (*count == 0) {
        print_error("no host is in both runs: nothing to compare");
        return EXIT_BAD_INPUT;
    }
    /* "2 hosts in both runs (} next host); only in base: w-2; only in new: w-3" */
    struct message_text line;
    message_text_start(&line, note, note_size);
    message_text_append_format(&line, "%zu host%s in both runs%s", *count, *count == 1 ? "" : "s",
                               *count > 1 ? " ({ } step through them)" : "");
    for (size_t side = 0; side < 2 && only > 0; side++) {
        const char *separator = side == 0 ? "; only in base: " : "; only in new: ";
        for (size_t i = 0; i < runs->match_count; i++) {
            const struct host_match *match = &runs->matches[i];
            if ((side == 0 ? match->new : match->base) >= 0)
                continue;
            message_text_append_format(&line, "%s%s", separator, match_name(runs, match));
            separator = ", ";
        }
    }
    return EXIT_OK;
}
