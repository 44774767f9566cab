#include "config.h"

#include "tests/live_brute_force.h"
#include "tests/splitmix64.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#define ALLOC MEMORY_ACTIVITY_ALLOCATION
#define FREE MEMORY_ACTIVITY_DEALLOCATION

/* ---- the brute force: the definition, read literally ---- */

struct brute_event {
    uint64_t address;
    size_t index;
};

static int brute_event_compare(const void *a, const void *b)
{
    const struct brute_event *x = a, *y = b;
    if (x->address != y->address)
        return x->address < y->address ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

static int size_compare(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

static size_t brute_live_among(const struct allocator *allocator, size_t end, int64_t time_ps,
                               size_t **live);

/* The allocations live after every snapshot with time <= time_ps: for
 * each address, its last allocation or free among them decides, the
 * initial allocations counting as allocations before the first. Returns
 * how many, ascending in *live by number (initial allocation k as k,
 * snapshot i as initial_count + i; malloc'd, the caller frees). */
static size_t brute_live(const struct allocator *allocator, int64_t time_ps, size_t **live)
{
    return brute_live_among(allocator, allocator->timeline.count, time_ps, live);
}

/* The same among the first `end` snapshots only. */
static size_t brute_live_among(const struct allocator *allocator, size_t end, int64_t time_ps,
                               size_t **live)
{
    const struct snapshot_columns *timeline = &allocator->timeline;
    size_t initial = allocator->initial_count;
    struct brute_event *events = malloc((initial + timeline->count + 1) * sizeof *events);
    *live = malloc((initial + timeline->count + 1) * sizeof **live);
    assert_non_null(events);
    assert_non_null(*live);
    size_t count = 0, found = 0;
    for (size_t k = 0; k < initial; k++)
        events[count++] = (struct brute_event){allocator->initial[k].address, k};
    for (size_t i = 0; i < end; i++)
        if (snapshot_columns_time(timeline, i) <= time_ps &&
            (timeline->activity[i] == ALLOC || timeline->activity[i] == FREE))
            events[count++] =
                (struct brute_event){snapshot_columns_address(timeline, i), initial + i};
    qsort(events, count, sizeof *events, brute_event_compare);
    for (size_t i = 0; i < count; i++) {
        bool last_of_address = i + 1 == count || events[i + 1].address != events[i].address;
        size_t number = events[i].index;
        if (last_of_address && (number < initial || timeline->activity[number - initial] == ALLOC))
            (*live)[found++] = number;
    }
    free(events);
    qsort(*live, found, sizeof **live, size_compare);
    return found;
}

/* Snapshots with time <= time_ps, counted one by one. */
static size_t brute_count_until(const struct snapshot_columns *timeline, int64_t time_ps)
{
    size_t count = 0;
    for (size_t i = 0; i < timeline->count; i++)
        if (snapshot_columns_time(timeline, i) <= time_ps)
            count++;
    return count;
}

/* A row as the definition describes it, with its texts. */
struct expected_row {
    struct allocation_row row;
    /* op, region, data type, shape, location, module, stack */
    const char *texts[7];
};

static int expected_compare(const void *a, const void *b)
{
    const struct expected_row *x = a, *y = b;
    if (x->row.allocation_bytes != y->row.allocation_bytes)
        return x->row.allocation_bytes > y->row.allocation_bytes ? -1 : 1;
    if (x->row.requested_bytes != y->row.requested_bytes)
        return x->row.requested_bytes > y->row.requested_bytes ? -1 : 1;
    for (int i = 0; i < 4; i++) {
        int order = strcmp(x->texts[i], y->texts[i]);
        if (order != 0)
            return order;
    }
    for (int i = 4; i < 7; i++) {
        int order = strcmp(x->texts[i], y->texts[i]);
        if (order != 0)
            return order;
    }
    if (x->row.snapshot_index != y->row.snapshot_index)
        return (x->row.snapshot_index > y->row.snapshot_index) -
               (x->row.snapshot_index < y->row.snapshot_index);
    return (x->row.special_index > y->row.special_index) -
           (x->row.special_index < y->row.special_index);
}

static bool expected_same(const struct expected_row *x, const struct expected_row *y)
{
    if (x->row.allocation_bytes != y->row.allocation_bytes ||
        x->row.requested_bytes != y->row.requested_bytes)
        return false;
    for (int i = 0; i < 7; i++)
        if (strcmp(x->texts[i], y->texts[i]) != 0)
            return false;
    return true;
}

static struct expected_row expected_from_snapshot(const struct profile *profile,
                                                  const struct snapshot_columns *timeline,
                                                  size_t i)
{
    struct expected_row expected = {
        .row = {.origin = ROW_FROM_SNAPSHOT, .snapshot_index = (int64_t)i, .special_index = -1,
                .occurrences = 1,
                .allocation_bytes = snapshot_columns_allocation_bytes(timeline, i),
                .requested_bytes = snapshot_columns_requested_bytes(timeline, i),
                .step_id = snapshot_columns_step_id(timeline, i),
                .address = snapshot_columns_address(timeline, i),
                .activity = ALLOC, .has_time = true,
                .time_ps = snapshot_columns_time(timeline, i)},
        .texts = {profile_text(profile, snapshot_columns_op_name(timeline, i)),
                  profile_text(profile, snapshot_columns_region_type(timeline, i)),
                  profile_text(profile, snapshot_columns_data_type(timeline, i)),
                  profile_text(profile, snapshot_columns_tensor_shape(timeline, i)), "", "", ""},
    };
    return expected;
}

/* Initial allocation k: the loader's row as it is. */
static struct expected_row expected_from_initial(const struct profile *profile,
                                                 const struct allocator *allocator, size_t k)
{
    const struct allocation_row *row = &allocator->initial[k];
    struct expected_row expected = {
        .row = *row,
        .texts = {profile_text(profile, row->op_name), profile_text(profile, row->region_type),
                  profile_text(profile, row->data_type), profile_text(profile, row->tensor_shape),
                  profile_text(profile, row->location), profile_text(profile, row->module),
                  profile_text(profile, row->stack)},
    };
    return expected;
}

static struct expected_row expected_special(int64_t number, int64_t bytes, const char *name,
                                            const char *region, int64_t step_id)
{
    struct expected_row expected = {
        .row = {.origin = ROW_FROM_SPECIAL, .snapshot_index = -1 - number,
                .special_index = number, .occurrences = 1, .allocation_bytes = bytes,
                .requested_bytes = bytes, .step_id = step_id, .activity = ALLOC},
        .texts = {name, region, "INVALID", "unknown", "", "", ""},
    };
    return expected;
}

struct expected_rows {
    struct expected_row *rows;
    size_t count;
    int64_t total_bytes;
    size_t allocations;
    int64_t as_of_index;
};

/* The rows live at time_ps (with the special rows) or, when `grown`,
 * those allocated strictly after since_ps (without), sorted and merged
 * the way the definition says. */
static struct expected_rows brute_rows(const struct profile *profile,
                                       const struct allocator *allocator, bool grown,
                                       int64_t since_ps, int64_t time_ps)
{
    const struct snapshot_columns *timeline = &allocator->timeline;
    size_t initial = allocator->initial_count;
    size_t *live;
    size_t count = brute_live(allocator, time_ps, &live);
    struct expected_rows expected = {.as_of_index = (int64_t)brute_count_until(timeline, time_ps) - 1};
    struct expected_row *rows = calloc(count + 2, sizeof *rows);
    assert_non_null(rows);
    int64_t sum = 0;
    size_t listed = 0;
    for (size_t i = 0; i < count; i++) {
        if (live[i] < initial) { /* never grown: live before the timeline */
            sum += allocator->initial[live[i]].allocation_bytes;
            if (!grown)
                rows[listed++] = expected_from_initial(profile, allocator, live[i]);
            continue;
        }
        size_t snapshot = live[i] - initial;
        sum += snapshot_columns_allocation_bytes(timeline, snapshot);
        if (!grown || snapshot_columns_time(timeline, snapshot) > since_ps)
            rows[listed++] = expected_from_snapshot(profile, timeline, snapshot);
    }
    expected.allocations = listed;
    if (!grown && expected.as_of_index >= 0) {
        size_t last = (size_t)expected.as_of_index;
        int64_t before = timeline->heap_bytes[last] - sum, number = 0;
        if (before > 0)
            rows[listed++] = expected_special(number++, before, "allocated before the profile",
                                              "persist/dynamic",
                                              snapshot_columns_step_id(timeline, last));
        if (snapshot_columns_stack_bytes(timeline, last) > 0)
            rows[listed++] =
                expected_special(number, snapshot_columns_stack_bytes(timeline, last), "stack",
                                 "stack", snapshot_columns_step_id(timeline, last));
    }
    qsort(rows, listed, sizeof *rows, expected_compare);
    for (size_t i = 0; i < listed; i++) {
        expected.total_bytes += rows[i].row.allocation_bytes;
        if (expected.count > 0 && expected_same(&rows[expected.count - 1], &rows[i])) {
            int64_t occurrences = rows[expected.count - 1].row.occurrences + 1;
            rows[expected.count - 1] = rows[i];
            rows[expected.count - 1].row.occurrences = occurrences;
        } else {
            rows[expected.count++] = rows[i];
        }
    }
    expected.rows = rows;
    free(live);
    return expected;
}

static void assert_rows_as_expected(const struct profile *profile, const struct live_rows *actual,
                                    const struct expected_rows *expected)
{
    assert_int_equal(actual->count, expected->count);
    assert_int_equal(actual->allocations, expected->allocations);
    assert_true(actual->total_bytes == expected->total_bytes);
    assert_true(actual->as_of_index == expected->as_of_index);
    for (size_t i = 0; i < expected->count; i++) {
        const struct allocation_row *x = &actual->rows[i], *y = &expected->rows[i].row;
        assert_int_equal(x->origin, y->origin);
        assert_true(x->snapshot_index == y->snapshot_index);
        assert_true(x->special_index == y->special_index);
        assert_true(x->occurrences == y->occurrences);
        assert_true(x->allocation_bytes == y->allocation_bytes);
        assert_true(x->requested_bytes == y->requested_bytes);
        assert_string_equal(profile_text(profile, x->op_name), expected->rows[i].texts[0]);
        assert_string_equal(profile_text(profile, x->region_type), expected->rows[i].texts[1]);
        assert_string_equal(profile_text(profile, x->data_type), expected->rows[i].texts[2]);
        assert_string_equal(profile_text(profile, x->tensor_shape), expected->rows[i].texts[3]);
        assert_string_equal(profile_text(profile, x->location), expected->rows[i].texts[4]);
        assert_string_equal(profile_text(profile, x->module), expected->rows[i].texts[5]);
        assert_string_equal(profile_text(profile, x->stack), expected->rows[i].texts[6]);
        assert_true(x->step_id == y->step_id);
        assert_true(x->address == y->address);
        assert_int_equal(x->activity, y->activity);
        assert_int_equal(x->has_time, y->has_time);
        assert_true(x->time_ps == y->time_ps);
    }
}

/* ---- probes ---- */

static uint64_t random_state = 12345;

static uint64_t random_next(void)
{
    return splitmix64_next(&random_state);
}

static void probe_add(struct probes *probes, int64_t time_ps)
{
    if (probes->count == probes->capacity) {
        probes->capacity = probes->capacity ? probes->capacity * 2 : 64;
        probes->times = realloc(probes->times, probes->capacity * sizeof *probes->times);
        assert_non_null(probes->times);
    }
    probes->times[probes->count++] = time_ps;
}

struct probes probes_for(const struct snapshot_columns *timeline, const struct live_index *index)
{
    struct probes probes = {0};
    probe_add(&probes, INT64_MIN);
    probe_add(&probes, INT64_MAX);
    if (timeline->count == 0)
        return probes;
    int64_t first = snapshot_columns_time(timeline, 0),
            last = snapshot_columns_time(timeline, timeline->count - 1);
    probe_add(&probes, first - 1);
    probe_add(&probes, first);
    probe_add(&probes, last);
    probe_add(&probes, last + 1);
    for (int i = 0; i < 40; i++) {
        size_t at = (size_t)(random_next() % timeline->count);
        probe_add(&probes, snapshot_columns_time(timeline, at));
        probe_add(&probes, snapshot_columns_time(timeline, at) - 1);
        probe_add(&probes, snapshot_columns_time(timeline, at) + 1);
        if (at + 1 < timeline->count)
            probe_add(&probes, snapshot_columns_time(timeline, at) +
                                   (snapshot_columns_time(timeline, at + 1) -
                                    snapshot_columns_time(timeline, at)) / 2);
        probe_add(&probes, first + (int64_t)(random_next() % (uint64_t)(last - first + 1)));
    }
    for (size_t c = 0; index && c < live_index_checkpoint_count(index); c++) {
        size_t position = live_index_checkpoint_position(index, c);
        if (position > 0)
            probe_add(&probes, snapshot_columns_time(timeline, position - 1));
        if (position < timeline->count) {
            probe_add(&probes, snapshot_columns_time(timeline, position));
            probe_add(&probes, snapshot_columns_time(timeline, position) - 1);
        }
    }
    return probes;
}

/* Checkpoints are max(interval, allocations live at the one before)
 * snapshots apart or more: what keeps their memory below one entry per
 * snapshot. */
static void check_checkpoint_spacing(const struct live_index *index,
                                     const struct allocator *allocator, size_t interval)
{
    assert_int_equal(live_index_checkpoint_position(index, 0), 0);
    for (size_t c = 1; c < live_index_checkpoint_count(index); c++) {
        size_t before = live_index_checkpoint_position(index, c - 1);
        size_t *live;
        size_t count = brute_live_among(allocator, before, INT64_MAX, &live);
        free(live);
        size_t gap = live_index_checkpoint_position(index, c) - before;
        assert_true(gap >= interval && gap >= count);
    }
}

void check_timeline_against_brute_force(const struct profile *profile,
                                        const struct allocator *allocator)
{
    static const size_t intervals[] = {1, 2, 7, 100, 0, SIZE_MAX};
    const struct snapshot_columns *timeline = &allocator->timeline;
    for (size_t k = 0; k < sizeof intervals / sizeof intervals[0]; k++) {
        struct live_index *index;
        assert_int_equal(live_index_build(profile, allocator, intervals[k], &index), LIVE_OK);
        if (intervals[k] == SIZE_MAX)
            assert_int_equal(live_index_checkpoint_count(index), 1);
        if (intervals[k] == 1 || intervals[k] == 7)
            check_checkpoint_spacing(index, allocator, intervals[k]);
        struct probes probes = probes_for(timeline, index);
        for (size_t p = 0; p < probes.count; p++) {
            size_t *expected, *actual, actual_count;
            size_t expected_count = brute_live(allocator, probes.times[p], &expected);
            assert_int_equal(live_index_allocations_at(index, probes.times[p], &actual,
                                                       &actual_count),
                             LIVE_OK);
            assert_int_equal(actual_count, expected_count);
            for (size_t i = 0; i < expected_count; i++)
                assert_int_equal(actual[i], expected[i]);
            free(actual);
            free(expected);
        }
        if (intervals[k] == 0 || intervals[k] == 7) {
            struct live_rows rows = {0};
            for (size_t p = 0; p < probes.count; p++) {
                int64_t time = probes.times[p];
                int64_t since = probes.times[(p * 7 + 3) % probes.count];
                struct expected_rows at = brute_rows(profile, allocator, false, 0, time);
                assert_int_equal(live_index_rows_at(index, time, &rows), LIVE_OK);
                assert_rows_as_expected(profile, &rows, &at);
                free(at.rows);
                struct expected_rows grown = brute_rows(profile, allocator, true, since, time);
                assert_int_equal(live_index_rows_grown(index, since, time, &rows), LIVE_OK);
                assert_rows_as_expected(profile, &rows, &grown);
                free(grown.rows);
            }
            live_rows_free(&rows);
        }
        free(probes.times);
        live_index_free(index);
    }
}
