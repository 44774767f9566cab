/* generate_xspace: writes a deterministic XSpace (`.xplane.pb`) of a
 * simulated training job, as TensorFlow, JAX or a TPU runtime leave them,
 * and optionally what XProf's memory_profile tool reports for it.
 *
 * The project's test and benchmark tool for XSpace input: the file's
 * layout follows ../shared/spec/xspace.md and the real captures in
 * data/real; the expectations (--expect) come from an independent
 * simulation of XProf's step grouping and memory-profile conversion
 * (tests/xspace_gen/oracle*.c), never from memtop's code.
 *
 * The expectations file, one record per line, tokens separated by one
 * space (strings escaped as below):
 *
 *   # comment lines
 *   xspace_expect 1
 *   num_hosts 1
 *   version 1
 *   step_grouping on|off          off: a plane names TF loop ops (extra)
 *   step_groups N                 groups made by the grouping (extra)
 *   memory_ids N ID...            sorted bytewise
 *   then per memory id, in that order:
 *   allocator ID
 *   snapshots N                   every memory event, not a sample
 *   allocations N
 *   deallocations N
 *   memory_capacity N
 *   peak_bytes_usage_lifetime N
 *   peak_bytes_in_use N           stack + heap at the peak
 *   peak_stats_time_ps N
 *   stack_reserved_bytes N        at the peak
 *   heap_allocated_bytes N
 *   free_memory_bytes N
 *   fragmentation X               %.17g
 *   peak_step N
 *   steps RUNS STEP*COUNT...      each snapshot's step in time order
 *   steps_fnv1a64 HEX             FNV-1a 64 of "STEP\n" per snapshot
 *   rows N                        the table at the peak, sorted, merged:
 *   row OP ALLOCATION_BYTES REQUESTED_BYTES OCCURRENCES REGION DATA_TYPE SHAPE
 *   end_allocator
 *   hlo_modules N
 *   hlo ID NAME PLANE START_PS END_PS
 *   end
 *
 * Strings: bytes 0x21..0x7e as they are except '%' and '"'; those and
 * every other byte as %XX (two upper-case hex digits); the empty string as
 * "" (two double quotes). */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/formats/xspace/xspace_gen/job.h"
#include "tests/formats/xspace/xspace_gen/oracle.h"
#include "tests/formats/xspace/xspace_gen/planes.h"
#include "tests/formats/xspace/xspace_gen/replay.h"
#include "tests/formats/xspace/xspace_gen/styles.h"

#define PROGRAM_NAME "generate_xspace"

_Noreturn static void usage_error(const char *what, const char *argument)
{
    fprintf(stderr, PROGRAM_NAME ": %s %s (see --help)\n", what, argument);
    exit(2);
}

