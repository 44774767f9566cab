#include "config.h"

/* Tests of the proto3-JSON loader: the real XProf file, every spelling a
 * proto3 JSON reader must accept, and every wrong input it must refuse with
 * a message that names the place. Inputs are copied into buffers of their
 * exact length (no NUL after them), as the loader gets them from a mapping. */

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
#include "model/xprof_draft.h"
#include "tests/test_support.h"
#include "tests/wire_builder.h"

/* ---- helpers ---- */

/* The reader's result is a draft (model/xprof_draft.h): the pieces as the
 * file has them, before XProf's finishing. */
static enum load_status load_bytes(const void *bytes, size_t size, struct test_draft **out,
                                   struct load_error *error)
{
    uint8_t *copy = malloc(size ? size : 1);
    assert_non_null(copy);
    if (size)
        memcpy(copy, bytes, size);
    struct test_draft *profile = test_draft_new();
    memset(error, 0, sizeof *error);
    enum load_status status = load_json(copy, size, &profile->draft, error);
    free(copy);
    *out = profile;
    return status;
}

static struct test_draft *load_ok(const char *json)
{
    struct test_draft *profile;
    struct load_error error;
    enum load_status status = load_bytes(json, strlen(json), &profile, &error);
    if (status != LOAD_OK)
        print_error("unexpected error: %s\n", error.message);
    assert_int_equal(status, LOAD_OK);
    return profile;
}

static struct profile *load_finished(const char *json)
{
    return test_draft_finish(load_ok(json));
}

static void expect_bad_bytes(const void *bytes, size_t size, const char *message)
{
    struct test_draft *profile;
    struct load_error error;
    enum load_status status = load_bytes(bytes, size, &profile, &error);
    test_draft_free(profile);
    assert_int_equal(status, LOAD_BAD_INPUT);
    /* The message as a user sees it: the file's text escaped once. */
    assert_string_equal(test_shown(load_error_message(&error)), message);
}

static void expect_bad(const char *json, const char *message)
{
    expect_bad_bytes(json, strlen(json), message);
}

static const char *text(const struct test_draft *profile, uint32_t id)
{
    return profile_text(test_draft_profile(profile), id);
}

/* The profile so far: allocator ids, HLO modules. */
static const struct profile *built(const struct test_draft *profile)
{
    return test_draft_profile(profile);
}

static struct snapshot column_at(const struct snapshot_columns *columns, size_t index)
{
    struct snapshot snapshot;
    assert_true(index < columns->count);
    snapshot_columns_get(columns, index, &snapshot);
    return snapshot;
}

/* A new string with every `from` replaced by `to`. */
static char *replace_all(const char *source, const char *from, const char *to)
{
    size_t from_length = strlen(from), to_length = strlen(to), count = 0;
    for (const char *p = strstr(source, from); p; p = strstr(p + from_length, from))
        count++;
    char *result = malloc(strlen(source) + count * to_length + 1);
    assert_non_null(result);
    char *out = result;
    const char *p = source;
    for (const char *hit = strstr(p, from); hit; hit = strstr(p, from)) {
        memcpy(out, p, (size_t)(hit - p));
        out += hit - p;
        memcpy(out, to, to_length);
        out += to_length;
        p = hit + from_length;
    }
    strcpy(out, p);
    return result;
}

/* Rewrites the JSON's strings (which hold no escapes here): keys, those
 * followed by ':', to snake_case when `snake`; values that are quoted
 * integers to bare numbers when `unquote`. */
static char *rewrite_strings(const char *json, bool snake, bool unquote)
{
    char *result = malloc(strlen(json) * 2 + 1);
    assert_non_null(result);
    char *out = result;
    for (const char *p = json; *p;) {
        if (*p != '"') {
            *out++ = *p++;
            continue;
        }
        const char *start = p + 1, *end = strchr(start, '"');
        assert_non_null(end);
        bool key = end[1] == ':';
        bool integer = !key && end > start && strspn(start, "-0123456789") == (size_t)(end - start);
        if (!(unquote && integer))
            *out++ = '"';
        for (const char *c = start; c < end; c++) {
            if (snake && key && *c >= 'A' && *c <= 'Z') {
                *out++ = '_';
                *out++ = (char)(*c - 'A' + 'a');
            } else {
                *out++ = *c;
            }
        }
        if (!(unquote && integer))
            *out++ = '"';
        p = end + 1;
    }
    *out = '\0';
    return result;
}

/* ---- a profile with every field set ---- */

