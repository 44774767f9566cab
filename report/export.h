/* export: a view of a profile as CSV, for pandas, spreadsheets and CI,
 * or the whole profile as a Chrome trace for Perfetto (chrome-trace).
 *
 * One code path for the batch mode (main: memtop --export VIEW PROFILE)
 * and the viewer's `e` key (ui/export_prompt): fill a struct
 * export_request with what the view shows and call export_write() for a
 * stream or export_to_path() for a file (report/atomic_file.h). It owns
 * the view names, --sort and --from/--to parsing (export_parse.c) and one
 * exporter per view (export_*.c). It must not print or pick exit codes:
 * a status and a one-line reason go back to the caller, which names the
 * output. The allocations columns are model/query/allocation_columns.h's.
 * The CSV dialect (LF line ends, quoting, the formula guard, numbers) is
 * described in report/csv_writer.h; every number is a raw integer (bytes,
 * picoseconds) except time_ms and fragmentation.
 *
 * Columns, header row first:
 *   allocations  op_name,allocation_bytes,requested_bytes,occurrences,
 *                region_type,data_type,tensor_shape,step_id,time_ps,address,
 *                activity,origin,snapshot_index,special_index
 *                kind,location,stack,total_bytes,share
 *                (origin: snapshot|special|unresolved; time_ps is empty for
 *                rows without a time; total_bytes is allocation_bytes times
 *                occurrences, share that over the allocator's peak, empty
 *                when the peak is unknown), in the table's order.
 *                Grouped (group_by): KEY,total_bytes,share,rows, one row
 *                per group of model/query/row_groups.h, largest first (KEY is the
 *                key's name: scope, location or file).
 *   timeline     time_ps,time_ms,heap_bytes,stack_bytes,free_bytes,
 *                fragmentation,peak_bytes_in_use,activity,requested_bytes,
 *                allocation_bytes,address,op_name,step_id,region_type,
 *                data_type,tensor_shape; one row per snapshot in the window,
 *                in time order.
 *   summary      allocator,snapshots,allocations,deallocations,
 *                capacity_bytes,lifetime_peak_bytes,peak_bytes,peak_time_ps,
 *                peak_heap_bytes,peak_stack_bytes,peak_free_bytes,
 *                peak_fragmentation,active_allocations,summary_computed,
 *                timeline_sampled; one row per allocator (the --summary
 *                --json fields).
 *   hlo          id,name,plane_name,start_time_ps,end_time_ps,duration_ps
 *                (duration empty when end - start overflows int64).
 *   compare      op_name,base_bytes,new_bytes,delta_bytes,base_count,
 *                new_count: what was live at the peak of the base's
 *                allocator (profile, allocator) and of the new one's
 *                (new_profile, new_allocator), summed by op name, sorted
 *                by |delta| descending (model/query/compare.h); delta is new
 *                minus base, counts are occurrences.
 *   steps        step_id,start_time_ps,end_time_ps,peak_bytes,peak_time_ps,
 *                end_bytes,allocations,deallocations,end_delta_bytes; one
 *                row per step of the allocator (model/query/steps.h: in the order
 *                the steps start, step -1 last), end_delta_bytes empty for
 *                the first step and for step -1.
 *   spans        name,start_time_ps,end_time_ps,duration_ps,peak_bytes,
 *                peak_time_ps,end_bytes,allocations,deallocations,depth,
 *                starts_before_trace,open_at_end; one row per named span
 *                of the allocator (model/query/spans.h: by start), the
 *                bytes empty for a span before the first snapshot.
 *   segments     address,size_bytes,stream,pool,expandable,allocated_bytes,
 *                pending_free_bytes,free_bytes,blocks,largest_free_bytes:
 *                the allocator's segments (model/segments.h) after the
 *                request's snapshot (at_ps: the last at or before it;
 *                otherwise the peak's), by address; pool is "default" or
 *                "private" (a CUDA graph's, a MemPool's).
 *   chrome-trace not CSV: a Chrome trace JSON that Perfetto and
 *                chrome://tracing open and memtop reads back as the same
 *                profile (report/export_chrome_trace.c says how); every
 *                allocator, or only the request's one.
 * A quantity the profile's format does not record (a PyTorch trace has no
 * stack, fragmentation or capacity) is an empty field, not 0.
 * activity is the proto3 enum name (ALLOCATION, ..., UNKNOWN_ACTIVITY);
 * time_ms is time_ps / 10^9 written exactly ("1.68589"). */
