/* generate_oom_log: writes an OOM log as jobs print them (the shapes of
 * docs/formats/oom_log.md) and, with --expect, what memtop must read from
 * it, computed here on its own (the bytes the printed units stand for).
 *
 *     generate_oom_log --kind xla|bfc|torch [--seed N] [--buffers N]
 *                      [--prefix none|tf|absl|runner] [--spaces] [--wrap]
 *                      [--reports N] -o FILE [--expect FILE]
 *
 * --reports N writes N reports (kinds taking turns, the asked one last),
 * among other lines (a progress bar, a traceback); --spaces indents with
 * 8 spaces instead of tabs; --wrap cuts long op names over two lines.
 * The expect file: "allocator ID", "requested N", "allocated N|null",
 * "reserved N|null", "device_free N|null", "largest_free N|null",
 * "capacity N|null", "rows N", "warnings N", "end". */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/splitmix64.h"

struct options {
    const char *kind, *prefix, *output, *expect;
    uint64_t seed;
    int buffers, reports;
    bool spaces, wrap;
};

struct expected {
    char allocator[64];
    int64_t requested, allocated, reserved, device_free, largest_free, capacity;
    long rows;
};

static uint64_t state;

static uint64_t next_in(uint64_t limit)
{
    return splitmix64_next(&state) % limit;
}

/* XLA's and the BFC's way: "0B", "112B", "38.7KiB", "6.00MiB"; *exact the
 * bytes the text stands for. */
static const char *human(int64_t bytes, int64_t *exact, char *buffer, size_t size)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
    if (bytes < 1024) {
        snprintf(buffer, size, "%" PRId64 "B", bytes);
        *exact = bytes;
        return buffer;
    }
    double value = (double)bytes / 1024.0, factor = 1024.0;
    int unit = 0;
    while (value >= 1024.0 && unit < 3) {
        value /= 1024.0;
        factor *= 1024.0;
        unit++;
    }
    snprintf(buffer, size, unit == 0 ? "%.1f%s" : "%.2f%s", value, units[unit]);
    *exact = (int64_t)llround(strtod(buffer, NULL) * factor);
    return buffer;
}

/* PyTorch's way: "20.00 MiB". */
static const char *human_torch(int64_t bytes, int64_t *exact, char *buffer, size_t size)
{
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB"};
    double value = (double)bytes, factor = 1.0;
    int unit = 0;
    while (value >= 1024.0 && unit < 3) {
        value /= 1024.0;
        factor *= 1024.0;
        unit++;
    }
    snprintf(buffer, size, "%.2f %s", value, units[unit]);
    *exact = (int64_t)llround(strtod(buffer, NULL) * factor);
    return buffer;
}

static void prefix(FILE *out, const struct options *options, int line)
{
    if (strcmp(options->prefix, "tf") == 0)
        fprintf(out, "2024-07-12 14:20:%02d.744328: I tensorflow/tsl/framework/bfc_allocator.cc:%d] ",
                line % 60, 1000 + line);
    else if (strcmp(options->prefix, "absl") == 0)
        fprintf(out, "E0528 07:02:%02d.350251   27487 pjrt_stream_executor_client.cc:2826] ",
                line % 60);
    else if (strcmp(options->prefix, "runner") == 0)
        fprintf(out, "[2024-07-12 14:20:%02d,744] worker-3 | ", line % 60);
}

static void noise(FILE *out, const struct options *options)
{
    prefix(out, options, 1);
    fprintf(out, " %d/500 [=====>........................] - ETA: 1:02 - loss: 2.30\n",
            (int)next_in(500));
    prefix(out, options, 2);
    fprintf(out, "Traceback (most recent call last):\n");
    prefix(out, options, 3);
    fprintf(out, "  File \"train.py\", line %d, in <module>\n", (int)next_in(900) + 1);
}

