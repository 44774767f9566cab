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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The form loader alone, as load.c calls it. */
    struct profile *profile = profile_new();
    if (!profile)
        return 0;
    profile->path = strdup("fuzz.pb");
    struct load_error error = {{0}};
    enum load_status status = load_protobuf(data, size, profile, &error);
    check_against_protobuf_c(data, size, status, &error);
    fuzz_finish_and_check(status, profile, &error);

    /* The whole path a file takes (detection, finish, "no allocators"):
     * only for small inputs, where it costs little next to the above. */
    if (size > 4096)
        return 0;
    struct load_error bytes_error = {{0}};
    struct profile *loaded = NULL;
    status = profile_load_bytes(data, size, "fuzz.pb", NULL, &loaded, &bytes_error);
    fuzz_check_outcome(status, loaded, &bytes_error);
    return 0;
}
