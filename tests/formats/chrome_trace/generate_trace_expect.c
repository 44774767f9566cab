/* generate_trace_expect: the --expect file of tests/generate_trace.
 *
 * Collects what the producers report (allocators, snapshots, rows,
 * out-of-memory events), finds each allocator's peak, sorts and merges
 * the rows, and writes the line format generate_trace.c's opening comment
 * describes, with each allocator's FNV-1a 64 over its snapshot lines. */
#include "config.h"

#include "tests/formats/chrome_trace/generate_trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- expectations ---- */

struct expect_allocator *expect_add_allocator(struct expectations *expect, struct text id)
{
    grow_array((void **)&expect->allocators, &expect->allocator_capacity, expect->allocator_count,
               sizeof *expect->allocators);
    struct expect_allocator *allocator = &expect->allocators[expect->allocator_count++];
    *allocator = (struct expect_allocator){.id = id};
    return allocator;
}

void expect_add_snapshot(struct expect_allocator *allocator, const struct expect_snapshot *snapshot)
{
    grow_array((void **)&allocator->snapshots, &allocator->capacity, allocator->count, sizeof *allocator->snapshots);
    allocator->snapshots[allocator->count++] = *snapshot;
}

void expect_add_row(struct expect_allocator *allocator, const struct expect_row *row)
{
    grow_array((void **)&allocator->rows, &allocator->row_capacity, allocator->row_count, sizeof *allocator->rows);
    allocator->rows[allocator->row_count++] = *row;
}

void expect_add_oom(struct expectations *expect, const struct expect_oom *oom)
{
    grow_array((void **)&expect->ooms, &expect->oom_capacity, expect->oom_count, sizeof *expect->ooms);
    expect->ooms[expect->oom_count++] = *oom;
}

size_t expect_peak_index(const struct expect_allocator *allocator)
{
    size_t peak = 0;
    for (size_t i = 1; i < allocator->count; i++)
        if (allocator->snapshots[i].heap_bytes > allocator->snapshots[peak].heap_bytes)
            peak = i;
    return peak;
}

/* XProf's order of the peak table: size, requested size (both largest
 * first), then op, region, data type and shape bytewise. */
static int row_compare(const void *left_pointer, const void *right_pointer)
{
    const struct expect_row *left = left_pointer, *right = right_pointer;
    if (left->allocation_bytes != right->allocation_bytes)
        return left->allocation_bytes > right->allocation_bytes ? -1 : 1;
    if (left->requested_bytes != right->requested_bytes)
        return left->requested_bytes > right->requested_bytes ? -1 : 1;
    int order = text_compare(left->op, right->op);
    if (order == 0)
        order = text_compare(left->region, right->region);
    if (order == 0)
        order = text_compare(left->data_type, right->data_type);
    if (order == 0)
        order = text_compare(left->shape, right->shape);
    return order;
}

/* Sorts and merges equal rows (occurrences add up); returns the new count. */
static size_t rows_sort_and_merge(struct expect_row *rows, size_t count)
{
    if (count == 0)
        return 0;
    qsort(rows, count, sizeof *rows, row_compare);
    size_t kept = 1;
    for (size_t i = 1; i < count; i++) {
        if (row_compare(&rows[kept - 1], &rows[i]) == 0)
            rows[kept - 1].occurrences += rows[i].occurrences;
        else
            rows[kept++] = rows[i];
    }
    return kept;
}

struct line {
    char *bytes;
    size_t length, capacity;
};

static void line_append(struct line *line, const char *bytes, size_t length)
{
    while (line->length + length + 1 > line->capacity) {
        line->capacity = line->capacity ? 2 * line->capacity : 256;
        line->bytes = checked_realloc(line->bytes, line->capacity, 1);
    }
    memcpy(line->bytes + line->length, bytes, length);
    line->length += length;
    line->bytes[line->length] = '\0';
}

