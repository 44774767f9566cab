#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/profile.h"
#include "model/query/allocation_columns.h"
#include "report/json_writer.h"
#include "report/summary_report.h"
#include "tests/test_support.h"

/* Runs a writer into memory; the caller frees the text. */
static char *capture(void (*write)(FILE *, const struct profile *, const char *),
                     const struct profile *profile, const char *host)
{
    return test_capture_output(write, profile, host);
}

static uint32_t intern(struct test_draft *profile, const char *text)
{
    return test_draft_intern(profile, text);
}

static struct profile *sample_profile(void)
{
    struct test_draft *profile = test_draft_new();
    assert_true(profile_builder_set_source(&profile->builder, "run/host-7.memory_profile.json.gz",
                                           PROFILE_FORMAT_JSON, false, 0));
    profile->draft.version = 1;
    profile->draft.num_hosts = 1;
    struct xprof_allocator *gpu = xprof_draft_allocator(&profile->draft, "GPU_0_bfc", 9);
    for (int i = 0; i < 4; i++) {
        struct snapshot snapshot = test_snapshot(1000 * i, 1 << 20);
        snapshot.activity = i == 3 ? MEMORY_ACTIVITY_DEALLOCATION : MEMORY_ACTIVITY_ALLOCATION;
        snapshot.op_name = intern(profile, i == 1 ? "evil\x1b[2J\"op\"" : "dense/MatMul");
        snapshot.allocation_bytes = 4096 * (i + 1);
        assert_true(snapshot_columns_append(&gpu->sampled, &snapshot));
        assert_true(snapshot_columns_append(&gpu->snapshots, &snapshot));
    }
    struct memory_stats peak = {.stack_bytes = 65536, .heap_bytes = 14763884544,
                                .free_bytes = 2147483648, .fragmentation = 0.125};
    xprof_allocator_set_summary(gpu, 17179869184, 14763950080, &peak, 9007199254740993);
    struct active_allocation rows[] = {{1, -1, 2}, {0, -1, 1}, {7, -1, 1}};
    for (size_t i = 0; i < 3; i++)
        assert_true(xprof_allocator_add_active(gpu, &rows[i]));
    struct xprof_allocator *cpu = xprof_draft_allocator(&profile->draft, "cpu", 3);
    struct snapshot snapshot = test_snapshot(5, 100);
    snapshot.fragmentation = 0.0 / 0.0; /* NaN: not valid JSON, printed as null */
    assert_true(snapshot_columns_append(&cpu->snapshots, &snapshot));
    return test_draft_finish(profile);
}

static void test_json_shape_and_exact_numbers(void **state)
{
    (void)state;
    struct profile *profile = sample_profile();
    char *text = capture(summary_report_json, profile, NULL);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    assert_string_equal(cJSON_GetObjectItem(root, "file")->valuestring,
                        "run/host-7.memory_profile.json.gz");
    assert_string_equal(cJSON_GetObjectItem(root, "format")->valuestring, "json");
    assert_int_equal(cJSON_GetObjectItem(root, "version")->valueint, 1);
    assert_int_equal(cJSON_GetObjectItem(root, "hosts")->valueint, 1);
    assert_null(cJSON_GetObjectItem(root, "host"));
    cJSON *allocators = cJSON_GetObjectItem(root, "allocators");
    assert_int_equal(cJSON_GetArraySize(allocators), 2);
    cJSON *gpu = cJSON_GetArrayItem(allocators, 0);
    assert_string_equal(cJSON_GetObjectItem(gpu, "id")->valuestring, "GPU_0_bfc");
    assert_int_equal(cJSON_GetObjectItem(gpu, "snapshots")->valueint, 4);
    assert_int_equal(cJSON_GetObjectItem(gpu, "allocations")->valueint, 3);
    assert_int_equal(cJSON_GetObjectItem(gpu, "deallocations")->valueint, 1);
    assert_int_equal(cJSON_GetObjectItem(gpu, "active_allocations")->valueint, 3);
    cJSON *peak = cJSON_GetObjectItem(gpu, "peak");
    assert_true(cJSON_GetObjectItem(peak, "fragmentation")->valuedouble == 0.125);
    /* Integers are written exactly, also past 2^53 where doubles round:
     * check the text itself. */
    assert_non_null(strstr(text, "\"capacity_bytes\":17179869184,"));
    assert_non_null(strstr(text, "\"lifetime_peak_bytes\":14763950080,"));
    assert_non_null(strstr(text, "\"peak\":{\"bytes\":14763950080,\"time_ps\":9007199254740993,"
                                 "\"heap_bytes\":14763884544,\"stack_bytes\":65536,"
                                 "\"free_bytes\":2147483648,\"fragmentation\":0.125}"));
    cJSON *cpu = cJSON_GetArrayItem(allocators, 1);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(cpu, "peak"),
                                                 "fragmentation")));
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cpu, "summary_computed")));
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(gpu, "timeline_sampled")));
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(cpu, "timeline_sampled")));
    cJSON_Delete(root);
    free(text);
    profile_free(profile);
}

