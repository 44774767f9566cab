/* test_load_protobuf.h: what the files of tests/test_load_protobuf share.
 *
 * The protobuf-c type names, the random message generator and the
 * comparisons (test_load_protobuf_random.c), the hand-made wire bytes and
 * load helpers (test_load_protobuf_wire.c), and every test, so that
 * test_load_protobuf.c's main lists them all in one cmocka group (one TAP
 * plan, the same test names). Only tests/test_load_protobuf includes it. */
#ifndef TESTS_TEST_LOAD_PROTOBUF_H
#define TESTS_TEST_LOAD_PROTOBUF_H

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

typedef Tensorflow__Profiler__MemoryAggregationStats Stats;

typedef Tensorflow__Profiler__MemoryActivityMetadata Metadata;

typedef Tensorflow__Profiler__MemoryProfileSnapshot Snapshot;

typedef Tensorflow__Profiler__MemoryProfileSummary Summary;

typedef Tensorflow__Profiler__ActiveAllocation Active;

typedef Tensorflow__Profiler__PerAllocatorMemoryProfile PerAllocator;

typedef Tensorflow__Profiler__HloModule HloModule;

typedef Tensorflow__Profiler__MemoryProfile MemoryProfile;

typedef Tensorflow__Profiler__MemoryProfile__MemoryProfilePerAllocatorEntry Entry;

#define RANDOM_MESSAGES 300

struct random {
    uint64_t state;
};

struct arena {
    void **blocks;
    size_t count;
    size_t capacity;
};

struct cursors {
    size_t snapshots, sampled, specials, actives;
};

struct threshold_load {
    enum load_status status;
    struct load_error error;
    struct profile *profile;
};


uint64_t random_next(struct random *random);
size_t random_below(struct random *random, size_t limit);
size_t random_count(struct random *random);
int64_t random_int64(struct random *random);
int32_t random_int32(struct random *random);
uint64_t random_address(struct random *random);
double random_fragmentation(struct random *random);
int random_activity(struct random *random);
void *arena_alloc(struct arena *arena, size_t size);
void arena_free(struct arena *arena);
char *random_string(struct arena *arena, struct random *random);
Stats *random_stats(struct arena *arena, struct random *random);
Metadata *random_metadata(struct arena *arena, struct random *random);
Snapshot **random_snapshots(struct arena *arena, struct random *random, size_t *count);
Summary *random_summary(struct arena *arena, struct random *random);
Active **random_actives(struct arena *arena, struct random *random, size_t *count);
Metadata **random_specials(struct arena *arena, struct random *random, size_t *count);
PerAllocator *random_per_allocator(struct arena *arena, struct random *random);
Entry **random_entries(struct arena *arena, struct random *random, size_t *count);
HloModule **random_hlo_modules(struct arena *arena, struct random *random, size_t *count);
MemoryProfile *random_memory_profile(struct arena *arena, struct random *random);
void expect_text(const struct profile *profile, uint32_t id, const char *text);
void expect_double(double actual, double expected);
void expect_stats(const struct snapshot *actual, const Stats *stats);
int expected_activity(int activity);
void expect_metadata(const struct profile *profile, const struct snapshot *actual,
                            const Metadata *metadata);
void expect_snapshots(const struct profile *profile, const struct snapshot_columns *columns,
                             size_t *cursor, Snapshot *const *snapshots, size_t count);
void expect_specials(const struct profile *profile, const struct snapshot_columns *columns,
                            size_t *cursor, Metadata *const *specials, size_t count);
void expect_actives(const struct xprof_allocator *allocator, size_t *cursor,
                           Active *const *actives, size_t count);
void expect_allocator_value(const struct profile *profile,
                                   const struct xprof_allocator *allocator,
                                   struct cursors *cursors, const PerAllocator *value);
void merge_int64(int64_t *into, int64_t from);
void merge_stats(Stats *into, const Stats *from);
void merge_summary(Summary *into, const Summary *from);
void expect_summary_values(const struct allocator_summary *actual, const Summary *expected);
void expect_summary(const struct xprof_allocator *allocator, const Entry *entry);
void expect_allocator(const struct test_draft *loaded, size_t allocator_index,
                             const MemoryProfile *message);
