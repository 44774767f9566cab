/* test_bad_input.h: what the files of tests/test_bad_input share.
 *
 * The builders of small profiles in memory and the loading, refusing and
 * file helpers (test_bad_input_support.c), and every test, so that
 * test_bad_input.c's main lists them all in one cmocka group (one TAP
 * plan, the same test names). Only tests/test_bad_input includes it. */
#ifndef TESTS_TEST_BAD_INPUT_H
#define TESTS_TEST_BAD_INPUT_H

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

/* A MemoryProfileSnapshot: time, stack, heap, fragmentation, activity, op. */
struct snapshot_spec {
    int64_t time_ps;
    int64_t stack_bytes;
    int64_t heap_bytes;
    double fragmentation;
    int64_t activity;
    const char *op;
};

extern const char small_json[];

void put_message(struct wire_bytes *bytes, uint32_t field, struct wire_bytes *message);
void put_snapshot(struct wire_bytes *allocator, uint32_t field, struct snapshot_spec spec);
void put_active(struct wire_bytes *allocator, int64_t snapshot_index,
                       int64_t special_index, int64_t occurrences);
void put_allocator(struct wire_bytes *profile, const char *id,
                          struct wire_bytes *allocator);
struct wire_bytes small_profile(void);
void expect_refused(enum load_status status, struct profile *profile,
                           const struct load_error *error, const char *expected);
void expect_bytes_refused(const void *data, size_t size, const char *expected);
void expect_text_refused(const char *text, const char *expected);
struct profile *load_bytes_ok(const void *data, size_t size);
struct profile *load_text_ok(const char *text);
enum load_status load_any(const void *data, size_t size);
const struct allocator *allocator_named(const struct profile *profile, const char *id);
const char *file_path(const char *name);
const char *write_file(const char *name, const void *data, size_t size);
void expect_file_refused(const char *path, const char *expected);
void test_missing_and_empty_files(void **state);
void test_directory_fifo_and_device(void **state);
int load_as_nobody(const char *path);
void test_unreadable_file(void **state);
void test_dangling_symlink(void **state);
void test_every_single_byte(void **state);
void test_every_prefix_of_a_profile(void **state);
void test_every_prefix_of_json_and_gzip(void **state);
void test_wrong_wire_types(void **state);
void test_lengths_past_the_end(void **state);
void test_overlong_and_truncated_varints(void **state);
void test_no_allocators(void **state);
void test_negative_and_huge_sizes(void **state);
void test_indices_out_of_range(void **state);
void test_odd_fragmentation(void **state);
void test_unsorted_and_duplicate_times(void **state);
void test_memory_ids_naming_missing_allocators(void **state);
void test_duplicate_allocator_keys_last_entry_wins(void **state);
void test_many_repeated_keys_warn_in_bounds(void **state);
void test_json_wrong_types(void **state);
void test_json_error_escapes_file_text(void **state);
void test_json_deep_nesting(void **state);
void test_invalid_utf8_is_kept_byte_for_byte(void **state);
void test_gzip_corrupt_and_truncated(void **state);
void test_gzip_trailing_data_refused(void **state);
uint8_t *gzip_zeros(size_t megabytes, size_t *compressed_size);
void test_gzip_bomb_is_capped(void **state);
void test_fuzz_regressions(void **state);

#endif
