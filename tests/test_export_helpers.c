/* test_export_helpers: the export helpers the command line and the viewer
 * use (tests/test_export): view and sort names, milliseconds, default
 * paths; and the real XProf file exported, when it is there. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/load.h"
#include "model/profile.h"
#include "report/csv_writer.h"
#include "report/export.h"
#include "tests/test_support.h"
#include "model/query/allocation_table.h"

#include "tests/test_export.h"

/* ---- helpers for the command line and the viewer ---- */

void test_view_names(void **state)
{
    (void)state;
    static const char *const names[] = {"allocations", "timeline", "summary", "hlo",
                                        "chrome-trace", "compare",
                                        "steps", "segments", "xprof-table", "spans"};
    for (int view = 0; view < EXPORT_VIEW_COUNT; view++) {
        enum export_view parsed;
        assert_string_equal(export_view_name((enum export_view)view), names[view]);
        assert_true(export_view_parse(names[view], &parsed));
        assert_int_equal(parsed, view);
        assert_non_null(strstr(export_view_list(), names[view]));
    }
    enum export_view parsed;
    assert_false(export_view_parse("Timeline", &parsed));
    assert_false(export_view_parse("", &parsed));
    assert_false(export_view_parse("hlo ", &parsed));
    assert_string_equal(export_view_name(EXPORT_VIEW_COUNT), "unknown");
}

void assert_sort(const char *text, enum table_column column, bool descending)
{
    enum table_column parsed_column = TABLE_COLUMN_COUNT;
    bool parsed_descending = !descending;
    assert_true(export_sort_parse(text, &parsed_column, &parsed_descending));
    assert_int_equal(parsed_column, column);
    assert_int_equal(parsed_descending, descending);
}

void test_sort_names(void **state)
{
    (void)state;
    assert_sort("op_name", TABLE_COLUMN_OP_NAME, false);
    assert_sort("allocation_bytes", TABLE_COLUMN_ALLOCATION_BYTES, true);
    assert_sort("requested_bytes", TABLE_COLUMN_REQUESTED_BYTES, true);
    assert_sort("occurrences", TABLE_COLUMN_OCCURRENCES, true);
    assert_sort("region_type", TABLE_COLUMN_REGION_TYPE, false);
    assert_sort("data_type", TABLE_COLUMN_DATA_TYPE, false);
    assert_sort("tensor_shape", TABLE_COLUMN_TENSOR_SHAPE, false);
    assert_sort("allocation_bytes:asc", TABLE_COLUMN_ALLOCATION_BYTES, false);
    assert_sort("op_name:desc", TABLE_COLUMN_OP_NAME, true);
    enum table_column column;
    bool descending;
    /* The one short name the table's header and status line show. */
    assert_sort("size", TABLE_COLUMN_ALLOCATION_BYTES, true);
    assert_sort("op", TABLE_COLUMN_OP_NAME, false);
    assert_sort("count", TABLE_COLUMN_OCCURRENCES, true);
    assert_sort("total", TABLE_COLUMN_TOTAL_BYTES, true);
    assert_sort("total_bytes:asc", TABLE_COLUMN_TOTAL_BYTES, false);
    assert_sort("share", TABLE_COLUMN_SHARE, true);
    assert_sort("type:desc", TABLE_COLUMN_DATA_TYPE, true);
    assert_false(export_sort_parse("Size", &column, &descending));
    assert_false(export_sort_parse("op_name:up", &column, &descending));
    assert_false(export_sort_parse("op_name:", &column, &descending));
    assert_false(export_sort_parse("op_name_x", &column, &descending));
    assert_false(export_sort_parse("time_ps", &column, &descending));
    assert_false(export_sort_parse("time", &column, &descending));
    assert_false(export_sort_parse("", &column, &descending));
}

void assert_milliseconds(const char *text, int64_t expected)
{
    int64_t time_ps = 12345;
    assert_true(export_milliseconds_parse(text, &time_ps));
    assert_int_equal(time_ps, expected);
}