/* '@' marks the start of each message, where variants insert members. */
#define SNAPSHOT_ALLOCATION                                                                    \
    "{@\"timeOffsetPs\":\"2000\",\"aggregationStats\":{@\"stackReservedBytes\":\"10\","      \
    "\"heapAllocatedBytes\":\"800\",\"freeMemoryBytes\":\"190\",\"fragmentation\":0.25,"     \
    "\"peakBytesInUse\":\"810\"},\"activityMetadata\":{@\"memoryActivity\":\"ALLOCATION\","  \
    "\"requestedBytes\":\"100\",\"allocationBytes\":\"128\",\"address\":\"4096\","            \
    "\"tfOpName\":\"dense/MatMul\",\"stepId\":\"3\",\"regionType\":\"output\","               \
    "\"dataType\":\"float\",\"tensorShape\":\"[8,16]\"}}"
#define SNAPSHOT_DEALLOCATION                                                                  \
    "{@\"timeOffsetPs\":\"3000\",\"aggregationStats\":{@\"stackReservedBytes\":\"10\","      \
    "\"heapAllocatedBytes\":\"672\",\"freeMemoryBytes\":\"318\",\"fragmentation\":0.5,"      \
    "\"peakBytesInUse\":\"810\"},\"activityMetadata\":{@\"memoryActivity\":\"DEALLOCATION\"," \
    "\"requestedBytes\":\"-7\",\"allocationBytes\":\"128\",\"address\":\"4096\","             \
    "\"tfOpName\":\"dense/MatMul\",\"stepId\":\"4\",\"regionType\":\"output\","               \
    "\"dataType\":\"float\",\"tensorShape\":\"[8,16]\"}}"

static const char full_profile[] =
    "{@\"memoryProfilePerAllocator\":{"
    "\"gpu_0_bfc\":{@"
    "\"memoryProfileSnapshots\":[" SNAPSHOT_ALLOCATION "],"
    "\"profileSummary\":{@\"peakBytesUsageLifetime\":\"900\","
    "\"peakStats\":{@\"stackReservedBytes\":\"10\",\"heapAllocatedBytes\":\"800\","
    "\"freeMemoryBytes\":\"190\",\"fragmentation\":0.25,\"peakBytesInUse\":\"810\"},"
    "\"peakStatsTimePs\":\"2000\",\"memoryCapacity\":\"1000\"},"
    "\"activeAllocations\":[{@\"snapshotIndex\":\"0\",\"specialIndex\":\"-1\","
    "\"numOccurrences\":\"2\"},{@\"snapshotIndex\":\"-1\",\"specialIndex\":\"0\","
    "\"numOccurrences\":\"1\"}],"
    "\"specialAllocations\":[{@\"memoryActivity\":\"ALLOCATION\",\"requestedBytes\":\"40\","
    "\"allocationBytes\":\"48\",\"address\":\"0\",\"tfOpName\":\"stack\",\"stepId\":\"3\","
    "\"regionType\":\"stack\",\"dataType\":\"INVALID\",\"tensorShape\":\"unknown\"}],"
    "\"sampledTimelineSnapshots\":[" SNAPSHOT_ALLOCATION "," SNAPSHOT_DEALLOCATION "]},"
    "\"cpu\":{@\"activeAllocations\":[]}},"
    "\"numHosts\":2,\"memoryIds\":[\"cpu\",\"gpu_0_bfc\"],\"version\":1,"
    "\"hloModules\":[{@\"name\":\"jit_step\",\"startTimePs\":\"100\",\"endTimePs\":\"200\","
    "\"id\":\"7\",\"planeName\":\"TPU:0\"}]}";

/* full_profile with '@' replaced by `members`, then rewritten. */
static char *full_profile_variant(const char *members, bool snake, bool unquote)
{
    char *filled = replace_all(full_profile, "@", members);
    char *result = rewrite_strings(filled, snake, unquote);
    free(filled);
    return result;
}

static void check_allocation_snapshot(const struct test_draft *profile, struct snapshot s)
{
    assert_int_equal(s.time_ps, 2000);
    assert_int_equal(s.stack_bytes, 10);
    assert_int_equal(s.heap_bytes, 800);
    assert_int_equal(s.free_bytes, 190);
    assert_true(s.fragmentation == 0.25);
    assert_int_equal(s.peak_bytes_in_use, 810);
    assert_int_equal(s.activity, MEMORY_ACTIVITY_ALLOCATION);
    assert_int_equal(s.requested_bytes, 100);
    assert_int_equal(s.allocation_bytes, 128);
    assert_int_equal(s.address, 4096);
    assert_string_equal(text(profile, s.op_name), "dense/MatMul");
    assert_int_equal(s.step_id, 3);
    assert_string_equal(text(profile, s.region_type), "output");
    assert_string_equal(text(profile, s.data_type), "float");
    assert_string_equal(text(profile, s.tensor_shape), "[8,16]");
}

