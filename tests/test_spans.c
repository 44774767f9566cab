/* Tests of model/query/spans: the table of a profile's named spans
 * (struct time_span) for one allocator on a hand-made timeline: the
 * memory carried into a span, its peak and end, nesting depth, spans
 * with no memory, spans of another allocator or of every allocator,
 * the order; a PyTorch trace's user annotations as spans; and reserved
 * bytes (allocator_records_reserved). */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "model/query/spans.h"
#include "tests/profile_maker.h"
#include "tests/test_support.h"

#define ALLOC MEMORY_ACTIVITY_ALLOCATION
#define FREE MEMORY_ACTIVITY_DEALLOCATION

static const struct made_event events[] = {
    {.time_ps = 100, .activity = ALLOC, .address = 1, .step_id = -1, .heap_bytes = 10},
    {.time_ps = 200, .activity = ALLOC, .address = 2, .step_id = -1, .heap_bytes = 50},
    {.time_ps = 300, .activity = FREE, .address = 2, .step_id = -1, .heap_bytes = 30},
    {.time_ps = 400, .activity = ALLOC, .address = 3, .step_id = -1, .heap_bytes = 80},
    {.time_ps = 500, .activity = FREE, .address = 3, .step_id = -1, .heap_bytes = 20},
};

static struct profile *spans_profile(void)
{
    struct profile *profile = profile_maker_new();
    struct allocator *allocator = profile_maker_allocator(profile, "cuda:0");
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++)
        profile_maker_append(profile, allocator, &events[i], false);
    profile_maker_allocator(profile, "cuda:1");
    /* Added out of order: the table lists them by start. */
    profile_maker_add_span(profile, "cuda:0", "inner", 250, 350);
    profile_maker_add_span(profile, "cuda:0", "outer", 150, 450);
    profile_maker_add_span(profile, "cuda:1", "elsewhere", 100, 500);
    profile_maker_add_span(profile, NULL, "everywhere", 500, 500);
    profile_maker_add_span(profile, "cuda:0", "before", 0, 50);
    profile_maker_add_span(profile, "cuda:0", "same start, shorter", 150, 160);
    profile_maker_finish(profile);
    return profile;
}

static const struct span_row *row_named(const struct profile *profile,
                                        const struct span_table *table, const char *name)
{
    for (size_t i = 0; i < table->count; i++)
        if (strcmp(profile_text(profile, table->rows[i].name), name) == 0)
            return &table->rows[i];
    fail_msg("no span %s", name);
    return NULL;
}

static void test_span_memory(void **state)
{
    (void)state;
    struct profile *profile = spans_profile();
    const struct allocator *gpu0 = &profile->allocators[0];
    assert_int_equal(span_count_of(profile, gpu0), 5);
    struct span_table table;
    assert_true(span_table_build(&table, profile, gpu0));
    assert_int_equal(table.count, 5);

    /* Snapshots 200, 300, 400 inside; 10 carried in from 100. */
    const struct span_row *outer = row_named(profile, &table, "outer");
    assert_true(outer->has_memory);
    assert_int_equal(outer->peak_bytes, 80);
    assert_int_equal(outer->peak_time_ps, 400);
    assert_int_equal(outer->peak_index, 3);
    assert_int_equal(outer->end_bytes, 80);
    assert_int_equal(outer->duration_ps, 300);
    assert_int_equal(outer->allocations, 2);
    assert_int_equal(outer->deallocations, 1);
    assert_int_equal(outer->depth, 0);

    /* 50 carried in from 200 beats 30 at 300: the peak is at its start,
     * the snapshot before it holding it. */
    const struct span_row *inner = row_named(profile, &table, "inner");
    assert_int_equal(inner->peak_bytes, 50);
    assert_int_equal(inner->peak_time_ps, 250);
    assert_int_equal(inner->peak_index, 1);
    assert_int_equal(inner->end_bytes, 30);
    assert_int_equal(inner->allocations, 0);
    assert_int_equal(inner->deallocations, 1);
    assert_int_equal(inner->depth, 1); /* in outer; the shorter one ended before it */

    /* Before the first snapshot: no memory to tell. */
    const struct span_row *before = row_named(profile, &table, "before");
    assert_false(before->has_memory);
    assert_int_equal(before->peak_bytes, 0);
    assert_int_equal(before->peak_index, SIZE_MAX);

    /* A span of every allocator is this one's too; the free at its
     * start is inside it, so the memory carried in (80) is its peak. */
    const struct span_row *everywhere = row_named(profile, &table, "everywhere");
    assert_int_equal(everywhere->peak_bytes, 80);
    assert_int_equal(everywhere->peak_time_ps, 500);
    assert_int_equal(everywhere->peak_index, 3);
    assert_int_equal(everywhere->end_bytes, 20);
    assert_int_equal(everywhere->depth, 0);

    /* By start, the longer first on equal starts. */
    const char *order[] = {"before", "outer", "same start, shorter", "inner", "everywhere"};
    for (size_t i = 0; i < 5; i++)
        assert_string_equal(profile_text(profile, table.rows[i].name), order[i]);
    span_table_free(&table);

    /* cuda:1 has no timeline: its spans are listed without memory. */
    assert_true(span_table_build(&table, profile, &profile->allocators[1]));
    assert_int_equal(table.count, 2);
    assert_string_equal(profile_text(profile, table.rows[0].name), "elsewhere");
    assert_false(table.rows[0].has_memory);
    span_table_free(&table);
    profile_free(profile);
}

