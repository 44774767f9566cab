/* Tests of model/integer_map against a plain array of keys, with keys
 * that share their home slot, so removal must shift the ones after. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "model/util/integer_map.h"

#define KEYS 512

static void test_against_array(void **state)
{
    (void)state;
    /* present[k]: whether key k * 4096 (aligned, like addresses) is in. */
    static uint32_t values[KEYS];
    static bool present[KEYS];
    struct integer_map map = {0};
    uint64_t random = 7;
    for (int round = 0; round < 20000; round++) {
        random = random * 6364136223846793005u + 1442695040888963407u;
        size_t k = (size_t)(random >> 33) % KEYS;
        uint64_t key = (uint64_t)k * 4096;
        if ((random >> 20) % 3 == 0) {
            uint32_t removed = 0;
            assert_int_equal(integer_map_remove(&map, key, &removed), present[k]);
            if (present[k])
                assert_int_equal(removed, values[k]);
            present[k] = false;
        } else {
            values[k] = (uint32_t)round;
            present[k] = true;
            assert_true(integer_map_put(&map, key, values[k]));
        }
        size_t count = 0;
        for (size_t j = 0; j < KEYS; j++) {
            uint32_t *found = integer_map_find(&map, (uint64_t)j * 4096);
            assert_int_equal(found != NULL, present[j]);
            if (found)
                assert_int_equal(*found, values[j]);
            count += present[j];
        }
        assert_int_equal(map.count, count);
    }
    integer_map_free(&map);
}

static void test_zero_key_and_reset(void **state)
{
    (void)state;
    struct integer_map map = {0};
    assert_null(integer_map_find(&map, 0));
    assert_false(integer_map_remove(&map, 0, NULL));
    assert_true(integer_map_put(&map, 0, 5));
    assert_int_equal(*integer_map_find(&map, 0), 5);
    for (uint64_t key = 1; key <= 10000; key++)
        assert_true(integer_map_put(&map, key, (uint32_t)key));
    size_t big = map.capacity;
    /* A reset for far fewer keys gives the room back; the map is empty. */
    assert_true(integer_map_reset(&map, 10));
    assert_true(map.capacity < big);
    assert_int_equal(map.count, 0);
    assert_null(integer_map_find(&map, 0));
    assert_null(integer_map_find(&map, 77));
    /* A reset for as many keys keeps the room and can hold them. */
    assert_true(integer_map_reset(&map, 100));
    size_t capacity = map.capacity;
    for (uint64_t key = 0; key < 100; key++)
        assert_true(integer_map_put(&map, key, 1));
    assert_int_equal(map.capacity, capacity);
    integer_map_free(&map);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_array),
        cmocka_unit_test(test_zero_key_and_reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
