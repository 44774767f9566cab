#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "model/profile.h"
#include "model/string_table.h"
#include "tests/test_support.h"
#include "model/allocation_table.h"
#include "model/peak_breakdown.h"

struct row_spec {
    const char *op;
    int64_t allocation_bytes;
    int64_t requested_bytes;
    int64_t occurrences;
    const char *region;
    const char *data_type;
    const char *shape;
};

static uint32_t intern(struct test_draft *profile, const char *text)
{
    return test_draft_intern(profile, text);
}

/* A finished profile with one allocator whose rows are `specs` in this
 * order; a spec with a NULL op becomes a row whose snapshot index points
 * nowhere (unresolved). */
static struct profile *profile_with_rows(const struct row_spec *specs, size_t count)
{
    struct test_draft *profile = test_draft_new();
    struct xprof_allocator *allocator = xprof_draft_allocator(&profile->draft, "GPU_0_bfc", 9);
    assert_non_null(allocator);
    int64_t resolved = 0;
    for (size_t i = 0; i < count; i++) {
        struct active_allocation active = {.special_index = -1,
                                           .occurrences = specs[i].occurrences};
        if (specs[i].op) {
            struct snapshot snapshot = test_snapshot(1000 * (int64_t)i, 1);
            snapshot.activity = MEMORY_ACTIVITY_ALLOCATION;
            snapshot.allocation_bytes = specs[i].allocation_bytes;
            snapshot.requested_bytes = specs[i].requested_bytes;
            snapshot.op_name = intern(profile, specs[i].op);
            snapshot.region_type = intern(profile, specs[i].region);
            snapshot.data_type = intern(profile, specs[i].data_type);
            snapshot.tensor_shape = intern(profile, specs[i].shape);
            assert_true(snapshot_columns_append(&allocator->snapshots, &snapshot));
            active.snapshot_index = resolved++;
        } else {
            active.snapshot_index = 9999;
        }
        assert_true(xprof_allocator_add_active(allocator, &active));
    }
    return test_draft_finish(profile);
}

/* Rows 0..5 in file order; row 3 is unresolved. */
static const struct row_spec mixed_rows[] = {
    {"Conv2D", 400, 300, 1, "output", "float", "[3,3]"},
    {"conv2d_1", 400, 400, 2, "temp", "half", "[1]"},
    {"MatMul", 100, 100, 5, "persist", "float", "[8,8]"},
    {NULL, 0, 0, 1, NULL, NULL, NULL},
    {"Relu", 100, 50, 1, "output", "bfloat16", "[2,2]"},
    {"matmul_grad", 900, 900, 1, "temp", "float", "[]"},
};

struct fixture {
    struct profile *profile;
    struct allocation_table table;
};

static int setup_mixed(void **state)
{
    static struct fixture fixture;
    fixture.profile = profile_with_rows(mixed_rows, sizeof mixed_rows / sizeof *mixed_rows);
    assert_true(allocation_table_init(&fixture.table, fixture.profile,
                                      &fixture.profile->allocators[0]));
    *state = &fixture;
    return 0;
}

static int teardown_mixed(void **state)
{
    struct fixture *fixture = *state;
    allocation_table_free(&fixture->table);
    profile_free(fixture->profile);
    return 0;
}

/* The file positions of the rows shown, in display order. */
static void assert_order(const struct allocation_table *table, const size_t *expected,
                         size_t count)
{
    assert_int_equal(table->count, count);
    for (size_t i = 0; i < count; i++) {
        const struct allocation_row *row = allocation_table_row(table, i);
        assert_non_null(row);
        assert_int_equal(row - table->allocator->rows, expected[i]);
    }
    assert_null(allocation_table_row(table, count));
}

#define ASSERT_ORDER(table, ...)                                                   \
    do {                                                                           \
        const size_t expected_[] = {__VA_ARGS__};                                  \
        assert_order((table), expected_, sizeof expected_ / sizeof *expected_);    \
    } while (0)

static void test_file_order_default(void **state)
{
    struct fixture *fixture = *state;
    struct allocation_table *table = &fixture->table;
    assert_int_equal(table->sort_column, TABLE_COLUMN_FILE_ORDER);
    ASSERT_ORDER(table, 0, 1, 2, 3, 4, 5);
    allocation_table_set_sort(table, TABLE_COLUMN_FILE_ORDER, true);
    ASSERT_ORDER(table, 5, 4, 3, 2, 1, 0);
    assert_int_equal(allocation_table_total(table), 6);
}

