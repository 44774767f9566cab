/* The exporters end to end: every view written, read back with a strict
 * CSV reader and compared field by field with the model; the table's
 * filter and order; timeline windows; atomic files (refusal, replacing,
 * failures that leave nothing behind); the helpers the command line uses. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/load.h"
#include "model/profile.h"
#include "report/csv_writer.h"
#include "report/export.h"
#include "tests/test_support.h"
#include "model/allocation_table.h"

/* ---- a strict CSV reader: RFC 4180 with LF record ends ---- */

struct csv_record {
    char **fields;
    size_t count;
};

struct csv_document {
    struct csv_record *records;
    size_t count;
};

struct text_buffer {
    char *bytes;
    size_t length, capacity;
};

static void buffer_add(struct text_buffer *buffer, char byte)
{
    if (buffer->length + 1 >= buffer->capacity) {
        buffer->capacity = buffer->capacity ? buffer->capacity * 2 : 32;
        buffer->bytes = realloc(buffer->bytes, buffer->capacity);
        assert_non_null(buffer->bytes);
    }
    buffer->bytes[buffer->length++] = byte;
    buffer->bytes[buffer->length] = '\0';
}

/* Undoes the writer's formula guard: ^'+[=+-@\t\r] loses one apostrophe. */
static void field_unguard(char *field)
{
    size_t apostrophes = strspn(field, "'");
    if (apostrophes > 0 && field[apostrophes] && strchr("=+-@\t\r", field[apostrophes]))
        memmove(field, field + 1, strlen(field));
}

/* One field starting at text[*position]; leaves *position on the ',' or
 * '\n' after it. Fails the test on anything the writer must not produce. */
static char *parse_field(const char *text, size_t length, size_t *position)
{
    struct text_buffer field = {0};
    buffer_add(&field, 'x');
    field.length = 0;
    field.bytes[0] = '\0';
    size_t at = *position;
    if (at < length && text[at] == '"') {
        for (at++;; at++) {
            assert_true(at < length); /* an unterminated quote */
            if (text[at] == '"') {
                if (at + 1 < length && text[at + 1] == '"') {
                    buffer_add(&field, '"');
                    at++;
                    continue;
                }
                at++;
                break;
            }
            buffer_add(&field, text[at]);
        }
    } else {
        for (; at < length && text[at] != ',' && text[at] != '\n'; at++) {
            assert_true(text[at] != '"' && text[at] != '\r');
            buffer_add(&field, text[at]);
        }
    }
    assert_true(at < length); /* every record ends with LF */
    assert_true(text[at] == ',' || text[at] == '\n');
    *position = at;
    field_unguard(field.bytes);
    return field.bytes;
}

static void csv_parse(const char *text, size_t length, struct csv_document *document)
{
    *document = (struct csv_document){0};
    size_t position = 0;
    while (position < length) {
        struct csv_record record = {0};
        for (;;) {
            char *field = parse_field(text, length, &position);
            record.fields = realloc(record.fields, (record.count + 1) * sizeof *record.fields);
            assert_non_null(record.fields);
            record.fields[record.count++] = field;
            if (text[position++] == '\n')
                break;
        }
        document->records =
            realloc(document->records, (document->count + 1) * sizeof *document->records);
        assert_non_null(document->records);
        document->records[document->count++] = record;
    }
}

static void csv_document_free(struct csv_document *document)
{
    for (size_t i = 0; i < document->count; i++) {
        for (size_t j = 0; j < document->records[i].count; j++)
            free(document->records[i].fields[j]);
        free(document->records[i].fields);
    }
    free(document->records);
}

/* ---- exporting into memory ---- */

struct exported {
    char *bytes;
    size_t size;
    size_t rows;
    struct csv_document csv;
};

static void export_into(struct exported *out, const struct export_request *request)
{
    FILE *stream = open_memstream(&out->bytes, &out->size);
    assert_non_null(stream);
    char error[EXPORT_ERROR_SIZE] = "";
    enum export_status status = export_write(stream, request, &out->rows, error, sizeof error);
    if (status != EXPORT_OK)
        fail_msg("export failed: %s", error);
    assert_int_equal(fclose(stream), 0);
    csv_parse(out->bytes, out->size, &out->csv);
    assert_int_equal(out->csv.count, out->rows + 1);
    /* Every record has as many fields as the header. */
    for (size_t i = 1; i < out->csv.count; i++)
        assert_int_equal(out->csv.records[i].count, out->csv.records[0].count);
}

static void exported_free(struct exported *exported)
{
    csv_document_free(&exported->csv);
    free(exported->bytes);
}

static void assert_header(const struct exported *exported, const char *expected)
{
    const char *line_end = memchr(exported->bytes, '\n', exported->size);
    assert_non_null(line_end);
    assert_int_equal((size_t)(line_end - exported->bytes), strlen(expected));
    assert_memory_equal(exported->bytes, expected, strlen(expected));
}

static const char *field(const struct exported *exported, size_t row, size_t column)
{
    assert_true(row + 1 < exported->csv.count);
    assert_true(column < exported->csv.records[row + 1].count);
    return exported->csv.records[row + 1].fields[column];
}

static void assert_int_field(const char *text, int64_t expected)
{
    char expected_text[32];
    snprintf(expected_text, sizeof expected_text, "%" PRId64, expected);
    assert_string_equal(text, expected_text);
}

static void assert_unsigned_field(const char *text, uint64_t expected)
{
    char expected_text[32];
    snprintf(expected_text, sizeof expected_text, "%" PRIu64, expected);
    assert_string_equal(text, expected_text);
}

/* Doubles come back bit for bit (NaN as any NaN). */
static void assert_double_field(const char *text, double expected)
{
    char *end;
    double value = strtod(text, &end);
    assert_true(*text && *end == '\0');
    if (isnan(expected))
        assert_true(isnan(value));
    else
        assert_memory_equal(&value, &expected, sizeof value);
}

/* ---- the profile under test: every awkward value in one place ---- */

static uint32_t intern(struct test_draft *profile, const char *text)
{
    return test_draft_intern(profile, text);
}

static struct xprof_allocator *add_allocator(struct test_draft *profile, const char *id)
{
    assert_true(xprof_draft_add_memory_id(&profile->draft, id, strlen(id)));
    struct xprof_allocator *allocator = xprof_draft_allocator(&profile->draft, id, strlen(id));
    assert_non_null(allocator);
    return allocator;
}

static void append(struct snapshot_columns *columns, const struct snapshot *snapshot)
{
    assert_true(snapshot_columns_append(columns, snapshot));
}

static void add_active(struct xprof_allocator *allocator, int64_t snapshot_index,
                       int64_t special_index, int64_t occurrences)
{
    struct active_allocation active = {snapshot_index, special_index, occurrences};
    assert_true(xprof_allocator_add_active(allocator, &active));
}

