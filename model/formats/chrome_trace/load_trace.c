/* load_trace: Chrome Trace Format JSON as a memory profile, the format row
 * (see load_trace.h for the files around it).
 *
 * Two producers write memory into Chrome traces, and memtop itself is a
 * third (its --export chrome-trace):
 * - PyTorch's profiler (Kineto): [memory] instant events, one allocator
 *   per device (load_trace_kineto.c);
 * - TensorFlow's timeline.py: Memory counters of the Allocators process
 *   and N/O/D tensor objects (load_trace_timeline.c);
 * - memtop's export: a "memtop" member before traceEvents and one instant
 *   per snapshot holding it exactly (load_trace_memtop.c).
 * What memtop makes of each is decided in TRACE-SEMANTICS (the project's
 * plan; docs/formats/chrome_trace.md says it for users).
 *
 * The document is an object with traceEvents (other members before and
 * after it are skipped) or a bare array of events; either may stop short
 * after a whole event or its comma, may have a comma before the closing
 * bracket, and may hold empty objects or other values as events (all
 * skipped). json_stream walks the outline; each event is read from its
 * bytes by load_trace_scan.c, which looks at the few members memtop uses.
 * Every time is kept as picoseconds after the earliest event of the file
 * (the smallest ts of any event), from the decimal text of ts in integer
 * nanoseconds. */
#include "config.h"

#include "model/formats/chrome_trace/chrome_trace_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/input_format.h"
#include "model/decode/json_stream.h"
#include "model/query/live_rows.h"
#include "model/util/saturating.h"

/* ---- helpers for the collectors ---- */

bool trace_load_id(struct trace_load *load, struct trace_value value, struct trace_id *id)
{
    *id = (struct trace_id){0, TRACE_ID_NONE};
    if (!trace_value_present(value))
        return true;
    int64_t number;
    if (!trace_value_is_string(&load->reader, value) &&
        trace_value_integer(&load->reader, value, &number)) {
        *id = (struct trace_id){number, TRACE_ID_NUMBER};
        return true;
    }
    uint32_t text = trace_load_intern(load, value);
    if (text == STRING_ID_NONE)
        return false;
    *id = (struct trace_id){text, TRACE_ID_STRING};
    return true;
}

uint32_t trace_load_intern(struct trace_load *load, struct trace_value value)
{
    const char *text;
    size_t length;
    bool no_memory;
    if (!trace_value_text(&load->reader, value, &text, &length, &no_memory))
        return no_memory ? STRING_ID_NONE : STRING_ID_EMPTY;
    return string_table_intern(load->strings, text, length);
}

int64_t trace_load_time_ps(struct trace_load *load, int64_t time_ns)
{
    int64_t since = saturating_subtract(time_ns, load->earliest_ns);
    if (since > INT64_MAX / 1000) {
        load->time_saturated = true;
        return INT64_MAX;
    }
    return since * 1000;
}

bool trace_load_warn(struct trace_load *load, const char *format, ...)
{
    char line[LOAD_ERROR_SIZE];
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(line, sizeof line, format, arguments);
    va_end(arguments);
    return profile_builder_add_warning(load->builder, line);
}

enum load_status trace_load_no_memory(struct trace_load *load)
{
    load_error_set(load->reader.error, "out of memory");
    return LOAD_NO_MEMORY;
}

bool trace_new_allocator(struct trace_load *load, const char *name, size_t length,
                         size_t *index)
{
    bool created;
    if (!profile_builder_allocator(load->builder, name, length, index, &created))
        return false;
    char *numbered = malloc(length + 24);
    for (unsigned copy = 2; !created && numbered; copy++) {
        memcpy(numbered, name, length);
        int added = snprintf(numbered + length, 24, " #%u", copy);
        if (!profile_builder_allocator(load->builder, numbered, length + (size_t)added, index,
                                       &created))
            break;
    }
    free(numbered);
    return created;
}

bool trace_add_peak_rows(struct trace_load *load, size_t index, const uint32_t *live,
                         size_t live_count, size_t peak_index, bool with_specials)
{
    const struct snapshot_columns *timeline = profile_builder_timeline(load->builder, index);
    struct live_special_texts texts;
    if (!live_special_texts_intern(load->strings, &texts))
        return false;
    int64_t live_bytes = 0;
    for (size_t i = 0; i < live_count; i++)
        live_bytes = saturating_add(live_bytes, timeline->allocation_bytes[live[i]]);
    struct live_rows_request request = {
        .profile = load->builder->profile,
        .timeline = timeline,
        .texts = &texts,
        .live = live,
        .live_count = live_count,
        .end = timeline->count ? peak_index + 1 : 0,
        .with_specials = with_specials,
        .live_allocation_bytes = live_bytes,
    };
    struct live_rows rows = {0};
    bool ok = live_rows_make(&request, &rows) &&
              profile_builder_reserve_rows(load->builder, index, rows.count);
    for (size_t i = 0; ok && i < rows.count; i++)
        ok = profile_builder_add_row(load->builder, index, &rows.rows[i]);
    live_rows_free(&rows);
    profile_builder_set_live_rows(load->builder, index, live_count);
    return ok;
}