static void test_sort_numbers(void **state)
{
    struct allocation_table *table = &((struct fixture *)*state)->table;
    allocation_table_set_sort(table, TABLE_COLUMN_ALLOCATION_BYTES, true);
    ASSERT_ORDER(table, 5, 0, 1, 2, 4, 3); /* ties (400, 100) keep file order */
    allocation_table_set_sort(table, TABLE_COLUMN_ALLOCATION_BYTES, false);
    ASSERT_ORDER(table, 3, 2, 4, 0, 1, 5); /* ... in both directions */
    allocation_table_set_sort(table, TABLE_COLUMN_REQUESTED_BYTES, true);
    ASSERT_ORDER(table, 5, 1, 0, 2, 4, 3);
    allocation_table_set_sort(table, TABLE_COLUMN_REQUESTED_BYTES, false);
    ASSERT_ORDER(table, 3, 4, 2, 0, 1, 5);
    allocation_table_set_sort(table, TABLE_COLUMN_OCCURRENCES, true);
    ASSERT_ORDER(table, 2, 1, 0, 3, 4, 5);
    allocation_table_set_sort(table, TABLE_COLUMN_OCCURRENCES, false);
    ASSERT_ORDER(table, 0, 3, 4, 5, 1, 2);
}

static void test_sort_text(void **state)
{
    struct allocation_table *table = &((struct fixture *)*state)->table;
    /* Case-insensitive, the unresolved row's empty name first. */
    allocation_table_set_sort(table, TABLE_COLUMN_OP_NAME, false);
    ASSERT_ORDER(table, 3, 0, 1, 2, 5, 4);
    allocation_table_set_sort(table, TABLE_COLUMN_OP_NAME, true);
    ASSERT_ORDER(table, 4, 5, 2, 1, 0, 3);
    allocation_table_set_sort(table, TABLE_COLUMN_REGION_TYPE, false);
    ASSERT_ORDER(table, 3, 0, 4, 2, 1, 5);
    allocation_table_set_sort(table, TABLE_COLUMN_REGION_TYPE, true);
    ASSERT_ORDER(table, 1, 5, 2, 0, 4, 3);
    allocation_table_set_sort(table, TABLE_COLUMN_DATA_TYPE, false);
    ASSERT_ORDER(table, 3, 4, 0, 2, 5, 1);
    allocation_table_set_sort(table, TABLE_COLUMN_DATA_TYPE, true);
    ASSERT_ORDER(table, 1, 0, 2, 5, 4, 3);
    allocation_table_set_sort(table, TABLE_COLUMN_TENSOR_SHAPE, false);
    ASSERT_ORDER(table, 3, 1, 4, 0, 2, 5); /* by bytes: '1' < ']' */
    allocation_table_set_sort(table, TABLE_COLUMN_TENSOR_SHAPE, true);
    ASSERT_ORDER(table, 5, 2, 0, 4, 1, 3);
}

static void test_filter_case_insensitive(void **state)
{
    struct allocation_table *table = &((struct fixture *)*state)->table;
    assert_true(allocation_table_set_filter(table, "CONV"));
    ASSERT_ORDER(table, 0, 1);
    assert_true(allocation_table_set_filter(table, "matmul"));
    ASSERT_ORDER(table, 2, 5);
    assert_true(allocation_table_set_filter(table, "mUl_G"));
    ASSERT_ORDER(table, 5);
    /* Sorting keeps the filter, and filtering keeps the sort. */
    allocation_table_set_sort(table, TABLE_COLUMN_ALLOCATION_BYTES, true);
    ASSERT_ORDER(table, 5);
    assert_true(allocation_table_set_filter(table, "c"));
    ASSERT_ORDER(table, 0, 1);
    assert_true(allocation_table_set_filter(table, "2d"));
    ASSERT_ORDER(table, 0, 1);
    assert_string_equal(table->filter, "2d");
}

/* The filter reads the region, the data type and the shape too, in any
 * case; the least size hides what holds less, with the filter. */
static void test_filter_every_field_and_least_size(void **state)
{
    struct allocation_table *table = &((struct fixture *)*state)->table;
    assert_true(allocation_table_set_filter(table, "TEMP")); /* region */
    ASSERT_ORDER(table, 1, 5);
    assert_true(allocation_table_set_filter(table, "bfloat")); /* data type */
    ASSERT_ORDER(table, 4);
    assert_true(allocation_table_set_filter(table, "[8,8]")); /* shape */
    ASSERT_ORDER(table, 2);
    assert_true(allocation_table_set_filter(table, "half"));
    ASSERT_ORDER(table, 1);
    assert_true(allocation_table_set_filter(table, ""));
    assert_false(allocation_table_narrowed(table));
    assert_int_equal(table->unresolved_count, 1);
    /* Totals: 400, 800, 500, 0 (unresolved), 100, 900. */
    allocation_table_set_min_bytes(table, 500);
    ASSERT_ORDER(table, 1, 2, 5);
    assert_true(allocation_table_narrowed(table));
    assert_int_equal(table->unresolved_count, 0);
    assert_int_equal(allocation_table_shown_bytes(table), 2200);
    assert_true(allocation_table_set_filter(table, "float")); /* with the filter */
    ASSERT_ORDER(table, 2, 5);
    allocation_table_set_sort(table, TABLE_COLUMN_TOTAL_BYTES, true); /* and a sort */
    ASSERT_ORDER(table, 5, 2);
    allocation_table_set_min_bytes(table, 0);
    ASSERT_ORDER(table, 5, 2, 0, 4); /* "bfloat16" holds "float" too */
    assert_true(allocation_table_set_filter(table, ""));
    ASSERT_ORDER(table, 5, 1, 2, 0, 4, 3);
}

