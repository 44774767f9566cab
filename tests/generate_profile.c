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

#define PROGRAM_NAME "generate_profile"
#define SAMPLE_LIMIT 1000 /* XProf's max_num_snapshots for the timeline */
#define MAX_ALLOCATORS 64
#define MAX_SNAPSHOTS (INT64_C(1) << 40)
#define INPUT_COMPONENTS 4 /* IteratorGetNext outputs per step: same metadata */
#define MIB (INT64_C(1) << 20)

/* ---- options ---- */

enum output_format { FORMAT_PB, FORMAT_JSON };
enum json_style { JSON_XPROF, JSON_SNAKE, JSON_NUMBERS };

struct options {
    enum output_format format;
    int version;
    int64_t snapshots;
    int allocators;
    int64_t steps;
    uint64_t seed;
    int64_t hlo_modules;
    bool unsorted;
    enum json_style json_style;
    const char *output_path;
    bool stats;
};

/* One line on standard error, exit status 2. */
static void usage_error(const char *what, const char *argument)
{
    fprintf(stderr, PROGRAM_NAME ": %s %s (see --help)\n", what, argument);
    exit(2);
}

static void fatal(const char *message)
{
    fprintf(stderr, PROGRAM_NAME ": %s\n", message);
    exit(1);
}

static void *checked_calloc(size_t count, size_t size)
{
    void *memory = calloc(count ? count : 1, size);
    if (memory == NULL)
        fatal("out of memory");
    return memory;
}

static void *checked_realloc(void *memory, size_t count, size_t size)
{
    if (size != 0 && count > SIZE_MAX / size)
        fatal("out of memory");
    void *grown = realloc(memory, count * size);
    if (grown == NULL)
        fatal("out of memory");
    return grown;
}

static void print_help(void)
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

static int64_t parse_integer(const char *text, const char *option, int64_t low, int64_t high)
{
    char *end = NULL;
    errno = 0;
    long long value = strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < low || value > high)
        usage_error("bad value for", option);
    return (int64_t)value;
}

static uint64_t parse_seed(const char *text)
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

enum option_id {
    OPTION_FORMAT = 256,
    OPTION_VERSION,
    OPTION_SNAPSHOTS,
    OPTION_ALLOCATORS,
    OPTION_STEPS,
    OPTION_SEED,
    OPTION_HLO,
    OPTION_UNSORTED,
    OPTION_JSON_STYLE,
    OPTION_STATS,
    OPTION_HELP,
};

static void apply_option(int option, char **argv, struct options *options)
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

static void parse_options(int argc, char **argv, struct options *options)
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

/* ---- random numbers: splitmix64, so the output never depends on libc ---- */