static void line_printf(struct line *line, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void line_printf(struct line *line, const char *format, ...)
{
    char buffer[256];
    va_list args;
    va_start(args, format);
    int length = vsnprintf(buffer, sizeof buffer, format, args);
    va_end(args);
    if (length < 0 || (size_t)length >= sizeof buffer)
        fatal("expectation field too long");
    line_append(line, buffer, (size_t)length);
}

/* A tab, then the string escaped as the header comment says. */
static void line_string(struct line *line, struct text text)
{
    line_append(line, "\t", 1);
    for (size_t i = 0; i < text.length; i++) {
        unsigned char byte = (unsigned char)text.bytes[i];
        if (byte == '\\')
            line_append(line, "\\\\", 2);
        else if (byte >= 0x20 && byte <= 0x7e)
            line_append(line, (const char *)&byte, 1);
        else
            line_printf(line, "\\x%02x", byte);
    }
}

static void snapshot_line(struct line *line, size_t allocator, size_t index, const struct expect_snapshot *snapshot,
                          int64_t earliest_ns, int64_t peak_in_use)
{
    line->length = 0;
    line_printf(line, "snapshot\t%zu\t%zu\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%s\t%" PRId64
                      "\t%" PRIu64 "\t%" PRId64,
                allocator, index, (snapshot->time_ns - earliest_ns) * 1000, snapshot->heap_bytes,
                snapshot->free_bytes, peak_in_use,
                snapshot->activity == ACTIVITY_ALLOCATION ? "ALLOCATION" : "DEALLOCATION", snapshot->bytes,
                snapshot->address, snapshot->step);
    line_string(line, snapshot->op);
    line_string(line, snapshot->region);
    line_string(line, snapshot->data_type);
    line_string(line, snapshot->shape);
    line_string(line, snapshot->chain);
    line_append(line, "\n", 1);
}

static uint64_t fnv1a(uint64_t hash, const char *bytes, size_t length)
{
    for (size_t i = 0; i < length; i++) {
        hash ^= (unsigned char)bytes[i];
        hash *= UINT64_C(0x100000001b3);
    }
    return hash;
}

static bool snapshot_shown(size_t index, size_t count, int64_t limit)
{
    return limit < 0 || (int64_t)index < limit || (int64_t)(count - index) <= limit;
}

static void write_allocator(FILE *out, size_t number, struct expect_allocator *allocator, int64_t earliest_ns,
                            int64_t limit)
{
    struct line line = {0};
    uint64_t hash = UINT64_C(0xcbf29ce484222325);
    size_t allocations = 0;
    int64_t running = INT64_MIN;
    for (size_t i = 0; i < allocator->count; i++) {
        const struct expect_snapshot *snapshot = &allocator->snapshots[i];
        running = snapshot->heap_bytes > running ? snapshot->heap_bytes : running;
        snapshot_line(&line, number, i, snapshot, earliest_ns, running);
        hash = fnv1a(hash, line.bytes, line.length);
        allocations += snapshot->activity == ACTIVITY_ALLOCATION;
    }
    size_t peak = expect_peak_index(allocator);
    const struct expect_snapshot *at_peak = &allocator->snapshots[peak];
    allocator->row_count = rows_sort_and_merge(allocator->rows, allocator->row_count);
    line.length = 0;
    line_printf(&line, "allocator\t%zu", number);
    line_string(&line, allocator->id);
    line_printf(&line, "\t%zu\t%zu\t%zu\t%zu\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t0\t%zu\t%016" PRIx64
                       "\n",
                allocator->count, allocations, allocator->count - allocations, peak, at_peak->heap_bytes,
                (at_peak->time_ns - earliest_ns) * 1000, at_peak->free_bytes, at_peak->heap_bytes,
                allocator->row_count, hash);
    fputs(line.bytes, out);
    for (size_t i = 0; i < allocator->row_count; i++) {
        const struct expect_row *row = &allocator->rows[i];
        line.length = 0;
        line_printf(&line, "row\t%zu\t%zu\t%" PRId64 "\t%" PRId64 "\t%" PRId64, number, i, row->allocation_bytes,
                    row->requested_bytes, row->occurrences);
        line_string(&line, row->op);
        line_string(&line, row->region);
        line_string(&line, row->data_type);
        line_string(&line, row->shape);
        line_append(&line, "\n", 1);
        fputs(line.bytes, out);
    }
    running = INT64_MIN;
    size_t elided = 0;
    for (size_t i = 0; i < allocator->count; i++) {
        const struct expect_snapshot *snapshot = &allocator->snapshots[i];
        running = snapshot->heap_bytes > running ? snapshot->heap_bytes : running;
        if (!snapshot_shown(i, allocator->count, limit)) {
            elided++;
            continue;
        }
        if (elided > 0)
            fprintf(out, "elided\t%zu\t%zu\n", number, elided);
        elided = 0;
        snapshot_line(&line, number, i, snapshot, earliest_ns, running);
        fputs(line.bytes, out);
    }
    if (elided > 0)
        fprintf(out, "elided\t%zu\t%zu\n", number, elided);
    free(line.bytes);
}

void expect_write(const struct expectations *expect, int64_t earliest_ns, const struct options *options)
{
    FILE *out = fopen(options->expect_path, "wb");
    if (out == NULL) {
        fprintf(stderr, PROGRAM_NAME ": %s: %s\n", options->expect_path, strerror(errno));
        exit(1);
    }
    fprintf(out, "memtop-trace-expect\t1\nproducer\t%s\nearliest_ts_ns\t%" PRId64 "\nallocators\t%zu\n",
            expect->producer, earliest_ns, expect->allocator_count);
    for (size_t i = 0; i < expect->allocator_count; i++)
        write_allocator(out, i, &expect->allocators[i], earliest_ns, options->expect_snapshots);
    struct line line = {0};
    for (size_t i = 0; i < expect->oom_count; i++) {
        line.length = 0;
        line_append(&line, "oom", 3);
        line_string(&line, expect->ooms[i].device);
        line_printf(&line, "\t%" PRId64 "\t%" PRId64 "\n", (expect->ooms[i].time_ns - earliest_ns) * 1000,
                    expect->ooms[i].bytes);
        fputs(line.bytes, out);
    }
    free(line.bytes);
    fputs("end\n", out);
    if (fclose(out) != 0)
        fatal("cannot write the expectations");
}

void expect_free(struct expectations *expect)
{
    for (size_t i = 0; i < expect->allocator_count; i++) {
        free(expect->allocators[i].snapshots);
        free(expect->allocators[i].rows);
    }
    free(expect->allocators);
    free(expect->ooms);
    arena_free(&expect->strings);
}