static const char *const awkward_texts[] = {
    "=SUM(A1:A9)", "a,b",   "say \"hi\"", "line\nbreak", "\rcarriage", "-negative",
    "@at",         "\ttab", "caf\xc3\xa9", "",           "'=quoted",  "bad \xff utf-8",
};
#define AWKWARD_COUNT (sizeof awkward_texts / sizeof *awkward_texts)

static const int64_t timeline_times[] = {
    INT64_MAX, -5, 0, 1685890000, INT64_MIN, 1685890000, 2000000000,
};
#define TIMELINE_COUNT (sizeof timeline_times / sizeof *timeline_times)

static struct snapshot awkward_snapshot(struct test_draft *profile, size_t i)
{
    static const double fragmentations[] = {0.1, NAN, INFINITY, -0.0, 0.000401934, -INFINITY,
                                            1.0 / 3.0};
    static const int activities[] = {1, 2, 3, 4, 0, 99, -3};
    struct snapshot snapshot = {
        .time_ps = timeline_times[i],
        .stack_bytes = i == 1 ? INT64_MIN : (int64_t)i * 7,
        .heap_bytes = i == 2 ? INT64_MAX : (int64_t)i * 1000,
        .free_bytes = -(int64_t)i,
        .fragmentation = fragmentations[i % 7],
        .peak_bytes_in_use = INT64_MAX - (int64_t)i,
        .activity = activities[i % 7],
        .requested_bytes = (int64_t)i * 3 - 10,
        .allocation_bytes = i == 3 ? INT64_MIN : (int64_t)i * 4096,
        .address = i == 0 ? UINT64_MAX : UINT64_MAX / (i + 2),
        .step_id = i == 4 ? INT64_MIN : -1 + (int64_t)i,
        .op_name = intern(profile, awkward_texts[i % AWKWARD_COUNT]),
        .region_type = intern(profile, awkward_texts[(i + 3) % AWKWARD_COUNT]),
        .data_type = intern(profile, awkward_texts[(i + 6) % AWKWARD_COUNT]),
        .tensor_shape = intern(profile, i % 2 ? "[3,3,512,512]"
                                              : awkward_texts[(i + 9) % AWKWARD_COUNT]),
    };
    return snapshot;
}

/* GPU_0_bfc: version 0 (the whole timeline, unsorted in the file), rows
 * of every origin; "a,b" and "=evil": empty allocators with a summary;
 * HLO modules, one with a duration past int64. */
static struct profile *awkward_profile(void)
{
    struct test_draft *profile = test_draft_new();
    struct xprof_allocator *gpu = add_allocator(profile, "GPU_0_bfc");
    for (size_t i = 0; i < TIMELINE_COUNT; i++) {
        struct snapshot snapshot = awkward_snapshot(profile, i);
        append(&gpu->snapshots, &snapshot);
    }
    struct snapshot special = awkward_snapshot(profile, 2);
    special.op_name = intern(profile, "unused preallocated device memory");
    append(&gpu->specials, &special);
    add_active(gpu, 3, -1, 2);
    add_active(gpu, -1, 0, 1);
    add_active(gpu, 0, -1, INT64_MAX);
    add_active(gpu, 100, -1, 1); /* unresolved */
    add_active(gpu, 7, 5, INT64_MIN); /* past the end: unresolved */
    struct xprof_allocator *comma = add_allocator(profile, "a,b");
    struct memory_stats peak = {.stack_bytes = INT64_MIN, .heap_bytes = 5, .free_bytes = INT64_MAX,
                                .fragmentation = NAN, .peak_bytes_in_use = 1};
    xprof_allocator_set_summary(comma, INT64_MAX, INT64_MIN, &peak, INT64_MIN);
    add_allocator(profile, "=evil");
    struct hlo_module modules[] = {
        {.id = 7, .name = intern(profile, "jit_train_step"),
         .plane_name = intern(profile, "/device:TPU:0"), .start_time_ps = 1000,
         .end_time_ps = 250000},
        {.id = INT64_MIN, .name = intern(profile, "=cmd|' /C calc'!A0"),
         .plane_name = intern(profile, "a,\"b\""), .start_time_ps = INT64_MIN,
         .end_time_ps = INT64_MAX},
        {.id = INT64_MAX, .name = intern(profile, ""), .plane_name = intern(profile, "\n"),
         .start_time_ps = 5, .end_time_ps = -5},
    };
    for (size_t i = 0; i < sizeof modules / sizeof *modules; i++)
        assert_true(xprof_draft_add_hlo_module(&profile->draft, &modules[i]));
    struct profile *finished = test_draft_finish(profile);
    assert_int_equal(finished->allocator_count, 3);
    return finished;
}

static int setup_profile(void **state)
{
    *state = awkward_profile();
    return 0;
}

static int teardown_profile(void **state)
{
    profile_free(*state);
    return 0;
}

/* ---- the views ---- */

#define ALLOCATIONS_HEADER                                                                   \
    "op_name,allocation_bytes,requested_bytes,occurrences,region_type,data_type,tensor_shape," \
    "step_id,time_ps,address,activity,origin,snapshot_index,special_index,kind,location,stack," \
    "total_bytes,share"
#define TIMELINE_HEADER                                                                      \
    "time_ps,time_ms,heap_bytes,stack_bytes,free_bytes,fragmentation,peak_bytes_in_use,"      \
    "activity,requested_bytes,allocation_bytes,address,op_name,step_id,region_type,data_type," \
    "tensor_shape"
#define SUMMARY_HEADER                                                                       \
    "allocator,snapshots,allocations,deallocations,capacity_bytes,lifetime_peak_bytes,"       \
    "peak_bytes,peak_time_ps,peak_heap_bytes,peak_stack_bytes,peak_free_bytes,"               \
    "peak_fragmentation,active_allocations,summary_computed,timeline_sampled"
#define HLO_HEADER "id,name,plane_name,start_time_ps,end_time_ps,duration_ps"

static void assert_allocation_row(const struct exported *exported, size_t position,
                                  const struct profile *profile, const struct allocation_row *row)
{
    static const char *const origins[] = {"snapshot", "special", "unresolved", "entry"};
    assert_string_equal(field(exported, position, 0), profile_text(profile, row->op_name));
    assert_int_field(field(exported, position, 1), row->allocation_bytes);
    assert_int_field(field(exported, position, 2), row->requested_bytes);
    assert_int_field(field(exported, position, 3), row->occurrences);
    assert_string_equal(field(exported, position, 4), profile_text(profile, row->region_type));
    assert_string_equal(field(exported, position, 5), profile_text(profile, row->data_type));
    assert_string_equal(field(exported, position, 6), profile_text(profile, row->tensor_shape));
    assert_int_field(field(exported, position, 7), row->step_id);
    if (row->has_time)
        assert_int_field(field(exported, position, 8), row->time_ps);
    else
        assert_string_equal(field(exported, position, 8), "");
    assert_unsigned_field(field(exported, position, 9), row->address);
    assert_string_equal(field(exported, position, 10), memory_activity_name(row->activity));
    assert_string_equal(field(exported, position, 11), origins[row->origin]);
    assert_int_field(field(exported, position, 12), row->snapshot_index);
    assert_int_field(field(exported, position, 13), row->special_index);
    assert_string_equal(field(exported, position, 14), profile_text(profile, row->kind));
    assert_string_equal(field(exported, position, 15), profile_text(profile, row->location));
    assert_string_equal(field(exported, position, 16), profile_text(profile, row->stack));
    assert_int_field(field(exported, position, 17), allocation_row_bytes(row));
}