static void print_help(void)
{
    fputs(
        "Usage: " PROGRAM_NAME " [OPTION]...\n"
        "Write a deterministic XSpace (.xplane.pb) of a simulated training job, laid\n"
        "out as the profilers write it, to standard output or FILE; optionally what\n"
        "XProf's memory_profile tool reports for it (--expect), computed by an\n"
        "independent simulation of XProf. The same options give the same bytes.\n"
        "\n"
        "  --style STYLE         tf-gpu (default): TF2 on a GPU, GPU_0_bfc and cpu,\n"
        "                        ops with tf_op/region_type/data_type/shape, executor\n"
        "                        context stats, kernel launches; jax-gpu: like the\n"
        "                        real JAX captures (/host:metadata HLO protos,\n"
        "                        GPU_0_bfc on the main line, xla_gpu_host_bfc on\n"
        "                        worker lines, 64-bit line ids); tpu: memory ids from\n"
        "                        index_on_host, op \"dummy\", XLA shapes, a 1.96 GB\n"
        "                        stack, /device:TPU:N planes with XLA Modules\n"
        "  --steps N             marked training steps (default 6; tf-gpu and tpu add\n"
        "                        a partial step before and after, without markers)\n"
        "  --memory-events N     about this many memory events (default: tf-gpu 1200,\n"
        "                        jax-gpu 108, tpu 800; with --size, 30% of its bytes)\n"
        "  --markers yes|no      step markers (_r=1); no: XProf puts every snapshot in\n"
        "                        step 0 (default yes)\n"
        "  --threads K           lines one allocator's events are spread over (tf-gpu:\n"
        "                        inter-op threads; jax-gpu: runner threads; tpu:\n"
        "                        executor threads), so file order differs from time\n"
        "                        order (default 2, at most 64)\n"
        "  --devices N           tpu: devices, planes and memory ids (default 4)\n"
        "  --ties yes|no         yes (default): every step reaches the same peak, so\n"
        "                        peak time and peak step may lie in different steps;\n"
        "                        no: one step's peak is higher\n"
        "  --strings ref|str     string stats as ref_value (default, TSL) or str_value\n"
        "                        (older TensorFlow)\n"
        "  --noise-bytes N       about N bytes of extra device kernels (or TPU ops)\n"
        "  --size N              about N bytes in all, device kernels filling what the\n"
        "                        memory events leave (e.g. 80M, 1G); N takes K, M, G\n"
        "                        (powers of 1000) or Ki, Mi, Gi\n"
        "  --hostile             terminal escapes (CSI, OSC), bidi controls, invalid\n"
        "                        UTF-8, NUL and 8 KB names in op names, shapes and an\n"
        "                        allocator's name\n"
        "  --odd                 odd but valid input (xspace.md section 8): numbers as\n"
        "                        uint64 or double where int64 is usual, str and ref\n"
        "                        mixed, absent stats, stats whose metadata is missing,\n"
        "                        duplicate metadata names, map keys unlike inner ids,\n"
        "                        num_occurrences events, an event without metadata,\n"
        "                        an _a=1 event, negative offsets, addresses from 2^63,\n"
        "                        two memory events at one time (an order XProf's\n"
        "                        unstable sort may choose without changing its\n"
        "                        output), a second /host:CPU plane (ignored) and an\n"
        "                        XLA Modules line on the GPU plane (ignored)\n"
        "  --while-loop          TF while-loop op names: XProf then groups nothing\n"
        "  --big-ids             metadata ids from 2^40\n"
        "  --seed S              seed of the simulation (default 1)\n"
        "  -o, --output FILE     write to FILE instead of standard output\n"
        "  --run-layout DIR      write DIR/plugins/profile/RUN/HOST.xplane.pb instead\n"
        "  --host NAME           the host (file name and XSpace.hostnames; default\n"
        "                        localhost)\n"
        "  --run NAME            the run folder (default 2024_01_01_00_00_00)\n"
        "  --expect FILE         write XProf's memory profile of the file to FILE\n"
        "  --replay XSPACE       write nothing; with --expect, the expectations for an\n"
        "                        existing (uncompressed) .xplane.pb, e.g. a real one\n"
        "  --stats               print sizes and counts on standard error\n"
        "  --help                show this help and exit\n"
        "\n"
        "The --expect file: one record per line, tokens separated by single spaces;\n"
        "strings with '%', '\"' and bytes outside 0x21..0x7e as %XX, the empty one as \"\".\n"
        "  xspace_expect 1 / num_hosts 1 / version 1\n"
        "  step_grouping on|off / step_groups N (not in XProf's output)\n"
        "  memory_ids N ID...                        sorted bytewise\n"
        "  per memory id: allocator ID, snapshots N, allocations N, deallocations N,\n"
        "  memory_capacity N, peak_bytes_usage_lifetime N, peak_bytes_in_use N,\n"
        "  peak_stats_time_ps N, stack_reserved_bytes N, heap_allocated_bytes N,\n"
        "  free_memory_bytes N, fragmentation X (%.17g), peak_step N,\n"
        "  steps RUNS STEP*COUNT... (each snapshot's step, time order),\n"
        "  steps_fnv1a64 HEX (FNV-1a 64 over \"STEP\\n\" per snapshot), rows N,\n"
        "  row OP ALLOCATION_BYTES REQUESTED_BYTES OCCURRENCES REGION DATA_TYPE SHAPE\n"
        "  (sorted and merged as XProf does), end_allocator\n"
        "  hlo_modules N, hlo ID NAME PLANE START_PS END_PS, end\n"
        "Memory events of one allocator never share a time, except the --odd pair.\n"
        "\n"
        "Exit status: 0 on success, 1 on a write or memory failure or when XProf's\n"
        "answer is undefined for the file, 2 on bad usage.\n",
        stdout);
}

