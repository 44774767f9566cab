/* test_load_json_spellings: the real XProf file and every spelling a proto3
 * JSON reader must accept (tests/test_load_json): camelCase and snake_case
 * keys, bare or quoted integers, enums as numbers, arrays, nulls, 64-bit
 * extremes, int32s, doubles, byte-exact strings, allocator order. */
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

/* ---- the real XProf file ---- */

void test_real_xprof_file(void **state)
{
    (void)state;
    char *path = test_real_path("xprof-tpu-v4-8-demo.memory_profile.json");
    if (!path)
        TEST_SKIP("no shared/data beside the source tree: no real XProf file");
    size_t size = 0;
    uint8_t *bytes = test_read_file(path, &size);
    free(path);
    assert_non_null(bytes);
    struct test_draft *profile;
    struct load_error error;
    enum load_status status = load_bytes(bytes, size, &profile, &error);
    assert_int_equal(status, LOAD_OK);

    assert_int_equal(profile->draft.version, 1);
    assert_int_equal(profile->draft.num_hosts, 1);
    assert_int_equal(built(profile)->allocator_count, 4);
    assert_int_equal(profile->draft.memory_id_count, 4);
    assert_int_equal(built(profile)->hlo_module_count, 40);
    const struct hlo_module *first = &built(profile)->hlo_modules[0];
    const struct hlo_module *last = &built(profile)->hlo_modules[39];
    assert_string_equal(text(profile, first->name), "jit_step(11448588407652663271)");
    assert_int_equal(first->start_time_ps, 87070070661);
    assert_int_equal(first->end_time_ps, 88890239143);
    assert_int_equal(first->id, 0);
    assert_string_equal(text(profile, first->plane_name), "TPU:0");
    assert_int_equal(last->id, 39);
    assert_string_equal(text(profile, last->plane_name), "TPU:7");

    for (size_t i = 0; i < 4; i++) {
        char id[2] = {(char)('0' + i), '\0'};
        assert_string_equal(text(profile, built(profile)->allocators[i].id), id);
        assert_string_equal(text(profile, profile->draft.memory_ids[i]), id);
    }
    const struct xprof_allocator *zero = &profile->draft.allocators[0];
    assert_int_equal(zero->sampled.count, 10);
    assert_int_equal(zero->snapshots.count, 1);
    assert_int_equal(zero->active_count, 3);
    assert_int_equal(zero->specials.count, 2);

    assert_true(zero->has_summary);
    assert_int_equal(zero->summary.capacity_bytes, 33014413312);
    assert_int_equal(zero->summary.lifetime_peak_bytes, 305938944);
    assert_int_equal(zero->summary.peak_time_ps, 1685890000);
    assert_int_equal(zero->summary.peak.stack_bytes, 65536);
    assert_int_equal(zero->summary.peak.heap_bytes, 305938944);
    assert_int_equal(zero->summary.peak.free_bytes, 32708408832);
    assert_true(zero->summary.peak.fragmentation == 0.000401934);
    assert_int_equal(zero->summary.peak.peak_bytes_in_use, 306004480);
    assert_int_equal(profile->draft.allocators[3].summary.peak_time_ps, 1695180000);

    struct snapshot s = column_at(&zero->sampled, 0);
    assert_int_equal(s.time_ps, 688500000);
    assert_int_equal(s.stack_bytes, 65536);
    assert_int_equal(s.heap_bytes, 238830080);
    assert_int_equal(s.free_bytes, 32775517696);
    assert_true(s.fragmentation == 0.00142488);
    assert_int_equal(s.peak_bytes_in_use, 255607296);
    assert_int_equal(s.activity, MEMORY_ACTIVITY_ALLOCATION);
    assert_int_equal(s.requested_bytes, 16777216);
    assert_int_equal(s.allocation_bytes, 16777216);
    assert_int_equal(s.address, 32997317632u);
    assert_int_equal(s.step_id, 0);
    assert_string_equal(text(profile, s.op_name), "dummy");
    assert_string_equal(text(profile, s.region_type), "");
    assert_string_equal(text(profile, s.data_type), "INVALID");
    assert_string_equal(text(profile, s.tensor_shape), "bf16[2048,4096]{1,0:T(8,128)(2,1)}");

    s = column_at(&profile->draft.allocators[3].sampled, 9);
    assert_int_equal(s.time_ps, 9821139000);
    assert_int_equal(s.activity, MEMORY_ACTIVITY_DEALLOCATION);
    assert_int_equal(s.address, 32712104960u);

    s = column_at(&zero->snapshots, 0);
    assert_int_equal(s.time_ps, 1685890000);
    assert_int_equal(s.address, 32695327744u);
    assert_int_equal(s.step_id, 4);

    s = column_at(&zero->specials, 0);
    assert_string_equal(text(profile, s.op_name), "unused preallocated device memory");
    assert_string_equal(text(profile, s.region_type), "persist/dynamic");
    assert_int_equal(s.requested_bytes, 289161728);
    s = column_at(&zero->specials, 1);
    assert_string_equal(text(profile, s.op_name), "stack");
    assert_int_equal(s.allocation_bytes, 65536);

    assert_int_equal(zero->active[0].snapshot_index, -1);
    assert_int_equal(zero->active[0].special_index, 0);
    assert_int_equal(zero->active[1].snapshot_index, 0);
    assert_int_equal(zero->active[1].special_index, -1);
    assert_int_equal(zero->active[2].snapshot_index, -2);
    assert_int_equal(zero->active[2].special_index, 1);
    assert_int_equal(zero->active[2].occurrences, 1);

    /* And the caller's next step takes it. */
    struct profile *finished = test_draft_finish(profile);
    assert_int_equal(finished->allocators[0].timeline.count, 10);
    assert_int_equal(finished->allocators[0].row_count, 3);

    /* The same file with the .proto's snake_case names reads the same. */
    char *camel = malloc(size + 1);
    assert_non_null(camel);
    memcpy(camel, bytes, size);
    camel[size] = '\0';
    char *snake = rewrite_strings(camel, true, false);
    assert_non_null(strstr(snake, "\"sampled_timeline_snapshots\":"));
    struct profile *again = load_finished(snake);
    test_assert_profiles_equal(finished, again);
    profile_free(again);
    free(snake);
    free(camel);
    free(bytes);
    profile_free(finished);
}

