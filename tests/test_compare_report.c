/* Tests of the reports of two profiles compared: --export compare (the
 * op table as CSV, hostile names included) and --summary --compare as
 * text and JSON, on hand-made pairs of profiles whose numbers are
 * written out here. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "model/query/compare.h"
#include "report/compare_report.h"
#include "report/export.h"
#include "report/json_writer.h"
#include "tests/profile_maker.h"

#define ALLOC MEMORY_ACTIVITY_ALLOCATION

struct pair_fixture {
    struct profile *base, *new;
};

/* A peak row of `bytes` x occurrences for op `op`. */
static void add_row(struct profile *profile, struct allocator *allocator, const char *op,
                    int64_t bytes, int64_t occurrences, uint64_t address)
{
    struct made_event event = {.time_ps = 1, .activity = ALLOC, .address = address,
                               .allocation_bytes = bytes, .op = op};
    profile_maker_add_row(profile, allocator, &event, occurrences);
}

/* The timeline's peak: heap + stack at time 1000. */
static void add_peak(struct profile *profile, struct allocator *allocator, int64_t heap,
                     int64_t stack)
{
    struct made_event peak = {.time_ps = 1000, .heap_bytes = heap, .stack_bytes = stack,
                              .activity = MEMORY_ACTIVITY_RESERVATION};
    profile_maker_append(profile, allocator, &peak, false);
}

/* base: GPU_0_bfc (ops "grown", "a,\"b\"\n", "=cmd") and cpu; new:
 * GPU_0_bfc (ops "grown", "born") and GPU_1_bfc. */
static int setup_pair(void **state)
{
    struct pair_fixture *pair = calloc(1, sizeof *pair);
    pair->base = profile_maker_new();
    pair->new = profile_maker_new();
    struct allocator *gpu = profile_maker_allocator(pair->base, "GPU_0_bfc");
    add_row(pair->base, gpu, "grown", 100, 2, 1);
    add_row(pair->base, gpu, "a,\"b\"\n", 50, 1, 2);
    add_row(pair->base, gpu, "=cmd", 7, 1, 3);
    add_peak(pair->base, gpu, 1000, 24);
    add_peak(pair->base, profile_maker_allocator(pair->base, "cpu"), 10, 0);
    gpu = profile_maker_allocator(pair->new, "GPU_0_bfc");
    add_row(pair->new, gpu, "grown", 150, 2, 1);
    add_row(pair->new, gpu, "born", 1000, 1, 2);
    add_peak(pair->new, gpu, 3000, 16);
    add_peak(pair->new, profile_maker_allocator(pair->new, "GPU_1_bfc"), 77, 0);
    profile_maker_finish(pair->base);
    profile_maker_finish(pair->new);
    pair->base->path = strdup("base.pb");
    pair->new->path = strdup("new.pb");
    *state = pair;
    return 0;
}

static int teardown_pair(void **state)
{
    struct pair_fixture *pair = *state;
    profile_free(pair->base);
    profile_free(pair->new);
    free(pair);
    return 0;
}

/* What export_write writes for the request, NUL-terminated. */
static char *export_text(const struct export_request *request, enum export_status expected,
                         char *error, size_t error_size)
{
    char *bytes = NULL;
    size_t size = 0;
    FILE *stream = open_memstream(&bytes, &size);
    assert_non_null(stream);
    assert_int_equal(export_write(stream, request, NULL, error, error_size), expected);
    assert_int_equal(fclose(stream), 0);
    return bytes;
}

static void test_export_compare_csv(void **state)
{
    struct pair_fixture *pair = *state;
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_COMPARE, pair->base, &pair->base->allocators[0]);
    request.new_profile = pair->new;
    request.new_allocator = &pair->new->allocators[0];
    char error[EXPORT_ERROR_SIZE];
    char *csv = export_text(&request, EXPORT_OK, error, sizeof error);
    /* |delta|: born 1000, grown 100 (300 - 200), a,"b" 50, =cmd 7; the
     * names quoted and guarded as every CSV of memtop's. */
    assert_string_equal(csv, "op_name,base_bytes,new_bytes,delta_bytes,base_count,new_count\n"
                             "born,0,1000,1000,0,1\n"
                             "grown,200,300,100,2,2\n"
                             "\"a,\"\"b\"\"\n\",50,0,-50,1,0\n"
                             "'=cmd,7,0,-7,1,0\n");
    free(csv);

    /* An allocator in one profile only: every row on one side. */
    request.allocator = &pair->base->allocators[1];
    request.new_allocator = NULL;
    csv = export_text(&request, EXPORT_OK, error, sizeof error);
    assert_string_equal(csv, "op_name,base_bytes,new_bytes,delta_bytes,base_count,new_count\n");
    free(csv);
}

static void test_export_compare_needs_two_profiles(void **state)
{
    struct pair_fixture *pair = *state;
    struct export_request request;
    char error[EXPORT_ERROR_SIZE];
    export_request_init(&request, EXPORT_VIEW_COMPARE, pair->base, &pair->base->allocators[0]);
    free(export_text(&request, EXPORT_FAILED, error, sizeof error));
    assert_string_equal(error, "no second profile to compare with");
    request.allocator = NULL;
    request.new_profile = pair->new;
    free(export_text(&request, EXPORT_FAILED, error, sizeof error));
    assert_string_equal(error, "no allocator to compare");
}