size_t trace_set_first_peak_summary(struct trace_load *load, size_t index)
{
    const struct snapshot_columns *timeline = profile_builder_timeline(load->builder, index);
    size_t peak = 0;
    for (size_t i = 1; i < timeline->count; i++)
        if (timeline->heap_bytes[i] > timeline->heap_bytes[peak])
            peak = i; /* the first time the largest is reached */
    struct allocator_summary summary = {.derived = true};
    if (timeline->count) {
        summary.peak = (struct memory_stats){
            .stack_bytes = timeline->stack_bytes[peak],
            .heap_bytes = timeline->heap_bytes[peak],
            .free_bytes = snapshot_columns_free_bytes(timeline, peak),
            .fragmentation = timeline->fragmentation[peak],
            .peak_bytes_in_use = snapshot_columns_peak_bytes_in_use(timeline, peak),
        };
        summary.peak_time_ps = snapshot_columns_time(timeline, peak);
        summary.lifetime_peak_bytes = timeline->heap_bytes[peak];
    }
    profile_builder_set_summary(load->builder, index, &summary);
    return peak;
}

/* ---- one event ---- */

static const char *const event_key_names[TRACE_KEY_COUNT] = {
    [TRACE_KEY_PH] = "ph",   [TRACE_KEY_CAT] = "cat", [TRACE_KEY_NAME] = "name",
    [TRACE_KEY_PID] = "pid", [TRACE_KEY_TID] = "tid", [TRACE_KEY_TS] = "ts",
    [TRACE_KEY_DUR] = "dur", [TRACE_KEY_ID] = "id",   [TRACE_KEY_ARGS] = "args",
};
static const uint8_t event_key_lengths[TRACE_KEY_COUNT] = {
    [TRACE_KEY_PH] = 2,  [TRACE_KEY_CAT] = 3, [TRACE_KEY_NAME] = 4,
    [TRACE_KEY_PID] = 3, [TRACE_KEY_TID] = 3, [TRACE_KEY_TS] = 2,
    [TRACE_KEY_DUR] = 3, [TRACE_KEY_ID] = 2,  [TRACE_KEY_ARGS] = 4,
};

/* Whether the value is the quoted text `quoted` ("..." with its quotes,
 * `length` bytes), compared as written: the compiler compares a constant
 * length in a few words, without a call. */
#define RAW_IS(text, value, quoted) \
    ((value).end - (value).start == sizeof quoted - 1 && \
     memcmp((text) + (value).start, quoted, sizeof quoted - 1) == 0)

/* Most events of a big trace are slices no collector takes (Python
 * functions, kernels): once their time is known, the rest is skipped.
 * Called after each member the reader finds: the usual answers come
 * from a length or a byte. */
static bool event_read_enough(const char *text, const struct trace_value *values)
{
    struct trace_value category = values[TRACE_KEY_CAT], ph = values[TRACE_KEY_PH];
    if (!trace_value_present(values[TRACE_KEY_TS]) || !trace_value_present(category) ||
        ph.end - ph.start != 3 || text[ph.start + 1] != 'X' || text[ph.start] != '"')
        return false;
    switch (category.end - category.start) {
    case sizeof "\"python_function\"" - 1: /* and "user_annotation" */
        /* A Python frame needs its name, thread and span, not its args. */
        if (RAW_IS(text, category, "\"python_function\""))
            return trace_value_present(values[TRACE_KEY_NAME]) &&
                   trace_value_present(values[TRACE_KEY_DUR]) &&
                   trace_value_present(values[TRACE_KEY_PID]) &&
                   trace_value_present(values[TRACE_KEY_TID]);
        if (RAW_IS(text, category, "\"user_annotation\""))
            return false;
        break;
    case sizeof "\"cpu_op\"" - 1:
        if (RAW_IS(text, category, "\"cpu_op\""))
            return false;
        break;
    case sizeof "\"" TRACE_MEMTOP_HLO_CATEGORY "\"" - 1:
        if (RAW_IS(text, category, "\"" TRACE_MEMTOP_HLO_CATEGORY "\""))
            return false;
        break;
    default: break;
    }
    /* Not one of those as written; one with escapes may be (read it all). */
    return !memchr(text + category.start, '\\', category.end - category.start);
}