static void test_allocations_in_file_order(void **state)
{
    const struct profile *profile = *state;
    const struct allocator *gpu = &profile->allocators[0];
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_ALLOCATIONS, profile, gpu);
    struct exported exported = {0};
    export_into(&exported, &request);
    assert_header(&exported, ALLOCATIONS_HEADER);
    assert_int_equal(exported.rows, gpu->row_count);
    assert_int_equal(exported.rows, 5);
    for (size_t i = 0; i < gpu->row_count; i++)
        assert_allocation_row(&exported, i, profile, &gpu->rows[i]);
    /* The origins the fixture made, in the file's order. */
    assert_string_equal(field(&exported, 0, 11), "snapshot");
    assert_string_equal(field(&exported, 1, 11), "special");
    assert_string_equal(field(&exported, 1, 8), "");
    assert_string_equal(field(&exported, 3, 11), "unresolved");
    assert_string_equal(field(&exported, 4, 11), "unresolved");
    assert_string_equal(field(&exported, 0, 1), "-9223372036854775808");
    assert_string_equal(field(&exported, 4, 3), "-9223372036854775808");
    /* The share of the allocator's peak, a fraction as fragmentation is. */
    for (size_t i = 0; i < gpu->row_count; i++) {
        const char *share = field(&exported, i, 18);
        if (gpu->summary.peak_bytes <= 0) {
            assert_string_equal(share, "");
            continue;
        }
        double expected = (double)allocation_row_bytes(&gpu->rows[i]) /
                          (double)gpu->summary.peak_bytes;
        assert_true(strtod(share, NULL) == expected);
    }
    exported_free(&exported);
}

static void test_timeline_every_field(void **state)
{
    const struct profile *profile = *state;
    const struct allocator *gpu = &profile->allocators[0];
    const struct snapshot_columns *timeline = &gpu->timeline;
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_TIMELINE, profile, gpu);
    struct exported exported = {0};
    export_into(&exported, &request);
    assert_header(&exported, TIMELINE_HEADER);
    assert_int_equal(exported.rows, TIMELINE_COUNT);
    for (size_t i = 0; i < timeline->count; i++) {
        assert_int_field(field(&exported, i, 0), timeline->time_ps[i]);
        int64_t time_ps;
        assert_true(export_milliseconds_parse(field(&exported, i, 1), &time_ps));
        assert_int_equal(time_ps, timeline->time_ps[i]);
        assert_int_field(field(&exported, i, 2), timeline->heap_bytes[i]);
        assert_int_field(field(&exported, i, 3), timeline->stack_bytes[i]);
        assert_int_field(field(&exported, i, 4), timeline->free_bytes[i]);
        assert_double_field(field(&exported, i, 5), timeline->fragmentation[i]);
        assert_int_field(field(&exported, i, 6), timeline->peak_bytes_in_use[i]);
        assert_string_equal(field(&exported, i, 7), memory_activity_name(timeline->activity[i]));
        assert_int_field(field(&exported, i, 8), timeline->requested_bytes[i]);
        assert_int_field(field(&exported, i, 9), timeline->allocation_bytes[i]);
        assert_unsigned_field(field(&exported, i, 10), timeline->address[i]);
        assert_string_equal(field(&exported, i, 11), profile_text(profile, timeline->op_name[i]));
        assert_int_field(field(&exported, i, 12), timeline->step_id[i]);
        assert_string_equal(field(&exported, i, 13),
                            profile_text(profile, timeline->region_type[i]));
        assert_string_equal(field(&exported, i, 14), profile_text(profile, timeline->data_type[i]));
        assert_string_equal(field(&exported, i, 15),
                            profile_text(profile, timeline->tensor_shape[i]));
    }
    /* Time order, and the exact spellings of the extremes. */
    assert_string_equal(field(&exported, 0, 0), "-9223372036854775808");
    assert_string_equal(field(&exported, 0, 1), "-9223372036.854775808");
    assert_string_equal(field(&exported, 3, 1), "1.68589");
    assert_string_equal(field(&exported, 2, 1), "0");
    assert_string_equal(field(&exported, 1, 1), "-0.000000005");
    assert_string_equal(field(&exported, 6, 1), "9223372036.854775807");
    assert_string_equal(field(&exported, 6, 10), "18446744073709551615");
    exported_free(&exported);
}

/* Rows of a timeline window: count, first and last time. */
static void assert_window(const struct profile *profile, int64_t from_ps, int64_t to_ps,
                          size_t rows, const char *first, const char *last)
{
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_TIMELINE, profile, &profile->allocators[0]);
    request.from_ps = from_ps;
    request.to_ps = to_ps;
    struct exported exported = {0};
    export_into(&exported, &request);
    assert_header(&exported, TIMELINE_HEADER);
    assert_int_equal(exported.rows, rows);
    if (rows) {
        assert_string_equal(field(&exported, 0, 0), first);
        assert_string_equal(field(&exported, rows - 1, 0), last);
    }
    exported_free(&exported);
}

static void test_timeline_window_is_inclusive(void **state)
{
    const struct profile *profile = *state;
    /* Times: MIN, -5, 0, 1685890000 (twice), 2000000000, MAX. */
    assert_window(profile, INT64_MIN, INT64_MAX, 7, "-9223372036854775808", "9223372036854775807");
    assert_window(profile, 0, 1685890000, 3, "0", "1685890000");
    assert_window(profile, 1685890000, 1685890000, 2, "1685890000", "1685890000");
    assert_window(profile, 1, 1685889999, 0, NULL, NULL);
    assert_window(profile, -5, -5, 1, "-5", "-5");
    assert_window(profile, -4, 0, 1, "0", "0");
    assert_window(profile, 2000000001, INT64_MAX, 1, "9223372036854775807", "9223372036854775807");
    assert_window(profile, INT64_MIN, INT64_MIN, 1, "-9223372036854775808", "-9223372036854775808");
    assert_window(profile, 10, 5, 0, NULL, NULL);
    assert_window(profile, INT64_MAX, INT64_MIN, 0, NULL, NULL);
}

