/* test_export_support: helpers of tests/test_export: a strict CSV reader
 * (RFC 4180 with LF record ends), exporting into memory with field checks,
 * and the profile under test with every awkward value in one place. */
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
#include "model/query/allocation_table.h"

#include "tests/test_export.h"

/* ---- a strict CSV reader: RFC 4180 with LF record ends ---- */

void buffer_add(struct text_buffer *buffer, char byte)
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
void field_unguard(char *field)
{
    size_t apostrophes = strspn(field, "'");
    if (apostrophes > 0 && field[apostrophes] && strchr("=+-@\t\r", field[apostrophes]))
        memmove(field, field + 1, strlen(field));
}

/* One field starting at text[*position]; leaves *position on the ',' or
 * '\n' after it. Fails the test on anything the writer must not produce. */
char *parse_field(const char *text, size_t length, size_t *position)
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

void csv_parse(const char *text, size_t length, struct csv_document *document)
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

void csv_document_free(struct csv_document *document)
{
    for (size_t i = 0; i < document->count; i++) {
        for (size_t j = 0; j < document->records[i].count; j++)
            free(document->records[i].fields[j]);
        free(document->records[i].fields);
    }
    free(document->records);
}
/* ---- exporting into memory ---- */

void export_into(struct exported *out, const struct export_request *request)
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

void exported_free(struct exported *exported)
{
    csv_document_free(&exported->csv);
    free(exported->bytes);
}

void assert_header(const struct exported *exported, const char *expected)
{
    const char *line_end = memchr(exported->bytes, '\n', exported->size);
    assert_non_null(line_end);
    assert_int_equal((size_t)(line_end - exported->bytes), strlen(expected));
    assert_memory_equal(exported->bytes, expected, strlen(expected));
}

const char *field(const struct exported *exported, size_t row, size_t column)
{
    assert_true(row + 1 < exported->csv.count);
    assert_true(column < exported->csv.records[row + 1].count);
    return exported->csv.records[row + 1].fields[column];
}

void assert_int_field(const char *text, int64_t expected)
{
    char expected_text[32];
    snprintf(expected_text, sizeof expected_text, "%" PRId64, expected);
    assert_string_equal(text, expected_text);
}

void assert_unsigned_field(const char *text, uint64_t expected)
{
    char expected_text[32];
    snprintf(expected_text, sizeof expected_text, "%" PRIu64, expected);
    assert_string_equal(text, expected_text);
}

/* Doubles come back bit for bit (NaN as any NaN). */
void assert_double_field(const char *text, double expected)
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

uint32_t intern(struct test_draft *profile, const char *text)
{
    return test_draft_intern(profile, text);
}

struct xprof_allocator *add_allocator(struct test_draft *profile, const char *id)
{
    assert_true(xprof_draft_add_memory_id(&profile->draft, id, strlen(id)));
    struct xprof_allocator *allocator = xprof_draft_allocator(&profile->draft, id, strlen(id));
    assert_non_null(allocator);
    return allocator;
}

void append(struct snapshot_columns *columns, const struct snapshot *snapshot)
{
    assert_true(snapshot_columns_append(columns, snapshot));
}

void add_active(struct xprof_allocator *allocator, int64_t snapshot_index,
                       int64_t special_index, int64_t occurrences)
{
    struct active_allocation active = {snapshot_index, special_index, occurrences};
    assert_true(xprof_allocator_add_active(allocator, &active));
}

const char *const awkward_texts[] = {
    "=SUM(A1:A9)", "a,b",   "say \"hi\"", "line\nbreak", "\rcarriage", "-negative",
    "@at",         "\ttab", "caf\xc3\xa9", "",           "'=quoted",  "bad \xff utf-8",
};

const int64_t timeline_times[] = {
    INT64_MAX, -5, 0, 1685890000, INT64_MIN, 1685890000, 2000000000,
};

struct snapshot awkward_snapshot(struct test_draft *profile, size_t i)
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
struct profile *awkward_profile(void)
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

int setup_profile(void **state)
{
    *state = awkward_profile();
    return 0;
}

int teardown_profile(void **state)
{
    profile_free(*state);
    return 0;
}
