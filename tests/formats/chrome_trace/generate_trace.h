/* generate_trace: the pieces shared by the Chrome-trace generator's two
 * producers (generate_trace_timeline.c: TensorFlow's timeline.py;
 * generate_trace_pytorch.c: PyTorch's Kineto) and its driver
 * (generate_trace.c: options, output, the --expect file).
 *
 * The generator is a test and benchmark tool: it is the independent oracle
 * that memtop's trace importer is compared against, so it shares no code
 * with memtop's model and computes every expectation by simulating the
 * producers and the rules of /work/plan/TRACE-SEMANTICS.md directly. */
#ifndef GENERATE_TRACE_H
#define GENERATE_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <zlib.h>

#define PROGRAM_NAME "generate_trace"

enum producer { PRODUCER_TIMELINE, PRODUCER_PYTORCH };

enum ending {
    ENDING_OBJECT,                  /* what the producer writes */
    ENDING_BARE,                    /* [ ev, ev ] */
    ENDING_BARE_UNTERMINATED,       /* [ ev, ev            (no ]) */
    ENDING_BARE_UNTERMINATED_COMMA, /* [ ev, ev,           (no ]) */
    ENDING_BARE_TRAILING_COMMA,     /* [ ev, ev, ]  (perfetto issue 1822) */
    ENDING_TRAILING_EMPTY_OBJECT,   /* the object form with {} last (JAX) */
};

enum timestamps { TIMESTAMPS_RELATIVE, TIMESTAMPS_ABSOLUTE };

struct options {
    enum producer producer;
    enum ending ending;
    enum timestamps timestamps;
    int64_t steps;      /* 0: derived */
    int64_t events;     /* 0: derived */
    int64_t size_target; /* 0: no padding */
    int devices;
    bool schedule;
    bool oom;
    bool gzip;
    bool hostile;
    bool tiny;
    uint64_t seed;
    const char *output_path;
    const char *expect_path;
    int64_t expect_snapshots; /* -1: every snapshot line */
};

/* ---- small helpers ---- */

void fatal(const char *message);
void *checked_calloc(size_t count, size_t size);
void *checked_realloc(void *memory, size_t count, size_t size);
/* Grows *array (of *capacity elements of `size`) to hold `count` + 1. */
void grow_array(void **array, size_t *capacity, size_t count, size_t size);

uint64_t random_next(uint64_t *state);
int64_t random_range(uint64_t *state, int64_t low, int64_t high); /* [low, high] */

/* Bytes that may hold anything (no NUL terminator needed). */
struct text {
    const char *bytes;
    size_t length;
};

struct text text_of(const char *nul_terminated);
int text_compare(struct text a, struct text b); /* bytewise, shorter first */
bool text_equal(struct text a, struct text b);

/* An append-only store of bytes whose pieces never move. */
struct arena {
    char **blocks;
    size_t block_count, block_capacity;
    size_t used, room;
};
struct text arena_copy(struct arena *arena, const char *bytes, size_t length);
struct text arena_printf(struct arena *arena, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
void arena_free(struct arena *arena);

/* ---- the trace output: plain or gzip, counted, or only counted ---- */

struct writer {
    FILE *file;
    gzFile gz;
    bool count_only;
    uint64_t bytes;
    char *buffer;
    size_t used;
    bool have_min;
    int64_t min_ts_ns; /* the smallest ts written, in the file's ns */
};

void writer_open(struct writer *writer, const struct options *options);
void writer_close(struct writer *writer);
/* A writer that writes nothing and only counts: for sizing the padding. */
void writer_counting(struct writer *writer);
void writer_bytes(struct writer *writer, const void *bytes, size_t length);
void writer_text(struct writer *writer, const char *text);
void writer_printf(struct writer *writer, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
/* Every ts written goes through here: the earliest event of the trace. */
void writer_note_ts(struct writer *writer, int64_t ts_ns);

/* ---- what memtop must report: the --expect file ---- */

enum { ACTIVITY_ALLOCATION = 1, ACTIVITY_DEALLOCATION = 2 };

struct expect_snapshot {
    int64_t time_ns; /* in the file's ns (not yet relative to the earliest) */
    int64_t heap_bytes;
    int64_t free_bytes;
    int activity;
    int64_t bytes; /* allocation = requested bytes */
    uint64_t address;
    int64_t step;
    struct text op, region, data_type, shape, chain;
};

struct expect_row {
    int64_t allocation_bytes;
    int64_t requested_bytes;
    int64_t occurrences;
    struct text op, region, data_type, shape;
};

struct expect_allocator {
    struct text id;
    struct expect_snapshot *snapshots; /* in memtop's order */
    size_t count, capacity;
    struct expect_row *rows; /* live at the peak, unmerged; merged on output */
    size_t row_count, row_capacity;
};

struct expect_oom {
    struct text device;
    int64_t time_ns;
    int64_t bytes;
};

struct expectations {
    const char *producer;
    struct arena strings; /* every text the expectations point at */
    struct expect_allocator *allocators;
    size_t allocator_count, allocator_capacity;
    struct expect_oom *ooms;
    size_t oom_count, oom_capacity;
};

struct expect_allocator *expect_add_allocator(struct expectations *expect, struct text id);
void expect_add_snapshot(struct expect_allocator *allocator, const struct expect_snapshot *snapshot);
void expect_add_row(struct expect_allocator *allocator, const struct expect_row *row);
void expect_add_oom(struct expectations *expect, const struct expect_oom *oom);
/* The first snapshot with the largest heap: memtop's (and timeline.py's) peak. */
size_t expect_peak_index(const struct expect_allocator *allocator);
void expect_write(const struct expectations *expect, int64_t earliest_ns, const struct options *options);
void expect_free(struct expectations *expect);

/* ---- the producers ---- */

void timeline_generate(const struct options *options, struct writer *writer, struct expectations *expect);
void pytorch_generate(const struct options *options, struct writer *writer, struct expectations *expect);

#endif
