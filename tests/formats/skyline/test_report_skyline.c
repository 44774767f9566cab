/* What memtop writes about a Skyline report (issue 14): --summary's JSON
 * (the peak, capacity 0, no snapshots, the entries, the totals by kind,
 * null for what a report without a timeline lacks), its text, and the
 * allocations CSV with kind, location and stack. The report is written
 * with Skyline's DDL (tests/skyline_report_maker); every number expected
 * is worked out here by hand. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/load.h"
#include "report/export.h"
#include "report/summary_report.h"
#include "tests/formats/skyline/skyline_report_maker.h"
#include "tests/test_support.h"

static const struct skyline_frame weight_frames[] = {{"net/model.py", 0, 12},
                                                     {"train.py", 0, 40}};
static const struct skyline_frame relu_frames[] = {{"net/model.py", 0, 31}};
static const struct skyline_entry weights[] = {
    {"weight", 0, 4096, 4096, weight_frames, 2},
    {"bias", 0, 64, 0, NULL, 0},
};
static const struct skyline_entry activations[] = {
    {"conv2d", 0, 8192, 0, weight_frames, 1},
    {"relu\x1b[2J", 0, 0, 0, relu_frames, 1},
    {"add_", 0, -512, 0, relu_frames, 1},
};
/* weights 4160, gradients 4096, activations 8192: 16448 tracked. */
static const struct skyline_report report = {weights, 2, activations, 3, true, 20000, 1};

static struct profile *load_report(void)
{
    char path[512], message[256];
    snprintf(path, sizeof path, "%s/report.sqlite", test_directory());
    unlink(path);
    if (!skyline_report_write(path, &report, message, sizeof message))
        fail_msg("%s", message);
    struct profile *profile = NULL;
    struct load_error error = {0};
    if (profile_load(path, NULL, &profile, &error) != LOAD_OK)
        fail_msg("%s", error.message);
    /* The path is the test directory's: the JSON names a stable one. */
    free(profile->path);
    profile->path = strdup("report.sqlite");
    return profile;
}

static char *capture(void (*write)(FILE *, const struct profile *, const char *),
                     const struct profile *profile)
{
    return test_capture_output(write, profile, NULL);
}

static void test_summary_json(void **state)
{
    (void)state;
    struct profile *profile = load_report();
    char *json = capture(summary_report_json, profile);
    const char *head =
        "{\"file\":\"report.sqlite\",\"format\":\"skyline\",\"gzip\":false,\"version\":1,"
        "\"hosts\":1,\"hlo_modules\":0,\"allocators\":[{\"id\":\"cuda\",\"snapshots\":0,"
        "\"allocations\":0,\"deallocations\":0,\"capacity_bytes\":0,"
        "\"lifetime_peak_bytes\":null,\"peak\":{\"bytes\":20000,\"time_ps\":null,"
        "\"heap_bytes\":20000,\"stack_bytes\":0,\"free_bytes\":null,"
        "\"fragmentation\":null},\"active_allocations\":5,\"live_allocations\":null,"
        "\"weights_bytes\":4160,"
        "\"gradients_bytes\":4096,\"activations_bytes\":8192,\"untracked_bytes\":3552,"
        "\"summary_computed\":false,\"timeline_sampled\":false,";
    assert_memory_equal(json, head, strlen(head));
    /* No capacity: no utilization; the largest rows, an activation first. */
    assert_non_null(strstr(json, "\"timeline_sampled\":false,\"utilization\":null,"
                                 "\"top_rows\":[{\"op_name\":\"conv2d\","
                                 "\"allocation_bytes\":8192,"));
    assert_non_null(strstr(json, "\"kind\":\"activation\",\"location\":\"net/model.py:12\""));
    assert_int_equal(json[strlen(json) - 1], '}');
    free(json);
    profile_free(profile);
}

