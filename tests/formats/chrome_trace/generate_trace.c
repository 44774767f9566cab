/* generate_trace: writes a deterministic, realistic Chrome trace with
 * memory events, as TensorFlow's timeline.py or PyTorch's profiler
 * (Kineto) writes it, and optionally what memtop must make of it.
 *
 * The producers live in generate_trace_timeline.c and
 * generate_trace_pytorch.c; this file holds the options, the output (plain,
 * gzip or only counted) and small helpers; generate_trace_expect.c writes
 * the --expect file.
 *
 * --expect FILE: a line format, tab-separated, one record per line, the
 * first field naming the record. Strings are bytes written as they are
 * except: '\' as "\\", and every byte below 0x20 or above 0x7e as "\xHH"
 * (two lower-case hex digits), so a field never holds a tab or a newline
 * and an empty string is an empty field. Times are picoseconds relative to
 * the trace's earliest event. In this order:
 *
 *   memtop-trace-expect  1
 *   producer    timeline|pytorch
 *   earliest_ts_ns  N          the smallest ts of any event, in ns as the
 *                              file writes it (text x 1000)
 *   allocators  N
 *   then per allocator I (0-based, memtop's order):
 *   allocator   I ID SNAPSHOTS ALLOCATIONS DEALLOCATIONS PEAK_INDEX
 *               PEAK_BYTES PEAK_TIME_PS PEAK_FREE_BYTES LIFETIME_PEAK_BYTES
 *               CAPACITY_BYTES ROWS TIMELINE_FNV1A64
 *   row         I RANK ALLOCATION_BYTES REQUESTED_BYTES OCCURRENCES OP
 *               REGION DATA_TYPE SHAPE           (ROWS of them, in order)
 *   snapshot    I INDEX TIME_PS HEAP_BYTES FREE_BYTES PEAK_BYTES_IN_USE
 *               ACTIVITY BYTES ADDRESS STEP OP REGION DATA_TYPE SHAPE CHAIN
 *   elided      I COUNT        (with --expect-snapshots N: the snapshot
 *                              lines left out between the first N and
 *                              the last N)
 *   then per out-of-memory event (PyTorch):
 *   oom         DEVICE TIME_PS BYTES
 *   end
 *
 * ACTIVITY is ALLOCATION or DEALLOCATION; ADDRESS is unsigned decimal (the
 * 64-bit pattern); CHAIN is the enclosing cpu_op/user_annotation names,
 * outermost first, joined by " > " (PyTorch; empty for timeline.py).
 * TIMELINE_FNV1A64 is FNV-1a 64 (16 lower-case hex digits) over all of the
 * allocator's snapshot lines exactly as written without --expect-snapshots,
 * each with its newline: it stands for the whole timeline when lines are
 * elided. */
#include "config.h"

#include "tests/formats/chrome_trace/generate_trace.h"
#include "tests/splitmix64.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OUTPUT_BUFFER_SIZE (1 << 18)
#define ARENA_BLOCK (1 << 20)

/* ---- small helpers ---- */

void fatal(const char *message)
{
    fprintf(stderr, PROGRAM_NAME ": %s\n", message);
    exit(1);
}

static void usage_error(const char *what, const char *argument)
{
    fprintf(stderr, PROGRAM_NAME ": %s %s (see --help)\n", what, argument);
    exit(2);
}

void *checked_calloc(size_t count, size_t size)
{
    void *memory = calloc(count ? count : 1, size ? size : 1);
    if (memory == NULL)
        fatal("out of memory");
    return memory;
}

void *checked_realloc(void *memory, size_t count, size_t size)
{
    if (size != 0 && count > SIZE_MAX / size)
        fatal("out of memory");
    size_t bytes = count * size;
    void *grown = realloc(memory, bytes != 0 ? bytes : 1);
    if (grown == NULL)
        fatal("out of memory");
    return grown;
}

void grow_array(void **array, size_t *capacity, size_t count, size_t size)
{
    if (count < *capacity)
        return;
    *capacity = *capacity ? 2 * *capacity : 64;
    *array = checked_realloc(*array, *capacity, size);
}

/* splitmix64, so the output never depends on libc */
uint64_t random_next(uint64_t *state)
{
    return splitmix64_next(state);
}

int64_t random_range(uint64_t *state, int64_t low, int64_t high)
{
    return low + (int64_t)(random_next(state) % (uint64_t)(high - low + 1));
}

struct text text_of(const char *nul_terminated)
{
    return (struct text){nul_terminated, strlen(nul_terminated)};
}