static void write_xla(FILE *out, const struct options *options, struct expected *expect)
{
    const char *indent = options->spaces ? "        " : "\t";
    int64_t requested = (int64_t)next_in(UINT64_C(1) << 34) + 1, exact;
    char size[48];
    prefix(out, options, 10);
    fprintf(out, "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while "
                 "trying to allocate %" PRId64 " bytes.\n", requested);
    fprintf(out, "BufferAssignment OOM Debugging.\nBufferAssignment stats:\n");
    int64_t total = (int64_t)next_in(UINT64_C(1) << 35);
    fprintf(out, "%33s: %10s\n", "parameter allocation", human(total / 3, &exact, size, sizeof size));
    fprintf(out, "%33s: %10s\n", "total allocation", human(total, &exact, size, sizeof size));
    fprintf(out, "Peak buffers:\n");
    for (int b = 0; b < options->buffers; b++) {
        int64_t bytes = (int64_t)next_in(UINT64_C(1) << 32);
        fprintf(out, "%sBuffer %d:\n%s%sSize: %s\n", indent, b + 1, indent, indent,
                human(bytes, &exact, size, sizeof size));
        if (b % 3 == 2) {
            fprintf(out, "%s%sEntry Parameter Subshape: f32[%d,128]\n", indent, indent, b + 1);
        } else {
            fprintf(out, "%s%sOperator: op_name=\"jit(step)/jit(main)/op_%d/", indent, indent, b);
            if (options->wrap)
                fprintf(out, "a_long_fusion_name_that_the_terminal_cu\nt_in_two");
            else
                fprintf(out, "a_long_fusion_name_that_the_terminal_cut_in_two");
            fprintf(out, "\" source_file=\"/app/model_%d.py\" source_line=%d\n", b, b + 10);
            fprintf(out, "%s%sXLA Label: fusion\n%s%sShape: bf16[%d,64]\n", indent, indent, indent,
                    indent, b + 1);
        }
        fprintf(out, "%s%s==========================\n\n", indent, indent);
    }
    snprintf(expect->allocator, sizeof expect->allocator, "XLA");
    expect->requested = requested;
    expect->allocated = expect->reserved = expect->device_free = expect->largest_free = -1;
    expect->capacity = -1;
    expect->rows = options->buffers;
}

static void write_bfc(FILE *out, const struct options *options, struct expected *expect)
{
    int gpu = (int)next_in(8);
    int64_t requested = ((int64_t)next_in(UINT64_C(1) << 30) + 256) & ~(int64_t)255, exact;
    char size[48];
    prefix(out, options, 20);
    fprintf(out, "Allocator (GPU_%d_bfc) ran out of memory trying to allocate %s (rounded to "
                 "%" PRId64 ")requested by op model/layer_%d/MatMul\n",
            gpu, human(requested, &exact, size, sizeof size), requested, gpu);
    prefix(out, options, 21);
    fprintf(out, "BFCAllocator dump for GPU_%d_bfc\n", gpu);
    int64_t in_use = 0, pool = 0, largest = 0;
    int chunks = options->buffers > 0 ? options->buffers : 1;
    prefix(out, options, 22);
    fprintf(out, "Next region of size 0\n");
    for (int c = 0; c < chunks; c++) {
        int64_t bytes = ((int64_t)next_in(UINT64_C(1) << 28) + 256) & ~(int64_t)255;
        bool used = c % 4 != 3;
        prefix(out, options, 23);
        fprintf(out, "%s at 7f59%08x of size %" PRId64 " next %d\n", used ? "InUse" : "Free ",
                (unsigned)c * 4096u, bytes, c + 1);
        pool += bytes;
        if (used)
            in_use += bytes;
        else if (bytes > largest)
            largest = bytes;
    }
    /* One summary line per in-use chunk (sizes differ, almost surely). */
    prefix(out, options, 24);
    fprintf(out, "     Summary of in-use Chunks by size: \n");
    long rows = 0;
    prefix(out, options, 25);
    fprintf(out, "1 Chunks of size %" PRId64 " totalling %s\n", in_use,
            human(in_use, &exact, size, sizeof size));
    rows++;
    prefix(out, options, 26);
    fprintf(out, "Total bytes in pool: %" PRId64 " memory_limit_: %" PRId64 "\n", pool, pool);
    prefix(out, options, 27);
    fprintf(out, "Stats: \nLimit:        %16" PRId64 "\nInUse:        %16" PRId64
                 "\nMaxInUse:     %16" PRId64 "\n\n",
            pool, in_use, in_use);
    snprintf(expect->allocator, sizeof expect->allocator, "GPU_%d_bfc", gpu);
    expect->requested = requested;
    expect->allocated = in_use;
    expect->reserved = pool;
    expect->device_free = -1;
    expect->largest_free = chunks >= 4 ? largest : -1;
    expect->capacity = pool > 0 ? pool : -1;
    expect->rows = rows;
}

