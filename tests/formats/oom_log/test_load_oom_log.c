/* test_load_oom_log: the OOM log reader (model/formats/oom_log/) on the
 * hand-written logs of tests/formats/oom_log/data, in the spec's shapes
 * (docs/formats/oom_log.md): XLA's report with tabs, with 8 spaces and a
 * job runner's prefix, a wrapped op name, several reports in one log;
 * the BFC dump under TF's log prefixes; PyTorch's message, new and old;
 * each field checked. And what is refused. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "model/input_format.h"
#include "model/load.h"
#include "model/query/oom.h"
#include "model/profile.h"
#include "tests/test_support.h"

/* The fixture data/NAME, loaded (it must load). */
static struct profile *load_fixture(const char *name)
{
    char relative[256];
    snprintf(relative, sizeof relative, "tests/formats/oom_log/data/%s", name);
    char *path = test_source_path(relative);
    struct profile *profile = NULL;
    struct load_error error = {0};
    enum load_status status = profile_load(path, NULL, &profile, &error);
    if (status != LOAD_OK)
        fail_msg("%s: %s", path, error.message);
    free(path);
    assert_string_equal(profile_format_name(profile->format), "oom-log");
    assert_int_equal(profile->allocator_count, 1);
    assert_int_equal(profile->allocators[0].timeline_kind, TIMELINE_NONE);
    assert_int_equal(profile->allocators[0].oom_count, 1);
    return profile;
}

static const char *row_text(const struct profile *profile, uint32_t id)
{
    return profile_text(profile, id);
}

/* The XLA report of jax-ml/jax#13428 plus one more buffer. */
static void check_xla_rows(const struct profile *profile)
{
    const struct allocator *xla = &profile->allocators[0];
    assert_string_equal(profile_text(profile, xla->id), "XLA");
    const struct oom_event *oom = &xla->ooms[0];
    assert_int_equal(oom->requested_bytes, 6291456);
    assert_int_equal(oom->allocated_bytes, -1);
    assert_int_equal(oom->largest_free_bytes, -1);
    assert_int_equal(xla->summary.peak_bytes, 12582912); /* total allocation: 12.00MiB */
    assert_int_equal(xla->row_count, 3);
    const struct allocation_row *first = &xla->rows[0], *second = &xla->rows[1];
    assert_int_equal(first->allocation_bytes, 6291456);
    assert_string_equal(row_text(profile, first->op_name),
                        "jit(concatenate)/jit(main)/concatenate[dimension=0]");
    assert_string_equal(row_text(profile, first->location), "/media/user/internal/models.py:689");
    assert_string_equal(row_text(profile, first->location_file), "/media/user/internal/models.py");
    assert_int_equal(first->location_line, 689);
    assert_string_equal(row_text(profile, first->kind), "concatenate");
    assert_string_equal(row_text(profile, first->data_type), "f32");
    assert_string_equal(row_text(profile, first->tensor_shape), "[4096,128,3]");
    assert_int_equal(second->allocation_bytes, 393216); /* 384.0KiB */
    assert_string_equal(row_text(profile, second->kind), "entry parameter");
    assert_string_equal(row_text(profile, second->tensor_shape), "[256,128,3]");
    assert_string_equal(row_text(profile, second->op_name), "");
    assert_int_equal(xla->rows[2].allocation_bytes, 39629); /* 38.7KiB, rounded */
    /* The stats lines, as notes. */
    assert_int_equal(xla->note_count, 6);
    assert_string_equal(row_text(profile, xla->notes[0].label), "parameter allocation");
    assert_string_equal(row_text(profile, xla->notes[0].value), "6.00MiB");
    assert_string_equal(row_text(profile, xla->notes[5].label), "total fragmentation");
    assert_string_equal(row_text(profile, xla->notes[5].value), "0B (0.00%)");
}

static void test_xla_tabs(void **state)
{
    (void)state;
    struct profile *profile = load_fixture("xla_tabs.txt");
    check_xla_rows(profile);
    assert_int_equal(profile->warning_count, 0);
    profile_free(profile);
}