int text_compare(struct text a, struct text b)
{
    size_t common = a.length < b.length ? a.length : b.length;
    int order = common ? memcmp(a.bytes, b.bytes, common) : 0;
    if (order != 0)
        return order;
    return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

bool text_equal(struct text a, struct text b)
{
    return a.length == b.length && (a.length == 0 || memcmp(a.bytes, b.bytes, a.length) == 0);
}

struct text arena_copy(struct arena *arena, const char *bytes, size_t length)
{
    if (length + 1 > arena->room) {
        size_t size = length + 1 > ARENA_BLOCK ? length + 1 : ARENA_BLOCK;
        grow_array((void **)&arena->blocks, &arena->block_capacity, arena->block_count, sizeof *arena->blocks);
        arena->blocks[arena->block_count++] = checked_calloc(size, 1);
        arena->used = 0;
        arena->room = size;
    }
    char *place = arena->blocks[arena->block_count - 1] + arena->used;
    if (length)
        memcpy(place, bytes, length);
    place[length] = '\0';
    arena->used += length + 1;
    arena->room -= length + 1;
    return (struct text){place, length};
}

struct text arena_printf(struct arena *arena, const char *format, ...)
{
    char buffer[4096];
    va_list args;
    va_start(args, format);
    int length = vsnprintf(buffer, sizeof buffer, format, args);
    va_end(args);
    if (length < 0 || (size_t)length >= sizeof buffer)
        fatal("text too long");
    return arena_copy(arena, buffer, (size_t)length);
}

void arena_free(struct arena *arena)
{
    for (size_t i = 0; i < arena->block_count; i++)
        free(arena->blocks[i]);
    free(arena->blocks);
    *arena = (struct arena){0};
}

/* ---- output ---- */

void writer_open(struct writer *writer, const struct options *options)
{
    *writer = (struct writer){.file = stdout, .buffer = checked_calloc(OUTPUT_BUFFER_SIZE, 1)};
    if (options->output_path != NULL) {
        writer->file = fopen(options->output_path, "wb");
        if (writer->file == NULL) {
            fprintf(stderr, PROGRAM_NAME ": %s: %s\n", options->output_path, strerror(errno));
            exit(1);
        }
    }
    if (options->gzip) {
        /* gzdopen writes a header with mtime 0: the same options give the
         * same bytes. */
        writer->gz = gzdopen(dup(fileno(writer->file)), "wb6");
        if (writer->gz == NULL)
            fatal("cannot start gzip");
    }
}

void writer_counting(struct writer *writer)
{
    *writer = (struct writer){.count_only = true};
}

static void writer_flush(struct writer *writer)
{
    if (writer->used == 0)
        return;
    if (writer->gz != NULL) {
        if (gzwrite(writer->gz, writer->buffer, (unsigned)writer->used) != (int)writer->used)
            fatal("write failed");
    } else if (fwrite(writer->buffer, 1, writer->used, writer->file) != writer->used) {
        fatal("write failed");
    }
    writer->used = 0;
}

void writer_close(struct writer *writer)
{
    writer_flush(writer);
    if (writer->gz != NULL && gzclose(writer->gz) != Z_OK)
        fatal("write failed");
    if (fflush(writer->file) != 0 || (writer->file != stdout && fclose(writer->file) != 0))
        fatal("write failed");
    free(writer->buffer);
    writer->buffer = NULL;
}

void writer_bytes(struct writer *writer, const void *bytes, size_t length)
{
    writer->bytes += length;
    if (writer->count_only)
        return;
    while (length > 0) {
        if (writer->used == OUTPUT_BUFFER_SIZE)
            writer_flush(writer);
        size_t take = OUTPUT_BUFFER_SIZE - writer->used;
        if (take > length)
            take = length;
        memcpy(writer->buffer + writer->used, bytes, take);
        writer->used += take;
        bytes = (const char *)bytes + take;
        length -= take;
    }
}

void writer_text(struct writer *writer, const char *text)
{
    writer_bytes(writer, text, strlen(text));
}

void writer_printf(struct writer *writer, const char *format, ...)
{
    char buffer[8192];
    va_list args;
    va_start(args, format);
    int length = vsnprintf(buffer, sizeof buffer, format, args);
    va_end(args);
    if (length < 0 || (size_t)length >= sizeof buffer)
        fatal("event too long");
    writer_bytes(writer, buffer, (size_t)length);
}

void writer_note_ts(struct writer *writer, int64_t ts_ns)
{
    if (!writer->have_min || ts_ns < writer->min_ts_ns)
        writer->min_ts_ns = ts_ns;
    writer->have_min = true;
}

/* ---- options ---- */

static void print_help(void)
{
    fputs(
        "Usage: " PROGRAM_NAME " --producer timeline|pytorch [OPTION]...\n"
        "Write a deterministic Chrome trace with memory events as TensorFlow's\n"
        "timeline.py or PyTorch's profiler (Kineto) writes it, to standard output\n"
        "or FILE; with --expect, also what memtop must report for it.\n"
        "\n"
        "  --producer P          timeline: generate_chrome_trace_format(show_dataflow=True,\n"
        "                        show_memory=True) of a simulated StepStats;\n"
        "                        pytorch: a profile_memory=True trace of an MLP + Adam\n"
        "  --steps N             training steps (timeline: micro-batches in one run)\n"
        "  --events N            about N memory events ([memory] events or Memory\n"
        "                        counter events); sizes the model and the steps\n"
        "  --size BYTES          pad with events that are not memory events up to\n"
        "                        about BYTES of JSON (suffixes K, M, G); without\n"
        "                        --events the memory events are about 8% (pytorch)\n"
        "                        or 20% (timeline) of the bytes\n"
        "  --timestamps T        pytorch: relative (default; 3-decimal us after\n"
        "                        baseTimeNanoseconds) or absolute (integer epoch us)\n"
        "  --devices 1|2         pytorch: cuda:0, or cuda:0 and cuda:1 (and cpu)\n"
        "  --schedule            pytorch: ProfilerStep#N annotations (from #2)\n"
        "  --oom                 pytorch: one [OutOfMemory] event\n"
        "  --tiny                a small fixed trace whose expectations are worked\n"
        "                        out by hand in tests/test_generate_trace.c\n"
        "  --hostile             control bytes, escapes of lone surrogates, ESC/OSC\n"
        "                        and bidi controls in names; pytorch also raw\n"
        "                        control bytes, invalid UTF-8 and \\\" in args\n"
        "  --ending E            object (default), bare, bare-unterminated,\n"
        "                        bare-unterminated-comma, bare-trailing-comma,\n"
        "                        trailing-empty-object\n"
        "  --gzip                gzip the trace\n"
        "  --seed S              seed of the simulation (default 1)\n"
        "  -o, --output FILE     write the trace to FILE\n"
        "  --expect FILE         write what memtop must report to FILE\n"
        "  --expect-snapshots N  in FILE, only the first and last N snapshot lines\n"
        "                        of each allocator (the hash covers all of them)\n"
        "  --help                show this help and exit\n"
        "\n"
        "The --expect format (tab-separated; strings with '\\' as \\\\ and bytes\n"
        "outside 0x20..0x7e as \\xHH; times in ps after the earliest event):\n"
        "  memtop-trace-expect 1 | producer P | earliest_ts_ns N | allocators N\n"
        "  allocator I ID SNAPSHOTS ALLOCATIONS DEALLOCATIONS PEAK_INDEX PEAK_BYTES\n"
        "            PEAK_TIME_PS PEAK_FREE_BYTES LIFETIME_PEAK_BYTES CAPACITY ROWS FNV\n"
        "  row I RANK ALLOCATION_BYTES REQUESTED_BYTES OCCURRENCES OP REGION DTYPE SHAPE\n"
        "  snapshot I INDEX TIME_PS HEAP FREE PEAK_IN_USE ACTIVITY BYTES ADDRESS STEP\n"
        "           OP REGION DTYPE SHAPE CHAIN\n"
        "  elided I COUNT | oom DEVICE TIME_PS BYTES | end\n"
        "FNV is FNV-1a 64 over the allocator's snapshot lines, all of them, each\n"
        "with its newline. The same options always give the same bytes.\n"
        "\n"
        "Exit status: 0 on success, 1 on a write or memory failure, 2 on bad usage.\n",
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

static int64_t parse_size(const char *text)
{
    char *end = NULL;
    errno = 0;
    long long value = strtoll(text, &end, 10);
    int64_t unit = 1;
    if (end != text && *end != '\0' && end[1] == '\0') {
        unit = *end == 'K' ? 1024 : *end == 'M' ? 1024 * 1024 : *end == 'G' ? INT64_C(1) << 30 : 0;
        end++;
    }
    if (errno != 0 || end == text || *end != '\0' || unit == 0 || value < 0 || value > (INT64_C(1) << 44) / unit)
        usage_error("bad value for", "--size");
    return value * unit;
}

static int pick(const char *text, const char *option, const char *const *names)
{
    for (int i = 0; names[i] != NULL; i++)
        if (strcmp(text, names[i]) == 0)
            return i;
    usage_error("bad value for", option);
    return -1;
}

enum option_id {
    OPTION_PRODUCER = 256,
    OPTION_STEPS,
    OPTION_EVENTS,
    OPTION_SIZE,
    OPTION_TIMESTAMPS,
    OPTION_DEVICES,
    OPTION_SCHEDULE,
    OPTION_OOM,
    OPTION_TINY,
    OPTION_HOSTILE,
    OPTION_ENDING,
    OPTION_GZIP,
    OPTION_SEED,
    OPTION_EXPECT,
    OPTION_EXPECT_SNAPSHOTS,
    OPTION_HELP,
};

static const char *const producer_names[] = {"timeline", "pytorch", NULL};
static const char *const ending_names[] = {"object", "bare", "bare-unterminated", "bare-unterminated-comma",
                                           "bare-trailing-comma", "trailing-empty-object", NULL};
static const char *const timestamp_names[] = {"relative", "absolute", NULL};

static void apply_option(int option, char **argv, struct options *options)
{
    switch (option) {
    case OPTION_PRODUCER: options->producer = (enum producer)pick(optarg, "--producer", producer_names); break;
    case OPTION_STEPS: options->steps = parse_integer(optarg, "--steps", 1, 1000000); break;
    case OPTION_EVENTS: options->events = parse_integer(optarg, "--events", 1, INT64_C(1) << 36); break;
    case OPTION_SIZE: options->size_target = parse_size(optarg); break;
    case OPTION_TIMESTAMPS:
        options->timestamps = (enum timestamps)pick(optarg, "--timestamps", timestamp_names);
        break;
    case OPTION_DEVICES: options->devices = (int)parse_integer(optarg, "--devices", 1, 2); break;
    case OPTION_SCHEDULE: options->schedule = true; break;
    case OPTION_OOM: options->oom = true; break;
    case OPTION_TINY: options->tiny = true; break;
    case OPTION_HOSTILE: options->hostile = true; break;
    case OPTION_ENDING: options->ending = (enum ending)pick(optarg, "--ending", ending_names); break;
    case OPTION_GZIP: options->gzip = true; break;
    case OPTION_SEED: options->seed = (uint64_t)parse_integer(optarg, "--seed", 0, INT64_MAX); break;
    case 'o': options->output_path = optarg; break;
    case OPTION_EXPECT: options->expect_path = optarg; break;
    case OPTION_EXPECT_SNAPSHOTS:
        options->expect_snapshots = parse_integer(optarg, "--expect-snapshots", 0, INT64_MAX);
        break;
    case OPTION_HELP: print_help(); exit(0);
    case ':': usage_error("missing value for", argv[optind - 1]); break;
    default: usage_error("unknown option", argv[optind - 1]); break;
    }
}

static void parse_options(int argc, char **argv, struct options *options)
{
    static const struct option long_options[] = {
        {"producer", required_argument, NULL, OPTION_PRODUCER},
        {"steps", required_argument, NULL, OPTION_STEPS},
        {"events", required_argument, NULL, OPTION_EVENTS},
        {"size", required_argument, NULL, OPTION_SIZE},
        {"timestamps", required_argument, NULL, OPTION_TIMESTAMPS},
        {"devices", required_argument, NULL, OPTION_DEVICES},
        {"schedule", no_argument, NULL, OPTION_SCHEDULE},
        {"oom", no_argument, NULL, OPTION_OOM},
        {"tiny", no_argument, NULL, OPTION_TINY},
        {"hostile", no_argument, NULL, OPTION_HOSTILE},
        {"ending", required_argument, NULL, OPTION_ENDING},
        {"gzip", no_argument, NULL, OPTION_GZIP},
        {"seed", required_argument, NULL, OPTION_SEED},
        {"output", required_argument, NULL, 'o'},
        {"expect", required_argument, NULL, OPTION_EXPECT},
        {"expect-snapshots", required_argument, NULL, OPTION_EXPECT_SNAPSHOTS},
        {"help", no_argument, NULL, OPTION_HELP},
        {NULL, 0, NULL, 0},
    };
    *options = (struct options){.producer = (enum producer)-1, .devices = 1, .seed = 1, .expect_snapshots = -1};
    opterr = 0;
    int option;
    while ((option = getopt_long(argc, argv, ":o:", long_options, NULL)) != -1)
        apply_option(option, argv, options);
    if (optind < argc)
        usage_error("unexpected argument", argv[optind]);
    if ((int)options->producer < 0)
        usage_error("missing option", "--producer");
}

int main(int argc, char **argv)
{
    struct options options;
    parse_options(argc, argv, &options);
    struct writer writer;
    writer_open(&writer, &options);
    struct expectations expect = {.producer = producer_names[options.producer]};
    if (options.producer == PRODUCER_TIMELINE)
        timeline_generate(&options, &writer, &expect);
    else
        pytorch_generate(&options, &writer, &expect);
    int64_t earliest_ns = writer.min_ts_ns;
    writer_close(&writer);
    if (options.expect_path != NULL)
        expect_write(&expect, earliest_ns, &options);
    expect_free(&expect);
    return 0;
}