/* ---- accepted spellings ---- */

/* Every spelling of the same data gives the same finished profile. */
void test_all_spellings_give_identical_profiles(void **state)
{
    (void)state;
    char *camel = full_profile_variant("", false, false);
    struct profile *expected = load_finished(camel);
    assert_int_equal(expected->allocator_count, 2);

    char *enums_by_number = replace_all(camel, "\"ALLOCATION\"", "1");
    char *wrapped = malloc(strlen(camel) + 3);
    assert_non_null(wrapped);
    snprintf(wrapped, strlen(camel) + 3, "[%s]", camel);
    char *variants[] = {
        full_profile_variant("", true, false),
        full_profile_variant("", false, true),
        full_profile_variant("\"unknownField\":{\"a\":[1,null]},\"version\":null,", true, true),
        enums_by_number,
        wrapped,
    };
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
        assert_non_null(variants[i]);
        struct profile *profile = load_finished(variants[i]);
        test_assert_profiles_equal(expected, profile);
        profile_free(profile);
        free(variants[i]);
    }
    profile_free(expected);
    free(camel);
}

void test_camel_case(void **state)
{
    (void)state;
    check_variant("", false, false);
}

void test_snake_case_reads_the_same(void **state)
{
    (void)state;
    char *json = full_profile_variant("", true, false);
    assert_non_null(strstr(json, "\"memory_profile_per_allocator\""));
    assert_non_null(strstr(json, "\"stack_reserved_bytes\""));
    assert_null(strstr(json, "Bytes"));
    free(json);
    check_variant("", true, false);
}