static void test_summary_text(void **state)
{
    (void)state;
    struct profile *profile = load_report();
    char *text = capture(summary_report_text, profile);
    assert_non_null(strstr(text, "report.sqlite: skyline, version 1, 1 allocator\n"));
    assert_non_null(strstr(text, "\ncuda\n"));
    assert_non_null(strstr(text, "Memory capacity                     unknown\n"));
    assert_non_null(strstr(text, "Peak memory usage                 19.53 KiB\n"));
    assert_non_null(strstr(text, "  Weights                          4.06 KiB\n"));
    assert_non_null(strstr(text, "  Gradients                        4.00 KiB\n"));
    assert_non_null(strstr(text, "  Activations                      8.00 KiB\n"));
    assert_non_null(strstr(text, "  Untracked                        3.47 KiB\n"));
    assert_non_null(strstr(text, "Entries: 5 (6 rows: gradients are rows of their own)\n"));
    /* Largest first, with kind and location; the frameless bias has "-". */
    const char *conv = strstr(text, "8.00 KiB  activation  conv2d  net/model.py:12\n");
    const char *gradient = strstr(text, "4.00 KiB  gradient    weight  net/model.py:12\n");
    assert_non_null(conv);
    assert_non_null(gradient);
    assert_true(conv < gradient);
    assert_non_null(strstr(text, "64 B  weight      bias  -\n"));
    assert_non_null(strstr(text, "-512 B  activation  add_  net/model.py:31  (size <= 0: not "
                                 "counted)\n"));
    assert_null(strchr(text, '\x1b'));
    assert_non_null(strstr(text, "relu\\x1b[2J"));
    assert_null(strstr(text, "Snapshots"));
    free(text);
    profile_free(profile);
}

static void test_allocations_csv(void **state)
{
    (void)state;
    struct profile *profile = load_report();
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_ALLOCATIONS, profile, &profile->allocators[0]);
    char *csv = NULL, error[EXPORT_ERROR_SIZE];
    size_t size = 0, rows = 0;
    FILE *out = open_memstream(&csv, &size);
    assert_non_null(out);
    assert_int_equal(export_write(out, &request, &rows, error, sizeof error), EXPORT_OK);
    fclose(out);
    assert_int_equal(rows, 6);
    assert_string_equal(
        csv,
        "op_name,allocation_bytes,requested_bytes,occurrences,region_type,data_type,"
        "tensor_shape,step_id,time_ps,address,activity,origin,snapshot_index,special_index,"
        "kind,location,stack,total_bytes,share,context,module\n"
        "weight,4096,,,,,,,,,,entry,,,weight,net/model.py:12,\"net/model.py:12\ntrain.py:40\","
        "4096,0.2048,,\n"
        "weight,4096,,,,,,,,,,entry,,,gradient,net/model.py:12,\"net/model.py:12\ntrain.py:40\","
        "4096,0.2048,,\n"
        "bias,64,,,,,,,,,,entry,,,weight,,,64,0.0032,,\n"
        "conv2d,8192,,,,,,,,,,entry,,,activation,net/model.py:12,net/model.py:12,8192,0.4096,,\n"
        /* A size <= 0 is the report's own number, but holds no share. */
        "relu\x1b[2J,0,,,,,,,,,,entry,,,activation,net/model.py:31,net/model.py:31,0,0,,\n"
        "add_,-512,,,,,,,,,,entry,,,activation,net/model.py:31,net/model.py:31,-512,0,,\n");
    free(csv);
    profile_free(profile);
}

/* --export summary: the --summary --json fields, null as empty cells. */
static void test_summary_csv(void **state)
{
    (void)state;
    struct profile *profile = load_report();
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_SUMMARY, profile, NULL);
    char *csv = NULL, error[EXPORT_ERROR_SIZE];
    size_t size = 0;
    FILE *out = open_memstream(&csv, &size);
    assert_non_null(out);
    assert_int_equal(export_write(out, &request, NULL, error, sizeof error), EXPORT_OK);
    fclose(out);
    assert_non_null(strstr(csv, "\ncuda,0,0,0,0,,20000,,20000,0,,,5,false,false\n"));
    free(csv);
    profile_free(profile);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary_json),
        cmocka_unit_test(test_summary_text),
        cmocka_unit_test(test_allocations_csv),
        cmocka_unit_test(test_summary_csv),
    };
    return cmocka_run_group_tests(tests, test_directory_create, test_directory_remove);
}
