#include "config.h"

#include "tests/profile_maker.h"

#include "model/load.h"
#include "tests/test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

/* The profiles being made, each with the builder and XProf draft it is
 * made through (tests/test_support.h): the maker's callers hold the
 * builder's profile and its allocators, which the draft's pieces follow
 * index for index. */
#define MAKER_DRAFTS 8
static struct test_draft *maker_drafts[MAKER_DRAFTS];

static struct test_draft *maker_draft(const struct profile *profile)
{
    for (size_t i = 0; i < MAKER_DRAFTS; i++)
        if (maker_drafts[i] && test_draft_profile(maker_drafts[i]) == profile)
            return maker_drafts[i];
    fail_msg("profile_maker: a profile it is not making");
    return NULL;
}

/* The draft's pieces of one of the profile's allocators. */
static struct xprof_allocator *maker_pieces(const struct profile *profile,
                                            const struct allocator *allocator)
{
    return &maker_draft(profile)->draft.allocators[allocator - profile->allocators];
}

static uint32_t maker_intern(struct profile *profile, const char *text)
{
    if (!text)
        text = "";
    uint32_t id = string_table_intern(profile->strings, text, strlen(text));
    assert_int_not_equal(id, STRING_ID_NONE);
    return id;
}

static struct snapshot maker_snapshot(struct profile *profile, const struct made_event *event)
{
    return (struct snapshot){
        .time_ps = event->time_ps,
        .stack_bytes = event->stack_bytes,
        .heap_bytes = event->heap_bytes,
        .activity = event->activity,
        .requested_bytes = event->requested_bytes ? event->requested_bytes
                                                  : event->allocation_bytes,
        .allocation_bytes = event->allocation_bytes,
        .address = event->address,
        .step_id = event->step_id,
        .op_name = maker_intern(profile, event->op),
        .region_type = maker_intern(profile, event->region ? event->region : "output"),
        .data_type = maker_intern(profile, "float"),
        .tensor_shape = maker_intern(profile, "[4]"),
    };
}

struct profile *profile_maker_new(void)
{
    for (size_t i = 0; i < MAKER_DRAFTS; i++) {
        if (!maker_drafts[i]) {
            maker_drafts[i] = test_draft_new();
            return maker_drafts[i]->builder.profile;
        }
    }
    fail_msg("profile_maker: more than %d profiles made at once", MAKER_DRAFTS);
    return NULL;
}

struct allocator *profile_maker_allocator(struct profile *profile, const char *id)
{
    struct test_draft *draft = maker_draft(profile);
    struct xprof_allocator *pieces = xprof_draft_allocator(&draft->draft, id, strlen(id));
    assert_non_null(pieces);
    return &profile->allocators[pieces - draft->draft.allocators];
}

void profile_maker_append(struct profile *profile, struct allocator *allocator,
                          const struct made_event *event, bool sampled)
{
    struct snapshot snapshot = maker_snapshot(profile, event);
    struct xprof_allocator *pieces = maker_pieces(profile, allocator);
    assert_true(snapshot_columns_append(sampled ? &pieces->sampled : &pieces->snapshots,
                                        &snapshot));
}

void profile_maker_add_row(struct profile *profile, struct allocator *allocator,
                           const struct made_event *event, int64_t occurrences)
{
    struct snapshot snapshot = maker_snapshot(profile, event);
    struct xprof_allocator *pieces = maker_pieces(profile, allocator);
    struct active_allocation active = {
        .snapshot_index = (int64_t)pieces->snapshots.count,
        .special_index = -1,
        .occurrences = occurrences,
    };
    assert_true(snapshot_columns_append(&pieces->snapshots, &snapshot));
    assert_true(xprof_allocator_add_active(pieces, &active));
}

void profile_maker_add_special_row(struct profile *profile, struct allocator *allocator,
                                   const struct made_event *event)
{
    struct snapshot snapshot = maker_snapshot(profile, event);
    struct xprof_allocator *pieces = maker_pieces(profile, allocator);
    struct active_allocation active = {
        .snapshot_index = -1 - (int64_t)pieces->specials.count,
        .special_index = (int64_t)pieces->specials.count,
        .occurrences = 1,
    };
    assert_true(snapshot_columns_append(&pieces->specials, &snapshot));
    assert_true(xprof_allocator_add_active(pieces, &active));
}

