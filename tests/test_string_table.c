#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "model/string_table.h"

static void test_empty_string_is_id_zero(void **state)
{
    (void)state;
    struct string_table *table = string_table_new();
    assert_non_null(table);
    assert_int_equal(string_table_intern(table, "", 0), STRING_ID_EMPTY);
    assert_int_equal(string_table_intern(table, "abc", 0), STRING_ID_EMPTY);
    assert_string_equal(string_table_text(table, STRING_ID_EMPTY), "");
    assert_int_equal(string_table_count(table), 1);
    string_table_free(table);
}

static void test_same_bytes_same_id(void **state)
{
    (void)state;
    struct string_table *table = string_table_new();
    uint32_t a = string_table_intern(table, "model/dense/MatMul", 18);
    uint32_t b = string_table_intern(table, "model/dense/BiasAdd", 19);
    char copy[] = "model/dense/MatMul";
    uint32_t again = string_table_intern(table, copy, strlen(copy));
    assert_int_not_equal(a, b);
    assert_int_equal(a, again);
    assert_string_equal(string_table_text(table, a), "model/dense/MatMul");
    assert_int_equal(string_table_length(table, b), 19);
    assert_int_equal(string_table_count(table), 3);
    string_table_free(table);
}

static void test_length_not_terminator_delimits(void **state)
{
    (void)state;
    struct string_table *table = string_table_new();
    uint32_t prefix = string_table_intern(table, "float32", 5);
    uint32_t whole = string_table_intern(table, "float32", 7);
    assert_int_not_equal(prefix, whole);
    assert_string_equal(string_table_text(table, prefix), "float");
    string_table_free(table);
}

static void test_bytes_kept_exactly(void **state)
{
    (void)state;
    struct string_table *table = string_table_new();
    const char hostile[] = "op\x1b[31mred\xff\xfe";
    uint32_t id = string_table_intern(table, hostile, sizeof hostile - 1);
    assert_memory_equal(string_table_text(table, id), hostile, sizeof hostile);
    string_table_free(table);
}

static void test_many_strings_grow_and_stay_distinct(void **state)
{
    (void)state;
    struct string_table *table = string_table_new();
    enum { COUNT = 100000 };
    static uint32_t ids[COUNT];
    char text[32];
    for (int i = 0; i < COUNT; i++) {
        int length = snprintf(text, sizeof text, "op_%d", i);
        ids[i] = string_table_intern(table, text, (size_t)length);
        assert_int_not_equal(ids[i], STRING_ID_NONE);
    }
    assert_int_equal(string_table_count(table), COUNT + 1);
    for (int i = 0; i < COUNT; i += 997) {
        int length = snprintf(text, sizeof text, "op_%d", i);
        assert_int_equal(string_table_intern(table, text, (size_t)length), ids[i]);
        assert_string_equal(string_table_text(table, ids[i]), text);
    }
    string_table_free(table);
}

static void test_long_string_larger_than_a_chunk(void **state)
{
    (void)state;
    struct string_table *table = string_table_new();
    enum { LENGTH = 200000 };
    static char text[LENGTH];
    memset(text, 'x', LENGTH);
    uint32_t id = string_table_intern(table, text, LENGTH);
    assert_int_equal(string_table_length(table, id), LENGTH);
    assert_int_equal(string_table_intern(table, text, LENGTH), id);
    string_table_free(table);
}

static void test_unknown_id_is_empty(void **state)
{
    (void)state;
    struct string_table *table = string_table_new();
    assert_string_equal(string_table_text(table, 12345), "");
    assert_int_equal(string_table_length(table, STRING_ID_NONE), 0);
    string_table_free(table);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_string_is_id_zero),
        cmocka_unit_test(test_same_bytes_same_id),
        cmocka_unit_test(test_length_not_terminator_delimits),
        cmocka_unit_test(test_bytes_kept_exactly),
        cmocka_unit_test(test_many_strings_grow_and_stay_distinct),
        cmocka_unit_test(test_long_string_larger_than_a_chunk),
        cmocka_unit_test(test_unknown_id_is_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