static uint64_t random_next(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static uint64_t random_below(uint64_t *state, uint64_t bound)
{
    return bound == 0 ? 0 : random_next(state) % bound;
}

static uint64_t hash_mix(uint64_t a, uint64_t b)
{
    uint64_t state = a ^ (b * UINT64_C(0xd6e8feb86659fd93));
    return random_next(&state);
}

/* ---- what an allocation is: names, dtypes and shapes come from this ---- */

enum tensor_kind {
    KIND_GLOBAL_STEP,
    KIND_EMBEDDING,
    KIND_KERNEL,
    KIND_BIAS,
    KIND_KERNEL_M,
    KIND_KERNEL_V,
    KIND_BIAS_M,
    KIND_BIAS_V,
    KIND_INIT_TEMP,
    KIND_INPUT,
    KIND_MATMUL,
    KIND_BIAS_ADD,
    KIND_ACTIVATION,
    KIND_FORWARD_TEMP,
    KIND_INPUT_GRAD,
    KIND_KERNEL_GRAD,
    KIND_BIAS_GRAD,
    KIND_BACKWARD_TEMP,
    KIND_OPTIMIZER_TEMP,
    KIND_UNMAPPED, /* XProf's special rows */
    KIND_STACK,
    KIND_COUNT
};

enum dtype_id { DTYPE_FLOAT, DTYPE_BFLOAT16, DTYPE_HALF, DTYPE_INT32, DTYPE_INVALID, DTYPE_ACT };

static const char *const dtype_names[] = {"float", "bfloat16", "half", "int32", "INVALID"};
static const int64_t dtype_sizes[] = {4, 2, 2, 4, 0};

/* An op name is prefix + layer number + suffix (layered) or prefix alone;
 * temporaries pick one of up to three suffixes. */
struct kind_name {
    const char *prefix;
    const char *suffixes[3];
    const char *region;
    enum dtype_id dtype;
};

static const struct kind_name device_names[KIND_COUNT] = {
    [KIND_GLOBAL_STEP] = {"global_step/Initializer/zeros", {NULL}, "persist", DTYPE_INT32},
    [KIND_EMBEDDING] = {"model/embedding/embeddings/Initializer/random_uniform", {NULL}, "persist", DTYPE_FLOAT},
    [KIND_KERNEL] = {"model/dense_", {"/kernel/Initializer/random_uniform"}, "persist", DTYPE_FLOAT},
    [KIND_BIAS] = {"model/dense_", {"/bias/Initializer/zeros"}, "persist", DTYPE_FLOAT},
    [KIND_KERNEL_M] = {"training/Adam/dense_", {"/kernel/m/Initializer/zeros"}, "persist", DTYPE_FLOAT},
    [KIND_KERNEL_V] = {"training/Adam/dense_", {"/kernel/v/Initializer/zeros"}, "persist", DTYPE_FLOAT},
    [KIND_BIAS_M] = {"training/Adam/dense_", {"/bias/m/Initializer/zeros"}, "persist", DTYPE_FLOAT},
    [KIND_BIAS_V] = {"training/Adam/dense_", {"/bias/v/Initializer/zeros"}, "persist", DTYPE_FLOAT},
    [KIND_INIT_TEMP] = {"model/dense_", {"/kernel/Initializer/random_uniform/RandomUniform"}, "temp", DTYPE_FLOAT},
    [KIND_INPUT] = {"IteratorGetNext", {NULL}, "output", DTYPE_INT32},
    [KIND_MATMUL] = {"model/dense_", {"/MatMul"}, "output", DTYPE_ACT},
    [KIND_BIAS_ADD] = {"model/dense_", {"/BiasAdd"}, "output", DTYPE_ACT},
    [KIND_ACTIVATION] = {"model/dense_", {"/Relu"}, "output", DTYPE_ACT},
    [KIND_FORWARD_TEMP] = {"model/dense_", {"/MatMul", "/Relu", "/dropout/random_uniform/RandomUniform"}, "temp", DTYPE_FLOAT},
    [KIND_INPUT_GRAD] = {"gradients/model/dense_", {"/MatMul_grad/MatMul"}, "output", DTYPE_ACT},
    [KIND_KERNEL_GRAD] = {"gradients/model/dense_", {"/MatMul_grad/MatMul_1"}, "output", DTYPE_FLOAT},
    [KIND_BIAS_GRAD] = {"gradients/model/dense_", {"/BiasAdd_grad/BiasAddGrad"}, "output", DTYPE_FLOAT},
    [KIND_BACKWARD_TEMP] = {"gradients/model/dense_", {"/Relu_grad/ReluGrad", "/MatMul_grad/MatMul", "/dropout/mul_grad/Mul"}, "temp", DTYPE_FLOAT},
    [KIND_OPTIMIZER_TEMP] = {"training/Adam/update_dense_", {"/kernel/ResourceApplyAdam", "/bias/ResourceApplyAdam", "/kernel/ResourceApplyAdam/sub"}, "temp", DTYPE_FLOAT},
    [KIND_UNMAPPED] = {"unused preallocated device memory", {NULL}, "persist/dynamic", DTYPE_INVALID},
    [KIND_STACK] = {"stack", {NULL}, "stack", DTYPE_INVALID},
};

/* The host allocator runs the input pipeline, checkpoint restore and
 * summaries: the same event structure under host names. */
static const struct kind_name host_names[KIND_COUNT] = {
    [KIND_GLOBAL_STEP] = {"global_step/Initializer/zeros", {NULL}, "persist", DTYPE_INT32},
    [KIND_EMBEDDING] = {"input_pipeline/vocab_lookup/hash_table/table_init", {NULL}, "persist", DTYPE_INT32},
    [KIND_KERNEL] = {"input_pipeline/shard_", {"/shuffle_buffer"}, "persist", DTYPE_INT32},
    [KIND_BIAS] = {"input_pipeline/shard_", {"/prefetch_buffer"}, "persist", DTYPE_INT32},
    [KIND_KERNEL_M] = {"checkpoint/shard_", {"/restore/RestoreV2"}, "persist", DTYPE_FLOAT},
    [KIND_KERNEL_V] = {"checkpoint/shard_", {"/restore/RestoreV2_1"}, "persist", DTYPE_FLOAT},
    [KIND_BIAS_M] = {"checkpoint/shard_", {"/restore/RestoreV2_2"}, "persist", DTYPE_FLOAT},
    [KIND_BIAS_V] = {"checkpoint/shard_", {"/restore/RestoreV2_3"}, "persist", DTYPE_FLOAT},
    [KIND_INIT_TEMP] = {"checkpoint/shard_", {"/restore/Identity"}, "temp", DTYPE_FLOAT},
    [KIND_INPUT] = {"IteratorGetNext", {NULL}, "output", DTYPE_INT32},
    [KIND_MATMUL] = {"input_pipeline/shard_", {"/ParseExample/ParseExampleV2"}, "output", DTYPE_ACT},
    [KIND_BIAS_ADD] = {"input_pipeline/shard_", {"/Cast"}, "output", DTYPE_ACT},
    [KIND_ACTIVATION] = {"input_pipeline/shard_", {"/padded_batch"}, "output", DTYPE_ACT},
    [KIND_FORWARD_TEMP] = {"input_pipeline/shard_", {"/DecodeRaw", "/StringToNumber", "/Reshape"}, "temp", DTYPE_FLOAT},
    [KIND_INPUT_GRAD] = {"metrics/shard_", {"/Mean"}, "output", DTYPE_FLOAT},
    [KIND_KERNEL_GRAD] = {"summaries/shard_", {"/histogram/HistogramSummary"}, "output", DTYPE_FLOAT},
    [KIND_BIAS_GRAD] = {"summaries/shard_", {"/scalar/ScalarSummary"}, "output", DTYPE_FLOAT},
    [KIND_BACKWARD_TEMP] = {"metrics/shard_", {"/Sum", "/Cast", "/ArgMax"}, "temp", DTYPE_FLOAT},
    [KIND_OPTIMIZER_TEMP] = {"summaries/shard_", {"/write_summary/WriteSummary", "/Const", "/flush"}, "temp", DTYPE_FLOAT},
    [KIND_UNMAPPED] = {"unused preallocated device memory", {NULL}, "persist/dynamic", DTYPE_INVALID},
    [KIND_STACK] = {"stack", {NULL}, "stack", DTYPE_INVALID},
};

struct tensor_info {
    uint8_t kind;    /* enum tensor_kind */
    uint8_t dtype;   /* enum dtype_id, never DTYPE_ACT */
    uint8_t rank;    /* 0..3 */
    uint8_t variant; /* which suffix */
    uint8_t host;    /* host_names instead of device_names */
    int32_t layer;
    int64_t dims[3];
};

/* One snapshot as the simulation produces it; its strings are made from
 * `tensor` only when they are written. */
struct event {
    int64_t time_ps;
    int64_t stack_bytes;
    int64_t heap_bytes;
    int64_t free_bytes;
    double fragmentation;
    int64_t peak_bytes_in_use;
    int activity;
    int64_t requested_bytes;
    int64_t allocation_bytes;
    uint64_t address;
    int64_t step_id;
    struct tensor_info tensor;
};

enum { ACTIVITY_ALLOCATION = 1, ACTIVITY_DEALLOCATION = 2 };

#define OP_NAME_SIZE 160
#define SHAPE_SIZE 80

struct event_text {
    char op[OP_NAME_SIZE];
    size_t op_length;
    char shape[SHAPE_SIZE];
    size_t shape_length;
    const char *region;
    const char *dtype;
};

/* Writes `value` in decimal at `out`; returns the length (no NUL). */
static size_t format_uint64(char *out, uint64_t value)
{
    char digits[24];
    size_t count = 0;
    do {
        digits[count++] = (char)('0' + value % 10);
        value /= 10;
    } while (value != 0);
    for (size_t i = 0; i < count; i++)
        out[i] = digits[count - 1 - i];
    return count;
}

static size_t format_int64(char *out, int64_t value)
{
    if (value >= 0)
        return format_uint64(out, (uint64_t)value);
    out[0] = '-';
    return 1 + format_uint64(out + 1, (uint64_t)0 - (uint64_t)value);
}

static size_t text_append(char *buffer, size_t length, size_t size, const char *text)
{
    size_t add = strlen(text);
    if (length + add >= size)
        add = size - 1 - length;
    memcpy(buffer + length, text, add);
    return length + add;
}

static void tensor_text(const struct tensor_info *tensor, struct event_text *text)
{
    const struct kind_name *name = &(tensor->host ? host_names : device_names)[tensor->kind];
    size_t length = text_append(text->op, 0, OP_NAME_SIZE, name->prefix);
    if (name->suffixes[0] != NULL) {
        length += format_int64(text->op + length, tensor->layer);
        const char *suffix = name->suffixes[tensor->variant];
        length = text_append(text->op, length, OP_NAME_SIZE, suffix ? suffix : name->suffixes[0]);
    }
    text->op[length] = '\0';
    text->op_length = length;
    text->region = name->region;
    text->dtype = dtype_names[tensor->dtype];
    if (tensor->kind == KIND_UNMAPPED || tensor->kind == KIND_STACK) {
        text->shape_length = text_append(text->shape, 0, SHAPE_SIZE, "unknown");
        text->shape[text->shape_length] = '\0';
        return;
    }
    length = 0;
    text->shape[length++] = '[';
    for (int i = 0; i < tensor->rank; i++) {
        if (i > 0)
            text->shape[length++] = ',';
        length += format_int64(text->shape + length, tensor->dims[i]);
    }
    text->shape[length++] = ']';
    text->shape[length] = '\0';
    text->shape_length = length;
}

static int64_t tensor_bytes(const struct tensor_info *tensor)
{
    int64_t bytes = dtype_sizes[tensor->dtype];
    for (int i = 0; i < tensor->rank; i++)
        bytes *= tensor->dims[i];
    return bytes;
}

/* ---- a BFC-like heap: best fit from size bins, split, coalesce, grow ---- */

#define BIN_COUNT 21
#define MAX_INTERNAL_FRAGMENTATION (128 * MIB)

struct chunk {
    uint64_t address;
    int64_t size;
    int32_t prev, next;         /* neighbours in address order, -1 at the ends */
    int32_t bin_prev, bin_next; /* free chunks: links within their bin */
    int8_t bin;                 /* -1 while in use */
};

struct heap {
    struct chunk *chunks;
    int32_t chunk_count, chunk_capacity;
    int32_t spare; /* unused chunk slots, linked through `next` */
    int32_t bins[BIN_COUNT];
    uint32_t nonempty_bins;
    int32_t last; /* highest chunk in address order */
    uint64_t base;
    int granule_shift;
    bool always_split; /* a host allocator hands out exact sizes */
    int64_t region_bytes, region_limit, next_region_bytes;
    int64_t in_use_bytes;
};

static void heap_init(struct heap *heap, uint64_t base, int64_t limit, bool host)
{
    free(heap->chunks);
    *heap = (struct heap){
        .spare = -1,
        .last = -1,
        .base = base,
        .granule_shift = host ? 6 : 8,
        .always_split = host,
        .region_limit = limit,
        .next_region_bytes = 2 * MIB,
    };
    for (int bin = 0; bin < BIN_COUNT; bin++)
        heap->bins[bin] = -1;
}

static int heap_bin_for(const struct heap *heap, int64_t size)
{
    uint64_t units = (uint64_t)size >> heap->granule_shift;
    int bin = 0;
    while (units > 1 && bin < BIN_COUNT - 1) {
        units >>= 1;
        bin++;
    }
    return bin;
}

static int32_t heap_new_chunk(struct heap *heap)
{
    if (heap->spare >= 0) {
        int32_t chunk = heap->spare;
        heap->spare = heap->chunks[chunk].next;
        return chunk;
    }
    if (heap->chunk_count == heap->chunk_capacity) {
        heap->chunk_capacity = heap->chunk_capacity ? 2 * heap->chunk_capacity : 256;
        heap->chunks = checked_realloc(heap->chunks, (size_t)heap->chunk_capacity, sizeof *heap->chunks);
    }
    return heap->chunk_count++;
}

static void heap_bin_insert(struct heap *heap, int32_t index)
{
    struct chunk *chunk = &heap->chunks[index];
    int bin = heap_bin_for(heap, chunk->size);
    chunk->bin = (int8_t)bin;
    chunk->bin_prev = -1;
    chunk->bin_next = heap->bins[bin];
    if (heap->bins[bin] >= 0)
        heap->chunks[heap->bins[bin]].bin_prev = index;
    heap->bins[bin] = index;
    heap->nonempty_bins |= UINT32_C(1) << bin;
}

static void heap_bin_remove(struct heap *heap, int32_t index)
{
    struct chunk *chunk = &heap->chunks[index];
    int bin = chunk->bin;
    if (chunk->bin_prev >= 0)
        heap->chunks[chunk->bin_prev].bin_next = chunk->bin_next;
    else
        heap->bins[bin] = chunk->bin_next;
    if (chunk->bin_next >= 0)
        heap->chunks[chunk->bin_next].bin_prev = chunk->bin_prev;
    if (heap->bins[bin] < 0)
        heap->nonempty_bins &= ~(UINT32_C(1) << bin);
    chunk->bin = -1;
}

/* Best fit: the smallest free chunk that fits, the lowest address on ties.
 * Bins hold increasing sizes, so the first bin with a fit has the best. */
static int32_t heap_find(const struct heap *heap, int64_t size)
{
    for (int bin = heap_bin_for(heap, size); bin < BIN_COUNT; bin++) {
        if (!(heap->nonempty_bins & (UINT32_C(1) << bin)))
            continue;
        int32_t best = -1;
        for (int32_t index = heap->bins[bin]; index >= 0; index = heap->chunks[index].bin_next) {
            const struct chunk *chunk = &heap->chunks[index];
            if (chunk->size < size)
                continue;
            if (best < 0 || chunk->size < heap->chunks[best].size ||
                (chunk->size == heap->chunks[best].size && chunk->address < heap->chunks[best].address))
                best = index;
        }
        if (best >= 0)
            return best;
    }
    return -1;
}

/* Extends the heap at its top by a region, doubling region sizes like a
 * BFC allocator with growth enabled. */
static void heap_grow(struct heap *heap, int64_t size)
{
    int32_t last = heap->last;
    int64_t tail = (last >= 0 && heap->chunks[last].bin >= 0) ? heap->chunks[last].size : 0;
    int64_t needed = size - tail;
    int64_t add = needed > heap->next_region_bytes ? needed : heap->next_region_bytes;
    if (heap->region_bytes + add > heap->region_limit) {
        add = heap->region_limit - heap->region_bytes;
        if (add < needed) /* over the limit: the programs are sized to avoid it */
            add = needed;
    }
    if (heap->next_region_bytes < heap->region_limit / 2)
        heap->next_region_bytes *= 2;
    if (tail > 0) {
        heap_bin_remove(heap, last);
        heap->chunks[last].size += add;
        heap_bin_insert(heap, last);
    } else {
        int32_t index = heap_new_chunk(heap);
        heap->chunks[index] = (struct chunk){
            .address = heap->base + (uint64_t)heap->region_bytes,
            .size = add,
            .prev = last,
            .next = -1,
        };
        if (last >= 0)
            heap->chunks[last].next = index;
        heap->last = index;
        heap_bin_insert(heap, index);
    }
    heap->region_bytes += add;
}

static int32_t heap_allocate(struct heap *heap, int64_t requested)
{
    int64_t granule = INT64_C(1) << heap->granule_shift;
    int64_t size = ((requested > 0 ? requested : 1) + granule - 1) / granule * granule;
    int32_t index = heap_find(heap, size);
    if (index < 0) {
        heap_grow(heap, size);
        index = heap_find(heap, size);
    }
    heap_bin_remove(heap, index);
    int64_t rest = heap->chunks[index].size - size;
    if (rest > 0 && (heap->always_split || heap->chunks[index].size >= 2 * size ||
                     rest >= MAX_INTERNAL_FRAGMENTATION)) {
        int32_t remainder = heap_new_chunk(heap);
        struct chunk *chunk = &heap->chunks[index];
        heap->chunks[remainder] = (struct chunk){
            .address = chunk->address + (uint64_t)size,
            .size = rest,
            .prev = index,
            .next = chunk->next,
        };
        if (chunk->next >= 0)
            heap->chunks[chunk->next].prev = remainder;
        else
            heap->last = remainder;
        chunk->next = remainder;
        chunk->size = size;
        heap_bin_insert(heap, remainder);
    }
    heap->in_use_bytes += heap->chunks[index].size;
    return index;
}

/* Absorbs the chunk after `index` into it. */
static void heap_merge_next(struct heap *heap, int32_t index)
{
    int32_t next = heap->chunks[index].next;
    heap->chunks[index].size += heap->chunks[next].size;
    heap->chunks[index].next = heap->chunks[next].next;
    if (heap->chunks[next].next >= 0)
        heap->chunks[heap->chunks[next].next].prev = index;
    else
        heap->last = index;
    heap->chunks[next].next = heap->spare;
    heap->spare = next;
}

static void heap_release(struct heap *heap, int32_t index)
{
    heap->in_use_bytes -= heap->chunks[index].size;
    int32_t next = heap->chunks[index].next;
    if (next >= 0 && heap->chunks[next].bin >= 0) {
        heap_bin_remove(heap, next);
        heap_merge_next(heap, index);
    }
    int32_t prev = heap->chunks[index].prev;
    if (prev >= 0 && heap->chunks[prev].bin >= 0) {
        heap_bin_remove(heap, prev);
        heap_merge_next(heap, prev);
        index = prev;
    }
    heap_bin_insert(heap, index);
}

static int64_t heap_largest_free(const struct heap *heap)
{
    if (heap->nonempty_bins == 0)
        return 0;
    int bin = BIN_COUNT - 1;
    while (!(heap->nonempty_bins & (UINT32_C(1) << bin)))
        bin--;
    int64_t largest = 0;
    for (int32_t index = heap->bins[bin]; index >= 0; index = heap->chunks[index].bin_next)
        if (heap->chunks[index].size > largest)
            largest = heap->chunks[index].size;
    return largest;
}

/* BFC's metric: the share of free region bytes outside the largest free
 * chunk, kept to six decimals as profiles show it. */
static double heap_fragmentation(const struct heap *heap)
{
    int64_t available = heap->region_bytes - heap->in_use_bytes;
    if (available <= 0)
        return 0.0;
    double share = (double)(available - heap_largest_free(heap)) / (double)available;
    int64_t millionths = (int64_t)(share * 1e6 + 0.5);
    return (double)millionths / 1e6;
}

/* ---- allocators and the training program each one runs ---- */

struct allocator_config {
    char name[32];
    int index;
    bool host;
    int64_t snapshots;
    int64_t capacity;
    int64_t stack;
    uint64_t address_base;
    uint64_t seed;
    uint64_t step_seed; /* shared by all allocators: steps start together */
    enum dtype_id act_dtype;
};

struct program {
    int layers;
    int64_t hidden;
    int64_t vocabulary;
    int64_t batch;
    int64_t seq_choices[4];
    int64_t init_temps, forward_temps, backward_temps, optimizer_temps;
    int64_t init_mean_dt_ns, step_mean_dt_ns;
};

#define STEP_ACTIVE_NS INT64_C(100000000) /* 100 ms of allocations per step */
#define INIT_ACTIVE_NS INT64_C(30000000)

static int64_t ceil_div(int64_t a, int64_t b)
{
    return a <= 0 ? 0 : (a + b - 1) / b;
}

static int64_t layer_in(const struct program *program, int layer)
{
    return layer % 2 == 0 ? program->hidden : 4 * program->hidden;
}

static int64_t layer_out(const struct program *program, int layer)
{
    return layer % 2 == 0 ? 4 * program->hidden : program->hidden;
}

/* Weights and Adam slots of one model size, as allocated at start. */
static int64_t program_weight_bytes(int layers, int64_t hidden, int64_t vocabulary)
{
    int64_t bytes = vocabulary * hidden * 4;
    for (int layer = 0; layer < layers; layer++) {
        int64_t in = layer % 2 == 0 ? hidden : 4 * hidden;
        int64_t out = layer % 2 == 0 ? 4 * hidden : hidden;
        bytes += 3 * (in * out * 4 + out * 4);
    }
    return bytes;
}

/* Sizes the model so weights take about 30% of the device and the
 * activations at the end of the forward pass another 30%, and spreads
 * temporaries so a step has its share of the snapshot count. */
static void program_setup(struct program *program, const struct allocator_config *config, int64_t steps)
{
    static const int64_t hidden_sizes[] = {256, 512, 768, 1024, 1536, 2048, 3072, 4096};
    int max_layers = config->host ? 16 : 96;
    int64_t layers = config->snapshots / steps / 40;
    program->layers = (int)(layers < 1 ? 1 : layers > max_layers ? max_layers : layers);
    program->vocabulary = 32000;
    int64_t budget = (config->capacity - config->stack) / 10 * 3;
    program->hidden = config->host ? 64 : hidden_sizes[0];
    for (size_t i = 0; !config->host && i < sizeof hidden_sizes / sizeof hidden_sizes[0]; i++)
        if (program_weight_bytes(program->layers, hidden_sizes[i], program->vocabulary) <= budget)
            program->hidden = hidden_sizes[i];
    int64_t tokens = budget / (15 * program->hidden * program->layers + 16);
    program->batch = 64;
    while (program->batch > 1 && program->batch * 512 > tokens)
        program->batch /= 2;
    int64_t longest = tokens / program->batch;
    longest = longest > 512 ? 512 : longest / 64 * 64;
    if (longest < 64)
        longest = 64;
    for (int i = 0; i < 4; i++)
        program->seq_choices[i] = longest * (5 + i) / 8 / 8 * 8;

    int64_t init_events = 2 + (int64_t)program->layers * (6 + 2);
    program->init_temps = 1;
    int64_t per_step = ceil_div(config->snapshots - init_events, steps);
    int64_t skeleton = 12 * (int64_t)program->layers + 8;
    int64_t temps = ceil_div(per_step - skeleton, 2);
    program->forward_temps = ceil_div(temps * 2, 5 * (int64_t)program->layers);
    program->backward_temps = program->forward_temps;
    program->optimizer_temps = ceil_div(temps, 5 * (int64_t)program->layers);
    int64_t step_events = skeleton + 2 * (int64_t)program->layers *
        (program->forward_temps + program->backward_temps + program->optimizer_temps);
    program->step_mean_dt_ns = STEP_ACTIVE_NS / step_events;
    if (program->step_mean_dt_ns < 1)
        program->step_mean_dt_ns = 1;
    program->init_mean_dt_ns = INIT_ACTIVE_NS / init_events;
}

static void allocators_setup(const struct options *options, struct allocator_config *configs)
{
    for (int index = 0; index < options->allocators; index++) {
        struct allocator_config *config = &configs[index];
        bool host = options->allocators > 1 && index == options->allocators - 1;
        *config = (struct allocator_config){
            .index = index,
            .host = host,
            .seed = hash_mix(options->seed, (uint64_t)index + 1),
            .step_seed = hash_mix(options->seed, UINT64_C(0x9a9)),
        };
        if (host) {
            snprintf(config->name, sizeof config->name, "cpu");
            config->snapshots = options->snapshots / 8;
            config->capacity = INT64_C(68719476736);
            config->stack = 0;
            config->address_base = UINT64_C(0x55d4c8000000) + (config->seed % 4096) * 0x100000;
            config->act_dtype = DTYPE_INT32;
        } else {
            snprintf(config->name, sizeof config->name, "GPU_%d_bfc", index);
            config->snapshots = index == 0 ? options->snapshots : options->snapshots / 2;
            config->capacity = INT64_C(15843721216);
            config->stack = 65536;
            config->address_base = UINT64_C(0x7f2a00000000) + (uint64_t)index * UINT64_C(0x400000000);
            config->act_dtype = index % 2 == 0 ? DTYPE_BFLOAT16 : DTYPE_HALF;
        }
        if (config->snapshots < 1)
            config->snapshots = 1;
    }
}

/* ---- the simulation: one event per call, in time order ---- */

enum unit_kind { UNIT_INIT, UNIT_BEGIN, UNIT_FORWARD, UNIT_BACKWARD, UNIT_OPTIMIZER, UNIT_END };

struct live_tensor {
    int32_t chunk; /* -1 when not allocated */
    int64_t requested;
    struct tensor_info tensor;
};

struct fixed_event {
    struct live_tensor *slot;
    bool release;
    struct tensor_info tensor;
};

#define MAX_FIXED 8

struct simulator {
    const struct allocator_config *config;
    const struct program *program;
    uint64_t random;
    struct heap heap;
    int64_t emitted;
    int64_t time_ps;
    int64_t peak_heap;
    int64_t step;
    int64_t seq_len;
    enum unit_kind unit;
    int layer;
    struct fixed_event fixed[MAX_FIXED];
    int fixed_count, fixed_done;
    int64_t unit_temps, unit_total, unit_cursor, temp_cursor;
    struct live_tensor temps[2];
    int temp_first, temp_live;
    struct live_tensor *activations; /* 3 per layer */
    struct live_tensor *gradients;   /* 2 per layer */
    struct live_tensor *input_grads; /* 1 per layer */
    struct live_tensor inputs[INPUT_COMPONENTS];
    struct live_tensor discard; /* persistent tensors are never freed */
};

/* A few pairs (i, i+1), i even, get strictly increasing times whether or
 * not --unsorted is given, so the profile is the same either way; with
 * --unsorted they are written swapped and a stable sort restores them. */
static bool pair_candidate(const struct allocator_config *config, int64_t first)
{
    return first % 2 == 0 && first + 1 < config->snapshots &&
           hash_mix(config->seed ^ UINT64_C(0x5eed), (uint64_t)first) % 97 == 0;
}

static bool swapped_pair(const struct allocator_config *config, bool unsorted, int64_t first)
{
    return unsorted && pair_candidate(config, first);
}

/* Where snapshot `index` of the time-sorted timeline is in the file. */
static int64_t written_position(const struct allocator_config *config, bool unsorted, int64_t index)
{
    return swapped_pair(config, unsorted, index & ~INT64_C(1)) ? (index ^ 1) : index;
}

static void live_array_reset(struct live_tensor *slots, size_t count)
{
    for (size_t i = 0; i < count; i++)
        slots[i].chunk = -1;
}

static void simulator_start(struct simulator *sim, const struct allocator_config *config,
                            const struct program *program)
{
    size_t layers = (size_t)program->layers;
    if (sim->activations == NULL) {
        sim->activations = checked_calloc(3 * layers, sizeof *sim->activations);
        sim->gradients = checked_calloc(2 * layers, sizeof *sim->gradients);
        sim->input_grads = checked_calloc(layers, sizeof *sim->input_grads);
    }
    live_array_reset(sim->activations, 3 * layers);
    live_array_reset(sim->gradients, 2 * layers);
    live_array_reset(sim->input_grads, layers);
    live_array_reset(sim->inputs, INPUT_COMPONENTS);
    sim->config = config;
    sim->program = program;
    sim->random = config->seed;
    heap_init(&sim->heap, config->address_base, config->capacity - config->stack, config->host);
    sim->emitted = 0;
    sim->time_ps = INT64_C(1500000000) + (int64_t)random_below(&sim->random, 400000) * 1000;
    sim->peak_heap = 0;
    sim->step = 0;
    sim->unit = UNIT_INIT;
    sim->layer = -1;
    sim->fixed_count = sim->fixed_done = 0;
    sim->unit_temps = sim->unit_total = sim->unit_cursor = sim->temp_cursor = 0;
    sim->temp_first = sim->temp_live = 0;
}

static void simulator_free(struct simulator *sim)
{
    free(sim->heap.chunks);
    free(sim->activations);
    free(sim->gradients);
    free(sim->input_grads);
    *sim = (struct simulator){0};
}

static struct tensor_info tensor_make(const struct simulator *sim, enum tensor_kind kind, int layer,
                                      int rank, int64_t d0, int64_t d1, int64_t d2)
{
    const struct kind_name *name = &(sim->config->host ? host_names : device_names)[kind];
    enum dtype_id dtype = name->dtype == DTYPE_ACT ? sim->config->act_dtype : name->dtype;
    return (struct tensor_info){
        .kind = (uint8_t)kind,
        .dtype = (uint8_t)dtype,
        .rank = (uint8_t)rank,
        .host = sim->config->host,
        .layer = layer,
        .dims = {d0, d1, d2},
    };
}

static void unit_add(struct simulator *sim, struct live_tensor *slot, bool release, struct tensor_info tensor)
{
    sim->fixed[sim->fixed_count++] = (struct fixed_event){slot, release, tensor};
}

static void unit_add_release(struct simulator *sim, struct live_tensor *slot)
{
    unit_add(sim, slot, true, slot->tensor);
}

static void unit_init(struct simulator *sim, int layer)
{
    const struct program *program = sim->program;
    int64_t in = layer_in(program, layer), out = layer_out(program, layer);
    if (layer == 0) {
        unit_add(sim, &sim->discard, false, tensor_make(sim, KIND_GLOBAL_STEP, 0, 0, 0, 0, 0));
        unit_add(sim, &sim->discard, false,
                 tensor_make(sim, KIND_EMBEDDING, 0, 2, program->vocabulary, program->hidden, 0));
    }
    static const enum tensor_kind kinds[] = {KIND_KERNEL, KIND_BIAS, KIND_KERNEL_M,
                                             KIND_KERNEL_V, KIND_BIAS_M, KIND_BIAS_V};
    for (int i = 0; i < 6; i++) {
        bool kernel = kinds[i] == KIND_KERNEL || kinds[i] == KIND_KERNEL_M || kinds[i] == KIND_KERNEL_V;
        unit_add(sim, &sim->discard, false,
                 kernel ? tensor_make(sim, kinds[i], layer, 2, in, out, 0)
                        : tensor_make(sim, kinds[i], layer, 1, out, 0, 0));
    }
    sim->unit_temps = program->init_temps;
}

static void unit_begin_step(struct simulator *sim)
{
    const struct program *program = sim->program;
    sim->step++;
    sim->seq_len = program->seq_choices[random_below(&sim->random, 4)];
    /* host overhead between steps, the same for every allocator */
    sim->time_ps += INT64_C(2000000000) +
                    (int64_t)(hash_mix(sim->config->step_seed, (uint64_t)sim->step) % 1000000) * 1000;
    for (int i = 0; i < INPUT_COMPONENTS; i++)
        unit_add(sim, &sim->inputs[i], false,
                 tensor_make(sim, KIND_INPUT, 0, 2, program->batch, sim->seq_len, 0));
    sim->unit_temps = 0;
}

static void unit_forward(struct simulator *sim, int layer)
{
    const struct program *program = sim->program;
    int64_t out = layer_out(program, layer);
    static const enum tensor_kind kinds[] = {KIND_MATMUL, KIND_BIAS_ADD, KIND_ACTIVATION};
    for (int i = 0; i < 3; i++)
        unit_add(sim, &sim->activations[3 * layer + i], false,
                 tensor_make(sim, kinds[i], layer, 3, program->batch, sim->seq_len, out));
    sim->unit_temps = program->forward_temps;
}

static void unit_backward(struct simulator *sim, int layer)
{
    const struct program *program = sim->program;
    int64_t in = layer_in(program, layer), out = layer_out(program, layer);
    unit_add(sim, &sim->input_grads[layer], false,
             tensor_make(sim, KIND_INPUT_GRAD, layer, 3, program->batch, sim->seq_len, in));
    unit_add(sim, &sim->gradients[2 * layer], false, tensor_make(sim, KIND_KERNEL_GRAD, layer, 2, in, out, 0));
    unit_add(sim, &sim->gradients[2 * layer + 1], false, tensor_make(sim, KIND_BIAS_GRAD, layer, 1, out, 0, 0));
    for (int i = 2; i >= 0; i--)
        unit_add_release(sim, &sim->activations[3 * layer + i]);
    if (layer + 1 < program->layers)
        unit_add_release(sim, &sim->input_grads[layer + 1]);
    sim->unit_temps = program->backward_temps;
}

static void unit_optimizer(struct simulator *sim, int layer)
{
    unit_add_release(sim, &sim->gradients[2 * layer]);
    unit_add_release(sim, &sim->gradients[2 * layer + 1]);
    sim->unit_temps = sim->program->optimizer_temps;
}

static void unit_end_step(struct simulator *sim)
{
    unit_add_release(sim, &sim->input_grads[0]);
    for (int i = 0; i < INPUT_COMPONENTS; i++)
        unit_add_release(sim, &sim->inputs[i]);
    sim->unit_temps = 0;
}

/* Moves to the next unit of work: init per layer, then per step: inputs,
 * forward per layer, backward in reverse, optimizer per layer, the end. */
static void simulator_next_unit(struct simulator *sim)
{
    int layers = sim->program->layers;
    sim->fixed_count = sim->fixed_done = 0;
    switch (sim->unit) {
    case UNIT_INIT:
        if (sim->layer + 1 < layers) {
            unit_init(sim, ++sim->layer);
            break;
        }
        sim->unit = UNIT_BEGIN;
        unit_begin_step(sim);
        break;
    case UNIT_BEGIN:
        sim->unit = UNIT_FORWARD;
        unit_forward(sim, sim->layer = 0);
        break;
    case UNIT_FORWARD:
        if (sim->layer + 1 < layers) {
            unit_forward(sim, ++sim->layer);
            break;
        }
        sim->unit = UNIT_BACKWARD;
        unit_backward(sim, sim->layer = layers - 1);
        break;
    case UNIT_BACKWARD:
        if (sim->layer > 0) {
            unit_backward(sim, --sim->layer);
            break;
        }
        sim->unit = UNIT_OPTIMIZER;
        unit_optimizer(sim, sim->layer = 0);
        break;
    case UNIT_OPTIMIZER:
        if (sim->layer + 1 < layers) {
            unit_optimizer(sim, ++sim->layer);
            break;
        }
        sim->unit = UNIT_END;
        unit_end_step(sim);
        break;
    case UNIT_END:
        sim->unit = UNIT_BEGIN;
        unit_begin_step(sim);
        break;
    }
    sim->unit_total = sim->fixed_count + 2 * sim->unit_temps;
    sim->unit_cursor = sim->temp_cursor = 0;
}

static struct tensor_info temp_tensor(struct simulator *sim)
{
    const struct program *program = sim->program;
    int layer = sim->layer;
    enum tensor_kind kind = sim->unit == UNIT_INIT       ? KIND_INIT_TEMP
                            : sim->unit == UNIT_FORWARD  ? KIND_FORWARD_TEMP
                            : sim->unit == UNIT_BACKWARD ? KIND_BACKWARD_TEMP
                                                         : KIND_OPTIMIZER_TEMP;
    uint64_t choice = random_next(&sim->random);
    int variant = kind == KIND_INIT_TEMP ? 0 : (int)(choice % 3);
    int64_t in = layer_in(program, layer), out = layer_out(program, layer);
    struct tensor_info tensor;
    if (kind == KIND_INIT_TEMP || (kind == KIND_OPTIMIZER_TEMP && variant == 0))
        tensor = tensor_make(sim, kind, layer, 2, in, out, 0);
    else if (variant == 1) /* scratch of an odd size, so requested != allocated */
        tensor = tensor_make(sim, kind, layer, 1, 1000 + (int64_t)((choice >> 8) % 250000), 0, 0);
    else if (kind == KIND_OPTIMIZER_TEMP)
        tensor = tensor_make(sim, kind, layer, 1, out, 0, 0);
    else
        tensor = tensor_make(sim, kind, layer, 3, program->batch, sim->seq_len,
                             variant == 0 ? out : 1 + (int64_t)((choice >> 40) % 64));
    tensor.variant = (uint8_t)variant;
    return tensor;
}

static void event_allocate(struct simulator *sim, struct live_tensor *slot, const struct tensor_info *tensor,
                           struct event *event)
{
    int64_t requested = tensor_bytes(tensor);
    int32_t chunk = heap_allocate(&sim->heap, requested);
    slot->chunk = chunk;
    slot->requested = requested;
    slot->tensor = *tensor;
    event->activity = ACTIVITY_ALLOCATION;
    event->requested_bytes = requested;
    event->allocation_bytes = sim->heap.chunks[chunk].size;
    event->address = sim->heap.chunks[chunk].address;
    event->tensor = *tensor;
}

static void event_release(struct simulator *sim, struct live_tensor *slot, struct event *event)
{
    event->activity = ACTIVITY_DEALLOCATION;
    event->requested_bytes = slot->requested;
    event->allocation_bytes = sim->heap.chunks[slot->chunk].size;
    event->address = sim->heap.chunks[slot->chunk].address;
    event->tensor = slot->tensor;
    heap_release(&sim->heap, slot->chunk);
    slot->chunk = -1;
}

/* Temporaries overlap by at most two: alloc, alloc, free, alloc, free, ... */
static void event_temp(struct simulator *sim, struct event *event)
{
    int64_t k = sim->temp_cursor++;
    int64_t last = 2 * sim->unit_temps - 1;
    if (k == 0 || (k % 2 == 1 && k != last)) {
        struct tensor_info tensor = temp_tensor(sim);
        struct live_tensor *slot = &sim->temps[(sim->temp_first + sim->temp_live) % 2];
        sim->temp_live++;
        event_allocate(sim, slot, &tensor, event);
    } else {
        struct live_tensor *slot = &sim->temps[sim->temp_first];
        sim->temp_first ^= 1;
        sim->temp_live--;
        event_release(sim, slot, event);
    }
}

static void simulator_advance_time(struct simulator *sim)
{
    const struct program *program = sim->program;
    int64_t mean = sim->step == 0 ? program->init_mean_dt_ns : program->step_mean_dt_ns;
    uint64_t draw = random_next(&sim->random);
    int64_t dt_ns = draw % 20 == 0 ? 0 : (int64_t)((draw >> 8) % (uint64_t)(2 * mean + 1));
    if (dt_ns == 0 && sim->emitted % 2 == 1 && pair_candidate(sim->config, sim->emitted - 1))
        dt_ns = 1;
    sim->time_ps += dt_ns * 1000;
}

static void simulator_next(struct simulator *sim, struct event *event)
{
    while (sim->unit_cursor == sim->unit_total)
        simulator_next_unit(sim);
    int64_t position = (int64_t)(sim->fixed_done + 1) * sim->unit_total / (sim->fixed_count + 1);
    bool temps_left = sim->temp_cursor < 2 * sim->unit_temps;
    if (sim->fixed_done < sim->fixed_count && (!temps_left || sim->unit_cursor >= position)) {
        struct fixed_event *fixed = &sim->fixed[sim->fixed_done++];
        if (fixed->release)
            event_release(sim, fixed->slot, event);
        else
            event_allocate(sim, fixed->slot, &fixed->tensor, event);
    } else {
        event_temp(sim, event);
    }
    sim->unit_cursor++;
    simulator_advance_time(sim);
    const struct allocator_config *config = sim->config;
    int64_t heap = sim->heap.in_use_bytes;
    if (heap > sim->peak_heap)
        sim->peak_heap = heap;
    event->time_ps = sim->time_ps;
    event->stack_bytes = config->stack;
    event->heap_bytes = heap;
    event->free_bytes = config->capacity - config->stack - heap;
    event->fragmentation = config->host ? 0.0 : heap_fragmentation(&sim->heap);
    /* the allocator's own peak counts bytes in use, not the stack */
    event->peak_bytes_in_use = sim->peak_heap;
    event->step_id = sim->step;
    sim->emitted++;
}

/* ---- output ---- */

#define OUTPUT_BUFFER_SIZE (1 << 20)
#define OUTPUT_RESERVE_MAX 4096

struct output {
    FILE *file;
    char *buffer;
    size_t used;
};

static void output_flush(struct output *out)
{
    if (out->used > 0 && fwrite(out->buffer, 1, out->used, out->file) != out->used)
        fatal("write failed");
    out->used = 0;
}

/* Room for `bytes` (at most OUTPUT_RESERVE_MAX) at the end of the buffer. */
static char *output_reserve(struct output *out, size_t bytes)
{
    if (out->used + bytes > OUTPUT_BUFFER_SIZE)
        output_flush(out);
    return out->buffer + out->used;
}

static void output_bytes(struct output *out, const void *bytes, size_t size)
{
    if (size == 0)
        return;
    if (size > OUTPUT_BUFFER_SIZE / 2) {
        output_flush(out);
        if (fwrite(bytes, 1, size, out->file) != size)
            fatal("write failed");
        return;
    }
    memcpy(output_reserve(out, size), bytes, size);
    out->used += size;
}

/* A growable byte buffer for the bounded parts of a message. */
struct bytes {
    uint8_t *data;
    size_t size, capacity;
};

static uint8_t *bytes_reserve(struct bytes *bytes, size_t more)
{
    if (bytes->size + more > bytes->capacity) {
        size_t capacity = bytes->capacity ? bytes->capacity : 4096;
        while (capacity < bytes->size + more)
            capacity *= 2;
        bytes->data = checked_realloc(bytes->data, capacity, 1);
        bytes->capacity = capacity;
    }
    return bytes->data + bytes->size;
}

/* ---- protobuf wire encoding, field by field as protobuf-c packs proto3 ---- */

enum { WIRE_VARINT = 0, WIRE_FIXED64 = 1, WIRE_LENGTH = 2 };

static uint8_t *put_varint(uint8_t *p, uint64_t value)
{
    while (value >= 0x80) {
        *p++ = (uint8_t)(value | 0x80);
        value >>= 7;
    }
    *p++ = (uint8_t)value;
    return p;
}

static size_t varint_size(uint64_t value)
{
    size_t size = 1;
    while (value >= 0x80) {
        value >>= 7;
        size++;
    }
    return size;
}

static uint8_t *put_tag(uint8_t *p, unsigned field, unsigned wire)
{
    return put_varint(p, (uint64_t)(field << 3 | wire));
}

/* int64, int32 and enums: negative values take ten bytes, zero none. */
static uint8_t *put_int64(uint8_t *p, unsigned field, int64_t value)
{
    if (value == 0)
        return p;
    return put_varint(put_tag(p, field, WIRE_VARINT), (uint64_t)value);
}

static uint8_t *put_uint64(uint8_t *p, unsigned field, uint64_t value)
{
    if (value == 0)
        return p;
    return put_varint(put_tag(p, field, WIRE_VARINT), value);
}

static uint8_t *put_double(uint8_t *p, unsigned field, double value)
{
    if (value == 0.0)
        return p;
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    p = put_tag(p, field, WIRE_FIXED64);
    for (int i = 0; i < 8; i++)
        *p++ = (uint8_t)(bits >> (8 * i));
    return p;
}

static uint8_t *put_string(uint8_t *p, unsigned field, const char *text, size_t length)
{
    if (length == 0)
        return p;
    p = put_varint(put_tag(p, field, WIRE_LENGTH), length);
    memcpy(p, text, length);
    return p + length;
}

/* A present submessage is written even when empty. */
static uint8_t *put_message(uint8_t *p, unsigned field, const uint8_t *body, size_t length)
{
    p = put_varint(put_tag(p, field, WIRE_LENGTH), length);
    memcpy(p, body, length);
    return p + length;
}

struct memory_stats {
    int64_t stack_bytes, heap_bytes, free_bytes;
    double fragmentation;
    int64_t peak_bytes_in_use;
};

static struct memory_stats event_stats(const struct event *event)
{
    return (struct memory_stats){event->stack_bytes, event->heap_bytes, event->free_bytes,
                                 event->fragmentation, event->peak_bytes_in_use};
}

#define SNAPSHOT_BYTES_MAX 1024 /* an encoded snapshot always fits */

static size_t encode_stats(uint8_t *out, const struct memory_stats *stats)
{
    uint8_t *p = out;
    p = put_int64(p, 1, stats->stack_bytes);
    p = put_int64(p, 2, stats->heap_bytes);
    p = put_int64(p, 3, stats->free_bytes);
    p = put_double(p, 4, stats->fragmentation);
    p = put_int64(p, 5, stats->peak_bytes_in_use);
    return (size_t)(p - out);
}

static size_t encode_metadata(uint8_t *out, const struct event *event, const struct event_text *text)
{
    uint8_t *p = out;
    p = put_int64(p, 1, event->activity);
    p = put_int64(p, 2, event->requested_bytes);
    p = put_int64(p, 3, event->allocation_bytes);
    p = put_uint64(p, 4, event->address);
    p = put_string(p, 5, text->op, text->op_length);
    p = put_int64(p, 6, event->step_id);
    p = put_string(p, 7, text->region, strlen(text->region));
    p = put_string(p, 8, text->dtype, strlen(text->dtype));
    p = put_string(p, 9, text->shape, text->shape_length);
    return (size_t)(p - out);
}

/* The MemoryProfileSnapshot body (without its own tag and length). */
static size_t encode_snapshot(uint8_t *out, const struct event *event)
{
    struct event_text text;
    uint8_t stats[64], metadata[SNAPSHOT_BYTES_MAX / 2];
    tensor_text(&event->tensor, &text);
    struct memory_stats values = event_stats(event);
    size_t stats_length = encode_stats(stats, &values);
    size_t metadata_length = encode_metadata(metadata, event, &text);
    uint8_t *p = out;
    p = put_int64(p, 1, event->time_ps);
    p = put_message(p, 2, stats, stats_length);
    p = put_message(p, 3, metadata, metadata_length);
    return (size_t)(p - out);
}

/* Appends a length-delimited field `field` whose body is a snapshot. */
static void bytes_put_snapshot(struct bytes *bytes, unsigned field, const struct event *event)
{
    uint8_t body[SNAPSHOT_BYTES_MAX];
    size_t length = encode_snapshot(body, event);
    uint8_t *p = bytes_reserve(bytes, length + 16);
    bytes->size += (size_t)(put_message(p, field, body, length) - p);
}

static size_t snapshot_field_size(const struct event *event)
{
    uint8_t body[SNAPSHOT_BYTES_MAX];
    size_t length = encode_snapshot(body, event);
    return 1 + varint_size(length) + length;
}

/* ---- JSON: proto3 JSON as XProf prints it, or the variants readers meet ---- */

enum json_key {
    KEY_PER_ALLOCATOR, KEY_NUM_HOSTS, KEY_MEMORY_IDS, KEY_VERSION, KEY_HLO_MODULES,
    KEY_SNAPSHOTS, KEY_SUMMARY, KEY_ACTIVE, KEY_SPECIAL, KEY_SAMPLED,
    KEY_TIME, KEY_STATS, KEY_METADATA,
    KEY_STACK, KEY_HEAP, KEY_FREE, KEY_FRAGMENTATION, KEY_PEAK,
    KEY_ACTIVITY, KEY_REQUESTED, KEY_ALLOCATION, KEY_ADDRESS, KEY_OP, KEY_STEP, KEY_REGION, KEY_DTYPE, KEY_SHAPE,
    KEY_LIFETIME, KEY_PEAK_STATS, KEY_PEAK_TIME, KEY_CAPACITY,
    KEY_SNAPSHOT_INDEX, KEY_SPECIAL_INDEX, KEY_OCCURRENCES,
    KEY_NAME, KEY_START, KEY_END, KEY_ID, KEY_PLANE,
    KEY_COUNT
};

static const char *const json_keys[KEY_COUNT][2] = {
    [KEY_PER_ALLOCATOR] = {"memoryProfilePerAllocator", "memory_profile_per_allocator"},
    [KEY_NUM_HOSTS] = {"numHosts", "num_hosts"},
    [KEY_MEMORY_IDS] = {"memoryIds", "memory_ids"},
    [KEY_VERSION] = {"version", "version"},
    [KEY_HLO_MODULES] = {"hloModules", "hlo_modules"},
    [KEY_SNAPSHOTS] = {"memoryProfileSnapshots", "memory_profile_snapshots"},
    [KEY_SUMMARY] = {"profileSummary", "profile_summary"},
    [KEY_ACTIVE] = {"activeAllocations", "active_allocations"},
    [KEY_SPECIAL] = {"specialAllocations", "special_allocations"},
    [KEY_SAMPLED] = {"sampledTimelineSnapshots", "sampled_timeline_snapshots"},
    [KEY_TIME] = {"timeOffsetPs", "time_offset_ps"},
    [KEY_STATS] = {"aggregationStats", "aggregation_stats"},
    [KEY_METADATA] = {"activityMetadata", "activity_metadata"},
    [KEY_STACK] = {"stackReservedBytes", "stack_reserved_bytes"},
    [KEY_HEAP] = {"heapAllocatedBytes", "heap_allocated_bytes"},
    [KEY_FREE] = {"freeMemoryBytes", "free_memory_bytes"},
    [KEY_FRAGMENTATION] = {"fragmentation", "fragmentation"},
    [KEY_PEAK] = {"peakBytesInUse", "peak_bytes_in_use"},
    [KEY_ACTIVITY] = {"memoryActivity", "memory_activity"},
    [KEY_REQUESTED] = {"requestedBytes", "requested_bytes"},
    [KEY_ALLOCATION] = {"allocationBytes", "allocation_bytes"},
    [KEY_ADDRESS] = {"address", "address"},
    [KEY_OP] = {"tfOpName", "tf_op_name"},
    [KEY_STEP] = {"stepId", "step_id"},
    [KEY_REGION] = {"regionType", "region_type"},
    [KEY_DTYPE] = {"dataType", "data_type"},
    [KEY_SHAPE] = {"tensorShape", "tensor_shape"},
    [KEY_LIFETIME] = {"peakBytesUsageLifetime", "peak_bytes_usage_lifetime"},
    [KEY_PEAK_STATS] = {"peakStats", "peak_stats"},
    [KEY_PEAK_TIME] = {"peakStatsTimePs", "peak_stats_time_ps"},
    [KEY_CAPACITY] = {"memoryCapacity", "memory_capacity"},
    [KEY_SNAPSHOT_INDEX] = {"snapshotIndex", "snapshot_index"},
    [KEY_SPECIAL_INDEX] = {"specialIndex", "special_index"},
    [KEY_OCCURRENCES] = {"numOccurrences", "num_occurrences"},
    [KEY_NAME] = {"name", "name"},
    [KEY_START] = {"startTimePs", "start_time_ps"},
    [KEY_END] = {"endTimePs", "end_time_ps"},
    [KEY_ID] = {"id", "id"},
    [KEY_PLANE] = {"planeName", "plane_name"},
};

static const char *const activity_names[] = {"UNKNOWN_ACTIVITY", "ALLOCATION", "DEALLOCATION",
                                             "RESERVATION", "EXPANSION"};

/* Where JSON goes and how it spells keys, int64 and enums. */
struct json {
    struct output *out;
    enum json_style style;
};

static void json_raw(struct json *json, const char *text, size_t length)
{
    output_bytes(json->out, text, length);
}

static void json_char(struct json *json, char c)
{
    *output_reserve(json->out, 1) = c;
    json->out->used++;
}

/* `"key":`, preceded by a comma unless `first`. */
static void json_key(struct json *json, enum json_key key, bool first)
{
    const char *name = json_keys[key][json->style == JSON_SNAKE ? 1 : 0];
    size_t length = strlen(name);
    char *p = output_reserve(json->out, length + 4);
    char *start = p;
    if (!first)
        *p++ = ',';
    *p++ = '"';
    memcpy(p, name, length);
    p += length;
    *p++ = '"';
    *p++ = ':';
    json->out->used += (size_t)(p - start);
}

/* int64 and uint64 are strings in proto3 JSON (numbers in the numbers style). */
static void json_int64(struct json *json, int64_t value)
{
    char *p = output_reserve(json->out, 24);
    char *start = p;
    bool quoted = json->style != JSON_NUMBERS;
    if (quoted)
        *p++ = '"';
    p += format_int64(p, value);
    if (quoted)
        *p++ = '"';
    json->out->used += (size_t)(p - start);
}

static void json_uint64(struct json *json, uint64_t value)
{
    char *p = output_reserve(json->out, 24);
    char *start = p;
    bool quoted = json->style != JSON_NUMBERS;
    if (quoted)
        *p++ = '"';
    p += format_uint64(p, value);
    if (quoted)
        *p++ = '"';
    json->out->used += (size_t)(p - start);
}

static void json_int32(struct json *json, int32_t value)
{
    char *p = output_reserve(json->out, 16);
    json->out->used += format_int64(p, value);
}

/* The shortest of %.15g and %.17g that reads back to the same double. */
static void json_double(struct json *json, double value)
{
    char text[40];
    snprintf(text, sizeof text, "%.15g", value);
    if (strtod(text, NULL) != value)
        snprintf(text, sizeof text, "%.17g", value);
    json_raw(json, text, strlen(text));
}

static void json_string(struct json *json, const char *text, size_t length)
{
    json_char(json, '"');
    for (size_t i = 0; i < length; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '"' || c == '\\') {
            json_char(json, '\\');
            json_char(json, (char)c);
        } else if (c < 0x20) {
            char escape[8];
            snprintf(escape, sizeof escape, "\\u%04x", c);
            json_raw(json, escape, 6);
        } else {
            json_char(json, (char)c);
        }
    }
    json_char(json, '"');
}