void profile_maker_add_unresolved_row(struct allocator *allocator)
{
    struct active_allocation active = {.snapshot_index = 99999, .special_index = -1,
                                       .occurrences = 1};
    for (size_t i = 0; i < MAKER_DRAFTS; i++) {
        const struct profile *profile = maker_drafts[i] ? test_draft_profile(maker_drafts[i]) : NULL;
        if (profile && allocator >= profile->allocators &&
            allocator < profile->allocators + profile->allocator_count) {
            assert_true(xprof_allocator_add_active(maker_pieces(profile, allocator), &active));
            return;
        }
    }
    fail_msg("profile_maker: an allocator of no profile it is making");
}

void profile_maker_add_span(struct profile *profile, const char *allocator_id, const char *name,
                            int64_t start_ps, int64_t end_ps)
{
    struct time_span span = {
        .name = maker_intern(profile, name),
        .allocator = allocator_id ? maker_intern(profile, allocator_id) : STRING_ID_NONE,
        .start_ps = start_ps,
        .end_ps = end_ps,
    };
    assert_true(profile_builder_add_span(&maker_draft(profile)->builder, &span));
}

void profile_maker_set_initial(struct profile *profile, struct allocator *allocator,
                               const struct made_event *events, const char *const *locations,
                               size_t count)
{
    struct allocation_row *rows = calloc(count ? count : 1, sizeof *rows);
    assert_non_null(rows);
    for (size_t i = 0; i < count; i++) {
        struct snapshot snapshot = maker_snapshot(profile, &events[i]);
        rows[i] = (struct allocation_row){
            .address = snapshot.address,
            .allocation_bytes = snapshot.allocation_bytes,
            .requested_bytes = snapshot.requested_bytes,
            .op_name = snapshot.op_name,
            .region_type = snapshot.region_type,
            .data_type = snapshot.data_type,
            .tensor_shape = snapshot.tensor_shape,
            .step_id = snapshot.step_id,
            .location = locations ? maker_intern(profile, locations[i]) : STRING_ID_EMPTY,
            .stack = locations ? maker_intern(profile, locations[i]) : STRING_ID_EMPTY,
        };
    }
    assert_true(profile_builder_set_initial_allocations(
        &maker_draft(profile)->builder, (size_t)(allocator - profile->allocators), rows, count));
    free(rows);
}

void profile_maker_live_rows(struct profile *profile, struct allocator *allocator)
{
    profile_builder_make_live_rows(&maker_draft(profile)->builder,
                                   (size_t)(allocator - profile->allocators));
}

void profile_maker_finish(struct profile *profile)
{
    for (size_t i = 0; i < MAKER_DRAFTS; i++) {
        if (maker_drafts[i] && test_draft_profile(maker_drafts[i]) == profile) {
            struct test_draft *draft = maker_drafts[i];
            maker_drafts[i] = NULL;
            /* Rows made by hand are the table the tests ask about, not
             * XProf's peak-step table that the builder would replace with
             * the live set (issue 22). */
            assert_true(xprof_draft_finish(&draft->draft));
            for (size_t a = 0; a < profile->allocator_count; a++)
                profile_builder_set_rows_kind(&draft->builder, a, ALLOCATOR_ROWS_RECORDED);
            /* The builder hands over the profile it was filling. */
            assert_ptr_equal(profile_builder_finish(&draft->builder), profile);
            free(draft);
            return;
        }
    }
    fail_msg("profile_maker: finishing a profile it is not making");
}

static uint32_t copy_text(struct profile *to, const struct profile *from, uint32_t id)
{
    uint32_t copied = string_table_intern(to->strings, profile_text(from, id),
                                          string_table_length(from->strings, id));
    assert_int_not_equal(copied, STRING_ID_NONE);
    return copied;
}

struct profile *profile_maker_window(const struct profile *source, size_t allocator_index,
                                     size_t first, int64_t time_grid)
{
    const struct allocator *from = &source->allocators[allocator_index];
    struct profile *profile = profile_maker_new();
    struct allocator *to = profile_maker_allocator(profile, profile_text(source, from->id));
    struct snapshot snapshot;
    for (size_t i = first; i < from->timeline.count; i++) {
        snapshot_columns_get(&from->timeline, i, &snapshot);
        if (time_grid > 0)
            snapshot.time_ps -= snapshot.time_ps % time_grid;
        snapshot.op_name = copy_text(profile, source, snapshot.op_name);
        snapshot.region_type = copy_text(profile, source, snapshot.region_type);
        snapshot.data_type = copy_text(profile, source, snapshot.data_type);
        snapshot.tensor_shape = copy_text(profile, source, snapshot.tensor_shape);
        assert_true(snapshot_columns_append(&maker_pieces(profile, to)->snapshots, &snapshot));
    }
    profile_maker_finish(profile);
    return profile;
}

