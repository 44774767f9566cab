/* test_export_table: the table's filter, order and grouping exported, another
 * allocator's table refused, and random awkward texts round-tripping
 * through the CSV dialect (tests/test_export). */
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

/* ---- the table's filter and order ---- */

/* Rows with distinct sizes, so every order below is unambiguous. */
int setup_table(void **state)
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
    /* The file's own rows (XProf's table): what the table orders and filters. */
    assert_true(allocation_table_init_xprof(&fixture->table, profile, &profile->allocators[0]));
    *state = fixture;
    return 0;
}

int teardown_table(void **state)
{
    struct table_fixture *fixture = *state;
    allocation_table_free(&fixture->table);
    profile_free(fixture->profile);
    free(fixture);
    return 0;
}

/* Exports through the table and checks the op names, in order. */
void assert_table_export(struct table_fixture *fixture, const char *const *ops,
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

void test_table_order_and_filter(void **state)
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
void test_table_grouped(void **state)
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

void test_table_of_another_allocator_is_refused(void **state)
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

void test_random_texts_round_trip(void **state)
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