static void check_full_profile(const struct test_draft *profile)
{
    assert_int_equal(profile->draft.version, 1);
    assert_int_equal(profile->draft.num_hosts, 2);
    assert_int_equal(profile->draft.memory_id_count, 2);
    assert_string_equal(text(profile, profile->draft.memory_ids[0]), "cpu");
    assert_string_equal(text(profile, profile->draft.memory_ids[1]), "gpu_0_bfc");

    assert_int_equal(built(profile)->hlo_module_count, 1);
    const struct hlo_module *module = &built(profile)->hlo_modules[0];
    assert_string_equal(text(profile, module->name), "jit_step");
    assert_string_equal(text(profile, module->plane_name), "TPU:0");
    assert_int_equal(module->start_time_ps, 100);
    assert_int_equal(module->end_time_ps, 200);
    assert_int_equal(module->id, 7);

    assert_int_equal(built(profile)->allocator_count, 2);
    const struct xprof_allocator *gpu = &profile->draft.allocators[0];
    const struct xprof_allocator *cpu = &profile->draft.allocators[1];
    assert_string_equal(text(profile, built(profile)->allocators[0].id), "gpu_0_bfc");
    assert_string_equal(text(profile, built(profile)->allocators[1].id), "cpu");
    assert_int_equal(cpu->snapshots.count + cpu->sampled.count + cpu->specials.count +
                         cpu->active_count,
                     0);
    assert_false(cpu->has_summary);

    assert_int_equal(gpu->snapshots.count, 1);
    check_allocation_snapshot(profile, column_at(&gpu->snapshots, 0));
    assert_int_equal(gpu->sampled.count, 2);
    check_allocation_snapshot(profile, column_at(&gpu->sampled, 0));
    struct snapshot freed = column_at(&gpu->sampled, 1);
    assert_int_equal(freed.time_ps, 3000);
    assert_int_equal(freed.heap_bytes, 672);
    assert_int_equal(freed.free_bytes, 318);
    assert_true(freed.fragmentation == 0.5);
    assert_int_equal(freed.activity, MEMORY_ACTIVITY_DEALLOCATION);
    assert_int_equal(freed.requested_bytes, -7);
    assert_int_equal(freed.step_id, 4);

    assert_int_equal(gpu->specials.count, 1);
    struct snapshot special = column_at(&gpu->specials, 0);
    assert_int_equal(special.time_ps, 0);
    assert_int_equal(special.heap_bytes, 0);
    assert_int_equal(special.activity, MEMORY_ACTIVITY_ALLOCATION);
    assert_int_equal(special.requested_bytes, 40);
    assert_int_equal(special.allocation_bytes, 48);
    assert_int_equal(special.address, 0);
    assert_int_equal(special.step_id, 3);
    assert_string_equal(text(profile, special.op_name), "stack");
    assert_string_equal(text(profile, special.region_type), "stack");
    assert_string_equal(text(profile, special.data_type), "INVALID");
    assert_string_equal(text(profile, special.tensor_shape), "unknown");

    assert_int_equal(gpu->active_count, 2);
    assert_int_equal(gpu->active[0].snapshot_index, 0);
    assert_int_equal(gpu->active[0].special_index, -1);
    assert_int_equal(gpu->active[0].occurrences, 2);
    assert_int_equal(gpu->active[1].snapshot_index, -1);
    assert_int_equal(gpu->active[1].special_index, 0);
    assert_int_equal(gpu->active[1].occurrences, 1);

    assert_true(gpu->has_summary);
    const struct allocator_summary *summary = &gpu->summary;
    assert_int_equal(summary->capacity_bytes, 1000);
    assert_int_equal(summary->lifetime_peak_bytes, 900);
    assert_int_equal(summary->peak_time_ps, 2000);
    assert_int_equal(summary->peak.stack_bytes, 10);
    assert_int_equal(summary->peak.heap_bytes, 800);
    assert_int_equal(summary->peak.free_bytes, 190);
    assert_true(summary->peak.fragmentation == 0.25);
    assert_int_equal(summary->peak.peak_bytes_in_use, 810);
}

static void check_variant(const char *members, bool snake, bool unquote)
{
    char *json = full_profile_variant(members, snake, unquote);
    struct test_draft *profile = load_ok(json);
    check_full_profile(profile);
    test_draft_free(profile);
    free(json);
}

