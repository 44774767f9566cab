/* test_load_protobuf_random: random messages packed by protobuf-c must load
 * to exactly what protobuf-c itself unpacks (tests/test_load_protobuf).
 *
 * A deterministic generator (splitmix64) builds the messages in an arena;
 * the comparisons walk what load_protobuf built against the unpacked
 * message, merging repeated submessages and map entries as protobuf does. */
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
#include "tests/splitmix64.h"
#include "tests/wire_builder.h"

#include "tests/formats/memory_profile/test_load_protobuf.h"

/* ---- a deterministic generator (splitmix64) ---- */

uint64_t random_next(struct random *random)
{
    return splitmix64_next(&random->state);
}

size_t random_below(struct random *random, size_t limit)
{
    return (size_t)(random_next(random) % limit);
}

/* Mostly small counts, now and then up to 50. */
size_t random_count(struct random *random)
{
    return random_below(random, 8) == 0 ? random_below(random, 51) : random_below(random, 5);
}

int64_t random_int64(struct random *random)
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

int32_t random_int32(struct random *random)
{
    static const int32_t edges[] = { 0, -1, 1, INT32_MIN, INT32_MAX, 2 };
    size_t pick = random_below(random, 8);
    return pick < 6 ? edges[pick] : (int32_t)random_below(random, 100000) - 50000;
}

uint64_t random_address(struct random *random)
{
    size_t pick = random_below(random, 4);
    return pick == 0 ? 0 : pick == 1 ? UINT64_MAX : random_next(random);
}

double random_fragmentation(struct random *random)
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
int random_activity(struct random *random)
{
    static const int values[] = { 0, 1, 2, 3, 4, -1, 7, 127, -128, 1000, INT32_MIN };
    return values[random_below(random, sizeof values / sizeof values[0])];
}
/* ---- building messages; every block is freed at once at the end ---- */

void *arena_alloc(struct arena *arena, size_t size)
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

void arena_free(struct arena *arena)
{
    for (size_t index = 0; index < arena->count; index++)
        free(arena->blocks[index]);
    free(arena->blocks);
    memset(arena, 0, sizeof *arena);
}

/* protobuf-c strings end at NUL, so generated strings never hold one. */
char *random_string(struct arena *arena, struct random *random)
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

Stats *random_stats(struct arena *arena, struct random *random)
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

Metadata *random_metadata(struct arena *arena, struct random *random)
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

Snapshot **random_snapshots(struct arena *arena, struct random *random, size_t *count)
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

Summary *random_summary(struct arena *arena, struct random *random)
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

Active **random_actives(struct arena *arena, struct random *random, size_t *count)
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

Metadata **random_specials(struct arena *arena, struct random *random, size_t *count)
{
    *count = random_count(random);
    Metadata **specials = arena_alloc(arena, *count * sizeof *specials);
    for (size_t index = 0; index < *count; index++)
        specials[index] = random_metadata(arena, random);
    return specials;
}

PerAllocator *random_per_allocator(struct arena *arena, struct random *random)
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
Entry **random_entries(struct arena *arena, struct random *random, size_t *count)
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

HloModule **random_hlo_modules(struct arena *arena, struct random *random, size_t *count)
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

MemoryProfile *random_memory_profile(struct arena *arena, struct random *random)
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

void expect_text(const struct profile *profile, uint32_t id, const char *text)
{
    assert_string_equal(string_table_text(profile->strings, id), text);
    assert_int_equal(string_table_length(profile->strings, id), strlen(text));
}

void expect_double(double actual, double expected)
{
    /* Bit for bit: NaN, -0.0 and infinities included. */
    assert_memory_equal(&actual, &expected, sizeof actual);
}

void expect_stats(const struct snapshot *actual, const Stats *stats)
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

int expected_activity(int activity)
{
    return activity >= INT8_MIN && activity <= INT8_MAX ? activity : MEMORY_ACTIVITY_UNKNOWN;
}

void expect_metadata(const struct profile *profile, const struct snapshot *actual,
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

void expect_snapshots(const struct profile *profile, const struct snapshot_columns *columns,
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

void expect_specials(const struct profile *profile, const struct snapshot_columns *columns,
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

void expect_actives(const struct xprof_allocator *allocator, size_t *cursor,
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

void expect_allocator_value(const struct profile *profile,
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
void merge_int64(int64_t *into, int64_t from)
{
    if (from != 0)
        *into = from;
}

void merge_stats(Stats *into, const Stats *from)
{
    merge_int64(&into->stack_reserved_bytes, from->stack_reserved_bytes);
    merge_int64(&into->heap_allocated_bytes, from->heap_allocated_bytes);
    merge_int64(&into->free_memory_bytes, from->free_memory_bytes);
    if (from->fragmentation != 0.0 || isnan(from->fragmentation))
        into->fragmentation = from->fragmentation;
    merge_int64(&into->peak_bytes_in_use, from->peak_bytes_in_use);
}

void merge_summary(Summary *into, const Summary *from)
{
    merge_int64(&into->peak_bytes_usage_lifetime, from->peak_bytes_usage_lifetime);
    if (from->peak_stats != NULL)
        merge_stats(into->peak_stats, from->peak_stats);
    merge_int64(&into->peak_stats_time_ps, from->peak_stats_time_ps);
    merge_int64(&into->memory_capacity, from->memory_capacity);
}

void expect_summary_values(const struct allocator_summary *actual, const Summary *expected)
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
void expect_summary(const struct xprof_allocator *allocator, const Entry *entry)
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
void expect_allocator(const struct test_draft *loaded, size_t allocator_index,
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
void expect_repeated_key_warnings(const struct profile *profile,
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
void expect_allocator_order(const struct profile *profile, const MemoryProfile *message)
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

void expect_hlo_modules(const struct profile *profile, const MemoryProfile *message)
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

void expect_profile(const struct test_draft *loaded, const MemoryProfile *message)
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

void check_random_message(struct random *random)
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

void test_random_messages_match_protobuf_c(void **state)
{
    (void)state;
    struct random random = { 20240611 };
    for (int message = 0; message < RANDOM_MESSAGES; message++)
        check_random_message(&random);
}