static void assert_summary_row(const struct exported *exported, size_t position,
                               const struct profile *profile, const struct allocator *allocator)
{
    const struct allocator_summary *summary = &allocator->summary;
    assert_string_equal(field(exported, position, 0), profile_text(profile, allocator->id));
    assert_unsigned_field(field(exported, position, 1), allocator->timeline.count);
    assert_unsigned_field(field(exported, position, 2), summary->allocations);
    assert_unsigned_field(field(exported, position, 3), summary->deallocations);
    assert_int_field(field(exported, position, 4), summary->capacity_bytes);
    assert_int_field(field(exported, position, 5), summary->lifetime_peak_bytes);
    assert_int_field(field(exported, position, 6), summary->peak_bytes);
    assert_int_field(field(exported, position, 7), summary->peak_time_ps);
    assert_int_field(field(exported, position, 8), summary->peak.heap_bytes);
    assert_int_field(field(exported, position, 9), summary->peak.stack_bytes);
    assert_int_field(field(exported, position, 10), summary->peak.free_bytes);
    assert_double_field(field(exported, position, 11), summary->peak.fragmentation);
    assert_unsigned_field(field(exported, position, 12), allocator->row_count);
    assert_string_equal(field(exported, position, 13), summary->derived ? "true" : "false");
    assert_string_equal(field(exported, position, 14),
                        allocator->timeline_sampled ? "true" : "false");
}

static void test_summary_one_row_per_allocator(void **state)
{
    const struct profile *profile = *state;
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_SUMMARY, profile, NULL);
    struct exported exported = {0};
    export_into(&exported, &request);
    assert_header(&exported, SUMMARY_HEADER);
    assert_int_equal(exported.rows, profile->allocator_count);
    for (size_t i = 0; i < profile->allocator_count; i++)
        assert_summary_row(&exported, i, profile, &profile->allocators[i]);
    assert_string_equal(field(&exported, 1, 0), "a,b");
    assert_string_equal(field(&exported, 1, 4), "9223372036854775807");
    assert_string_equal(field(&exported, 1, 11), "nan");
    assert_string_equal(field(&exported, 2, 0), "=evil");
    /* The raw bytes: quoted and guarded. */
    assert_non_null(strstr(exported.bytes, "\n\"a,b\",0,"));
    assert_non_null(strstr(exported.bytes, "\n'=evil,0,"));
    exported_free(&exported);

    export_request_init(&request, EXPORT_VIEW_SUMMARY, profile, &profile->allocators[1]);
    export_into(&exported, &request);
    assert_int_equal(exported.rows, 1);
    assert_summary_row(&exported, 0, profile, &profile->allocators[1]);
    exported_free(&exported);
}

static void test_hlo_modules(void **state)
{
    const struct profile *profile = *state;
    /* The allocator does not matter to this view. */
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_HLO, profile, &profile->allocators[2]);
    struct exported exported = {0};
    export_into(&exported, &request);
    assert_header(&exported, HLO_HEADER);
    assert_int_equal(exported.rows, profile->hlo_module_count);
    for (size_t i = 0; i < profile->hlo_module_count; i++) {
        const struct hlo_module *module = &profile->hlo_modules[i];
        assert_int_field(field(&exported, i, 0), module->id);
        assert_string_equal(field(&exported, i, 1), profile_text(profile, module->name));
        assert_string_equal(field(&exported, i, 2), profile_text(profile, module->plane_name));
        assert_int_field(field(&exported, i, 3), module->start_time_ps);
        assert_int_field(field(&exported, i, 4), module->end_time_ps);
    }
    assert_string_equal(field(&exported, 0, 5), "249000");
    assert_string_equal(field(&exported, 1, 5), ""); /* MAX - MIN overflows */
    assert_string_equal(field(&exported, 2, 5), "-10");
    assert_non_null(
        strstr(exported.bytes, "\n-9223372036854775808,'=cmd|' /C calc'!A0,\"a,\"\"b\"\"\","));
    exported_free(&exported);
}

static void test_empty_allocator_gives_a_header(void **state)
{
    const struct profile *profile = *state;
    for (int view = 0; view < EXPORT_VIEW_COUNT; view++) {
        /* compare takes two profiles: tests/test_compare_report.c */
        if (view == EXPORT_VIEW_SUMMARY || view == EXPORT_VIEW_HLO ||
            view == EXPORT_VIEW_COMPARE || !export_view_is_csv((enum export_view)view))
            continue;
        struct export_request request;
        export_request_init(&request, (enum export_view)view, profile, &profile->allocators[2]);
        struct exported exported = {0};
        export_into(&exported, &request);
        assert_int_equal(exported.rows, 0);
        assert_int_equal(exported.csv.count, 1);
        exported_free(&exported);
    }
}

static void test_bad_requests_fail_cleanly(void **state)
{
    const struct profile *profile = *state;
    char error[EXPORT_ERROR_SIZE];
    size_t rows = 99;
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_TIMELINE, profile, NULL);
    FILE *sink = fopen("/dev/null", "w");
    assert_non_null(sink);
    assert_int_equal(export_write(sink, &request, &rows, error, sizeof error), EXPORT_FAILED);
    assert_string_equal(error, "the profile has no allocator to export");
    assert_int_equal(rows, 0);
    request.view = EXPORT_VIEW_ALLOCATIONS;
    assert_int_equal(export_write(sink, &request, &rows, error, sizeof error), EXPORT_FAILED);
    request.view = EXPORT_VIEW_COUNT;
    assert_int_equal(export_write(sink, &request, NULL, error, sizeof error), EXPORT_FAILED);
    assert_string_equal(error, "unknown export view");
    export_request_init(&request, EXPORT_VIEW_HLO, NULL, NULL);
    assert_int_equal(export_write(sink, &request, NULL, error, sizeof error), EXPORT_FAILED);
    fclose(sink);
}

/* ---- the table's filter and order ---- */

struct table_fixture {
    struct profile *profile;
    struct allocation_table table;
};

