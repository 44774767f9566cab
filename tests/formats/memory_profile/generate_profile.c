/* generate_profile: writes a deterministic, realistic MemoryProfile.
 *
 * It simulates a training loop on a few allocators (a BFC-like heap per
 * allocator: weights and optimizer slots that persist, then per step the
 * forward activations, quick temporaries, backward gradients and the
 * optimizer update) and writes the result as binary protobuf or proto3
 * JSON, version 0 (the whole timeline) or version 1 (XProf today: a
 * sampled timeline plus the snapshots the peak table points at).
 *
 * The summary, the active allocations at the peak and the sampled timeline
 * are computed here exactly the way XProf computes them, so tests can
 * compare a loader's view with what the generator knows to be true.
 *
 * Output streams: the simulation runs again from the same seed for each
 * pass (pass 1 finds the peak, samples and sizes; pass 2 walks up to the
 * peak for the active allocations; pass 3 writes a version 0 timeline), so
 * memory use is that of the live allocations and 1000 samples, not of the
 * snapshot count. Used for the demo files and for benchmark inputs. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/formats/memory_profile/generate_profile.h"

/* ---- options ---- */

/* One line on standard error, exit status 2. */
void usage_error(const char *what, const char *argument)
{
    fprintf(stderr, PROGRAM_NAME ": %s %s (see --help)\n", what, argument);
    exit(2);
}

void fatal(const char *message)
{
    fprintf(stderr, PROGRAM_NAME ": %s\n", message);
    exit(1);
}

void *checked_calloc(size_t count, size_t size)
{
    void *memory = calloc(count ? count : 1, size);
    if (memory == NULL)
        fatal("out of memory");
    return memory;
}

void *checked_realloc(void *memory, size_t count, size_t size)
{
    if (size != 0 && count > SIZE_MAX / size)
        fatal("out of memory");
    void *grown = realloc(memory, count * size);
    if (grown == NULL)
        fatal("out of memory");
    return grown;
}

void print_help(void)
{
    fputs(
        "Usage: " PROGRAM_NAME " [OPTION]...\n"
        "Write a deterministic, realistic MemoryProfile (a simulated training loop)\n"
        "to standard output or FILE. Summary, peak table and sampled timeline are\n"
        "computed the way XProf computes them.\n"
        "\n"
        "  --format pb|json      binary protobuf (default) or proto3 JSON\n"
        "  --version 0|1         0: the whole timeline in memory_profile_snapshots;\n"
        "                        1 (default): XProf today, sampled_timeline_snapshots\n"
        "                        (at most 1000) and only the snapshots the peak table\n"
        "                        points at in memory_profile_snapshots\n"
        "  --snapshots N         snapshots of the main allocator GPU_0_bfc (default\n"
        "                        20000); other GPUs get N/2, cpu gets N/8 (at least 1)\n"
        "  --allocators N        1: GPU_0_bfc only; N > 1: N-1 GPUs and cpu (default 3)\n"
        "  --steps N             training steps after initialisation (default 8);\n"
        "                        fewer when N snapshots cannot fill them\n"
        "  --seed S              seed of the simulation (default 1)\n"
        "  --hlo N               N HloModule entries jit_train_step(...) on plane\n"
        "                        GPU:0 spanning the steps (default 0)\n"
        "  --unsorted            swap a few neighbouring snapshots of the timeline so\n"
        "                        it is not time-sorted (a stable sort by time restores\n"
        "                        it); snapshot_index still counts file positions\n"
        "  --json-style STYLE    xprof (default): camelCase keys, int64 as strings,\n"
        "                        enums by name; snake: snake_case keys; numbers:\n"
        "                        int64 as bare numbers and enums as integers\n"
        "  -o, --output FILE     write to FILE instead of standard output\n"
        "  --stats               print each allocator's peak on standard error\n"
        "  --help                show this help and exit\n"
        "\n"
        "Exit status: 0 on success, 1 on a write or memory failure, 2 on bad usage.\n",
        stdout);
}

int64_t parse_integer(const char *text, const char *option, int64_t low, int64_t high)
{
    char *end = NULL;
    errno = 0;
    long long value = strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < low || value > high)
        usage_error("bad value for", option);
    return (int64_t)value;
}

uint64_t parse_seed(const char *text)
{
    char *end = NULL;
    errno = 0;
    if (text[0] == '-')
        usage_error("bad value for", "--seed");
    unsigned long long value = strtoull(text, &end, 0);
    if (errno != 0 || end == text || *end != '\0')
        usage_error("bad value for", "--seed");
    return (uint64_t)value;
}

