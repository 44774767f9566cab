/* test_export_views: every view exported and compared field by field with
 * the model (tests/test_export): allocations, timeline and its windows,
 * summary, HLO modules, empty allocators, bad requests. */
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

/* ---- the views ---- */

void assert_allocation_row(const struct exported *exported, size_t position,
                                  const struct profile *profile, const struct allocation_row *row)
{
    static const char *const origins[] = {"snapshot", "special", "unresolved", "entry"};
    assert_string_equal(field(exported, position, 0), profile_text(profile, row->op_name));
    assert_int_field(field(exported, position, 1), row->allocation_bytes);
    assert_int_field(field(exported, position, 2), row->requested_bytes);
    assert_int_field(field(exported, position, 3), row->occurrences);
    assert_string_equal(field(exported, position, 4), profile_text(profile, row->region_type));
    assert_string_equal(field(exported, position, 5), profile_text(profile, row->data_type));
    assert_string_equal(field(exported, position, 6), profile_text(profile, row->tensor_shape));
    assert_int_field(field(exported, position, 7), row->step_id);
    if (row->has_time)
        assert_int_field(field(exported, position, 8), row->time_ps);
    else
        assert_string_equal(field(exported, position, 8), "");
    assert_unsigned_field(field(exported, position, 9), row->address);
    assert_string_equal(field(exported, position, 10), memory_activity_name(row->activity));
    assert_string_equal(field(exported, position, 11), origins[row->origin]);
    assert_int_field(field(exported, position, 12), row->snapshot_index);
    assert_int_field(field(exported, position, 13), row->special_index);
    assert_string_equal(field(exported, position, 14), profile_text(profile, row->kind));
    assert_string_equal(field(exported, position, 15), profile_text(profile, row->location));
    assert_string_equal(field(exported, position, 16), profile_text(profile, row->stack));
    assert_int_field(field(exported, position, 17), allocation_row_bytes(row));
}

void test_allocations_in_file_order(void **state)
{
    const struct profile *profile = *state;
    const struct allocator *gpu = &profile->allocators[0];
    struct export_request request;
    /* XProf's table, row for row: what --export allocations wrote before
     * issue 22 made it the live set; --export xprof-table writes it now. */
    export_request_init(&request, EXPORT_VIEW_XPROF_TABLE, profile, gpu);
    struct exported exported = {0};
    export_into(&exported, &request);
    assert_header(&exported, ALLOCATIONS_HEADER);
    assert_int_equal(exported.rows, test_xprof_count(gpu));
    assert_int_equal(exported.rows, 5);
    for (size_t i = 0; i < test_xprof_count(gpu); i++)
        assert_allocation_row(&exported, i, profile, &test_xprof_rows(gpu)[i]);
    /* The origins the fixture made, in the file's order. */
    assert_string_equal(field(&exported, 0, 11), "snapshot");
    assert_string_equal(field(&exported, 1, 11), "special");
    assert_string_equal(field(&exported, 1, 8), "");
    assert_string_equal(field(&exported, 3, 11), "unresolved");
    assert_string_equal(field(&exported, 4, 11), "unresolved");
    assert_string_equal(field(&exported, 0, 1), "-9223372036854775808");
    assert_string_equal(field(&exported, 4, 3), "-9223372036854775808");
    /* The share of the allocator's peak, a fraction as fragmentation is. */
    for (size_t i = 0; i < test_xprof_count(gpu); i++) {
        const char *share = field(&exported, i, 18);
        if (gpu->summary.peak_bytes <= 0) {
            assert_string_equal(share, "");
            continue;
        }
        double expected = (double)allocation_row_bytes(&test_xprof_rows(gpu)[i]) /
                          (double)gpu->summary.peak_bytes;
        assert_true(strtod(share, NULL) == expected);
    }
    exported_free(&exported);
}

