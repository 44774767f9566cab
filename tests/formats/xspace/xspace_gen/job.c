/* job: see job.h. */
#include "config.h"

#include "tests/formats/xspace/xspace_gen/job.h"
#include "tests/splitmix64.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- random numbers: splitmix64, so the output never depends on libc ---- */

uint64_t random_next(uint64_t *state)
{
    return splitmix64_next(state);
}

uint64_t random_below(uint64_t *state, uint64_t bound)
{
    return bound == 0 ? 0 : random_next(state) % bound;
}

uint64_t mix_seed(uint64_t seed, uint64_t salt)
{
    uint64_t state = seed ^ (salt * UINT64_C(0xd6e8feb86659fd93));
    return random_next(&state);
}

/* ---- the job ---- */

void job_init(struct job *job, const struct options *options, struct xspace_writer *writer)
{
    *job = (struct job){
        .options = *options,
        .random = mix_seed(options->seed, 1),
        .writer = writer,
        .first_key = options->big_ids ? (UINT64_C(1) << 40) + 3 : 1,
        .next_correlation_id = 1000 + mix_seed(options->seed, 2) % 9000,
    };
    job->host = plane_new("/host:CPU", job->first_key, mix_seed(options->seed, 3));
    job->host->odd_inner_ids = options->odd;
    plane_add_stat(job->host, stat_int64(job_stat_key(job, "process_id"),
                                         500 + (int64_t)(mix_seed(options->seed, 4) % 9000)));
}

void job_free(struct job *job)
{
    plane_free(job->host);
    free(job->pending);
    free(job->pending_stats);
    free(job->line_last_start);
    free(job->open);
    free(job->launches);
    *job = (struct job){0};
}

uint32_t job_add_host_line(struct job *job, int64_t id, uint32_t name, int64_t timestamp_ns,
                           bool display_name)
{
    uint32_t index = plane_add_line(job->host, id, name, timestamp_ns, display_name, NULL, NULL);
    if (index >= job->line_last_capacity) {
        uint32_t capacity = job->line_last_capacity ? job->line_last_capacity * 2 : 16;
        job->line_last_start = xrealloc(job->line_last_start, capacity, sizeof(int64_t));
        job->line_last_capacity = capacity;
    }
    job->line_last_start[index] = INT64_MIN;
    return index;
}

void job_advance_ns(struct job *job, int64_t ns)
{
    job->now_ps += ns * 1000;
}

/* Between two events of the simulation: tens of nanoseconds. */
static void job_tick(struct job *job)
{
    job_advance_ns(job, 20 + (int64_t)random_below(&job->random, 60));
}

bool job_capturing(const struct job *job)
{
    return job->now_ps >= job->capture_start_ps && job->now_ps <= job->capture_end_ps;
}

static void pending_push(struct job *job, int64_t start_ps, int64_t end_ps, uint32_t line,
                         uint64_t metadata_key, int64_t occurrences,
                         const struct stat_item *stats, uint32_t stat_count)
{
    if (job->pending_count == job->pending_capacity) {
        job->pending_capacity = job->pending_capacity ? job->pending_capacity * 2 : 4096;
        job->pending = xrealloc(job->pending, job->pending_capacity, sizeof *job->pending);
    }
    while (job->pending_stat_count + stat_count > job->pending_stat_capacity) {
        job->pending_stat_capacity =
            job->pending_stat_capacity ? job->pending_stat_capacity * 2 : 16384;
        job->pending_stats =
            xrealloc(job->pending_stats, job->pending_stat_capacity, sizeof *job->pending_stats);
    }
    if (stat_count != 0)
        memcpy(job->pending_stats + job->pending_stat_count, stats, stat_count * sizeof *stats);
    job->pending[job->pending_count++] = (struct pending_event){
        .start_ps = start_ps,
        .end_ps = end_ps,
        .sequence = job->sequence++,
        .metadata_key = metadata_key,
        .num_occurrences = occurrences,
        .line = line,
        .first_stat = (uint32_t)job->pending_stat_count,
        .stat_count = stat_count,
        .memory = job->next_is_memory,
    };
    job->next_is_memory = false;
    job->pending_stat_count += stat_count;
}

