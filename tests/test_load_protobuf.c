/* Tests for load_protobuf: random messages packed by protobuf-c must load to
 * exactly what protobuf-c itself unpacks, and hand-made wire bytes check the
 * protobuf rules and the error messages one by one. */
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
#include "model/xprof_draft.h"
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

/* ---- a deterministic generator (splitmix64) ---- */

struct random {
    uint64_t state;
};

static uint64_t random_next(struct random *random)
{
    uint64_t z = (random->state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static size_t random_below(struct random *random, size_t limit)
{
    return (size_t)(random_next(random) % limit);
}

/* Mostly small counts, now and then up to 50. */
static size_t random_count(struct random *random)
{
    return random_below(random, 8) == 0 ? random_below(random, 51) : random_below(random, 5);
}

static int64_t random_int64(struct random *random)
{
    static const int64_t edges[] = { 0, -1, 1, INT64_MIN, INT64_MAX, 127, 128, 1 << 20 };
    size_t pick = random_below(random, 10);
    if (pick < sizeof edges / sizeof edges[0])
        return edges[pick];
    uint64_t bits = random_next(random);
    int64_t value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

static int32_t random_int32(struct random *random)
{
    static const int32_t edges[] = { 0, -1, 1, INT32_MIN, INT32_MAX, 2 };
    size_t pick = random_below(random, 8);
    return pick < 6 ? edges[pick] : (int32_t)random_below(random, 100000) - 50000;
}

static uint64_t random_address(struct random *random)
{
    size_t pick = random_below(random, 4);
    return pick == 0 ? 0 : pick == 1 ? UINT64_MAX : random_next(random);
}

static double random_fragmentation(struct random *random)
{
    switch (random_below(random, 9)) {
    case 0: return 0.0;
    case 1: return NAN;
    case 2: return INFINITY;
    case 3: return -INFINITY;
    case 4: return -0.25;
    case 5: return -0.0;
    case 6: return 1e308;
    default: return (double)random_below(random, 1000001) / 1e6;
    }
}

/* In range, negative, and unknown activities; the columns keep only int8. */
static int random_activity(struct random *random)
{
    static const int values[] = { 0, 1, 2, 3, 4, -1, 7, 127, -128, 1000, INT32_MIN };
    return values[random_below(random, sizeof values / sizeof values[0])];
}

/* ---- building messages; every block is freed at once at the end ---- */

struct arena {
    void **blocks;
    size_t count;
    size_t capacity;
};

static void *arena_alloc(struct arena *arena, size_t size)
{
    if (arena->count == arena->capacity) {
        arena->capacity = arena->capacity ? arena->capacity * 2 : 256;
        arena->blocks = realloc(arena->blocks, arena->capacity * sizeof *arena->blocks);
        assert_non_null(arena->blocks);
    }
    void *block = calloc(1, size ? size : 1);
    assert_non_null(block);
    arena->blocks[arena->count++] = block;
    return block;
}

static void arena_free(struct arena *arena)
{
    for (size_t index = 0; index < arena->count; index++)
        free(arena->blocks[index]);
    free(arena->blocks);
    memset(arena, 0, sizeof *arena);
}

/* protobuf-c strings end at NUL, so generated strings never hold one. */
static char *random_string(struct arena *arena, struct random *random)
{
    static const char *const samples[] = {
        "", "", "float", "persist/dynamic", "[3,3,512,512]", "\x01\x02\x1f\x7f ctl",
        "na\xc3\xafve \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80", "\xff\xfe not utf-8",
        "jit_train_step/while/body/dot_general",
    };
    size_t pick = random_below(random, sizeof samples / sizeof samples[0] + 1);
    if (pick < sizeof samples / sizeof samples[0]) {
        char *copy = arena_alloc(arena, strlen(samples[pick]) + 1);
        strcpy(copy, samples[pick]);
        return copy;
    }
    /* Long enough to need a two-byte length. */
    size_t length = 100 + random_below(random, 300);
    char *text = arena_alloc(arena, length + 1);
    for (size_t index = 0; index < length; index++)
        text[index] = (char)(1 + random_below(random, 255));
    return text;
}

static Stats *random_stats(struct arena *arena, struct random *random)
{
    if (random_below(random, 5) == 0)
        return NULL;
    Stats *stats = arena_alloc(arena, sizeof *stats);
    tensorflow__profiler__memory_aggregation_stats__init(stats);
    stats->stack_reserved_bytes = random_int64(random);
    stats->heap_allocated_bytes = random_int64(random);
    stats->free_memory_bytes = random_int64(random);
    stats->fragmentation = random_fragmentation(random);
    stats->peak_bytes_in_use = random_int64(random);
    return stats;
}

static Metadata *random_metadata(struct arena *arena, struct random *random)
{
    Metadata *metadata = arena_alloc(arena, sizeof *metadata);
    tensorflow__profiler__memory_activity_metadata__init(metadata);
    metadata->memory_activity = (Tensorflow__Profiler__MemoryActivity)random_activity(random);
    metadata->requested_bytes = random_int64(random);
    metadata->allocation_bytes = random_int64(random);
    metadata->address = random_address(random);
    metadata->tf_op_name = random_string(arena, random);
    metadata->step_id = random_int64(random);
    metadata->region_type = random_string(arena, random);
    metadata->data_type = random_string(arena, random);
    metadata->tensor_shape = random_string(arena, random);
    return metadata;
}

static Snapshot **random_snapshots(struct arena *arena, struct random *random, size_t *count)
{
    *count = random_count(random);
    Snapshot **snapshots = arena_alloc(arena, *count * sizeof *snapshots);
    for (size_t index = 0; index < *count; index++) {
        Snapshot *snapshot = arena_alloc(arena, sizeof *snapshot);
        tensorflow__profiler__memory_profile_snapshot__init(snapshot);
        snapshot->time_offset_ps = random_int64(random);
        snapshot->aggregation_stats = random_stats(arena, random);
        if (random_below(random, 5) != 0)
            snapshot->activity_metadata = random_metadata(arena, random);
        snapshots[index] = snapshot;
    }
    return snapshots;
}

static Summary *random_summary(struct arena *arena, struct random *random)
{
    if (random_below(random, 3) == 0)
        return NULL;
    Summary *summary = arena_alloc(arena, sizeof *summary);
    tensorflow__profiler__memory_profile_summary__init(summary);
    summary->peak_bytes_usage_lifetime = random_int64(random);
    summary->peak_stats = random_stats(arena, random);
    summary->peak_stats_time_ps = random_int64(random);
    summary->memory_capacity = random_int64(random);
    return summary;
}

static Active **random_actives(struct arena *arena, struct random *random, size_t *count)
{
    *count = random_count(random);
    Active **actives = arena_alloc(arena, *count * sizeof *actives);
    for (size_t index = 0; index < *count; index++) {
        Active *active = arena_alloc(arena, sizeof *active);
        tensorflow__profiler__active_allocation__init(active);
        active->snapshot_index = random_int64(random);
        active->special_index = random_int64(random);
        active->num_occurrences = random_int64(random);
        actives[index] = active;
    }
    return actives;
}

static Metadata **random_specials(struct arena *arena, struct random *random, size_t *count)
{
    *count = random_count(random);
    Metadata **specials = arena_alloc(arena, *count * sizeof *specials);
    for (size_t index = 0; index < *count; index++)
        specials[index] = random_metadata(arena, random);
    return specials;
}

static PerAllocator *random_per_allocator(struct arena *arena, struct random *random)
{
    if (random_below(random, 8) == 0)
        return NULL;
    PerAllocator *value = arena_alloc(arena, sizeof *value);
    tensorflow__profiler__per_allocator_memory_profile__init(value);
    value->memory_profile_snapshots =
        random_snapshots(arena, random, &value->n_memory_profile_snapshots);
    value->profile_summary = random_summary(arena, random);
    value->active_allocations = random_actives(arena, random, &value->n_active_allocations);
    value->special_allocations = random_specials(arena, random, &value->n_special_allocations);
    value->sampled_timeline_snapshots =
        random_snapshots(arena, random, &value->n_sampled_timeline_snapshots);
    return value;
}

/* Keys from a small pool, so that a key often repeats across entries. */
static Entry **random_entries(struct arena *arena, struct random *random, size_t *count)
{
    static const char *const keys[] = { "GPU_0_bfc", "", "TPU:0", "\x01key\x1f",
                                        "\xe6\x97\xa5", "cpu" };
    *count = random_below(random, 4) == 0 ? random_below(random, 51) : random_below(random, 5);
    Entry **entries = arena_alloc(arena, *count * sizeof *entries);
    for (size_t index = 0; index < *count; index++) {
        Entry *entry = arena_alloc(arena, sizeof *entry);
        tensorflow__profiler__memory_profile__memory_profile_per_allocator_entry__init(entry);
        entry->key = (char *)keys[random_below(random, sizeof keys / sizeof keys[0])];
        entry->value = random_per_allocator(arena, random);
        entries[index] = entry;
    }
    return entries;
}

static HloModule **random_hlo_modules(struct arena *arena, struct random *random, size_t *count)
{
    *count = random_count(random);
    HloModule **modules = arena_alloc(arena, *count * sizeof *modules);
    for (size_t index = 0; index < *count; index++) {
        HloModule *module = arena_alloc(arena, sizeof *module);
        tensorflow__profiler__hlo_module__init(module);
        module->name = random_string(arena, random);
        module->start_time_ps = random_int64(random);
        module->end_time_ps = random_int64(random);
        module->id = random_int64(random);
        module->plane_name = random_string(arena, random);
        modules[index] = module;
    }
    return modules;
}

static MemoryProfile *random_memory_profile(struct arena *arena, struct random *random)
{
    MemoryProfile *message = arena_alloc(arena, sizeof *message);
    tensorflow__profiler__memory_profile__init(message);
    message->memory_profile_per_allocator =
        random_entries(arena, random, &message->n_memory_profile_per_allocator);
    message->num_hosts = random_int32(random);
    message->n_memory_ids = random_count(random);
    message->memory_ids = arena_alloc(arena, message->n_memory_ids * sizeof(char *));
    for (size_t index = 0; index < message->n_memory_ids; index++)
        message->memory_ids[index] = random_string(arena, random);
    message->version = random_int32(random);
    message->hlo_modules = random_hlo_modules(arena, random, &message->n_hlo_modules);
    return message;
}

/* ---- comparing what load_protobuf built with protobuf-c's unpack ---- */

static void expect_text(const struct profile *profile, uint32_t id, const char *text)
{
    assert_string_equal(string_table_text(profile->strings, id), text);
    assert_int_equal(string_table_length(profile->strings, id), strlen(text));
}

static void expect_double(double actual, double expected)
{
    /* Bit for bit: NaN, -0.0 and infinities included. */
    assert_memory_equal(&actual, &expected, sizeof actual);
}

static void expect_stats(const struct snapshot *actual, const Stats *stats)
{
    static const Stats zero = TENSORFLOW__PROFILER__MEMORY_AGGREGATION_STATS__INIT;
    if (stats == NULL)
        stats = &zero;
    assert_int_equal(actual->stack_bytes, stats->stack_reserved_bytes);
    assert_int_equal(actual->heap_bytes, stats->heap_allocated_bytes);
    assert_int_equal(actual->free_bytes, stats->free_memory_bytes);
    expect_double(actual->fragmentation, stats->fragmentation);
    assert_int_equal(actual->peak_bytes_in_use, stats->peak_bytes_in_use);
}

static int expected_activity(int activity)
{
    return activity >= INT8_MIN && activity <= INT8_MAX ? activity : MEMORY_ACTIVITY_UNKNOWN;
}

static void expect_metadata(const struct profile *profile, const struct snapshot *actual,
                            const Metadata *metadata)
{
    static const Metadata zero = TENSORFLOW__PROFILER__MEMORY_ACTIVITY_METADATA__INIT;
    if (metadata == NULL)
        metadata = &zero;
    assert_int_equal(actual->activity, expected_activity((int)metadata->memory_activity));
    assert_int_equal(actual->requested_bytes, metadata->requested_bytes);
    assert_int_equal(actual->allocation_bytes, metadata->allocation_bytes);
    assert_true(actual->address == metadata->address);
    assert_int_equal(actual->step_id, metadata->step_id);
    expect_text(profile, actual->op_name, metadata->tf_op_name);
    expect_text(profile, actual->region_type, metadata->region_type);
    expect_text(profile, actual->data_type, metadata->data_type);
    expect_text(profile, actual->tensor_shape, metadata->tensor_shape);
}

static void expect_snapshots(const struct profile *profile, const struct snapshot_columns *columns,
                             size_t *cursor, Snapshot *const *snapshots, size_t count)
{
    for (size_t index = 0; index < count; index++) {
        struct snapshot actual;
        assert_true(*cursor < columns->count);
        snapshot_columns_get(columns, (*cursor)++, &actual);
        assert_int_equal(actual.time_ps, snapshots[index]->time_offset_ps);
        expect_stats(&actual, snapshots[index]->aggregation_stats);
        expect_metadata(profile, &actual, snapshots[index]->activity_metadata);
    }
}

static void expect_specials(const struct profile *profile, const struct snapshot_columns *columns,
                            size_t *cursor, Metadata *const *specials, size_t count)
{
    for (size_t index = 0; index < count; index++) {
        struct snapshot actual;
        assert_true(*cursor < columns->count);
        snapshot_columns_get(columns, (*cursor)++, &actual);
        assert_int_equal(actual.time_ps, 0);
        expect_stats(&actual, NULL);
        expect_metadata(profile, &actual, specials[index]);
    }
}

static void expect_actives(const struct xprof_allocator *allocator, size_t *cursor,
                           Active *const *actives, size_t count)
{
    for (size_t index = 0; index < count; index++) {
        assert_true(*cursor < allocator->active_count);
        const struct active_allocation *actual = &allocator->active[(*cursor)++];
        assert_int_equal(actual->snapshot_index, actives[index]->snapshot_index);
        assert_int_equal(actual->special_index, actives[index]->special_index);
        assert_int_equal(actual->occurrences, actives[index]->num_occurrences);
    }
}

struct cursors {
    size_t snapshots, sampled, specials, actives;
};

static void expect_allocator_value(const struct profile *profile,
                                   const struct xprof_allocator *allocator,
                                   struct cursors *cursors, const PerAllocator *value)
{
    if (value == NULL)
        return;
    expect_snapshots(profile, &allocator->snapshots, &cursors->snapshots,
                     value->memory_profile_snapshots, value->n_memory_profile_snapshots);
    expect_snapshots(profile, &allocator->sampled, &cursors->sampled,
                     value->sampled_timeline_snapshots, value->n_sampled_timeline_snapshots);
    expect_specials(profile, &allocator->specials, &cursors->specials,
                    value->special_allocations, value->n_special_allocations);
    expect_actives(allocator, &cursors->actives, value->active_allocations,
                   value->n_active_allocations);
}

/* protobuf-c leaves zero proto3 scalars off the wire (-0.0 included), so a
 * non-zero value is exactly one that was sent. */
static void merge_int64(int64_t *into, int64_t from)
{
    if (from != 0)
        *into = from;
}

static void merge_stats(Stats *into, const Stats *from)
{
    merge_int64(&into->stack_reserved_bytes, from->stack_reserved_bytes);
    merge_int64(&into->heap_allocated_bytes, from->heap_allocated_bytes);
    merge_int64(&into->free_memory_bytes, from->free_memory_bytes);
    if (from->fragmentation != 0.0 || isnan(from->fragmentation))
        into->fragmentation = from->fragmentation;
    merge_int64(&into->peak_bytes_in_use, from->peak_bytes_in_use);
}

static void merge_summary(Summary *into, const Summary *from)
{
    merge_int64(&into->peak_bytes_usage_lifetime, from->peak_bytes_usage_lifetime);
    if (from->peak_stats != NULL)
        merge_stats(into->peak_stats, from->peak_stats);
    merge_int64(&into->peak_stats_time_ps, from->peak_stats_time_ps);
    merge_int64(&into->memory_capacity, from->memory_capacity);
}

static void expect_summary_values(const struct allocator_summary *actual, const Summary *expected)
{
    assert_int_equal(actual->capacity_bytes, expected->memory_capacity);
    assert_int_equal(actual->lifetime_peak_bytes, expected->peak_bytes_usage_lifetime);
    assert_int_equal(actual->peak_time_ps, expected->peak_stats_time_ps);
    struct snapshot peak = { .stack_bytes = actual->peak.stack_bytes,
                             .heap_bytes = actual->peak.heap_bytes,
                             .free_bytes = actual->peak.free_bytes,
                             .fragmentation = actual->peak.fragmentation,
                             .peak_bytes_in_use = actual->peak.peak_bytes_in_use };
    expect_stats(&peak, expected->peak_stats);
}

/* The summary of the key's entry (merged onto the defaults, fields that
 * were sent winning). */
static void expect_summary(const struct xprof_allocator *allocator, const Entry *entry)
{
    Stats peak = TENSORFLOW__PROFILER__MEMORY_AGGREGATION_STATS__INIT;
    Summary merged = TENSORFLOW__PROFILER__MEMORY_PROFILE_SUMMARY__INIT;
    merged.peak_stats = &peak;
    bool found = entry->value && entry->value->profile_summary;
    if (found)
        merge_summary(&merged, entry->value->profile_summary);
    assert_int_equal(allocator->has_summary, found);
    if (found)
        expect_summary_values(&allocator->summary, &merged);
}

/* A key repeated across map entries keeps only its last entry, as
 * protobuf reads a map (issue 16.5). */
static void expect_allocator(const struct test_draft *loaded, size_t allocator_index,
                             const MemoryProfile *message)
{
    const struct profile *profile = test_draft_profile(loaded);
    const struct xprof_allocator *allocator = &loaded->draft.allocators[allocator_index];
    const char *key = string_table_text(profile->strings, profile->allocators[allocator_index].id);
    const Entry *last = NULL;
    for (size_t index = 0; index < message->n_memory_profile_per_allocator; index++) {
        const Entry *entry = message->memory_profile_per_allocator[index];
        if (strcmp(entry->key, key) == 0)
            last = entry;
    }
    assert_non_null(last);
    struct cursors cursors = { 0 };
    expect_allocator_value(profile, allocator, &cursors, last->value);
    assert_int_equal(cursors.snapshots, allocator->snapshots.count);
    assert_int_equal(cursors.sampled, allocator->sampled.count);
    assert_int_equal(cursors.specials, allocator->specials.count);
    assert_int_equal(cursors.actives, allocator->active_count);
    expect_summary(allocator, last);
}

/* One warning for each key given more than once. */
static void expect_repeated_key_warnings(const struct profile *profile,
                                         const MemoryProfile *message)
{
    size_t repeated = 0;
    for (size_t a = 0; a < profile->allocator_count; a++) {
        const char *key = string_table_text(profile->strings, profile->allocators[a].id);
        size_t entries = 0;
        for (size_t index = 0; index < message->n_memory_profile_per_allocator; index++)
            entries += strcmp(message->memory_profile_per_allocator[index]->key, key) == 0;
        repeated += entries > 1;
    }
    assert_int_equal(profile->warning_count, repeated);
}

/* Allocators come in the order their key first appears. */
static void expect_allocator_order(const struct profile *profile, const MemoryProfile *message)
{
    size_t next = 0;
    for (size_t index = 0; index < message->n_memory_profile_per_allocator; index++) {
        const char *key = message->memory_profile_per_allocator[index]->key;
        long found = profile_find_allocator(profile, text_of(key));
        assert_true(found >= 0);
        if ((size_t)found == next)
            next++;
        else
            assert_true((size_t)found < next);
    }
    assert_int_equal(next, profile->allocator_count);
}

static void expect_hlo_modules(const struct profile *profile, const MemoryProfile *message)
{
    assert_int_equal(profile->hlo_module_count, message->n_hlo_modules);
    for (size_t index = 0; index < message->n_hlo_modules; index++) {
        const struct hlo_module *actual = &profile->hlo_modules[index];
        const HloModule *expected = message->hlo_modules[index];
        assert_int_equal(actual->id, expected->id);
        expect_text(profile, actual->name, expected->name);
        expect_text(profile, actual->plane_name, expected->plane_name);
        assert_int_equal(actual->start_time_ps, expected->start_time_ps);
        assert_int_equal(actual->end_time_ps, expected->end_time_ps);
    }
}

static void expect_profile(const struct test_draft *loaded, const MemoryProfile *message)
{
    const struct profile *profile = test_draft_profile(loaded);
    assert_int_equal(loaded->draft.version, message->version);
    assert_int_equal(loaded->draft.num_hosts, message->num_hosts);
    assert_int_equal(loaded->draft.memory_id_count, message->n_memory_ids);
    for (size_t index = 0; index < message->n_memory_ids; index++)
        expect_text(profile, loaded->draft.memory_ids[index], message->memory_ids[index]);
    expect_hlo_modules(profile, message);
    expect_allocator_order(profile, message);
    for (size_t index = 0; index < profile->allocator_count; index++)
        expect_allocator(loaded, index, message);
    expect_repeated_key_warnings(profile, message);
}

static void check_random_message(struct random *random)
{
    struct arena arena = { 0 };
    MemoryProfile *built = random_memory_profile(&arena, random);
    size_t size = tensorflow__profiler__memory_profile__get_packed_size(built);
    uint8_t *bytes = malloc(size + 1);
    assert_non_null(bytes);
    assert_int_equal(tensorflow__profiler__memory_profile__pack(built, bytes), size);
    arena_free(&arena);

    MemoryProfile *unpacked = tensorflow__profiler__memory_profile__unpack(NULL, size, bytes);
    assert_non_null(unpacked);
    struct test_draft *profile = test_draft_new();
    struct load_error error = {0};
    enum load_status status = load_protobuf(bytes, size, &profile->draft, &error);
    if (status != LOAD_OK)
        fail_msg("load_protobuf: %s", error.message);
    expect_profile(profile, unpacked);
    test_draft_free(profile);
    tensorflow__profiler__memory_profile__free_unpacked(unpacked, NULL);
    free(bytes);
}

static void test_random_messages_match_protobuf_c(void **state)
{
    (void)state;
    struct random random = { 20240611 };
    for (int message = 0; message < RANDOM_MESSAGES; message++)
        check_random_message(&random);
}

/* ---- hand-made wire bytes ---- */

/* One unknown field of each wire type the loader must skip. */
static void put_unknown_fields(struct wire_bytes *buffer)
{
    wire_bytes_put_varint_field(buffer, 99, UINT64_MAX);
    wire_bytes_put_tag(buffer, 100, 1);
    wire_bytes_put_fixed(buffer, 0x0123456789abcdefu, 8);
    wire_bytes_put_string_field(buffer, 101, "skip me");
    wire_bytes_put_tag(buffer, 102, 5);
    wire_bytes_put_fixed(buffer, 0xdeadbeef, 4);
}

/* A map entry { key, value } with the value given as bytes. */
static void put_entry(struct wire_bytes *profile, const char *key,
                      const struct wire_bytes *value)
{
    struct wire_bytes entry = { 0 };
    if (key)
        wire_bytes_put_string_field(&entry, 1, key);
    if (value)
        wire_bytes_put_message_field(&entry, 2, value);
    wire_bytes_put_message_field(profile, 1, &entry);
    wire_bytes_free(&entry);
}

static struct wire_bytes snapshot_bytes(int64_t time_ps, int64_t heap_bytes, const char *op)
{
    struct wire_bytes stats = { 0 }, metadata = { 0 }, snapshot = { 0 };
    wire_bytes_put_varint_field(&stats, 2, (uint64_t)heap_bytes);
    wire_bytes_put_varint_field(&metadata, 1, MEMORY_ACTIVITY_ALLOCATION);
    wire_bytes_put_string_field(&metadata, 5, op);
    wire_bytes_put_varint_field(&snapshot, 1, (uint64_t)time_ps);
    wire_bytes_put_message_field(&snapshot, 2, &stats);
    wire_bytes_put_message_field(&snapshot, 3, &metadata);
    wire_bytes_free(&stats);
    wire_bytes_free(&metadata);
    return snapshot;
}

/* The reader's result is a draft (model/xprof_draft.h): the pieces as the
 * file has them, before XProf's finishing. */
static enum load_status load_buffer(const struct wire_bytes *buffer, struct test_draft **profile,
                                    struct load_error *error)
{
    *profile = test_draft_new();
    memset(error, 0, sizeof *error);
    return load_protobuf(buffer->data, buffer->size, &(*profile)->draft, error);
}

static struct test_draft *load_ok(const struct wire_bytes *buffer)
{
    struct test_draft *profile;
    struct load_error error;
    enum load_status status = load_buffer(buffer, &profile, &error);
    if (status != LOAD_OK)
        fail_msg("load_protobuf: %s", error.message);
    return profile;
}

/* Loads bytes that must be refused and checks the error's exact text. */
static void expect_bad_input(const struct wire_bytes *buffer, const char *message)
{
    struct test_draft *profile;
    struct load_error error;
    assert_int_equal(load_buffer(buffer, &profile, &error), LOAD_BAD_INPUT);
    assert_string_equal(error.message, message);
    test_draft_free(profile);
}

static const struct allocator *find_allocator(const struct profile *profile, const char *id)
{
    long index = profile_find_allocator(profile, text_of(id));
    assert_true(index >= 0);
    return &profile->allocators[index];
}

/* The profile so far: allocator ids, strings, HLO modules, warnings. */
static const struct profile *built(const struct test_draft *profile)
{
    return test_draft_profile(profile);
}

/* The pieces of allocator `id` as read. */
static const struct xprof_allocator *draft_allocator(const struct test_draft *profile,
                                                     const char *id)
{
    long index = profile_find_allocator(built(profile), text_of(id));
    assert_true(index >= 0);
    return &profile->draft.allocators[index];
}

static void test_empty_buffer_is_an_empty_profile(void **state)
{
    (void)state;
    struct test_draft *profile = test_draft_new();
    struct load_error error = {0};
    assert_int_equal(load_protobuf(NULL, 0, &profile->draft, &error), LOAD_OK);
    assert_int_equal(built(profile)->allocator_count, 0);
    assert_int_equal(profile->draft.memory_id_count, 0);
    assert_int_equal(built(profile)->hlo_module_count, 0);
    assert_int_equal(profile->draft.version, 0);
    test_draft_free(profile);
}

static void test_unknown_fields_are_skipped(void **state)
{
    (void)state;
    struct wire_bytes stats = { 0 }, metadata = { 0 };
    struct wire_bytes snapshot = { 0 }, value = { 0 };
    struct wire_bytes profile_bytes = { 0 };
    put_unknown_fields(&stats);
    wire_bytes_put_varint_field(&stats, 1, 11);
    put_unknown_fields(&metadata);
    wire_bytes_put_string_field(&metadata, 9, "[2,2]");
    put_unknown_fields(&snapshot);
    wire_bytes_put_message_field(&snapshot, 2, &stats);
    wire_bytes_put_message_field(&snapshot, 3, &metadata);
    wire_bytes_put_varint_field(&snapshot, 1, 42);
    put_unknown_fields(&value);
    wire_bytes_put_message_field(&value, 1, &snapshot);
    put_unknown_fields(&value);
    put_unknown_fields(&profile_bytes);
    wire_bytes_put_varint_field(&profile_bytes, 4, 5); /* reserved */
    put_entry(&profile_bytes, "GPU_0_bfc", &value);
    wire_bytes_put_varint_field(&profile_bytes, 5, 1);
    put_unknown_fields(&profile_bytes);

    struct test_draft *profile = load_ok(&profile_bytes);
    assert_int_equal(profile->draft.version, 1);
    const struct xprof_allocator *allocator = draft_allocator(profile, "GPU_0_bfc");
    assert_int_equal(allocator->snapshots.count, 1);
    struct snapshot loaded;
    snapshot_columns_get(&allocator->snapshots, 0, &loaded);
    assert_int_equal(loaded.time_ps, 42);
    assert_int_equal(loaded.stack_bytes, 11);
    assert_string_equal(profile_text(built(profile), loaded.tensor_shape), "[2,2]");
    test_draft_free(profile);
    WIRE_BYTES_FREE_ALL(&stats, &metadata, &snapshot, &value, &profile_bytes);
}

static void test_repeated_scalar_last_wins(void **state)
{
    (void)state;
    struct wire_bytes metadata = { 0 }, snapshot = { 0 };
    struct wire_bytes value = { 0 }, profile_bytes = { 0 };
    wire_bytes_put_string_field(&metadata, 5, "first");
    wire_bytes_put_varint_field(&metadata, 2, 100);
    wire_bytes_put_string_field(&metadata, 5, "second");
    wire_bytes_put_varint_field(&snapshot, 1, 7);
    wire_bytes_put_message_field(&snapshot, 3, &metadata);
    wire_bytes_put_varint_field(&snapshot, 1, 8);
    wire_bytes_put_message_field(&value, 5, &snapshot);
    wire_bytes_put_varint_field(&profile_bytes, 5, 3);
    wire_bytes_put_varint_field(&profile_bytes, 2, 9);
    put_entry(&profile_bytes, "a", &value);
    wire_bytes_put_varint_field(&profile_bytes, 5, 1);
    wire_bytes_put_varint_field(&profile_bytes, 2, 4);

    struct test_draft *profile = load_ok(&profile_bytes);
    assert_int_equal(profile->draft.version, 1);
    assert_int_equal(profile->draft.num_hosts, 4);
    const struct xprof_allocator *allocator = draft_allocator(profile, "a");
    struct snapshot loaded;
    snapshot_columns_get(&allocator->sampled, 0, &loaded);
    assert_int_equal(loaded.time_ps, 8);
    assert_int_equal(loaded.requested_bytes, 100);
    assert_string_equal(profile_text(built(profile), loaded.op_name), "second");
    test_draft_free(profile);
    WIRE_BYTES_FREE_ALL(&metadata, &snapshot, &value, &profile_bytes);
}

/* A repeated submessage merges: its later fields win, the others stay. */
static void test_repeated_submessage_merges(void **state)
{
    (void)state;
    struct wire_bytes stats_one = { 0 }, stats_two = { 0 };
    struct wire_bytes snapshot = { 0 }, summary_one = { 0 };
    struct wire_bytes summary_two = { 0 }, value = { 0 };
    struct wire_bytes profile_bytes = { 0 };
    wire_bytes_put_varint_field(&stats_one, 1, 5);
    wire_bytes_put_varint_field(&stats_one, 2, 6);
    wire_bytes_put_varint_field(&stats_two, 2, 60);
    wire_bytes_put_double_field(&stats_two, 4, 0.5);
    wire_bytes_put_message_field(&snapshot, 2, &stats_one);
    wire_bytes_put_message_field(&snapshot, 2, &stats_two);
    wire_bytes_put_varint_field(&summary_one, 4, 1000);
    wire_bytes_put_varint_field(&summary_one, 1, 10);
    wire_bytes_put_message_field(&summary_one, 2, &stats_one);
    wire_bytes_put_varint_field(&summary_two, 1, 20);
    wire_bytes_put_message_field(&summary_two, 2, &stats_two);
    wire_bytes_put_message_field(&value, 1, &snapshot);
    wire_bytes_put_message_field(&value, 2, &summary_one);
    wire_bytes_put_message_field(&value, 2, &summary_two);
    put_entry(&profile_bytes, "a", &value);

    struct test_draft *profile = load_ok(&profile_bytes);
    const struct xprof_allocator *allocator = draft_allocator(profile, "a");
    struct snapshot loaded;
    snapshot_columns_get(&allocator->snapshots, 0, &loaded);
    assert_int_equal(loaded.stack_bytes, 5);
    assert_int_equal(loaded.heap_bytes, 60);
    assert_true(loaded.fragmentation == 0.5);
    assert_true(allocator->has_summary);
    assert_int_equal(allocator->summary.capacity_bytes, 1000);
    assert_int_equal(allocator->summary.lifetime_peak_bytes, 20);
    assert_int_equal(allocator->summary.peak.stack_bytes, 5);
    assert_int_equal(allocator->summary.peak.heap_bytes, 60);
    assert_true(allocator->summary.peak.fragmentation == 0.5);
    test_draft_free(profile);
    WIRE_BYTES_FREE_ALL(&stats_one, &stats_two, &snapshot, &summary_one, &summary_two, &value,
                        &profile_bytes);
}

static void test_map_value_before_key(void **state)
{
    (void)state;
    struct wire_bytes value = { 0 }, entry = { 0 };
    struct wire_bytes profile_bytes = { 0 };
    struct wire_bytes snapshot = snapshot_bytes(5, 64, "op");
    wire_bytes_put_message_field(&value, 1, &snapshot);
    wire_bytes_put_message_field(&entry, 2, &value);
    wire_bytes_put_string_field(&entry, 1, "ignored: a later key wins");
    wire_bytes_put_string_field(&entry, 1, "GPU_1_bfc");
    wire_bytes_put_message_field(&profile_bytes, 1, &entry);

    struct test_draft *profile = load_ok(&profile_bytes);
    assert_int_equal(built(profile)->allocator_count, 1);
    const struct xprof_allocator *allocator = draft_allocator(profile, "GPU_1_bfc");
    assert_int_equal(allocator->snapshots.count, 1);
    struct snapshot loaded;
    snapshot_columns_get(&allocator->snapshots, 0, &loaded);
    assert_int_equal(loaded.heap_bytes, 64);
    assert_int_equal(loaded.activity, MEMORY_ACTIVITY_ALLOCATION);
    assert_string_equal(profile_text(built(profile), loaded.op_name), "op");
    test_draft_free(profile);
    WIRE_BYTES_FREE_ALL(&value, &entry, &profile_bytes, &snapshot);
}

static void test_map_entry_without_key_or_value(void **state)
{
    (void)state;
    struct wire_bytes value = { 0 }, profile_bytes = { 0 };
    struct wire_bytes snapshot = snapshot_bytes(1, 2, "x");
    wire_bytes_put_message_field(&value, 5, &snapshot);
    /* Neither key nor value, then no key: both are key "", the last wins. */
    put_entry(&profile_bytes, NULL, NULL);
    put_entry(&profile_bytes, "only a key", NULL);
    put_entry(&profile_bytes, NULL, &value);

    struct test_draft *profile = load_ok(&profile_bytes);
    assert_int_equal(built(profile)->allocator_count, 2);
    assert_int_equal(built(profile)->warning_count, 1);
    const struct xprof_allocator *unnamed = draft_allocator(profile, "");
    assert_int_equal(unnamed->sampled.count, 1);
    const struct xprof_allocator *empty = draft_allocator(profile, "only a key");
    assert_int_equal(empty->snapshots.count, 0);
    assert_int_equal(empty->sampled.count, 0);
    assert_false(empty->has_summary);
    test_draft_free(profile);
    WIRE_BYTES_FREE_ALL(&value, &profile_bytes, &snapshot);
}

/* A key given again: the last entry wins, as protobuf reads a map (issue
 * 16.5), in the place of the first, and the profile says so. */
static void test_duplicate_allocator_key_last_entry_wins(void **state)
{
    (void)state;
    struct wire_bytes first = { 0 }, second = { 0 }, other = { 0 };
    struct wire_bytes summary_one = { 0 }, summary_two = { 0 };
    struct wire_bytes profile_bytes = { 0 };
    struct wire_bytes early = snapshot_bytes(1, 10, "early");
    struct wire_bytes late = snapshot_bytes(2, 20, "late");
    wire_bytes_put_varint_field(&summary_one, 4, 4096);
    wire_bytes_put_varint_field(&summary_two, 3, 77);
    wire_bytes_put_message_field(&first, 1, &early);
    wire_bytes_put_message_field(&first, 2, &summary_one);
    wire_bytes_put_message_field(&second, 1, &late);
    wire_bytes_put_message_field(&second, 2, &summary_two);
    wire_bytes_put_message_field(&other, 1, &early);
    put_entry(&profile_bytes, "GPU_0_bfc", &first);
    put_entry(&profile_bytes, "cpu", &other);
    put_entry(&profile_bytes, "GPU_0_bfc", &second);

    struct test_draft *profile = load_ok(&profile_bytes);
    assert_int_equal(built(profile)->allocator_count, 2);
    assert_string_equal(profile_text(built(profile), built(profile)->allocators[0].id),
                        "GPU_0_bfc");
    const struct xprof_allocator *last = &profile->draft.allocators[0];
    assert_int_equal(last->snapshots.count, 1);
    struct snapshot loaded;
    snapshot_columns_get(&last->snapshots, 0, &loaded);
    assert_string_equal(profile_text(built(profile), loaded.op_name), "late");
    assert_true(last->has_summary);
    assert_int_equal(last->summary.capacity_bytes, 0);
    assert_int_equal(last->summary.peak_time_ps, 77);
    assert_int_equal(profile->draft.allocators[1].snapshots.count, 1);
    assert_int_equal(built(profile)->warning_count, 1);
    assert_string_equal(test_warning(built(profile), 0), "the file repeats map key \"GPU_0_bfc\"; "
                                                         "the last entry wins, as protobuf reads it");
    test_draft_free(profile);
    WIRE_BYTES_FREE_ALL(&first, &second, &other, &summary_one, &summary_two, &profile_bytes,
                        &early, &late);
}

/* The loader reserves room from estimates; the finished timeline keeps
 * none past its last snapshot, whether one thread loaded it or two, also
 * when the columns hold some already (a value given twice in one map
 * entry merges, as protobuf merges a repeated submessage). */
static void test_timeline_keeps_no_spare_room(void **state)
{
    (void)state;
    struct wire_bytes value = { 0 }, profile_bytes = { 0 };
    struct wire_bytes snapshot = snapshot_bytes(1, 2, "op");
    for (int index = 0; index < 3; index++)
        wire_bytes_put_message_field(&value, 1, &snapshot);
    for (int index = 0; index < 21; index++)
        wire_bytes_put_message_field(&value, 5, &snapshot);
    struct wire_bytes entry = { 0 };
    wire_bytes_put_string_field(&entry, 1, "a");
    wire_bytes_put_message_field(&entry, 2, &value);
    wire_bytes_put_message_field(&entry, 2, &value);
    wire_bytes_put_message_field(&profile_bytes, 1, &entry);

    for (int threads = 1; threads <= 2; threads++) {
        load_protobuf_set_parallel_threshold(threads == 1 ? SIZE_MAX : 2);
        struct test_draft *profile = load_ok(&profile_bytes);
        const struct xprof_allocator *pieces = draft_allocator(profile, "a");
        assert_int_equal(pieces->snapshots.count, 6);
        assert_int_equal(pieces->sampled.count, 42);
        assert_int_equal(built(profile)->warning_count, 0);
        struct profile *finished = test_draft_finish(profile);
        const struct allocator *allocator = find_allocator(finished, "a");
        assert_int_equal(allocator->timeline.count, 42);
        assert_int_equal(allocator->timeline.capacity, 42);
        profile_free(finished);
    }
    WIRE_BYTES_FREE_ALL(&value, &entry, &profile_bytes, &snapshot);
}

static void test_special_allocation_has_only_metadata(void **state)
{
    (void)state;
    struct wire_bytes metadata = { 0 }, value = { 0 };
    struct wire_bytes active = { 0 }, profile_bytes = { 0 };
    struct wire_bytes summary = { 0 };
    wire_bytes_put_varint_field(&metadata, 3, 1 << 20);
    wire_bytes_put_string_field(&metadata, 5, "stack");
    wire_bytes_put_string_field(&metadata, 7, "stack");
    wire_bytes_put_varint_field(&metadata, 1, (uint64_t)-1); /* a negative enum: 10 bytes */
    wire_bytes_put_varint_field(&active, 1, (uint64_t)-1);
    wire_bytes_put_varint_field(&active, 2, 0);
    wire_bytes_put_varint_field(&active, 3, 2);
    wire_bytes_put_message_field(&value, 4, &metadata);
    wire_bytes_put_message_field(&value, 3, &active);
    wire_bytes_put_message_field(&value, 2, &summary); /* present but empty */
    put_entry(&profile_bytes, "a", &value);

    struct test_draft *profile = load_ok(&profile_bytes);
    const struct xprof_allocator *allocator = draft_allocator(profile, "a");
    assert_int_equal(allocator->specials.count, 1);
    struct snapshot special;
    snapshot_columns_get(&allocator->specials, 0, &special);
    assert_int_equal(special.time_ps, 0);
    assert_int_equal(special.heap_bytes, 0);
    assert_int_equal(special.allocation_bytes, 1 << 20);
    assert_int_equal(special.activity, -1);
    assert_string_equal(profile_text(built(profile), special.region_type), "stack");
    assert_int_equal(allocator->active_count, 1);
    assert_int_equal(allocator->active[0].snapshot_index, -1);
    assert_int_equal(allocator->active[0].occurrences, 2);
    assert_true(allocator->has_summary);
    assert_int_equal(allocator->summary.capacity_bytes, 0);
    test_draft_free(profile);
    WIRE_BYTES_FREE_ALL(&metadata, &value, &active, &profile_bytes, &summary);
}

/* Strings are kept byte for byte, even past a NUL (protobuf-c cuts there). */
static void test_strings_are_kept_byte_for_byte(void **state)
{
    (void)state;
    static const char op[] = { 'a', '\0', 'b', '\x1b' };
    static const char key[] = { 'k', '\0' };
    struct wire_bytes metadata = { 0 }, snapshot = { 0 };
    struct wire_bytes value = { 0 }, entry = { 0 };
    struct wire_bytes profile_bytes = { 0 };
    wire_bytes_put_length_field(&metadata, 5, op, sizeof op);
    wire_bytes_put_message_field(&snapshot, 3, &metadata);
    wire_bytes_put_message_field(&value, 1, &snapshot);
    wire_bytes_put_length_field(&entry, 1, key, sizeof key);
    wire_bytes_put_message_field(&entry, 2, &value);
    wire_bytes_put_message_field(&profile_bytes, 1, &entry);
    wire_bytes_put_length_field(&profile_bytes, 3, key, sizeof key);

    struct test_draft *profile = load_ok(&profile_bytes);
    assert_int_equal(built(profile)->allocator_count, 1);
    const struct xprof_allocator *allocator = &profile->draft.allocators[0];
    uint32_t id = built(profile)->allocators[0].id;
    assert_int_equal(string_table_length(built(profile)->strings, id), sizeof key);
    assert_int_equal(profile->draft.memory_ids[0], id);
    struct snapshot loaded;
    snapshot_columns_get(&allocator->snapshots, 0, &loaded);
    assert_int_equal(string_table_length(built(profile)->strings, loaded.op_name), sizeof op);
    assert_memory_equal(string_table_text(built(profile)->strings, loaded.op_name), op, sizeof op);
    test_draft_free(profile);
    WIRE_BYTES_FREE_ALL(&metadata, &snapshot, &value, &entry, &profile_bytes);
}

/* int32 fields arrive as sign-extended 64-bit varints. */
static void test_negative_int32_is_a_ten_byte_varint(void **state)
{
    (void)state;
    struct wire_bytes profile_bytes = { 0 };
    wire_bytes_put_varint_field(&profile_bytes, 5, (uint64_t)(int64_t)INT32_MIN);
    wire_bytes_put_varint_field(&profile_bytes, 2, (uint64_t)-1);
    assert_int_equal(profile_bytes.size, 22);

    struct test_draft *profile = load_ok(&profile_bytes);
    assert_int_equal(profile->draft.version, INT32_MIN);
    assert_int_equal(profile->draft.num_hosts, -1);
    test_draft_free(profile);
    wire_bytes_free(&profile_bytes);
}

static void test_wrong_wire_type_names_the_offset(void **state)
{
    (void)state;
    struct wire_bytes top = { 0 };
    wire_bytes_put_varint_field(&top, 5, 300); /* 3 bytes */
    wire_bytes_put_varint_field(&top, 2, 1);   /* 2 bytes */
    wire_bytes_put_string_field(&top, 3, "a"); /* 3 bytes */
    wire_bytes_put_varint_field(&top, 3, 0);
    expect_bad_input(&top, "offset 8: field 3 (memory_ids) has wire type 0, expected 2");

    /* Deep inside: fragmentation sent as a varint. Offsets are absolute. */
    struct wire_bytes stats = { 0 }, snapshot = { 0 };
    struct wire_bytes value = { 0 }, nested = { 0 };
    wire_bytes_put_varint_field(&stats, 4, 1);
    wire_bytes_put_message_field(&snapshot, 2, &stats);
    wire_bytes_put_message_field(&value, 1, &snapshot);
    put_entry(&nested, "k", &value);
    /* entry tag+length 2, key 3, value tag+length 2, snapshot 2, stats 2 */
    expect_bad_input(&nested, "offset 11: field 4 (fragmentation) has wire type 0, expected 1");

    struct wire_bytes key = { 0 }, entry = { 0 };
    wire_bytes_put_varint_field(&entry, 1, 3);
    wire_bytes_put_message_field(&key, 1, &entry);
    expect_bad_input(&key, "offset 2: field 1 (key) has wire type 0, expected 2");

    struct wire_bytes summary = { 0 }, bad_summary = { 0 };
    struct wire_bytes with_summary = { 0 };
    wire_bytes_put_string_field(&summary, 1, "not a varint");
    wire_bytes_put_message_field(&bad_summary, 2, &summary);
    put_entry(&with_summary, "k", &bad_summary);
    expect_bad_input(&with_summary,
                     "offset 9: field 1 (peak_bytes_usage_lifetime) has wire type 2, expected 0");
    WIRE_BYTES_FREE_ALL(&top, &stats, &snapshot, &value, &nested, &key, &entry, &summary,
                        &bad_summary, &with_summary);
}

static void test_overlong_varint(void **state)
{
    (void)state;
    struct wire_bytes buffer = { 0 };
    wire_bytes_put_tag(&buffer, 5, 0);
    for (int index = 0; index < 10; index++)
        wire_bytes_put_byte(&buffer, 0x80);
    wire_bytes_put_byte(&buffer, 0x01);
    expect_bad_input(&buffer, "offset 1: varint longer than 10 bytes");

    /* Ten bytes with the high bits of the last one set are still fine. */
    struct wire_bytes ten = { 0 };
    wire_bytes_put_tag(&ten, 5, 0);
    for (int index = 0; index < 9; index++)
        wire_bytes_put_byte(&ten, 0xff);
    wire_bytes_put_byte(&ten, 0x7f);
    struct test_draft *profile = load_ok(&ten);
    assert_int_equal(profile->draft.version, -1);
    test_draft_free(profile);
    WIRE_BYTES_FREE_ALL(&buffer, &ten);
}

static void test_truncated_varint(void **state)
{
    (void)state;
    struct wire_bytes buffer = { 0 };
    wire_bytes_put_tag(&buffer, 2, 0);
    wire_bytes_put_byte(&buffer, 0x80);
    wire_bytes_put_byte(&buffer, 0x80);
    expect_bad_input(&buffer, "offset 1: varint runs past the end of the data (3 bytes)");
    wire_bytes_free(&buffer);
}

static void test_length_past_end(void **state)
{
    (void)state;
    struct wire_bytes buffer = { 0 };
    wire_bytes_put_tag(&buffer, 3, 2);
    wire_bytes_put_varint(&buffer, 900000);
    wire_bytes_put_byte(&buffer, 'a');
    expect_bad_input(&buffer, "offset 1: length 900000 runs past the end of the data (5 bytes)");

    /* A length that fits the file but not its enclosing message. */
    struct wire_bytes nested = { 0 };
    wire_bytes_put_tag(&nested, 1, 2);
    wire_bytes_put_varint(&nested, 3);
    wire_bytes_put_tag(&nested, 1, 2);
    wire_bytes_put_varint(&nested, 5);
    wire_bytes_put_byte(&nested, 'x');
    for (int index = 0; index < 8; index++)
        wire_bytes_put_varint_field(&nested, 99, 0);
    expect_bad_input(&nested, "offset 3: length 5 runs past the end of its message (at offset 5)");

    /* The largest lengths must not wrap around. */
    struct wire_bytes huge = { 0 };
    wire_bytes_put_tag(&huge, 3, 2);
    wire_bytes_put_varint(&huge, UINT64_MAX);
    expect_bad_input(&huge, "offset 1: length 18446744073709551615 runs past the end of the "
                            "data (11 bytes)");
    WIRE_BYTES_FREE_ALL(&buffer, &nested, &huge);
}

static void test_truncated_fixed64(void **state)
{
    (void)state;
    struct wire_bytes buffer = { 0 };
    wire_bytes_put_tag(&buffer, 100, 1);
    wire_bytes_put_fixed(&buffer, 0x010203, 3);
    expect_bad_input(&buffer, "offset 2: fixed64 value runs past the end of the data (5 bytes)");

    struct wire_bytes fixed32 = { 0 };
    wire_bytes_put_tag(&fixed32, 7, 5);
    wire_bytes_put_fixed(&fixed32, 1, 2);
    expect_bad_input(&fixed32, "offset 1: fixed32 value runs past the end of the data (3 bytes)");
    WIRE_BYTES_FREE_ALL(&buffer, &fixed32);
}

static void test_group_and_invalid_wire_types(void **state)
{
    (void)state;
    struct wire_bytes start = { 0 };
    wire_bytes_put_varint_field(&start, 5, 1);
    wire_bytes_put_tag(&start, 9, 3);
    wire_bytes_put_tag(&start, 9, 4);
    expect_bad_input(&start, "offset 2: field 9 has group wire type 3, not supported");

    struct wire_bytes end = { 0 };
    wire_bytes_put_tag(&end, 9, 4);
    expect_bad_input(&end, "offset 0: field 9 has group wire type 4, not supported");

    struct wire_bytes six = { 0 };
    wire_bytes_put_tag(&six, 1, 6);
    expect_bad_input(&six, "offset 0: field 1 has invalid wire type 6");

    struct wire_bytes zero = { 0 };
    wire_bytes_put_varint_field(&zero, 0, 1);
    expect_bad_input(&zero, "offset 0: invalid field number 0");

    struct wire_bytes wide = { 0 };
    wire_bytes_put_varint(&wide, (uint64_t)1 << 35);
    wire_bytes_put_byte(&wide, 0);
    expect_bad_input(&wide, "offset 0: invalid field number 4294967296");
    WIRE_BYTES_FREE_ALL(&start, &end, &six, &zero, &wide);
}

/* A small message with every kind of field, for the damage tests. */
static struct wire_bytes full_message(void)
{
    struct wire_bytes summary = { 0 }, active = { 0 }, special = { 0 };
    struct wire_bytes value = { 0 }, module = { 0 };
    struct wire_bytes profile_bytes = { 0 };
    struct wire_bytes snapshot = snapshot_bytes(123456, 1 << 20, "jit/dot");
    wire_bytes_put_varint_field(&summary, 1, 1 << 21);
    wire_bytes_put_varint_field(&summary, 4, (uint64_t)1 << 34);
    wire_bytes_put_varint_field(&active, 1, 0);
    wire_bytes_put_varint_field(&active, 3, 1);
    wire_bytes_put_string_field(&special, 7, "persist/dynamic");
    wire_bytes_put_message_field(&value, 1, &snapshot);
    wire_bytes_put_message_field(&value, 2, &summary);
    wire_bytes_put_message_field(&value, 3, &active);
    wire_bytes_put_message_field(&value, 4, &special);
    wire_bytes_put_message_field(&value, 5, &snapshot);
    wire_bytes_put_string_field(&module, 1, "jit_step");
    wire_bytes_put_varint_field(&module, 4, 7);
    put_entry(&profile_bytes, "GPU_0_bfc", &value);
    wire_bytes_put_varint_field(&profile_bytes, 2, 1);
    wire_bytes_put_string_field(&profile_bytes, 3, "GPU_0_bfc");
    wire_bytes_put_varint_field(&profile_bytes, 5, 1);
    wire_bytes_put_message_field(&profile_bytes, 6, &module);
    WIRE_BYTES_FREE_ALL(&summary, &active, &special, &value, &module, &snapshot);
    return profile_bytes;
}

/* Damaged input loads or is refused with an offset; it never crashes. */
static enum load_status expect_ok_or_refused(const uint8_t *bytes, size_t size)
{
    struct test_draft *profile = test_draft_new();
    struct load_error error = {0};
    enum load_status status = load_protobuf(bytes, size, &profile->draft, &error);
    assert_true(status == LOAD_OK || status == LOAD_BAD_INPUT);
    if (status == LOAD_BAD_INPUT)
        assert_memory_equal(error.message, "offset ", 7);
    test_draft_free(profile);
    return status;
}

static void test_every_prefix_loads_or_is_refused(void **state)
{
    (void)state;
    struct wire_bytes message = full_message();
    struct test_draft *whole = load_ok(&message);
    assert_int_equal(built(whole)->allocator_count, 1);
    assert_int_equal(built(whole)->hlo_module_count, 1);
    test_draft_free(whole);
    size_t refused = 0;
    for (size_t size = 0; size < message.size; size++) {
        /* A copy of just the prefix, so reading past it is caught. */
        uint8_t *prefix = malloc(size ? size : 1);
        assert_non_null(prefix);
        memcpy(prefix, message.data, size);
        refused += expect_ok_or_refused(prefix, size) == LOAD_BAD_INPUT;
        free(prefix);
    }
    /* Most cuts land inside a field. */
    assert_true(refused > message.size / 2);
    wire_bytes_free(&message);
}

static void test_every_damaged_byte_loads_or_is_refused(void **state)
{
    (void)state;
    static const uint8_t replacements[] = { 0x00, 0x01, 0x7f, 0x80, 0xff, 0x0a, 0x0b, 0x0f };
    struct wire_bytes message = full_message();
    for (size_t position = 0; position < message.size; position++) {
        for (size_t pick = 0; pick < sizeof replacements; pick++) {
            uint8_t *damaged = malloc(message.size);
            assert_non_null(damaged);
            memcpy(damaged, message.data, message.size);
            damaged[position] = replacements[pick];
            expect_ok_or_refused(damaged, message.size);
            free(damaged);
        }
    }
    wire_bytes_free(&message);
}

/* ---- the two-thread decoder gives what one thread gives ---- */

static int parallel_threshold_restore(void **state)
{
    (void)state;
    load_protobuf_set_parallel_threshold(0);
    return 0;
}

/* Every value with two snapshots or more goes through the worker. */
static void test_random_messages_match_protobuf_c_on_two_threads(void **state)
{
    (void)state;
    load_protobuf_set_parallel_threshold(2);
    struct random random = { 20240611 };
    for (int message = 0; message < RANDOM_MESSAGES; message++)
        check_random_message(&random);
}

struct threshold_load {
    enum load_status status;
    struct load_error error;
    struct profile *profile;
};

static struct threshold_load load_with_threshold(const uint8_t *bytes, size_t size,
                                                 size_t threshold)
{
    struct threshold_load load = { .profile = NULL };
    struct test_draft *draft = test_draft_new();
    load_protobuf_set_parallel_threshold(threshold);
    load.status = load_protobuf(bytes, size, &draft->draft, &load.error);
    if (load.status == LOAD_OK)
        load.profile = test_draft_finish(draft);
    else
        test_draft_free(draft);
    return load;
}

/* Loads the bytes on one thread and on two: same status, same message,
 * same model. */
static enum load_status expect_same_on_two_threads(const uint8_t *bytes, size_t size)
{
    struct threshold_load one = load_with_threshold(bytes, size, SIZE_MAX);
    struct threshold_load two = load_with_threshold(bytes, size, 2);
    assert_int_equal(two.status, one.status);
    if (one.status == LOAD_OK)
        test_assert_profiles_equal(one.profile, two.profile);
    else
        assert_string_equal(two.error.message, one.error.message);
    profile_free(one.profile);
    profile_free(two.profile);
    return one.status;
}

/* Long snapshot lists with every other field around and inside them:
 * GPU_0_bfc's memory_profile_snapshots (its key named twice in the map, the
 * long entry last, so that it wins),
 * GPU_1_bfc's sampled_timeline_snapshots (with one memory_profile_snapshot
 * in the middle), and a short cpu list. The worker's part starts in the
 * middle of a list; the other fields must stay in order. */
static struct wire_bytes long_message(void)
{
    static const char *const ops[] = { "jit/dot", "jit/add", "jit/dot", "x", "jit/mul", "" };
    struct wire_bytes value = { 0 }, again = { 0 }, other = { 0 };
    struct wire_bytes sampled = { 0 };
    struct wire_bytes summary = { 0 }, active = { 0 }, special = { 0 };
    struct wire_bytes profile_bytes = { 0 };
    wire_bytes_put_varint_field(&summary, 1, 1 << 21);
    wire_bytes_put_string_field(&special, 7, "persist/dynamic");
    for (int index = 0; index < 12; index++) {
        struct wire_bytes snapshot = snapshot_bytes(1000 + index, index << 10, ops[index % 6]);
        wire_bytes_put_message_field(&value, 1, &snapshot);
        wire_bytes_put_message_field(&sampled, 5, &snapshot);
        if (index == 2 || index == 9) {
            /* Rows pointing into either half of the list. */
            active.size = 0;
            wire_bytes_put_varint_field(&active, 1, (uint64_t)index * 4 % 11);
            wire_bytes_put_varint_field(&active, 3, 2);
            wire_bytes_put_message_field(&value, 3, &active);
        }
        if (index == 5)
            wire_bytes_put_message_field(&sampled, 1, &snapshot);
        if (index == 10)
            wire_bytes_put_message_field(&value, 4, &special);
        wire_bytes_free(&snapshot);
    }
    wire_bytes_put_message_field(&value, 2, &summary);
    for (int index = 0; index < 4; index++) {
        struct wire_bytes snapshot = snapshot_bytes(500 + index, 1 << 20, ops[5 - index]);
        wire_bytes_put_message_field(&again, 1, &snapshot);
        wire_bytes_put_message_field(&other, 1, &snapshot);
        wire_bytes_free(&snapshot);
    }
    put_entry(&profile_bytes, "GPU_0_bfc", &again);
    put_entry(&profile_bytes, "GPU_1_bfc", &sampled);
    put_entry(&profile_bytes, "cpu", &other);
    put_entry(&profile_bytes, "GPU_0_bfc", &value);
    wire_bytes_put_string_field(&profile_bytes, 3, "GPU_0_bfc");
    WIRE_BYTES_FREE_ALL(&value, &again, &other, &sampled, &summary, &active, &special);
    return profile_bytes;
}

static void test_long_value_two_threads_match_one(void **state)
{
    (void)state;
    struct wire_bytes message = long_message();
    assert_int_equal(expect_same_on_two_threads(message.data, message.size), LOAD_OK);
    struct threshold_load two = load_with_threshold(message.data, message.size, 2);
    assert_int_equal(two.status, LOAD_OK);
    const struct allocator *gpu = find_allocator(two.profile, "GPU_0_bfc");
    /* The last entry of GPU_0_bfc wins: the long one (issue 16.5). */
    assert_int_equal(gpu->timeline.count, 12);
    assert_int_equal(gpu->row_count, 2);
    /* Row 0 is snapshot 8, decoded by the worker. */
    assert_int_equal(gpu->rows[0].time_ps, 1008);
    expect_text(two.profile, gpu->rows[0].op_name, "jit/dot");
    assert_int_equal(gpu->rows[1].time_ps, 1003);
    expect_text(two.profile, gpu->rows[1].op_name, "x");
    assert_int_equal(find_allocator(two.profile, "GPU_1_bfc")->timeline.count, 12);
    assert_int_equal(find_allocator(two.profile, "cpu")->timeline.count, 4);
    profile_free(two.profile);
    wire_bytes_free(&message);
}

static void test_damaged_long_value_two_threads_match_one(void **state)
{
    (void)state;
    static const uint8_t replacements[] = { 0x00, 0x7f, 0x80, 0x0b };
    struct wire_bytes message = long_message();
    size_t refused = 0, loaded = 0;
    for (size_t size = 0; size < message.size; size++)
        refused += expect_same_on_two_threads(message.data, size) != LOAD_OK;
    uint8_t *damaged = malloc(message.size);
    assert_non_null(damaged);
    for (size_t position = 0; position < message.size; position++) {
        for (size_t pick = 0; pick < sizeof replacements; pick++) {
            memcpy(damaged, message.data, message.size);
            damaged[position] = replacements[pick];
            if (expect_same_on_two_threads(damaged, message.size) == LOAD_OK)
                loaded++;
            else
                refused++;
        }
    }
    assert_true(refused > message.size);
    assert_true(loaded > 0);
    free(damaged);
    wire_bytes_free(&message);
}

/* The worker decodes into room reserved from the average size of the
 * list's first entries. Lists whose later entries are much smaller run
 * out of it: in the worker's part (it stops, the main thread goes on from
 * there) or already in the main thread's (it stops the worker and grows
 * the columns). Either way the result is one thread's.
 * `big` entries of 11 bytes (a time of 2^49 takes 8 varint bytes), then
 * `small` empty ones of 2 bytes. */
static struct wire_bytes shrinking_list(int big, int small)
{
    struct wire_bytes value = { 0 }, profile_bytes = { 0 };
    struct wire_bytes timed = { 0 }, empty = { 0 };
    wire_bytes_put_varint_field(&timed, 1, (uint64_t)1 << 49);
    assert_int_equal(timed.size, 9);
    for (int index = 0; index < big; index++)
        wire_bytes_put_message_field(&value, 1, &timed);
    for (int index = 0; index < small; index++)
        wire_bytes_put_message_field(&value, 1, &empty);
    put_entry(&profile_bytes, "GPU_0_bfc", &value);
    WIRE_BYTES_FREE_ALL(&value, &timed);
    return profile_bytes;
}

static void test_lists_outgrowing_their_estimate_match_one_thread(void **state)
{
    (void)state;
    /* 11500 bytes, room for 1322: the main thread's part holds ~800
     * entries, the worker's ~2700. */
    struct wire_bytes worker_short = shrinking_list(500, 3000);
    /* 12066 bytes, room for 1386: the main thread's part alone holds
     * ~2050 entries. */
    struct wire_bytes main_short = shrinking_list(256, 4625);
    const struct wire_bytes *messages[] = { &worker_short, &main_short };
    for (size_t index = 0; index < 2; index++) {
        assert_int_equal(expect_same_on_two_threads(messages[index]->data,
                                                    messages[index]->size),
                         LOAD_OK);
        struct threshold_load two =
            load_with_threshold(messages[index]->data, messages[index]->size, 2);
        const struct allocator *gpu = find_allocator(two.profile, "GPU_0_bfc");
        assert_int_equal(gpu->timeline.count, index == 0 ? 3500 : 4881);
        assert_int_equal(gpu->timeline.time_ps[gpu->timeline.count - 1], (int64_t)1 << 49);
        profile_free(two.profile);
    }
    WIRE_BYTES_FREE_ALL(&worker_short, &main_short);
}

/* One value of `count` snapshots; those numbered first_bad and second_bad
 * (-1: none) carry a time_offset_ps of the wrong wire type. */
static struct wire_bytes snapshots_with_errors(int count, int first_bad, int second_bad)
{
    struct wire_bytes value = { 0 }, profile_bytes = { 0 };
    for (int index = 0; index < count; index++) {
        struct wire_bytes snapshot = snapshot_bytes(index, 1 << 10, "jit/dot");
        if (index == first_bad || index == second_bad)
            wire_bytes_put_string_field(&snapshot, 1, "late");
        wire_bytes_put_message_field(&value, 1, &snapshot);
        wire_bytes_free(&snapshot);
    }
    put_entry(&profile_bytes, "GPU_0_bfc", &value);
    wire_bytes_free(&value);
    return profile_bytes;
}

static struct load_error error_on_threads(const struct wire_bytes *message, size_t threshold)
{
    struct threshold_load load = load_with_threshold(message->data, message->size, threshold);
    assert_int_equal(load.status, LOAD_BAD_INPUT);
    profile_free(load.profile);
    return load.error;
}

static void test_error_in_the_second_half_matches_one_thread(void **state)
{
    (void)state;
    struct wire_bytes late = snapshots_with_errors(20, 15, -1);
    struct load_error one = error_on_threads(&late, SIZE_MAX);
    struct load_error two = error_on_threads(&late, 2);
    assert_string_equal(two.message, one.message);
    assert_non_null(strstr(one.message, "(time_offset_ps) has wire type 2, expected 0"));

    /* Errors in both halves: the first in the file is the one named. */
    struct wire_bytes early = snapshots_with_errors(20, 3, -1);
    struct wire_bytes both = snapshots_with_errors(20, 3, 15);
    struct load_error first = error_on_threads(&early, SIZE_MAX);
    assert_string_equal(error_on_threads(&both, 2).message, first.message);
    assert_string_equal(error_on_threads(&both, SIZE_MAX).message, first.message);
    assert_string_not_equal(first.message, one.message);
    WIRE_BYTES_FREE_ALL(&late, &early, &both);
}

static struct profile *load_path_with_threshold(const char *path, size_t threshold)
{
    struct profile *profile = NULL;
    struct load_error error = {0};
    load_protobuf_set_parallel_threshold(threshold);
    if (profile_load(path, NULL, &profile, &error) != LOAD_OK)
        fail_msg("%s: %s", path, error.message);
    return profile;
}

static void test_demo_profile_two_threads_match_one(void **state)
{
    (void)state;
    char *path = test_source_path("data/demo.v0.pb.gz");
    struct profile *one = load_path_with_threshold(path, SIZE_MAX);
    struct profile *two = load_path_with_threshold(path, 2);
    assert_int_equal(one->allocator_count, 3);
    test_assert_profiles_equal(one, two);
    profile_free(one);
    profile_free(two);
    free(path);
}

/* A file mapping, so the worker drops the pages it has read too. */
static void test_generated_profile_two_threads_match_one(void **state)
{
    (void)state;
    const char *build = getenv("MEMTOP_BUILDDIR");
    if (!build)
        TEST_SKIP("MEMTOP_BUILDDIR is not set (run through make check)");
    char path[512], command[2048];
    snprintf(path, sizeof path, "%s/v0-100k.pb", test_directory());
    snprintf(command, sizeof command,
             "'%s/tests/generate_profile' --version 0 --snapshots 100000 --seed 7 -o '%s'",
             build, path);
    assert_int_equal(system(command), 0);
    struct profile *one = load_path_with_threshold(path, SIZE_MAX);
    struct profile *two = load_path_with_threshold(path, 2);
    struct profile *usual = load_path_with_threshold(path, 0);
    assert_int_equal(find_allocator(one, "GPU_0_bfc")->timeline.count, 100000);
    test_assert_profiles_equal(one, two);
    test_assert_profiles_equal(one, usual);
    profile_free(one);
    profile_free(two);
    profile_free(usual);
}

/* ---- the fast path for snapshots in their usual layout ---- */

static int fast_path_restore(void **state)
{
    (void)state;
    load_protobuf_set_fast_path(true);
    load_protobuf_set_parallel_threshold(0);
    return 0;
}

static struct threshold_load load_with_fast_path(const uint8_t *bytes, size_t size, bool fast,
                                                 size_t threshold)
{
    load_protobuf_set_fast_path(fast);
    struct threshold_load load = load_with_threshold(bytes, size, threshold);
    load_protobuf_set_fast_path(true);
    return load;
}

/* Loads the bytes with the fast path and without, on one thread and on
 * two: same status, same message, same model. */
static enum load_status expect_same_without_fast_path(const uint8_t *bytes, size_t size)
{
    static const size_t thresholds[] = { SIZE_MAX, 2 };
    enum load_status status = LOAD_OK;
    for (size_t index = 0; index < 2; index++) {
        struct threshold_load generic =
            load_with_fast_path(bytes, size, false, thresholds[index]);
        struct threshold_load fast = load_with_fast_path(bytes, size, true, thresholds[index]);
        assert_int_equal(fast.status, generic.status);
        if (generic.status == LOAD_OK)
            test_assert_profiles_equal(generic.profile, fast.profile);
        else
            assert_string_equal(fast.error.message, generic.error.message);
        profile_free(generic.profile);
        profile_free(fast.profile);
        status = generic.status;
    }
    return status;
}

/* A snapshot with every field, in field order, with values that take
 * every varint length (negative int64s take ten bytes). */
static struct wire_bytes full_snapshot_bytes(int64_t seed)
{
    struct wire_bytes stats = { 0 }, metadata = { 0 }, snapshot = { 0 };
    wire_bytes_put_varint_field(&stats, 1, (uint64_t)(seed * 3));
    wire_bytes_put_varint_field(&stats, 2, (uint64_t)INT64_MAX - (uint64_t)seed);
    wire_bytes_put_varint_field(&stats, 3, (uint64_t)(-seed - 1));
    wire_bytes_put_double_field(&stats, 4, 0.25 + (double)seed);
    wire_bytes_put_varint_field(&stats, 5, (uint64_t)1 << (seed % 64));
    wire_bytes_put_varint_field(&metadata, 1, (uint64_t)(int64_t)(seed % 3 - 1));
    wire_bytes_put_varint_field(&metadata, 2, (uint64_t)seed << 20);
    wire_bytes_put_varint_field(&metadata, 3, (uint64_t)seed << 40);
    wire_bytes_put_varint_field(&metadata, 4, UINT64_MAX - (uint64_t)seed);
    wire_bytes_put_string_field(&metadata, 5, seed % 2 ? "jit/dot" : "jit/add");
    wire_bytes_put_varint_field(&metadata, 6, (uint64_t)seed);
    wire_bytes_put_string_field(&metadata, 7, "persist");
    wire_bytes_put_string_field(&metadata, 8, seed % 3 ? "float" : "");
    wire_bytes_put_string_field(&metadata, 9, "[768,3072]");
    wire_bytes_put_varint_field(&snapshot, 1, (uint64_t)seed * 1000003);
    wire_bytes_put_message_field(&snapshot, 2, &stats);
    wire_bytes_put_message_field(&snapshot, 3, &metadata);
    WIRE_BYTES_FREE_ALL(&stats, &metadata);
    return snapshot;
}

/* One value holding `snapshot` between two usual ones, as a timeline
 * snapshot and as a sampled one. */
static struct wire_bytes profile_around(const struct wire_bytes *snapshot)
{
    struct wire_bytes value = { 0 }, profile_bytes = { 0 };
    struct wire_bytes before = full_snapshot_bytes(7), after = full_snapshot_bytes(8);
    for (uint32_t field = 1; field <= 5; field += 4) {
        wire_bytes_put_message_field(&value, field, &before);
        wire_bytes_put_message_field(&value, field, snapshot);
        wire_bytes_put_message_field(&value, field, &after);
    }
    put_entry(&profile_bytes, "GPU_0_bfc", &value);
    WIRE_BYTES_FREE_ALL(&value, &before, &after);
    return profile_bytes;
}

static void test_fast_path_matches_generic_decoder(void **state)
{
    (void)state;
    for (int64_t seed = 0; seed < 70; seed++) {
        struct wire_bytes snapshot = full_snapshot_bytes(seed);
        struct wire_bytes profile_bytes = profile_around(&snapshot);
        assert_int_equal(expect_same_without_fast_path(profile_bytes.data, profile_bytes.size),
                         LOAD_OK);
        WIRE_BYTES_FREE_ALL(&snapshot, &profile_bytes);
    }
    /* And the values themselves, not only their agreement. */
    struct wire_bytes snapshot = full_snapshot_bytes(5);
    struct wire_bytes profile_bytes = profile_around(&snapshot);
    struct test_draft *profile = load_ok(&profile_bytes);
    struct snapshot loaded;
    snapshot_columns_get(&profile->draft.allocators[0].snapshots, 1, &loaded);
    assert_int_equal(loaded.time_ps, 5000015);
    assert_int_equal(loaded.stack_bytes, 15);
    assert_int_equal(loaded.heap_bytes, INT64_MAX - 5);
    assert_int_equal(loaded.free_bytes, -6);
    expect_double(loaded.fragmentation, 5.25);
    assert_int_equal(loaded.peak_bytes_in_use, 32);
    assert_int_equal(loaded.activity, 1);
    assert_int_equal(loaded.requested_bytes, (int64_t)5 << 20);
    assert_int_equal(loaded.allocation_bytes, (int64_t)5 << 40);
    assert_true(loaded.address == UINT64_MAX - 5);
    assert_int_equal(loaded.step_id, 5);
    expect_text(built(profile), loaded.op_name, "jit/dot");
    expect_text(built(profile), loaded.region_type, "persist");
    expect_text(built(profile), loaded.data_type, "float");
    expect_text(built(profile), loaded.tensor_shape, "[768,3072]");
    test_draft_free(profile);
    WIRE_BYTES_FREE_ALL(&snapshot, &profile_bytes);
}

/* Snapshots the fast path must leave to the generic decoder: each one
 * differs from the usual layout in one way. */
static struct wire_bytes unusual_snapshot_bytes(int variant)
{
    struct wire_bytes stats = { 0 }, metadata = { 0 }, snapshot = { 0 };
    wire_bytes_put_varint_field(&stats, 2, 4096);
    wire_bytes_put_varint_field(&metadata, 1, 1);
    wire_bytes_put_string_field(&metadata, 5, "jit/dot");
    wire_bytes_put_string_field(&metadata, 8, "float");
    switch (variant) {
    case 0: /* submessages out of order, time last */
        wire_bytes_put_message_field(&snapshot, 3, &metadata);
        wire_bytes_put_message_field(&snapshot, 2, &stats);
        wire_bytes_put_varint_field(&snapshot, 1, 77);
        WIRE_BYTES_FREE_ALL(&stats, &metadata);
        return snapshot;
    case 1: /* fields out of order inside stats and metadata */
        wire_bytes_put_varint_field(&stats, 1, 12);
        wire_bytes_put_varint_field(&metadata, 2, 5);
        break;
    case 2: /* repeated scalars: the last wins */
        wire_bytes_put_varint_field(&stats, 2, 8192);
        wire_bytes_put_string_field(&metadata, 5, "jit/add");
        wire_bytes_put_varint_field(&snapshot, 1, 1);
        wire_bytes_put_varint_field(&snapshot, 1, 2);
        break;
    case 3: /* repeated submessages: merged */
        wire_bytes_put_message_field(&snapshot, 2, &stats);
        stats.size = 0;
        wire_bytes_put_varint_field(&stats, 5, 99);
        break;
    case 4: /* unknown fields in stats and metadata */
        put_unknown_fields(&stats);
        put_unknown_fields(&metadata);
        break;
    case 5: /* unknown fields in the snapshot itself */
        put_unknown_fields(&snapshot);
        break;
    case 6: /* missing submessages: only a time */
        wire_bytes_put_varint_field(&snapshot, 1, 5);
        WIRE_BYTES_FREE_ALL(&stats, &metadata);
        return snapshot;
    case 7: /* empty submessages */
        stats.size = metadata.size = 0;
        break;
    case 8: /* a known field with another wire type: refused */
        wire_bytes_put_tag(&stats, 4, 0);
        wire_bytes_put_varint(&stats, 3);
        break;
    case 9: /* a two-byte tag for field 1 (valid protobuf) */
        wire_bytes_put_byte(&snapshot, 0x88);
        wire_bytes_put_byte(&snapshot, 0x00);
        wire_bytes_put_varint(&snapshot, 3);
        break;
    case 10: /* an eleven-byte varint: refused */
        for (int index = 0; index < 10; index++)
            wire_bytes_put_byte(&stats, 0xff);
        wire_bytes_put_byte(&stats, 0x01);
        break;
    case 11: /* a string longer than its metadata: refused */
        wire_bytes_put_tag(&metadata, 9, 2);
        wire_bytes_put_varint(&metadata, 40);
        wire_bytes_put_byte(&metadata, 'x');
        break;
    case 12: /* a group: refused */
        wire_bytes_put_tag(&metadata, 10, 3);
        break;
    case 13: /* field 0: refused */
        wire_bytes_put_byte(&snapshot, 0x00);
        wire_bytes_put_byte(&snapshot, 0x00);
        break;
    default: /* a time after the submessages */
        wire_bytes_put_message_field(&snapshot, 2, &stats);
        wire_bytes_put_message_field(&snapshot, 3, &metadata);
        wire_bytes_put_varint_field(&snapshot, 1, 9);
        WIRE_BYTES_FREE_ALL(&stats, &metadata);
        return snapshot;
    }
    wire_bytes_put_message_field(&snapshot, 2, &stats);
    wire_bytes_put_message_field(&snapshot, 3, &metadata);
    WIRE_BYTES_FREE_ALL(&stats, &metadata);
    return snapshot;
}

static void test_fast_path_falls_back_on_unusual_snapshots(void **state)
{
    (void)state;
    int refused = 0;
    for (int variant = 0; variant <= 14; variant++) {
        struct wire_bytes snapshot = unusual_snapshot_bytes(variant);
        struct wire_bytes profile_bytes = profile_around(&snapshot);
        if (expect_same_without_fast_path(profile_bytes.data, profile_bytes.size) != LOAD_OK)
            refused++;
        WIRE_BYTES_FREE_ALL(&snapshot, &profile_bytes);
    }
    /* Variants 8, 10, 11, 12 and 13 are corrupt. */
    assert_int_equal(refused, 5);

    /* Merged and last-wins values, checked directly. */
    struct wire_bytes snapshot = unusual_snapshot_bytes(2);
    struct wire_bytes profile_bytes = profile_around(&snapshot);
    struct test_draft *profile = load_ok(&profile_bytes);
    struct snapshot loaded;
    snapshot_columns_get(&profile->draft.allocators[0].snapshots, 1, &loaded);
    assert_int_equal(loaded.time_ps, 2);
    assert_int_equal(loaded.heap_bytes, 8192);
    expect_text(built(profile), loaded.op_name, "jit/add");
    test_draft_free(profile);
    WIRE_BYTES_FREE_ALL(&snapshot, &profile_bytes);
}

/* A snapshot cut at every byte, its own length shortened to match (so
 * the cut is inside the snapshot, not the file), and every byte of it
 * damaged: the same result, error or not, with the fast path or not. */
static void test_fast_path_cut_or_damaged_snapshot_matches_generic(void **state)
{
    (void)state;
    struct wire_bytes whole = full_snapshot_bytes(3);
    for (size_t cut = 0; cut <= whole.size; cut++) {
        struct wire_bytes snapshot = { 0 };
        wire_bytes_put_data(&snapshot, whole.data, cut);
        struct wire_bytes profile_bytes = profile_around(&snapshot);
        expect_same_without_fast_path(profile_bytes.data, profile_bytes.size);
        WIRE_BYTES_FREE_ALL(&snapshot, &profile_bytes);
    }
    static const uint8_t damages[] = { 0x00, 0x80, 0xff, 0x0a, 0x12, 0x21, 0x7f };
    for (size_t at = 0; at < whole.size; at++) {
        for (size_t damage = 0; damage < sizeof damages; damage++) {
            struct wire_bytes snapshot = { 0 };
            wire_bytes_put_data(&snapshot, whole.data, whole.size);
            snapshot.data[at] = damages[damage];
            struct wire_bytes profile_bytes = profile_around(&snapshot);
            expect_same_without_fast_path(profile_bytes.data, profile_bytes.size);
            WIRE_BYTES_FREE_ALL(&snapshot, &profile_bytes);
        }
    }
    /* The file itself cut at every byte. */
    struct wire_bytes profile_bytes = profile_around(&whole);
    for (size_t cut = 0; cut <= profile_bytes.size; cut++)
        expect_same_without_fast_path(profile_bytes.data, cut);
    WIRE_BYTES_FREE_ALL(&whole, &profile_bytes);
}

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
