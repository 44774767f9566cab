/* chrome_trace_fields: the fields memtop writes into its own Chrome-trace
 * export so that reading the export back gives the profile it came from,
 * one table per record: a snapshot (the args of one instant event), an
 * allocation row and an allocator's summary (in the "memtop" member before
 * traceEvents), an HLO module (the args of its slice). Each field is named
 * as in the CSV exports and says where it lies in the model's struct.
 * Called by: report/export_chrome_trace.c (writes every field of each
 * table) and model/formats/chrome_trace/load_trace_memtop.c (reads them back), so the two
 * cannot drift apart. Must not: hold anything but the tables; no I/O. */
#ifndef MEMTOP_CHROME_TRACE_FIELDS_H
#define MEMTOP_CHROME_TRACE_FIELDS_H

#include <stddef.h>

enum chrome_trace_field_kind {
    CHROME_TRACE_INT64,   /* int64_t */
    CHROME_TRACE_UINT64,  /* uint64_t */
    CHROME_TRACE_INT,     /* int */
    CHROME_TRACE_DOUBLE,  /* double */
    CHROME_TRACE_BOOL,    /* bool */
    CHROME_TRACE_SIZE,    /* size_t */
    CHROME_TRACE_STRING,  /* uint32_t string id */
    /* uint32_t stack id (model/stack_text.h): written as its text, read
     * back as a string id */
    CHROME_TRACE_STACK,
};

struct chrome_trace_field {
    const char *name;
    enum chrome_trace_field_kind kind;
    size_t offset;
};

struct chrome_trace_fields {
    const struct chrome_trace_field *fields;
    size_t count;
};

/* Onto struct snapshot; onto struct allocation_row (its origin is
 * written apart, by chrome_trace_origin_name()); onto struct
 * allocator_summary (the counts excluded: they are counted again); onto
 * struct hlo_module (the name is the slice's name). A row's has_time
 * says whether its time_ps means anything. */
extern const struct chrome_trace_fields chrome_trace_snapshot_fields;
extern const struct chrome_trace_fields chrome_trace_row_fields;
extern const struct chrome_trace_fields chrome_trace_summary_fields;
extern const struct chrome_trace_fields chrome_trace_hlo_fields;

/* A string field whose text is not valid UTF-8 (JSON cannot hold it) is
 * written once more as hex bytes under its name and this suffix. */
#define CHROME_TRACE_HEX_SUFFIX "_hex"

/* A row's origin (enum row_origin) and an allocator's timeline kind (enum
 * timeline_kind) as the export names them: "snapshot", "special",
 * "unresolved", "entry"; "complete", "sampled", "none". The name of an
 * unknown value is NULL; the value of an unknown name is -1. */
const char *chrome_trace_origin_name(int origin);
int chrome_trace_origin_value(const char *name, size_t length);
const char *chrome_trace_timeline_name(int kind);
int chrome_trace_timeline_value(const char *name, size_t length);
/* The name of bit number `bit` of enum allocator_field ("stack" for bit
 * 0), as an allocator's "unknown" list names it; NULL past the last. */
const char *chrome_trace_unknown_field_name(int bit);

/* The version of the "memtop" member this memtop writes and reads. */
#define CHROME_TRACE_MEMTOP_VERSION 1

#endif