/* The same report, tabs as 8 spaces, each line behind a runner's prefix. */
static void test_xla_spaces_and_prefixes(void **state)
{
    (void)state;
    struct profile *profile = load_fixture("xla_spaces_prefixed.txt");
    check_xla_rows(profile);
    profile_free(profile);
}

/* A PyTorch message, then an XLA report under absl's prefix whose op
 * name was wrapped: the last opens, the first is a warning. */
static void test_several_reports_and_a_wrapped_name(void **state)
{
    (void)state;
    struct profile *profile = load_fixture("several_wrapped.txt");
    const struct allocator *xla = &profile->allocators[0];
    assert_int_equal(xla->ooms[0].requested_bytes, 8817213440);
    assert_int_equal(xla->row_count, 2);
    assert_string_equal(row_text(profile, xla->rows[0].op_name),
                        "jit(train_step)/jit(main)/transpose(jvp(model))/dot_general[dimension_"
                        "numbers=(((2,), (1,)), ((0,), (0,))) precision=None "
                        "preferred_element_type=float32]");
    assert_string_equal(row_text(profile, xla->rows[0].location), "/app/model.py:211");
    assert_int_equal(xla->rows[0].allocation_bytes, INT64_C(4294967296));
    assert_int_equal(xla->summary.peak_bytes, 10125385400); /* 9.43GiB */
    assert_int_equal(profile->warning_count, 1);
    assert_string_equal(test_warning(profile, 0),
                        "line 1: another out-of-memory report, a PyTorch out-of-memory message "
                        "(cuda:1, 2.00 GiB requested); memtop shows the last one (line 3)");
    profile_free(profile);
}

static void test_bfc_dump(void **state)
{
    (void)state;
    struct profile *profile = load_fixture("bfc_tf.txt");
    const struct allocator *bfc = &profile->allocators[0];
    assert_string_equal(profile_text(profile, bfc->id), "GPU_0_bfc");
    const struct oom_event *oom = &bfc->ooms[0];
    assert_int_equal(oom->requested_bytes, 512000000); /* rounded to */
    assert_string_equal(profile_text(profile, oom->op_name),
                        "dual_encoder_all/model_1/conv2d_17/Relu_1");
    assert_int_equal(oom->allocated_bytes, 1744830976);      /* InUse */
    assert_int_equal(oom->reserved_bytes, 2147483648);       /* Total bytes in pool */
    assert_int_equal(oom->largest_free_bytes, 268435456);    /* the largest Free chunk */
    assert_int_equal(oom->device_free_bytes, -1);
    assert_int_equal(bfc->summary.capacity_bytes, 2147483648);   /* Limit */
    assert_int_equal(bfc->summary.peak_bytes, 1744830976);       /* InUse */
    assert_int_equal(bfc->summary.lifetime_peak_bytes, 1879048704); /* MaxInUse */
    /* The in-use chunks by size, largest first, adding up to InUse. */
    assert_int_equal(bfc->row_count, 4);
    int64_t sum = 0;
    for (size_t i = 0; i < bfc->row_count; i++)
        sum += bfc->rows[i].allocation_bytes * bfc->rows[i].occurrences;
    assert_int_equal(sum, 1744830976);
    assert_int_equal(bfc->rows[0].allocation_bytes, 1073741824);
    assert_int_equal(bfc->rows[3].allocation_bytes, 256);
    assert_int_equal(bfc->rows[3].occurrences, 2);
    /* The walk, as the memory map. */
    assert_int_equal(bfc->memory_map_count, 7);
    assert_false(bfc->memory_map[3].in_use);
    assert_int_equal(bfc->memory_map[3].bytes, 268435456);
    double cells[8];
    assert_true(oom_memory_map_cells(bfc, cells, 8));
    assert_true(cells[0] > 0.99);
    /* The Stats block as notes. */
    assert_int_equal(bfc->note_count, 5);
    assert_string_equal(profile_text(profile, bfc->notes[4].label), "MaxAllocSize");
    assert_string_equal(profile_text(profile, bfc->notes[4].value), "1073741824");
    /* 488.28 MiB asked, 384 MiB free under the Limit: too large. */
    assert_int_equal(oom_account_of(bfc, oom).verdict, OOM_VERDICT_TOO_LARGE);
    profile_free(profile);
}