void test_mixed_case_keys(void **state)
{
    (void)state;
    struct test_draft *profile = load_ok(
        "{\"memory_profile_per_allocator\":{\"a\":{\"sampledTimelineSnapshots\":"
        "[{\"time_offset_ps\":\"5\",\"aggregationStats\":{\"heap_allocated_bytes\":\"6\"},"
        "\"activity_metadata\":{\"tfOpName\":\"op\",\"step_id\":\"7\"}}]}},"
        "\"memoryIds\":[\"a\"],\"num_hosts\":3}");
    assert_int_equal(profile->draft.num_hosts, 3);
    assert_int_equal(profile->draft.memory_id_count, 1);
    struct snapshot s = column_at(&profile->draft.allocators[0].sampled, 0);
    assert_int_equal(s.time_ps, 5);
    assert_int_equal(s.heap_bytes, 6);
    assert_int_equal(s.step_id, 7);
    assert_string_equal(text(profile, s.op_name), "op");
    test_draft_free(profile);
}

void test_integers_as_bare_numbers(void **state)
{
    (void)state;
    char *json = full_profile_variant("", false, true);
    assert_non_null(strstr(json, "\"timeOffsetPs\":2000,"));
    assert_non_null(strstr(json, "\"requestedBytes\":-7,"));
    free(json);
    check_variant("", false, true);
    check_variant("", true, true);
}

void test_enums_as_numbers(void **state)
{
    (void)state;
    char *by_number = replace_all(full_profile, "\"DEALLOCATION\"", "2");
    char *also = replace_all(by_number, "\"ALLOCATION\"", "1");
    char *json = replace_all(also, "@", "");
    struct test_draft *profile = load_ok(json);
    check_full_profile(profile);
    test_draft_free(profile);
    free(by_number);
    free(also);
    free(json);

    profile = load_ok("{\"memoryProfilePerAllocator\":{\"a\":{\"specialAllocations\":["
                      "{\"memoryActivity\":\"EXPANSION\"},{\"memoryActivity\":7},"
                      "{\"memoryActivity\":\"3\"},{\"memoryActivity\":\"UNKNOWN_ACTIVITY\"},"
                      "{\"memoryActivity\":-1},{\"memoryActivity\":\"RESERVATION\"}]}}}");
    const struct snapshot_columns *specials = &profile->draft.allocators[0].specials;
    assert_int_equal(specials->count, 6);
    assert_int_equal(column_at(specials, 0).activity, MEMORY_ACTIVITY_EXPANSION);
    assert_int_equal(column_at(specials, 1).activity, 7); /* unknown, kept */
    assert_int_equal(column_at(specials, 2).activity, MEMORY_ACTIVITY_RESERVATION);
    assert_int_equal(column_at(specials, 3).activity, MEMORY_ACTIVITY_UNKNOWN);
    assert_int_equal(column_at(specials, 4).activity, -1);
    assert_int_equal(column_at(specials, 5).activity, MEMORY_ACTIVITY_RESERVATION);
    test_draft_free(profile);
}

void test_wrapped_in_an_array(void **state)
{
    (void)state;
    char *inner = full_profile_variant("", false, false);
    size_t length = strlen(inner);
    char *json = malloc(length + 8);
    assert_non_null(json);
    snprintf(json, length + 8, " [\n%s ]\n", inner);
    struct test_draft *profile = load_ok(json);
    check_full_profile(profile);
    test_draft_free(profile);
    free(inner);
    free(json);

    expect_bad("[]", "top level: expected a MemoryProfile object, got an array");
    expect_bad("[{},{}]", "top level: expected a MemoryProfile object, got an array");
    expect_bad("[[{}]]", "top level: expected a MemoryProfile object, got an array");
    expect_bad("[5]", "top level: expected a MemoryProfile object, got 5");
    expect_bad("\"x\"", "top level: expected a MemoryProfile object, got \"x\"");
    expect_bad("null", "top level: expected a MemoryProfile object, got null");
}

void test_unknown_fields_are_ignored(void **state)
{
    (void)state;
    check_variant("\"futureField\":{\"memoryIds\":[5],\"x\":[1,\"y\",null,true]},"
                  "\"another_one\":\"ALLOCATION\",\"n\":1e300,",
                  false, false);
    check_variant("\"futureField\":[[[]]],", true, true);
}

