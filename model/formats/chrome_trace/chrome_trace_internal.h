/* chrome_trace_internal: what the files of the Chrome-trace importer
 * share (internal to model/formats/chrome_trace/ and its tests in
 * tests/formats/chrome_trace/; the rest of memtop sees only the format row
 * in model/input_formats.c, and the export's chrome_trace_fields.h).
 *
 * Owns: the event reader (load_trace_scan.c), which reads one trace event
 * from its bytes, picking out the few members memtop needs and skipping
 * the rest without building a tree; the decoding of the values it picks
 * (load_trace_values.c: strings with their escapes, integers, decimal
 * times to integer nanoseconds without a trip through double); ids and
 * the (pid, tid)-style pair table (load_trace_ids.c); the state of a load
 * (struct trace_load) that the producers' collectors fill as events
 * stream past, one reader each (with a _build.c half for the big ones):
 *   load_trace_kineto.c    PyTorch profiler traces ([memory] events, ops)
 *                          taken; load_trace_kineto_finish.c finishes them
 *   load_trace_timeline.c  TensorFlow timeline.py traces (Memory counters,
 *                          N/O/D tensors)
 *   load_trace_memtop.c    memtop's own export (report/export_chrome_trace.c)
 * and load_trace.c, the format row: probe, the document's outline, which
 * collector an event goes to, and the finishing.
 * What the importer makes of a trace is decided in
 * docs/formats/chrome_trace.md (see the notes in load_trace.c).
 * Must not: keep a tree of the document, or anything from it but what the
 * collectors materialise; print. */
#ifndef MEMTOP_CHROME_TRACE_INTERNAL_H
#define MEMTOP_CHROME_TRACE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/load_internal.h"
#include "model/profile_builder.h"

/* ---- reading values from the bytes ---- */

/* A JSON value as it stands in the document: [start, end). Empty (start
 * == end) when the member was absent. */
struct trace_value {
    size_t start;
    size_t end;
};

struct trace_reader {
    const char *text;
    size_t size;
    struct load_error *error;
    /* Decoded strings land here (grown as needed, freed by the load). */
    char *scratch;
    size_t scratch_capacity;
};

/* The members of an object a caller wants, by name, best in the order
 * producers write them (the reader tries the key after the last one it
 * found first). */
struct trace_keys {
    const char *const *names;
    size_t count;
    const uint8_t *lengths; /* of the names, for the hot tables; NULL: strlen */
    /* NULL, or whether the values read so far are all the reader needs:
     * then the rest of the object is skipped (balance checked) and a
     * member named again later does not replace its value. */
    bool (*enough)(const char *text, const struct trace_value *values);
    /* NULL, or for member `key` just found, an object: the keys to read
     * its members with as it is walked (NULL: skip it), so that a caller
     * who needs them does not walk it again. Their values land in
     * values[count...] (the caller clears those before the read), and
     * values[count + inner->count] is then the member's span; when that
     * reading fails, the member is skipped like any other (the same
     * result and message as before) and that span is left as it was. */
    const struct trace_keys *(*inner)(const char *text, const struct trace_value *values,
                                      int key);
};

/* Reads the object at *offset (which must be '{'): the value of each member
 * named in `keys` lands in values[k] (the last one wins when a name comes
 * twice, unless `enough` stopped the reading), the others are skipped. *offset moves past the object.
 * Skipped values are checked only for balance (brackets, strings), as
 * json_stream_value_span checks them. "offset N: invalid JSON" otherwise. */
enum load_status trace_read_object(struct trace_reader *reader, size_t *offset, size_t depth,
                                   const struct trace_keys *keys, struct trace_value *values);
/* Calls `element` with each element of the array `array` (a value the
 * reader located, so balanced), in order, until one fails. */
typedef enum load_status (*trace_element_fn)(void *context, struct trace_value element);
enum load_status trace_for_each_element(struct trace_reader *reader, struct trace_value array,
                                        size_t depth, trace_element_fn element, void *context);
/* Moves *offset past the value there (balance checked as above). */
enum load_status trace_skip_value(struct trace_reader *reader, size_t *offset, size_t depth);

static inline bool trace_value_present(struct trace_value value)
{
    return value.end > value.start;
}
bool trace_value_is_string(const struct trace_reader *reader, struct trace_value value);
bool trace_value_is_object(const struct trace_reader *reader, struct trace_value value);
/* Whether the value is the string `literal` (after its escapes). */
bool trace_value_equals(struct trace_reader *reader, struct trace_value value,
                        const char *literal);