/* A cpu_op's args are read for its shapes as the event is walked, once,
 * when its category came first as plain "cpu_op" (as Kineto writes it);
 * otherwise load_trace_kineto_shapes.c reads them again. */
static const struct trace_keys *event_inner_keys(const char *text,
                                                 const struct trace_value *values, int key)
{
    return key == TRACE_KEY_ARGS && RAW_IS(text, values[TRACE_KEY_CAT], "\"cpu_op\"")
               ? &trace_kineto_op_arg_keys
               : NULL;
}

static const struct trace_keys event_keys = {event_key_names, TRACE_KEY_COUNT, event_key_lengths,
                                             event_read_enough, event_inner_keys};

/* The phase: its one letter, or 0 for anything else. */
static char event_phase(const struct trace_load *load, const struct trace_event *event)
{
    struct trace_value ph = event->member[TRACE_KEY_PH];
    if (ph.end - ph.start != 3 || load->reader.text[ph.start] != '"')
        return 0;
    return load->reader.text[ph.start + 1];
}

static bool event_category_is(struct trace_load *load, const struct trace_event *event,
                              const char *category)
{
    return trace_value_equals(&load->reader, event->member[TRACE_KEY_CAT], category);
}

static bool event_name_is(struct trace_load *load, const struct trace_event *event,
                          const char *name)
{
    return trace_value_equals(&load->reader, event->member[TRACE_KEY_NAME], name);
}

/* Which collector takes the event, if any. */
static enum load_status event_take(struct trace_load *load, const struct trace_event *event)
{
    switch (event_phase(load, event)) {
    case 'i':
    case 'I':
        if (event_category_is(load, event, TRACE_MEMTOP_SNAPSHOT_CATEGORY))
            return trace_memtop_take_event(load, event);
        if (event_name_is(load, event, "[memory]"))
            return trace_kineto_take_memory(load, event, false);
        if (event_name_is(load, event, "[OutOfMemory]"))
            return trace_kineto_take_memory(load, event, true);
        return LOAD_OK;
    case 'X':
        /* Python frames first: with_stack=True makes them most slices. */
        if (event_category_is(load, event, "python_function"))
            return trace_kineto_take_frame(load, event);
        if (event_category_is(load, event, "cpu_op"))
            return trace_kineto_take_op(load, event, true);
        if (event_category_is(load, event, "user_annotation"))
            return trace_kineto_take_op(load, event, false);
        if (event_category_is(load, event, TRACE_MEMTOP_HLO_CATEGORY))
            return trace_memtop_take_event(load, event);
        return LOAD_OK;
    case 's':
    case 'f':
        return event_category_is(load, event, "fwdbwd")
                   ? trace_kineto_take_flow(load, event, event_phase(load, event) == 's')
                   : LOAD_OK;
    case 'C':
        return event_category_is(load, event, "Memory") ? trace_timeline_take_counter(load, event)
                                                        : LOAD_OK;
    case 'M':
        return event_name_is(load, event, "process_name")
                   ? trace_timeline_take_process_name(load, event)
                   : LOAD_OK;
    case 'N':
    case 'O':
    case 'D':
        return trace_timeline_take_object(load, event, event_phase(load, event));
    default: return LOAD_OK;
    }
}

/* One element of traceEvents. Objects are events; anything else (and a
 * closing bracket right after a comma) is passed over. */
static enum load_status trace_element(const struct json_stream *stream, void *context,
                                      const struct json_path *path, size_t *offset, size_t depth)
{
    (void)path;
    struct trace_load *load = context;
    if (*offset < stream->size && stream->text[*offset] == ']')
        return LOAD_OK; /* [a, b,] */
    if (*offset >= stream->size || stream->text[*offset] != '{')
        return trace_skip_value(&load->reader, offset, depth);
    struct trace_event event = {.offset = *offset, .sequence = load->events};
    size_t start = *offset;
    enum load_status status =
        trace_read_object(&load->reader, offset, depth, &event_keys, event.member);
    if (status == LOAD_BAD_INPUT && json_stream_value_cut(stream, start, depth)) {
        /* The data ends inside this event: the events before it stand. */
        load->cut_at = start;
        *offset = stream->size;
        return LOAD_OK;
    }
    if (status != LOAD_OK)
        return status;
    if (load->events < UINT32_MAX)
        load->events++;
    event.has_time =
        trace_value_scaled(&load->reader, event.member[TRACE_KEY_TS], 3, &event.time_ns);
    if (event.has_time && (!load->has_earliest || event.time_ns < load->earliest_ns)) {
        load->earliest_ns = event.time_ns;
        load->has_earliest = true;
    }
    return event_take(load, &event);
}

