/* Strings that hold a NUL byte (issue 16.4), from the file to the
 * finished profile: map keys and string values of both loaders keep
 * every byte, so "A\0x" and "A\0y" stay two allocators, "a\0b" stays
 * "a\0b"; and json_string's counting of what cJSON decoded. What the
 * views and reports make of such strings is tested with them
 * (test_draw, test_csv_writer, test_json_writer, test_cli.sh). */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "model/decode/json_string.h"
#include "model/load.h"
#include "tests/test_support.h"

#define TOKEN(literal) literal, sizeof literal - 1

static void test_decoded_lengths(void **state)
{
    (void)state;
    assert_int_equal(json_string_decoded_length(TOKEN("\"\"")), 0);
    assert_int_equal(json_string_decoded_length(TOKEN("\"a\\u0000b\"")), 3);
    assert_int_equal(json_string_decoded_length(TOKEN("\"\\n\\\"\\\\\\/\"")), 4);
    assert_int_equal(json_string_decoded_length(TOKEN("\"\\u00e9\\u20ac\"")), 5);
    assert_int_equal(json_string_decoded_length(TOKEN("\"\\ud83d\\ude00!\"")), 5);
    assert_int_equal(json_string_decoded_length(TOKEN("\"raw\0nul\"")), 7);
    assert_true(json_text_may_hold_nul(TOKEN("{\"a\":\"\\u0000\"}")));
    assert_true(json_text_may_hold_nul(TOKEN("\"\0\"")));
    assert_true(json_text_may_hold_nul(TOKEN("\"\\u00001\\\\\"")));
    assert_false(json_text_may_hold_nul(TOKEN("{\"a\":\"\\u0001\\\\u000\"}")));
}

/* Every string of a parsed value that holds a NUL gets its length; the
 * others read as they are, and member names are skipped in step. */
static void test_marked_lengths(void **state)
{
    (void)state;
    const char json[] = "{\"k\\u0000\":[\"a\\u0000b\",1,{\"\\\"q\":\"plain\"},\"\\u0000\"],"
                        "\"s\":\"x\\\"\\u0000y\"}";
    cJSON *item = cJSON_ParseWithLength(json, sizeof json - 1);
    assert_non_null(item);
    json_string_mark_lengths(item, json, sizeof json - 1);
    const cJSON *list = item->child;
    struct text a = json_string_text(cJSON_GetArrayItem(list, 0));
    assert_int_equal(a.length, 3);
    assert_memory_equal(a.bytes, "a\0b", 3);
    struct text plain = json_string_text(cJSON_GetArrayItem(list, 2)->child);
    assert_int_equal(plain.length, 5);
    assert_int_equal(json_string_text(cJSON_GetArrayItem(list, 3)).length, 1);
    struct text s = json_string_text(list->next);
    assert_int_equal(s.length, 4);
    assert_memory_equal(s.bytes, "x\"\0y", 4);
    cJSON_Delete(item);
}

static struct profile *load(const char *bytes, size_t size)
{
    struct profile *profile = NULL;
    struct load_error error = {0};
    enum load_status status = profile_load_bytes((const uint8_t *)bytes, size, "test", NULL,
                                                 &profile, &error);
    if (status != LOAD_OK)
        fail_msg("%s", error.message);
    return profile;
}

static void assert_id(const struct profile *profile, size_t index, const char *bytes,
                      size_t length)
{
    assert_true(index < profile->allocator_count);
    struct text id = profile_string(profile, profile->allocators[index].id);
    assert_int_equal(id.length, length);
    assert_memory_equal(id.bytes, bytes, length);
}

/* {"c\u0000x":...,"c\u0000y":...}: two allocators, not one "c" with a
 * warning that the key repeats; the op "a\u0000b" keeps its "b". */
static void test_json_keys_and_values_keep_their_nul(void **state)
{
    (void)state;
    const char json[] =
        "{\"memoryProfilePerAllocator\":{\"c\\u0000x\":{\"memoryProfileSnapshots\":["
        "{\"timeOffsetPs\":\"1\",\"activityMetadata\":{\"memoryActivity\":\"ALLOCATION\","
        "\"tfOpName\":\"a\\u0000b\",\"allocationBytes\":\"64\"}}],"
        "\"activeAllocations\":[{\"snapshotIndex\":\"0\",\"specialIndex\":\"-1\"}]},"
        "\"c\\u0000y\":{\"memoryProfileSnapshots\":[{\"timeOffsetPs\":\"2\"}]}},"
        "\"memoryIds\":[\"c\\u0000y\",\"c\\u0000x\"]}";
    struct profile *profile = load(json, sizeof json - 1);
    assert_int_equal(profile->allocator_count, 2);
    assert_int_equal(profile->warning_count, 0);
    /* memoryIds, read with their NUL, put "c\0y" first. */
    assert_id(profile, 0, "c\0y", 3);
    assert_id(profile, 1, "c\0x", 3);
    const struct allocator *x = &profile->allocators[1];
    assert_int_equal(x->row_count, 1);
    struct text op = profile_string(profile, x->rows[0].op_name);
    assert_int_equal(op.length, 3);
    assert_memory_equal(op.bytes, "a\0b", 3);
    profile_free(profile);
}

/* A key holding a NUL given twice is warned about whole: the warning
 * keeps its bytes, and shows "c\x00x", not "c". */
static void test_repeated_key_with_a_nul_is_named_whole(void **state)
{
    (void)state;
    const char json[] = "{\"memoryProfilePerAllocator\":{\"c\\u0000x\":{},\"c\\u0000y\":{},"
                        "\"c\\u0000x\":{\"memoryProfileSnapshots\":[{\"timeOffsetPs\":\"1\"}]}}}";
    struct profile *profile = load(json, sizeof json - 1);
    assert_int_equal(profile->allocator_count, 2);
    assert_int_equal(profile->warning_count, 1);
    assert_string_equal(test_warning(profile, 0), "the file repeats map key \"c\\x00x\"; the last "
                                                  "entry wins, as protobuf reads it");
    profile_free(profile);
}

/* The binary form: keys A\0x and A\0y are two allocators, each found by
 * its bytes. */
static void test_protobuf_keys_keep_their_nul(void **state)
{
    (void)state;
    /* MemoryProfile{memory_profile_per_allocator: {"A\0x": one snapshot},
     * {"A\0y": one snapshot}}, written out by hand. */
    const char entry_x[] = "\012\011\012\003A\000x\022\002\012\000";
    const char entry_y[] = "\012\011\012\003A\000y\022\002\012\000";
    char bytes[2 * sizeof entry_x];
    memcpy(bytes, entry_x, sizeof entry_x - 1);
    memcpy(bytes + sizeof entry_x - 1, entry_y, sizeof entry_y - 1);
    struct profile *profile = load(bytes, 2 * (sizeof entry_x - 1));
    assert_int_equal(profile->allocator_count, 2);
    assert_int_equal(profile->warning_count, 0);
    assert_id(profile, 0, "A\0x", 3);
    assert_id(profile, 1, "A\0y", 3);
    assert_int_equal(profile_find_allocator(profile, text_make("A\0y", 3)), 1);
    assert_int_equal(profile_find_allocator_named(profile, "A\\x00y"), 1);
    profile_free(profile);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decoded_lengths),
        cmocka_unit_test(test_marked_lengths),
        cmocka_unit_test(test_json_keys_and_values_keep_their_nul),
        cmocka_unit_test(test_repeated_key_with_a_nul_is_named_whole),
        cmocka_unit_test(test_protobuf_keys_keep_their_nul),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