/* Rows with distinct sizes, so every order below is unambiguous. */
static int setup_table(void **state)
{
    struct table_fixture *fixture = calloc(1, sizeof *fixture);
    struct test_draft *draft = test_draft_new();
    struct xprof_allocator *allocator = add_allocator(draft, "GPU_0_bfc");
    static const struct {
        const char *op;
        int64_t bytes;
        const char *region;
    } rows[] = {
        {"conv1", 300, "temp"},  {"dense", 200, "output"}, {"Conv2", 100, "persist"},
        {"conv3", 500, "output"}, {"=conv4", 50, "temp"},  {"softmax", 400, "temp"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        struct snapshot snapshot = test_snapshot((int64_t)i * 10, 1000);
        snapshot.activity = MEMORY_ACTIVITY_ALLOCATION;
        snapshot.op_name = intern(draft, rows[i].op);
        snapshot.allocation_bytes = rows[i].bytes;
        snapshot.requested_bytes = rows[i].bytes - 1;
        snapshot.region_type = intern(draft, rows[i].region);
        append(&allocator->snapshots, &snapshot);
        add_active(allocator, (int64_t)i, -1, (int64_t)i + 1);
    }
    struct profile *profile = test_draft_finish(draft);
    fixture->profile = profile;
    assert_true(allocation_table_init(&fixture->table, profile, &profile->allocators[0]));
    *state = fixture;
    return 0;
}

static int teardown_table(void **state)
{
    struct table_fixture *fixture = *state;
    allocation_table_free(&fixture->table);
    profile_free(fixture->profile);
    free(fixture);
    return 0;
}

/* Exports through the table and checks the op names, in order. */
static void assert_table_export(struct table_fixture *fixture, const char *const *ops,
                                size_t count)
{
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_ALLOCATIONS, fixture->profile, NULL);
    request.table = &fixture->table;
    struct exported exported = {0};
    export_into(&exported, &request);
    assert_header(&exported, ALLOCATIONS_HEADER);
    assert_int_equal(exported.rows, count);
    assert_int_equal(exported.rows, fixture->table.count);
    for (size_t i = 0; i < count; i++) {
        assert_string_equal(field(&exported, i, 0), ops[i]);
        assert_allocation_row(&exported, i, fixture->profile,
                              allocation_table_row(&fixture->table, i));
    }
    exported_free(&exported);
}

static void test_table_order_and_filter(void **state)
{
    struct table_fixture *fixture = *state;
    struct allocation_table *table = &fixture->table;
    assert_true(allocation_table_set_filter(table, ""));
    allocation_table_set_sort(table, TABLE_COLUMN_FILE_ORDER, false);
    static const char *const file_order[] = {"conv1", "dense", "Conv2", "conv3", "=conv4",
                                             "softmax"};
    assert_table_export(fixture, file_order, 6);

    allocation_table_set_sort(table, TABLE_COLUMN_ALLOCATION_BYTES, true);
    static const char *const largest_first[] = {"conv3", "softmax", "conv1", "dense", "Conv2",
                                                "=conv4"};
    assert_table_export(fixture, largest_first, 6);

    assert_true(allocation_table_set_filter(table, "CONV"));
    static const char *const conv_largest_first[] = {"conv3", "conv1", "Conv2", "=conv4"};
    assert_table_export(fixture, conv_largest_first, 4);

    allocation_table_set_sort(table, TABLE_COLUMN_OCCURRENCES, false);
    static const char *const conv_fewest_first[] = {"conv1", "Conv2", "conv3", "=conv4"};
    assert_table_export(fixture, conv_fewest_first, 4);

    assert_true(allocation_table_set_filter(table, "no such op"));
    assert_table_export(fixture, NULL, 0);
}

/* Grouped (--group-by, e on the groups): one row per group, largest
 * first, named as the table names them. */
static void test_table_grouped(void **state)
{
    struct table_fixture *fixture = *state;
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_ALLOCATIONS, fixture->profile, NULL);
    request.table = &fixture->table;
    request.group_by = ROW_GROUP_OP_SCOPE;
    struct exported exported = {0};
    export_into(&exported, &request);
    assert_header(&exported, "scope,total_bytes,share,rows");
    assert_int_equal(exported.rows, fixture->table.count);
    int64_t previous = INT64_MAX;
    for (size_t i = 0; i < exported.rows; i++) {
        int64_t total = strtoll(field(&exported, i, 1), NULL, 10);
        assert_true(total <= previous);
        previous = total;
        assert_string_equal(field(&exported, i, 3), "1"); /* no scope: each op alone */
    }
    exported_free(&exported);
}

static void test_table_of_another_allocator_is_refused(void **state)
{
    struct table_fixture *fixture = *state;
    struct profile *other = awkward_profile();
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_ALLOCATIONS, other, &other->allocators[0]);
    request.table = &fixture->table;
    char error[EXPORT_ERROR_SIZE];
    FILE *sink = fopen("/dev/null", "w");
    assert_non_null(sink);
    assert_int_equal(export_write(sink, &request, NULL, error, sizeof error), EXPORT_FAILED);
    assert_string_equal(error, "the table shows another allocator");
    fclose(sink);
    profile_free(other);
}

/* ---- the dialect, read back: random awkward texts round-trip ---- */

static void test_random_texts_round_trip(void **state)
{
    (void)state;
    static const char *const pieces[] = {"a", ",", "\"", "\r", "\n", "=", "+", "-", "@",
                                         "\t", "'", " ", "\xc3\xa9", "\xff", "0", "\r\n"};
    enum { RECORDS = 400, FIELDS = 5, PIECES = 8 };
    static char texts[RECORDS][FIELDS][PIECES * 2 + 1];
    uint32_t seed = 12345;
    char *bytes = NULL;
    size_t size = 0;
    FILE *stream = open_memstream(&bytes, &size);
    assert_non_null(stream);
    struct csv_writer writer;
    csv_writer_init(&writer, stream);
    for (size_t r = 0; r < RECORDS; r++) {
        for (size_t f = 0; f < FIELDS; f++) {
            seed = seed * 1103515245u + 12345u;
            size_t length = (seed >> 16) % (PIECES + 1);
            texts[r][f][0] = '\0';
            for (size_t p = 0; p < length; p++) {
                seed = seed * 1103515245u + 12345u;
                strcat(texts[r][f], pieces[(seed >> 16) % (sizeof pieces / sizeof *pieces)]);
            }
            csv_writer_text(&writer, texts[r][f]);
        }
        csv_writer_end_record(&writer);
    }
    assert_int_equal(csv_writer_finish(&writer), 0);
    fclose(stream);
    struct csv_document document;
    csv_parse(bytes, size, &document);
    assert_int_equal(document.count, RECORDS);
    for (size_t r = 0; r < RECORDS; r++) {
        assert_int_equal(document.records[r].count, FIELDS);
        for (size_t f = 0; f < FIELDS; f++)
            assert_string_equal(document.records[r].fields[f], texts[r][f]);
    }
    csv_document_free(&document);
    free(bytes);
}

/* ---- files ---- */

struct directory_fixture {
    struct profile *profile;
    char directory[64];
};

static int setup_directory(void **state)
{
    struct directory_fixture *fixture = calloc(1, sizeof *fixture);
    fixture->profile = awkward_profile();
    strcpy(fixture->directory, "/tmp/memtop-export-XXXXXX");
    assert_non_null(mkdtemp(fixture->directory));
    *state = fixture;
    return 0;
}

static int teardown_directory(void **state)
{
    struct directory_fixture *fixture = *state;
    DIR *directory = opendir(fixture->directory);
    struct dirent *entry;
    while (directory && (entry = readdir(directory)) != NULL) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", fixture->directory, entry->d_name);
        if (remove(path) != 0)
            rmdir(path);
    }
    if (directory)
        closedir(directory);
    rmdir(fixture->directory);
    profile_free(fixture->profile);
    free(fixture);
    return 0;
}

static char *path_in(const struct directory_fixture *fixture, const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", fixture->directory, name);
    return path;
}