static void json_enum(struct json *json, int activity)
{
    if (json->style == JSON_NUMBERS) {
        json_int32(json, activity);
        return;
    }
    const char *name = activity >= 0 && activity <= 4 ? activity_names[activity] : "UNKNOWN_ACTIVITY";
    json_string(json, name, strlen(name));
}

static void json_stats(struct json *json, const struct memory_stats *stats)
{
    json_char(json, '{');
    json_key(json, KEY_STACK, true);
    json_int64(json, stats->stack_bytes);
    json_key(json, KEY_HEAP, false);
    json_int64(json, stats->heap_bytes);
    json_key(json, KEY_FREE, false);
    json_int64(json, stats->free_bytes);
    json_key(json, KEY_FRAGMENTATION, false);
    json_double(json, stats->fragmentation);
    json_key(json, KEY_PEAK, false);
    json_int64(json, stats->peak_bytes_in_use);
    json_char(json, '}');
}

static void json_metadata(struct json *json, const struct event *event)
{
    struct event_text text;
    tensor_text(&event->tensor, &text);
    json_char(json, '{');
    json_key(json, KEY_ACTIVITY, true);
    json_enum(json, event->activity);
    json_key(json, KEY_REQUESTED, false);
    json_int64(json, event->requested_bytes);
    json_key(json, KEY_ALLOCATION, false);
    json_int64(json, event->allocation_bytes);
    json_key(json, KEY_ADDRESS, false);
    json_uint64(json, event->address);
    json_key(json, KEY_OP, false);
    json_string(json, text.op, text.op_length);
    json_key(json, KEY_STEP, false);
    json_int64(json, event->step_id);
    json_key(json, KEY_REGION, false);
    json_string(json, text.region, strlen(text.region));
    json_key(json, KEY_DTYPE, false);
    json_string(json, text.dtype, strlen(text.dtype));
    json_key(json, KEY_SHAPE, false);
    json_string(json, text.shape, text.shape_length);
    json_char(json, '}');
}