void test_milliseconds_parse_exactly(void **state)
{
    (void)state;
    assert_milliseconds("1.68589", 1685890000);
    assert_milliseconds("0", 0);
    assert_milliseconds("-0", 0);
    assert_milliseconds("+5", 5000000000);
    assert_milliseconds("5.", 5000000000);
    assert_milliseconds(".5", 500000000);
    assert_milliseconds("0.000000001", 1);
    assert_milliseconds("0.0000000010000", 1);
    assert_milliseconds("-2.5", -2500000000);
    assert_milliseconds("1685.890000001", 1685890000001);
    assert_milliseconds("9223372036.854775807", INT64_MAX);
    assert_milliseconds("-9223372036.854775808", INT64_MIN);
    assert_milliseconds("000000000000000000000001", 1000000000);
    int64_t time_ps;
    static const char *const bad[] = {
        "", ".", "-", "+", "1e3", "1.2.3", " 1", "1 ", "0x10", "1,5", "0.0000000001",
        "9223372036.854775808", "-9223372036.854775809", "99999999999", "nan", "--1", "1-",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (export_milliseconds_parse(bad[i], &time_ps))
            fail_msg("'%s' parsed as %" PRId64, bad[i], time_ps);
}

void test_default_paths(void **state)
{
    const struct profile *profile = *state;
    char *path = export_default_path(profile, NULL, &profile->allocators[0], EXPORT_VIEW_TIMELINE);
    assert_string_equal(path, "memtop-GPU_0_bfc-timeline.csv");
    free(path);
    path = export_default_path(profile, NULL, &profile->allocators[1], EXPORT_VIEW_ALLOCATIONS);
    assert_string_equal(path, "memtop-a_b-allocations.csv");
    free(path);
    path = export_default_path(profile, NULL, &profile->allocators[2], EXPORT_VIEW_SUMMARY);
    assert_string_equal(path, "memtop-_evil-summary.csv");
    free(path);
    path = export_default_path(profile, NULL, NULL, EXPORT_VIEW_HLO);
    assert_string_equal(path, "memtop-hlo.csv");
    free(path);
    /* With several hosts, the host first; a file of every allocator is
     * named after none. */
    path = export_default_path(profile, "worker-3", &profile->allocators[0], EXPORT_VIEW_TIMELINE);
    assert_string_equal(path, "memtop-worker-3-GPU_0_bfc-timeline.csv");
    free(path);
    path = export_default_path(profile, "../w 1", NULL, EXPORT_VIEW_SUMMARY);
    assert_string_equal(path, "memtop-.._w_1-summary.csv");
    free(path);
    path = export_default_path(profile, "", NULL, EXPORT_VIEW_SUMMARY);
    assert_string_equal(path, "memtop-_-summary.csv");
    free(path);

    struct test_draft *draft = test_draft_new();
    char long_id[300];
    memset(long_id, 'x', sizeof long_id - 1);
    long_id[sizeof long_id - 1] = '\0';
    add_allocator(draft, "../../etc/passwd \xc3\xa9");
    add_allocator(draft, "");
    add_allocator(draft, long_id);
    struct profile *odd = test_draft_finish(draft);
    path = export_default_path(odd, NULL, &odd->allocators[0], EXPORT_VIEW_HLO);
    assert_string_equal(path, "memtop-.._.._etc_passwd___-hlo.csv");
    free(path);
    path = export_default_path(odd, NULL, &odd->allocators[1], EXPORT_VIEW_HLO);
    assert_string_equal(path, "memtop-_-hlo.csv");
    free(path);
    path = export_default_path(odd, NULL, &odd->allocators[2], EXPORT_VIEW_TIMELINE);
    assert_int_equal(strlen(path), strlen("memtop--timeline.csv") + 100);
    assert_null(strchr(path, '/'));
    free(path);
    profile_free(odd);
}

/* ---- the real XProf file, when it is there ---- */

void test_real_file(void **state)
{
    (void)state;
    char *path = test_real_path("xprof-tpu-v4-8-demo.memory_profile.json");
    if (!path)
        TEST_SKIP("no shared/data beside the source tree: no real XProf file");
    struct profile *profile = NULL;
    struct load_error error;
    assert_int_equal(profile_load(path, NULL, &profile, &error), LOAD_OK);
    free(path);
    for (size_t a = 0; a < profile->allocator_count; a++) {
        const struct allocator *allocator = &profile->allocators[a];
        struct export_request request;
        export_request_init(&request, EXPORT_VIEW_ALLOCATIONS, profile, allocator);
        struct exported exported = {0};
        export_into(&exported, &request);
        assert_int_equal(exported.rows, allocator->row_count);
        for (size_t i = 0; i < allocator->row_count; i++)
            assert_allocation_row(&exported, i, profile, &allocator->rows[i]);
        exported_free(&exported);
        export_request_init(&request, EXPORT_VIEW_TIMELINE, profile, allocator);
        export_into(&exported, &request);
        assert_int_equal(exported.rows, allocator->timeline.count);
        exported_free(&exported);
    }
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_SUMMARY, profile, NULL);
    struct exported exported = {0};
    export_into(&exported, &request);
    assert_int_equal(exported.rows, 4);
    assert_string_equal(field(&exported, 0, 0), "0");
    assert_string_equal(field(&exported, 0, 7), "1685890000");
    assert_string_equal(field(&exported, 0, 11), "0.000401934");
    exported_free(&exported);
    export_request_init(&request, EXPORT_VIEW_HLO, profile, NULL);
    export_into(&exported, &request);
    assert_int_equal(exported.rows, 40);
    exported_free(&exported);
    profile_free(profile);
}