/* A string's bytes with its escapes decoded (\uXXXX to UTF-8; a lone
 * surrogate to its 3-byte generalized UTF-8; raw bytes, controls and
 * invalid UTF-8 included, as they are), or a number's text, in the
 * reader's scratch (valid until the next call). False for other values
 * or when memory runs out (*no_memory says which; may be NULL). */
bool trace_value_text(struct trace_reader *reader, struct trace_value value, const char **text,
                      size_t *length, bool *no_memory);
/* A whole number: a JSON number (or a string holding one) with no
 * fraction left once its exponent is applied, within int64 / uint64. */
bool trace_value_integer(const struct trace_reader *reader, struct trace_value value,
                         int64_t *out);
bool trace_value_unsigned(const struct trace_reader *reader, struct trace_value value,
                          uint64_t *out);
/* A decimal number times 10^decimals, rounded half away from zero, from
 * its text (so "4558953775102.743" microseconds is exactly
 * 4558953775102743 ns with decimals 3); false when it is no number or
 * does not fit int64. */
bool trace_value_scaled(const struct trace_reader *reader, struct trace_value value,
                        unsigned decimals, int64_t *out);
bool trace_value_double(const struct trace_reader *reader, struct trace_value value, double *out);
/* The same on bare text (the probe, the tests). */
bool trace_text_scaled(const char *text, size_t length, unsigned decimals, int64_t *out);

/* ---- ids: pid, tid and object ids are numbers or strings ---- */

enum trace_id_kind {
    TRACE_ID_NONE = 0,
    TRACE_ID_NUMBER, /* value: the integer */
    TRACE_ID_STRING, /* value: a string id of the profile's table */
};

struct trace_id {
    int64_t value;
    int64_t kind; /* enum trace_id_kind (wide: no padding to hash) */
};

struct trace_pair {
    struct trace_id first;
    struct trace_id second;
};

/* Pairs numbered in order of first sight, found in constant time. */
struct trace_pair_table {
    struct trace_pair *pairs;
    size_t count;
    size_t capacity;
    uint32_t *slots; /* pair index + 1; 0 empty */
    size_t slot_count;
};

/* The number of `pair`, added when new (*added says so; may be NULL).
 * False when memory runs out. */
bool trace_pair_table_find_or_add(struct trace_pair_table *table, const struct trace_pair *pair,
                                  uint32_t *index, bool *added);
void trace_pair_table_free(struct trace_pair_table *table);
int trace_id_compare(const struct trace_id *a, const struct trace_id *b);
bool trace_id_equal(const struct trace_id *a, const struct trace_id *b);

/* ---- a load in progress ---- */

struct trace_kineto;   /* load_trace_kineto.c */
struct trace_timeline; /* load_trace_timeline.c */
struct trace_memtop;   /* load_trace_memtop.c */

/* The members of an event memtop reads. */
enum trace_event_key {
    TRACE_KEY_PH,
    TRACE_KEY_CAT,
    TRACE_KEY_NAME,
    TRACE_KEY_PID,
    TRACE_KEY_TID,
    TRACE_KEY_TS,
    TRACE_KEY_DUR,
    TRACE_KEY_ID,
    TRACE_KEY_ARGS,
    TRACE_KEY_COUNT,
    /* A cpu_op's args, read as the event is (event_keys' inner table,
     * trace_kineto_op_arg_keys): */
    TRACE_ARG_INPUT_DIMS = TRACE_KEY_COUNT,
    TRACE_ARG_INPUT_TYPE,
    TRACE_ARGS_READ, /* the args object they were read from, when they were */
    TRACE_MEMBER_COUNT
};

struct trace_event {
    struct trace_value member[TRACE_MEMBER_COUNT];
    size_t offset;    /* where the event starts, for messages */
    uint32_t sequence; /* its place among the events (file order) */
    bool has_time;
    int64_t time_ns; /* ts, when has_time */
};

struct trace_load {
    struct trace_reader reader;
    struct profile_builder *builder;
    struct string_table *strings;
    uint32_t events; /* read so far */
    bool has_earliest;
    int64_t earliest_ns; /* the smallest ts of any event */
    struct trace_kineto *kineto;
    struct trace_timeline *timeline;
    struct trace_memtop *memtop;
    /* Counts for warnings. */
    size_t skipped_without_time; /* memory events whose ts is no number */
    /* The event the data ends inside (a copy in progress, a job that
     * crashed while writing): its offset; 0 when the trace is whole. */
    size_t cut_at;
    bool ends_open; /* the document ends before its closing bracket */
    bool time_saturated;         /* a time past int64 picoseconds */
};