void assert_snapshot_is_empty(struct snapshot s)
{
    int64_t numbers = s.time_ps | s.stack_bytes | s.heap_bytes | s.free_bytes |
                      s.peak_bytes_in_use | s.requested_bytes | s.allocation_bytes | s.step_id;
    assert_int_equal(numbers, 0);
    assert_true(s.fragmentation == 0.0);
    assert_int_equal(s.activity, MEMORY_ACTIVITY_UNKNOWN);
    assert_int_equal(s.address, 0);
    assert_int_equal(s.op_name | s.region_type | s.data_type | s.tensor_shape, STRING_ID_EMPTY);
}

void test_nulls_are_defaults(void **state)
{
    (void)state;
    /* A null before the real value must not hide it. */
    check_variant("\"version\":null,\"timeOffsetPs\":null,\"memoryIds\":null,"
                  "\"fragmentation\":null,\"tfOpName\":null,\"peakStats\":null,",
                  false, false);

    struct test_draft *profile = load_ok(
        "{\"memoryProfilePerAllocator\":{\"a\":{\"memoryProfileSnapshots\":null,"
        "\"profileSummary\":null,\"activeAllocations\":null,\"specialAllocations\":null,"
        "\"sampledTimelineSnapshots\":[{\"timeOffsetPs\":null,\"aggregationStats\":null,"
        "\"activityMetadata\":null},{\"aggregationStats\":{\"stackReservedBytes\":null,"
        "\"heapAllocatedBytes\":null,\"freeMemoryBytes\":null,\"fragmentation\":null,"
        "\"peakBytesInUse\":null},\"activityMetadata\":{\"memoryActivity\":null,"
        "\"requestedBytes\":null,\"allocationBytes\":null,\"address\":null,\"tfOpName\":null,"
        "\"stepId\":null,\"regionType\":null,\"dataType\":null,\"tensorShape\":null}}]},"
        "\"b\":{\"profileSummary\":{\"peakBytesUsageLifetime\":null,\"peakStats\":null,"
        "\"peakStatsTimePs\":null,\"memoryCapacity\":null},\"activeAllocations\":"
        "[{\"snapshotIndex\":null,\"specialIndex\":null,\"numOccurrences\":null}]}},"
        "\"numHosts\":null,\"memoryIds\":null,\"version\":null,\"hloModules\":[{\"name\":null,"
        "\"startTimePs\":null,\"endTimePs\":null,\"id\":null,\"planeName\":null}]}");
    assert_int_equal(profile->draft.version, 0);
    assert_int_equal(profile->draft.num_hosts, 0);
    assert_int_equal(profile->draft.memory_id_count, 0);
    assert_int_equal(built(profile)->allocator_count, 2);
    const struct xprof_allocator *a = &profile->draft.allocators[0];
    const struct xprof_allocator *b = &profile->draft.allocators[1];
    assert_false(a->has_summary);
    assert_int_equal(a->snapshots.count + a->specials.count + a->active_count, 0);
    assert_int_equal(a->sampled.count, 2);
    for (size_t i = 0; i < 2; i++)
        assert_snapshot_is_empty(column_at(&a->sampled, i));
    assert_true(b->has_summary);
    assert_int_equal(b->summary.capacity_bytes, 0);
    assert_int_equal(b->summary.peak.heap_bytes, 0);
    assert_int_equal(b->active_count, 1);
    assert_int_equal(b->active[0].snapshot_index, 0);
    assert_int_equal(b->active[0].special_index, 0);
    assert_int_equal(built(profile)->hlo_module_count, 1);
    assert_int_equal(built(profile)->hlo_modules[0].name, STRING_ID_EMPTY);
    assert_int_equal(built(profile)->hlo_modules[0].id, 0);
    test_draft_free(profile);
}