/* ---- the real XProf file ---- */

static void test_real_xprof_file(void **state)
{
    (void)state;
    char *path = test_shared_path("data/xprof-tpu-v4-8-demo.memory_profile.json");
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
static void test_all_spellings_give_identical_profiles(void **state)
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

static void test_camel_case(void **state)
{
    (void)state;
    check_variant("", false, false);
}

static void test_snake_case_reads_the_same(void **state)
{
    (void)state;
    char *json = full_profile_variant("", true, false);
    assert_non_null(strstr(json, "\"memory_profile_per_allocator\""));
    assert_non_null(strstr(json, "\"stack_reserved_bytes\""));
    assert_null(strstr(json, "Bytes"));
    free(json);
    check_variant("", true, false);
}

static void test_mixed_case_keys(void **state)
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

static void test_integers_as_bare_numbers(void **state)
{
    (void)state;
    char *json = full_profile_variant("", false, true);
    assert_non_null(strstr(json, "\"timeOffsetPs\":2000,"));
    assert_non_null(strstr(json, "\"requestedBytes\":-7,"));
    free(json);
    check_variant("", false, true);
    check_variant("", true, true);
}

static void test_enums_as_numbers(void **state)
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

static void test_wrapped_in_an_array(void **state)
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

static void test_unknown_fields_are_ignored(void **state)
{
    (void)state;
    check_variant("\"futureField\":{\"memoryIds\":[5],\"x\":[1,\"y\",null,true]},"
                  "\"another_one\":\"ALLOCATION\",\"n\":1e300,",
                  false, false);
    check_variant("\"futureField\":[[[]]],", true, true);
}

static void assert_snapshot_is_empty(struct snapshot s)
{
    int64_t numbers = s.time_ps | s.stack_bytes | s.heap_bytes | s.free_bytes |
                      s.peak_bytes_in_use | s.requested_bytes | s.allocation_bytes | s.step_id;
    assert_int_equal(numbers, 0);
    assert_true(s.fragmentation == 0.0);
    assert_int_equal(s.activity, MEMORY_ACTIVITY_UNKNOWN);
    assert_int_equal(s.address, 0);
    assert_int_equal(s.op_name | s.region_type | s.data_type | s.tensor_shape, STRING_ID_EMPTY);
}

static void test_nulls_are_defaults(void **state)
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

static void test_empty_object_is_an_empty_profile(void **state)
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

static struct snapshot load_one_metadata(const char *members, struct test_draft **profile)
{
    char json[512];
    snprintf(json, sizeof json,
             "{\"memoryProfilePerAllocator\":{\"a\":{\"specialAllocations\":[{%s}]}}}", members);
    *profile = load_ok(json);
    return column_at(&(*profile)->draft.allocators[0].specials, 0);
}

static void test_64_bit_extremes(void **state)
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

#define METADATA_PATH "memoryProfilePerAllocator.a.specialAllocations[0]."

static void test_64_bit_out_of_range(void **state)
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

static void test_malformed_integers(void **state)
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

static void test_int32_fields(void **state)
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

static void test_doubles(void **state)
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

static void test_strings_are_byte_exact(void **state)
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

static void test_allocators_in_document_order(void **state)
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
    assert_int_equal(z->sampled.time_ps[0], 2);
    assert_int_equal(z->snapshots.count, 1);
    assert_int_equal(built(profile)->warning_count, 1);
    assert_string_equal(test_warning(built(profile), 0),
                        "the file repeats map key \"z\"; the last entry wins, as protobuf reads it");
    assert_int_equal(profile->draft.memory_id_count, 2);
    assert_string_equal(text(profile, profile->draft.memory_ids[0]), "b");
    assert_string_equal(text(profile, profile->draft.memory_ids[1]), "z");
    test_draft_free(profile);
}

/* ---- refused inputs ---- */

#define ALLOCATOR(members) "{\"memoryProfilePerAllocator\":{\"GPU_0_bfc\":{" members "}}}"
#define ALLOCATOR_PATH "memoryProfilePerAllocator.GPU_0_bfc."

static void test_wrong_types_name_the_path(void **state)
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

static void test_long_texts_are_cut_in_messages(void **state)
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

static void test_syntax_errors_give_an_offset(void **state)
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

static void test_trailing_garbage(void **state)
{
    (void)state;
    expect_bad("{} x", "offset 3: invalid JSON");
    expect_bad("{}{}", "offset 2: invalid JSON");
    expect_bad("[{}] ]", "offset 5: invalid JSON");
    expect_bad_bytes("{}\0", 3, "offset 2: invalid JSON");
    struct test_draft *profile = load_ok("{}\r\n\t \n");
    test_draft_free(profile);
}