/* A pid, tid or id value as a trace_id (strings interned); false when
 * memory runs out. An absent value is TRACE_ID_NONE. */
bool trace_load_id(struct trace_load *load, struct trace_value value, struct trace_id *id);
/* A string (or number text) interned into the profile's strings; an
 * absent or other value is the empty string. STRING_ID_NONE when memory
 * runs out. */
uint32_t trace_load_intern(struct trace_load *load, struct trace_value value);
/* Picoseconds after the earliest event (saturating, noted for a warning). */
int64_t trace_load_time_ps(struct trace_load *load, int64_t time_ns);
/* A warning line, printf-style, of our own text (a line that quotes the
 * file's text builds it raw with model/message_text.h and hands it to
 * profile_builder_add_warning_bytes: whoever shows it escapes it). */
bool trace_load_warn(struct trace_load *load, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
enum load_status trace_load_no_memory(struct trace_load *load);
/* A new allocator named [name, name+length), or "name #2" (#3, ...) when
 * another producer's allocator has that name already; false when memory
 * runs out. */
bool trace_new_allocator(struct trace_load *load, const char *name, size_t length,
                         size_t *index);

/* ---- the collectors (each: take events, then build allocators) ---- */

/* PyTorch: [memory] and [OutOfMemory] instants, cpu_op and user_annotation
 * slices. The *_take functions return LOAD_OK for an event that is not
 * theirs too. */
enum load_status trace_kineto_take_memory(struct trace_load *load, const struct trace_event *event,
                                          bool out_of_memory);
/* A python_function slice (PyTorch's with_stack=True): its frame. */
enum load_status trace_kineto_take_frame(struct trace_load *load, const struct trace_event *event);
/* Input Dims and Input type, in that order (load_trace_kineto_shapes.c). */
extern const struct trace_keys trace_kineto_op_arg_keys;
enum load_status trace_kineto_take_op(struct trace_load *load, const struct trace_event *event,
                                      bool is_operator);
/* A `fwdbwd` flow event ("s" or "f"): the forward op a backward op links. */
enum load_status trace_kineto_take_flow(struct trace_load *load, const struct trace_event *event,
                                        bool is_start);
size_t trace_kineto_memory_events(const struct trace_load *load);
enum load_status trace_kineto_finish(struct trace_load *load);
void trace_kineto_free(struct trace_load *load);

/* timeline.py: Memory counters, process names, N/O/D tensor objects. */
enum load_status trace_timeline_take_counter(struct trace_load *load,
                                             const struct trace_event *event);
enum load_status trace_timeline_take_process_name(struct trace_load *load,
                                                  const struct trace_event *event);
enum load_status trace_timeline_take_object(struct trace_load *load,
                                            const struct trace_event *event, char phase);
size_t trace_timeline_memory_events(const struct trace_load *load);
enum load_status trace_timeline_finish(struct trace_load *load);
void trace_timeline_free(struct trace_load *load);

/* memtop's export: the "memtop" member, its snapshot instants and HLO
 * slices. */
enum load_status trace_memtop_take_marker(struct trace_load *load, struct trace_value marker);
enum load_status trace_memtop_take_event(struct trace_load *load, const struct trace_event *event);
bool trace_memtop_marked(const struct trace_load *load);
enum load_status trace_memtop_finish(struct trace_load *load);
void trace_memtop_free(struct trace_load *load);

/* The event categories and names the collectors are told apart by. */
#define TRACE_MEMTOP_SNAPSHOT_CATEGORY "memtop"
#define TRACE_MEMTOP_HLO_CATEGORY "memtop_hlo"

/* Rows of the "live at the peak" table from the allocations live at the
 * peak (timeline indices), merged and ordered as XProf orders its peak
 * table, with the special "allocated before the profile" row when asked;
 * added to allocator `index`. The timeline must be in its final order. */
bool trace_add_peak_rows(struct trace_load *load, size_t index, const uint32_t *live,
                         size_t live_count, size_t peak_index, bool with_specials);
/* The summary of a timeline whose peak is the first snapshot with the
 * largest heap: capacity unknown, lifetime peak = that heap. Returns the
 * peak's index (0 for an empty timeline). */
size_t trace_set_first_peak_summary(struct trace_load *load, size_t index);

#endif
