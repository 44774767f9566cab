#include "config.h"

/* Tests of the allocation table (model/query/allocation_table.h): order, filter,
 * breakdowns and columns. This file holds the shared helpers (profiles made
 * of row specs, the mixed-rows fixture, the order check) and main, the list
 * of the tests; they live in test_allocation_table_sort.c and _columns.c and
 * share tests/test_allocation_table.h. */

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

uint32_t intern(struct test_draft *profile, const char *text)
{
    return test_draft_intern(profile, text);
}

/* A finished profile with one allocator whose rows are `specs` in this
 * order; a spec with a NULL op becomes a row whose snapshot index points
 * nowhere (unresolved). */
struct profile *profile_with_rows(const struct row_spec *specs, size_t count)
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

static int setup_mixed(void **state)
{
    static struct fixture fixture;
    fixture.profile = profile_with_rows(mixed_rows, sizeof mixed_rows / sizeof *mixed_rows);
    assert_true(allocation_table_init_xprof(&fixture.table, fixture.profile,
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
void assert_order(const struct allocation_table *table, const size_t *expected,
                  size_t count)
{
    assert_int_equal(table->count, count);
    for (size_t i = 0; i < count; i++) {
        const struct allocation_row *row = allocation_table_row(table, i);
        assert_non_null(row);
        assert_int_equal(row - table->source.rows, expected[i]);
    }
    assert_null(allocation_table_row(table, count));
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