void test_timeline_every_field(void **state)
{
    const struct profile *profile = *state;
    const struct allocator *gpu = &profile->allocators[0];
    const struct snapshot_columns *timeline = &gpu->timeline;
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_TIMELINE, profile, gpu);
    struct exported exported = {0};
    export_into(&exported, &request);
    assert_header(&exported, TIMELINE_HEADER);
    assert_int_equal(exported.rows, TIMELINE_COUNT);
    for (size_t i = 0; i < timeline->count; i++) {
        assert_int_field(field(&exported, i, 0), snapshot_columns_time(timeline, i));
        int64_t time_ps;
        assert_true(export_milliseconds_parse(field(&exported, i, 1), &time_ps));
        assert_int_equal(time_ps, snapshot_columns_time(timeline, i));
        assert_int_field(field(&exported, i, 2), timeline->heap_bytes[i]);
        assert_int_field(field(&exported, i, 3), snapshot_columns_stack_bytes(timeline, i));
        assert_int_field(field(&exported, i, 4), snapshot_columns_free_bytes(timeline, i));
        assert_double_field(field(&exported, i, 5), timeline->fragmentation[i]);
        assert_int_field(field(&exported, i, 6), snapshot_columns_peak_bytes_in_use(timeline, i));
        assert_string_equal(field(&exported, i, 7), memory_activity_name(timeline->activity[i]));
        assert_int_field(field(&exported, i, 8), snapshot_columns_requested_bytes(timeline, i));
        assert_int_field(field(&exported, i, 9), snapshot_columns_allocation_bytes(timeline, i));
        assert_unsigned_field(field(&exported, i, 10), snapshot_columns_address(timeline, i));
        assert_string_equal(field(&exported, i, 11),
                            profile_text(profile, snapshot_columns_op_name(timeline, i)));
        assert_int_field(field(&exported, i, 12), snapshot_columns_step_id(timeline, i));
        assert_string_equal(field(&exported, i, 13),
                            profile_text(profile, snapshot_columns_region_type(timeline, i)));
        assert_string_equal(field(&exported, i, 14),
                            profile_text(profile, snapshot_columns_data_type(timeline, i)));
        assert_string_equal(field(&exported, i, 15),
                            profile_text(profile, snapshot_columns_tensor_shape(timeline, i)));
    }
    /* Time order, and the exact spellings of the extremes. */
    assert_string_equal(field(&exported, 0, 0), "-9223372036854775808");
    assert_string_equal(field(&exported, 0, 1), "-9223372036.854775808");
    assert_string_equal(field(&exported, 3, 1), "1.68589");
    assert_string_equal(field(&exported, 2, 1), "0");
    assert_string_equal(field(&exported, 1, 1), "-0.000000005");
    assert_string_equal(field(&exported, 6, 1), "9223372036.854775807");
    assert_string_equal(field(&exported, 6, 10), "18446744073709551615");
    exported_free(&exported);
}

/* Rows of a timeline window: count, first and last time. */
void assert_window(const struct profile *profile, int64_t from_ps, int64_t to_ps,
                          size_t rows, const char *first, const char *last)
{
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_TIMELINE, profile, &profile->allocators[0]);
    request.from_ps = from_ps;
    request.to_ps = to_ps;
    struct exported exported = {0};
    export_into(&exported, &request);
    assert_header(&exported, TIMELINE_HEADER);
    assert_int_equal(exported.rows, rows);
    if (rows) {
        assert_string_equal(field(&exported, 0, 0), first);
        assert_string_equal(field(&exported, rows - 1, 0), last);
    }
    exported_free(&exported);
}

void test_timeline_window_is_inclusive(void **state)
{
    const struct profile *profile = *state;
    /* Times: MIN, -5, 0, 1685890000 (twice), 2000000000, MAX. */
    assert_window(profile, INT64_MIN, INT64_MAX, 7, "-9223372036854775808", "9223372036854775807");
    assert_window(profile, 0, 1685890000, 3, "0", "1685890000");
    assert_window(profile, 1685890000, 1685890000, 2, "1685890000", "1685890000");
    assert_window(profile, 1, 1685889999, 0, NULL, NULL);
    assert_window(profile, -5, -5, 1, "-5", "-5");
    assert_window(profile, -4, 0, 1, "0", "0");
    assert_window(profile, 2000000001, INT64_MAX, 1, "9223372036854775807", "9223372036854775807");
    assert_window(profile, INT64_MIN, INT64_MIN, 1, "-9223372036854775808", "-9223372036854775808");
    assert_window(profile, 10, 5, 0, NULL, NULL);
    assert_window(profile, INT64_MAX, INT64_MIN, 0, NULL, NULL);
}

void assert_summary_row(const struct exported *exported, size_t position,
                               const struct profile *profile, const struct allocator *allocator)
{
    const struct allocator_summary *summary = &allocator->summary;
    assert_string_equal(field(exported, position, 0), profile_text(profile, allocator->id));
    assert_unsigned_field(field(exported, position, 1), allocator->timeline.count);
    assert_unsigned_field(field(exported, position, 2), summary->allocations);
    assert_unsigned_field(field(exported, position, 3), summary->deallocations);
    assert_int_field(field(exported, position, 4), summary->capacity_bytes);
    assert_int_field(field(exported, position, 5), summary->lifetime_peak_bytes);
    assert_int_field(field(exported, position, 6), summary->peak_bytes);
    assert_int_field(field(exported, position, 7), summary->peak_time_ps);
    assert_int_field(field(exported, position, 8), summary->peak.heap_bytes);
    assert_int_field(field(exported, position, 9), summary->peak.stack_bytes);
    assert_int_field(field(exported, position, 10), summary->peak.free_bytes);
    assert_double_field(field(exported, position, 11), summary->peak.fragmentation);
    /* active_allocations: XProf's table (issue 22). */
    assert_unsigned_field(field(exported, position, 12), test_xprof_count(allocator));
    assert_string_equal(field(exported, position, 13), summary->derived ? "true" : "false");
    assert_string_equal(field(exported, position, 14),
                        allocator->timeline_sampled ? "true" : "false");
}