static void json_snapshot(struct json *json, const struct event *event)
{
    json_char(json, '{');
    json_key(json, KEY_TIME, true);
    json_int64(json, event->time_ps);
    json_key(json, KEY_STATS, false);
    struct memory_stats stats = event_stats(event);
    json_stats(json, &stats);
    json_key(json, KEY_METADATA, false);
    json_metadata(json, event);
    json_char(json, '}');
}

/* ---- what XProf computes: peak, active allocations, sampled timeline ---- */

struct row {
    struct event event;
    int64_t index;   /* time-sorted snapshot index; for special rows unused */
    int special;     /* index into specials, or -1 */
    int64_t occurrences;
    struct event_text text;
};

struct sample {
    struct event event;
};

struct step_times {
    int64_t *first_ps, *last_ps; /* per step id 0..steps; -1 when unseen */
    int64_t steps;
    int64_t begin_ps, end_ps;    /* first and last snapshot */
};

struct analysis {
    int64_t count;
    struct event peak;
    int64_t peak_index;
    int64_t lifetime_peak;
    uint64_t snapshot_field_bytes; /* protobuf version 0: all field-1 entries */
    struct sample *sampled;
    size_t sampled_count;
    struct row *rows;
    size_t row_count;
    struct event specials[2];
    int special_count;
};

