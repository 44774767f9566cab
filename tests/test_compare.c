/* Tests of model/query/compare: allocators matched by memory id (or paired by
 * --pair) with their summary deltas, the op table of what was live at
 * each peak (by op and by location), and the hosts of two runs matched
 * by name, on hand-made profiles and host lists. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "model/query/compare.h"
#include "model/string_table.h"
#include "tests/profile_maker.h"
#include "tests/test_support.h"

#define ALLOC MEMORY_ACTIVITY_ALLOCATION

/* A peak-table row: op, bytes, occurrences. */
struct row_spec {
    const char *op;
    int64_t bytes;
    int64_t occurrences;
};

/* An allocator whose timeline peaks at heap `heap` + stack `stack` (one
 * snapshot per allocation, `allocations` of them) and whose peak rows are
 * `rows`. */
static void add_allocator(struct profile *profile, const char *id, int64_t heap, int64_t stack,
                          size_t allocations, const struct row_spec *rows, size_t row_count)
{
    struct allocator *allocator = profile_maker_allocator(profile, id);
    for (size_t i = 0; i < row_count; i++) {
        struct made_event event = {.time_ps = 1, .activity = ALLOC, .address = i + 1,
                                   .allocation_bytes = rows[i].bytes, .op = rows[i].op};
        profile_maker_add_row(profile, allocator, &event, rows[i].occurrences);
    }
    /* The rows went into the timeline too (version 0): the counts and the
     * peak come from every snapshot, so add the rest of the timeline. */
    for (size_t i = row_count; i < allocations; i++) {
        struct made_event event = {.time_ps = 10 + (int64_t)i, .activity = ALLOC,
                                   .address = 100 + i, .allocation_bytes = 1, .op = "filler"};
        profile_maker_append(profile, allocator, &event, false);
    }
    struct made_event peak = {.time_ps = 1000, .heap_bytes = heap, .stack_bytes = stack,
                              .activity = MEMORY_ACTIVITY_RESERVATION};
    profile_maker_append(profile, allocator, &peak, false);
}

static const struct op_delta *op_named(const struct op_comparison *table, const char *op)
{
    for (size_t i = 0; i < table->count; i++)
        if (table->rows[i].op_name_length == strlen(op) &&
            memcmp(table->rows[i].op_name, op, strlen(op)) == 0)
            return &table->rows[i];
    fail_msg("no row for %s", op);
    return NULL;
}

static void test_allocators_matched_by_id(void **state)
{
    (void)state;
    struct profile *base = profile_maker_new(), *new = profile_maker_new();
    add_allocator(base, "GPU_0_bfc", 1000, 100, 5, NULL, 0);
    add_allocator(base, "cpu", 50, 0, 2, NULL, 0);
    add_allocator(new, "GPU_1_bfc", 70, 0, 1, NULL, 0);
    add_allocator(new, "GPU_0_bfc", 1500, 50, 8, NULL, 0);
    profile_maker_finish(base);
    profile_maker_finish(new);

    struct profile_comparison comparison;
    assert_true(profile_comparison_build(&comparison, base, new));
    assert_int_equal(comparison.count, 3);
    /* Base order first: GPU_0_bfc in both, cpu in base only. */
    assert_string_equal(profile_text(base, comparison.pairs[0].base->id), "GPU_0_bfc");
    assert_string_equal(profile_text(new, comparison.pairs[0].new->id), "GPU_0_bfc");
    const struct allocator_delta *delta = &comparison.pairs[0].delta;
    assert_true(delta->peak_bytes == 1550 - 1100);
    assert_true(delta->heap_bytes == 500);
    assert_true(delta->stack_bytes == -50);
    assert_true(delta->capacity_bytes == 1550 - 1100); /* derived: peak + free (0) */
    assert_true(delta->allocations == 3);
    assert_true(delta->deallocations == 0);
    assert_string_equal(profile_text(base, comparison.pairs[1].base->id), "cpu");
    assert_null(comparison.pairs[1].new);
    assert_true(comparison.pairs[1].delta.peak_bytes == 0);
    /* Then what only the new profile has. */
    assert_null(comparison.pairs[2].base);
    assert_string_equal(profile_text(new, comparison.pairs[2].new->id), "GPU_1_bfc");
    profile_comparison_free(&comparison);

    /* A profile against itself: every allocator matched, no delta. */
    assert_true(profile_comparison_build(&comparison, base, base));
    assert_int_equal(comparison.count, 2);
    for (size_t i = 0; i < comparison.count; i++) {
        assert_ptr_equal(comparison.pairs[i].base, comparison.pairs[i].new);
        assert_true(comparison.pairs[i].delta.peak_bytes == 0);
        assert_true(comparison.pairs[i].delta.allocations == 0);
    }
    profile_comparison_free(&comparison);
    profile_free(base);
    profile_free(new);
}