static int64_t parse_integer(const char *text, const char *option, int64_t low, int64_t high)
{
    char *end = NULL;
    errno = 0;
    long long value = strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < low || value > high)
        usage_error("bad value for", option);
    return (int64_t)value;
}

static int64_t parse_size(const char *text, const char *option)
{
    char *end = NULL;
    errno = 0;
    long long value = strtoll(text, &end, 10);
    if (errno != 0 || end == text || value < 0)
        usage_error("bad value for", option);
    static const struct {
        const char *suffix;
        int64_t factor;
    } units[] = {{"", 1},
                 {"K", 1000},
                 {"M", 1000000},
                 {"G", 1000000000},
                 {"Ki", 1024},
                 {"Mi", 1048576},
                 {"Gi", 1073741824}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(end, units[i].suffix) == 0) {
            if (value > INT64_MAX / units[i].factor)
                usage_error("bad value for", option);
            return (int64_t)value * units[i].factor;
        }
    usage_error("bad value for", option);
}

static bool parse_yes_no(const char *text, const char *option)
{
    if (strcmp(text, "yes") == 0)
        return true;
    if (strcmp(text, "no") != 0)
        usage_error("bad value for", option);
    return false;
}

enum option_id {
    OPTION_STYLE = 256,
    OPTION_STEPS,
    OPTION_MEMORY_EVENTS,
    OPTION_MARKERS,
    OPTION_THREADS,
    OPTION_DEVICES,
    OPTION_TIES,
    OPTION_STRINGS,
    OPTION_NOISE_BYTES,
    OPTION_SIZE,
    OPTION_HOSTILE,
    OPTION_ODD,
    OPTION_WHILE_LOOP,
    OPTION_BIG_IDS,
    OPTION_SEED,
    OPTION_RUN_LAYOUT,
    OPTION_HOST,
    OPTION_RUN,
    OPTION_EXPECT,
    OPTION_REPLAY,
    OPTION_STATS,
    OPTION_HELP,
};

struct settings {
    struct options options;
    bool stats;
    const char *replay;
};

static void apply_option(int option, char **argv, struct settings *settings)
{
    struct options *options = &settings->options;
    switch (option) {
    case OPTION_STYLE:
        if (strcmp(optarg, "tf-gpu") == 0)
            options->style = STYLE_TF_GPU;
        else if (strcmp(optarg, "jax-gpu") == 0)
            options->style = STYLE_JAX_GPU;
        else if (strcmp(optarg, "tpu") == 0)
            options->style = STYLE_TPU;
        else
            usage_error("bad value for", "--style");
        break;
    case OPTION_STEPS:
        options->steps = parse_integer(optarg, "--steps", 1, 100000);
        break;
    case OPTION_MEMORY_EVENTS:
        options->memory_events = parse_integer(optarg, "--memory-events", 1, INT64_C(1) << 36);
        break;
    case OPTION_MARKERS:
        options->markers = parse_yes_no(optarg, "--markers");
        break;
    case OPTION_THREADS:
        options->threads = parse_integer(optarg, "--threads", 1, MAX_THREADS);
        break;
    case OPTION_DEVICES:
        options->devices = parse_integer(optarg, "--devices", 1, 64);
        break;
    case OPTION_TIES:
        options->ties = parse_yes_no(optarg, "--ties");
        break;
    case OPTION_STRINGS:
        if (strcmp(optarg, "ref") == 0)
            options->strings = STRINGS_REF;
        else if (strcmp(optarg, "str") == 0)
            options->strings = STRINGS_STR;
        else
            usage_error("bad value for", "--strings");
        break;
    case OPTION_NOISE_BYTES:
        options->noise_bytes = parse_size(optarg, "--noise-bytes");
        break;
    case OPTION_SIZE:
        options->size_target = parse_size(optarg, "--size");
        break;
    case OPTION_HOSTILE:
        options->hostile = true;
        break;
    case OPTION_ODD:
        options->odd = true;
        break;
    case OPTION_WHILE_LOOP:
        options->while_loop = true;
        break;
    case OPTION_BIG_IDS:
        options->big_ids = true;
        break;
    case OPTION_SEED: {
        char *end = NULL;
        errno = 0;
        unsigned long long value = strtoull(optarg, &end, 0);
        if (optarg[0] == '-' || errno != 0 || end == optarg || *end != '\0')
            usage_error("bad value for", "--seed");
        options->seed = (uint64_t)value;
        break;
    }
    case 'o':
        options->output_path = optarg;
        break;
    case OPTION_RUN_LAYOUT:
        options->run_layout = optarg;
        break;
    case OPTION_HOST:
        options->host = optarg;
        break;
    case OPTION_RUN:
        options->run = optarg;
        break;
    case OPTION_EXPECT:
        options->expect_path = optarg;
        break;
    case OPTION_REPLAY:
        settings->replay = optarg;
        break;
    case OPTION_STATS:
        settings->stats = true;
        break;
    case OPTION_HELP:
        print_help();
        exit(0);
    case ':':
        usage_error("missing value for", argv[optind - 1]);
        break;
    default:
        usage_error("unknown option", argv[optind - 1]);
        break;
    }
}