void test_empty_object_is_an_empty_profile(void **state)
{
    (void)state;
    struct test_draft *profile = load_ok(" {\n} \n");
    assert_int_equal(built(profile)->allocator_count, 0);
    assert_int_equal(built(profile)->hlo_module_count, 0);
    assert_int_equal(profile->draft.version, 0);
    test_draft_free(profile);

    profile = load_ok("\xef\xbb\xbf{\"version\":1}");
    assert_int_equal(profile->draft.version, 1);
    test_draft_free(profile);
}

struct snapshot load_one_metadata(const char *members, struct test_draft **profile)
{
    char json[512];
    snprintf(json, sizeof json,
             "{\"memoryProfilePerAllocator\":{\"a\":{\"specialAllocations\":[{%s}]}}}", members);
    *profile = load_ok(json);
    return column_at(&(*profile)->draft.allocators[0].specials, 0);
}

void test_64_bit_extremes(void **state)
{
    (void)state;
    struct test_draft *profile = load_ok(
        "{\"memoryProfilePerAllocator\":{\"a\":{\"sampledTimelineSnapshots\":["
        "{\"timeOffsetPs\":\"9223372036854775807\",\"activityMetadata\":{"
        "\"stepId\":\"-9223372036854775808\",\"address\":\"18446744073709551615\","
        "\"requestedBytes\":\"-0\",\"allocationBytes\":\"000123\"}},"
        "{\"timeOffsetPs\":-9223372036854775808,\"activityMetadata\":{"
        "\"address\":9223372036854775808,\"stepId\":9007199254740993,"
        "\"requestedBytes\":1e3,\"allocationBytes\":-0}}]}}}");
    const struct snapshot_columns *sampled = &profile->draft.allocators[0].sampled;
    struct snapshot s = column_at(sampled, 0);
    assert_true(s.time_ps == INT64_MAX);
    assert_true(s.step_id == INT64_MIN);
    assert_true(s.address == UINT64_MAX);
    assert_int_equal(s.requested_bytes, 0);
    assert_int_equal(s.allocation_bytes, 123);
    /* Bare numbers are doubles: exact at +-2^63, rounded above 2^53. */
    s = column_at(sampled, 1);
    assert_true(s.time_ps == INT64_MIN);
    assert_true(s.address == (uint64_t)1 << 63);
    assert_true(s.step_id == 9007199254740992);
    assert_int_equal(s.requested_bytes, 1000);
    assert_int_equal(s.allocation_bytes, 0);
    test_draft_free(profile);
}