static void test_empty_filter_and_no_match(void **state)
{
    struct allocation_table *table = &((struct fixture *)*state)->table;
    assert_true(allocation_table_set_filter(table, "no such op"));
    assert_int_equal(table->count, 0);
    assert_null(allocation_table_row(table, 0));
    assert_int_equal(allocation_table_shown_bytes(table), 0);
    assert_true(allocation_table_set_filter(table, ""));
    ASSERT_ORDER(table, 0, 1, 2, 3, 4, 5); /* the unresolved row included */
    /* 400 + 400 * 2 + 100 * 5 + 0 + 100 + 900 */
    assert_int_equal(allocation_table_shown_bytes(table), 2700);
}

static void test_unresolved_rows(void **state)
{
    struct allocation_table *table = &((struct fixture *)*state)->table;
    const struct allocation_row *row = allocation_table_row(table, 3);
    assert_int_equal(row->origin, ROW_UNRESOLVED);
    char buffer[ALLOCATION_TABLE_LABEL_SIZE];
    assert_string_equal(allocation_table_op_name(table, row, buffer, sizeof buffer).bytes,
                        "(unresolved: snapshot 9999)");
    assert_string_equal(allocation_table_op_name(table, allocation_table_row(table, 0), buffer,
                                                 sizeof buffer).bytes,
                        "Conv2D");
    /* The label is not a name: no filter but "" finds the row. */
    assert_true(allocation_table_set_filter(table, "unresolved"));
    assert_int_equal(table->count, 0);
    assert_true(allocation_table_set_filter(table, "9999"));
    assert_int_equal(table->count, 0);
    assert_false(allocation_table_row_matches(table, row));
}

static void test_stability_many_ties(void **state)
{
    (void)state;
    struct row_spec specs[40];
    for (size_t i = 0; i < 40; i++)
        specs[i] = (struct row_spec){i % 3 ? "same" : "Same", 1024 * (int64_t)(i % 2), 7, 1,
                                     "temp", "float", "[1]"};
    struct profile *profile = profile_with_rows(specs, 40);
    struct allocation_table table;
    assert_true(allocation_table_init(&table, profile, &profile->allocators[0]));
    for (int column = TABLE_COLUMN_FILE_ORDER + 1; column < TABLE_COLUMN_COUNT; column++) {
        for (int descending = 0; descending < 2; descending++) {
            allocation_table_set_sort(&table, column, descending);
            assert_int_equal(table.count, 40);
            for (size_t i = 1; i < 40; i++) {
                size_t previous = table.order[i - 1], current = table.order[i];
                const struct allocation_row *a = &profile->allocators[0].rows[previous];
                const struct allocation_row *b = &profile->allocators[0].rows[current];
                bool tie = column == TABLE_COLUMN_ALLOCATION_BYTES
                               ? a->allocation_bytes == b->allocation_bytes
                           : column == TABLE_COLUMN_OP_NAME ? a->op_name == b->op_name
                                                            : true;
                if (tie)
                    assert_true(previous < current); /* file order among equals */
            }
        }
    }
    /* "same" and "Same" sort together; the bytes decide between them. */
    allocation_table_set_sort(&table, TABLE_COLUMN_OP_NAME, false);
    assert_int_equal(table.order[0], 0);
    assert_string_equal(profile_text(profile, allocation_table_row(&table, 0)->op_name), "Same");
    allocation_table_free(&table);
    profile_free(profile);
}