/* XProf's box filter: N/k windows of width w, then of width w+1; each keeps
 * its snapshot with the largest stack+heap (the first on ties). */
struct sampler {
    int64_t width, first_count, window, window_end;
    bool have_best;
    int64_t best_bytes;
};

static void sampler_start(struct sampler *sampler, int64_t count)
{
    *sampler = (struct sampler){0};
    if (count > SAMPLE_LIMIT) {
        sampler->width = count / SAMPLE_LIMIT;
        sampler->first_count = SAMPLE_LIMIT * (sampler->width + 1) - count;
    } else {
        sampler->width = 1;
        sampler->first_count = count;
    }
    sampler->window_end = sampler->first_count > 0 ? sampler->width : sampler->width + 1;
}

static void sampler_add(struct sampler *sampler, struct analysis *analysis, const struct event *event,
                        int64_t index)
{
    int64_t bytes = event->stack_bytes + event->heap_bytes;
    struct sample *slot = &analysis->sampled[analysis->sampled_count];
    if (!sampler->have_best || bytes > sampler->best_bytes) {
        slot->event = *event;
        sampler->best_bytes = bytes;
        sampler->have_best = true;
    }
    if (index + 1 == sampler->window_end) {
        analysis->sampled_count++;
        sampler->have_best = false;
        sampler->window++;
        sampler->window_end += sampler->window < sampler->first_count ? sampler->width : sampler->width + 1;
    }
}