void expect_repeated_key_warnings(const struct profile *profile,
                                         const MemoryProfile *message);
void expect_allocator_order(const struct profile *profile, const MemoryProfile *message);
void expect_hlo_modules(const struct profile *profile, const MemoryProfile *message);
void expect_profile(const struct test_draft *loaded, const MemoryProfile *message);
void check_random_message(struct random *random);
void test_random_messages_match_protobuf_c(void **state);
void put_unknown_fields(struct wire_bytes *buffer);
void put_entry(struct wire_bytes *profile, const char *key,
                      const struct wire_bytes *value);
struct wire_bytes snapshot_bytes(int64_t time_ps, int64_t heap_bytes, const char *op);
enum load_status load_buffer(const struct wire_bytes *buffer, struct test_draft **profile,
                                    struct load_error *error);
struct test_draft *load_ok(const struct wire_bytes *buffer);
void expect_bad_input(const struct wire_bytes *buffer, const char *message);
const struct allocator *find_allocator(const struct profile *profile, const char *id);
const struct profile *built(const struct test_draft *profile);
const struct xprof_allocator *draft_allocator(const struct test_draft *profile,
                                                     const char *id);
void test_empty_buffer_is_an_empty_profile(void **state);
void test_unknown_fields_are_skipped(void **state);
void test_repeated_scalar_last_wins(void **state);
void test_repeated_submessage_merges(void **state);
void test_map_value_before_key(void **state);
void test_map_entry_without_key_or_value(void **state);
void test_duplicate_allocator_key_last_entry_wins(void **state);
void test_timeline_keeps_no_spare_room(void **state);
void test_special_allocation_has_only_metadata(void **state);
void test_strings_are_kept_byte_for_byte(void **state);
void test_negative_int32_is_a_ten_byte_varint(void **state);
void test_wrong_wire_type_names_the_offset(void **state);
void test_overlong_varint(void **state);
void test_truncated_varint(void **state);
void test_length_past_end(void **state);
void test_truncated_fixed64(void **state);
void test_group_and_invalid_wire_types(void **state);
struct wire_bytes full_message(void);
enum load_status expect_ok_or_refused(const uint8_t *bytes, size_t size);
void test_every_prefix_loads_or_is_refused(void **state);
void test_every_damaged_byte_loads_or_is_refused(void **state);
int parallel_threshold_restore(void **state);
void test_random_messages_match_protobuf_c_on_two_threads(void **state);
struct threshold_load load_with_threshold(const uint8_t *bytes, size_t size,
                                                 size_t threshold);
enum load_status expect_same_on_two_threads(const uint8_t *bytes, size_t size);
struct wire_bytes long_message(void);
void test_long_value_two_threads_match_one(void **state);
void test_damaged_long_value_two_threads_match_one(void **state);
struct wire_bytes shrinking_list(int big, int small);
void test_lists_outgrowing_their_estimate_match_one_thread(void **state);
struct wire_bytes snapshots_with_errors(int count, int first_bad, int second_bad);
struct load_error error_on_threads(const struct wire_bytes *message, size_t threshold);
void test_error_in_the_second_half_matches_one_thread(void **state);
struct profile *load_path_with_threshold(const char *path, size_t threshold);
void test_demo_profile_two_threads_match_one(void **state);
void test_generated_profile_two_threads_match_one(void **state);
int fast_path_restore(void **state);
struct threshold_load load_with_fast_path(const uint8_t *bytes, size_t size, bool fast,
                                                 size_t threshold);
enum load_status expect_same_without_fast_path(const uint8_t *bytes, size_t size);
struct wire_bytes full_snapshot_bytes(int64_t seed);
struct wire_bytes profile_around(const struct wire_bytes *snapshot);
void test_fast_path_matches_generic_decoder(void **state);
struct wire_bytes unusual_snapshot_bytes(int variant);
void test_fast_path_falls_back_on_unusual_snapshots(void **state);
void test_fast_path_cut_or_damaged_snapshot_matches_generic(void **state);

#endif
