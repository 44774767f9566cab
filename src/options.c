#include "config.h"

#include "src/options.h"

#include "model/load.h"
#include "model/logdir.h"
#include "report/summary_report.h"
#include "src/compare_options.h"

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { OPTION_NO_COLOR = 256, OPTION_ASCII, OPTION_MOUSE, OPTION_LIST_KEYS };
enum { OPTION_LIST = 768, OPTION_RUN, OPTION_HOST, OPTION_TOP, OPTION_NO_SETTINGS, OPTION_FOLLOW, OPTION_PEAKS };
enum { OPTION_COMPARE = 1024, OPTION_PAIR };
enum { OPTION_MIN_SIZE = 1536, OPTION_GROUP_BY };
enum { OPTION_FAIL_OVER = 1792, OPTION_FAIL_GROWTH };
enum {
    OPTION_EXPORT = 512,
    OPTION_ALLOCATOR,
    OPTION_FROM,
    OPTION_TO,
    OPTION_FILTER,
    OPTION_SORT,
    OPTION_FORCE,
};
enum { OPTION_AT = 1280, OPTION_SINCE };

static const struct option long_options[] = {
    {"summary", no_argument, NULL, 's'},
    {"json", no_argument, NULL, 'j'},
    {"top", required_argument, NULL, OPTION_TOP},
    {"export", required_argument, NULL, OPTION_EXPORT},
    {"allocator", required_argument, NULL, OPTION_ALLOCATOR},
    {"from", required_argument, NULL, OPTION_FROM},
    {"to", required_argument, NULL, OPTION_TO},
    {"filter", required_argument, NULL, OPTION_FILTER},
    {"sort", required_argument, NULL, OPTION_SORT},
    {"min-size", required_argument, NULL, OPTION_MIN_SIZE},
    {"fail-over", required_argument, NULL, OPTION_FAIL_OVER},
    {"fail-growth", required_argument, NULL, OPTION_FAIL_GROWTH},
    {"group-by", required_argument, NULL, OPTION_GROUP_BY},
    {"output", required_argument, NULL, 'o'},
    {"force", no_argument, NULL, OPTION_FORCE},
    {"at", required_argument, NULL, OPTION_AT},
    {"since", required_argument, NULL, OPTION_SINCE},
    {"list", no_argument, NULL, OPTION_LIST},
    {"run", required_argument, NULL, OPTION_RUN},
    {"host", required_argument, NULL, OPTION_HOST},
    {"ascii", no_argument, NULL, OPTION_ASCII},
    {"no-color", no_argument, NULL, OPTION_NO_COLOR},
    {"mouse", no_argument, NULL, OPTION_MOUSE},
    {"no-settings", no_argument, NULL, OPTION_NO_SETTINGS},
    {"follow", no_argument, NULL, OPTION_FOLLOW},
    {"peaks", no_argument, NULL, OPTION_PEAKS},
    {"compare", no_argument, NULL, OPTION_COMPARE},
    {"pair", required_argument, NULL, OPTION_PAIR},
    {"list-keys", optional_argument, NULL, OPTION_LIST_KEYS},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

/* No PROFILE given: $TENSORBOARD_LOGDIR when it names a directory, else
 * the current directory when it holds profiles (a run or a log
 * directory); false when neither. */
static bool options_default_path(struct options *options)
{
    static char *found[1];
    static char current[] = ".";
    const char *logdir = getenv("TENSORBOARD_LOGDIR");
    struct stat status;
    if (logdir && logdir[0] && stat(logdir, &status) == 0 && S_ISDIR(status.st_mode)) {
        found[0] = (char *)logdir;
    } else {
        struct logdir here;
        struct load_error error;
        if (logdir_open(current, &here, &error) != LOAD_OK)
            return false;
        logdir_free(&here);
        found[0] = current;
    }
    options->paths = found;
    options->path_count = 1;
    return true;
}

void options_print_usage(FILE *out)
{
    fputs("Usage: memtop [OPTION]... PROFILE...\n"
          "       memtop [OPTION]... LOGDIR\n"
          "       memtop [OPTION]... --compare BASE NEW\n",
          out);
}

int options_print_help(FILE *out)
{
    errno = 0;
    fputs("Usage: memtop [OPTION]... PROFILE...\n"
          "       memtop [OPTION]... LOGDIR\n"
          "       memtop [OPTION]... --compare BASE NEW\n"
          "View the memory profile of a PyTorch, JAX, TensorFlow or XProf job in the\n"
          "terminal: each allocator's memory over time, the peak, and what was live at\n"
          "the peak. Without PROFILE: $TENSORBOARD_LOGDIR, else the current directory\n"
          "when it holds profiles.\n"
          "\n"
          "PROFILE is a profile in one of the formats below (gzipped or not, but\n"
          "for Skyline's SQLite). Several files, or a\n"
          "directory of them (one profile per host), open as hosts. LOGDIR is a\n"
          "TensorBoard log directory: its runs are found in every plugins/profile\n"
          "directory below it, and the newest run's hosts open (a run directory\n"
          "opens that run).\n"
          "\n"
          "      --list        list LOGDIR's runs, their hosts and XProf's tools for\n"
          "                    them, and exit (with --json: as JSON)\n"
          "      --peaks       with --list: each host's peak and % of capacity (the\n"
          "                    hosts are read, several at a time)\n"
          "      --run NAME    the run of LOGDIR to open (as --list names it, or its\n"
          "                    folder's name); default: the newest\n"
          "      --host NAME   that host: the viewer opens it first, --summary and\n"
          "                    --export report only it\n"
          "  -s, --summary     print each allocator's summary and exit\n"
          "  -j, --json        with --summary: print it as JSON\n"
          "      --top N       with --summary: list the N largest allocations at\n"
          "                    each allocator's peak (default 10; 0: none)\n"
          "      --export VIEW write VIEW as CSV and exit: allocations (active at\n"
          "                    the peak), timeline, summary, hlo, steps (each\n"
          "                    step's span, peak, end and counts) or spans (the\n"
          "                    file's named spans, alike); or chrome-trace:\n"
          "                    the profile as a Chrome trace JSON for Perfetto\n"
          "      --allocator ID  with --export: that allocator (default: the first;\n"
          "                    for summary and chrome-trace, all of them); ID as\n"
          "                    memtop shows it, e.g. A\\x00x for an id holding a NUL\n"
          "      --from MS, --to MS\n"
          "                    with --export timeline: only the snapshots in this\n"
          "                    window, in milliseconds, both ends included\n"
          "      --at MS       with --export allocations: the allocations live at\n"
          "                    MS milliseconds instead of at the peak (needs the\n"
          "                    whole timeline: version 0, XSpace, Chrome traces)\n"
          "      --since MS0   with --at: only those allocated after MS0 (what grew)\n"
          "      --filter TEXT with --export allocations: rows whose op name, region,\n"
          "                    data type, shape, kind or location contains TEXT\n"
          "      --sort COLUMN[:asc|:desc]\n"
          "                    with --export allocations: sort by a column, named as\n"
          "                    the viewer's header names it (size, total, op, ...)\n"
          "                    or as the CSV header does (allocation_bytes, ...)\n"
          "      --min-size BYTES\n"
          "                    with --export allocations or --summary: leave out\n"
          "                    rows holding less (size x count; 1048576, 1MiB, 16M)\n"
          "      --group-by KEY[:SCOPE]\n"
          "                    with --export allocations: one row per group, largest\n"
          "                    first: scope (op-name scopes under SCOPE, like\n"
          "                    model/), location or file (Skyline reports)\n"
          "      --compare BASE NEW\n"
          "                    two profiles compared: the viewer (both timelines on\n"
          "                    one chart, the summaries side by side, the ops live at\n"
          "                    each peak), or with --summary [--json] each matched\n"
          "                    allocator's deltas; --export compare BASE NEW writes\n"
          "                    the op table as CSV (allocators match by memory id)\n"
          "                    BASE and NEW may be two log or run directories (their\n"
          "                    newest runs, or --run BASE_RUN --run NEW_RUN), or one\n"
          "                    log directory with --run BASE_RUN --run NEW_RUN: its\n"
          "                    hosts compared one by one, matched by name\n"
          "      --pair BASE_ID=NEW_ID\n"
          "                    with --compare: pair BASE's allocator BASE_ID with\n"
          "                    NEW's NEW_ID (GPU_0_bfc=cuda:0); repeatable\n"
          "      --fail-over SIZE|PCT\n"
          "                    with --summary (implied): exit 3 when an allocator's\n"
          "                    peak is above SIZE (16GiB) or above PCT of its\n"
          "                    capacity (90%), one line on stderr for each\n"
          "      --fail-growth PCT\n"
          "                    with --compare BASE NEW: exit 3 when a matched\n"
          "                    allocator's peak grew by more than PCT (10%)\n"
          "  -o, --output FILE with --export: write FILE (atomically), not stdout\n"
          "      --force       with -o: replace FILE if it exists\n"
          "      --ascii       draw with ASCII only, even in a UTF-8 terminal\n"
          "      --no-color    no colours (also when NO_COLOR is set)\n"
          "      --mouse       let the mouse select and scroll (off by default so\n"
          "                    the terminal's own text selection keeps working)\n"
          "      --no-settings neither read nor write the viewer's remembered settings\n"
          "                    ($XDG_STATE_HOME/memtop/settings)\n"
          "      --follow      the viewer watches the log directory: new runs and\n"
          "                    hosts appear as they are written (R reloads by hand)\n"
          "      --list-keys[=FORMAT]\n"
          "                    print the viewer's keys and exit, as a Markdown table\n"
          "                    (FORMAT markdown, the default) or man page text (man)\n"
          "  -h, --help        show this help and exit\n"
          "  -V, --version     show the version and exit\n"
          "\n"
          "Formats (found from the content, never the file name):\n",
          out);
    const char *name, *description;
    for (size_t i = 0; load_format_describe(i, &name, &description); i++)
        fprintf(out, "  %-13s %s\n", name, description);
    fputs("\n"
          "PROFILE may be - for standard input, or a pipe or FIFO (<(gsutil cat URL)).\n"
          "\n"
          "Exit status: 0 ok, 1 runtime failure, 2 bad usage or bad input,\n"
          "3 a gate crossed (--fail-over, --fail-growth).\n"
          "In the viewer, press ? for the keys. See also man memtop.\n",
          out);
    /* The help is longer than stdio's buffer: a write that failed on the
     * way is only known here (a final flush would find nothing left). */
    return ferror(out) ? (errno ? errno : EIO) : 0;
}

/* --top N: a count of rows, 0 included. */
static bool top_option_parse(const char *argument, struct options *options, char *error,
                             size_t error_size)
{
    char *end = NULL;
    errno = 0;
    unsigned long long value = strtoull(argument, &end, 10);
    if (argument[0] < '0' || argument[0] > '9' || *end || errno || value > SIZE_MAX) {
        snprintf(error, error_size, "--top: '%s' is not a number of rows", argument);
        return false;
    }
    options->top_rows = (size_t)value;
    options->has_top = true;
    return true;
}

/* --min-size BYTES. */
static bool min_size_option_parse(const char *argument, struct options *options, char *error,
                                  size_t error_size)
{
    if (!export_size_parse(argument, &options->min_bytes)) {
        snprintf(error, error_size,
                 "--min-size: '%s' is not a size (bytes, or with K, KiB, M, MiB, G, GiB)",
                 argument);
        return false;
    }
    options->has_min_size = true;
    return true;
}

/* "80%", "12.5%" (percent_sign: the sign is required), or "80" when it
 * is not: a finite percentage, 0 or more. */
static bool percent_parse(const char *text, bool percent_sign, double *percent)
{
    size_t length = strlen(text);
    bool signed_ = length > 0 && text[length - 1] == '%';
    if ((percent_sign && !signed_) || length == 0 || text[0] < '0' || text[0] > '9')
        return false;
    char number[64];
    if (length - signed_ >= sizeof number)
        return false;
    memcpy(number, text, length - signed_);
    number[length - signed_] = '\0';
    char *end;
    errno = 0;
    double value = strtod(number, &end);
    if (*end || errno || !(value >= 0) || value > 1e12)
        return false;
    *percent = value;
    return true;
}

/* --fail-over SIZE|PCT, --fail-growth PCT. */
static bool gate_option_parse(int option, const char *argument, struct gate_options *gates,
                              char *error, size_t error_size)
{
    if (option == OPTION_FAIL_GROWTH) {
        gates->fail_growth = percent_parse(argument, false, &gates->growth_percent);
        gates->growth_text = argument;
        if (!gates->fail_growth)
            snprintf(error, error_size, "--fail-growth: '%s' is not a percentage (10, 10%%)",
                     argument);
        return gates->fail_growth;
    }
    struct gate_limit *over = &gates->over;
    over->percent = strchr(argument, '%') != NULL;
    gates->fail_over = over->percent ? percent_parse(argument, true, &over->share)
                                     : export_size_parse(argument, &over->bytes);
    gates->over_text = argument;
    if (!gates->fail_over)
        snprintf(error, error_size,
                 "--fail-over: '%s' is neither a size (bytes, or with K, KiB, M, MiB, G, GiB) "
                 "nor a share of the capacity (80%%)",
                 argument);
    return gates->fail_over;
}

/* The gates go with --summary [--json] (implied when no other mode is
 * asked for), --fail-growth with --compare. */
static bool gate_options_check(struct options *options, char *error, size_t error_size)
{
    struct gate_options *gates = &options->gates;
    if (!gates->fail_over && !gates->fail_growth)
        return true;
    if (options->mode == RUN_VIEWER)
        options->mode = RUN_SUMMARY;
    if (options->mode != RUN_SUMMARY) {
        snprintf(error, error_size, "--fail-over and --fail-growth go with --summary");
        return false;
    }
    if (gates->fail_growth && !options->compare) {
        snprintf(error, error_size, "--fail-growth goes with --compare BASE NEW");
        return false;
    }
    return true;
}

/* --from, --to, --at, --since: a time in milliseconds, exactly. */
static bool export_time_option_parse(int option, const char *argument,
                                     struct export_options *export, char *error,
                                     size_t error_size)
{
    struct time_option {
        const char *name;
        int64_t *value;
        bool *given;
    };
    const struct time_option times[] = {
        {"--from", &export->from_ps, &export->has_from},
        {"--to", &export->to_ps, &export->has_to},
        {"--at", &export->at_ps, &export->has_at},
        {"--since", &export->since_ps, &export->has_since},
    };
    const struct time_option *time = &times[option == OPTION_FROM ? 0
                                            : option == OPTION_TO ? 1
                                            : option == OPTION_AT ? 2
                                                                  : 3];
    if (!export_milliseconds_parse(argument, time->value)) {
        snprintf(error, error_size,
                 "%s: '%s' is not a time in milliseconds (like 1685.89; at most 9 decimals)",
                 time->name, argument);
        return false;
    }
    *time->given = true;
    return true;
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
    case OPTION_TO:
    case OPTION_AT:
    case OPTION_SINCE: return export_time_option_parse(option, argument, export, error, error_size);
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
    case OPTION_GROUP_BY:
        if (!export_group_parse(argument, &export->group_by, &export->group_scope)) {
            snprintf(error, error_size, "--group-by: unknown key '%s' (%s; scope:SCOPE)",
                     argument, row_group_key_list());
            return false;
        }
        export->has_group_by = true;
        return true;
    case 'o':
        if (!*argument) { /* "" names no file; refused here rather than by open() */
            snprintf(error, error_size, "-o: empty file name");
            return false;
        }
        export->output = argument;
        return true;
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
        if (export->has_group_by)
            return "--group-by";
        if (export->has_at || export->has_since)
            return export->has_at ? "--at" : "--since";
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
    if (export->view != EXPORT_VIEW_ALLOCATIONS && export->has_group_by)
        return "--group-by";
    *needs = "--export allocations or segments";
    if (export->view != EXPORT_VIEW_ALLOCATIONS && export->view != EXPORT_VIEW_SEGMENTS &&
        export->has_at)
        return "--at";
    *needs = "--export allocations";
    if (export->view == EXPORT_VIEW_SEGMENTS && export->has_since)
        return "--since";
    *needs = "--at MS";
    if (export->has_since && !export->has_at)
        return "--since";
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
    options->top_rows = SUMMARY_REPORT_TOP_ROWS;
    const char *no_color = getenv("NO_COLOR");
    options->no_color = no_color && no_color[0];
    opterr = 0;
    optind = 1;
    int option;
    bool list = false;
    while ((option = getopt_long(argc, argv, ":sjhVo:", long_options, NULL)) != -1) {
        switch (option) {
        case 's': options->mode = RUN_SUMMARY; break;
        case 'j': options->json = true; break;
        case OPTION_ASCII: options->ascii = true; break;
        case OPTION_NO_COLOR: options->no_color = true; break;
        case OPTION_MOUSE: options->mouse = true; break;
        case OPTION_NO_SETTINGS: options->no_settings = true; break;
        case OPTION_FOLLOW: options->follow = true; break;
        case OPTION_PEAKS: options->peaks = true; break;
        case OPTION_COMPARE: options->compare = true; break;
        case OPTION_PAIR:
            if (!compare_pair_option_parse(optarg, options, error, error_size))
                return false;
            break;
        case OPTION_TOP:
            if (!top_option_parse(optarg, options, error, error_size))
                return false;
            break;
        case OPTION_MIN_SIZE:
            if (!min_size_option_parse(optarg, options, error, error_size))
                return false;
            break;
        case OPTION_FAIL_OVER:
        case OPTION_FAIL_GROWTH:
            if (!gate_option_parse(option, optarg, &options->gates, error, error_size))
                return false;
            break;
        case OPTION_EXPORT: case OPTION_ALLOCATOR: case OPTION_FROM: case OPTION_TO:
        case OPTION_FILTER: case OPTION_SORT: case 'o': case OPTION_FORCE: case OPTION_GROUP_BY:
        case OPTION_AT: case OPTION_SINCE:
            if (!export_option_parse(option, optarg, options, error, error_size))
                return false;
            break;
        case 'h': options->mode = RUN_HELP; return true;
        case 'V': options->mode = RUN_VERSION; return true;
        case OPTION_LIST_KEYS:
            if (optarg && strcmp(optarg, "man") != 0 && strcmp(optarg, "markdown") != 0) {
                snprintf(error, error_size, "--list-keys: unknown format '%s' (markdown, man)",
                         optarg);
                return false;
            }
            options->list_keys_man = optarg && strcmp(optarg, "man") == 0;
            options->mode = RUN_LIST_KEYS;
            return true;
        case OPTION_LIST: list = true; break;
        case OPTION_RUN:
            if (!compare_run_option_parse(optarg, options, error, error_size))
                return false;
            break;
        case OPTION_HOST: options->host = optarg; break;
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
    if (!compare_options_check(options, list, error, error_size))
        return false;
    if (!options->compare && (options->run_new || options->pairing_count)) {
        snprintf(error, error_size, "%s goes with --compare",
                 options->run_new ? "a second --run" : "--pair");
        return false;
    }
    if (list && (options->mode != RUN_VIEWER || options->run || options->host)) {
        snprintf(error, error_size, "--list goes alone (with --json)");
        return false;
    }
    if (list)
        options->mode = RUN_LIST;
    if (options->peaks && !list) {
        snprintf(error, error_size, "--peaks goes with --list");
        return false;
    }
    if (!export_options_check(options, error, error_size) ||
        !gate_options_check(options, error, error_size))
        return false;
    if (options->json && options->mode != RUN_SUMMARY && options->mode != RUN_LIST) {
        snprintf(error, error_size, "--json goes with --summary");
        return false;
    }
    if (options->has_top && options->mode != RUN_SUMMARY) {
        snprintf(error, error_size, "--top goes with --summary");
        return false;
    }
    options->export.min_bytes = options->min_bytes;
    if (options->has_min_size && options->mode != RUN_SUMMARY &&
        !(options->mode == RUN_EXPORT && options->export.view == EXPORT_VIEW_ALLOCATIONS)) {
        snprintf(error, error_size, "--min-size goes with --summary or --export allocations");
        return false;
    }
    options->paths = argv + optind;
    options->path_count = (size_t)(argc - optind);
    if (options->path_count == 0 && !options_default_path(options)) {
        snprintf(error, error_size, "no profile given, and neither $TENSORBOARD_LOGDIR nor the "
                                    "current directory holds one");
        options->show_usage = true;
        return false;
    }
    if (options->compare)
        return compare_paths_check(options, error, error_size);
    if (options->mode == RUN_EXPORT && options->path_count > 1) {
        snprintf(error, error_size, "--export takes one profile");
        return false;
    }
    if (options->mode == RUN_LIST && options->path_count > 1) {
        snprintf(error, error_size, "--list takes one log directory");
        return false;
    }
    return true;
}
