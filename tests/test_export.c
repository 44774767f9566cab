/* The exporters end to end: every view written, read back with a strict
 * CSV reader and compared field by field with the model; the table's
 * filter and order; timeline windows; atomic files (refusal, replacing,
 * failures that leave nothing behind); the helpers the command line uses.
 *
 * This file holds main, the list of the tests; they live in
 * test_export_views.c, _table.c, _files.c and _helpers.c, with helpers in
 * _support.c, and share tests/test_export.h. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_allocations_in_file_order, setup_profile,
                                        teardown_profile),
        cmocka_unit_test_setup_teardown(test_timeline_every_field, setup_profile,
                                        teardown_profile),
        cmocka_unit_test_setup_teardown(test_timeline_window_is_inclusive, setup_profile,
                                        teardown_profile),
        cmocka_unit_test_setup_teardown(test_summary_one_row_per_allocator, setup_profile,
                                        teardown_profile),
        cmocka_unit_test_setup_teardown(test_hlo_modules, setup_profile, teardown_profile),
        cmocka_unit_test_setup_teardown(test_empty_allocator_gives_a_header, setup_profile,
                                        teardown_profile),
        cmocka_unit_test_setup_teardown(test_bad_requests_fail_cleanly, setup_profile,
                                        teardown_profile),
        cmocka_unit_test_setup_teardown(test_table_order_and_filter, setup_table, teardown_table),
        cmocka_unit_test_setup_teardown(test_table_grouped, setup_table, teardown_table),
        cmocka_unit_test_setup_teardown(test_table_of_another_allocator_is_refused, setup_table,
                                        teardown_table),
        cmocka_unit_test(test_random_texts_round_trip),
        cmocka_unit_test_setup_teardown(test_file_is_written_whole, setup_directory,
                                        teardown_directory),
        cmocka_unit_test_setup_teardown(test_existing_file_is_refused_then_replaced,
                                        setup_directory, teardown_directory),
        cmocka_unit_test_setup_teardown(test_symlink_is_refused_or_replaced_not_followed,
                                        setup_directory, teardown_directory),
        cmocka_unit_test_setup_teardown(test_missing_or_unwritable_directory_fails,
                                        setup_directory, teardown_directory),
        cmocka_unit_test_setup_teardown(test_failed_write_keeps_the_old_file, setup_directory,
                                        teardown_directory),
        cmocka_unit_test_setup_teardown(test_full_disk_on_a_stream, setup_directory,
                                        teardown_directory),
        cmocka_unit_test(test_view_names),
        cmocka_unit_test(test_sort_names),
        cmocka_unit_test(test_milliseconds_parse_exactly),
        cmocka_unit_test_setup_teardown(test_default_paths, setup_profile, teardown_profile),
        cmocka_unit_test(test_real_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
