/* load_trace_memtop: memtop's own Chrome-trace export read back exactly
 * (see load_trace.h; the writer is report/export_chrome_trace.c).
 *
 * The export is a plain trace for Perfetto and chrome://tracing, plus what
 * a trace cannot say: a "memtop" member before traceEvents (the version,
 * each allocator's id, pid, timeline kind, unknown fields, summary and
 * rows), and in each snapshot's instant event (category "memtop") every
 * field of the snapshot, times in picoseconds as integers. Once the
 * member is seen, those events rebuild the timelines as they were; the
 * rest of the file (counters, names) is for the viewers. The field names
 * are model/formats/chrome_trace/chrome_trace_fields.h's. A "memtop" member after the events
 * comes too late and is ignored, with a warning. */
#include "config.h"

#include "model/formats/chrome_trace/chrome_trace_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/formats/chrome_trace/chrome_trace_fields.h"
#include "model/util/integer_map.h"

#define FIELDS_MAX 32

/* The keys trace_read_object looks for in a record of one table: its
 * field names, then each string field's name with the hex suffix. */
struct field_keys {
    const struct chrome_trace_fields *table;
    const char *names[2 * FIELDS_MAX];
    uint8_t lengths[2 * FIELDS_MAX];
    char hex_names[FIELDS_MAX][48];
    int hex_key[FIELDS_MAX]; /* field i's hex key, -1 none */
    struct trace_keys keys;
};

enum { KEYS_SNAPSHOT, KEYS_ROW, KEYS_SUMMARY, KEYS_HLO, KEYS_COUNT };

struct trace_memtop {
    bool marked;
    struct integer_map by_pid; /* pid -> allocator index in the builder */
    bool has_hlo_pid;
    int64_t hlo_pid;
    struct field_keys keys[KEYS_COUNT];
};

bool trace_memtop_marked(const struct trace_load *load)
{
    return load->memtop && load->memtop->marked;
}

void trace_memtop_free(struct trace_load *load)
{
    if (!load->memtop)
        return;
    integer_map_free(&load->memtop->by_pid);
    free(load->memtop);
    load->memtop = NULL;
}

enum load_status trace_memtop_finish(struct trace_load *load)
{
    (void)load;
    return LOAD_OK;
}

/* ---- fields by the shared tables ---- */

static void field_keys_build(struct field_keys *keys, const struct chrome_trace_fields *table)
{
    size_t count = table->count < FIELDS_MAX ? table->count : FIELDS_MAX, next = count;
    keys->table = table;
    for (size_t i = 0; i < count; i++) {
        const char *name = table->fields[i].name;
        keys->names[i] = name;
        keys->lengths[i] = (uint8_t)strlen(name);
        keys->hex_key[i] = -1;
        if (table->fields[i].kind != CHROME_TRACE_STRING &&
            table->fields[i].kind != CHROME_TRACE_STACK)
            continue;
        snprintf(keys->hex_names[i], sizeof keys->hex_names[i], "%s" CHROME_TRACE_HEX_SUFFIX,
                 name);
        keys->names[next] = keys->hex_names[i];
        keys->lengths[next] = (uint8_t)strlen(keys->hex_names[i]);
        keys->hex_key[i] = (int)next++;
    }
    keys->keys = (struct trace_keys){keys->names, next, keys->lengths, NULL, NULL};
}