void test_64_bit_out_of_range(void **state)
{
    (void)state;
    static const struct {
        const char *members;
        const char *message;
    } cases[] = {
        {"\"stepId\":\"9223372036854775808\"",
         METADATA_PATH "stepId: expected a 64-bit integer, got \"9223372036854775808\""},
        {"\"stepId\":\"-9223372036854775809\"",
         METADATA_PATH "stepId: expected a 64-bit integer, got \"-9223372036854775809\""},
        {"\"stepId\":\"99999999999999999999999\"",
         METADATA_PATH "stepId: expected a 64-bit integer, got \"99999999999999999999999\""},
        {"\"address\":\"18446744073709551616\"",
         METADATA_PATH "address: expected an unsigned 64-bit integer, got \"18446744073709551616\""},
        {"\"address\":\"-1\"", METADATA_PATH "address: expected an unsigned 64-bit integer, got \"-1\""},
        {"\"address\":\"-0\"", METADATA_PATH "address: expected an unsigned 64-bit integer, got \"-0\""},
        {"\"address\":-1", METADATA_PATH "address: expected an unsigned 64-bit integer, got -1"},
        {"\"address\":18446744073709551615",
         METADATA_PATH "address: expected an unsigned 64-bit integer, got 1.8446744073709552e+19"},
        /* 2^63 - 1 is no double: it rounds up to 2^63, out of range. */
        {"\"stepId\":9223372036854775807",
         METADATA_PATH "stepId: expected a 64-bit integer, got 9.2233720368547758e+18"},
        {"\"stepId\":-1e19", METADATA_PATH "stepId: expected a 64-bit integer, got -1e+19"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[512];
        snprintf(json, sizeof json,
                 "{\"memoryProfilePerAllocator\":{\"a\":{\"specialAllocations\":[{%s}]}}}",
                 cases[i].members);
        expect_bad(json, cases[i].message);
    }
}

void test_malformed_integers(void **state)
{
    (void)state;
    static const struct {
        const char *value;
        const char *shown;
    } cases[] = {
        {"\"abc\"", "\"abc\""}, {"\"\"", "\"\""},       {"\" 12\"", "\" 12\""},
        {"\"+12\"", "\"+12\""}, {"\"12 \"", "\"12 \""}, {"\"1e3\"", "\"1e3\""},
        {"\"1.0\"", "\"1.0\""}, {"\"0x10\"", "\"0x10\""}, {"\"-\"", "\"-\""},
        {"\"--1\"", "\"--1\""}, {"1.5", "1.5"},         {"-0.25", "-0.25"},
        {"true", "true"},       {"{}", "an object"},    {"[1]", "an array"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[256], message[256];
        snprintf(json, sizeof json,
                 "{\"memoryProfilePerAllocator\":{\"GPU_0_bfc\":{\"sampledTimelineSnapshots\":"
                 "[{},{\"timeOffsetPs\":%s}]}}}",
                 cases[i].value);
        snprintf(message, sizeof message,
                 "memoryProfilePerAllocator.GPU_0_bfc.sampledTimelineSnapshots[1].timeOffsetPs: "
                 "expected a 64-bit integer, got %s",
                 cases[i].shown);
        expect_bad(json, message);
    }
}

void test_int32_fields(void **state)
{
    (void)state;
    struct test_draft *profile = load_ok("{\"version\":\"2\",\"numHosts\":2147483647}");
    assert_int_equal(profile->draft.version, 2);
    assert_int_equal(profile->draft.num_hosts, INT32_MAX);
    test_draft_free(profile);
    profile = load_ok("{\"version\":-2147483648,\"num_hosts\":4.0}");
    assert_int_equal(profile->draft.version, INT32_MIN);
    assert_int_equal(profile->draft.num_hosts, 4);
    test_draft_free(profile);

    expect_bad("{\"version\":2147483648}",
               "version: expected a 32-bit integer, got 2147483648");
    expect_bad("{\"version\":\"-2147483649\"}",
               "version: expected a 32-bit integer, got \"-2147483649\"");
    expect_bad("{\"numHosts\":1.5}", "numHosts: expected a 32-bit integer, got 1.5");
    expect_bad("{\"num_hosts\":\"one\"}", "num_hosts: expected a 32-bit integer, got \"one\"");
    expect_bad("{\"version\":[]}", "version: expected a 32-bit integer, got an array");
}

void test_doubles(void **state)
{
    (void)state;
    struct test_draft *profile = load_ok(
        "{\"memoryProfilePerAllocator\":{\"a\":{\"sampledTimelineSnapshots\":["
        "{\"aggregationStats\":{\"fragmentation\":\"NaN\"}},"
        "{\"aggregationStats\":{\"fragmentation\":\"Infinity\"}},"
        "{\"aggregationStats\":{\"fragmentation\":\"-Infinity\"}},"
        "{\"aggregationStats\":{\"fragmentation\":\"1.5\"}},"
        "{\"aggregationStats\":{\"fragmentation\":\"-2.5e-3\"}},"
        "{\"aggregationStats\":{\"fragmentation\":\"7\"}},"
        "{\"aggregationStats\":{\"fragmentation\":1E-2}},"
        "{\"aggregationStats\":{\"fragmentation\":-0}}]}}}");
    const struct snapshot_columns *sampled = &profile->draft.allocators[0].sampled;
    assert_int_equal(sampled->count, 8);
    assert_true(isnan(sampled->fragmentation[0]));
    assert_true(isinf(sampled->fragmentation[1]) && sampled->fragmentation[1] > 0);
    assert_true(isinf(sampled->fragmentation[2]) && sampled->fragmentation[2] < 0);
    assert_true(sampled->fragmentation[3] == 1.5);
    assert_true(sampled->fragmentation[4] == -2.5e-3);
    assert_true(sampled->fragmentation[5] == 7.0);
    assert_true(sampled->fragmentation[6] == 0.01);
    assert_true(sampled->fragmentation[7] == 0.0);
    test_draft_free(profile);

    static const char *const refused[] = {
        "\"nan\"", "\"inf\"", "\"infinity\"", "\"+Infinity\"", "\"1e999\"", "\"0x1p3\"",
        "\" 1.5\"", "\"1.5 \"", "\".5\"", "\"1.\"", "\"\"", "\"1,5\"", "true", "{}",
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char json[256], message[256];
        snprintf(json, sizeof json,
                 "{\"memoryProfilePerAllocator\":{\"a\":{\"profileSummary\":{\"peakStats\":"
                 "{\"fragmentation\":%s}}}}}",
                 refused[i]);
        snprintf(message, sizeof message,
                 "memoryProfilePerAllocator.a.profileSummary.peakStats.fragmentation: "
                 "expected a number, got %s",
                 refused[i][0] == '{' ? "an object" : refused[i]);
        expect_bad(json, message);
    }
    /* A bare number too large for a double is refused like "1e999". */
    expect_bad("{\"memoryProfilePerAllocator\":{\"a\":{\"profileSummary\":{\"peakStats\":"
               "{\"fragmentation\":1e999}}}}}",
               "memoryProfilePerAllocator.a.profileSummary.peakStats.fragmentation: "
               "expected a number, got inf");
}

void test_strings_are_byte_exact(void **state)
{
    (void)state;
    struct test_draft *profile;
    struct snapshot s = load_one_metadata(
        "\"tfOpName\":\"caf\\u00e9 \\ud83d\\ude00 \\\"q\\\" \\\\ \\/\","
        "\"regionType\":\"tab\\there\\nnew\",\"dataType\":\"\",\"tensorShape\":\"\xce\xbb\"",
        &profile);
    assert_string_equal(text(profile, s.op_name), "caf\xc3\xa9 \xf0\x9f\x98\x80 \"q\" \\ /");
    assert_string_equal(text(profile, s.region_type), "tab\there\nnew");
    assert_int_equal(s.data_type, STRING_ID_EMPTY);
    assert_string_equal(text(profile, s.tensor_shape), "\xce\xbb");
    test_draft_free(profile);
}

void test_allocators_in_document_order(void **state)
{
    (void)state;
    struct test_draft *profile = load_ok(
        "{\"memoryIds\":[\"b\"],\"memoryProfilePerAllocator\":{"
        "\"z\":{\"sampledTimelineSnapshots\":[{\"timeOffsetPs\":\"1\"}]},"
        "\"b\":{},\"\":{},"
        "\"z\":{\"sampledTimelineSnapshots\":[{\"timeOffsetPs\":\"2\"}],"
        "\"memory_profile_snapshots\":[{\"timeOffsetPs\":\"3\"}]}},"
        "\"memory_ids\":[\"z\"]}");
    assert_int_equal(built(profile)->allocator_count, 3);
    assert_string_equal(text(profile, built(profile)->allocators[0].id), "z");
    assert_string_equal(text(profile, built(profile)->allocators[1].id), "b");
    assert_string_equal(text(profile, built(profile)->allocators[2].id), "");
    /* A key given twice: the last entry wins, as protobuf reads a map
     * (issue 16.5), in the place of the first; the file is warned about. */
    const struct xprof_allocator *z = &profile->draft.allocators[0];
    assert_int_equal(z->sampled.count, 1);
    assert_int_equal(snapshot_columns_time(&z->sampled, 0), 2);
    assert_int_equal(z->snapshots.count, 1);
    assert_int_equal(built(profile)->warning_count, 1);
    assert_string_equal(test_warning(built(profile), 0),
                        "the file repeats map key \"z\"; the last entry wins, as protobuf reads it");
    assert_int_equal(profile->draft.memory_id_count, 2);
    assert_string_equal(text(profile, profile->draft.memory_ids[0]), "b");
    assert_string_equal(text(profile, profile->draft.memory_ids[1]), "z");
    test_draft_free(profile);
}
