/* query: the rows a table shows switch source (at the peak, live at a
 * time, grown since a mark) and keep the filter, the sort and a label
 * the titles come from. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "model/query/live_set.h"
#include "tests/profile_maker.h"
#include "ui/query.h"

#define ALLOC MEMORY_ACTIVITY_ALLOCATION
#define FREE MEMORY_ACTIVITY_DEALLOCATION

static const struct made_event events[] = {
    {.time_ps = 10, .activity = ALLOC, .address = 1, .allocation_bytes = 100, .op = "conv",
     .heap_bytes = 100},
    {.time_ps = 20, .activity = ALLOC, .address = 2, .allocation_bytes = 300, .op = "matmul",
     .heap_bytes = 400},
    {.time_ps = 30, .activity = FREE, .address = 1, .allocation_bytes = 100, .op = "conv",
     .heap_bytes = 300},
};

static struct profile *made_profile(void)
{
    struct profile *profile = profile_maker_new();
    struct allocator *allocator = profile_maker_allocator(profile, "GPU_0_bfc");
    for (size_t i = 0; i < sizeof events / sizeof *events; i++)
        profile_maker_append(profile, allocator, &events[i], false);
    profile_maker_add_row(profile, allocator, &events[1], 1);
    profile_maker_finish(profile);
    return profile;
}

static void test_sources_switch_and_keep_the_filter_and_sort(void **state)
{
    (void)state;
    struct profile *profile = made_profile();
    const struct allocator *allocator = &profile->allocators[0];
    struct query query;
    memset(&query, 0, sizeof query);
    assert_string_equal(query_title(&query, true), "Allocations at peak");
    assert_true(query_reset(&query, profile, allocator));
    assert_int_equal(query.kind, QUERY_AT_PEAK);
    assert_string_equal(query_title(&query, true), "Allocations at peak");
    assert_string_equal(query_title(&query, false), "At peak");
    assert_string_equal(query.rows.source.label, "at peak");
    assert_int_equal(allocation_table_total(&query.rows), 1);
    query_set_sort(&query, TABLE_COLUMN_OP_NAME, false);

    struct live_index *index;
    assert_int_equal(live_index_build(profile, allocator, 0, &index), LIVE_OK);
    struct live_rows live = {0};
    assert_int_equal(live_index_rows_at(index, 25, &live), LIVE_OK);
    struct allocation_row_source source = {profile, allocator, live.rows, live.count, "x"};
    unsigned generation = query.generation;
    assert_true(query_show(&query, QUERY_LIVE, &source, "live at 25 ps"));
    assert_true(query.generation != generation);
    assert_int_equal(query.kind, QUERY_LIVE);
    assert_string_equal(query_title(&query, true), "Allocations live at 25 ps");
    assert_string_equal(query_title(&query, false), "Live at 25 ps");
    assert_string_equal(query.rows.source.label, "live at 25 ps");
    /* Both live, sorted by op name as before: conv, matmul. */
    assert_int_equal(query.rows.count, 2);
    assert_int_equal(query.rows.sort_column, TABLE_COLUMN_OP_NAME);
    char buffer[ALLOCATION_TABLE_LABEL_SIZE];
    assert_string_equal(allocation_table_op_name(&query.rows, allocation_table_row(&query.rows, 0),
                                                 buffer, sizeof buffer)
                            .bytes,
                        "conv");
    /* A filter carries over to the next rows: conv was freed at 30. */
    assert_true(query_set_filter(&query, "conv"));
    assert_int_equal(query.rows.count, 1);
    assert_int_equal(live_index_rows_at(index, 35, &live), LIVE_OK);
    source.rows = live.rows;
    source.count = live.count;
    assert_true(query_show(&query, QUERY_LIVE, &source, "live at 35 ps"));
    assert_string_equal(query_filter(&query), "conv");
    assert_int_equal(query.rows.count, 0);
    assert_int_equal(allocation_table_total(&query.rows), 1);
    /* And back to the peak. */
    assert_true(query_reset(&query, profile, allocator));
    assert_string_equal(query_title(&query, false), "At peak");
    assert_string_equal(query_filter(&query), "conv");
    query_free(&query);
    live_rows_free(&live);
    live_index_free(index);
    profile_free(profile);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sources_switch_and_keep_the_filter_and_sort),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