static void parse_options(int argc, char **argv, struct settings *settings)
{
    static const struct option long_options[] = {
        {"style", required_argument, NULL, OPTION_STYLE},
        {"steps", required_argument, NULL, OPTION_STEPS},
        {"memory-events", required_argument, NULL, OPTION_MEMORY_EVENTS},
        {"markers", required_argument, NULL, OPTION_MARKERS},
        {"threads", required_argument, NULL, OPTION_THREADS},
        {"devices", required_argument, NULL, OPTION_DEVICES},
        {"ties", required_argument, NULL, OPTION_TIES},
        {"strings", required_argument, NULL, OPTION_STRINGS},
        {"noise-bytes", required_argument, NULL, OPTION_NOISE_BYTES},
        {"size", required_argument, NULL, OPTION_SIZE},
        {"hostile", no_argument, NULL, OPTION_HOSTILE},
        {"odd", no_argument, NULL, OPTION_ODD},
        {"while-loop", no_argument, NULL, OPTION_WHILE_LOOP},
        {"big-ids", no_argument, NULL, OPTION_BIG_IDS},
        {"seed", required_argument, NULL, OPTION_SEED},
        {"output", required_argument, NULL, 'o'},
        {"run-layout", required_argument, NULL, OPTION_RUN_LAYOUT},
        {"host", required_argument, NULL, OPTION_HOST},
        {"run", required_argument, NULL, OPTION_RUN},
        {"expect", required_argument, NULL, OPTION_EXPECT},
        {"replay", required_argument, NULL, OPTION_REPLAY},
        {"stats", no_argument, NULL, OPTION_STATS},
        {"help", no_argument, NULL, OPTION_HELP},
        {NULL, 0, NULL, 0},
    };
    *settings = (struct settings){
        .options = {
            .style = STYLE_TF_GPU,
            .markers = true,
            .threads = 2,
            .devices = 4,
            .noise_bytes = -1,
            .ties = true,
            .strings = STRINGS_REF,
            .seed = 1,
            .host = "localhost",
            .run = "2024_01_01_00_00_00",
        },
    };
    opterr = 0;
    int option;
    while ((option = getopt_long(argc, argv, ":o:", long_options, NULL)) != -1)
        apply_option(option, argv, settings);
    if (optind < argc)
        usage_error("unexpected argument", argv[optind]);
    struct options *options = &settings->options;
    if (settings->replay != NULL && options->expect_path == NULL)
        usage_error("--replay", "needs --expect");
    if (options->run_layout != NULL && options->output_path != NULL)
        usage_error("--run-layout and --output", "exclude each other");
    if (strchr(options->host, '/') != NULL || options->host[0] == '\0')
        usage_error("bad value for", "--host");
    if (strchr(options->run, '/') != NULL || options->run[0] == '\0')
        usage_error("bad value for", "--run");
    if (options->size_target > 0 && options->memory_events == 0)
        options->memory_events = options->size_target * 3 / 10 / 115 + 1;
    if (options->steps == 0) {
        /* Big files get more steps rather than giant ones. */
        int64_t events = options->memory_events;
        options->steps = events > 120000 ? events / 20000 : 6;
    }
}

