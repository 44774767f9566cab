/* test_load_json.h: what the files of tests/test_load_json share.
 *
 * The load helpers and the profile with every field set
 * (test_load_json_support.c), and every test, so that test_load_json.c's
 * main lists them all in one cmocka group (one TAP plan, the same test
 * names). Only tests/test_load_json includes it. */
#ifndef TESTS_TEST_LOAD_JSON_H
#define TESTS_TEST_LOAD_JSON_H

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

/* ---- a profile with every field set ---- */

/* '@' marks the start of each message, where variants insert members. */
#define SNAPSHOT_ALLOCATION                                                                    \
    "{@\"timeOffsetPs\":\"2000\",\"aggregationStats\":{@\"stackReservedBytes\":\"10\","      \
    "\"heapAllocatedBytes\":\"800\",\"freeMemoryBytes\":\"190\",\"fragmentation\":0.25,"     \
    "\"peakBytesInUse\":\"810\"},\"activityMetadata\":{@\"memoryActivity\":\"ALLOCATION\","  \
    "\"requestedBytes\":\"100\",\"allocationBytes\":\"128\",\"address\":\"4096\","            \
    "\"tfOpName\":\"dense/MatMul\",\"stepId\":\"3\",\"regionType\":\"output\","               \
    "\"dataType\":\"float\",\"tensorShape\":\"[8,16]\"}}"
#define SNAPSHOT_DEALLOCATION                                                                  \
    "{@\"timeOffsetPs\":\"3000\",\"aggregationStats\":{@\"stackReservedBytes\":\"10\","      \
    "\"heapAllocatedBytes\":\"672\",\"freeMemoryBytes\":\"318\",\"fragmentation\":0.5,"      \
    "\"peakBytesInUse\":\"810\"},\"activityMetadata\":{@\"memoryActivity\":\"DEALLOCATION\"," \
    "\"requestedBytes\":\"-7\",\"allocationBytes\":\"128\",\"address\":\"4096\","             \
    "\"tfOpName\":\"dense/MatMul\",\"stepId\":\"4\",\"regionType\":\"output\","               \
    "\"dataType\":\"float\",\"tensorShape\":\"[8,16]\"}}"
#define METADATA_PATH "memoryProfilePerAllocator.a.specialAllocations[0]."
#define ALLOCATOR(members) "{\"memoryProfilePerAllocator\":{\"GPU_0_bfc\":{" members "}}}"
#define ALLOCATOR_PATH "memoryProfilePerAllocator.GPU_0_bfc."

/* What the tracker's release does for a file mapping, made strict: the
 * released pages become unreadable, so any read behind the release point
 * crashes the test. */
struct unreadable_pages {
    uint8_t *base;
    size_t protected_bytes;
    size_t releases;
};

struct progress_seen {
    uint64_t last;
    uint64_t total;
    size_t calls;
};

extern const char full_profile[];

enum load_status load_bytes(const void *bytes, size_t size, struct test_draft **out,
                                   struct load_error *error);
struct test_draft *load_ok(const char *json);
struct profile *load_finished(const char *json);
void expect_bad_bytes(const void *bytes, size_t size, const char *message);
void expect_bad(const char *json, const char *message);
const char *text(const struct test_draft *profile, uint32_t id);
const struct profile *built(const struct test_draft *profile);
struct snapshot column_at(const struct snapshot_columns *columns, size_t index);
char *replace_all(const char *source, const char *from, const char *to);
char *rewrite_strings(const char *json, bool snake, bool unquote);
char *full_profile_variant(const char *members, bool snake, bool unquote);
void check_allocation_snapshot(const struct test_draft *profile, struct snapshot s);
void check_full_profile(const struct test_draft *profile);
void check_variant(const char *members, bool snake, bool unquote);
void test_real_xprof_file(void **state);
void test_all_spellings_give_identical_profiles(void **state);
void test_camel_case(void **state);
void test_snake_case_reads_the_same(void **state);
void test_mixed_case_keys(void **state);
void test_integers_as_bare_numbers(void **state);
void test_enums_as_numbers(void **state);
void test_wrapped_in_an_array(void **state);
void test_unknown_fields_are_ignored(void **state);
void assert_snapshot_is_empty(struct snapshot s);
void test_nulls_are_defaults(void **state);
void test_empty_object_is_an_empty_profile(void **state);
struct snapshot load_one_metadata(const char *members, struct test_draft **profile);
void test_64_bit_extremes(void **state);
void test_64_bit_out_of_range(void **state);
void test_malformed_integers(void **state);
void test_int32_fields(void **state);
void test_doubles(void **state);
void test_strings_are_byte_exact(void **state);
void test_allocators_in_document_order(void **state);
void test_wrong_types_name_the_path(void **state);
void test_long_texts_are_cut_in_messages(void **state);
void test_syntax_errors_give_an_offset(void **state);
void test_trailing_garbage(void **state);
void test_empty_input(void **state);
char *nested(size_t depth, const char *prefix, const char *suffix, bool close);
void expect_invalid_json(const char *json);
/* "JSON nested deeper than 1000 levels at offset OFFSET". */
void expect_too_deep(const char *json, size_t offset);
void test_deep_nesting_is_an_error(void **state);
void test_input_ending_at_a_page_end(void **state);
size_t whole_text_error(const char *bytes, size_t size);
void expect_like_whole_text(const char *bytes, size_t size, size_t *syntax,
                                   size_t *value_first);
void test_errors_where_whole_text_cjson_puts_them(void **state);
void test_deep_nesting_inside_a_snapshot(void **state);
void test_value_error_before_syntax_error(void **state);
char *big_document(size_t count, size_t *size);
void make_unreadable(void *context, size_t from, size_t to);
void record_progress(void *context, uint64_t done, uint64_t total);
void test_streaming_reads_each_byte_once(void **state);
void big_snapshot_strings(size_t i, char *op, char *shape);
struct wire_bytes big_protobuf(size_t count);
char *big_json(size_t count, size_t *size);
void test_big_profile_same_from_json_and_protobuf(void **state);

#endif