static void step_times_note(struct step_times *times, const struct event *event, int64_t index)
{
    if (index == 0)
        times->begin_ps = event->time_ps;
    times->end_ps = event->time_ps;
    int64_t step = event->step_id;
    if (step < 0 || step > times->steps)
        return;
    if (times->first_ps[step] < 0)
        times->first_ps[step] = event->time_ps;
    times->last_ps[step] = event->time_ps;
}

/* Pass 1: the peak (largest stack+heap, a later one wins ties), the
 * lifetime peak (the last snapshot's peak_bytes_in_use), the sampled
 * timeline and, for protobuf version 0, the encoded size of the timeline. */
static void analysis_scan(struct analysis *analysis, struct simulator *sim, const struct options *options,
                          struct step_times *times)
{
    const struct allocator_config *config = sim->config;
    struct sampler sampler = {0};
    bool sampling = options->version == 1;
    bool sizing = options->version == 0 && options->format == FORMAT_PB;
    if (sampling) {
        analysis->sampled = checked_calloc(SAMPLE_LIMIT, sizeof *analysis->sampled);
        sampler_start(&sampler, config->snapshots);
    }
    int64_t peak_bytes = 0;
    struct event event;
    for (int64_t index = 0; index < config->snapshots; index++) {
        simulator_next(sim, &event);
        int64_t bytes = event.stack_bytes + event.heap_bytes;
        if (index == 0 || bytes >= peak_bytes) {
            peak_bytes = bytes;
            analysis->peak = event;
            analysis->peak_index = index;
        }
        if (sampling)
            sampler_add(&sampler, analysis, &event, index);
        if (sizing)
            analysis->snapshot_field_bytes += snapshot_field_size(&event);
        if (times != NULL)
            step_times_note(times, &event, index);
    }
    analysis->count = config->snapshots;
    analysis->lifetime_peak = event.peak_bytes_in_use;
}

/* Live allocations of the peak step, keyed by address (open addressing,
 * backward-shift deletion). */
