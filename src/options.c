#include "config.h"

#include "src/options.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

enum { OPTION_NO_COLOR = 256, OPTION_ASCII, OPTION_MOUSE, OPTION_LIST_KEYS };
enum {
    OPTION_EXPORT = 512,
    OPTION_ALLOCATOR,
    OPTION_FROM,
    OPTION_TO,
    OPTION_FILTER,
    OPTION_SORT,
    OPTION_FORCE,
};

static const struct option long_options[] = {
    {"summary", no_argument, NULL, 's'},
    {"json", no_argument, NULL, 'j'},
    {"export", required_argument, NULL, OPTION_EXPORT},
    {"allocator", required_argument, NULL, OPTION_ALLOCATOR},
    {"from", required_argument, NULL, OPTION_FROM},
    {"to", required_argument, NULL, OPTION_TO},
    {"filter", required_argument, NULL, OPTION_FILTER},
    {"sort", required_argument, NULL, OPTION_SORT},
    {"output", required_argument, NULL, 'o'},
    {"force", no_argument, NULL, OPTION_FORCE},
    {"ascii", no_argument, NULL, OPTION_ASCII},
    {"no-color", no_argument, NULL, OPTION_NO_COLOR},
    {"mouse", no_argument, NULL, OPTION_MOUSE},
    /* Hidden from --help: it writes the README's key list. */
    {"list-keys", no_argument, NULL, OPTION_LIST_KEYS},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

void options_print_help(FILE *out)
{
    fputs("Usage: memtop [OPTION]... PROFILE...\n"
          "View the memory profile of a TensorFlow, JAX or XProf job in the terminal:\n"
          "each allocator's memory over time, the peak, and what was live at the peak.\n"
          "\n"
          "PROFILE is a MemoryProfile as binary protobuf or JSON, gzipped or not\n"
          "(the form is found from the content). Several files, or a directory of\n"
          "them (one profile per host), open as hosts.\n"
          "\n"
          "  -s, --summary     print each allocator's summary and exit\n"
          "  -j, --json        with --summary: print it as JSON\n"
          "      --export VIEW write VIEW as CSV and exit: allocations (active at\n"
          "                    the peak), timeline, summary or hlo\n"
          "      --allocator ID  with --export: that allocator (default: the first;\n"
          "                    for summary, all of them); ID as memtop shows it,\n"
          "                    e.g. A\\x00x for an id holding a NUL byte\n"
          "      --from MS, --to MS\n"
          "                    with --export timeline: only the snapshots in this\n"
          "                    window, in milliseconds, both ends included\n"
          "      --filter TEXT with --export allocations: op names containing TEXT\n"
          "      --sort COLUMN[:asc|:desc]\n"
          "                    with --export allocations: sort by a column of the\n"
          "                    CSV header (op_name, allocation_bytes, ...)\n"
          "  -o, --output FILE with --export: write FILE (atomically), not stdout\n"
          "      --force       with -o: replace FILE if it exists\n"
          "      --ascii       draw with ASCII only, even in a UTF-8 terminal\n"
          "      --no-color    no colours (also when NO_COLOR is set)\n"
          "      --mouse       let the mouse select and scroll (off by default so\n"
          "                    the terminal's own text selection keeps working)\n"
          "  -h, --help        show this help and exit\n"
          "  -V, --version     show the version and exit\n"
          "\n"
          "Exit status: 0 ok, 1 runtime failure, 2 bad usage or bad input.\n"
          "In the viewer, press ? for the keys.\n",
          out);
}

/* One of the --export options, checked as far as it can be alone. */
static bool export_option_parse(int option, const char *argument, struct options *options,
                                char *error, size_t error_size)
{
    struct export_options *export = &options->export;
    switch (option) {
    case OPTION_EXPORT:
        if (!export_view_parse(argument, &export->view)) {
            snprintf(error, error_size, "--export: unknown view '%s' (%s)", argument,
                     export_view_list());
            return false;
        }
        if (options->mode == RUN_SUMMARY) {
            snprintf(error, error_size, "--export and --summary do not go together");
            return false;
        }
        export->requested = true;
        options->mode = RUN_EXPORT;
        return true;
    case OPTION_FROM:
    case OPTION_TO: {
        bool from = option == OPTION_FROM;
        if (!export_milliseconds_parse(argument, from ? &export->from_ps : &export->to_ps)) {
            snprintf(error, error_size,
                     "%s: '%s' is not a time in milliseconds (like 1685.89; at most 9 "
                     "decimals)", from ? "--from" : "--to", argument);
            return false;
        }
        *(from ? &export->has_from : &export->has_to) = true;
        return true;
    }
    case OPTION_SORT:
        if (!export_sort_parse(argument, &export->sort_column, &export->sort_descending)) {
            snprintf(error, error_size, "--sort: unknown column '%s' (%s; then :asc or :desc)",
                     argument, export_sort_list());
            return false;
        }
        export->has_sort = true;
        return true;
    case OPTION_ALLOCATOR: export->allocator = argument; return true;
    case OPTION_FILTER:
        if (strlen(argument) >= ALLOCATION_TABLE_FILTER_SIZE) {
            snprintf(error, error_size, "--filter: longer than %d bytes",
                     ALLOCATION_TABLE_FILTER_SIZE - 1);
            return false;
        }
        export->filter = argument;
        return true;
    case 'o': export->output = argument; return true;
    case OPTION_FORCE: export->force = true; return true;
    default: return false;
    }
}

/* An export option given without what it goes with (named in *needs). */
static const char *export_option_misplaced(const struct export_options *export,
                                           const char **needs)
{
    *needs = "--export";
    if (!export->requested) {
        if (export->allocator)
            return "--allocator";
        if (export->has_from || export->has_to)
            return export->has_from ? "--from" : "--to";
        if (export->filter || export->has_sort)
            return export->filter ? "--filter" : "--sort";
        if (export->output || export->force)
            return export->output ? "-o" : "--force";
        return NULL;
    }
    *needs = "--export timeline";
    if (export->view != EXPORT_VIEW_TIMELINE && (export->has_from || export->has_to))
        return export->has_from ? "--from" : "--to";
    *needs = "--export allocations";
    if (export->view != EXPORT_VIEW_ALLOCATIONS && (export->filter || export->has_sort))
        return export->filter ? "--filter" : "--sort";
    *needs = "-o FILE";
    if (export->force && !export->output)
        return "--force";
    return NULL;
}

static bool export_options_check(struct options *options, char *error, size_t error_size)
{
    struct export_options *export = &options->export;
    if (export->requested && options->mode != RUN_EXPORT) {
        snprintf(error, error_size, "--export and --summary do not go together");
        return false;
    }
    const char *needs;
    const char *misplaced = export_option_misplaced(export, &needs);
    if (misplaced) {
        snprintf(error, error_size, "%s goes with %s", misplaced, needs);
        return false;
    }
    if (!export->has_from)
        export->from_ps = INT64_MIN;
    if (!export->has_to)
        export->to_ps = INT64_MAX;
    if (export->from_ps > export->to_ps) {
        snprintf(error, error_size, "--from is after --to");
        return false;
    }
    return true;
}

bool options_parse(int argc, char **argv, struct options *options, char *error,
                   size_t error_size)
{
    memset(options, 0, sizeof *options);
    const char *no_color = getenv("NO_COLOR");
    options->no_color = no_color && no_color[0];
    opterr = 0;
    optind = 1;
    int option;
    while ((option = getopt_long(argc, argv, ":sjhVo:", long_options, NULL)) != -1) {
        switch (option) {
        case 's': options->mode = RUN_SUMMARY; break;
        case 'j': options->json = true; break;
        case OPTION_ASCII: options->ascii = true; break;
        case OPTION_NO_COLOR: options->no_color = true; break;
        case OPTION_MOUSE: options->mouse = true; break;
        case OPTION_EXPORT: case OPTION_ALLOCATOR: case OPTION_FROM: case OPTION_TO:
        case OPTION_FILTER: case OPTION_SORT: case 'o': case OPTION_FORCE:
            if (!export_option_parse(option, optarg, options, error, error_size))
                return false;
            break;
        case 'h': options->mode = RUN_HELP; return true;
        case 'V': options->mode = RUN_VERSION; return true;
        case OPTION_LIST_KEYS: options->mode = RUN_LIST_KEYS; return true;
        case ':':
            snprintf(error, error_size, "option '%s' needs an argument", argv[optind - 1]);
            return false;
        default:
            if (optopt)
                snprintf(error, error_size, "unknown option '-%c'", optopt);
            else
                snprintf(error, error_size, "unknown option '%s'", argv[optind - 1]);
            return false;
        }
    }
    if (!export_options_check(options, error, error_size))
        return false;
    if (options->json && options->mode != RUN_SUMMARY) {
        snprintf(error, error_size, "--json goes with --summary");
        return false;
    }
    options->paths = argv + optind;
    options->path_count = (size_t)(argc - optind);
    if (options->path_count == 0) {
        snprintf(error, error_size, "no profile given");
        return false;
    }
    if (options->mode == RUN_EXPORT && options->path_count > 1) {
        snprintf(error, error_size, "--export takes one profile");
        return false;
    }
    return true;
}
