/* test_load_json_refused: every wrong input the JSON loader must refuse with a
 * message that names the place (tests/test_load_json): wrong types, long
 * texts, syntax errors, trailing garbage, empty input, deep nesting, input
 * ending at a page end. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "model/load.h"
#include "model/load_internal.h"
#include "model/profile.h"
#include "model/formats/memory_profile/xprof_draft.h"
#include "tests/test_support.h"
#include "tests/wire_builder.h"

#include "tests/formats/memory_profile/test_load_json.h"

/* ---- refused inputs ---- */

void test_wrong_types_name_the_path(void **state)
{
    (void)state;
    static const struct {
        const char *json;
        const char *message;
    } cases[] = {
        {"{\"memoryProfilePerAllocator\":\"x\"}",
         "memoryProfilePerAllocator: expected an object, got \"x\""},
        {"{\"memoryProfilePerAllocator\":[]}",
         "memoryProfilePerAllocator: expected an object, got an array"},
        {"{\"memoryProfilePerAllocator\":{\"0\":null}}",
         "memoryProfilePerAllocator.0: expected an object, got null"},
        {"{\"memoryProfilePerAllocator\":{\"0\":{},\"1\":7}}",
         "memoryProfilePerAllocator.1: expected an object, got 7"},
        {ALLOCATOR("\"sampledTimelineSnapshots\":{}"),
         ALLOCATOR_PATH "sampledTimelineSnapshots: expected an array, got an object"},
        {ALLOCATOR("\"sampledTimelineSnapshots\":[{},\"s\"]"),
         ALLOCATOR_PATH "sampledTimelineSnapshots[1]: expected an object, got \"s\""},
        {ALLOCATOR("\"memory_profile_snapshots\":[null]"),
         ALLOCATOR_PATH "memory_profile_snapshots[0]: expected an object, got null"},
        {ALLOCATOR("\"memoryProfileSnapshots\":[{\"aggregationStats\":[]}]"),
         ALLOCATOR_PATH "memoryProfileSnapshots[0].aggregationStats: expected an object, got an array"},
        {ALLOCATOR("\"memoryProfileSnapshots\":[{\"aggregationStats\":{\"heapAllocatedBytes\":{}}}]"),
         ALLOCATOR_PATH "memoryProfileSnapshots[0].aggregationStats.heapAllocatedBytes: "
                        "expected a 64-bit integer, got an object"},
        {ALLOCATOR("\"memoryProfileSnapshots\":[{\"aggregationStats\":{\"fragmentation\":\"x\"}}]"),
         ALLOCATOR_PATH "memoryProfileSnapshots[0].aggregationStats.fragmentation: "
                        "expected a number, got \"x\""},
        {ALLOCATOR("\"memoryProfileSnapshots\":[{\"activityMetadata\":true}]"),
         ALLOCATOR_PATH "memoryProfileSnapshots[0].activityMetadata: expected an object, got true"},
        {ALLOCATOR("\"memoryProfileSnapshots\":[{\"activityMetadata\":{\"tfOpName\":12}}]"),
         ALLOCATOR_PATH "memoryProfileSnapshots[0].activityMetadata.tfOpName: "
                        "expected a string, got 12"},
        {ALLOCATOR("\"memoryProfileSnapshots\":[{\"activityMetadata\":{\"tensorShape\":[2,2]}}]"),
         ALLOCATOR_PATH "memoryProfileSnapshots[0].activityMetadata.tensorShape: "
                        "expected a string, got an array"},
        {ALLOCATOR("\"memoryProfileSnapshots\":[{\"activityMetadata\":{\"memoryActivity\":\"FOO\"}}]"),
         ALLOCATOR_PATH "memoryProfileSnapshots[0].activityMetadata.memoryActivity: "
                        "expected a MemoryActivity name or number, got \"FOO\""},
        {ALLOCATOR("\"memoryProfileSnapshots\":[{\"activityMetadata\":{\"memoryActivity\":\"allocation\"}}]"),
         ALLOCATOR_PATH "memoryProfileSnapshots[0].activityMetadata.memoryActivity: "
                        "expected a MemoryActivity name or number, got \"allocation\""},
        {ALLOCATOR("\"memoryProfileSnapshots\":[{\"activityMetadata\":{\"memoryActivity\":1.5}}]"),
         ALLOCATOR_PATH "memoryProfileSnapshots[0].activityMetadata.memoryActivity: "
                        "expected a MemoryActivity name or number, got 1.5"},
        {ALLOCATOR("\"memoryProfileSnapshots\":[{\"activityMetadata\":{\"memoryActivity\":4294967297}}]"),
         ALLOCATOR_PATH "memoryProfileSnapshots[0].activityMetadata.memoryActivity: "
                        "expected a MemoryActivity name or number, got 4294967297"},
        {ALLOCATOR("\"specialAllocations\":[[]]"),
         ALLOCATOR_PATH "specialAllocations[0]: expected an object, got an array"},
        {ALLOCATOR("\"specialAllocations\":[{\"address\":\"0x10\"}]"),
         ALLOCATOR_PATH "specialAllocations[0].address: "
                        "expected an unsigned 64-bit integer, got \"0x10\""},
        {ALLOCATOR("\"activeAllocations\":[{},{},{\"snapshotIndex\":true}]"),
         ALLOCATOR_PATH "activeAllocations[2].snapshotIndex: expected a 64-bit integer, got true"},
        {ALLOCATOR("\"active_allocations\":5"),
         ALLOCATOR_PATH "active_allocations: expected an array, got 5"},
        {ALLOCATOR("\"profileSummary\":\"x\""),
         ALLOCATOR_PATH "profileSummary: expected an object, got \"x\""},
        {ALLOCATOR("\"profileSummary\":{\"peakStats\":{\"peakBytesInUse\":false}}"),
         ALLOCATOR_PATH "profileSummary.peakStats.peakBytesInUse: "
                        "expected a 64-bit integer, got false"},
        {ALLOCATOR("\"profile_summary\":{\"memory_capacity\":\"1.5\"}"),
         ALLOCATOR_PATH "profile_summary.memory_capacity: expected a 64-bit integer, got \"1.5\""},
        {"{\"memoryIds\":\"0\"}", "memoryIds: expected an array, got \"0\""},
        {"{\"memoryIds\":[\"0\",1]}", "memoryIds[1]: expected a string, got 1"},
        {"{\"memory_ids\":[null]}", "memory_ids[0]: expected a string, got null"},
        {"{\"hloModules\":{}}", "hloModules: expected an array, got an object"},
        {"{\"hloModules\":[5]}", "hloModules[0]: expected an object, got 5"},
        {"{\"hloModules\":[{\"name\":5}]}", "hloModules[0].name: expected a string, got 5"},
        {"{\"hlo_modules\":[{},{\"end_time_ps\":\"9x\"}]}",
         "hlo_modules[1].end_time_ps: expected a 64-bit integer, got \"9x\""},
        /* File text in a message cannot reach the terminal raw. */
        {"{\"memoryProfilePerAllocator\":{\"a\\u001b[2J\\\"\":5}}",
         "memoryProfilePerAllocator.a\\x1b[2J\": expected an object, got 5"},
        /* A key holding a NUL is named whole (issue 16.4). */
        {"{\"memoryProfilePerAllocator\":{\"k\\u0000z\\\\\":5}}",
         "memoryProfilePerAllocator.k\\x00z\\\\: expected an object, got 5"},
        {"{\"version\":\"1\\u0000\"}", "version: expected a 32-bit integer, got \"1\\x00\""},
        {"{\"version\":\"\\r\\n\\u007f\xc3\xa9\"}",
         "version: expected a 32-bit integer, got \"\\x0d\\x0a\\x7f\xc3\xa9\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_bad(cases[i].json, cases[i].message);
}

void test_long_texts_are_cut_in_messages(void **state)
{
    (void)state;
    char json[1024];
    char long_value[201];
    memset(long_value, 'x', 200);
    long_value[200] = '\0';
    snprintf(json, sizeof json, "{\"version\":\"%s\"}", long_value);
    char message[256];
    snprintf(message, sizeof message, "version: expected a 32-bit integer, got \"%.40s...\"",
             long_value);
    expect_bad(json, message);

    /* Not inside a UTF-8 character: 39 bytes, then a two-byte one. */
    snprintf(json, sizeof json, "{\"version\":\"%.39s\xc3\xa9zzz\"}", long_value);
    snprintf(message, sizeof message, "version: expected a 32-bit integer, got \"%.39s...\"",
             long_value);
    expect_bad(json, message);

    /* A huge map key still leaves a one-line message that fits. */
    char key[601];
    memset(key, 'k', 600);
    key[600] = '\0';
    snprintf(json, sizeof json, "{\"memoryProfilePerAllocator\":{\"%s\":[]}}", key);
    struct test_draft *profile;
    struct load_error error;
    assert_int_equal(load_bytes(json, strlen(json), &profile, &error), LOAD_BAD_INPUT);
    test_draft_free(profile);
    assert_true(strlen(error.message) < LOAD_ERROR_SIZE);
    assert_non_null(strstr(error.message, "kkk...: expected an object, got an array"));
}

void test_syntax_errors_give_an_offset(void **state)
{
    (void)state;
    expect_bad("{\"a\":}", "offset 5: invalid JSON");
    expect_bad("{\"version\" 1}", "offset 11: invalid JSON");
    expect_bad("{\"a\":1,}", "offset 7: invalid JSON");
    expect_bad("[1,]", "offset 3: invalid JSON");
    /* cJSON points just inside a string it cannot close. */
    expect_bad("{\"a\":\"unterminated", "offset 6: invalid JSON");
    expect_bad("{\"a\":\"\\ud800\"}", "offset 6: invalid JSON");
    expect_bad("{", "offset 0: invalid JSON");
    expect_bad("nul", "offset 0: invalid JSON");
}

void test_trailing_garbage(void **state)
{
    (void)state;
    expect_bad("{} x", "offset 3: invalid JSON");
    expect_bad("{}{}", "offset 2: invalid JSON");
    expect_bad("[{}] ]", "offset 5: invalid JSON");
    expect_bad_bytes("{}\0", 3, "offset 2: invalid JSON");
    struct test_draft *profile = load_ok("{}\r\n\t \n");
    test_draft_free(profile);
}

void test_empty_input(void **state)
{
    (void)state;
    expect_bad_bytes("", 0, "offset 0: invalid JSON");
    expect_bad("   ", "offset 2: invalid JSON");
}

char *nested(size_t depth, const char *prefix, const char *suffix, bool close)
{
    size_t length = strlen(prefix) + 2 * depth + strlen(suffix) + 1;
    char *json = malloc(length);
    assert_non_null(json);
    strcpy(json, prefix);
    char *p = json + strlen(prefix);
    memset(p, '[', depth);
    p += depth;
    if (close) {
        memset(p, ']', depth);
        p += depth;
    }
    strcpy(p, suffix);
    return json;
}

void expect_invalid_json(const char *json)
{
    struct test_draft *profile;
    struct load_error error;
    assert_int_equal(load_bytes(json, strlen(json), &profile, &error), LOAD_BAD_INPUT);
    test_draft_free(profile);
    assert_true(strncmp(error.message, "offset ", 7) == 0);
    assert_non_null(strstr(error.message, ": invalid JSON"));
}

/* Valid JSON, maybe, but deeper than memtop reads: said so, not "invalid". */
void expect_too_deep(const char *json, size_t offset)
{
    struct test_draft *profile;
    struct load_error error;
    assert_int_equal(load_bytes(json, strlen(json), &profile, &error), LOAD_BAD_INPUT);
    test_draft_free(profile);
    char message[96];
    snprintf(message, sizeof message, "JSON nested deeper than 1000 levels at offset %zu", offset);
    assert_string_equal(error.message, message);
}

void test_deep_nesting_is_an_error(void **state)
{
    (void)state;
    char *json = nested(5000, "", "", false);
    expect_too_deep(json, 1000);
    free(json);
    json = nested(5000, "", "", true);
    expect_too_deep(json, 1000);
    free(json);
    json = nested(5000, "{\"unknown\":", "}", true);
    expect_too_deep(json, 1010);
    free(json);
    /* Within cJSON's limit an unknown deep value is just ignored. */
    json = nested(500, "{\"unknown\":", ",\"version\":1}", true);
    struct test_draft *profile = load_ok(json);
    assert_int_equal(profile->draft.version, 1);
    test_draft_free(profile);
    free(json);
}

/* load.c hands over a file mapping: input ending right at a page end, with
 * nothing readable after it, must not be read past. */
void test_input_ending_at_a_page_end(void **state)
{
    (void)state;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *pages = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                          -1, 0);
    assert_true(pages != MAP_FAILED);
    assert_int_equal(mprotect(pages + page, page, PROT_NONE), 0);
    static const struct {
        const char *json;
        enum load_status status;
    } cases[] = {
        {"{\"1\":1,", LOAD_BAD_INPUT},        {"{\"a\":\"\\", LOAD_BAD_INPUT},
        {"{\"a\":\"\\u12", LOAD_BAD_INPUT},   {"{\"a\":", LOAD_BAD_INPUT},
        {"[{\"version\":1", LOAD_BAD_INPUT}, {"{\"version\":12", LOAD_BAD_INPUT},
        {"{\"version\":1} ", LOAD_OK},        {"{\"memoryIds\":[\"0\"]}", LOAD_OK},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t length = strlen(cases[i].json);
        memcpy(pages + page - length, cases[i].json, length);
        struct test_draft *profile = test_draft_new();
        struct load_error error;
        assert_int_equal(load_json(pages + page - length, length, &profile->draft, &error),
                         cases[i].status);
        test_draft_free(profile);
    }
    munmap(pages, 2 * page);
}