static void test_empty_input(void **state)
{
    (void)state;
    expect_bad_bytes("", 0, "offset 0: invalid JSON");
    expect_bad("   ", "offset 2: invalid JSON");
}

static char *nested(size_t depth, const char *prefix, const char *suffix, bool close)
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

static void expect_invalid_json(const char *json)
{
    struct test_draft *profile;
    struct load_error error;
    assert_int_equal(load_bytes(json, strlen(json), &profile, &error), LOAD_BAD_INPUT);
    test_draft_free(profile);
    assert_true(strncmp(error.message, "offset ", 7) == 0);
    assert_non_null(strstr(error.message, ": invalid JSON"));
}

static void test_deep_nesting_is_an_error(void **state)
{
    (void)state;
    char *json = nested(5000, "", "", false);
    expect_invalid_json(json);
    free(json);
    json = nested(5000, "", "", true);
    expect_invalid_json(json);
    free(json);
    json = nested(5000, "{\"unknown\":", "}", true);
    expect_invalid_json(json);
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
static void test_input_ending_at_a_page_end(void **state)
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

/* ---- streaming ---- */

/* Where whole-text cJSON puts a syntax error (the reference the streaming
 * reader keeps to), or SIZE_MAX when the text is valid JSON. */
static size_t whole_text_error(const char *bytes, size_t size)
{
    char *text = malloc(size + 1);
    assert_non_null(text);
    memcpy(text, bytes, size);
    text[size] = '\0';
    const char *end = NULL;
    cJSON *root = size ? cJSON_ParseWithLengthOpts(text, size, &end, false) : NULL;
    size_t offset = end ? (size_t)(end - text) : 0;
    if (root)
        while (offset < size && strchr(" \t\n\r", text[offset]) && text[offset])
            offset++;
    cJSON_Delete(root);
    free(text);
    return root && offset == size ? SIZE_MAX : offset;
}

/* The loader on `bytes` agrees with whole-text cJSON: the same offset for
 * a syntax error, unless a wrong value came first in the document (read
 * in order, it is then the error). Counts what it saw. */
static void expect_like_whole_text(const char *bytes, size_t size, size_t *syntax,
                                   size_t *value_first)
{
    size_t expected = whole_text_error(bytes, size);
    struct test_draft *profile;
    struct load_error error;
    enum load_status status = load_bytes(bytes, size, &profile, &error);
    test_draft_free(profile);
    bool invalid = status != LOAD_OK && strstr(error.message, ": invalid JSON");
    if (expected == SIZE_MAX) {
        assert_false(invalid);
        return;
    }
    assert_int_equal(status, LOAD_BAD_INPUT);
    if (invalid) {
        char message[64];
        snprintf(message, sizeof message, "offset %zu: invalid JSON", expected);
        if (strcmp(error.message, message) != 0)
            print_error("%.*s\n", (int)size, bytes);
        assert_string_equal(error.message, message);
        (*syntax)++;
    } else {
        (*value_first)++;
    }
}

/* Cut short anywhere, or one byte changed anywhere: syntax errors land
 * where cJSON parsing the whole text puts them. */
static void test_errors_where_whole_text_cjson_puts_them(void **state)
{
    (void)state;
    const char *documents[] = {
        "{\"memoryProfilePerAllocator\":{\"gpu\":{\"memoryProfileSnapshots\":[{\"timeOffsetPs\""
        ":\"5\",\"aggregationStats\":{\"heapAllocatedBytes\":\"1024\"},\"activityMetadata\":"
        "{\"memoryActivity\":\"ALLOCATION\",\"tfOpName\":\"o\\u0041\\\\\"}},{\"timeOffsetPs\":7}],"
        "\"activeAllocations\":[{\"snapshotIndex\":\"0\"}],\"profileSummary\":{\"memoryCapacity\""
        ":\"9\"},\"x\":[1,{\"y\":null}]},\"cpu\":{}},\"numHosts\":1,\"memoryIds\":[\"gpu\"],"
        "\"hloModules\":[{\"name\":\"m\"}]}",
        " [ {\"version\" : 1 , \"memoryProfilePerAllocator\" : { \"a\" : { "
        "\"sampledTimelineSnapshots\" : [ { } , { \"timeOffsetPs\" : \"1\" } ] } } } ]\n",
    };
    static const char replacements[] = "{}[],:\" \\\x01nt0-.ex";
    size_t syntax = 0, value_first = 0;
    for (size_t d = 0; d < sizeof documents / sizeof documents[0]; d++) {
        const char *document = documents[d];
        size_t size = strlen(document);
        expect_like_whole_text(document, size, &syntax, &value_first);
        for (size_t cut = 0; cut < size; cut++)
            expect_like_whole_text(document, cut, &syntax, &value_first);
        char *changed = malloc(size);
        assert_non_null(changed);
        for (size_t at = 0; at < size; at++) {
            for (size_t r = 0; r < sizeof replacements - 1; r++) {
                memcpy(changed, document, size);
                changed[at] = replacements[r];
                expect_like_whole_text(changed, size, &syntax, &value_first);
            }
        }
        free(changed);
    }
    /* The mutations above mostly break the syntax. */
    assert_true(syntax > 5 * value_first);
}

/* Nested past cJSON's limit inside a snapshot: an error at the offset
 * whole-text cJSON gives, never a crash; 999 levels deep is fine. */
static void test_deep_nesting_inside_a_snapshot(void **state)
{
    (void)state;
    static const char prefix[] =
        "{\"memoryProfilePerAllocator\":{\"a\":{\"sampledTimelineSnapshots\":[{\"x\":";
    static const char suffix[] = "}]}}}";
    for (size_t depth = 990; depth <= 1000; depth += 5) {
        char *json = nested(depth, prefix, suffix, true);
        size_t syntax = 0, value_first = 0;
        expect_like_whole_text(json, strlen(json), &syntax, &value_first);
        /* The snapshot sits 5 deep: 995 more levels are the most cJSON takes. */
        assert_int_equal(syntax, depth + 5 > 1000 ? 1 : 0);
        free(json);
    }
    char *json = nested(100000, prefix, suffix, false);
    expect_invalid_json(json);
    free(json);
}

/* Read in order, a wrong value before a syntax error is the error. */
static void test_value_error_before_syntax_error(void **state)
{
    (void)state;
    expect_bad("{\"version\":\"x\",\"memoryIds\":[}",
               "version: expected a 32-bit integer, got \"x\"");
    expect_bad("{\"memoryIds\":[}", "offset 14: invalid JSON");
}

/* A big document: `count` snapshots of about 410 bytes. */
static char *big_document(size_t count, size_t *size)
{
    static const char head[] = "{\"memoryProfilePerAllocator\":{\"GPU_0_bfc\":{"
                               "\"memoryProfileSnapshots\":[";
    static const char tail[] = "]}},\"version\":0}";
    size_t capacity = sizeof head + sizeof tail + count * 512;
    char *json = malloc(capacity);
    assert_non_null(json);
    size_t used = (size_t)snprintf(json, capacity, "%s", head);
    for (size_t i = 0; i < count; i++)
        used += (size_t)snprintf(
            json + used, capacity - used,
            "%s{\"timeOffsetPs\":\"%zu\",\"aggregationStats\":{\"stackReservedBytes\":\"64\","
            "\"heapAllocatedBytes\":\"%zu\",\"freeMemoryBytes\":\"1000\",\"fragmentation\":0.5,"
            "\"peakBytesInUse\":\"99999\"},\"activityMetadata\":{\"memoryActivity\":\"ALLOCATION\","
            "\"requestedBytes\":\"100\",\"allocationBytes\":\"128\",\"address\":\"%zu\","
            "\"tfOpName\":\"model/dense_%zu/MatMul\",\"stepId\":\"1\",\"regionType\":\"output\","
            "\"dataType\":\"float\",\"tensorShape\":\"[8,16]\"}}",
            i ? "," : "", 1000 * i, (i * 7919) % 100000, 4096 + 256 * i, i % 50);
    used += (size_t)snprintf(json + used, capacity - used, "%s", tail);
    *size = used;
    return json;
}

/* What the tracker's release does for a file mapping, made strict: the
 * released pages become unreadable, so any read behind the release point
 * crashes the test. */
struct unreadable_pages {
    uint8_t *base;
    size_t protected_bytes;
    size_t releases;
};

static void make_unreadable(void *context, size_t from, size_t to)
{
    struct unreadable_pages *pages = context;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    assert_true(from <= to);
    assert_true(from <= pages->protected_bytes + page); /* ranges follow each other */
    size_t end = to - to % page;
    if (end > pages->protected_bytes) {
        assert_int_equal(mprotect(pages->base, end, PROT_NONE), 0);
        pages->protected_bytes = end;
    }
    pages->releases++;
}

struct progress_seen {
    uint64_t last;
    uint64_t total;
    size_t calls;
};

static void record_progress(void *context, uint64_t done, uint64_t total)
{
    struct progress_seen *seen = context;
    assert_true(done >= seen->last);
    assert_true(done <= total);
    seen->last = done;
    seen->total = total;
    seen->calls++;
}

/* The document is read once, front to back: with every released page
 * unreadable the load still succeeds, and progress only grows. */
static void test_streaming_reads_each_byte_once(void **state)
{
    (void)state;
    size_t size;
    char *json = big_document(40000, &size);
    assert_true(size > 3 * LOAD_TRACKER_STEP);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t mapped = (size + page - 1) / page * page;
    uint8_t *base = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(base != MAP_FAILED);
    memcpy(base, json, size);
    free(json);

    struct unreadable_pages pages = {base, 0, 0};
    struct progress_seen seen = {0};
    struct load_options options = {.progress = record_progress, .progress_context = &seen};
    struct load_tracker tracker = {.options = &options, .total = size,
                                   .release = make_unreadable, .release_context = &pages};
    struct test_draft *profile = test_draft_new();
    struct load_error error;
    enum load_status status = load_json_tracked(base, size, &profile->draft, &tracker, &error);
    if (status != LOAD_OK)
        print_error("%s\n", error.message);
    assert_int_equal(status, LOAD_OK);
    assert_true(pages.releases >= 3);
    assert_true(pages.protected_bytes > size - 2 * LOAD_TRACKER_STEP);
    assert_true(seen.calls >= 3);
    assert_int_equal(seen.total, size);

    const struct snapshot_columns *snapshots = &profile->draft.allocators[0].snapshots;
    assert_int_equal(snapshots->count, 40000);
    assert_int_equal(snapshots->time_ps[39999], 39999000);
    assert_int_equal(snapshots->heap_bytes[12345], (12345 * 7919) % 100000);
    assert_string_equal(text(profile, snapshots->op_name[39999]), "model/dense_49/MatMul");
    test_draft_free(profile);
    munmap(base, mapped);
}

/* ---- a big profile in both forms ---- */

/* Snapshot i of the big profile: strings shared all along (op names) and
 * strings first seen late (shapes), new and known ones all the way. */
static void big_snapshot_strings(size_t i, char *op, char *shape)
{
    snprintf(op, 32, "op%zu", i % 300);
    snprintf(shape, 32, "[%zu]", i / 7);
}

/* The same `count` snapshots as binary protobuf. */
static struct wire_bytes big_protobuf(size_t count)
{
    struct wire_bytes value = {0}, entry = {0}, profile = {0};
    for (size_t i = 0; i < count; i++) {
        char op[32], shape[32];
        big_snapshot_strings(i, op, shape);
        struct wire_bytes snapshot = {0}, stats = {0}, metadata = {0};
        wire_bytes_put_varint_field(&stats, 2, 1000 + i % 977);
        wire_bytes_put_varint_field(&metadata, 1, MEMORY_ACTIVITY_ALLOCATION);
        wire_bytes_put_string_field(&metadata, 5, op);
        wire_bytes_put_string_field(&metadata, 9, shape);
        wire_bytes_put_varint_field(&snapshot, 1, 10 * i);
        wire_bytes_put_message_field(&snapshot, 2, &stats);
        wire_bytes_put_message_field(&snapshot, 3, &metadata);
        wire_bytes_put_message_field(&value, 1, &snapshot);
        wire_bytes_free(&snapshot);
        wire_bytes_free(&stats);
        wire_bytes_free(&metadata);
    }
    /* After the snapshots, as protobuf-c writes them: one active allocation. */
    wire_bytes_put_length_field(&value, 3, "\x08\x05", 2); /* {snapshot_index: 5} */
    wire_bytes_put_string_field(&entry, 1, "GPU_0_bfc");
    wire_bytes_put_message_field(&entry, 2, &value);
    wire_bytes_put_message_field(&profile, 1, &entry);
    wire_bytes_put_varint_field(&profile, 5, 0);
    wire_bytes_free(&value);
    wire_bytes_free(&entry);
    return profile;
}

/* ... and as proto3 JSON. */
static char *big_json(size_t count, size_t *size)
{
    struct wire_bytes json = {0};
    static const char head[] = "{\"memoryProfilePerAllocator\":{\"GPU_0_bfc\":{"
                               "\"memoryProfileSnapshots\":[";
    wire_bytes_put_data(&json, head, sizeof head - 1);
    for (size_t i = 0; i < count; i++) {
        char op[32], shape[32], text[256];
        big_snapshot_strings(i, op, shape);
        int length = snprintf(text, sizeof text,
                              "%s{\"timeOffsetPs\":\"%zu\",\"aggregationStats\":{\"heapAllocatedBytes\""
                              ":\"%zu\"},\"activityMetadata\":{\"memoryActivity\":\"ALLOCATION\","
                              "\"tfOpName\":\"%s\",\"tensorShape\":\"%s\"}}",
                              i ? "," : "", 10 * i, 1000 + i % 977, op, shape);
        wire_bytes_put_data(&json, text, (size_t)length);
    }
    static const char tail[] = "],\"activeAllocations\":[{\"snapshotIndex\":\"5\"}]}},"
                               "\"version\":0}";
    wire_bytes_put_data(&json, tail, sizeof tail); /* with the NUL, not counted */
    *size = json.size - 1;
    return (char *)json.data;
}

/* A big profile, streamed from JSON one snapshot at a time, reads the same
 * as from binary protobuf (strings compared as text), and the binary
 * loader's progress only grows. */
static void test_big_profile_same_from_json_and_protobuf(void **state)
{
    (void)state;
    enum { COUNT = 140000 };
    size_t json_size;
    char *json = big_json(COUNT, &json_size);
    struct test_draft *json_draft;
    struct load_error error;
    assert_int_equal(load_bytes(json, json_size, &json_draft, &error), LOAD_OK);
    free(json);
    struct profile *from_json = test_draft_finish(json_draft);

    struct wire_bytes protobuf = big_protobuf(COUNT);
    struct test_draft *protobuf_draft = test_draft_new();
    struct progress_seen seen = {0};
    struct load_options options = {.progress = record_progress, .progress_context = &seen};
    struct load_tracker tracker = {.options = &options, .total = protobuf.size};
    enum load_status status =
        load_protobuf_tracked(protobuf.data, protobuf.size, &protobuf_draft->draft, &tracker,
                              &error);
    if (status != LOAD_OK)
        print_error("%s\n", error.message);
    assert_int_equal(status, LOAD_OK);
    assert_true(seen.calls >= 1);
    wire_bytes_free(&protobuf);
    struct profile *from_protobuf = test_draft_finish(protobuf_draft);

    assert_int_equal(from_json->allocators[0].timeline.count, COUNT);
    const struct snapshot_columns *timeline = &from_protobuf->allocators[0].timeline;
    assert_string_equal(profile_text(from_protobuf, timeline->tensor_shape[COUNT - 1]),
                        "[19999]");
    assert_string_equal(profile_text(from_protobuf, timeline->op_name[COUNT - 1]), "op199");
    assert_int_equal(from_protobuf->allocators[0].row_count, 1);
    test_assert_profiles_equal(from_json, from_protobuf);
    profile_free(from_json);
    profile_free(from_protobuf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_xprof_file),
        cmocka_unit_test(test_camel_case),
        cmocka_unit_test(test_all_spellings_give_identical_profiles),
        cmocka_unit_test(test_snake_case_reads_the_same),
        cmocka_unit_test(test_mixed_case_keys),
        cmocka_unit_test(test_integers_as_bare_numbers),
        cmocka_unit_test(test_enums_as_numbers),
        cmocka_unit_test(test_wrapped_in_an_array),
        cmocka_unit_test(test_unknown_fields_are_ignored),
        cmocka_unit_test(test_nulls_are_defaults),
        cmocka_unit_test(test_empty_object_is_an_empty_profile),
        cmocka_unit_test(test_64_bit_extremes),
        cmocka_unit_test(test_64_bit_out_of_range),
        cmocka_unit_test(test_malformed_integers),
        cmocka_unit_test(test_int32_fields),
        cmocka_unit_test(test_doubles),
        cmocka_unit_test(test_strings_are_byte_exact),
        cmocka_unit_test(test_allocators_in_document_order),
        cmocka_unit_test(test_wrong_types_name_the_path),
        cmocka_unit_test(test_long_texts_are_cut_in_messages),
        cmocka_unit_test(test_syntax_errors_give_an_offset),
        cmocka_unit_test(test_trailing_garbage),
        cmocka_unit_test(test_empty_input),
        cmocka_unit_test(test_deep_nesting_is_an_error),
        cmocka_unit_test(test_input_ending_at_a_page_end),
        cmocka_unit_test(test_errors_where_whole_text_cjson_puts_them),
        cmocka_unit_test(test_deep_nesting_inside_a_snapshot),
        cmocka_unit_test(test_value_error_before_syntax_error),
        cmocka_unit_test(test_streaming_reads_each_byte_once),
        cmocka_unit_test(test_big_profile_same_from_json_and_protobuf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
