/* test_export.h: what the files of tests/test_export share.
 *
 * The strict CSV reader, exporting into memory and the profile with every
 * awkward value (test_export_support.c), the file fixture
 * (test_export_files.c), and every test, so that test_export.c's main lists
 * them all in one cmocka group (one TAP plan, the same test names). Only
 * tests/test_export includes it. */
#ifndef TESTS_TEST_EXPORT_H
#define TESTS_TEST_EXPORT_H

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

struct csv_record {
    char **fields;
    size_t count;
};

struct csv_document {
    struct csv_record *records;
    size_t count;
};

struct text_buffer {
    char *bytes;
    size_t length, capacity;
};

struct exported {
    char *bytes;
    size_t size;
    size_t rows;
    struct csv_document csv;
};

#define AWKWARD_COUNT (sizeof awkward_texts / sizeof *awkward_texts)
#define TIMELINE_COUNT (sizeof timeline_times / sizeof *timeline_times)
#define ALLOCATIONS_HEADER                                                                   \
    "op_name,allocation_bytes,requested_bytes,occurrences,region_type,data_type,tensor_shape," \
    "step_id,time_ps,address,activity,origin,snapshot_index,special_index,kind,location,stack," \
    "total_bytes,share,context,module"
#define TIMELINE_HEADER                                                                      \
    "time_ps,time_ms,heap_bytes,stack_bytes,free_bytes,fragmentation,peak_bytes_in_use,"      \
    "activity,requested_bytes,allocation_bytes,address,op_name,step_id,region_type,data_type," \
    "tensor_shape"
#define SUMMARY_HEADER                                                                       \
    "allocator,snapshots,allocations,deallocations,capacity_bytes,lifetime_peak_bytes,"       \
    "peak_bytes,peak_time_ps,peak_heap_bytes,peak_stack_bytes,peak_free_bytes,"               \
    "peak_fragmentation,active_allocations,summary_computed,timeline_sampled"
#define HLO_HEADER "id,name,plane_name,start_time_ps,end_time_ps,duration_ps"

struct table_fixture {
    struct profile *profile;
    struct allocation_table table;
};

struct directory_fixture {
    struct profile *profile;
    char directory[64];
};

extern const char *const awkward_texts[12];
extern const int64_t timeline_times[7];

void buffer_add(struct text_buffer *buffer, char byte);
void field_unguard(char *field);
char *parse_field(const char *text, size_t length, size_t *position);
void csv_parse(const char *text, size_t length, struct csv_document *document);
void csv_document_free(struct csv_document *document);
void export_into(struct exported *out, const struct export_request *request);
void exported_free(struct exported *exported);
void assert_header(const struct exported *exported, const char *expected);
const char *field(const struct exported *exported, size_t row, size_t column);
void assert_int_field(const char *text, int64_t expected);
void assert_unsigned_field(const char *text, uint64_t expected);
void assert_double_field(const char *text, double expected);
uint32_t intern(struct test_draft *profile, const char *text);
struct xprof_allocator *add_allocator(struct test_draft *profile, const char *id);
void append(struct snapshot_columns *columns, const struct snapshot *snapshot);
void add_active(struct xprof_allocator *allocator, int64_t snapshot_index,
                       int64_t special_index, int64_t occurrences);
struct snapshot awkward_snapshot(struct test_draft *profile, size_t i);
struct profile *awkward_profile(void);
int setup_profile(void **state);
int teardown_profile(void **state);
void assert_allocation_row(const struct exported *exported, size_t position,
                                  const struct profile *profile, const struct allocation_row *row);
void test_allocations_in_file_order(void **state);
void test_timeline_every_field(void **state);
void assert_window(const struct profile *profile, int64_t from_ps, int64_t to_ps,
                          size_t rows, const char *first, const char *last);
void test_timeline_window_is_inclusive(void **state);
void assert_summary_row(const struct exported *exported, size_t position,
                               const struct profile *profile, const struct allocator *allocator);
void test_summary_one_row_per_allocator(void **state);
void test_hlo_modules(void **state);
void test_empty_allocator_gives_a_header(void **state);
void test_bad_requests_fail_cleanly(void **state);
int setup_table(void **state);
int teardown_table(void **state);
void assert_table_export(struct table_fixture *fixture, const char *const *ops,
                                size_t count);
void test_table_order_and_filter(void **state);
void test_table_grouped(void **state);
void test_table_of_another_allocator_is_refused(void **state);
void test_random_texts_round_trip(void **state);
int setup_directory(void **state);
int teardown_directory(void **state);
char *path_in(const struct directory_fixture *fixture, const char *name);
size_t hidden_files(const struct directory_fixture *fixture);
void write_text_file(const char *path, const char *text);
char *read_text_file(const char *path);
char *expected_csv(const struct export_request *request);
void test_file_is_written_whole(void **state);
void test_existing_file_is_refused_then_replaced(void **state);
void test_symlink_is_refused_or_replaced_not_followed(void **state);
void test_missing_or_unwritable_directory_fails(void **state);
void test_failed_write_keeps_the_old_file(void **state);
void test_full_disk_on_a_stream(void **state);
void test_view_names(void **state);
void assert_sort(const char *text, enum table_column column, bool descending);
void test_sort_names(void **state);
void assert_milliseconds(const char *text, int64_t expected);
void test_milliseconds_parse_exactly(void **state);
void test_default_paths(void **state);
void test_real_file(void **state);

#endif
