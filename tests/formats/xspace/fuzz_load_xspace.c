/* fuzz_load_xspace: the XSpace (.xplane.pb) loader on any bytes.
 *
 * The bytes go through profile_load_bytes() under an .xplane.pb name, as
 * a capture from a log directory would. Besides the checks of
 * fuzz_common.h, a loaded XSpace keeps what its loader promises: every
 * memory event on a complete timeline (never sampled), each a counted
 * allocation or deallocation, and at most the two special rows of XProf's
 * table at the peak; and two threads read it as one does. */
#include "config.h"

#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Bytewise, as XProf sorts memory ids (std::string's order). */
static int compare_ids(const struct profile *profile, uint32_t a, uint32_t b)
{
    size_t length_a = string_table_length(profile->strings, a);
    size_t length_b = string_table_length(profile->strings, b);
    int order = memcmp(profile_text(profile, a), profile_text(profile, b),
                       length_a < length_b ? length_a : length_b);
    return order ? order : (length_a > length_b) - (length_a < length_b);
}

static void check_xspace(const struct profile *profile)
{
    if (strcmp(profile_format_name(profile->format), "xspace") != 0)
        return;
    fuzz_require(profile->version == 1 && profile->num_hosts == 1,
                 "an XSpace profile is XProf's version 1, one host");
    for (size_t a = 0; a < profile->allocator_count; a++) {
        const struct allocator *allocator = &profile->allocators[a];
        fuzz_require(allocator->timeline_kind == TIMELINE_COMPLETE && !allocator->timeline_sampled,
                     "an XSpace timeline holds every memory event");
        fuzz_require(allocator->summary.allocations + allocator->summary.deallocations ==
                         allocator->timeline.count,
                     "every memory event is an allocation or a deallocation");
        size_t specials = 0;
        for (size_t r = 0; r < allocator->row_count; r++)
            specials += allocator->rows[r].origin == ROW_FROM_SPECIAL;
        fuzz_require(specials <= 2, "at most the stack and unused-memory rows are special");
        if (a > 0)
            fuzz_require(compare_ids(profile, profile->allocators[a - 1].id, allocator->id) < 0,
                         "allocators come in XProf's memory-id order");
    }
}

/* The host plane on two threads (a reader and an applier) gives what one
 * thread gives: the same status, message and timelines. */
static void check_two_threads(const uint8_t *data, size_t size, enum load_status status,
                              const struct load_error *error, const struct profile *one)
{
    struct load_error two_error = {0};
    struct profile *two = NULL;
    load_xspace_set_pipeline_threshold(1);
    enum load_status two_status =
        profile_load_bytes(data, size, "fuzz.xplane.pb", NULL, &two, &two_error);
    load_xspace_set_pipeline_threshold(0);
    fuzz_require(two_status == status, "two threads give the status one gives");
    if (status != LOAD_OK)
        fuzz_require(strcmp(two_error.message, error->message) == 0,
                     "two threads give the message one gives");
    if (status == LOAD_OK && two_status == LOAD_OK) {
        fuzz_require(two->allocator_count == one->allocator_count,
                     "two threads find the allocators one finds");
        for (size_t a = 0; a < one->allocator_count; a++) {
            const struct snapshot_columns *x = &one->allocators[a].timeline;
            const struct snapshot_columns *y = &two->allocators[a].timeline;
            fuzz_require(x->count == y->count, "two threads read as many snapshots as one");
            for (size_t i = 0; i < x->count; i++)
                fuzz_require(snapshot_columns_time(x, i) == snapshot_columns_time(y, i) &&
                                 x->step_id[i] == y->step_id[i] &&
                                 x->heap_bytes[i] == y->heap_bytes[i],
                             "two threads read the same snapshots and steps as one");
        }
    }
    profile_free(two);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct load_error error = {0};
    struct profile *loaded = NULL;
    enum load_status status =
        profile_load_bytes(data, size, "fuzz.xplane.pb", NULL, &loaded, &error);
    if (status == LOAD_OK && loaded)
        check_xspace(loaded);
    /* A thread per input slows fuzzing: one input in 16, by its last byte. */
    if (size > 0 && data[size - 1] % 16 == 0)
        check_two_threads(data, size, status, &error, loaded);
    fuzz_check_outcome(status, loaded, &error);
    return 0;
}