static void test_special_rows_and_no_allocator(void **state)
{
    (void)state;
    struct test_draft *draft = test_draft_new();
    struct xprof_allocator *allocator = xprof_draft_allocator(&draft->draft, "0", 1);
    struct snapshot special = test_snapshot(0, 0);
    special.op_name = intern(draft, "stack");
    special.allocation_bytes = 65536;
    assert_true(snapshot_columns_append(&allocator->specials, &special));
    struct active_allocation active = {.snapshot_index = -1, .special_index = 0,
                                       .occurrences = 1};
    assert_true(xprof_allocator_add_active(allocator, &active));
    active.special_index = 7; /* points nowhere */
    assert_true(xprof_allocator_add_active(allocator, &active));
    struct profile *profile = test_draft_finish(draft);
    struct allocation_table table;
    assert_true(allocation_table_init(&table, profile, &profile->allocators[0]));
    assert_true(allocation_table_set_filter(&table, "STA"));
    assert_int_equal(table.count, 1);
    assert_int_equal(allocation_table_row(&table, 0)->origin, ROW_FROM_SPECIAL);
    char buffer[ALLOCATION_TABLE_LABEL_SIZE];
    assert_true(allocation_table_set_filter(&table, ""));
    assert_string_equal(allocation_table_op_name(&table, allocation_table_row(&table, 1), buffer,
                                                 sizeof buffer).bytes,
                        "(unresolved: special 7)");
    allocation_table_free(&table);
    /* No allocator: an empty table that still sorts and filters. */
    assert_true(allocation_table_init(&table, profile, NULL));
    assert_int_equal(table.count, 0);
    allocation_table_set_sort(&table, TABLE_COLUMN_OP_NAME, true);
    assert_true(allocation_table_set_filter(&table, "x"));
    assert_int_equal(table.count, 0);
    allocation_table_free(&table);
    profile_free(profile);
}

static void test_matches(void **state)
{
    (void)state;
    assert_true(allocation_table_matches(text_of(""), ""));
    assert_true(allocation_table_matches(text_of("anything"), ""));
    assert_false(allocation_table_matches(text_of(""), "a"));
    assert_true(allocation_table_matches(text_of("model/Dense/MatMul"), "dense/matmul"));
    assert_false(allocation_table_matches(text_of("MatMul"), "MatMul2"));
    assert_true(allocation_table_matches(text_of("abab"), "bab"));
    assert_true(allocation_table_matches(text_of("caf\xc3\xa9"), "\xc3\xa9"));     /* UTF-8 as bytes */
    assert_false(allocation_table_matches(text_of("caf\xc3\xa9"), "\xc3\x89"));    /* no Unicode folding */
    /* The bytes after a NUL are searched too (issue 16.4). */
    assert_true(allocation_table_matches(text_make("a\0Bc", 4), "bc"));
    assert_false(allocation_table_matches(text_make("a\0Bc", 3), "bc"));
}

/* The columns as a view shows them, left to right (the table pane's). */
static const enum table_column view_order[] = {
    TABLE_COLUMN_ALLOCATION_BYTES, TABLE_COLUMN_REQUESTED_BYTES, TABLE_COLUMN_OCCURRENCES,
    TABLE_COLUMN_TOTAL_BYTES,      TABLE_COLUMN_SHARE,           TABLE_COLUMN_KIND,
    TABLE_COLUMN_REGION_TYPE,      TABLE_COLUMN_DATA_TYPE,       TABLE_COLUMN_TENSOR_SHAPE,
    TABLE_COLUMN_LOCATION,         TABLE_COLUMN_OP_NAME,
};
#define VIEW_ORDER_COUNT (sizeof view_order / sizeof *view_order)

/* < and >: the sort steps along the columns as shown, file order past
 * both ends, over the columns no row fills (an XProf file has no kind
 * and no location). */
static void test_sort_steps(void **state)
{
    struct fixture *fixture = *state;
    const struct allocation_table *table = &fixture->table;
    const enum table_column expected[] = {
        TABLE_COLUMN_ALLOCATION_BYTES, TABLE_COLUMN_REQUESTED_BYTES, TABLE_COLUMN_OCCURRENCES,
        TABLE_COLUMN_TOTAL_BYTES,      TABLE_COLUMN_SHARE,           TABLE_COLUMN_REGION_TYPE,
        TABLE_COLUMN_DATA_TYPE,        TABLE_COLUMN_TENSOR_SHAPE,    TABLE_COLUMN_OP_NAME,
        TABLE_COLUMN_FILE_ORDER,
    };
    const size_t count = sizeof expected / sizeof *expected;
    enum table_column column = TABLE_COLUMN_FILE_ORDER;
    for (size_t i = 0; i < count; i++) {
        column = allocation_table_step_sort(table, view_order, VIEW_ORDER_COUNT, column, 1);
        assert_int_equal(column, expected[i]);
        assert_true(allocation_table_column_name(column)[0] != '\0');
    }
    /* Backwards, the same steps in reverse. */
    for (size_t i = count - 1; i > 0; i--) {
        column = allocation_table_step_sort(table, view_order, VIEW_ORDER_COUNT, column, -1);
        assert_int_equal(column, expected[i - 1]);
    }
    column = allocation_table_step_sort(table, view_order, VIEW_ORDER_COUNT, column, -1);
    assert_int_equal(column, TABLE_COLUMN_FILE_ORDER);
    /* A column the view does not show counts as file order. */
    assert_int_equal(allocation_table_step_sort(table, view_order, 3, TABLE_COLUMN_OP_NAME, 1),
                     TABLE_COLUMN_ALLOCATION_BYTES);
    assert_true(allocation_table_default_descending(TABLE_COLUMN_ALLOCATION_BYTES));
    assert_true(allocation_table_default_descending(TABLE_COLUMN_TOTAL_BYTES));
    assert_true(allocation_table_default_descending(TABLE_COLUMN_SHARE));
    assert_false(allocation_table_default_descending(TABLE_COLUMN_OP_NAME));
    assert_false(allocation_table_default_descending(TABLE_COLUMN_FILE_ORDER));
}