/* ---- the document ---- */

static enum load_status trace_events(const struct json_stream *stream, struct trace_load *load,
                                     size_t *offset, size_t depth, const struct json_path *path)
{
    return json_stream_array(stream, offset, depth, path, trace_element, load);
}

static enum load_status trace_member(const struct json_stream *stream, void *context,
                                     const char *key, const struct json_path *path,
                                     size_t *offset, size_t depth)
{
    struct trace_load *load = context;
    (void)key; /* a C string: a name with a NUL in it would read short */
    struct text name = json_path_key(path);
    bool array = json_stream_at(stream, *offset, '[');
    if (text_equal(name, text_of("traceEvents")) && array)
        return trace_events(stream, load, offset, depth, path);
    size_t start, end;
    enum load_status status = json_stream_value_span(stream, offset, depth, &start, &end);
    if (status == LOAD_OK && text_equal(name, text_of("memtop")))
        status = trace_memtop_take_marker(load, (struct trace_value){start, end});
    return status;
}

static enum load_status trace_read_document(struct trace_load *load, const uint8_t *bytes,
                                            size_t size, struct load_tracker *tracker)
{
    struct json_stream stream;
    json_stream_init(&stream, bytes, size, load->reader.error, tracker);
    stream.tolerate = JSON_STREAM_TOLERATE_UNTERMINATED;
    size_t offset = json_stream_start(&stream);
    enum load_status status;
    if (json_stream_at(&stream, offset, '{')) {
        status = json_stream_object(&stream, &offset, 0, NULL, trace_member, load);
        /* Perfetto calls an object cut short incomplete: say so. */
        size_t last = size;
        while (last > 0 && (unsigned char)bytes[last - 1] <= ' ')
            last--;
        if (status == LOAD_OK && !load->cut_at && (last == 0 || bytes[last - 1] != '}'))
            load->ends_open = true;
        if (status == LOAD_OK && load->cut_at &&
            !trace_load_warn(load, "the trace ends inside an event at offset %zu (still being "
                                   "written or copied?): the %u whole events before it are read",
                             load->cut_at, load->events))
            status = trace_load_no_memory(load);
        else if (status == LOAD_OK && load->ends_open &&
                 !trace_load_warn(load, "the trace ends before its closing bracket (cut short?)"))
            status = trace_load_no_memory(load);
    } else if (json_stream_at(&stream, offset, '[')) {
        status = trace_events(&stream, load, &offset, 0, NULL);
    } else {
        return json_stream_fail(&stream, offset);
    }
    return status == LOAD_OK ? json_stream_finish(&stream, offset) : status;
}

/* The producers' allocators, once every event is in. */
static enum load_status trace_finish(struct trace_load *load)
{
    if (trace_memtop_marked(load))
        return trace_memtop_finish(load);
    if (trace_timeline_memory_events(load) == 0 && trace_kineto_memory_events(load) == 0) {
        if (load->cut_at || load->ends_open)
            load_error_set(load->reader.error,
                           "no memory events before the trace ends at offset %zu, cut short "
                           "(still being written or copied?)",
                           load->cut_at ? load->cut_at : load->reader.size);
        else if (load->skipped_without_time)
            load_error_set(load->reader.error, "no memory event of this trace has a readable ts");
        else
            load_error_set(load->reader.error,
                           "no memory events in this trace (PyTorch: profile_memory=True; "
                           "TensorFlow timeline: show_memory=True)");
        return LOAD_BAD_INPUT;
    }
    enum load_status status = trace_timeline_finish(load);
    if (status == LOAD_OK)
        status = trace_kineto_finish(load);
    if (status == LOAD_OK && load->skipped_without_time &&
        !trace_load_warn(load, "%zu memory events without a readable ts were left out",
                         load->skipped_without_time))
        status = trace_load_no_memory(load);
    if (status == LOAD_OK && load->time_saturated &&
        !trace_load_warn(load, "the trace spans more than int64 picoseconds; later times "
                               "are cut to the largest"))
        status = trace_load_no_memory(load);
    return status;
}