/* The report of the pair, as text or as JSON, NUL-terminated. */
static char *report_of(const struct pair_fixture *pair, bool json)
{
    struct profile_comparison comparison;
    assert_true(profile_comparison_build(&comparison, pair->base, pair->new));
    char *bytes = NULL;
    size_t size = 0;
    FILE *stream = open_memstream(&bytes, &size);
    assert_non_null(stream);
    struct json_writer writer;
    json_writer_init(&writer, stream);
    if (json)
        compare_report_json_to(&writer, pair->base, pair->new, &comparison, NULL);
    else
        compare_report_text(stream, pair->base, pair->new, &comparison, NULL);
    assert_int_equal(json_writer_finish(&writer), 0);
    assert_int_equal(fclose(stream), 0);
    profile_comparison_free(&comparison);
    return bytes;
}

static void test_text_report(void **state)
{
    struct pair_fixture *pair = *state;
    char *text = report_of(pair, false);
    /* GPU_0_bfc: peak 1024 -> 3016 (a hand-made profile's capacity is its
     * peak plus free, 0), allocations 3 -> 2. */
    assert_non_null(strstr(text, "\nGPU_0_bfc\n"));
    assert_non_null(strstr(text, "\n  Peak memory usage               1.00 KiB"
                                 "        2.95 KiB       +1.95 KiB\n"));
    assert_non_null(strstr(text, "\n    stack at the peak                 24 B"
                                 "            16 B            -8 B\n"));
    assert_non_null(strstr(text, "\n  Allocations                            3"
                                 "               2              -1\n"));
    assert_non_null(strstr(text, "\ncpu (only in base)\n"));
    assert_non_null(strstr(text, "\nGPU_1_bfc (only in new)\n"));
    assert_non_null(strstr(text, "\n  Peak memory usage                      -"
                                 "            77 B               -\n"));
    free(text);
}

static cJSON *json_report(const struct pair_fixture *pair)
{
    char *bytes = report_of(pair, true);
    cJSON *json = cJSON_Parse(bytes);
    assert_non_null(json);
    free(bytes);
    return json;
}

static double member_number(const cJSON *object, const char *name)
{
    const cJSON *member = cJSON_GetObjectItemCaseSensitive(object, name);
    assert_true(cJSON_IsNumber(member));
    return member->valuedouble;
}

static void test_json_report(void **state)
{
    struct pair_fixture *pair = *state;
    cJSON *json = json_report(pair);
    const cJSON *base = cJSON_GetObjectItemCaseSensitive(json, "base");
    const cJSON *new = cJSON_GetObjectItemCaseSensitive(json, "new");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(base, "allocators")), 2);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(new, "allocators")), 2);
    const cJSON *allocators = cJSON_GetObjectItemCaseSensitive(json, "allocators");
    assert_int_equal(cJSON_GetArraySize(allocators), 3);

    const cJSON *gpu = cJSON_GetArrayItem(allocators, 0);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(gpu, "id")->valuestring, "GPU_0_bfc");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(gpu, "in")->valuestring, "both");
    const cJSON *delta = cJSON_GetObjectItemCaseSensitive(gpu, "delta");
    assert_true(member_number(delta, "peak_bytes") == 3016 - 1024);
    assert_true(member_number(delta, "heap_bytes") == 2000);
    assert_true(member_number(delta, "stack_bytes") == -8);
    assert_true(member_number(delta, "allocations") == -1);
    assert_true(member_number(delta, "deallocations") == 0);
    assert_true(member_number(cJSON_GetObjectItemCaseSensitive(gpu, "base"), "peak_bytes") == 1024);
    assert_true(member_number(cJSON_GetObjectItemCaseSensitive(gpu, "new"), "peak_bytes") == 3016);

    const cJSON *cpu = cJSON_GetArrayItem(allocators, 1);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(cpu, "in")->valuestring, "base");
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(cpu, "new")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(cpu, "delta")));
    const cJSON *only_new = cJSON_GetArrayItem(allocators, 2);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(only_new, "id")->valuestring,
                        "GPU_1_bfc");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(only_new, "in")->valuestring, "new");
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(only_new, "base")));
    cJSON_Delete(json);
}

/* A profile against itself: every delta 0. */
static void test_equal_profiles(void **state)
{
    struct pair_fixture *pair = *state;
    struct pair_fixture same = {pair->base, pair->base};
    cJSON *json = json_report(&same);
    const cJSON *allocators = cJSON_GetObjectItemCaseSensitive(json, "allocators");
    assert_int_equal(cJSON_GetArraySize(allocators), 2);
    const cJSON *allocator;
    cJSON_ArrayForEach(allocator, allocators) {
        const cJSON *delta = cJSON_GetObjectItemCaseSensitive(allocator, "delta");
        const cJSON *value;
        assert_int_equal(cJSON_GetArraySize(delta), COMPARE_FIELD_COUNT);
        cJSON_ArrayForEach(value, delta) assert_true(value->valuedouble == 0);
    }
    cJSON_Delete(json);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_export_compare_csv, setup_pair, teardown_pair),
        cmocka_unit_test_setup_teardown(test_export_compare_needs_two_profiles, setup_pair,
                                        teardown_pair),
        cmocka_unit_test_setup_teardown(test_text_report, setup_pair, teardown_pair),
        cmocka_unit_test_setup_teardown(test_json_report, setup_pair, teardown_pair),
        cmocka_unit_test_setup_teardown(test_equal_profiles, setup_pair, teardown_pair),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