/* ---- what the peak is made of ---- */

struct expected_group {
    const char *name;
    int64_t bytes;
};

static void assert_breakdown(const struct allocation_table *table, enum breakdown_key key,
                             const struct expected_group *expected, size_t count, int64_t total)
{
    struct peak_breakdown breakdown;
    assert_true(peak_breakdown_build(&breakdown, table, key));
    assert_int_equal(breakdown.count, count);
    for (size_t i = 0; i < count; i++) {
        assert_string_equal(profile_text(table->profile, breakdown.groups[i].name),
                            expected[i].name);
        assert_int_equal(breakdown.groups[i].bytes, expected[i].bytes);
    }
    assert_int_equal(breakdown.total_bytes, total);
    assert_int_equal(breakdown.total_bytes, allocation_table_shown_bytes(table));
    peak_breakdown_free(&breakdown);
}

static void test_breakdown_by_region_and_type(void **state)
{
    struct allocation_table *table = &((struct fixture *)*state)->table;
    /* Largest first, equal sizes by name; the unresolved row has neither
     * region nor type and counts 0 bytes. */
    static const struct expected_group regions[] = {
        {"temp", 400 * 2 + 900}, {"output", 400 + 100}, {"persist", 100 * 5}, {"", 0}};
    assert_breakdown(table, BREAKDOWN_BY_REGION, regions, 4, 2700);
    static const struct expected_group types[] = {
        {"float", 400 + 100 * 5 + 900}, {"half", 400 * 2}, {"bfloat16", 100}, {"", 0}};
    assert_breakdown(table, BREAKDOWN_BY_DATA_TYPE, types, 4, 2700);
    /* The table's sort changes nothing; its filter picks the rows. */
    allocation_table_set_sort(table, TABLE_COLUMN_OP_NAME, false);
    assert_breakdown(table, BREAKDOWN_BY_REGION, regions, 4, 2700);
    assert_true(allocation_table_set_filter(table, "CONV"));
    static const struct expected_group conv[] = {{"temp", 800}, {"output", 400}};
    assert_breakdown(table, BREAKDOWN_BY_REGION, conv, 2, 1200);
    assert_true(allocation_table_set_filter(table, "no such op"));
    assert_breakdown(table, BREAKDOWN_BY_REGION, NULL, 0, 0);
}

/* A hostile file: every row its own data type, sizes in no order. */
static void test_breakdown_of_many_groups(void **state)
{
    (void)state;
    enum { ROWS = 3000 };
    static struct row_spec specs[ROWS];
    static char types[ROWS][16];
    for (size_t i = 0; i < ROWS; i++) {
        snprintf(types[i], sizeof types[i], "type%zu", i);
        specs[i] = (struct row_spec){"op", (int64_t)((i * 7919) % ROWS), 1, 1, "temp", types[i],
                                     "[1]"};
    }
    struct profile *profile = profile_with_rows(specs, ROWS);
    struct allocation_table table;
    assert_true(allocation_table_init(&table, profile, &profile->allocators[0]));
    struct peak_breakdown breakdown;
    assert_true(peak_breakdown_build(&breakdown, &table, BREAKDOWN_BY_DATA_TYPE));
    assert_int_equal(breakdown.count, ROWS);
    /* 7919 is prime to 3000: the sizes are 0..2999, each once. */
    for (size_t i = 0; i < ROWS; i++)
        assert_int_equal(breakdown.groups[i].bytes, ROWS - 1 - (int64_t)i);
    assert_int_equal(breakdown.total_bytes, (int64_t)ROWS * (ROWS - 1) / 2);
    peak_breakdown_free(&breakdown);
    assert_true(peak_breakdown_build(&breakdown, &table, BREAKDOWN_BY_REGION));
    assert_int_equal(breakdown.count, 1);
    assert_int_equal(breakdown.groups[0].bytes, (int64_t)ROWS * (ROWS - 1) / 2);
    peak_breakdown_free(&breakdown);
    allocation_table_free(&table);
    profile_free(profile);
}

/* ---- rows from a source; the column table ---- */

/* Rows that are not an allocator's rows at its peak (as rows computed on
 * the fly will be): the table sorts, filters and totals them the same. */
