/* oom_log: out-of-memory reports in plain text logs (the spec:
 * docs/formats/oom_log.md), read from any text file or standard input,
 * among log prefixes, timestamps and other lines (tracebacks, progress
 * bars):
 * - XLA's BufferAssignment report (RESOURCE_EXHAUSTED ... "BufferAssignment
 *   OOM Debugging", the stats lines, "Peak buffers:");
 * - the BFC allocator's dump ("Allocator (GPU_0_bfc) ran out of memory
 *   trying to allocate ...", bins, the chunk walk, the in-use chunks by
 *   size, "Stats:");
 * - PyTorch's "CUDA out of memory. Tried to allocate ..." message.
 *
 * What it becomes: the last report of the log, as one allocator with no
 * timeline (TIMELINE_NONE) and one OOM (struct oom_event): XLA's peak
 * buffers or the BFC's in-use chunks as rows, the stats as the
 * allocator's notes, the chunk walk as its memory map; every earlier
 * report is one warning line.
 *
 * This header indexes the folder: oom_log.c (the format row, the probe,
 * the load: lines, reports, the one that opens), oom_log_text.c (lines,
 * log prefixes, sizes as printed), oom_log_xla.c, oom_log_bfc.c and
 * oom_log_torch.c (one report kind each), oom_log_build.c (a report into
 * the profile builder). Nothing else includes it: the rest of memtop
 * reaches the format through its row in the format table. Must not: trust
 * a number it did not check (sizes saturate, counts are bounded), nor
 * keep a pointer into the input past the load. */
#ifndef MEMTOP_OOM_LOG_INTERNAL_H
#define MEMTOP_OOM_LOG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/load.h"
#include "model/profile_builder.h"
#include "model/util/text.h"

/* ---- lines (oom_log_text.c) ---- */

/* One line of the log: its bytes without the line end, and its body:
 * what follows a log prefix ("2024-07-12 14:20:01.744328: I
 * tensorflow/tsl/framework/bfc_allocator.cc:1046] ", "E0528 07:02:44.350251
 * 27487 pjrt_stream_executor_client.cc:2826] "), the whole line when it has
 * none. */
struct oom_log_line {
    struct text line;
    struct text body;
    size_t number; /* 1-based */
};

struct oom_log_lines {
    struct oom_log_line *lines;
    size_t count;
};

/* The input's lines; false when memory runs out. */
bool oom_log_lines_split(const uint8_t *bytes, size_t size, struct oom_log_lines *lines);
void oom_log_lines_free(struct oom_log_lines *lines);

/* Where `needle` starts in text, or -1. */
long oom_log_find(struct text text, const char *needle);
/* Text after the first `needle` (empty text and false when none). */
bool oom_log_after(struct text text, const char *needle, struct text *rest);
/* Text without the blanks (spaces, tabs) at either end. */
struct text oom_log_trim(struct text text);
/* Whether the trimmed text starts with `prefix`; *rest what follows. */
bool oom_log_starts(struct text text, const char *prefix, struct text *rest);
/* Whether `key` is in the line at a word's start (the line's start, or
 * after a blank, '|', ']' or ':' of a prefix this reader does not know:
 * "[2024-07-12 14:20:01] worker-0 | Size: 6.00MiB"); *rest what follows. */
bool oom_log_key(struct text text, const char *key, struct text *rest);
/* A decimal integer at the start of text (blanks first skipped): false
 * when there is none or it does not fit in int64; *end just past it. */
bool oom_log_integer(struct text text, int64_t *value, size_t *end);
/* A size as logs print it: "0B", "112B", "38.7KiB", "6.00MiB",
 * "20.00 MiB", "1.38 GiB" (1024-based units, also KB/MB/GB as XLA's old
 * logs had; plain bytes with or without "B"), at the start of text:
 * the bytes the printed units stand for, rounded; *end just past it. */
bool oom_log_size(struct text text, int64_t *bytes, size_t *end);

/* ---- reports ---- */