void apply_option(int option, char **argv, struct options *options)
{
    switch (option) {
    case OPTION_FORMAT:
        if (strcmp(optarg, "pb") == 0)
            options->format = FORMAT_PB;
        else if (strcmp(optarg, "json") == 0)
            options->format = FORMAT_JSON;
        else
            usage_error("bad value for", "--format");
        break;
    case OPTION_VERSION:
        options->version = (int)parse_integer(optarg, "--version", 0, 1);
        break;
    case OPTION_SNAPSHOTS:
        options->snapshots = parse_integer(optarg, "--snapshots", 1, MAX_SNAPSHOTS);
        break;
    case OPTION_ALLOCATORS:
        options->allocators = (int)parse_integer(optarg, "--allocators", 1, MAX_ALLOCATORS);
        break;
    case OPTION_STEPS:
        options->steps = parse_integer(optarg, "--steps", 1, 1000000);
        break;
    case OPTION_SEED:
        options->seed = parse_seed(optarg);
        break;
    case OPTION_HLO:
        options->hlo_modules = parse_integer(optarg, "--hlo", 0, 1000000);
        break;
    case OPTION_UNSORTED:
        options->unsorted = true;
        break;
    case OPTION_JSON_STYLE:
        if (strcmp(optarg, "xprof") == 0)
            options->json_style = JSON_XPROF;
        else if (strcmp(optarg, "snake") == 0)
            options->json_style = JSON_SNAKE;
        else if (strcmp(optarg, "numbers") == 0)
            options->json_style = JSON_NUMBERS;
        else
            usage_error("bad value for", "--json-style");
        break;
    case 'o':
        options->output_path = optarg;
        break;
    case OPTION_STATS:
        options->stats = true;
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

void parse_options(int argc, char **argv, struct options *options)
{
    static const struct option long_options[] = {
        {"format", required_argument, NULL, OPTION_FORMAT},
        {"version", required_argument, NULL, OPTION_VERSION},
        {"snapshots", required_argument, NULL, OPTION_SNAPSHOTS},
        {"allocators", required_argument, NULL, OPTION_ALLOCATORS},
        {"steps", required_argument, NULL, OPTION_STEPS},
        {"seed", required_argument, NULL, OPTION_SEED},
        {"hlo", required_argument, NULL, OPTION_HLO},
        {"unsorted", no_argument, NULL, OPTION_UNSORTED},
        {"json-style", required_argument, NULL, OPTION_JSON_STYLE},
        {"output", required_argument, NULL, 'o'},
        {"stats", no_argument, NULL, OPTION_STATS},
        {"help", no_argument, NULL, OPTION_HELP},
        {NULL, 0, NULL, 0},
    };
    *options = (struct options){
        .format = FORMAT_PB,
        .version = 1,
        .snapshots = 20000,
        .allocators = 3,
        .steps = 8,
        .seed = 1,
    };
    opterr = 0;
    int option;
    while ((option = getopt_long(argc, argv, ":o:", long_options, NULL)) != -1)
        apply_option(option, argv, options);
    if (optind < argc)
        usage_error("unexpected argument", argv[optind]);
}

/* ---- main ---- */

void print_stats(const struct allocator_config *config, const struct program *program,
                        const struct analysis *analysis)
{
    fprintf(stderr,
            "%s: %" PRId64 " snapshots, %d layers, hidden %" PRId64 ", peak %" PRId64
            " bytes (stack+heap) at %" PRId64 " ps, snapshot %" PRId64 ", step %" PRId64
            ", capacity %" PRId64 ", lifetime peak %" PRId64 ", %zu rows, %d specials\n",
            config->name, analysis->count, program->layers, program->hidden,
            analysis->peak.stack_bytes + analysis->peak.heap_bytes, analysis->peak.time_ps,
            analysis->peak_index, analysis->peak.step_id,
            analysis->peak.stack_bytes + analysis->peak.heap_bytes + analysis->peak.free_bytes,
            analysis->lifetime_peak, analysis->row_count, analysis->special_count);
}

void write_allocator(struct writer *writer, const struct allocator_config *config,
                            struct step_times *times)
{
    const struct options *options = writer->options;
    struct program program;
    program_setup(&program, config, options->steps);
    struct simulator sim = {0};
    struct analysis analysis = {0};
    simulator_start(&sim, config, &program);
    analysis_scan(&analysis, &sim, options, config->index == 0 ? times : NULL);
    simulator_start(&sim, config, &program);
    analysis_walk(&analysis, &sim);
    if (options->stats)
        print_stats(config, &program, &analysis);
    if (options->format == FORMAT_PB)
        write_allocator_pb(writer, &sim, &program, &analysis);
    else
        write_allocator_json(writer, &sim, &program, &analysis, config->index == 0);
    analysis_free(&analysis);
    simulator_free(&sim);
}

int main(int argc, char **argv)
{
    struct options options;
    parse_options(argc, argv, &options);
    struct output out = {.file = stdout, .buffer = checked_calloc(OUTPUT_BUFFER_SIZE, 1)};
    if (options.output_path != NULL) {
        out.file = fopen(options.output_path, "wb");
        if (out.file == NULL) {
            fprintf(stderr, PROGRAM_NAME ": %s: %s\n", options.output_path, strerror(errno));
            return 1;
        }
    }
    struct allocator_config configs[MAX_ALLOCATORS];
    allocators_setup(&options, configs);
    struct step_times times = {.steps = options.steps};
    times.first_ps = checked_calloc((size_t)options.steps + 1, sizeof *times.first_ps);
    times.last_ps = checked_calloc((size_t)options.steps + 1, sizeof *times.last_ps);
    for (int64_t step = 0; step <= options.steps; step++)
        times.first_ps[step] = times.last_ps[step] = -1;

    struct writer writer = {.options = &options, .out = &out, .json = {&out, options.json_style}};
    if (options.format == FORMAT_JSON) {
        json_char(&writer.json, '{');
        json_key(&writer.json, KEY_PER_ALLOCATOR, true);
        json_char(&writer.json, '{');
    }
    for (int i = 0; i < options.allocators; i++)
        write_allocator(&writer, &configs[i], &times);
    if (options.format == FORMAT_JSON)
        json_char(&writer.json, '}');
    write_profile_fields(&writer, configs, &times);
    output_flush(&out);
    if (fflush(out.file) != 0 || (out.file != stdout && fclose(out.file) != 0))
        fatal("write failed");
    free(out.buffer);
    free(times.first_ps);
    free(times.last_ps);
    return 0;
}