#ifndef MEMTOP_EXPORT_H
#define MEMTOP_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/profile.h"
#include "model/query/allocation_table.h"

enum export_view {
    EXPORT_VIEW_ALLOCATIONS,
    EXPORT_VIEW_TIMELINE,
    EXPORT_VIEW_SUMMARY,
    EXPORT_VIEW_HLO,
    EXPORT_VIEW_CHROME_TRACE,
    EXPORT_VIEW_COMPARE, /* two profiles: the request's and new_profile */
    EXPORT_VIEW_STEPS,
    EXPORT_VIEW_SEGMENTS, /* formats that record segments (model/segments.h) */
    /* XProf's peak-step table (issue 22): the columns of allocations,
     * XProf's rows in its order (allocator_xprof_rows). */
    EXPORT_VIEW_XPROF_TABLE,
    /* The allocator's named spans (model/query/spans.h). */
    EXPORT_VIEW_SPANS,
    EXPORT_VIEW_COUNT
};

enum export_status {
    EXPORT_OK,
    EXPORT_EXISTS, /* export_to_path: the file exists and replace was false;
                      nothing was written: ask, then call again with replace */
    EXPORT_FAILED, /* error holds the reason, e.g. "No space left on device" */
};

#define EXPORT_ERROR_SIZE 256

struct export_request {
    enum export_view view;
    const struct profile *profile;
    /* allocations, timeline, steps: the allocator to export (required, or taken
     * from table). summary, chrome-trace: NULL exports every allocator,
     * else only this one. hlo: unused (HLO modules belong to the
     * profile). */
    const struct allocator *allocator;
    /* timeline: the window, both ends inclusive, as timeline_range()
     * takes it. export_request_init() sets INT64_MIN..INT64_MAX: all. */
    int64_t from_ps;
    int64_t to_ps;
    /* allocations: the rows as a table shows them (its filter and its
     * order); NULL exports every row in the file's order (XProf's). */
    const struct allocation_table *table;
    /* allocations: those rows grouped by this key instead, the groups
     * under group_scope for ROW_GROUP_OP_SCOPE ("": the top);
     * ROW_GROUP_NONE (export_request_init's): the rows themselves. */
    enum row_group_key group_by;
    struct text group_scope;
    /* compare: the second profile and its allocator matched with
     * `allocator` (profile is the base). Either allocator may be NULL (an
     * allocator in one profile only: no rows on that side), not both. */
    const struct profile *new_profile;
    const struct allocator *new_allocator;
    /* Several hosts in one CSV (export_each_write): text cells before each
     * row's own, named in the header ("run", "host"); lead_count 0: none.
     * no_header: a host after the first, whose header is not written. */
    /* segments: the time to show them at (has_at), else the peak. */
    bool has_at;
    int64_t at_ps;
    const char *const *lead_names;
    const char *const *lead_values;
    size_t lead_count;
    bool no_header;
};

/* A request for the whole of a view: full window, no table. */
void export_request_init(struct export_request *request, enum export_view view,
                         const struct profile *profile, const struct allocator *allocator);

/* Writes the header and the rows to out and flushes it. When out is a
 * terminal, text is escaped as the viewer escapes it (csv_writer.h);
 * to anything else the bytes are the profile's. *rows (may be
 * NULL) gets the number of data rows written. EXPORT_OK or EXPORT_FAILED
 * with a one-line reason (no file name) in error. */
enum export_status export_write(FILE *out, const struct export_request *request, size_t *rows,
                                char *error, size_t error_size);

/* Writes the CSV to path through report/atomic_file.h: a file (or a
 * symlink, replaced, not followed) atomically, so that path is either
 * untouched or complete; a FIFO, a character device or a /dev/stdout-like
 * link directly; a directory or other special file is refused. Without
 * replace an existing file is never touched: EXPORT_EXISTS (checked
 * first, and again by the rename itself). */
enum export_status export_to_path(const char *path, bool replace,
                                  const struct export_request *request, size_t *rows,
                                  char *error, size_t error_size);

/* The exports of several hosts as one CSV (a run, --export on a
 * directory): next() fills host `index`'s request, lead cells included,
 * or returns false when it has none (it failed to load: the caller says
 * why); done() lets go of what next() loaded; name() says which host
 * `index` is. All or nothing: a host without a request stops the export,
 * EXPORT_FAILED, "not written: host NAME failed" (a file export then
 * leaves the target as it was). EXPORT_FAILED, "no host to export", when
 * there are none; else as export_write and export_to_path. */
