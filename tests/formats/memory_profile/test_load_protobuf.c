/* Tests for load_protobuf: random messages packed by protobuf-c must load to
 * exactly what protobuf-c itself unpacks, and hand-made wire bytes check the
 * protobuf rules and the error messages one by one.
 *
 * This file holds main, the list of the tests; they live in
 * test_load_protobuf_random.c, _wire.c, _errors.c, _threads.c and
 * _fast_path.c, and share tests/test_load_protobuf.h. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memory_profile.pb-c.h"
#include "model/load.h"
#include "model/load_internal.h"
#include "model/profile.h"
#include "model/formats/memory_profile/xprof_draft.h"
#include "model/string_table.h"
#include "tests/test_support.h"
#include "tests/wire_builder.h"

#include "tests/formats/memory_profile/test_load_protobuf.h"

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_messages_match_protobuf_c),
        cmocka_unit_test(test_empty_buffer_is_an_empty_profile),
        cmocka_unit_test(test_unknown_fields_are_skipped),
        cmocka_unit_test(test_repeated_scalar_last_wins),
        cmocka_unit_test(test_repeated_submessage_merges),
        cmocka_unit_test(test_map_value_before_key),
        cmocka_unit_test(test_map_entry_without_key_or_value),
        cmocka_unit_test(test_duplicate_allocator_key_last_entry_wins),
        cmocka_unit_test_teardown(test_timeline_keeps_no_spare_room,
                                  parallel_threshold_restore),
        cmocka_unit_test(test_special_allocation_has_only_metadata),
        cmocka_unit_test(test_strings_are_kept_byte_for_byte),
        cmocka_unit_test(test_negative_int32_is_a_ten_byte_varint),
        cmocka_unit_test(test_wrong_wire_type_names_the_offset),
        cmocka_unit_test(test_overlong_varint),
        cmocka_unit_test(test_truncated_varint),
        cmocka_unit_test(test_length_past_end),
        cmocka_unit_test(test_truncated_fixed64),
        cmocka_unit_test(test_group_and_invalid_wire_types),
        cmocka_unit_test(test_every_prefix_loads_or_is_refused),
        cmocka_unit_test(test_every_damaged_byte_loads_or_is_refused),
        cmocka_unit_test_teardown(test_random_messages_match_protobuf_c_on_two_threads,
                                  parallel_threshold_restore),
        cmocka_unit_test_teardown(test_long_value_two_threads_match_one,
                                  parallel_threshold_restore),
        cmocka_unit_test_teardown(test_lists_outgrowing_their_estimate_match_one_thread,
                                  parallel_threshold_restore),
        cmocka_unit_test_teardown(test_damaged_long_value_two_threads_match_one,
                                  parallel_threshold_restore),
        cmocka_unit_test_teardown(test_error_in_the_second_half_matches_one_thread,
                                  parallel_threshold_restore),
        cmocka_unit_test_teardown(test_demo_profile_two_threads_match_one,
                                  parallel_threshold_restore),
        cmocka_unit_test_teardown(test_generated_profile_two_threads_match_one,
                                  parallel_threshold_restore),
        cmocka_unit_test_teardown(test_fast_path_matches_generic_decoder, fast_path_restore),
        cmocka_unit_test_teardown(test_fast_path_falls_back_on_unusual_snapshots,
                                  fast_path_restore),
        cmocka_unit_test_teardown(test_fast_path_cut_or_damaged_snapshot_matches_generic,
                                  fast_path_restore),
    };
    return cmocka_run_group_tests(tests, test_directory_create, test_directory_remove);
}
