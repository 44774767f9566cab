#include "config.h"

/* Tests of the proto3-JSON loader: the real XProf file, every spelling a
 * proto3 JSON reader must accept, and every wrong input it must refuse with
 * a message that names the place. Inputs are copied into buffers of their
 * exact length (no NUL after them), as the loader gets them from a mapping.
 *
 * This file holds main, the list of the tests; they live in
 * test_load_json_spellings.c, _refused.c and _streaming.c, with helpers in
 * _support.c, and share tests/test_load_json.h. */

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_xprof_file),
        cmocka_unit_test(test_camel_case),
        cmocka_unit_test(test_all_spellings_give_identical_profiles),
        cmocka_unit_test(test_snake_case_reads_the_same),
        cmocka_unit_test(test_mixed_case_keys),
        cmocka_unit_test(test_integers_as_bare_numbers),
        cmocka_unit_test(test_enums_as_numbers),
        cmocka_unit_test(test_wrapped_in_an_array),
        cmocka_unit_test(test_unknown_fields_are_ignored),
        cmocka_unit_test(test_nulls_are_defaults),
        cmocka_unit_test(test_empty_object_is_an_empty_profile),
        cmocka_unit_test(test_64_bit_extremes),
        cmocka_unit_test(test_64_bit_out_of_range),
        cmocka_unit_test(test_malformed_integers),
        cmocka_unit_test(test_int32_fields),
        cmocka_unit_test(test_doubles),
        cmocka_unit_test(test_strings_are_byte_exact),
        cmocka_unit_test(test_allocators_in_document_order),
        cmocka_unit_test(test_wrong_types_name_the_path),
        cmocka_unit_test(test_long_texts_are_cut_in_messages),
        cmocka_unit_test(test_syntax_errors_give_an_offset),
        cmocka_unit_test(test_trailing_garbage),
        cmocka_unit_test(test_empty_input),
        cmocka_unit_test(test_deep_nesting_is_an_error),
        cmocka_unit_test(test_input_ending_at_a_page_end),
        cmocka_unit_test(test_errors_where_whole_text_cjson_puts_them),
        cmocka_unit_test(test_deep_nesting_inside_a_snapshot),
        cmocka_unit_test(test_value_error_before_syntax_error),
        cmocka_unit_test(test_streaming_reads_each_byte_once),
        cmocka_unit_test(test_big_profile_same_from_json_and_protobuf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
