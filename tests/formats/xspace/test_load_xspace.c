/* The XSpace loader against XProf's numbers: files from the project's
 * generator (every style and option) against its independent XProf oracle
 * (`generate_xspace --expect`), and the real JAX captures against the
 * values measured on them (data/real/README describes the captures) and
 * the oracle's --replay of them. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/load.h"
#include "model/load_internal.h"
#include "model/query/live_set.h"
#include "tests/test_support.h"
#include "tests/formats/xspace/xspace_expect.h"

static const char *generator(void)
{
    static char path[512];
    const char *build = getenv("MEMTOP_BUILDDIR");
    if (!build)
        return NULL;
    snprintf(path, sizeof path, "%s/tests/generate_xspace", build);
    return path;
}

/* The table at the peak is what the live-set index finds live at the
 * peak's time, row for row: the loader reads it off its own matching
 * pass (load_xspace_profile.c) instead of the builder's replay, and must
 * agree with the replay wherever it does. */
static void check_peak_table(const struct profile *profile, const char *path)
{
    for (size_t a = 0; a < profile->allocator_count; a++) {
        const struct allocator *allocator = &profile->allocators[a];
        if (allocator->timeline.count == 0)
            continue;
        assert_int_equal(allocator->rows_kind, ALLOCATOR_ROWS_LIVE);
        struct live_index *index = NULL;
        struct live_rows rows = {0};
        assert_int_equal(live_index_build(profile, allocator, 0, &index), LIVE_OK);
        assert_int_equal(live_index_rows_at(index, allocator->summary.peak_time_ps, &rows),
                         LIVE_OK);
        if (rows.count != allocator->row_count || rows.allocations != allocator->live_allocations)
            fail_msg("%s, allocator %zu: %zu rows of %zu allocations at the peak, the index "
                     "finds %zu of %zu", path, a, allocator->row_count,
                     allocator->live_allocations, rows.count, rows.allocations);
        for (size_t r = 0; r < rows.count; r++)
            assert_memory_equal(&allocator->rows[r], &rows.rows[r], sizeof rows.rows[r]);
        live_rows_free(&rows);
        live_index_free(index);
    }
}

/* Loads `path` on one thread and on two (the host plane's events read by
 * one thread, applied by the other) and checks both against the
 * expectations in `expect`, and the table at the peak against the index. */
static void check_against(const char *path, const char *expect)
{
    size_t size;
    char *text = (char *)test_read_file(expect, &size);
    assert_non_null(text);
    for (size_t threshold = SIZE_MAX; threshold > 0; threshold = threshold == 1 ? 0 : 1) {
        load_xspace_set_pipeline_threshold(threshold);
        struct profile *profile = test_load_ok(path);
        load_xspace_set_pipeline_threshold(0);
        char message[4096];
        bool ok = xspace_expect_check(profile, text, size, message, sizeof message);
        if (!ok)
            fail_msg("%s (%s): %s", path, threshold == 1 ? "two threads" : "one thread",
                     message);
        check_peak_table(profile, path);
        assert_string_equal(profile_format_name(profile->format), "xspace");
        profile_free(profile);
    }
    free(text);
}

/* One generated capture: `generate_xspace OPTIONS -o F --expect E`, then
 * memtop's load of F against E. The state is the options. */
static void test_generated(void **state)
{
    const char *options = *state;
    if (!generator())
        TEST_SKIP("MEMTOP_BUILDDIR is not set (run through make check)");
    char path[512], expect[512], command[2048];
    snprintf(path, sizeof path, "%s/generated.xplane.pb", test_directory());
    snprintf(expect, sizeof expect, "%s/generated.expect", test_directory());
    snprintf(command, sizeof command, "'%s' %s -o '%s' --expect '%s'", generator(), options, path,
             expect);
    assert_int_equal(system(command), 0);
    check_against(path, expect);
}

#define GENERATED(options) cmocka_unit_test_prestate(test_generated, (void *)(options))

/* ---- the real captures ---- */

/* data/real/NAME.xplane.pb.gz inflated into the test directory, and the
 * oracle's --replay of it; false (test skipped) without the generator. */
static bool replay_real(const char *name, char *plain, size_t plain_size, char *expect,
                        size_t expect_size)
{
    char relative[256], command[3072];
    snprintf(relative, sizeof relative, "data/real/%s.xplane.pb.gz", name);
    char *source = test_source_path(relative);
    snprintf(plain, plain_size, "%s/%s.xplane.pb", test_directory(), name);
    snprintf(expect, expect_size, "%s/%s.expect", test_directory(), name);
    snprintf(command, sizeof command, "gzip -dc '%s' > '%s' && '%s' --replay '%s' --expect '%s'",
             source, plain, generator(), plain, expect);
    free(source);
    return system(command) == 0;
}

static void test_real_captures_match_the_replay(void **state)
{
    (void)state;
    if (!generator())
        TEST_SKIP("MEMTOP_BUILDDIR is not set (run through make check)");
    static const char *const names[] = {"jax-mlp-steps", "jax-mlp-nosteps",
                                        "jax-transformer-noprealloc"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char plain[512], expect[512];
        assert_true(replay_real(names[i], plain, sizeof plain, expect, sizeof expect));
        check_against(plain, expect);
    }
}

static const struct allocator *allocator_named(const struct profile *profile, const char *id)
{
    long index = profile_find_allocator(profile, text_of(id));
    assert_true(index >= 0);
    return &profile->allocators[index];
}