/* mkdir -p for DIR/plugins/profile/RUN; returns the file's path. */
static char *run_layout_path(const struct options *options)
{
    size_t size = strlen(options->run_layout) + strlen(options->run) + strlen(options->host) + 64;
    char *path = xmalloc(size);
    snprintf(path, size, "%s/plugins/profile/%s", options->run_layout, options->run);
    for (char *slash = path + 1; *slash != '\0'; slash++) {
        if (*slash != '/')
            continue;
        *slash = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            fatal("cannot create the run directory");
        *slash = '/';
    }
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        fatal("cannot create the run directory");
    size_t length = strlen(path);
    snprintf(path + length, size - length, "/%s.xplane.pb", options->host);
    return path;
}

static void run_style(struct job *job)
{
    switch (job->options.style) {
    case STYLE_TF_GPU:
        style_tf_gpu_run(job);
        break;
    case STYLE_JAX_GPU:
        style_jax_gpu_run(job);
        break;
    case STYLE_TPU:
        style_tpu_run(job);
        break;
    }
}

/* --replay: the oracle over an existing file. */
static int replay_main(const struct settings *settings)
{
    static struct oracle oracle;
    oracle_init(&oracle);
    struct replay replay = {0};
    replay_file(&replay, settings->replay, &oracle.observer);
    FILE *expect = fopen(settings->options.expect_path, "w");
    if (expect == NULL)
        fatal("cannot open the --expect file");
    const char *shown = strrchr(settings->replay, '/');
    bool ok = oracle_write(&oracle, expect, shown != NULL ? shown + 1 : settings->replay);
    if (fclose(expect) != 0)
        fatal("cannot write the --expect file");
    oracle_free(&oracle);
    replay_free(&replay);
    strings_free();
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    struct settings settings;
    parse_options(argc, argv, &settings);
    const struct options *options = &settings.options;
    strings_init();
    if (settings.replay != NULL)
        return replay_main(&settings);

    char *layout_path = options->run_layout != NULL ? run_layout_path(options) : NULL;
    const char *path = layout_path != NULL ? layout_path : options->output_path;
    FILE *out = path != NULL ? fopen(path, "wb") : stdout;
    if (out == NULL)
        fatal("cannot open the output file");
    static char buffer[1 << 20];
    setvbuf(out, buffer, _IOFBF, sizeof buffer);

    static struct oracle oracle;
    oracle_init(&oracle);
    struct xspace_writer writer;
    xspace_writer_open(&writer, out, options->expect_path != NULL ? &oracle.observer : NULL);
    static struct job job;
    job_init(&job, options, &writer);
    run_style(&job);
    int64_t noise = 0;
    if (options->size_target > 0 || options->noise_bytes >= 0)
        noise = planes_noise_for(&job, options->size_target, options->noise_bytes);
    planes_write(&job, &writer, noise);
    xspace_writer_close(&writer);
    if (fflush(out) != 0 || ferror(out) || (out != stdout && fclose(out) != 0))
        fatal("cannot write the output");

    int status = 0;
    if (options->expect_path != NULL) {
        FILE *expect = fopen(options->expect_path, "w");
        if (expect == NULL)
            fatal("cannot open the --expect file");
        const char *shown = path != NULL ? strrchr(path, '/') : NULL;
        shown = shown != NULL ? shown + 1 : path != NULL ? path : "standard output";
        if (!oracle_write(&oracle, expect, shown))
            status = 1;
        if (fclose(expect) != 0)
            fatal("cannot write the --expect file");
    }
    if (settings.stats)
        fprintf(stderr,
                PROGRAM_NAME ": %" PRIu64 " bytes, %" PRIu64 " memory events in %" PRIu64
                             " bytes (%.1f%%), %" PRId64 " extra device events\n",
                writer.sink.count, job.memory_events, job.memory_event_bytes,
                writer.sink.count ? 100.0 * (double)job.memory_event_bytes /
                                        (double)writer.sink.count
                                  : 0.0,
                noise);
    job_free(&job);
    oracle_free(&oracle);
    strings_free();
    free(layout_path);
    return status;
}