static void test_json_with_host(void **state)
{
    (void)state;
    struct profile *profile = sample_profile();
    char *text = capture(summary_report_json, profile, "worker-3");
    assert_true(strncmp(text, "{\"host\":\"worker-3\",\"file\":", 26) == 0);
    free(text);
    profile_free(profile);
}

static char *json_string(const char *input)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    summary_report_json_string(out, input);
    fclose(out);
    return text;
}

static void test_json_strings_always_valid(void **state)
{
    (void)state;
    const struct {
        const char *in, *out;
    } cases[] = {
        {"plain", "\"plain\""},
        {"quote\" back\\slash", "\"quote\\\" back\\\\slash\""},
        {"esc\x1b[2J\n", "\"esc\\u001b[2J\\u000a\""},
        {"caf\xc3\xa9", "\"caf\xc3\xa9\""},
        {"bad\xff\xc0", "\"bad\\ufffd\\ufffd\""},
        {"c1\xc2\x9b", "\"c1\\u009b\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *text = json_string(cases[i].in);
        assert_string_equal(text, cases[i].out);
        cJSON *parsed = cJSON_Parse(text);
        assert_non_null(parsed);
        cJSON_Delete(parsed);
        free(text);
    }
}

/* Bidirectional controls (U+202E, U+2066..U+2069, U+200E/F, U+061C,
 * U+202A..U+202D) in ids, host and file names: \u escapes, as the text
 * report escapes them (issue 16.2), so no raw one reaches a terminal. */
static void test_json_escapes_bidirectional_controls(void **state)
{
    (void)state;
    static const char *const bidi[] = {
        "\xe2\x80\xae", "\xe2\x81\xa6", "\xe2\x81\xa7", "\xe2\x81\xa8", "\xe2\x81\xa9",
        "\xe2\x80\x8e", "\xe2\x80\x8f", "\xd8\x9c",     "\xe2\x80\xaa", "\xe2\x80\xab",
        "\xe2\x80\xac", "\xe2\x80\xad",
    };
    static const char *const escaped[] = {
        "\\u202e", "\\u2066", "\\u2067", "\\u2068", "\\u2069", "\\u200e",
        "\\u200f", "\\u061c", "\\u202a", "\\u202b", "\\u202c", "\\u202d",
    };
    for (size_t i = 0; i < sizeof bidi / sizeof *bidi; i++) {
        char input[32], expected[32];
        snprintf(input, sizeof input, "a%sb", bidi[i]);
        snprintf(expected, sizeof expected, "\"a%sb\"", escaped[i]);
        char *text = json_string(input);
        assert_string_equal(text, expected);
        free(text);
    }
    /* In a whole report: the allocator id, the host and the file name. */
    struct test_draft *draft = test_draft_new();
    assert_true(profile_builder_set_source(&draft->builder, "run/\xe2\x80\xaelmth.pb",
                                           PROFILE_FORMAT_PROTOBUF, false, 0));
    assert_non_null(xprof_draft_allocator(&draft->draft, "gpu\xe2\x81\xa6x", 7));
    struct profile *profile = test_draft_finish(draft);
    char *text = capture(summary_report_json, profile, "host\xe2\x80\x8f");
    assert_null(strstr(text, "\xe2\x80"));
    assert_null(strstr(text, "\xe2\x81"));
    assert_non_null(strstr(text, "\"host\":\"host\\u200f\""));
    assert_non_null(strstr(text, "\"file\":\"run/\\u202elmth.pb\""));
    assert_non_null(strstr(text, "\"id\":\"gpu\\u2066x\""));
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    assert_string_equal(cJSON_GetObjectItem(root, "host")->valuestring, "host\xe2\x80\x8f");
    cJSON_Delete(root);
    free(text);
    /* The text report escapes the same ones. */
    text = capture(summary_report_text, profile, "host\xe2\x80\x8f");
    assert_null(strstr(text, "\xe2\x80\xae"));
    assert_non_null(strstr(text, "run/\\u{202e}lmth.pb"));
    assert_non_null(strstr(text, "host\\u{200f}"));
    free(text);
    profile_free(profile);
}

/* The value printed after a label, blanks skipped. */
static void assert_field(const char *text, const char *label, const char *value)
{
    const char *at = strstr(text, label);
    assert_non_null(at);
    at += strlen(label);
    while (*at == ' ')
        at++;
    assert_true(strncmp(at, value, strlen(value)) == 0);
}

static void test_text_report_for_people(void **state)
{
    (void)state;
    struct profile *profile = sample_profile();
    char *text = capture(summary_report_text, profile, NULL);
    assert_non_null(strstr(text, "run/host-7.memory_profile.json.gz: JSON, version 1, 2 allocators"));
    assert_non_null(strstr(text, "\nGPU_0_bfc\n"));
    assert_field(text, "Memory capacity", "16.00 GiB\n");
    assert_field(text, "Peak memory usage", "13.75 GiB\n");
    assert_field(text, "Stack reservation", "64.00 KiB\n");
    assert_field(text, "Fragmentation", "12.50 %\n");
    assert_field(text, "Allocations", "3\n");
    assert_field(text, "Deallocations", "1\n");
    assert_non_null(strstr(text, "Active allocations at peak: 3 rows"));
    assert_non_null(strstr(text, "(unresolved: snapshot 7"));
    /* Largest first: the 8 KiB row (second in the file) before the 4 KiB one. */
    const char *larger = strstr(text, "8.00 KiB  x2"), *smaller = strstr(text, "4.00 KiB  x1");
    assert_non_null(larger);
    assert_non_null(smaller);
    assert_true(larger < smaller);
    /* No raw escape reaches the terminal. */
    assert_null(strchr(text, '\x1b'));
    assert_non_null(strstr(text, "evil\\x1b[2J\"op\""));
    assert_non_null(strstr(text, "(computed: the file has no summary)"));
    assert_non_null(strstr(text, "(XProf's sample: the counts below are of it)"));
    free(text);
    profile_free(profile);
}

/* An allocator whose file says nothing of its capacity (0). */
static struct profile *profile_without_capacity(void)
{
    struct test_draft *draft = test_draft_new();
    assert_true(profile_builder_set_source(&draft->builder, "tpu.pb", PROFILE_FORMAT_PROTOBUF,
                                           false, 0));
    struct xprof_allocator *tpu = xprof_draft_allocator(&draft->draft, "tpu", 1);
    struct snapshot snapshot = test_snapshot(5, 100);
    assert_true(snapshot_columns_append(&tpu->snapshots, &snapshot));
    struct memory_stats peak = {.heap_bytes = 100};
    xprof_allocator_set_summary(tpu, 0, 100, &peak, 5);
    return test_draft_finish(draft);
}

/* What the text report has, the JSON has too: the share of the
 * capacity (null when the file has none) and the largest rows at the
 * peak, as many as asked for, largest first, with every CSV column. */
static void test_json_utilization_and_top_rows(void **state)
{
    (void)state;
    struct profile *profile = sample_profile();
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    struct json_writer writer;
    json_writer_init(&writer, out);
    struct summary_report_options options = {.top_rows = 2};
    summary_report_json_to(&writer, profile, NULL, &options);
    fclose(out);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    cJSON *allocators = cJSON_GetObjectItem(root, "allocators");
    cJSON *gpu = cJSON_GetArrayItem(allocators, 0), *cpu = cJSON_GetArrayItem(allocators, 1);
    /* 14763950080 of 17179869184 bytes. */
    assert_float_equal(cJSON_GetObjectItem(gpu, "utilization")->valuedouble,
                       14763950080.0 / 17179869184.0, 1e-12);
    /* cpu's summary is computed: its capacity is what was in use and free. */
    assert_float_equal(cJSON_GetObjectItem(cpu, "utilization")->valuedouble, 1.0, 1e-12);
    cJSON *rows = cJSON_GetObjectItem(gpu, "top_rows");
    assert_int_equal(cJSON_GetArraySize(rows), 2);
    cJSON *first = cJSON_GetArrayItem(rows, 0);
    assert_int_equal(cJSON_GetObjectItem(first, "allocation_bytes")->valueint, 8192);
    assert_int_equal(cJSON_GetObjectItem(first, "occurrences")->valueint, 2);
    assert_string_equal(cJSON_GetObjectItem(first, "op_name")->valuestring, "evil\x1b[2J\"op\"");
    assert_string_equal(cJSON_GetObjectItem(first, "origin")->valuestring, "snapshot");
    assert_int_equal(cJSON_GetArraySize(first), ALLOCATION_COLUMN_COUNT);
    /* The third row points nowhere: its size is unknown, its op absent. */
    cJSON_Delete(root);
    free(text);

    text = NULL;
    out = open_memstream(&text, &size);
    json_writer_init(&writer, out);
    options.top_rows = 0;
    summary_report_json_to(&writer, profile, NULL, &options);
    fclose(out);
    assert_non_null(strstr(text, "\"top_rows\":[]"));
    free(text);
    /* The default lists them all here (three rows, fewer than 10). */
    text = capture(summary_report_json, profile, NULL);
    root = cJSON_Parse(text);
    gpu = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "allocators"), 0);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(gpu, "top_rows")), 3);
    cJSON_Delete(root);
    free(text);
    profile_free(profile);

    profile = profile_without_capacity();
    text = capture(summary_report_json, profile, NULL);
    assert_non_null(strstr(text, "\"capacity_bytes\":0,"));
    assert_non_null(strstr(text, "\"utilization\":null,"));
    free(text);
    profile_free(profile);
}

static void test_text_utilization_and_top(void **state)
{
    (void)state;
    struct profile *profile = sample_profile();
    char *text = capture(summary_report_text, profile, NULL);
    assert_field(text, "of capacity", "85.94 %\n");
    free(text);
    struct profile *unknown = profile_without_capacity();
    text = capture(summary_report_text, unknown, NULL);
    assert_field(text, "of capacity", "unknown\n");
    free(text);
    profile_free(unknown);
    text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    struct summary_report_options options = {.top_rows = 1};
    summary_report_text_with(out, profile, NULL, &options);
    fclose(out);
    assert_non_null(strstr(text, "Active allocations at peak: 3 rows, the largest:"));
    assert_non_null(strstr(text, "8.00 KiB  x2"));
    assert_null(strstr(text, "4.00 KiB  x1"));
    free(text);
    profile_free(profile);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_shape_and_exact_numbers),
        cmocka_unit_test(test_json_with_host),
        cmocka_unit_test(test_json_strings_always_valid),
        cmocka_unit_test(test_text_report_for_people),
        cmocka_unit_test(test_json_escapes_bidirectional_controls),
        cmocka_unit_test(test_json_utilization_and_top_rows),
        cmocka_unit_test(test_text_utilization_and_top),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