/* The findings' numbers, read from the gzip file itself (load.c inflates). */
static void test_real_jax_mlp_steps(void **state)
{
    (void)state;
    char *path = test_source_path("data/real/jax-mlp-steps.xplane.pb.gz");
    struct profile *profile = test_load_ok(path);
    assert_true(profile->gzipped);
    assert_int_equal(profile->allocator_count, 2);
    const struct allocator *gpu = allocator_named(profile, "GPU_0_bfc");
    assert_int_equal(gpu->summary.allocations, 48);
    assert_int_equal(gpu->summary.deallocations, 48);
    assert_false(gpu->timeline_sampled);
    assert_int_equal(gpu->timeline_kind, TIMELINE_COMPLETE);
    assert_int_equal(gpu->summary.peak_bytes, 14248192);
    assert_int_equal(gpu->summary.peak_time_ps, 27097548000);
    assert_int_equal(gpu->summary.lifetime_peak_bytes, 156817152);
    assert_int_equal(gpu->row_count, 7);
    /* 16 events per step, steps 0..5, in time order */
    for (size_t i = 0; i < gpu->timeline.count; i++)
        assert_int_equal(gpu->timeline.step_id[i], (int64_t)(i / 16));
    assert_int_equal(gpu->rows[0].step_id, 5); /* the peak step */
    const struct allocator *host = allocator_named(profile, "xla_gpu_host_bfc");
    assert_int_equal(host->summary.allocations, 6);
    assert_int_equal(host->summary.deallocations, 6);
    assert_int_equal(host->summary.peak_bytes, 256);
    for (size_t i = 0; i < host->timeline.count; i++)
        assert_int_equal(host->timeline.step_id[i], 0); /* nested in nothing: no group */
    profile_free(profile);
    free(path);
}

static void test_real_jax_nosteps_and_transformer(void **state)
{
    (void)state;
    char *path = test_source_path("data/real/jax-mlp-nosteps.xplane.pb.gz");
    struct profile *profile = test_load_ok(path);
    const struct allocator *gpu = allocator_named(profile, "GPU_0_bfc");
    assert_int_equal(gpu->summary.allocations, 24);
    assert_int_equal(gpu->summary.peak_bytes, 14248192);
    for (size_t i = 0; i < gpu->timeline.count; i++)
        assert_int_equal(gpu->timeline.step_id[i], 0); /* no markers: all step 0 */
    profile_free(profile);
    free(path);
    path = test_source_path("data/real/jax-transformer-noprealloc.xplane.pb.gz");
    profile = test_load_ok(path);
    gpu = allocator_named(profile, "GPU_0_bfc");
    assert_int_equal(gpu->summary.allocations, 35);
    assert_int_equal(gpu->summary.peak_bytes, 277356032);
    assert_int_equal(gpu->rows[0].step_id, 3); /* the later of the two steps at the peak */
    const struct allocator *host = allocator_named(profile, "xla_gpu_host_bfc");
    /* walk order: the lifetime peak of the last event visited, above the window's */
    assert_int_equal(host->summary.lifetime_peak_bytes, 512);
    assert_int_equal(host->summary.peak_bytes, 256);
    profile_free(profile);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        GENERATED("--style tf-gpu"),
        GENERATED("--style jax-gpu"),
        GENERATED("--style tpu"),
        GENERATED("--style tf-gpu --strings str"),
        GENERATED("--style jax-gpu --strings str"),
        GENERATED("--style tpu --strings str"),
        GENERATED("--style tf-gpu --threads 1"),
        GENERATED("--style tf-gpu --threads 5"),
        GENERATED("--style jax-gpu --threads 4"),
        GENERATED("--style tpu --threads 3 --devices 2"),
        GENERATED("--style tpu --devices 8 --steps 3"),
        GENERATED("--style tf-gpu --markers no"),
        GENERATED("--style jax-gpu --markers no"),
        GENERATED("--style tpu --markers no"),
        GENERATED("--style tf-gpu --ties no"),
        GENERATED("--style jax-gpu --ties no"),
        GENERATED("--style tpu --ties no --seed 3"),
        GENERATED("--style tf-gpu --odd"),
        GENERATED("--style jax-gpu --odd"),
        GENERATED("--style tpu --odd"),
        GENERATED("--style tf-gpu --odd --strings str --seed 5"),
        GENERATED("--style tf-gpu --hostile"),
        GENERATED("--style jax-gpu --hostile"),
        GENERATED("--style tpu --hostile"),
        GENERATED("--style tf-gpu --odd --hostile --threads 3"),
        GENERATED("--style tf-gpu --big-ids"),
        GENERATED("--style jax-gpu --big-ids --odd"),
        GENERATED("--style tpu --big-ids"),
        GENERATED("--style tf-gpu --while-loop"),
        GENERATED("--style tpu --while-loop"),
        GENERATED("--style tf-gpu --seed 2"),
        GENERATED("--style tf-gpu --seed 9 --steps 3 --memory-events 3000"),
        GENERATED("--style jax-gpu --seed 4 --steps 10"),
        GENERATED("--style tpu --seed 6 --memory-events 2000"),
        GENERATED("--style tf-gpu --noise-bytes 200K"),
        GENERATED("--style tpu --noise-bytes 200K --odd --big-ids"),
        cmocka_unit_test(test_real_captures_match_the_replay),
        cmocka_unit_test(test_real_jax_mlp_steps),
        cmocka_unit_test(test_real_jax_nosteps_and_transformer),
    };
    return cmocka_run_group_tests(tests, test_directory_create, test_directory_remove);
}