/* Names in the directory starting with '.', i.e. temporaries left behind. */
static size_t hidden_files(const struct directory_fixture *fixture)
{
    DIR *directory = opendir(fixture->directory);
    assert_non_null(directory);
    size_t count = 0;
    struct dirent *entry;
    while ((entry = readdir(directory)) != NULL)
        if (entry->d_name[0] == '.' && strcmp(entry->d_name, ".") != 0 &&
            strcmp(entry->d_name, "..") != 0)
            count++;
    closedir(directory);
    return count;
}

static void write_text_file(const char *path, const char *text)
{
    FILE *file = fopen(path, "w");
    assert_non_null(file);
    fputs(text, file);
    assert_int_equal(fclose(file), 0);
}

static char *read_text_file(const char *path)
{
    size_t size;
    uint8_t *bytes = test_read_file(path, &size);
    assert_non_null(bytes);
    char *text = realloc(bytes, size + 1);
    assert_non_null(text);
    text[size] = '\0';
    return text;
}

/* What export_write puts on a stream, for comparing files with it. */
static char *expected_csv(const struct export_request *request)
{
    char *bytes = NULL;
    size_t size = 0;
    FILE *stream = open_memstream(&bytes, &size);
    assert_non_null(stream);
    char error[EXPORT_ERROR_SIZE];
    assert_int_equal(export_write(stream, request, NULL, error, sizeof error), EXPORT_OK);
    fclose(stream);
    return bytes;
}

static void test_file_is_written_whole(void **state)
{
    struct directory_fixture *fixture = *state;
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_TIMELINE, fixture->profile,
                        &fixture->profile->allocators[0]);
    char *expected = expected_csv(&request);
    mode_t old_mask = umask(027);
    char error[EXPORT_ERROR_SIZE];
    size_t rows = 0;
    const char *path = path_in(fixture, "timeline.csv");
    enum export_status status = export_to_path(path, false, &request, &rows, error, sizeof error);
    umask(old_mask);
    assert_int_equal(status, EXPORT_OK);
    assert_int_equal(rows, TIMELINE_COUNT);
    char *written = read_text_file(path);
    assert_string_equal(written, expected);
    struct stat file_status;
    assert_int_equal(stat(path, &file_status), 0);
    assert_int_equal(file_status.st_mode & 07777, 0640);
    assert_int_equal(hidden_files(fixture), 0);
    free(written);
    free(expected);
}

static void test_existing_file_is_refused_then_replaced(void **state)
{
    struct directory_fixture *fixture = *state;
    char path[512];
    snprintf(path, sizeof path, "%s", path_in(fixture, "summary.csv"));
    write_text_file(path, "precious\n");
    struct stat before;
    assert_int_equal(stat(path, &before), 0);
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_SUMMARY, fixture->profile, NULL);
    char error[EXPORT_ERROR_SIZE];
    size_t rows = 99;
    assert_int_equal(export_to_path(path, false, &request, &rows, error, sizeof error),
                     EXPORT_EXISTS);
    assert_int_equal(rows, 0);
    char *kept = read_text_file(path);
    assert_string_equal(kept, "precious\n");
    free(kept);
    struct stat after;
    assert_int_equal(stat(path, &after), 0);
    assert_int_equal(after.st_ino, before.st_ino);
    assert_int_equal(hidden_files(fixture), 0);

    assert_int_equal(export_to_path(path, true, &request, &rows, error, sizeof error), EXPORT_OK);
    assert_int_equal(rows, 3);
    char *replaced = read_text_file(path);
    char *expected = expected_csv(&request);
    assert_string_equal(replaced, expected);
    free(replaced);
    free(expected);
    assert_int_equal(hidden_files(fixture), 0);
}

static void test_symlink_is_refused_or_replaced_not_followed(void **state)
{
    struct directory_fixture *fixture = *state;
    char target[512], link_path[512];
    snprintf(target, sizeof target, "%s", path_in(fixture, "target.txt"));
    snprintf(link_path, sizeof link_path, "%s", path_in(fixture, "link.csv"));
    write_text_file(target, "target\n");
    assert_int_equal(symlink(target, link_path), 0);
    /* A dangling link counts as existing too. */
    char dangling[512];
    snprintf(dangling, sizeof dangling, "%s", path_in(fixture, "dangling.csv"));
    assert_int_equal(symlink("/nonexistent/nowhere", dangling), 0);
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_HLO, fixture->profile, NULL);
    char error[EXPORT_ERROR_SIZE];
    assert_int_equal(export_to_path(link_path, false, &request, NULL, error, sizeof error),
                     EXPORT_EXISTS);
    assert_int_equal(export_to_path(dangling, false, &request, NULL, error, sizeof error),
                     EXPORT_EXISTS);
    assert_int_equal(export_to_path(link_path, true, &request, NULL, error, sizeof error),
                     EXPORT_OK);
    struct stat link_status;
    assert_int_equal(lstat(link_path, &link_status), 0);
    assert_true(S_ISREG(link_status.st_mode));
    char *kept = read_text_file(target);
    assert_string_equal(kept, "target\n");
    free(kept);
    assert_int_equal(hidden_files(fixture), 0);
}

static void test_missing_or_unwritable_directory_fails(void **state)
{
    struct directory_fixture *fixture = *state;
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_HLO, fixture->profile, NULL);
    char error[EXPORT_ERROR_SIZE];
    assert_int_equal(export_to_path(path_in(fixture, "missing/out.csv"), false, &request, NULL,
                                    error, sizeof error),
                     EXPORT_FAILED);
    assert_string_equal(error, "cannot create a temporary file there: No such file or directory");
    assert_int_equal(export_to_path(path_in(fixture, "dir/"), true, &request, NULL, error,
                                    sizeof error),
                     EXPORT_FAILED);
    assert_int_equal(export_to_path("", true, &request, NULL, error, sizeof error), EXPORT_FAILED);
    /* sysfs refuses new files even to root. */
    struct stat sys;
    if (stat("/sys/kernel", &sys) == 0 && S_ISDIR(sys.st_mode)) {
        assert_int_equal(export_to_path("/sys/kernel/memtop-test.csv", true, &request, NULL,
                                        error, sizeof error),
                         EXPORT_FAILED);
        assert_non_null(strstr(error, "cannot create a temporary file there: "));
        assert_int_equal(access("/sys/kernel/memtop-test.csv", F_OK), -1);
    }
    /* A directory in the way: refused with or without replace, saying
     * why (--force could not help). */
    char directory[512];
    snprintf(directory, sizeof directory, "%s", path_in(fixture, "a-directory"));
    assert_int_equal(mkdir(directory, 0755), 0);
    assert_int_equal(export_to_path(directory, false, &request, NULL, error, sizeof error),
                     EXPORT_FAILED);
    assert_string_equal(error, "is a directory, not a file");
    assert_int_equal(export_to_path(directory, true, &request, NULL, error, sizeof error),
                     EXPORT_FAILED);
    assert_string_equal(error, "is a directory, not a file");
    assert_int_equal(hidden_files(fixture), 0);
}