static enum load_status trace_load(const struct load_input *input,
                                   struct profile_builder *builder, struct load_error *error)
{
    struct load_error unused;
    struct trace_load load = {
        .reader = {(const char *)input->bytes, input->size, error ? error : &unused, NULL, 0},
        .builder = builder,
        .strings = profile_builder_strings(builder),
    };
    enum load_status status = trace_read_document(&load, input->bytes, input->size,
                                                  input->tracker);
    if (status == LOAD_OK)
        status = trace_finish(&load);
    trace_kineto_free(&load);
    trace_timeline_free(&load);
    trace_memtop_free(&load);
    free(load.reader.scratch);
    return status;
}

/* ---- the probe: a trace by its shape, never its name ---- */

/* MemoryProfile JSON's members: such an object is no trace. */
static bool memory_profile_key(const char *text, size_t length)
{
    static const char *const keys[] = {
        "memoryProfilePerAllocator", "memory_profile_per_allocator", "memoryIds", "memory_ids",
        "numHosts", "num_hosts", "hloModules", "hlo_modules", "version",
    };
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (strlen(keys[i]) == length && memcmp(keys[i], text, length) == 0)
            return true;
    return false;
}

/* An object whose members include traceEvents before any MemoryProfile
 * member; members are skipped by their outline only. */
static unsigned probe_object(struct trace_reader *reader, size_t at)
{
    for (at++;;) {
        while (at < reader->size && (unsigned char)reader->text[at] <= ' ')
            at++;
        size_t key = at;
        if (at >= reader->size || reader->text[at] != '"' ||
            trace_skip_value(reader, &at, 1) != LOAD_OK)
            return PROBE_NO;
        const char *text = reader->text + key + 1;
        size_t length = at - key - 2;
        if (length == 11 && memcmp(text, "traceEvents", 11) == 0)
            return PROBE_CERTAIN;
        if (memory_profile_key(text, length))
            return PROBE_NO;
        while (at < reader->size && (unsigned char)reader->text[at] <= ' ')
            at++;
        if (at >= reader->size || reader->text[at] != ':')
            return PROBE_NO;
        for (at++; at < reader->size && (unsigned char)reader->text[at] <= ' '; at++)
            ;
        if (trace_skip_value(reader, &at, 1) != LOAD_OK)
            return PROBE_NO;
        while (at < reader->size && (unsigned char)reader->text[at] <= ' ')
            at++;
        if (at >= reader->size || reader->text[at] != ',')
            return PROBE_NO;
        at++;
    }
}

/* An array whose first element is an object with a "ph" member. */
static unsigned probe_array(struct trace_reader *reader, size_t at)
{
    static const char *const names[] = {"ph"};
    static const struct trace_keys keys = {names, 1, NULL, NULL, NULL};
    for (at++; at < reader->size && (unsigned char)reader->text[at] <= ' '; at++)
        ;
    struct trace_value ph;
    if (at >= reader->size || reader->text[at] != '{' ||
        trace_read_object(reader, &at, 1, &keys, &ph) != LOAD_OK)
        return PROBE_NO;
    return trace_value_present(ph) ? PROBE_CERTAIN : PROBE_NO;
}

static unsigned trace_probe(const uint8_t *bytes, size_t size)
{
    struct load_error error;
    struct trace_reader reader = {(const char *)bytes, size, &error, NULL, 0};
    size_t at = size >= 3 && memcmp(bytes, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
    while (at < size && (bytes[at] == ' ' || bytes[at] == '\t' || bytes[at] == '\n' ||
                         bytes[at] == '\r'))
        at++;
    unsigned confidence = PROBE_NO;
    if (at < size && bytes[at] == '{')
        confidence = probe_object(&reader, at);
    else if (at < size && bytes[at] == '[')
        confidence = probe_array(&reader, at);
    free(reader.scratch);
    return confidence;
}

/* PyTorch's tensorboard_trace_handler writes HOST_PID.ID.pt.trace.json.gz,
 * JAX's profiler HOST.trace.json.gz; export_chrome_trace and timeline.py
 * any name, often *.json, which the MemoryProfile row lists already (a
 * directory scan takes a file by name, then reads it by content). */
static const char *const trace_suffixes[] = {
    ".pt.trace.json", ".pt.trace.json.gz", ".trace.json", ".trace.json.gz", NULL,
};

const struct input_format chrome_trace_format = {
    .name = "chrome-trace",
    .description = "Chrome trace JSON (PyTorch profiler, TensorFlow timeline.py, memtop)",
    .probe = trace_probe,
    .load = trace_load,
    .suffixes = trace_suffixes,
    .reads_cut_data = true,
};
