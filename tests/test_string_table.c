#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
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

/* Hinted interning gives exactly the ids plain interning gives, whatever
 * mix of repeats, hints and hot-cache collisions the calls make. */
static void test_hinted_same_ids_as_plain(void **state)
{
    (void)state;
    struct string_table *hinted = string_table_new();
    struct string_table *plain = string_table_new();
    char text[32];
    uint64_t seed = 7;
    for (int i = 0; i < 200000; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        unsigned hint = (unsigned)(seed >> 60);
        /* Few values per hint most of the time (a data type), many sometimes. */
        unsigned value = (seed >> 33) % ((seed >> 20) % 8 == 0 ? 50000 : 3);
        int length = snprintf(text, sizeof text, "field%u/value%u", hint % 4, value);
        uint32_t a = string_table_intern_hinted(hinted, hint, text, (size_t)length);
        uint32_t b = string_table_intern(plain, text, (size_t)length);
        assert_int_equal(a, b);
        assert_string_equal(string_table_text(hinted, a), text);
    }
    assert_int_equal(string_table_count(hinted), string_table_count(plain));
    assert_int_equal(string_table_intern_hinted(hinted, 3, "", 0), STRING_ID_EMPTY);
    string_table_free(hinted);
    string_table_free(plain);
}

static void test_same_prefix_different_lengths(void **state)
{
    (void)state;
    /* 8..16-byte strings compare by two overlapping words: check the edges. */
    struct string_table *table = string_table_new();
    const char *texts[] = {"abcdefgh", "abcdefghi", "abcdefghijklmnop", "abcdefghijklmnoq",
                           "abcdefghijklmnopq", "bbcdefgh"};
    uint32_t ids[6];
    for (int i = 0; i < 6; i++)
        ids[i] = string_table_intern(table, texts[i], strlen(texts[i]));
    for (int i = 0; i < 6; i++) {
        for (int j = i + 1; j < 6; j++)
            assert_int_not_equal(ids[i], ids[j]);
        assert_int_equal(string_table_intern(table, texts[i], strlen(texts[i])), ids[i]);
    }
    string_table_free(table);
}

/* Strings are compared and hashed a word (or half a word) at a time, the
 * tail by an overlapping load: a change of one byte anywhere, at every
 * length, must make another string, through the slots, the hot cache and
 * the hints alike. */
static void test_one_byte_apart_at_every_length(void **state)
{
    (void)state;
    struct string_table *table = string_table_new();
    char text[41];
    for (size_t length = 1; length <= 40; length++) {
        memset(text, 'a', length);
        uint32_t base = string_table_intern(table, text, length);
        for (size_t position = 0; position < length; position++) {
            text[position] = 'b';
            uint32_t changed = string_table_intern(table, text, length);
            assert_int_not_equal(changed, base);
            assert_int_equal(string_table_length(table, changed), length);
            assert_memory_equal(string_table_text(table, changed), text, length);
            /* The hint holds the changed string now; the base must miss it. */
            assert_int_equal(string_table_intern_hinted(table, 1, text, length), changed);
            text[position] = 'a';
            assert_int_equal(string_table_intern_hinted(table, 1, text, length), base);
            assert_int_equal(string_table_intern(table, text, length), base);
        }
    }
    /* The empty string, then 40 lengths each with itself and one variant
     * per position. */
    assert_int_equal(string_table_count(table), 1 + 40 + 40 * 41 / 2);
    string_table_free(table);
}

/* Two tables with strings in common (the loader's two threads): after the
 * merge, every string of the second has an id in the first that names the
 * same bytes, old strings keep their ids, and nothing is stored twice. */
static void test_merge_maps_every_id(void **state)
{
    (void)state;
    struct string_table *table = string_table_new();
    struct string_table *other = string_table_new();
    char text[32];
    for (int i = 0; i < 30000; i++) {
        int length = snprintf(text, sizeof text, "shape[%d]", i);
        string_table_intern(i % 3 ? table : other, text, (size_t)length);
        if (i % 5 == 0)
            string_table_intern(other, text, (size_t)length);
    }
    size_t before = string_table_count(table);
    size_t count = string_table_count(other);
    uint32_t *ids = malloc(count * sizeof *ids);
    assert_non_null(ids);
    assert_true(string_table_merge(table, other, ids));
    assert_int_equal(ids[0], STRING_ID_EMPTY);
    size_t added = 0;
    for (size_t id = 0; id < count; id++) {
        size_t length = string_table_length(other, (uint32_t)id);
        assert_int_equal(string_table_length(table, ids[id]), length);
        assert_memory_equal(string_table_text(table, ids[id]),
                            string_table_text(other, (uint32_t)id), length);
        assert_int_equal(string_table_intern(table, string_table_text(other, (uint32_t)id), length),
                         ids[id]);
        added += ids[id] >= before;
    }
    /* 10000 strings only in `other`, 4000 more in both (every 5th of the
     * 20000 in `table`). */
    assert_int_equal(added, 10000);
    assert_int_equal(string_table_count(table), before + added);
    free(ids);
    string_table_free(table);
    string_table_free(other);
}

static void test_unknown_id_is_empty(void **state)
{
    (void)state;
    struct string_table *table = string_table_new();
    assert_string_equal(string_table_text(table, 12345), "");
    assert_int_equal(string_table_length(table, STRING_ID_NONE), 0);
    string_table_free(table);
}

/* Bytewise like std::string: bytes past 0x7f after ASCII, a prefix first,
 * a NUL inside compared like any byte. */
static void test_compare_is_bytewise(void **state)
{
    (void)state;
    struct string_table *table = string_table_new();
    uint32_t a = string_table_intern(table, "ab", 2);
    uint32_t ab0 = string_table_intern(table, "ab\0", 3);
    uint32_t ab0c = string_table_intern(table, "ab\0c", 4);
    uint32_t abc = string_table_intern(table, "abc", 3);
    uint32_t high = string_table_intern(table, "a\xff", 2);
    assert_int_equal(string_table_compare(table, a, a), 0);
    assert_true(string_table_compare(table, a, ab0) < 0);
    assert_true(string_table_compare(table, ab0, ab0c) < 0);
    assert_true(string_table_compare(table, ab0c, abc) < 0);
    assert_true(string_table_compare(table, abc, high) < 0);
    assert_true(string_table_compare(table, high, STRING_ID_EMPTY) > 0);
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
        cmocka_unit_test(test_hinted_same_ids_as_plain),
        cmocka_unit_test(test_same_prefix_different_lengths),
        cmocka_unit_test(test_one_byte_apart_at_every_length),
        cmocka_unit_test(test_merge_maps_every_id),
        cmocka_unit_test(test_unknown_id_is_empty),
        cmocka_unit_test(test_compare_is_bytewise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