uint32_t job_open(struct job *job, uint32_t line, uint64_t metadata_key)
{
    uint32_t handle = 0;
    while (handle < job->open_count && job->open[handle].in_use)
        handle++;
    if (handle == job->open_count) {
        if (job->open_count == job->open_capacity) {
            job->open_capacity = job->open_capacity ? job->open_capacity * 2 : 32;
            job->open = xrealloc(job->open, job->open_capacity, sizeof *job->open);
        }
        job->open_count++;
    }
    job->open[handle] = (struct open_event){job->now_ps, line, metadata_key, true};
    job_tick(job);
    return handle;
}

bool job_close(struct job *job, uint32_t handle, const struct stat_item *stats,
               uint32_t stat_count)
{
    struct open_event *event = &job->open[handle];
    if (!event->in_use)
        fatal("job_close: the event is not open");
    job_tick(job);
    /* A TraceMe is recorded when it starts and ends while tracing is on. */
    bool captured = event->start_ps >= job->capture_start_ps && job->now_ps <= job->capture_end_ps;
    if (captured)
        pending_push(job, event->start_ps, job->now_ps, event->line, event->metadata_key, 0,
                     stats, stat_count);
    event->in_use = false;
    job_tick(job);
    return captured;
}

bool job_instant(struct job *job, uint32_t line, uint64_t metadata_key,
                 const struct stat_item *stats, uint32_t stat_count)
{
    bool captured = job_capturing(job);
    if (captured)
        pending_push(job, job->now_ps, job->now_ps, line, metadata_key, 0, stats, stat_count);
    if (job->same_time_next)
        job->same_time_next = false;
    else
        job_tick(job);
    return captured;
}

void job_aggregate(struct job *job, uint32_t line, uint64_t metadata_key, int64_t duration_ns,
                   int64_t occurrences, const struct stat_item *stats, uint32_t stat_count)
{
    pending_push(job, job->now_ps, job->now_ps + duration_ns * 1000, line, metadata_key,
                 occurrences, stats, stat_count);
}

static int pending_compare(const void *a, const void *b)
{
    const struct pending_event *left = a, *right = b;
    if (left->line != right->line)
        return left->line < right->line ? -1 : 1;
    if (left->start_ps != right->start_ps)
        return left->start_ps < right->start_ps ? -1 : 1;
    int64_t left_length = left->end_ps - left->start_ps;
    int64_t right_length = right->end_ps - right->start_ps;
    if (left_length != right_length)
        return left_length > right_length ? -1 : 1; /* longer first */
    return (left->sequence > right->sequence) - (left->sequence < right->sequence);
}

void job_flush(struct job *job)
{
    if (job->pending_count > 1)
        qsort(job->pending, job->pending_count, sizeof *job->pending, pending_compare);
    for (uint64_t i = 0; i < job->pending_count; i++) {
        const struct pending_event *pending = &job->pending[i];
        if (pending->start_ps < job->line_last_start[pending->line])
            fatal("job_flush: an event starts before one already written on its line");
        job->line_last_start[pending->line] = pending->start_ps;
        const struct line *line = &job->host->lines[pending->line];
        struct xevent event = {
            .metadata_key = pending->metadata_key,
            .offset_ps = pending->start_ps - line->timestamp_ns * 1000,
            .duration_ps = pending->end_ps - pending->start_ps,
            .num_occurrences = pending->num_occurrences,
            .use_num_occurrences = pending->num_occurrences > 0,
        };
        size_t before = line->events.size;
        line_add_event(job->writer, job->host, pending->line, &event,
                       job->pending_stats + pending->first_stat, pending->stat_count);
        if (pending->memory)
            job->memory_event_bytes += line->events.size - before;
    }
    job->pending_count = 0;
    job->pending_stat_count = 0;
}