void test_summary_one_row_per_allocator(void **state)
{
    const struct profile *profile = *state;
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_SUMMARY, profile, NULL);
    struct exported exported = {0};
    export_into(&exported, &request);
    assert_header(&exported, SUMMARY_HEADER);
    assert_int_equal(exported.rows, profile->allocator_count);
    for (size_t i = 0; i < profile->allocator_count; i++)
        assert_summary_row(&exported, i, profile, &profile->allocators[i]);
    assert_string_equal(field(&exported, 1, 0), "a,b");
    assert_string_equal(field(&exported, 1, 4), "9223372036854775807");
    assert_string_equal(field(&exported, 1, 11), "nan");
    assert_string_equal(field(&exported, 2, 0), "=evil");
    /* The raw bytes: quoted and guarded. */
    assert_non_null(strstr(exported.bytes, "\n\"a,b\",0,"));
    assert_non_null(strstr(exported.bytes, "\n'=evil,0,"));
    exported_free(&exported);

    export_request_init(&request, EXPORT_VIEW_SUMMARY, profile, &profile->allocators[1]);
    export_into(&exported, &request);
    assert_int_equal(exported.rows, 1);
    assert_summary_row(&exported, 0, profile, &profile->allocators[1]);
    exported_free(&exported);
}

void test_hlo_modules(void **state)
{
    const struct profile *profile = *state;
    /* The allocator does not matter to this view. */
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_HLO, profile, &profile->allocators[2]);
    struct exported exported = {0};
    export_into(&exported, &request);
    assert_header(&exported, HLO_HEADER);
    assert_int_equal(exported.rows, profile->hlo_module_count);
    for (size_t i = 0; i < profile->hlo_module_count; i++) {
        const struct hlo_module *module = &profile->hlo_modules[i];
        assert_int_field(field(&exported, i, 0), module->id);
        assert_string_equal(field(&exported, i, 1), profile_text(profile, module->name));
        assert_string_equal(field(&exported, i, 2), profile_text(profile, module->plane_name));
        assert_int_field(field(&exported, i, 3), module->start_time_ps);
        assert_int_field(field(&exported, i, 4), module->end_time_ps);
    }
    assert_string_equal(field(&exported, 0, 5), "249000");
    assert_string_equal(field(&exported, 1, 5), ""); /* MAX - MIN overflows */
    assert_string_equal(field(&exported, 2, 5), "-10");
    assert_non_null(
        strstr(exported.bytes, "\n-9223372036854775808,'=cmd|' /C calc'!A0,\"a,\"\"b\"\"\","));
    exported_free(&exported);
}

void test_empty_allocator_gives_a_header(void **state)
{
    const struct profile *profile = *state;
    for (int view = 0; view < EXPORT_VIEW_COUNT; view++) {
        /* compare takes two profiles: tests/test_compare_report.c;
         * segments an allocator that records them:
         * tests/formats/torch_snapshot/test_torch_snapshot_cli.sh */
        if (view == EXPORT_VIEW_SUMMARY || view == EXPORT_VIEW_HLO ||
            view == EXPORT_VIEW_COMPARE || view == EXPORT_VIEW_SEGMENTS ||
            !export_view_is_csv((enum export_view)view))
            continue;
        struct export_request request;
        export_request_init(&request, (enum export_view)view, profile, &profile->allocators[2]);
        struct exported exported = {0};
        export_into(&exported, &request);
        assert_int_equal(exported.rows, 0);
        assert_int_equal(exported.csv.count, 1);
        exported_free(&exported);
    }
}

void test_bad_requests_fail_cleanly(void **state)
{
    const struct profile *profile = *state;
    char error[EXPORT_ERROR_SIZE];
    size_t rows = 99;
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_TIMELINE, profile, NULL);
    FILE *sink = fopen("/dev/null", "w");
    assert_non_null(sink);
    assert_int_equal(export_write(sink, &request, &rows, error, sizeof error), EXPORT_FAILED);
    assert_string_equal(error, "the profile has no allocator to export");
    assert_int_equal(rows, 0);
    request.view = EXPORT_VIEW_ALLOCATIONS;
    assert_int_equal(export_write(sink, &request, &rows, error, sizeof error), EXPORT_FAILED);
    request.view = EXPORT_VIEW_COUNT;
    assert_int_equal(export_write(sink, &request, NULL, error, sizeof error), EXPORT_FAILED);
    assert_string_equal(error, "unknown export view");
    export_request_init(&request, EXPORT_VIEW_HLO, NULL, NULL);
    assert_int_equal(export_write(sink, &request, NULL, error, sizeof error), EXPORT_FAILED);
    fclose(sink);
}