static void test_rows_from_another_source(void **state)
{
    struct fixture *fixture = *state;
    const struct allocator *allocator = &fixture->profile->allocators[0];
    /* Rows 5, 2 and 0 of the file, in that order. */
    struct allocation_row rows[3] = {allocator->rows[5], allocator->rows[2], allocator->rows[0]};
    struct allocation_row_source source = {
        .profile = fixture->profile, .rows = rows, .count = 3, .label = "grown since the mark"};
    struct allocation_table table;
    assert_true(allocation_table_init_source(&table, &source));
    assert_string_equal(table.source.label, "grown since the mark");
    assert_null(table.allocator);
    assert_int_equal(allocation_table_total(&table), 3);
    assert_ptr_equal(allocation_table_row(&table, 0), &rows[0]); /* the source's order */
    allocation_table_set_sort(&table, TABLE_COLUMN_ALLOCATION_BYTES, false);
    assert_ptr_equal(allocation_table_row(&table, 0), &rows[1]); /* MatMul, 100 */
    assert_ptr_equal(allocation_table_row(&table, 2), &rows[0]); /* matmul_grad, 900 */
    assert_true(allocation_table_set_filter(&table, "matmul"));
    assert_int_equal(table.count, 2);
    assert_int_equal(allocation_table_shown_bytes(&table), 100 * 5 + 900);
    allocation_table_free(&table);

    struct allocation_row_source at_peak = allocation_rows_at_peak(fixture->profile, allocator);
    assert_string_equal(at_peak.label, "at peak");
    assert_ptr_equal(at_peak.rows, allocator->rows);
    assert_int_equal(at_peak.count, allocator->row_count);
}

/* One table of columns, in the CSV's order; the first TABLE_COLUMN_COUNT
 * are the sortable ones, each with a name, a heading and a comparison. */
static void test_column_table(void **state)
{
    (void)state;
    const struct allocation_column_info *columns = allocation_columns();
    char header[512] = "";
    for (int id = 0; id < ALLOCATION_COLUMN_COUNT; id++) {
        assert_ptr_equal(allocation_column((enum table_column)id), &columns[id]);
        assert_int_equal(columns[id].id, id);
        assert_non_null(columns[id].value);
        assert_true(columns[id].name[0] && columns[id].csv_name[0]);
        /* Kind, location, total and share came after the CSV's other
         * columns, and sort. */
        bool sortable = id < TABLE_COLUMN_COUNT || id == TABLE_COLUMN_KIND ||
                        id == TABLE_COLUMN_LOCATION || id == TABLE_COLUMN_TOTAL_BYTES ||
                        id == TABLE_COLUMN_SHARE;
        assert_int_equal(allocation_column_sortable((enum table_column)id), sortable);
        assert_int_equal(columns[id].compare != NULL, sortable);
        enum table_column found = TABLE_COLUMN_FILE_ORDER;
        assert_true(allocation_column_find(columns[id].csv_name, strlen(columns[id].csv_name),
                                           &found));
        assert_int_equal(found, id);
        /* One short name each, which finds the column too, and names
         * no other column's CSV name. */
        found = TABLE_COLUMN_FILE_ORDER;
        assert_true(allocation_column_find(columns[id].name, strlen(columns[id].name), &found));
        assert_int_equal(found, id);
        for (int other = 0; other < ALLOCATION_COLUMN_COUNT; other++)
            if (other != id)
                assert_true(strcmp(columns[id].name, columns[other].name) != 0 &&
                            strcmp(columns[id].name, columns[other].csv_name) != 0);
        snprintf(header + strlen(header), sizeof header - strlen(header), "%s%s", id ? "," : "",
                 columns[id].csv_name);
    }
    assert_string_equal(header, "op_name,allocation_bytes,requested_bytes,occurrences,"
                                "region_type,data_type,tensor_shape,step_id,time_ps,address,"
                                "activity,origin,snapshot_index,special_index,kind,location,"
                                "stack,total_bytes,share");
    assert_null(allocation_column(TABLE_COLUMN_FILE_ORDER));
    assert_null(allocation_column(ALLOCATION_COLUMN_COUNT));
    assert_true(allocation_column_sortable(TABLE_COLUMN_FILE_ORDER));
    enum table_column found;
    assert_false(allocation_column_find("op_nam", 6, &found));
    /* The header says what the status line and --sort say. */
    assert_string_equal(allocation_column(TABLE_COLUMN_ALLOCATION_BYTES)->name, "size");
    assert_string_equal(allocation_table_column_name(TABLE_COLUMN_ALLOCATION_BYTES), "size");
    assert_string_equal(allocation_table_column_name(TABLE_COLUMN_OCCURRENCES), "count");
    assert_string_equal(allocation_table_column_name(TABLE_COLUMN_OP_NAME), "op");
    assert_string_equal(allocation_table_column_name(TABLE_COLUMN_FILE_ORDER), "file order");
    assert_true(allocation_column_find("size", 4, &found));
    assert_int_equal(found, TABLE_COLUMN_ALLOCATION_BYTES);
    assert_true(allocation_column_find("total", 5, &found));
    assert_int_equal(found, TABLE_COLUMN_TOTAL_BYTES);
}