struct export_each {
    size_t count;
    bool (*next)(void *context, size_t index, struct export_request *request);
    void (*done)(void *context, size_t index);
    const char *(*name)(void *context, size_t index);
    void *context;
};
enum export_status export_each_write(FILE *out, const struct export_each *each, size_t *rows,
                                     char *error, size_t error_size);
enum export_status export_each_to_path(const char *path, bool replace,
                                       const struct export_each *each, size_t *rows,
                                       char *error, size_t error_size);

/* "allocations", "timeline", "summary", "hlo", "chrome-trace", "compare", "steps". */
const char *export_view_name(enum export_view view);
bool export_view_parse(const char *name, enum export_view *out);
/* "allocations, timeline, summary, hlo, chrome-trace, compare, steps, segments", for usage
 * messages. */
const char *export_view_list(void);
/* Whether the view is CSV (else JSON: chrome-trace). */
bool export_view_is_csv(enum export_view view);

/* "memtop-<host>-<allocator>-<view>.csv" (".json" for chrome-trace),
 * without the host when it is NULL (one host) and without the allocator
 * when it is NULL (a file of every allocator, or of the profile's HLO
 * modules); the names made filename-safe: bytes other than
 * [A-Za-z0-9._-] become '_', and each is cut to 100 bytes. malloc'd;
 * NULL when memory runs out. */
char *export_default_path(const struct profile *profile, const char *host,
                          const struct allocator *allocator, enum export_view view);

/* --sort COLUMN[:asc|:desc] with COLUMN a sortable column
 * (model/query/allocation_columns.h), by its one name as the viewer's header
 * shows it ("size") or its name in the allocations header
 * ("allocation_bytes"); without a direction, numbers sort descending
 * and text ascending. false when text is not one of them. */
bool export_sort_parse(const char *text, enum table_column *column, bool *descending);
/* "size, requested, ...; or the CSV header's names: op_name, ...", the
 * sortable columns for usage messages (built once, on the first call). */
const char *export_sort_list(void);

/* --min-size: a number of bytes, or of KiB, MiB, GiB ("1048576", "1MiB",
 * "16M", "1 GiB": 1024-based, K/M/G alone too); false when the text is
 * none of these or the size does not fit in int64. */
bool export_size_parse(const char *text, int64_t *bytes);

/* --group-by KEY[:SCOPE]: a key of model/query/row_groups.h ("scope",
 * "location", "file"), for scope optionally the scope to list the
 * groups under ("scope:model/"; *scope points into text, "" when
 * none). false when KEY is none of them. */
bool export_group_parse(const char *text, enum row_group_key *key, const char **scope);

/* Milliseconds as typed ("1685.89", "-2", "0.000000001") to picoseconds,
 * exactly: false when it is not a plain decimal, has a non-zero digit
 * past the picosecond, or does not fit in int64. */
bool export_milliseconds_parse(const char *text, int64_t *time_ps);

/* ---- The exporters, one per view (export.c dispatches; callers use
 * export_write). Each writes its header and rows, stopping at the first
 * write error, and returns the number of data rows written. The request
 * is already checked (allocator present where required). ---- */
struct csv_writer;
size_t export_allocations(struct csv_writer *writer, const struct export_request *request);
size_t export_xprof_table(struct csv_writer *writer, const struct export_request *request);
size_t export_timeline(struct csv_writer *writer, const struct export_request *request);
size_t export_summary(struct csv_writer *writer, const struct export_request *request);
size_t export_hlo(struct csv_writer *writer, const struct export_request *request);
size_t export_compare(struct csv_writer *writer, const struct export_request *request);
size_t export_steps(struct csv_writer *writer, const struct export_request *request);
size_t export_spans(struct csv_writer *writer, const struct export_request *request);
size_t export_segments(struct csv_writer *writer, const struct export_request *request);
/* chrome-trace: returns the number of trace events written. */
struct json_writer;
size_t export_chrome_trace(struct json_writer *writer, const struct export_request *request);
/* A number the format records, or an empty field when it does not
 * (allocator->unknown_fields). */
void export_known_int(struct csv_writer *writer, bool unknown, int64_t value);
void export_known_double(struct csv_writer *writer, bool unknown, double value);

#endif