void job_record_launch(struct job *job, struct launch launch)
{
    if (job->launch_count == job->launch_capacity) {
        job->launch_capacity = job->launch_capacity ? job->launch_capacity * 2 : 1024;
        job->launches = xrealloc(job->launches, job->launch_capacity, sizeof *job->launches);
    }
    job->launches[job->launch_count++] = launch;
}

uint64_t job_event_key(struct job *job, const char *name)
{
    return plane_event_key(job->host, string_c(name));
}

uint64_t job_stat_key(struct job *job, const char *name)
{
    return plane_stat_key(job->host, string_c(name));
}

struct stat_item job_string_stat(struct job *job, uint64_t key, uint32_t string)
{
    bool as_str = job->options.strings == STRINGS_STR;
    if (job->options.odd)
        as_str = random_below(&job->random, 3) == 0;
    if (as_str)
        return stat_str(key, string);
    return stat_ref(key, plane_stat_key(job->host, string));
}

/* ---- allocators: a BFC-like heap ---- */

void allocator_init(struct allocator *allocator, enum allocator_kind kind, uint32_t name,
                    int64_t limit, uint64_t base_address, int64_t rounding)
{
    *allocator = (struct allocator){
        .kind = kind,
        .name = name,
        .limit = limit,
        .rounding = rounding,
        .next_address = base_address,
    };
}

void allocator_free(struct allocator *allocator)
{
    free(allocator->free_blocks);
    allocator->free_blocks = NULL;
    allocator->free_count = allocator->free_capacity = 0;
}

/* A freed chunk of the same size is reused, the most recent first (so the
 * same program reuses the same addresses every step); otherwise the heap
 * grows at its end. */
struct block allocator_allocate(struct allocator *allocator, int64_t requested)
{
    int64_t rounding = allocator->rounding > 0 ? allocator->rounding : 1;
    int64_t size = (requested + rounding - 1) / rounding * rounding;
    if (size == 0)
        size = rounding;
    struct block block = {.requested = requested, .size = size};
    uint32_t i = allocator->free_count;
    while (i > 0 && allocator->free_blocks[i - 1].size != size)
        i--;
    if (i > 0) {
        block.address = allocator->free_blocks[i - 1].address;
        memmove(&allocator->free_blocks[i - 1], &allocator->free_blocks[i],
                (allocator->free_count - i) * sizeof *allocator->free_blocks);
        allocator->free_count--;
        allocator->free_list_bytes -= size;
    } else {
        block.address = allocator->next_address;
        allocator->next_address += (uint64_t)size;
    }
    allocator->in_use += size;
    if (allocator->in_use > allocator->peak)
        allocator->peak = allocator->in_use;
    return block;
}

void allocator_release(struct allocator *allocator, const struct block *block)
{
    if (allocator->free_count == allocator->free_capacity) {
        allocator->free_capacity = allocator->free_capacity ? allocator->free_capacity * 2 : 64;
        allocator->free_blocks = xrealloc(allocator->free_blocks, allocator->free_capacity,
                                          sizeof *allocator->free_blocks);
    }
    allocator->free_blocks[allocator->free_count++] = (struct free_block){block->address,
                                                                          block->size};
    allocator->free_list_bytes += block->size;
    allocator->in_use -= block->size;
}

void allocator_preallocate(struct allocator *allocator, int64_t bytes)
{
    allocator->in_use += bytes;
    allocator->next_address += (uint64_t)bytes;
    if (allocator->in_use > allocator->peak)
        allocator->peak = allocator->in_use;
}

/* ---- a memory event's stats ---- */

/* The allocator prints a double with six significant digits and the host
 * tracer parses the text back: int64 when it reads as an integer ("0",
 * "1"), else a double of the printed value. */
