/* Hostile and broken input: the catalogue of bad profiles memtop must
 * refuse with one clear line (LOAD_BAD_INPUT, exit status 2), and of odd
 * ones it must load safely. Profiles come from other machines and other
 * tools: nothing here may crash, hang or leak (the suite also runs under
 * ASan+UBSan and valgrind). The crash inputs the fuzzers found, in
 * tests/fuzz/regressions/, are loaded here too.
 *
 * This file holds main, the list of the tests; they live in
 * test_bad_input_bytes.c, _values.c and _text.c, with helpers in
 * _support.c, and share tests/test_bad_input.h. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "model/format.h"
#include "model/decode/gzip.h"
#include "model/load.h"
#include "model/profile.h"
#include "model/profile_builder.h"
#include "model/timeline.h"
#include "tests/test_support.h"
#include "tests/wire_builder.h"

#include "tests/test_bad_input.h"

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_and_empty_files),
        cmocka_unit_test(test_directory_fifo_and_device),
        cmocka_unit_test(test_unreadable_file),
        cmocka_unit_test(test_dangling_symlink),
        cmocka_unit_test(test_every_single_byte),
        cmocka_unit_test(test_every_prefix_of_a_profile),
        cmocka_unit_test(test_every_prefix_of_json_and_gzip),
        cmocka_unit_test(test_wrong_wire_types),
        cmocka_unit_test(test_lengths_past_the_end),
        cmocka_unit_test(test_overlong_and_truncated_varints),
        cmocka_unit_test(test_no_allocators),
        cmocka_unit_test(test_negative_and_huge_sizes),
        cmocka_unit_test(test_indices_out_of_range),
        cmocka_unit_test(test_odd_fragmentation),
        cmocka_unit_test(test_unsorted_and_duplicate_times),
        cmocka_unit_test(test_memory_ids_naming_missing_allocators),
        cmocka_unit_test(test_duplicate_allocator_keys_last_entry_wins),
        cmocka_unit_test(test_many_repeated_keys_warn_in_bounds),
        cmocka_unit_test(test_json_wrong_types),
        cmocka_unit_test(test_json_error_escapes_file_text),
        cmocka_unit_test(test_json_deep_nesting),
        cmocka_unit_test(test_invalid_utf8_is_kept_byte_for_byte),
        cmocka_unit_test(test_gzip_corrupt_and_truncated),
        cmocka_unit_test(test_gzip_trailing_data_refused),
        cmocka_unit_test(test_gzip_bomb_is_capped),
        cmocka_unit_test(test_fuzz_regressions),
    };
    return cmocka_run_group_tests(tests, test_directory_create, test_directory_remove);
}