/* Values as the CSV writes them: raw numbers, the profile's text, an
 * absent time for rows without one. */
static void test_column_values(void **state)
{
    struct fixture *fixture = *state;
    const struct allocation_row *row = &fixture->profile->allocators[0].rows[1];
    struct allocation_context context = {fixture->profile, 2700};
    struct allocation_value value = allocation_column(TABLE_COLUMN_OP_NAME)->value(&context, row);
    assert_string_equal(value.text.bytes, "conv2d_1");
    value = allocation_column(TABLE_COLUMN_OCCURRENCES)->value(&context, row);
    assert_int_equal(value.integer, 2);
    value = allocation_column(TABLE_COLUMN_ORIGIN)->value(&context, row);
    assert_string_equal(value.text.bytes, "snapshot");
    value = allocation_column(TABLE_COLUMN_TIME_PS)->value(&context, row);
    assert_false(value.absent);
    /* What the row holds: 400 bytes twice, 800 of the 2700 of the peak. */
    value = allocation_column(TABLE_COLUMN_TOTAL_BYTES)->value(&context, row);
    assert_int_equal(value.integer, 800);
    value = allocation_column(TABLE_COLUMN_SHARE)->value(&context, row);
    assert_false(value.absent);
    assert_true(value.fraction > 800.0 / 2700.0 - 1e-12 && value.fraction < 800.0 / 2700.0 + 1e-12);
    context.peak_bytes = 0; /* no peak known: no share */
    assert_true(allocation_column(TABLE_COLUMN_SHARE)->value(&context, row).absent);
    const struct allocation_row *unresolved = &fixture->profile->allocators[0].rows[3];
    value = allocation_column(TABLE_COLUMN_TIME_PS)->value(&context, unresolved);
    assert_true(value.absent);
    value = allocation_column(TABLE_COLUMN_ORIGIN)->value(&context, unresolved);
    assert_string_equal(value.text.bytes, "unresolved");
    /* The table's context: its allocator's peak. */
    context = allocation_table_context(&fixture->table);
    assert_ptr_equal(context.profile, fixture->profile);
    assert_int_equal(context.peak_bytes, fixture->profile->allocators[0].summary.peak_bytes);
}

/* Rows of a report without a timeline (Skyline's): kind and location
 * filled, the snapshot's columns empty; location sorts by file, then by
 * line as a number; the sort key's cycle passes over the columns no row
 * fills, in either kind of table. */