static void test_op_table(void **state)
{
    (void)state;
    /* "grown" grows, "shrunk" shrinks, "same" stays, "gone" and "born"
     * are in one side only; "Conv" appears in two rows on each side
     * (counts are occurrences summed, bytes times occurrences). */
    static const struct row_spec base_rows[] = {
        {"grown", 100, 1}, {"shrunk", 500, 2}, {"same", 64, 1},
        {"gone", 300, 1},  {"Conv", 10, 3},    {"Conv", 20, 1},
    };
    static const struct row_spec new_rows[] = {
        {"grown", 400, 1}, {"shrunk", 100, 1}, {"same", 64, 1},
        {"born", 300, 1},  {"Conv", 10, 1},    {"Conv", 20, 1},
    };
    struct profile *base = profile_maker_new(), *new = profile_maker_new();
    add_allocator(base, "GPU_0_bfc", 2000, 0, 6, base_rows, 6);
    add_allocator(new, "GPU_0_bfc", 2000, 0, 6, new_rows, 6);
    struct made_event stack = {.allocation_bytes = 8, .op = "stack", .region = "stack"};
    profile_maker_add_special_row(new, &new->allocators[0], &stack);
    profile_maker_add_unresolved_row(&new->allocators[0]);
    profile_maker_finish(base);
    profile_maker_finish(new);

    struct op_comparison table;
    assert_true(op_comparison_build(&table, base, &base->allocators[0], new, &new->allocators[0]));
    assert_int_equal(table.count, 8);
    /* |delta|: shrunk 900; born, gone and grown 300 (ties by name,
     * bytewise); Conv 20, stack 8,
     * then 0 for "(unresolved)" and "same" ('(' sorts before 's'). */
    static const char *const order[] = {"shrunk", "born", "gone", "grown",
                                        "Conv",   "stack", "(unresolved)", "same"};
    for (size_t i = 0; i < table.count; i++) {
        assert_int_equal(table.rows[i].op_name_length, strlen(order[i]));
        assert_memory_equal(table.rows[i].op_name, order[i], strlen(order[i]));
    }
    const struct op_delta *shrunk = op_named(&table, "shrunk");
    assert_true(shrunk->base_bytes == 1000 && shrunk->new_bytes == 100);
    assert_true(shrunk->delta_bytes == -900);
    assert_true(shrunk->base_count == 2 && shrunk->new_count == 1);
    const struct op_delta *born = op_named(&table, "born");
    assert_true(born->base_bytes == 0 && born->new_bytes == 300 && born->delta_bytes == 300);
    assert_true(born->base_count == 0 && born->new_count == 1);
    const struct op_delta *gone = op_named(&table, "gone");
    assert_true(gone->delta_bytes == -300 && gone->new_count == 0);
    const struct op_delta *conv = op_named(&table, "Conv");
    assert_true(conv->base_bytes == 50 && conv->new_bytes == 30 && conv->delta_bytes == -20);
    assert_true(conv->base_count == 4 && conv->new_count == 2);
    const struct op_delta *unresolved = op_named(&table, "(unresolved)");
    assert_true(unresolved->new_count == 1 && unresolved->new_bytes == 0);
    op_comparison_free(&table);

    /* Against nothing: every op is all new (or all gone). */
    assert_true(op_comparison_build(&table, base, NULL, new, &new->allocators[0]));
    for (size_t i = 0; i < table.count; i++)
        assert_true(table.rows[i].base_count == 0 &&
                    table.rows[i].delta_bytes == table.rows[i].new_bytes);
    op_comparison_free(&table);
    assert_true(op_comparison_build(&table, base, NULL, new, NULL));
    assert_int_equal(table.count, 0);
    op_comparison_free(&table);
    profile_free(base);
    profile_free(new);
}

/* --pair: allocators of different names paired, each in one pair at
 * most, the rest matched by id; a pairing naming nothing pairs nothing. */
static void test_pairings(void **state)
{
    (void)state;
    struct profile *base = profile_maker_new(), *new = profile_maker_new();
    add_allocator(base, "GPU_0_bfc", 1000, 0, 2, NULL, 0);
    add_allocator(base, "cpu", 50, 0, 2, NULL, 0);
    add_allocator(base, "A", 10, 0, 1, NULL, 0);
    add_allocator(new, "cuda:0", 1500, 0, 2, NULL, 0);
    add_allocator(new, "cpu", 40, 0, 2, NULL, 0);
    add_allocator(new, "A", 20, 0, 1, NULL, 0);
    profile_maker_finish(base);
    profile_maker_finish(new);

    /* cpu=A takes NEW's A from BASE's A, which is then in base only; the
     * second pairing of GPU_0_bfc is ignored, and x=y names nothing. */
    const struct allocator_pairing pairings[] = {
        {"GPU_0_bfc", "cuda:0"}, {"cpu", "A"}, {"GPU_0_bfc", "cpu"}, {"x", "y"}};
    struct profile_comparison comparison;
    assert_true(profile_comparison_build_paired(&comparison, base, new, pairings, 4));
    assert_int_equal(comparison.count, 4);
    assert_string_equal(profile_text(new, comparison.pairs[0].new->id), "cuda:0");
    assert_true(comparison.pairs[0].delta.peak_bytes == 500);
    assert_string_equal(profile_text(base, comparison.pairs[1].base->id), "cpu");
    assert_string_equal(profile_text(new, comparison.pairs[1].new->id), "A");
    assert_true(comparison.pairs[1].delta.peak_bytes == 20 - 50);
    assert_string_equal(profile_text(base, comparison.pairs[2].base->id), "A");
    assert_null(comparison.pairs[2].new);
    assert_null(comparison.pairs[3].base);
    assert_string_equal(profile_text(new, comparison.pairs[3].new->id), "cpu");
    profile_comparison_free(&comparison);

    /* No pairings: as profile_comparison_build. */
    assert_true(profile_comparison_build_paired(&comparison, base, new, NULL, 0));
    assert_int_equal(comparison.count, 4);
    assert_null(comparison.pairs[0].new);
    profile_comparison_free(&comparison);
    profile_free(base);
    profile_free(new);
}