/* A write that fails half-way (file size limit: EFBIG, as a full disk
 * fails with ENOSPC) leaves the old file and no temporary. */
static void test_failed_write_keeps_the_old_file(void **state)
{
    struct directory_fixture *fixture = *state;
    struct test_draft *draft = test_draft_new();
    struct xprof_allocator *allocator = add_allocator(draft, "GPU_0_bfc");
    for (int i = 0; i < 2000; i++) {
        struct snapshot snapshot = test_snapshot(i, i * 1000);
        snapshot.op_name = intern(draft, "a rather long operation name to fill the file");
        append(&allocator->snapshots, &snapshot);
    }
    struct profile *big = test_draft_finish(draft);
    char path[512];
    snprintf(path, sizeof path, "%s", path_in(fixture, "big.csv"));
    write_text_file(path, "old\n");

    struct rlimit old_limit, limit;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old_limit), 0);
    limit = old_limit;
    limit.rlim_cur = 8192;
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &limit), 0);
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_TIMELINE, big, &big->allocators[0]);
    char error[EXPORT_ERROR_SIZE];
    size_t rows = 99;
    enum export_status status = export_to_path(path, true, &request, &rows, error, sizeof error);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old_limit), 0);
    signal(SIGXFSZ, old_handler);

    assert_int_equal(status, EXPORT_FAILED);
    assert_string_equal(error, strerror(EFBIG));
    assert_int_equal(rows, 0);
    char *kept = read_text_file(path);
    assert_string_equal(kept, "old\n");
    free(kept);
    assert_int_equal(hidden_files(fixture), 0);
    profile_free(big);
}

static void test_full_disk_on_a_stream(void **state)
{
    struct directory_fixture *fixture = *state;
    FILE *full = fopen("/dev/full", "w");
    if (!full)
        TEST_SKIP("no /dev/full");
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_TIMELINE, fixture->profile,
                        &fixture->profile->allocators[0]);
    char error[EXPORT_ERROR_SIZE];
    size_t rows = 99;
    assert_int_equal(export_write(full, &request, &rows, error, sizeof error), EXPORT_FAILED);
    assert_string_equal(error, strerror(ENOSPC));
    assert_int_equal(rows, 0);
    fclose(full);
}

/* ---- helpers for the command line and the viewer ---- */

static void test_view_names(void **state)
{
    (void)state;
    static const char *const names[] = {"allocations", "timeline", "summary", "hlo",
                                        "chrome-trace", "compare",
                                        "steps"};
    for (int view = 0; view < EXPORT_VIEW_COUNT; view++) {
        enum export_view parsed;
        assert_string_equal(export_view_name((enum export_view)view), names[view]);
        assert_true(export_view_parse(names[view], &parsed));
        assert_int_equal(parsed, view);
        assert_non_null(strstr(export_view_list(), names[view]));
    }
    enum export_view parsed;
    assert_false(export_view_parse("Timeline", &parsed));
    assert_false(export_view_parse("", &parsed));
    assert_false(export_view_parse("hlo ", &parsed));
    assert_string_equal(export_view_name(EXPORT_VIEW_COUNT), "unknown");
}

static void assert_sort(const char *text, enum table_column column, bool descending)
{
    enum table_column parsed_column = TABLE_COLUMN_COUNT;
    bool parsed_descending = !descending;
    assert_true(export_sort_parse(text, &parsed_column, &parsed_descending));
    assert_int_equal(parsed_column, column);
    assert_int_equal(parsed_descending, descending);
}

static void test_sort_names(void **state)
{
    (void)state;
    assert_sort("op_name", TABLE_COLUMN_OP_NAME, false);
    assert_sort("allocation_bytes", TABLE_COLUMN_ALLOCATION_BYTES, true);
    assert_sort("requested_bytes", TABLE_COLUMN_REQUESTED_BYTES, true);
    assert_sort("occurrences", TABLE_COLUMN_OCCURRENCES, true);
    assert_sort("region_type", TABLE_COLUMN_REGION_TYPE, false);
    assert_sort("data_type", TABLE_COLUMN_DATA_TYPE, false);
    assert_sort("tensor_shape", TABLE_COLUMN_TENSOR_SHAPE, false);
    assert_sort("allocation_bytes:asc", TABLE_COLUMN_ALLOCATION_BYTES, false);
    assert_sort("op_name:desc", TABLE_COLUMN_OP_NAME, true);
    enum table_column column;
    bool descending;
    /* The one short name the table's header and status line show. */
    assert_sort("size", TABLE_COLUMN_ALLOCATION_BYTES, true);
    assert_sort("op", TABLE_COLUMN_OP_NAME, false);
    assert_sort("count", TABLE_COLUMN_OCCURRENCES, true);
    assert_sort("total", TABLE_COLUMN_TOTAL_BYTES, true);
    assert_sort("total_bytes:asc", TABLE_COLUMN_TOTAL_BYTES, false);
    assert_sort("share", TABLE_COLUMN_SHARE, true);
    assert_sort("type:desc", TABLE_COLUMN_DATA_TYPE, true);
    assert_false(export_sort_parse("Size", &column, &descending));
    assert_false(export_sort_parse("op_name:up", &column, &descending));
    assert_false(export_sort_parse("op_name:", &column, &descending));
    assert_false(export_sort_parse("op_name_x", &column, &descending));
    assert_false(export_sort_parse("time_ps", &column, &descending));
    assert_false(export_sort_parse("time", &column, &descending));
    assert_false(export_sort_parse("", &column, &descending));
}

static void assert_milliseconds(const char *text, int64_t expected)
{
    int64_t time_ps = 12345;
    assert_true(export_milliseconds_parse(text, &time_ps));
    assert_int_equal(time_ps, expected);
}