static void write_torch(FILE *out, const struct options *options, struct expected *expect)
{
    int gpu = (int)next_in(8);
    char request[48], capacity[48], free_text[48], allocated[48], unallocated[48];
    int64_t r, c, f, a, u;
    human_torch((int64_t)next_in(UINT64_C(1) << 33) + 1024, &r, request, sizeof request);
    human_torch((int64_t)next_in(UINT64_C(1) << 36) + (INT64_C(1) << 34), &c, capacity,
                sizeof capacity);
    human_torch((int64_t)next_in(UINT64_C(1) << 30) + 1024, &f, free_text, sizeof free_text);
    human_torch((int64_t)next_in(UINT64_C(1) << 34) + 1024, &a, allocated, sizeof allocated);
    human_torch((int64_t)next_in(UINT64_C(1) << 31) + 1024, &u, unallocated, sizeof unallocated);
    prefix(out, options, 30);
    fprintf(out, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %s. GPU %d has a "
                 "total capacity of %s of which %s is free. Of the allocated memory %s is "
                 "allocated by PyTorch, and %s is reserved by PyTorch but unallocated. If "
                 "reserved but unallocated memory is large try setting "
                 "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n",
            request, gpu, capacity, free_text, allocated, unallocated);
    snprintf(expect->allocator, sizeof expect->allocator, "cuda:%d", gpu);
    expect->requested = r;
    expect->allocated = a;
    expect->reserved = a + u;
    expect->device_free = f;
    expect->largest_free = -1;
    expect->capacity = c;
    expect->rows = 0;
}

static void write_kind(FILE *out, const char *kind, const struct options *options,
                       struct expected *expect)
{
    noise(out, options);
    if (strcmp(kind, "xla") == 0)
        write_xla(out, options, expect);
    else if (strcmp(kind, "bfc") == 0)
        write_bfc(out, options, expect);
    else
        write_torch(out, options, expect);
}

static void expect_value(FILE *out, const char *name, int64_t value)
{
    if (value < 0)
        fprintf(out, "%s\tnull\n", name);
    else
        fprintf(out, "%s\t%" PRId64 "\n", name, value);
}

static int usage(void)
{
    fprintf(stderr, "usage: generate_oom_log --kind xla|bfc|torch [--seed N] [--buffers N] "
                    "[--prefix none|tf|absl|runner] [--spaces] [--wrap] [--reports N] -o FILE "
                    "[--expect FILE]\n");
    return 2;
}

int main(int argc, char **argv)
{
    struct options options = {"xla", "none", NULL, NULL, 1, 4, 1, false, false};
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(arg, "--spaces") == 0)
            options.spaces = true;
        else if (strcmp(arg, "--wrap") == 0)
            options.wrap = true;
        else if (!value)
            return usage();
        else if (strcmp(arg, "--kind") == 0 && ++i)
            options.kind = value;
        else if (strcmp(arg, "--prefix") == 0 && ++i)
            options.prefix = value;
        else if (strcmp(arg, "--seed") == 0 && ++i)
            options.seed = strtoull(value, NULL, 10);
        else if (strcmp(arg, "--buffers") == 0 && ++i)
            options.buffers = atoi(value);
        else if (strcmp(arg, "--reports") == 0 && ++i)
            options.reports = atoi(value);
        else if (strcmp(arg, "-o") == 0 && ++i)
            options.output = value;
        else if (strcmp(arg, "--expect") == 0 && ++i)
            options.expect = value;
        else
            return usage();
    }
    if (!options.output || options.reports < 1 || options.buffers < 0 ||
        (strcmp(options.kind, "xla") != 0 && strcmp(options.kind, "bfc") != 0 &&
         strcmp(options.kind, "torch") != 0))
        return usage();
    state = options.seed;
    FILE *out = fopen(options.output, "w");
    if (!out) {
        perror(options.output);
        return 1;
    }
    static const char *const kinds[] = {"torch", "bfc", "xla"};
    struct expected expect;
    for (int r = 0; r < options.reports; r++)
        write_kind(out, r + 1 == options.reports ? options.kind : kinds[r % 3], &options, &expect);
    noise(out, &options);
    if (fclose(out) != 0)
        return 1;
    if (!options.expect)
        return 0;
    FILE *file = fopen(options.expect, "w");
    if (!file) {
        perror(options.expect);
        return 1;
    }
    fprintf(file, "allocator\t%s\n", expect.allocator);
    expect_value(file, "requested", expect.requested);
    expect_value(file, "allocated", expect.allocated);
    expect_value(file, "reserved", expect.reserved);
    expect_value(file, "device_free", expect.device_free);
    expect_value(file, "largest_free", expect.largest_free);
    expect_value(file, "capacity", expect.capacity);
    fprintf(file, "rows\t%ld\nwarnings\t%d\nend\n", expect.rows, options.reports - 1);
    return fclose(file) == 0 ? 0 : 1;
}