enum oom_log_kind {
    OOM_LOG_XLA,   /* BufferAssignment OOM Debugging */
    OOM_LOG_BFC,   /* the BFC allocator's dump */
    OOM_LOG_TORCH, /* CUDA out of memory. Tried to allocate ... */
};

/* One peak buffer of an XLA report (texts interned in the builder). */
struct oom_log_buffer {
    int64_t bytes;
    uint32_t op_name;
    uint32_t location;      /* "file:line" */
    uint32_t location_file;
    int64_t location_line;
    uint32_t label;         /* XLA label, or "entry parameter" */
    uint32_t data_type;     /* "f32" of "f32[4096,128,3]" */
    uint32_t shape;         /* "[4096,128,3]" */
};

/* One "<count> Chunks of size <bytes>" line of a BFC dump. */
struct oom_log_chunks {
    int64_t count;
    int64_t bytes;
};

/* A line of a report's own summary: XLA's stats, BFC's Stats. */
struct oom_log_note {
    uint32_t label;
    uint32_t value;
};

/* A BFC chunk of the walk, in address order. */
struct oom_log_chunk {
    int64_t bytes;
    bool in_use;
};

#define OOM_LOG_MAX_ITEMS 100000 /* buffers, chunks, notes per report */

struct oom_log_report {
    enum oom_log_kind kind;
    size_t first_line; /* 1-based */
    uint32_t allocator;  /* its name, interned; 0: none said */
    uint32_t op;         /* the op that asked; 0: none */
    int64_t requested;   /* -1 where the log does not say */
    int64_t allocated;
    int64_t reserved;
    int64_t device_free;
    int64_t largest_free;
    int64_t capacity;
    int64_t lifetime_peak;
    int64_t total;       /* XLA's total allocation */
    struct oom_log_buffer *buffers;
    size_t buffer_count, buffer_capacity;
    struct oom_log_chunks *chunks;
    size_t chunks_count, chunks_capacity;
    struct oom_log_note *notes;
    size_t note_count, note_capacity;
    struct oom_log_chunk *walk;
    size_t walk_count, walk_capacity;
};

struct oom_log_reports {
    struct oom_log_report *list;
    size_t count, capacity;
};

void oom_log_reports_free(struct oom_log_reports *reports);
/* A new report of `kind` starting at line `number`; NULL when memory
 * runs out. */
struct oom_log_report *oom_log_report_start(struct oom_log_reports *reports,
                                            enum oom_log_kind kind, size_t number);
/* Appends to one of a report's lists (at most OOM_LOG_MAX_ITEMS each:
 * past that, true and nothing kept); false when memory runs out. */
bool oom_log_add_buffer(struct oom_log_report *report, const struct oom_log_buffer *buffer);
bool oom_log_add_chunks(struct oom_log_report *report, const struct oom_log_chunks *chunks);
bool oom_log_add_note(struct oom_log_report *report, struct string_table *strings,
                      struct text label, struct text value);
bool oom_log_add_walk(struct oom_log_report *report, const struct oom_log_chunk *chunk);

/* Each parser reads from line *at on, the report's start found there
 * by the caller, and leaves *at at the first line that is not its
 * report's; false when memory runs out. */
bool oom_log_parse_xla(const struct oom_log_lines *lines, size_t *at,
                       struct oom_log_reports *reports, struct string_table *strings);
bool oom_log_parse_bfc(const struct oom_log_lines *lines, size_t *at,
                       struct oom_log_reports *reports, struct string_table *strings);
bool oom_log_parse_torch(const struct oom_log_lines *lines, size_t *at,
                         struct oom_log_reports *reports, struct string_table *strings);

/* Which report kind starts on this line body, if any. */
bool oom_log_starts_report(struct text body, enum oom_log_kind *kind);

/* The report into the builder: one allocator, its rows, notes and OOM
 * (oom_log_build.c); false when memory runs out. */
bool oom_log_build(const struct oom_log_report *report, struct profile_builder *builder);
/* "XLA buffer assignment", "BFC allocator dump", "PyTorch OOM message". */
const char *oom_log_kind_name(enum oom_log_kind kind);

#endif
