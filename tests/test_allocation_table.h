/* test_allocation_table.h: what the files of tests/test_allocation_table
 * share.
 *
 * Profiles made of row specs, the mixed-rows fixture and the order check
 * (test_allocation_table.c), and every test, so that main lists them all
 * in one cmocka group (one TAP plan, the same test names). Only
 * tests/test_allocation_table includes it. */
#ifndef TESTS_TEST_ALLOCATION_TABLE_H
#define TESTS_TEST_ALLOCATION_TABLE_H

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

struct row_spec {
    const char *op;
    int64_t allocation_bytes;
    int64_t requested_bytes;
    int64_t occurrences;
    const char *region;
    const char *data_type;
    const char *shape;
};

struct fixture {
    struct profile *profile;
    struct allocation_table table;
};

#define ASSERT_ORDER(table, ...)                                                   \
    do {                                                                           \
        const size_t expected_[] = {__VA_ARGS__};                                  \
        assert_order((table), expected_, sizeof expected_ / sizeof *expected_);    \
    } while (0)
#define VIEW_ORDER_COUNT (sizeof view_order / sizeof *view_order)

struct expected_group {
    const char *name;
    int64_t bytes;
};

extern const enum table_column view_order[11];

uint32_t intern(struct test_draft *profile, const char *text);
struct profile *profile_with_rows(const struct row_spec *specs, size_t count);
void assert_order(const struct allocation_table *table, const size_t *expected, size_t count);
void test_file_order_default(void **state);
void test_sort_numbers(void **state);
void test_sort_text(void **state);
void test_filter_case_insensitive(void **state);
void test_filter_every_field_and_least_size(void **state);
void test_empty_filter_and_no_match(void **state);
void test_unresolved_rows(void **state);
void test_stability_many_ties(void **state);
void test_special_rows_and_no_allocator(void **state);
void test_matches(void **state);
void test_sort_steps(void **state);
void test_breakdown_by_region_and_type(void **state);
void test_breakdown_of_many_groups(void **state);
void test_rows_from_another_source(void **state);
void test_column_table(void **state);
void test_column_values(void **state);
void test_entry_rows(void **state);

#endif