struct live_entry {
    bool used;
    uint64_t address;
    int64_t index;
    struct event event;
};

struct live_map {
    struct live_entry *entries;
    size_t capacity, count;
};

static size_t live_map_slot(const struct live_map *map, uint64_t address)
{
    return (size_t)(hash_mix(address, 0x11) & (map->capacity - 1));
}

static void live_map_put(struct live_map *map, uint64_t address, int64_t index, const struct event *event);

static void live_map_grow(struct live_map *map)
{
    struct live_map old = *map;
    map->capacity = old.capacity ? 2 * old.capacity : 256;
    map->entries = checked_calloc(map->capacity, sizeof *map->entries);
    map->count = 0;
    for (size_t i = 0; i < old.capacity; i++)
        if (old.entries[i].used)
            live_map_put(map, old.entries[i].address, old.entries[i].index, &old.entries[i].event);
    free(old.entries);
}

static void live_map_put(struct live_map *map, uint64_t address, int64_t index, const struct event *event)
{
    if (2 * (map->count + 1) > map->capacity)
        live_map_grow(map);
    size_t slot = live_map_slot(map, address);
    while (map->entries[slot].used && map->entries[slot].address != address)
        slot = (slot + 1) & (map->capacity - 1);
    if (!map->entries[slot].used)
        map->count++;
    map->entries[slot] = (struct live_entry){true, address, index, *event};
}

/* Removes `address`; returns false when it was not there. */
static bool live_map_remove(struct live_map *map, uint64_t address)
{
    if (map->capacity == 0)
        return false;
    size_t mask = map->capacity - 1;
    size_t slot = live_map_slot(map, address);
    while (map->entries[slot].used && map->entries[slot].address != address)
        slot = (slot + 1) & mask;
    if (!map->entries[slot].used)
        return false;
    size_t hole = slot;
    for (size_t next = (hole + 1) & mask; map->entries[next].used; next = (next + 1) & mask) {
        size_t home = live_map_slot(map, map->entries[next].address);
        /* move `next` back when its home is not cyclically in (hole, next] */
        bool stays = hole <= next ? (home > hole && home <= next) : (home > hole || home <= next);
        if (!stays) {
            map->entries[hole] = map->entries[next];
            hole = next;
        }
    }
    map->entries[hole].used = false;
    map->count--;
    return true;
}

static int row_compare(const void *a, const void *b)
{
    const struct row *left = a, *right = b;
    if (left->event.allocation_bytes != right->event.allocation_bytes)
        return left->event.allocation_bytes > right->event.allocation_bytes ? -1 : 1;
    if (left->event.requested_bytes != right->event.requested_bytes)
        return left->event.requested_bytes > right->event.requested_bytes ? -1 : 1;
    int order = strcmp(left->text.op, right->text.op);
    if (order == 0)
        order = strcmp(left->text.region, right->text.region);
    if (order == 0)
        order = strcmp(left->text.dtype, right->text.dtype);
    if (order == 0)
        order = strcmp(left->text.shape, right->text.shape);
    if (order == 0 && left->index != right->index)
        order = left->index < right->index ? -1 : 1;
    return order;
}

static bool row_same(const struct row *a, const struct row *b)
{
    return a->event.allocation_bytes == b->event.allocation_bytes &&
           a->event.requested_bytes == b->event.requested_bytes && strcmp(a->text.op, b->text.op) == 0 &&
           strcmp(a->text.region, b->text.region) == 0 && strcmp(a->text.dtype, b->text.dtype) == 0 &&
           strcmp(a->text.shape, b->text.shape) == 0;
}

static struct event special_event(enum tensor_kind kind, int64_t bytes, int64_t step, bool host)
{
    struct event event = {
        .activity = ACTIVITY_ALLOCATION,
        .requested_bytes = bytes,
        .allocation_bytes = bytes,
        .step_id = step,
    };
    event.tensor = (struct tensor_info){.kind = (uint8_t)kind, .dtype = DTYPE_INVALID, .host = host};
    return event;
}

/* Sorts the rows and merges equal neighbours; a merged row keeps the last
 * snapshot of its group. */
static void rows_sort_and_merge(struct analysis *analysis)
{
    qsort(analysis->rows, analysis->row_count, sizeof *analysis->rows, row_compare);
    size_t kept = 0;
    for (size_t i = 0; i < analysis->row_count; i++) {
        if (kept > 0 && row_same(&analysis->rows[kept - 1], &analysis->rows[i])) {
            int64_t occurrences = analysis->rows[kept - 1].occurrences + 1;
            analysis->rows[kept - 1] = analysis->rows[i];
            analysis->rows[kept - 1].occurrences = occurrences;
        } else {
            analysis->rows[kept++] = analysis->rows[i];
        }
    }
    analysis->row_count = kept;
}

/* Pass 2: the active allocations at the peak, walking the snapshots up to
 * the peak time that belong to the peak step. */
static void analysis_walk(struct analysis *analysis, struct simulator *sim)
{
    const struct event *peak = &analysis->peak;
    struct live_map map = {0};
    int64_t unmatched_bytes = 0;
    struct event event;
    for (int64_t index = 0; index < analysis->count; index++) {
        simulator_next(sim, &event);
        if (event.time_ps > peak->time_ps)
            break;
        if (event.step_id != peak->step_id)
            continue;
        if (event.activity == ACTIVITY_ALLOCATION)
            live_map_put(&map, event.address, index, &event);
        else if (!live_map_remove(&map, event.address))
            unmatched_bytes += event.allocation_bytes;
    }
    int64_t unmapped = peak->heap_bytes - unmatched_bytes;
    analysis->rows = checked_calloc(map.count + 2, sizeof *analysis->rows);
    for (size_t i = 0; i < map.capacity; i++) {
        if (!map.entries[i].used)
            continue;
        struct row *row = &analysis->rows[analysis->row_count++];
        row->event = map.entries[i].event;
        row->index = map.entries[i].index;
        row->special = -1;
        row->occurrences = 1;
        unmapped -= row->event.allocation_bytes;
    }
    free(map.entries);
    if (unmapped > 0)
        analysis->specials[analysis->special_count++] =
            special_event(KIND_UNMAPPED, unmapped, peak->step_id, sim->config->host);
    if (peak->stack_bytes > 0)
        analysis->specials[analysis->special_count++] =
            special_event(KIND_STACK, peak->stack_bytes, peak->step_id, sim->config->host);
    for (int i = 0; i < analysis->special_count; i++) {
        struct row *row = &analysis->rows[analysis->row_count++];
        row->event = analysis->specials[i];
        row->index = -1 - i;
        row->special = i;
        row->occurrences = 1;
    }
    for (size_t i = 0; i < analysis->row_count; i++)
        tensor_text(&analysis->rows[i].event.tensor, &analysis->rows[i].text);
    rows_sort_and_merge(analysis);
}

static void analysis_free(struct analysis *analysis)
{
    free(analysis->sampled);
    free(analysis->rows);
    *analysis = (struct analysis){0};
}

/* ---- writing one allocator ---- */

struct writer {
    const struct options *options;
    struct output *out;
    struct json json;
};

/* snapshot_index as written: the file position in version 0, the position
 * among the row snapshots in version 1. */
static int64_t row_snapshot_index(const struct writer *writer, const struct allocator_config *config,
                                  const struct analysis *analysis, size_t row_number)
{
    const struct row *row = &analysis->rows[row_number];
    if (row->special >= 0)
        return -1 - row->special;
    if (writer->options->version == 0)
        return written_position(config, writer->options->unsorted, row->index);
    int64_t position = 0;
    for (size_t i = 0; i < row_number; i++)
        if (analysis->rows[i].special < 0)
            position++;
    return position;
}

/* Order of the sampled timeline as written: --unsorted swaps a few
 * neighbours with different times. */
static size_t sample_written(const struct writer *writer, const struct allocator_config *config,
                             const struct analysis *analysis, size_t position)
{
    if (!writer->options->unsorted)
        return position;
    size_t first = position & ~(size_t)1;
    if (first + 1 < analysis->sampled_count &&
        analysis->sampled[first].event.time_ps < analysis->sampled[first + 1].event.time_ps &&
        hash_mix(config->seed ^ UINT64_C(0x5a3), first) % 7 == 0)
        return position ^ 1;
    return position;
}

static struct memory_stats summary_peak_stats(const struct analysis *analysis)
{
    struct memory_stats stats = event_stats(&analysis->peak);
    stats.peak_bytes_in_use = analysis->peak.stack_bytes + analysis->peak.heap_bytes;
    return stats;
}

/* Summary, rows, specials and (version 1) sampled timeline: fields 2..5. */
static void encode_tail(const struct writer *writer, const struct allocator_config *config,
                        const struct analysis *analysis, struct bytes *tail)
{
    uint8_t body[SNAPSHOT_BYTES_MAX], stats_body[64];
    struct memory_stats stats = summary_peak_stats(analysis);
    size_t stats_length = encode_stats(stats_body, &stats);
    uint8_t *p = body;
    p = put_int64(p, 1, analysis->lifetime_peak);
    p = put_message(p, 2, stats_body, stats_length);
    p = put_int64(p, 3, analysis->peak.time_ps);
    p = put_int64(p, 4, analysis->peak.stack_bytes + analysis->peak.heap_bytes + analysis->peak.free_bytes);
    uint8_t *q = bytes_reserve(tail, (size_t)(p - body) + 16);
    tail->size += (size_t)(put_message(q, 2, body, (size_t)(p - body)) - q);

    for (size_t i = 0; i < analysis->row_count; i++) {
        const struct row *row = &analysis->rows[i];
        p = body;
        p = put_int64(p, 1, row_snapshot_index(writer, config, analysis, i));
        p = put_int64(p, 2, row->special);
        p = put_int64(p, 3, row->occurrences);
        q = bytes_reserve(tail, (size_t)(p - body) + 16);
        tail->size += (size_t)(put_message(q, 3, body, (size_t)(p - body)) - q);
    }
    for (int i = 0; i < analysis->special_count; i++) {
        struct event_text text;
        tensor_text(&analysis->specials[i].tensor, &text);
        size_t length = encode_metadata(body, &analysis->specials[i], &text);
        q = bytes_reserve(tail, length + 16);
        tail->size += (size_t)(put_message(q, 4, body, length) - q);
    }
    for (size_t i = 0; i < analysis->sampled_count; i++)
        bytes_put_snapshot(tail, 5, &analysis->sampled[sample_written(writer, config, analysis, i)].event);
}

/* One snapshot of a version 0 timeline; returns the protobuf bytes
 * written (0 for JSON, whose size nobody needs up front). */
