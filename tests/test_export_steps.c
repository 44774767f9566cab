/* --export steps (report/export_steps.c): the header exactly as the
 * issue gives it, one record per step of model/query/steps.h in its order,
 * every field the step's, an empty end_delta_bytes where there is no
 * step before (the first, and step -1), a header alone for an allocator
 * without snapshots. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/query/steps.h"
#include "report/export.h"
#include "tests/profile_maker.h"

#define ALLOC MEMORY_ACTIVITY_ALLOCATION
#define FREE MEMORY_ACTIVITY_DEALLOCATION
#define STEPS_HEADER                                                                           \
    "step_id,start_time_ps,end_time_ps,peak_bytes,peak_time_ps,end_bytes,allocations,"         \
    "deallocations,end_delta_bytes"

/* Four steps whose ends rise (the last flagged as a possible leak in the
 * viewer), then snapshots of no step. */
static const struct made_event events[] = {
    {.time_ps = 100, .activity = ALLOC, .address = 1, .step_id = 7, .heap_bytes = 10},
    {.time_ps = 110, .activity = FREE, .address = 1, .step_id = 7, .heap_bytes = 5},
    {.time_ps = 200, .activity = ALLOC, .address = 2, .step_id = 8, .heap_bytes = 30, .stack_bytes = 4},
    {.time_ps = 210, .activity = ALLOC, .address = 3, .step_id = 8, .heap_bytes = 20},
    {.time_ps = 300, .activity = ALLOC, .address = 4, .step_id = 9, .heap_bytes = 40},
    {.time_ps = 400, .activity = ALLOC, .address = 5, .step_id = 10, .heap_bytes = 50},
    {.time_ps = 500, .activity = FREE, .address = 5, .step_id = -1, .heap_bytes = 45},
};
#define EVENT_COUNT (sizeof events / sizeof *events)

static char *export_text(const struct profile *profile, const struct allocator *allocator,
                         size_t *rows)
{
    char *text = NULL;
    size_t size = 0;
    FILE *stream = open_memstream(&text, &size);
    assert_non_null(stream);
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_STEPS, profile, allocator);
    char error[EXPORT_ERROR_SIZE] = "";
    assert_int_equal(export_write(stream, &request, rows, error, sizeof error), EXPORT_OK);
    assert_int_equal(fclose(stream), 0);
    return text;
}

/* What a step's record must be, from the step table itself. */
static void expected_record(const struct step_row *step, char *line, size_t size)
{
    char delta[32] = "";
    if (step->has_previous)
        snprintf(delta, sizeof delta, "%" PRId64, step->end_delta_bytes);
    snprintf(line, size, "%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
                         ",%zu,%zu,%s",
             step->step_id, step->start_time_ps, step->end_time_ps, step->peak_bytes,
             step->peak_time_ps, step->end_bytes, step->allocations, step->deallocations, delta);
}

static void test_every_step_and_field(void **state)
{
    (void)state;
    struct profile *profile = profile_maker_new();
    struct allocator *allocator = profile_maker_allocator(profile, "GPU_0_bfc");
    for (size_t i = 0; i < EVENT_COUNT; i++)
        profile_maker_append(profile, allocator, &events[i], false);
    profile_maker_finish(profile);
    struct step_table table;
    assert_true(step_table_build(&table, &profile->allocators[0]));
    size_t rows = 0;
    char *text = export_text(profile, &profile->allocators[0], &rows);
    assert_int_equal(rows, table.count);
    assert_int_equal(rows, 5);
    char *line = strtok(text, "\n");
    assert_string_equal(line, STEPS_HEADER);
    for (size_t i = 0; i < table.count; i++) {
        char expected[256];
        expected_record(&table.rows[i], expected, sizeof expected);
        line = strtok(NULL, "\n");
        assert_non_null(line);
        assert_string_equal(line, expected);
    }
    assert_null(strtok(NULL, "\n"));
    free(text);
    /* By hand: the first step and step -1 have no change to tell. */
    text = export_text(profile, &profile->allocators[0], &rows);
    assert_non_null(strstr(text, "\n7,100,110,10,100,5,1,1,\n"));
    assert_non_null(strstr(text, "\n8,200,210,34,200,20,2,0,15\n"));
    assert_non_null(strstr(text, "\n10,400,400,50,400,50,1,0,10\n"));
    assert_non_null(strstr(text, "\n-1,500,500,45,500,45,0,1,\n"));
    free(text);
    step_table_free(&table);
    profile_free(profile);
}

static void test_empty_allocator_gives_the_header(void **state)
{
    (void)state;
    struct profile *profile = profile_maker_new();
    profile_maker_allocator(profile, "empty");
    profile_maker_finish(profile);
    size_t rows = 99;
    char *text = export_text(profile, &profile->allocators[0], &rows);
    assert_int_equal(rows, 0);
    assert_string_equal(text, STEPS_HEADER "\n");
    free(text);
    profile_free(profile);
}

static void test_needs_an_allocator(void **state)
{
    (void)state;
    struct profile *profile = profile_maker_new();
    profile_maker_finish(profile);
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_STEPS, profile, NULL);
    FILE *sink = fopen("/dev/null", "w");
    assert_non_null(sink);
    char error[EXPORT_ERROR_SIZE] = "";
    assert_int_equal(export_write(sink, &request, NULL, error, sizeof error), EXPORT_FAILED);
    assert_string_equal(error, "the profile has no allocator to export");
    fclose(sink);
    profile_free(profile);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_step_and_field),
        cmocka_unit_test(test_empty_allocator_gives_the_header),
        cmocka_unit_test(test_needs_an_allocator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