static int hex_value(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* A string field from its hex bytes; STRING_ID_EMPTY when they are no hex. */
static uint32_t intern_hex(struct trace_load *load, struct trace_value value)
{
    const char *text;
    size_t length;
    bool no_memory;
    if (!trace_value_text(&load->reader, value, &text, &length, &no_memory))
        return no_memory ? STRING_ID_NONE : STRING_ID_EMPTY;
    char *bytes = malloc(length / 2 + 1);
    if (!bytes)
        return STRING_ID_NONE;
    size_t count = 0;
    for (size_t i = 0; i + 1 < length; i += 2) {
        int high = hex_value(text[i]), low = hex_value(text[i + 1]);
        if (high < 0 || low < 0)
            break;
        bytes[count++] = (char)(high * 16 + low);
    }
    uint32_t id = string_table_intern(load->strings, bytes, count);
    free(bytes);
    return id;
}

static enum load_status field_read(struct trace_load *load, const struct chrome_trace_field *field,
                                   struct trace_value value, struct trace_value hex, char *target)
{
    struct trace_reader *reader = &load->reader;
    int64_t number;
    switch (field->kind) {
    case CHROME_TRACE_INT64: trace_value_integer(reader, value, (int64_t *)(void *)target); break;
    case CHROME_TRACE_UINT64:
        trace_value_unsigned(reader, value, (uint64_t *)(void *)target);
        break;
    case CHROME_TRACE_INT:
        if (trace_value_integer(reader, value, &number) && number >= INT32_MIN &&
            number <= INT32_MAX)
            *(int *)(void *)target = (int)number;
        break;
    case CHROME_TRACE_DOUBLE: trace_value_double(reader, value, (double *)(void *)target); break;
    case CHROME_TRACE_SIZE: {
        uint64_t size;
        if (trace_value_unsigned(reader, value, &size) && size <= SIZE_MAX)
            *(size_t *)(void *)target = (size_t)size;
        break;
    }
    case CHROME_TRACE_BOOL:
        *(bool *)(void *)target = value.end - value.start == 4 &&
                                  memcmp(reader->text + value.start, "true", 4) == 0;
        break;
    case CHROME_TRACE_STRING:
    case CHROME_TRACE_STACK: { /* a stack read back is its text */
        uint32_t id = trace_value_present(hex) ? intern_hex(load, hex)
                                               : trace_load_intern(load, value);
        if (id == STRING_ID_NONE)
            return trace_load_no_memory(load);
        *(uint32_t *)(void *)target = id;
        break;
    }
    }
    return LOAD_OK;
}

/* The members of `object` named by the table onto `target`; a member
 * that is absent or of another type leaves its field as it was. */
static enum load_status fields_read(struct trace_load *load, struct trace_value object,
                                    size_t depth, int which, void *target)
{
    const struct field_keys *keys = &load->memtop->keys[which];
    struct trace_value values[2 * FIELDS_MAX];
    if (!trace_value_is_object(&load->reader, object))
        return LOAD_OK;
    size_t at = object.start;
    enum load_status status = trace_read_object(&load->reader, &at, depth, &keys->keys, values);
    size_t count = keys->table->count < FIELDS_MAX ? keys->table->count : FIELDS_MAX;
    for (size_t i = 0; status == LOAD_OK && i < count; i++) {
        struct trace_value hex = keys->hex_key[i] >= 0 ? values[keys->hex_key[i]]
                                                       : (struct trace_value){0, 0};
        if (trace_value_present(values[i]) || trace_value_present(hex))
            status = field_read(load, &keys->table->fields[i], values[i], hex,
                                (char *)target + keys->table->fields[i].offset);
    }
    return status;
}

/* ---- the "memtop" member ---- */

enum allocator_key { KEY_ID, KEY_PID, KEY_TIMELINE, KEY_UNKNOWN, KEY_SUMMARY, KEY_ROWS,
                     KEY_ROWS_KIND, KEY_LIVE_ALLOCATIONS, KEY_COUNT };

struct marker_allocator {
    struct trace_load *load;
    size_t index;
};

static enum load_status marker_row(void *context, struct trace_value element)
{
    struct marker_allocator *allocator = context;
    struct trace_load *load = allocator->load;
    struct allocation_row row = {.origin = ROW_FROM_SNAPSHOT};
    static const char *const names[] = {"origin"};
    static const struct trace_keys keys = {names, 1, NULL, NULL, NULL};
    struct trace_value origin;
    size_t at = element.start;
    if (!trace_value_is_object(&load->reader, element))
        return LOAD_OK;
    enum load_status status = trace_read_object(&load->reader, &at, 4, &keys, &origin);
    if (status == LOAD_OK)
        status = fields_read(load, element, 4, KEYS_ROW, &row);
    if (status != LOAD_OK)
        return status;
    const char *text;
    size_t length;
    int value = trace_value_text(&load->reader, origin, &text, &length, NULL)
                    ? chrome_trace_origin_value(text, length)
                    : -1;
    row.origin = value >= 0 ? (enum row_origin)value : ROW_UNRESOLVED;
    if (row.origin != ROW_FROM_SNAPSHOT)
        row.has_time = false;
    return profile_builder_add_row(load->builder, allocator->index, &row)
               ? LOAD_OK
               : trace_load_no_memory(load);
}

static enum load_status marker_unknown_field(void *context, struct trace_value element)
{
    struct marker_allocator *allocator = context;
    struct trace_load *load = allocator->load;
    unsigned *fields = &load->builder->profile->allocators[allocator->index].unknown_fields;
    const char *name;
    for (int bit = 0; (name = chrome_trace_unknown_field_name(bit)) != NULL; bit++)
        if (trace_value_equals(&load->reader, element, name))
            *fields |= 1u << bit;
    return LOAD_OK;
}

static enum load_status marker_allocator(void *context, struct trace_value element)
{
    struct trace_load *load = context;
    static const char *const names[KEY_COUNT] = {
        [KEY_ID] = "id",           [KEY_PID] = "pid",         [KEY_TIMELINE] = "timeline",
        [KEY_UNKNOWN] = "unknown", [KEY_SUMMARY] = "summary", [KEY_ROWS] = "rows",
        [KEY_ROWS_KIND] = "rows_kind", [KEY_LIVE_ALLOCATIONS] = "live_allocations",
    };
    static const struct trace_keys keys = {names, KEY_COUNT, NULL, NULL, NULL};
    struct trace_value values[KEY_COUNT];
    size_t at = element.start;
    int64_t pid;
    if (!trace_value_is_object(&load->reader, element))
        return LOAD_OK;
    enum load_status status = trace_read_object(&load->reader, &at, 3, &keys, values);
    if (status != LOAD_OK || !trace_value_integer(&load->reader, values[KEY_PID], &pid))
        return status;
    const char *id;
    size_t length;
    bool no_memory = false;
    struct marker_allocator allocator = {load, 0};
    if (!trace_value_text(&load->reader, values[KEY_ID], &id, &length, &no_memory))
        id = "", length = 0;
    if (no_memory || !trace_new_allocator(load, id, length, &allocator.index) ||
        !integer_map_put(&load->memtop->by_pid, (uint64_t)pid, (uint32_t)allocator.index))
        return trace_load_no_memory(load);
    const char *kind;
    size_t kind_length;
    int timeline = trace_value_text(&load->reader, values[KEY_TIMELINE], &kind, &kind_length, NULL)
                       ? chrome_trace_timeline_value(kind, kind_length)
                       : -1;
    if (timeline >= 0)
        profile_builder_set_timeline_kind(load->builder, allocator.index,
                                          (enum timeline_kind)timeline);
    struct allocator_summary summary = {0};
    status = fields_read(load, values[KEY_SUMMARY], 3, KEYS_SUMMARY, &summary);
    if (status == LOAD_OK)
        profile_builder_set_summary(load->builder, allocator.index, &summary);
    if (status == LOAD_OK)
        status = trace_for_each_element(&load->reader, values[KEY_UNKNOWN], 3,
                                        marker_unknown_field, &allocator);
    if (status == LOAD_OK)
        status = trace_for_each_element(&load->reader, values[KEY_ROWS], 3, marker_row,
                                        &allocator);
    /* Which table the rows are (issue 22): "xprof" rows become the live
     * set again at finish, from the same timeline; "live" ones are it. */
    int64_t live = 0;
    if (trace_value_equals(&load->reader, values[KEY_ROWS_KIND], "xprof"))
        profile_builder_set_rows_kind(load->builder, allocator.index, ALLOCATOR_ROWS_XPROF);
    else if (trace_value_equals(&load->reader, values[KEY_ROWS_KIND], "live") &&
             trace_value_integer(&load->reader, values[KEY_LIVE_ALLOCATIONS], &live) && live >= 0)
        profile_builder_set_live_rows(load->builder, allocator.index, (size_t)live);
    return status;
}

enum marker_key { MARKER_VERSION, MARKER_ALLOCATORS, MARKER_PROFILE_VERSION, MARKER_HOSTS,
                  MARKER_HLO_PID, MARKER_COUNT };

enum load_status trace_memtop_take_marker(struct trace_load *load, struct trace_value marker)
{
    if (!trace_value_is_object(&load->reader, marker) || trace_memtop_marked(load))
        return LOAD_OK;
    if (load->events)
        return trace_load_warn(load, "the \"memtop\" member comes after the events: read as a "
                                     "plain trace")
                   ? LOAD_OK
                   : trace_load_no_memory(load);
    static const char *const names[MARKER_COUNT] = {
        [MARKER_VERSION] = "version", [MARKER_ALLOCATORS] = "allocators",
        [MARKER_PROFILE_VERSION] = "profile_version", [MARKER_HOSTS] = "hosts",
        [MARKER_HLO_PID] = "hlo_pid",
    };
    static const struct trace_keys keys = {names, MARKER_COUNT, NULL, NULL, NULL};
    struct trace_value values[MARKER_COUNT];
    size_t at = marker.start;
    enum load_status status = trace_read_object(&load->reader, &at, 1, &keys, values);
    int64_t version = 0, profile_version = 0, hosts = 0;
    if (status != LOAD_OK)
        return status;
    if (!trace_value_integer(&load->reader, values[MARKER_VERSION], &version) ||
        version != CHROME_TRACE_MEMTOP_VERSION) {
        load_error_at(load->reader.error, marker.start,
                      "a memtop export of another version (this memtop reads version %d)",
                      CHROME_TRACE_MEMTOP_VERSION);
        return LOAD_BAD_INPUT;
    }
    load->memtop = calloc(1, sizeof *load->memtop);
    if (!load->memtop)
        return trace_load_no_memory(load);
    load->memtop->marked = true;
    field_keys_build(&load->memtop->keys[KEYS_SNAPSHOT], &chrome_trace_snapshot_fields);
    field_keys_build(&load->memtop->keys[KEYS_ROW], &chrome_trace_row_fields);
    field_keys_build(&load->memtop->keys[KEYS_SUMMARY], &chrome_trace_summary_fields);
    field_keys_build(&load->memtop->keys[KEYS_HLO], &chrome_trace_hlo_fields);
    load->memtop->has_hlo_pid =
        trace_value_integer(&load->reader, values[MARKER_HLO_PID], &load->memtop->hlo_pid);
    trace_value_integer(&load->reader, values[MARKER_HOSTS], &hosts);
    if (trace_value_integer(&load->reader, values[MARKER_PROFILE_VERSION], &profile_version))
        profile_builder_set_version(load->builder, (int32_t)profile_version, (int32_t)hosts);
    return trace_for_each_element(&load->reader, values[MARKER_ALLOCATORS], 1, marker_allocator,
                                  load);
}

/* ---- the events ---- */

enum load_status trace_memtop_take_event(struct trace_load *load, const struct trace_event *event)
{
    if (!trace_memtop_marked(load))
        return LOAD_OK;
    int64_t pid;
    if (!trace_value_integer(&load->reader, event->member[TRACE_KEY_PID], &pid))
        return LOAD_OK;
    struct trace_value args = event->member[TRACE_KEY_ARGS];
    if (trace_value_equals(&load->reader, event->member[TRACE_KEY_CAT],
                           TRACE_MEMTOP_HLO_CATEGORY)) {
        if (load->memtop->has_hlo_pid && pid != load->memtop->hlo_pid)
            return LOAD_OK;
        struct hlo_module module = {.name = trace_load_intern(load, event->member[TRACE_KEY_NAME])};
        enum load_status status = fields_read(load, args, 2, KEYS_HLO, &module);
        if (status != LOAD_OK || module.name == STRING_ID_NONE)
            return status != LOAD_OK ? status : trace_load_no_memory(load);
        return profile_builder_add_hlo_module(load->builder, &module) ? LOAD_OK
                                                                      : trace_load_no_memory(load);
    }
    const uint32_t *allocator = integer_map_find(&load->memtop->by_pid, (uint64_t)pid);
    if (!allocator)
        return LOAD_OK;
    struct snapshot snapshot = {.step_id = -1};
    enum load_status status = fields_read(load, args, 2, KEYS_SNAPSHOT, &snapshot);
    if (status != LOAD_OK)
        return status;
    struct snapshot_columns *timeline = profile_builder_timeline(load->builder, *allocator);
    if (snapshot.context && !snapshot_columns_enable_context(timeline))
        return trace_load_no_memory(load);
    return profile_builder_append_snapshot(load->builder, *allocator, &snapshot)
               ? LOAD_OK
               : trace_load_no_memory(load);
}