static void test_torch_messages(void **state)
{
    (void)state;
    struct profile *profile = load_fixture("torch_new.txt");
    const struct allocator *cuda = &profile->allocators[0];
    assert_string_equal(profile_text(profile, cuda->id), "cuda:0");
    const struct oom_event *oom = &cuda->ooms[0];
    assert_int_equal(oom->requested_bytes, 20971520);            /* 20.00 MiB */
    assert_int_equal(oom->device_free_bytes, 3670016);           /* 3.50 MiB */
    assert_int_equal(oom->allocated_bytes, 83043192668);         /* 77.34 GiB */
    assert_int_equal(oom->reserved_bytes, 83043192668 + 1288490189); /* + 1.20 GiB */
    assert_int_equal(cuda->summary.capacity_bytes, 84986665370); /* 79.15 GiB */
    assert_int_equal(oom_account_of(cuda, oom).verdict, OOM_VERDICT_FRAGMENTED);
    profile_free(profile);
    profile = load_fixture("torch_old.txt");
    cuda = &profile->allocators[0];
    assert_string_equal(profile_text(profile, cuda->id), "cuda:1");
    oom = &cuda->ooms[0];
    assert_int_equal(oom->requested_bytes, 2147483648);
    assert_int_equal(oom->allocated_bytes, 13003013489);  /* 12.11 GiB */
    assert_int_equal(oom->device_free_bytes, 1481763717); /* 1.38 GiB */
    assert_int_equal(oom->reserved_bytes, 13980118548);   /* 13.02 GiB */
    assert_int_equal(cuda->summary.capacity_bytes, 16943645983); /* 15.78 GiB */
    profile_free(profile);
}

/* Text without a report, and a JSON trace that quotes the words: not this
 * format. */
static void test_refused(void **state)
{
    (void)state;
    const char *texts[] = {
        "Epoch 1/10\nloss: 0.1\n",
        "[{\"name\": \"CUDA out of memory. Tried to allocate 2.00 GiB\", \"ph\": \"i\"}]",
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        struct profile *profile = NULL;
        struct load_error error = {0};
        enum load_status status = profile_load_bytes((const uint8_t *)texts[i], strlen(texts[i]),
                                                     "x.log", NULL, &profile, &error);
        assert_true(status != LOAD_OK ||
                    strcmp(profile_format_name(profile->format), "oom-log") != 0);
        profile_free(profile);
    }
}

/* Binary bytes (a protobuf's tags and lengths, no NUL) that hold a
 * report's words later on: not a log, so no probe searches a profile of
 * any size for them. */
static void test_binary_is_not_a_log(void **state)
{
    (void)state;
    static const uint8_t bytes[] = "\x08\x01\x12\x05hello\x1a\x03" "abc"
                                   "RESOURCE_EXHAUSTED: Out of memory while trying to allocate "
                                   "6.00MiB\n";
    const struct input_format *format = input_format_detect(bytes, sizeof bytes - 1, false);
    assert_true(format == NULL || strcmp(profile_format_name(format), "oom-log") != 0);
    /* The same words in a coloured log (a terminal's escapes) still are one. */
    static const uint8_t coloured[] = "\x1b[31mE1127 12:00:00 RESOURCE_EXHAUSTED: Out of memory "
                                      "while trying to allocate 6.00MiB\x1b[0m\n";
    format = input_format_detect(coloured, sizeof coloured - 1, false);
    assert_non_null(format);
    assert_string_equal(profile_format_name(format), "oom-log");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xla_tabs),
        cmocka_unit_test(test_xla_spaces_and_prefixes),
        cmocka_unit_test(test_several_reports_and_a_wrapped_name),
        cmocka_unit_test(test_bfc_dump),
        cmocka_unit_test(test_torch_messages),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_binary_is_not_a_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