struct window_event {
    uint64_t address;
    size_t index;
};

static int window_event_compare(const void *a, const void *b)
{
    const struct window_event *x = a, *y = b;
    if (x->address != y->address)
        return x->address < y->address ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

static int index_compare(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

struct profile *profile_maker_window_seeded(const struct profile *source, size_t allocator_index,
                                            size_t first)
{
    const struct allocator *from = &source->allocators[allocator_index];
    const struct snapshot_columns *timeline = &from->timeline;
    struct window_event *events = calloc(first + 1, sizeof *events);
    size_t *live = calloc(first + 1, sizeof *live);
    assert_non_null(events);
    assert_non_null(live);
    size_t count = 0, found = 0;
    for (size_t i = 0; i < first; i++)
        if (timeline->activity[i] == MEMORY_ACTIVITY_ALLOCATION ||
            timeline->activity[i] == MEMORY_ACTIVITY_DEALLOCATION)
            events[count++] = (struct window_event){snapshot_columns_address(timeline, i), i};
    qsort(events, count, sizeof *events, window_event_compare);
    for (size_t i = 0; i < count; i++)
        if ((i + 1 == count || events[i + 1].address != events[i].address) &&
            timeline->activity[events[i].index] == MEMORY_ACTIVITY_ALLOCATION)
            live[found++] = events[i].index;
    qsort(live, found, sizeof *live, index_compare);

    struct profile *profile = profile_maker_new();
    struct allocator *to = profile_maker_allocator(profile, profile_text(source, from->id));
    struct allocation_row *rows = calloc(found + 1, sizeof *rows);
    assert_non_null(rows);
    for (size_t k = 0; k < found; k++) {
        size_t i = live[k];
        rows[k] = (struct allocation_row){
            .address = snapshot_columns_address(timeline, i),
            .allocation_bytes = snapshot_columns_allocation_bytes(timeline, i),
            .requested_bytes = snapshot_columns_requested_bytes(timeline, i),
            .op_name = copy_text(profile, source, snapshot_columns_op_name(timeline, i)),
            .region_type = copy_text(profile, source, snapshot_columns_region_type(timeline, i)),
            .data_type = copy_text(profile, source, snapshot_columns_data_type(timeline, i)),
            .tensor_shape = copy_text(profile, source, snapshot_columns_tensor_shape(timeline, i)),
            .step_id = snapshot_columns_step_id(timeline, i),
        };
    }
    assert_true(profile_builder_set_initial_allocations(
        &maker_draft(profile)->builder, (size_t)(to - profile->allocators), rows, found));
    free(rows);
    free(live);
    free(events);
    struct snapshot snapshot;
    for (size_t i = first; i < timeline->count; i++) {
        snapshot_columns_get(timeline, i, &snapshot);
        snapshot.op_name = copy_text(profile, source, snapshot.op_name);
        snapshot.region_type = copy_text(profile, source, snapshot.region_type);
        snapshot.data_type = copy_text(profile, source, snapshot.data_type);
        snapshot.tensor_shape = copy_text(profile, source, snapshot.tensor_shape);
        assert_true(snapshot_columns_append(&maker_pieces(profile, to)->snapshots, &snapshot));
    }
    profile_maker_finish(profile);
    return profile;
}

struct profile *profile_maker_generate(const char *name, const char *arguments)
{
    const char *build = getenv("MEMTOP_BUILDDIR");
    if (!build)
        return NULL;
    char path[512], command[2048];
    snprintf(path, sizeof path, "%s/%s", test_directory(), name);
    snprintf(command, sizeof command, "'%s/tests/generate_profile' %s -o '%s'", build,
             arguments, path);
    assert_int_equal(system(command), 0);
    struct profile *profile = NULL;
    struct load_error error;
    assert_int_equal(profile_load(path, NULL, &profile, &error), LOAD_OK);
    return profile;
}