static void test_milliseconds_parse_exactly(void **state)
{
    (void)state;
    assert_milliseconds("1.68589", 1685890000);
    assert_milliseconds("0", 0);
    assert_milliseconds("-0", 0);
    assert_milliseconds("+5", 5000000000);
    assert_milliseconds("5.", 5000000000);
    assert_milliseconds(".5", 500000000);
    assert_milliseconds("0.000000001", 1);
    assert_milliseconds("0.0000000010000", 1);
    assert_milliseconds("-2.5", -2500000000);
    assert_milliseconds("1685.890000001", 1685890000001);
    assert_milliseconds("9223372036.854775807", INT64_MAX);
    assert_milliseconds("-9223372036.854775808", INT64_MIN);
    assert_milliseconds("000000000000000000000001", 1000000000);
    int64_t time_ps;
    static const char *const bad[] = {
        "", ".", "-", "+", "1e3", "1.2.3", " 1", "1 ", "0x10", "1,5", "0.0000000001",
        "9223372036.854775808", "-9223372036.854775809", "99999999999", "nan", "--1", "1-",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (export_milliseconds_parse(bad[i], &time_ps))
            fail_msg("'%s' parsed as %" PRId64, bad[i], time_ps);
}

static void test_default_paths(void **state)
{
    const struct profile *profile = *state;
    char *path = export_default_path(profile, NULL, &profile->allocators[0], EXPORT_VIEW_TIMELINE);
    assert_string_equal(path, "memtop-GPU_0_bfc-timeline.csv");
    free(path);
    path = export_default_path(profile, NULL, &profile->allocators[1], EXPORT_VIEW_ALLOCATIONS);
    assert_string_equal(path, "memtop-a_b-allocations.csv");
    free(path);
    path = export_default_path(profile, NULL, &profile->allocators[2], EXPORT_VIEW_SUMMARY);
    assert_string_equal(path, "memtop-_evil-summary.csv");
    free(path);
    path = export_default_path(profile, NULL, NULL, EXPORT_VIEW_HLO);
    assert_string_equal(path, "memtop-hlo.csv");
    free(path);
    /* With several hosts, the host first; a file of every allocator is
     * named after none. */
    path = export_default_path(profile, "worker-3", &profile->allocators[0], EXPORT_VIEW_TIMELINE);
    assert_string_equal(path, "memtop-worker-3-GPU_0_bfc-timeline.csv");
    free(path);
    path = export_default_path(profile, "../w 1", NULL, EXPORT_VIEW_SUMMARY);
    assert_string_equal(path, "memtop-.._w_1-summary.csv");
    free(path);
    path = export_default_path(profile, "", NULL, EXPORT_VIEW_SUMMARY);
    assert_string_equal(path, "memtop-_-summary.csv");
    free(path);

    struct test_draft *draft = test_draft_new();
    char long_id[300];
    memset(long_id, 'x', sizeof long_id - 1);
    long_id[sizeof long_id - 1] = '\0';
    add_allocator(draft, "../../etc/passwd \xc3\xa9");
    add_allocator(draft, "");
    add_allocator(draft, long_id);
    struct profile *odd = test_draft_finish(draft);
    path = export_default_path(odd, NULL, &odd->allocators[0], EXPORT_VIEW_HLO);
    assert_string_equal(path, "memtop-.._.._etc_passwd___-hlo.csv");
    free(path);
    path = export_default_path(odd, NULL, &odd->allocators[1], EXPORT_VIEW_HLO);
    assert_string_equal(path, "memtop-_-hlo.csv");
    free(path);
    path = export_default_path(odd, NULL, &odd->allocators[2], EXPORT_VIEW_TIMELINE);
    assert_int_equal(strlen(path), strlen("memtop--timeline.csv") + 100);
    assert_null(strchr(path, '/'));
    free(path);
    profile_free(odd);
}

/* ---- the real XProf file, when it is there ---- */

static void test_real_file(void **state)
{
    (void)state;
    char *path = test_shared_path("data/xprof-tpu-v4-8-demo.memory_profile.json");
    if (!path)
        TEST_SKIP("no shared/data beside the source tree: no real XProf file");
    struct profile *profile = NULL;
    struct load_error error;
    assert_int_equal(profile_load(path, NULL, &profile, &error), LOAD_OK);
    free(path);
    for (size_t a = 0; a < profile->allocator_count; a++) {
        const struct allocator *allocator = &profile->allocators[a];
        struct export_request request;
        export_request_init(&request, EXPORT_VIEW_ALLOCATIONS, profile, allocator);
        struct exported exported = {0};
        export_into(&exported, &request);
        assert_int_equal(exported.rows, allocator->row_count);
        for (size_t i = 0; i < allocator->row_count; i++)
            assert_allocation_row(&exported, i, profile, &allocator->rows[i]);
        exported_free(&exported);
        export_request_init(&request, EXPORT_VIEW_TIMELINE, profile, allocator);
        export_into(&exported, &request);
        assert_int_equal(exported.rows, allocator->timeline.count);
        exported_free(&exported);
    }
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_SUMMARY, profile, NULL);
    struct exported exported = {0};
    export_into(&exported, &request);
    assert_int_equal(exported.rows, 4);
    assert_string_equal(field(&exported, 0, 0), "0");
    assert_string_equal(field(&exported, 0, 7), "1685890000");
    assert_string_equal(field(&exported, 0, 11), "0.000401934");
    exported_free(&exported);
    export_request_init(&request, EXPORT_VIEW_HLO, profile, NULL);
    export_into(&exported, &request);
    assert_int_equal(exported.rows, 40);
    exported_free(&exported);
    profile_free(profile);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_allocations_in_file_order, setup_profile,
                                        teardown_profile),
        cmocka_unit_test_setup_teardown(test_timeline_every_field, setup_profile,
                                        teardown_profile),
        cmocka_unit_test_setup_teardown(test_timeline_window_is_inclusive, setup_profile,
                                        teardown_profile),
        cmocka_unit_test_setup_teardown(test_summary_one_row_per_allocator, setup_profile,
                                        teardown_profile),
        cmocka_unit_test_setup_teardown(test_hlo_modules, setup_profile, teardown_profile),
        cmocka_unit_test_setup_teardown(test_empty_allocator_gives_a_header, setup_profile,
                                        teardown_profile),
        cmocka_unit_test_setup_teardown(test_bad_requests_fail_cleanly, setup_profile,
                                        teardown_profile),
        cmocka_unit_test_setup_teardown(test_table_order_and_filter, setup_table, teardown_table),
        cmocka_unit_test_setup_teardown(test_table_grouped, setup_table, teardown_table),
        cmocka_unit_test_setup_teardown(test_table_of_another_allocator_is_refused, setup_table,
                                        teardown_table),
        cmocka_unit_test(test_random_texts_round_trip),
        cmocka_unit_test_setup_teardown(test_file_is_written_whole, setup_directory,
                                        teardown_directory),
        cmocka_unit_test_setup_teardown(test_existing_file_is_refused_then_replaced,
                                        setup_directory, teardown_directory),
        cmocka_unit_test_setup_teardown(test_symlink_is_refused_or_replaced_not_followed,
                                        setup_directory, teardown_directory),
        cmocka_unit_test_setup_teardown(test_missing_or_unwritable_directory_fails,
                                        setup_directory, teardown_directory),
        cmocka_unit_test_setup_teardown(test_failed_write_keeps_the_old_file, setup_directory,
                                        teardown_directory),
        cmocka_unit_test_setup_teardown(test_full_disk_on_a_stream, setup_directory,
                                        teardown_directory),
        cmocka_unit_test(test_view_names),
        cmocka_unit_test(test_sort_names),
        cmocka_unit_test(test_milliseconds_parse_exactly),
        cmocka_unit_test_setup_teardown(test_default_paths, setup_profile, teardown_profile),
        cmocka_unit_test(test_real_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
