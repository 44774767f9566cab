/* test_support: helpers shared by the unit tests: building small profiles
 * in memory and finding the test data. */
#ifndef MEMTOP_TEST_SUPPORT_H
#define MEMTOP_TEST_SUPPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/profile.h"
#include "model/profile_builder.h"
#include "model/formats/memory_profile/xprof_draft.h"

/* Ends the current test as skipped, saying why. Not cmocka's skip(): in
 * TAP mode it prints "not ok N # SKIP", which the TAP driver counts as a
 * failure. Usable only in functions returning void. */
#define TEST_SKIP(...)                                                         \
    do {                                                                       \
        print_message("# skipped: " __VA_ARGS__);                              \
        print_message("\n");                                                   \
        return;                                                                \
    } while (0)

/* A fresh directory for one test binary's files: cmocka group setup and
 * teardown (it is removed with everything in it); test_directory() is its
 * path while it exists. */
int test_directory_create(void **state);
int test_directory_remove(void **state);
const char *test_directory(void);

/* $MEMTOP_SRCDIR/relative (or ./relative); malloc'd. */
char *test_source_path(const char *relative);
/* data/real/NAME of the source tree (the real captures), or NULL when
 * it cannot be read. */
char *test_real_path(const char *name);

/* A snapshot at time_ps with this heap, stack 0, the rest zero/empty. */
struct snapshot test_snapshot(int64_t time_ps, int64_t heap_bytes);

/* What `write` (a summary writer: out, profile, host) writes, as a
 * string; the caller frees it. */
char *test_capture_output(void (*write)(FILE *, const struct profile *, const char *),
                          const struct profile *profile, const char *host);

/* gzip-compresses bytes (one member); the caller frees. */
uint8_t *test_gzip_bytes(const void *bytes, size_t size, size_t *compressed_size);

/* Raw text (a load's message, a warning, a profile string) as a user
 * sees it: escaped once, as main and the viewer escape it
 * (model/format.h). A static buffer, valid until the next call. */
const char *test_shown(struct text text);
/* The profile's warning `index` as a user sees it (test_shown). */
const char *test_warning(const struct profile *profile, size_t index);

/* Reads a whole file; NULL when it cannot. */
uint8_t *test_read_file(const char *path, size_t *size);
/* The profile at path, loaded as memtop loads it (profile_load); fails
 * the test with the loader's message when it does not load. */
struct profile *test_load_ok(const char *path);



/* A MemoryProfile as a loader builds it (model/formats/memory_profile/xprof_draft.h), for tests
 * that read one before it is finished or build one by hand: the builder
 * and the draft on it, which must not move (hence the allocation). */
struct test_draft {
    struct profile_builder builder;
    struct xprof_draft draft;
};
struct test_draft *test_draft_new(void);
/* XProf's finishing, then the builder's: the profile (asserted to exist);
 * `loaded` is freed. */
struct profile *test_draft_finish(struct test_draft *loaded);
void test_draft_free(struct test_draft *loaded);
/* The profile so far: ids, strings, HLO modules, warnings. */
const struct profile *test_draft_profile(const struct test_draft *loaded);
/* Interns text in the draft's strings. */
uint32_t test_draft_intern(struct test_draft *loaded, const char *text);

/* Asserts (cmocka) that two finished profiles describe the same data:
 * every allocator, timeline column, row, summary, HLO module, with
 * strings compared by text (the two string tables differ). Format, path
 * and file size are not compared. */
void test_assert_profiles_equal(const struct profile *a, const struct profile *b);
/* XProf's table at the peak as the file gave it (issue 22: kept as
 * xprof_rows beside the live set where the timeline is complete, else
 * the rows themselves), for tests of what a loader read. */
static inline const struct allocation_row *test_xprof_rows(const struct allocator *allocator)
{
    size_t count = 0;
    return allocator_xprof_rows(allocator, &count);
}

static inline size_t test_xprof_count(const struct allocator *allocator)
{
    size_t count = 0;
    allocator_xprof_rows(allocator, &count);
    return count;
}

#endif