/* The hosts of two runs matched by name: BASE's order, then NEW's own. */
static void test_hosts_matched_by_name(void **state)
{
    (void)state;
    char base_names[][8] = {"w-0", "w-1", "w-2"}, new_names[][8] = {"w-3", "w-1", "w-0", "w-9"};
    struct host base_hosts[3], new_hosts[4];
    memset(base_hosts, 0, sizeof base_hosts);
    memset(new_hosts, 0, sizeof new_hosts);
    for (size_t i = 0; i < 3; i++)
        base_hosts[i].name = base_names[i];
    for (size_t i = 0; i < 4; i++)
        new_hosts[i].name = new_names[i];
    struct host_list base = {base_hosts, 3, NULL}, new = {new_hosts, 4, NULL};
    struct host_match *matches;
    size_t count;
    /* NEW's hosts from index 0, all four; BASE's all three. */
    assert_true(compare_match_hosts(&base, 0, 3, &new, 0, 4, &matches, &count));
    assert_int_equal(count, 5);
    long want[5][2] = {{0, 2}, {1, 1}, {2, -1}, {-1, 0}, {-1, 3}};
    for (size_t i = 0; i < count; i++) {
        assert_int_equal(matches[i].base, want[i][0]);
        assert_int_equal(matches[i].new, want[i][1]);
    }
    free(matches);
    /* A range (--host): BASE's w-1 alone against NEW's w-1 alone. */
    assert_true(compare_match_hosts(&base, 1, 1, &new, 1, 1, &matches, &count));
    assert_int_equal(count, 1);
    assert_int_equal(matches[0].base, 1);
    assert_int_equal(matches[0].new, 1);
    free(matches);
}

/* The op table by location: rows summed by "file:line", the rows
 * without one under "(no location)"; op_comparison_key_for picks it
 * only when a row has one. */
static void test_op_table_by_location(void **state)
{
    (void)state;
    struct profile *base = profile_maker_new(), *new = profile_maker_new();
    const struct row_spec base_rows[] = {{"mm", 100, 1}, {"mm", 50, 2}, {"add", 7, 1}};
    const struct row_spec new_rows[] = {{"mm", 300, 1}, {"add", 7, 1}};
    add_allocator(base, "cuda:0", 1000, 0, 3, base_rows, 3);
    add_allocator(new, "cuda:0", 1000, 0, 2, new_rows, 2);
    profile_maker_finish(base);
    profile_maker_finish(new);
    struct allocator *b = &base->allocators[0], *n = &new->allocators[0];
    assert_int_equal(b->row_count, 3);
    assert_int_equal(n->row_count, 2);
    assert_int_equal(op_comparison_key_for(b, n), COMPARE_BY_OP);
    /* BASE's mm rows and NEW's at net.py:3 (as a Skyline report gives a
     * row's line); the add rows at none. */
    for (size_t i = 0; i < b->row_count; i++)
        if (text_equal(profile_string(base, b->rows[i].op_name), text_of("mm")))
            b->rows[i].location = string_table_intern(base->strings, "net.py:3", 8);
    for (size_t i = 0; i < n->row_count; i++)
        if (text_equal(profile_string(new, n->rows[i].op_name), text_of("mm")))
            n->rows[i].location = string_table_intern(new->strings, "net.py:3", 8);
    assert_int_equal(op_comparison_key_for(NULL, n), COMPARE_BY_LOCATION);

    struct op_comparison table;
    assert_true(op_comparison_build_by(&table, COMPARE_BY_LOCATION, base, b, new, n));
    assert_int_equal(table.count, 2);
    const struct op_delta *line = op_named(&table, "net.py:3");
    assert_true(line->base_bytes == 200 && line->new_bytes == 300 && line->delta_bytes == 100);
    const struct op_delta *none = op_named(&table, COMPARE_NO_LOCATION_NAME);
    assert_true(none->base_bytes == 7 && none->new_bytes == 7 && none->delta_bytes == 0);
    assert_ptr_equal(line, &table.rows[0]); /* the larger |delta| first */
    op_comparison_free(&table);
    profile_free(base);
    profile_free(new);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_allocators_matched_by_id),
        cmocka_unit_test(test_op_table),
        cmocka_unit_test(test_pairings),
        cmocka_unit_test(test_hosts_matched_by_name),
        cmocka_unit_test(test_op_table_by_location),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