static struct stat_item fragmentation_stat(uint64_t key, double value)
{
    char text[64];
    snprintf(text, sizeof text, "%g", value);
    char *end = NULL;
    long long integer = strtoll(text, &end, 10);
    if (end != text && *end == '\0')
        return stat_int64(key, (int64_t)integer);
    return stat_double(key, strtod(text, NULL));
}

static double allocator_fragmentation(const struct allocator *allocator)
{
    int64_t available = allocator->limit - allocator->reserved - allocator->in_use;
    if (available <= 0)
        return 0.0;
    double fraction = (double)allocator->free_list_bytes / (double)available;
    /* The TPU runtime reports fragmentation in the 1e-9 range. */
    return allocator->kind == ALLOCATOR_TPU ? fraction * 1e-4 : fraction;
}

/* An address is printed unsigned: from 2^63 it no longer parses as int64
 * and lands as uint64. */
static struct stat_item address_stat(uint64_t key, uint64_t address)
{
    return address >= (UINT64_C(1) << 63) ? stat_uint64(key, address)
                                          : stat_int64(key, (int64_t)address);
}

/* The host tracer types an annotation value by parsing it: int64, else
 * uint64, else double, else a string (xspace.md section 4). An op named
 * "123" lands as int64, a shape "nan" as a double. */
static struct stat_item annotation_stat(struct job *job, uint64_t key, uint32_t string)
{
    struct text text = string_text(string);
    char number[64];
    if (text.size == 0 || text.size >= sizeof number || memchr(text.data, 0, text.size) != NULL)
        return job_string_stat(job, key, string);
    memcpy(number, text.data, text.size);
    number[text.size] = '\0';
    char *end = NULL;
    bool digits = strspn(number + (number[0] == '-'), "0123456789") == text.size - (number[0] == '-');
    if (digits && text.size > (size_t)(number[0] == '-')) {
        errno = 0;
        long long value = strtoll(number, &end, 10);
        if (errno == 0)
            return stat_int64(key, (int64_t)value);
        errno = 0;
        unsigned long long unsigned_value = strtoull(number, &end, 10);
        if (errno == 0 && number[0] != '-')
            return stat_uint64(key, (uint64_t)unsigned_value);
    }
    double value = strtod(number, &end);
    if (end == number + text.size && number[0] != ' ')
        return stat_double(key, value);
    return job_string_stat(job, key, string);
}

uint32_t memory_event_stats(struct job *job, const struct allocator *allocator,
                            const struct block *block, bool allocation,
                            const struct memory_annotation *annotation, struct stat_item *stats)
{
    uint32_t count = 0;
    bool jax = job->options.style == STYLE_JAX_GPU;
    if (allocator->kind == ALLOCATOR_TPU)
        stats[count++] = stat_int64(job_stat_key(job, "index_on_host"), allocator->device_index);
    else
        stats[count++] = job_string_stat(job, job_stat_key(job, "allocator_name"),
                                         allocator->name);
    stats[count++] = stat_int64(job_stat_key(job, "bytes_reserved"), allocator->reserved);
    stats[count++] = stat_int64(job_stat_key(job, "bytes_allocated"), allocator->in_use);
    if (allocator->kind != ALLOCATOR_CPU) {
        stats[count++] = stat_int64(job_stat_key(job, "bytes_available"),
                                    allocator->limit - allocator->reserved - allocator->in_use);
        double fragmentation =
            allocator->kind == ALLOCATOR_HOST_BFC ? 0.0 : allocator_fragmentation(allocator);
        stats[count++] = fragmentation_stat(job_stat_key(job, "fragmentation"), fragmentation);
    }
    stats[count++] = stat_int64(job_stat_key(job, "peak_bytes_in_use"), allocator->peak);
    /* TF's cpu allocator does not know the requested size when it frees. */
    int64_t requested = !allocation && allocator->kind == ALLOCATOR_CPU ? 0 : block->requested;
    stats[count++] = annotation->requested_as_uint64
                         ? stat_uint64(job_stat_key(job, "requested_bytes"), (uint64_t)requested)
                         : stat_int64(job_stat_key(job, "requested_bytes"), requested);
    stats[count++] = stat_int64(job_stat_key(job, "allocation_bytes"), block->size);
    stats[count++] = address_stat(job_stat_key(job, "addr"), block->address);
    if (annotation->op != 0)
        stats[count++] = annotation_stat(job, job_stat_key(job, "tf_op"), annotation->op);
    if (annotation->has_tf_step_id)
        stats[count++] = stat_int64(job_stat_key(job, "id"), annotation->tf_step_id);
    if (annotation->region != 0)
        stats[count++] = annotation_stat(job, job_stat_key(job, "region_type"),
                                         annotation->region);
    if (annotation->has_data_type)
        stats[count++] = stat_int64(job_stat_key(job, "data_type"), annotation->data_type);
    if (annotation->shape != 0)
        stats[count++] = annotation_stat(job, job_stat_key(job, "shape"), annotation->shape);
    if (jax)
        stats[count++] = job_string_stat(
            job, job_stat_key(job, "_src"),
            string_c("external/xla+/xla/tsl/framework/bfc_allocator.cc"));
    return count;
}