static void test_entry_rows(void **state)
{
    struct fixture *fixture = *state;
    struct profile *profile = fixture->profile;
    struct string_table *strings = profile->strings;
    uint32_t weight = string_table_intern(strings, "weight", 6);
    struct allocation_row rows[3];
    const char *const locations[] = {"model.py:10", "model.py:9", "a.py:100"};
    const int64_t lines[] = {10, 9, 100};
    for (size_t i = 0; i < 3; i++) {
        const char *location = locations[i];
        rows[i] = (struct allocation_row){
            .origin = ROW_FROM_ENTRY, .snapshot_index = -1, .special_index = -1,
            .occurrences = 1, .allocation_bytes = 100, .op_name = weight, .kind = weight,
            .location = string_table_intern(strings, location, strlen(location)),
            .location_file = string_table_intern(strings, location, strcspn(location, ":")),
            .location_line = lines[i],
            .stack = string_table_intern(strings, location, strlen(location))};
    }
    static const enum table_column empty[] = {
        TABLE_COLUMN_REQUESTED_BYTES, TABLE_COLUMN_OCCURRENCES, TABLE_COLUMN_STEP_ID,
        TABLE_COLUMN_ADDRESS,         TABLE_COLUMN_ACTIVITY,    TABLE_COLUMN_SNAPSHOT_INDEX,
        TABLE_COLUMN_SPECIAL_INDEX,   TABLE_COLUMN_TIME_PS,
    };
    struct allocation_context context = {profile, 1000};
    for (size_t i = 0; i < sizeof empty / sizeof *empty; i++)
        assert_true(allocation_column(empty[i])->value(&context, &rows[0]).absent);
    assert_string_equal(allocation_column(TABLE_COLUMN_ORIGIN)->value(&context, &rows[0]).text.bytes,
                        "entry");
    assert_string_equal(allocation_column(TABLE_COLUMN_KIND)->value(&context, &rows[0]).text.bytes,
                        "weight");

    struct allocation_row_source source = {
        .profile = profile, .rows = rows, .count = 3, .label = "in the report"};
    struct allocation_table table;
    assert_true(allocation_table_init_source(&table, &source));
    /* A size <= 0 (a view, an in-place op) is not counted in the total. */
    assert_int_equal(allocation_table_shown_bytes(&table), 300);
    rows[1].allocation_bytes = -50;
    assert_true(allocation_row_is_uncounted(&rows[1]));
    assert_false(allocation_row_is_uncounted(&fixture->profile->allocators[0].rows[0]));
    assert_int_equal(allocation_table_shown_bytes(&table), 200);
    rows[1].allocation_bytes = 100;
    allocation_table_set_sort(&table, TABLE_COLUMN_LOCATION, false);
    assert_ptr_equal(allocation_table_row(&table, 0), &rows[2]); /* a.py */
    assert_ptr_equal(allocation_table_row(&table, 1), &rows[1]); /* model.py:9 */
    assert_ptr_equal(allocation_table_row(&table, 2), &rows[0]); /* model.py:10 */
    assert_true(allocation_table_column_filled(&table, TABLE_COLUMN_KIND));
    assert_false(allocation_table_column_filled(&table, TABLE_COLUMN_REGION_TYPE));
    assert_false(allocation_table_column_filled(&table, TABLE_COLUMN_REQUESTED_BYTES));
    /* An entry's total is its size (no occurrences: one tensor). */
    assert_int_equal(allocation_column(TABLE_COLUMN_TOTAL_BYTES)->value(&context, &rows[0]).integer,
                     100);
    /* No allocator, so no peak: no share either. */
    static const enum table_column entry_steps[] = {
        TABLE_COLUMN_ALLOCATION_BYTES, TABLE_COLUMN_TOTAL_BYTES, TABLE_COLUMN_KIND,
        TABLE_COLUMN_LOCATION, TABLE_COLUMN_OP_NAME, TABLE_COLUMN_FILE_ORDER};
    enum table_column column = TABLE_COLUMN_FILE_ORDER;
    for (size_t i = 0; i < sizeof entry_steps / sizeof *entry_steps; i++) {
        column = allocation_table_step_sort(&table, view_order, VIEW_ORDER_COUNT, column, 1);
        assert_int_equal(column, entry_steps[i]);
    }
    /* Location groups and the filter by location. */
    assert_true(allocation_table_set_filter(&table, "MODEL.PY"));
    assert_int_equal(table.count, 2);
    assert_true(allocation_table_set_filter(&table, ""));
    assert_true(allocation_table_set_within(&table, ROW_GROUP_FILE, text_of("model.py")));
    assert_int_equal(table.count, 2);
    assert_true(allocation_table_set_within(&table, ROW_GROUP_LOCATION, text_of("a.py:100")));
    assert_int_equal(table.count, 1);
    assert_ptr_equal(allocation_table_row(&table, 0), &rows[2]);
    allocation_table_free(&table);

    /* The XProf file's table: no kind, no location. */
    assert_false(allocation_table_column_filled(&fixture->table, TABLE_COLUMN_KIND));
    assert_false(allocation_table_column_filled(&fixture->table, TABLE_COLUMN_LOCATION));
    assert_int_equal(allocation_table_step_sort(&fixture->table, view_order, VIEW_ORDER_COUNT,
                                                TABLE_COLUMN_TENSOR_SHAPE, 1),
                     TABLE_COLUMN_OP_NAME);
    assert_int_equal(allocation_table_step_sort(&fixture->table, view_order, VIEW_ORDER_COUNT,
                                                TABLE_COLUMN_OP_NAME, 1),
                     TABLE_COLUMN_FILE_ORDER);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_file_order_default, setup_mixed, teardown_mixed),
        cmocka_unit_test_setup_teardown(test_sort_numbers, setup_mixed, teardown_mixed),
        cmocka_unit_test_setup_teardown(test_sort_text, setup_mixed, teardown_mixed),
        cmocka_unit_test_setup_teardown(test_filter_case_insensitive, setup_mixed,
                                        teardown_mixed),
        cmocka_unit_test_setup_teardown(test_filter_every_field_and_least_size, setup_mixed,
                                        teardown_mixed),
        cmocka_unit_test_setup_teardown(test_empty_filter_and_no_match, setup_mixed,
                                        teardown_mixed),
        cmocka_unit_test_setup_teardown(test_unresolved_rows, setup_mixed, teardown_mixed),
        cmocka_unit_test_setup_teardown(test_breakdown_by_region_and_type, setup_mixed,
                                        teardown_mixed),
        cmocka_unit_test(test_breakdown_of_many_groups),
        cmocka_unit_test(test_stability_many_ties),
        cmocka_unit_test(test_special_rows_and_no_allocator),
        cmocka_unit_test(test_matches),
        cmocka_unit_test_setup_teardown(test_sort_steps, setup_mixed, teardown_mixed),
        cmocka_unit_test_setup_teardown(test_rows_from_another_source, setup_mixed,
                                        teardown_mixed),
        cmocka_unit_test(test_column_table),
        cmocka_unit_test_setup_teardown(test_column_values, setup_mixed, teardown_mixed),
        cmocka_unit_test_setup_teardown(test_entry_rows, setup_mixed, teardown_mixed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
