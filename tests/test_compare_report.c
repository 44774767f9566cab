/* Tests of the reports of two profiles compared: --export compare (the
 * op table as CSV, hostile names included), on hand-made pairs of
 * profiles whose numbers are written out here. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/compare.h"
#include "report/export.h"
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_export_compare_csv, setup_pair, teardown_pair),
        cmocka_unit_test_setup_teardown(test_export_compare_needs_two_profiles, setup_pair,
                                        teardown_pair),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
