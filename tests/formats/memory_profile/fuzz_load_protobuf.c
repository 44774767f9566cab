/* fuzz_load_protobuf: the binary MemoryProfile loader on any bytes.
 *
 * Besides the checks of fuzz_common.h, protobuf-c (generated from the same
 * .proto) is the reference for what is a valid message: memtop must load
 * every input protobuf-c accepts (but for tags longer than 32 bits, see
 * below). The reverse need not hold (memtop keeps strings with NUL bytes,
 * merges repeated submessages, and so on). */
#include "config.h"

#include "tests/fuzz/fuzz_common.h"

#include "memory_profile.pb-c.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_against_protobuf_c(const uint8_t *data, size_t size, enum load_status status,
                                     const struct load_error *error)
{
    Tensorflow__Profiler__MemoryProfile *reference =
        tensorflow__profiler__memory_profile__unpack(NULL, size, data);
    if (!reference)
        return;
    tensorflow__profiler__memory_profile__free_unpacked(reference, NULL);
    /* protobuf-c drops the bits of a tag past 32 (so does Google's C++
     * reader) and reads garbage as some unknown field; memtop refuses such
     * a tag outright. Both are fine for a file that is broken anyway. */
    if (status == LOAD_BAD_INPUT && !strstr(error->message, "invalid field number"))
        fuzz_fail("memtop loads every message protobuf-c accepts", error->message);
}

/* Two snapshot lists decode alike on one thread and on two (with the
 * threshold at 2, a worker takes the list from the middle of any value of
 * two bytes or more). */
static void check_columns_alike(const struct profile *a, const struct snapshot_columns *x,
                                const struct profile *b, const struct snapshot_columns *y)
{
    fuzz_require(x->count == y->count, "two threads decode as many snapshots as one");
    for (size_t i = 0; i < x->count; i++) {
        fuzz_require(snapshot_columns_time(x, i) == snapshot_columns_time(y, i) &&
                         x->heap_bytes[i] == y->heap_bytes[i] && x->address[i] == y->address[i],
                     "two threads decode the same numbers as one");
        fuzz_require(text_equal(profile_string(a, x->op_name[i]), profile_string(b, y->op_name[i])) &&
                         text_equal(profile_string(a, x->tensor_shape[i]),
                                    profile_string(b, y->tensor_shape[i])),
                     "two threads decode the same strings as one");
    }
}

static void check_two_threads(const uint8_t *data, size_t size, enum load_status status,
                              const struct load_error *error,
                              const struct fuzz_draft *sequential)
{
    struct fuzz_draft threaded_target;
    if (!fuzz_draft_start(&threaded_target, "fuzz.pb", PROFILE_FORMAT_PROTOBUF))
        return;
    struct load_error threaded_error = {0};
    load_protobuf_set_parallel_threshold(2);
    enum load_status threaded = load_protobuf(data, size, &threaded_target.draft, &threaded_error);
    load_protobuf_set_parallel_threshold(0);
    fuzz_require(threaded == status, "two threads give the status one gives");
    if (status != LOAD_OK)
        fuzz_require(text_equal(load_error_message(&threaded_error), load_error_message(error)),
                     "two threads give the message one gives");
    const struct profile *a = sequential->builder.profile, *b = threaded_target.builder.profile;
    if (status == LOAD_OK && threaded == LOAD_OK) {
        fuzz_require(b->allocator_count == a->allocator_count,
                     "two threads find the allocators one finds");
        for (size_t i = 0; i < b->allocator_count; i++) {
            check_columns_alike(a, &sequential->draft.allocators[i].snapshots, b,
                                &threaded_target.draft.allocators[i].snapshots);
            check_columns_alike(a, &sequential->draft.allocators[i].sampled, b,
                                &threaded_target.draft.allocators[i].sampled);
        }
    }
    fuzz_draft_free(&threaded_target);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The form loader alone, as load.c calls it. */
    struct fuzz_draft target;
    if (!fuzz_draft_start(&target, "fuzz.pb", PROFILE_FORMAT_PROTOBUF))
        return 0;
    struct load_error error = {0};
    enum load_status status = load_protobuf(data, size, &target.draft, &error);
    check_against_protobuf_c(data, size, status, &error);
    /* A thread per input slows fuzzing (ASan threads are costly): one
     * input in 64, chosen by its last byte. */
    if (size > 0 && data[size - 1] % 64 == 0)
        check_two_threads(data, size, status, &error, &target);
    fuzz_finish_and_check(status, &target, &error);

    fuzz_check_whole_path(data, size, "fuzz.pb");
    return 0;
}