static uint64_t write_timeline_snapshot(struct writer *writer, const struct event *event, bool first)
{
    if (writer->options->format == FORMAT_JSON) {
        if (!first)
            json_char(&writer->json, ',');
        json_snapshot(&writer->json, event);
        return 0;
    }
    uint8_t *p = (uint8_t *)output_reserve(writer->out, SNAPSHOT_BYTES_MAX + 16);
    uint8_t body[SNAPSHOT_BYTES_MAX];
    size_t length = encode_snapshot(body, event);
    size_t size = (size_t)(put_message(p, 1, body, length) - p);
    writer->out->used += size;
    return size;
}

/* Pass 3 (version 0): the whole timeline, writing the --unsorted pairs
 * swapped; returns the protobuf bytes written. */
static uint64_t stream_timeline(struct writer *writer, struct simulator *sim, const struct analysis *analysis)
{
    const struct allocator_config *config = sim->config;
    uint64_t written = 0;
    struct event event, held;
    for (int64_t index = 0; index < analysis->count; index++) {
        simulator_next(sim, &event);
        if (swapped_pair(config, writer->options->unsorted, index)) {
            held = event;
            simulator_next(sim, &event);
            index++;
            written += write_timeline_snapshot(writer, &event, index == 1);
            written += write_timeline_snapshot(writer, &held, false);
            continue;
        }
        written += write_timeline_snapshot(writer, &event, index == 0);
    }
    return written;
}

static void write_allocator_pb(struct writer *writer, struct simulator *sim, const struct program *program,
                               const struct analysis *analysis)
{
    const struct allocator_config *config = sim->config;
    struct bytes head = {0}, tail = {0};
    if (writer->options->version == 1) {
        for (size_t i = 0; i < analysis->row_count; i++)
            if (analysis->rows[i].special < 0)
                bytes_put_snapshot(&head, 1, &analysis->rows[i].event);
    }
    encode_tail(writer, config, analysis, &tail);
    uint64_t value_length = (writer->options->version == 0 ? analysis->snapshot_field_bytes : head.size) + tail.size;
    size_t key_length = strlen(config->name);
    uint64_t entry_length = 1 + varint_size(key_length) + key_length + 1 + varint_size(value_length) + value_length;

    uint8_t prefix[64];
    uint8_t *p = put_tag(prefix, 1, WIRE_LENGTH);
    p = put_varint(p, entry_length);
    p = put_string(p, 1, config->name, key_length);
    p = put_tag(p, 2, WIRE_LENGTH);
    p = put_varint(p, value_length);
    output_bytes(writer->out, prefix, (size_t)(p - prefix));
    if (writer->options->version == 0) {
        simulator_start(sim, config, program);
        if (stream_timeline(writer, sim, analysis) != analysis->snapshot_field_bytes)
            fatal("internal error: timeline size changed between passes");
    } else {
        output_bytes(writer->out, head.data, head.size);
    }
    output_bytes(writer->out, tail.data, tail.size);
    free(head.data);
    free(tail.data);
}

static void json_summary(struct json *json, const struct analysis *analysis)
{
    json_key(json, KEY_SUMMARY, false);
    json_char(json, '{');
    json_key(json, KEY_LIFETIME, true);
    json_int64(json, analysis->lifetime_peak);
    json_key(json, KEY_PEAK_STATS, false);
    struct memory_stats stats = summary_peak_stats(analysis);
    json_stats(json, &stats);
    json_key(json, KEY_PEAK_TIME, false);
    json_int64(json, analysis->peak.time_ps);
    json_key(json, KEY_CAPACITY, false);
    json_int64(json, analysis->peak.stack_bytes + analysis->peak.heap_bytes + analysis->peak.free_bytes);
    json_char(json, '}');
}

static void json_active_and_special(struct writer *writer, const struct allocator_config *config,
                                    const struct analysis *analysis)
{
    struct json *json = &writer->json;
    json_key(json, KEY_ACTIVE, false);
    json_char(json, '[');
    for (size_t i = 0; i < analysis->row_count; i++) {
        if (i > 0)
            json_char(json, ',');
        json_char(json, '{');
        json_key(json, KEY_SNAPSHOT_INDEX, true);
        json_int64(json, row_snapshot_index(writer, config, analysis, i));
        json_key(json, KEY_SPECIAL_INDEX, false);
        json_int64(json, analysis->rows[i].special);
        json_key(json, KEY_OCCURRENCES, false);
        json_int64(json, analysis->rows[i].occurrences);
        json_char(json, '}');
    }
    json_char(json, ']');
    json_key(json, KEY_SPECIAL, false);
    json_char(json, '[');
    for (int i = 0; i < analysis->special_count; i++) {
        if (i > 0)
            json_char(json, ',');
        json_metadata(json, &analysis->specials[i]);
    }
    json_char(json, ']');
}

static void write_allocator_json(struct writer *writer, struct simulator *sim, const struct program *program,
                                 const struct analysis *analysis, bool first)
{
    const struct allocator_config *config = sim->config;
    struct json *json = &writer->json;
    if (!first)
        json_char(json, ',');
    json_string(json, config->name, strlen(config->name));
    json_char(json, ':');
    json_char(json, '{');
    json_key(json, KEY_SNAPSHOTS, true);
    json_char(json, '[');
    if (writer->options->version == 0) {
        simulator_start(sim, config, program);
        stream_timeline(writer, sim, analysis);
    } else {
        bool any = false;
        for (size_t i = 0; i < analysis->row_count; i++) {
            if (analysis->rows[i].special >= 0)
                continue;
            if (any)
                json_char(json, ',');
            json_snapshot(json, &analysis->rows[i].event);
            any = true;
        }
    }
    json_char(json, ']');

    json_summary(json, analysis);
    json_active_and_special(writer, config, analysis);
    if (writer->options->version == 1) {
        json_key(json, KEY_SAMPLED, false);
        json_char(json, '[');
        for (size_t i = 0; i < analysis->sampled_count; i++) {
            if (i > 0)
                json_char(json, ',');
            json_snapshot(json, &analysis->sampled[sample_written(writer, config, analysis, i)].event);
        }
        json_char(json, ']');
    }
    json_char(json, '}');
}

/* ---- the profile-level fields after the map ---- */

struct hlo_module {
    char name[64];
    int64_t start_ps, end_ps, id;
};

/* Modules cover whole steps when there are no more modules than steps,
 * else equal slices of the traced time. */
static void hlo_module_make(const struct options *options, const struct step_times *times, int64_t index,
                            struct hlo_module *module)
{
    int64_t steps = 0;
    for (int64_t step = 1; step <= times->steps; step++)
        if (times->first_ps[step] >= 0)
            steps = step;
    int64_t count = options->hlo_modules;
    uint64_t fingerprint = hash_mix(options->seed, UINT64_C(0x41c0));
    snprintf(module->name, sizeof module->name, "jit_train_step(%" PRIu64 ")", fingerprint);
    module->id = index;
    if (steps >= count) {
        int64_t first = 1 + index * steps / count, last = (index + 1) * steps / count;
        module->start_ps = times->first_ps[first] - 5000000;
        module->end_ps = times->last_ps[last] + 5000000;
        return;
    }
    int64_t begin = steps > 0 ? times->first_ps[1] : times->begin_ps;
    double span = (double)(times->end_ps - begin) / (double)count;
    int64_t from = begin + (int64_t)(span * (double)index);
    int64_t to = begin + (int64_t)(span * (double)(index + 1));
    module->start_ps = from + (to - from) / 50;
    module->end_ps = to - (to - from) / 50;
}

static int string_compare(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void write_hlo_module_pb(struct writer *writer, const struct hlo_module *module)
{
    uint8_t body[160], field[176];
    uint8_t *p = put_string(body, 1, module->name, strlen(module->name));
    p = put_int64(p, 2, module->start_ps);
    p = put_int64(p, 3, module->end_ps);
    p = put_int64(p, 4, module->id);
    p = put_string(p, 5, "GPU:0", 5);
    uint8_t *end = put_message(field, 6, body, (size_t)(p - body));
    output_bytes(writer->out, field, (size_t)(end - field));
}

static void write_hlo_module_json(struct writer *writer, const struct hlo_module *module, bool first)
{
    struct json *json = &writer->json;
    if (!first)
        json_char(json, ',');
    json_char(json, '{');
    json_key(json, KEY_NAME, true);
    json_string(json, module->name, strlen(module->name));
    json_key(json, KEY_START, false);
    json_int64(json, module->start_ps);
    json_key(json, KEY_END, false);
    json_int64(json, module->end_ps);
    json_key(json, KEY_ID, false);
    json_int64(json, module->id);
    json_key(json, KEY_PLANE, false);
    json_string(json, "GPU:0", 5);
    json_char(json, '}');
}

/* num_hosts, memory_ids (sorted, as XProf lists them) and version. */
static void write_profile_header_fields(struct writer *writer, const char *const *ids, int count)
{
    const struct options *options = writer->options;
    struct json *json = &writer->json;
    if (options->format == FORMAT_PB) {
        uint8_t field[64];
        output_bytes(writer->out, field, (size_t)(put_int64(field, 2, 1) - field));
        for (int i = 0; i < count; i++)
            output_bytes(writer->out, field, (size_t)(put_string(field, 3, ids[i], strlen(ids[i])) - field));
        output_bytes(writer->out, field, (size_t)(put_int64(field, 5, options->version) - field));
        return;
    }
    json_key(json, KEY_NUM_HOSTS, false);
    json_int32(json, 1);
    json_key(json, KEY_MEMORY_IDS, false);
    json_char(json, '[');
    for (int i = 0; i < count; i++) {
        if (i > 0)
            json_char(json, ',');
        json_string(json, ids[i], strlen(ids[i]));
    }
    json_char(json, ']');
    if (options->version != 0) { /* version 0 producers had no such field */
        json_key(json, KEY_VERSION, false);
        json_int32(json, options->version);
    }
}

static void write_profile_fields(struct writer *writer, const struct allocator_config *configs,
                                 const struct step_times *times)
{
    const struct options *options = writer->options;
    const char *ids[MAX_ALLOCATORS];
    for (int i = 0; i < options->allocators; i++)
        ids[i] = configs[i].name;
    qsort(ids, (size_t)options->allocators, sizeof ids[0], string_compare);
    write_profile_header_fields(writer, ids, options->allocators);
    bool json = options->format == FORMAT_JSON;
    bool json_modules = json && (options->version != 0 || options->hlo_modules > 0);
    if (json_modules) {
        json_key(&writer->json, KEY_HLO_MODULES, false);
        json_char(&writer->json, '[');
    }
    for (int64_t i = 0; i < options->hlo_modules; i++) {
        struct hlo_module module;
        hlo_module_make(options, times, i, &module);
        if (json)
            write_hlo_module_json(writer, &module, i == 0);
        else
            write_hlo_module_pb(writer, &module);
    }
    if (json_modules)
        json_char(&writer->json, ']');
    if (json)
        json_char(&writer->json, '}');
}

/* ---- main ---- */

static void print_stats(const struct allocator_config *config, const struct program *program,
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

static void write_allocator(struct writer *writer, const struct allocator_config *config,
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
