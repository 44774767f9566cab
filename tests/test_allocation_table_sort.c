/* test_allocation_table_sort: the table's order and filter
 * (tests/test_allocation_table): file order, sorting numbers and text,
 * case-insensitive filters on every field with a least size, unresolved
 * rows, stability with many ties, special rows, matches, sort steps. */
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
#include "model/query/allocation_table.h"
#include "model/query/peak_breakdown.h"

#include "tests/test_allocation_table.h"

void test_file_order_default(void **state)
{
    struct fixture *fixture = *state;
    struct allocation_table *table = &fixture->table;
    assert_int_equal(table->sort_column, TABLE_COLUMN_FILE_ORDER);
    ASSERT_ORDER(table, 0, 1, 2, 3, 4, 5);
    allocation_table_set_sort(table, TABLE_COLUMN_FILE_ORDER, true);
    ASSERT_ORDER(table, 5, 4, 3, 2, 1, 0);
    assert_int_equal(allocation_table_total(table), 6);
}

void test_sort_numbers(void **state)
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

void test_sort_text(void **state)
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

void test_filter_case_insensitive(void **state)
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
void test_filter_every_field_and_least_size(void **state)
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

void test_empty_filter_and_no_match(void **state)
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

void test_unresolved_rows(void **state)
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

void test_stability_many_ties(void **state)
{
    (void)state;
    struct row_spec specs[40];
    for (size_t i = 0; i < 40; i++)
        specs[i] = (struct row_spec){i % 3 ? "same" : "Same", 1024 * (int64_t)(i % 2), 7, 1,
                                     "temp", "float", "[1]"};
    struct profile *profile = profile_with_rows(specs, 40);
    struct allocation_table table;
    assert_true(allocation_table_init_xprof(&table, profile, &profile->allocators[0]));
    for (int column = TABLE_COLUMN_FILE_ORDER + 1; column < TABLE_COLUMN_COUNT; column++) {
        for (int descending = 0; descending < 2; descending++) {
            allocation_table_set_sort(&table, column, descending);
            assert_int_equal(table.count, 40);
            for (size_t i = 1; i < 40; i++) {
                size_t previous = table.order[i - 1], current = table.order[i];
                const struct allocation_row *a = &profile->allocators[0].xprof_rows[previous];
                const struct allocation_row *b = &profile->allocators[0].xprof_rows[current];
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

void test_special_rows_and_no_allocator(void **state)
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
    assert_true(allocation_table_init_xprof(&table, profile, &profile->allocators[0]));
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
    assert_true(allocation_table_init_xprof(&table, profile, NULL));
    assert_int_equal(table.count, 0);
    allocation_table_set_sort(&table, TABLE_COLUMN_OP_NAME, true);
    assert_true(allocation_table_set_filter(&table, "x"));
    assert_int_equal(table.count, 0);
    allocation_table_free(&table);
    profile_free(profile);
}

void test_matches(void **state)
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
const enum table_column view_order[] = {
    TABLE_COLUMN_ALLOCATION_BYTES, TABLE_COLUMN_REQUESTED_BYTES, TABLE_COLUMN_OCCURRENCES,
    TABLE_COLUMN_TOTAL_BYTES,      TABLE_COLUMN_SHARE,           TABLE_COLUMN_KIND,
    TABLE_COLUMN_REGION_TYPE,      TABLE_COLUMN_DATA_TYPE,       TABLE_COLUMN_TENSOR_SHAPE,
    TABLE_COLUMN_LOCATION,         TABLE_COLUMN_OP_NAME,
};

/* < and >: the sort steps along the columns as shown, file order past
 * both ends, over the columns no row fills (an XProf file has no kind
 * and no location). */
void test_sort_steps(void **state)
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