/* ---- hostile strings ---- */

static const char *const hostile_fragments[] = {
    "\x1b[31m\x1b[1mRED\x1b[0m",                              /* CSI colours */
    "\x1b]8;;http://evil.example/\x1b\\link\x1b]8;;\x1b\\", /* OSC 8 hyperlink */
    "\x1b]0;pwned title\x07",                                /* OSC title, BEL */
    "\xe2\x80\xae" "gpj.exe",                               /* U+202E right-to-left override */
    "\xe2\x81\xa6" "isolate\xe2\x81\xa9",                   /* LRI .. PDI */
    "\xff\xfe invalid",                                      /* bytes never in UTF-8 */
    "\xc0\xaf" "overlong",                                   /* overlong '/' */
    "\xed\xa0\x80" "surrogate",                              /* UTF-16 surrogate */
    "cut\xe2\x82",                                           /* truncated sequence */
    "\r\n\t\b\x7f" "controls",                               /* C0 and DEL */
    "\xc2\x9b" "2J c1 csi",                                  /* C1 CSI in UTF-8 */
};

#define HOSTILE_FRAGMENTS (sizeof hostile_fragments / sizeof hostile_fragments[0])

uint32_t hostile_string(uint32_t name, uint64_t which)
{
    struct bytes text = {0};
    struct text base = string_text(name);
    bytes_put(&text, base.data, base.size);
    uint64_t kind = which % (HOSTILE_FRAGMENTS + 2);
    if (kind < HOSTILE_FRAGMENTS) {
        bytes_put(&text, hostile_fragments[kind], strlen(hostile_fragments[kind]));
    } else if (kind == HOSTILE_FRAGMENTS) {
        static const char nul[] = "\0after-nul";
        bytes_put(&text, nul, sizeof nul - 1);
    } else {
        for (int i = 0; i < 400; i++) /* 8 KB */
            bytes_put(&text, "/very_long_name_", 16);
    }
    uint32_t id = string_intern(text.data, text.size);
    bytes_free(&text);
    return id;
}

/* ---- emitting a memory event ---- */

bool job_memory_event(struct job *job, uint32_t line, const struct allocator *allocator,
                      const struct block *block, bool allocation,
                      const struct memory_annotation *annotation)
{
    struct stat_item stats[MAX_EVENT_STATS];
    uint32_t count = memory_event_stats(job, allocator, block, allocation, annotation, stats);
    uint64_t key = job_event_key(job, allocation ? "MemoryAllocation" : "MemoryDeallocation");
    if (job->options.odd)
        odd_memory_event(job, allocation, &key, stats, &count);
    job->next_is_memory = job_capturing(job);
    bool captured = job_instant(job, line, key, stats, count);
    if (captured)
        job->memory_events++;
    return captured;
}