/* A PyTorch trace's user annotations are spans of every allocator, but
 * ProfilerStep#N (its steps). */
static void test_trace_spans(void **state)
{
    (void)state;
    const struct {
        const char *file;
        size_t spans;
    } traces[] = {{"data/real/torch-mlp.pt.trace.json.gz", 10},
                  {"data/real/torch-mlp-schedule.pt.trace.json.gz", 6}};
    for (size_t t = 0; t < 2; t++) {
        char *path = test_source_path(traces[t].file);
        struct profile *profile = test_load_ok(path);
        free(path);
        assert_int_equal(profile->span_count, traces[t].spans);
        for (size_t i = 0; i < profile->span_count; i++) {
            const char *name = profile_text(profile, profile->spans[i].name);
            assert_true(strncmp(name, "Optimizer.", 10) == 0);
            assert_int_equal(profile->spans[i].allocator, STRING_ID_NONE);
            assert_true(profile->spans[i].end_ps > profile->spans[i].start_ps);
        }
        long gpu = profile_find_allocator(profile, text_of("cuda:0"));
        assert_true(gpu >= 0);
        struct span_table table;
        assert_true(span_table_build(&table, profile, &profile->allocators[gpu]));
        assert_int_equal(table.count, traces[t].spans);
        /* An Adam step holds the allocator's peak (95.74 MiB). */
        const struct allocator_summary *summary = &profile->allocators[gpu].summary;
        size_t at_peak = 0;
        for (size_t i = 0; i < table.count; i++)
            if (table.rows[i].peak_bytes == summary->peak_bytes &&
                table.rows[i].peak_time_ps == summary->peak_time_ps) {
                assert_string_equal(profile_text(profile, table.rows[i].name),
                                    "Optimizer.step#Adam.step");
                at_peak++;
            }
        assert_int_equal(at_peak, 1);
        span_table_free(&table);
        profile_free(profile);
    }
}

/* Reserved is known only for caching allocators that record free bytes. */
static void test_reserved(void **state)
{
    (void)state;
    struct profile *profile = spans_profile();
    struct allocator *gpu0 = &profile->allocators[0];
    assert_false(allocator_records_reserved(gpu0)); /* XProf's heap: not a caching allocator */
    gpu0->caching = true;
    gpu0->timeline.free_bytes[1] = 14;
    assert_true(allocator_records_reserved(gpu0));
    assert_int_equal(allocator_reserved_at(gpu0, 1), 64);
    gpu0->timeline.free_bytes[1] = -3; /* a negative free reads as none */
    assert_int_equal(allocator_reserved_at(gpu0, 1), 50);
    gpu0->unknown_fields |= ALLOCATOR_FIELD_FREE;
    assert_false(allocator_records_reserved(gpu0));
    assert_false(allocator_records_reserved(&profile->allocators[1])); /* no timeline */
    profile_free(profile);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_span_memory),
        cmocka_unit_test(test_reserved),
        cmocka_unit_test(test_trace_spans),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
