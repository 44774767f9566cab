/* test_load_json_support: helpers of tests/test_load_json: loading exact-length
 * buffers, expecting refusals, rewriting spellings, and a profile with every
 * field set with the checks of what it must load to. */
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

/* ---- helpers ---- */

/* The reader's result is a draft (model/xprof_draft.h): the pieces as the
 * file has them, before XProf's finishing. */
enum load_status load_bytes(const void *bytes, size_t size, struct test_draft **out,
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

struct test_draft *load_ok(const char *json)
{
    struct test_draft *profile;
    struct load_error error;
    enum load_status status = load_bytes(json, strlen(json), &profile, &error);
    if (status != LOAD_OK)
        print_error("unexpected error: %s\n", error.message);
    assert_int_equal(status, LOAD_OK);
    return profile;
}

struct profile *load_finished(const char *json)
{
    return test_draft_finish(load_ok(json));
}

void expect_bad_bytes(const void *bytes, size_t size, const char *message)
{
    struct test_draft *profile;
    struct load_error error;
    enum load_status status = load_bytes(bytes, size, &profile, &error);
    test_draft_free(profile);
    assert_int_equal(status, LOAD_BAD_INPUT);
    /* The message as a user sees it: the file's text escaped once. */
    assert_string_equal(test_shown(load_error_message(&error)), message);
}

void expect_bad(const char *json, const char *message)
{
    expect_bad_bytes(json, strlen(json), message);
}

const char *text(const struct test_draft *profile, uint32_t id)
{
    return profile_text(test_draft_profile(profile), id);
}

/* The profile so far: allocator ids, HLO modules. */
const struct profile *built(const struct test_draft *profile)
{
    return test_draft_profile(profile);
}

struct snapshot column_at(const struct snapshot_columns *columns, size_t index)
{
    struct snapshot snapshot;
    assert_true(index < columns->count);
    snapshot_columns_get(columns, index, &snapshot);
    return snapshot;
}

/* A new string with every `from` replaced by `to`. */
char *replace_all(const char *source, const char *from, const char *to)
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
char *rewrite_strings(const char *json, bool snake, bool unquote)
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

const char full_profile[] =
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
char *full_profile_variant(const char *members, bool snake, bool unquote)
{
    char *filled = replace_all(full_profile, "@", members);
    char *result = rewrite_strings(filled, snake, unquote);
    free(filled);
    return result;
}

void check_allocation_snapshot(const struct test_draft *profile, struct snapshot s)
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

void check_full_profile(const struct test_draft *profile)
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

void check_variant(const char *members, bool snake, bool unquote)
{
    char *json = full_profile_variant(members, snake, unquote);
    struct test_draft *profile = load_ok(json);
    check_full_profile(profile);
    test_draft_free(profile);
    free(json);
}
