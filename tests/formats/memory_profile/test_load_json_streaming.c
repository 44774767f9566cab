/* test_load_json_streaming: the streaming reader (tests/test_load_json):
 * errors where whole-text cJSON puts them, each byte read once with
 * progress, and a big profile that loads the same from JSON and protobuf. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "model/load.h"
#include "model/load_internal.h"
#include "model/profile.h"
#include "model/formats/memory_profile/xprof_draft.h"
#include "tests/test_support.h"
#include "tests/wire_builder.h"

#include "tests/formats/memory_profile/test_load_json.h"

/* ---- streaming ---- */

/* Where whole-text cJSON puts a syntax error (the reference the streaming
 * reader keeps to), or SIZE_MAX when the text is valid JSON. */
size_t whole_text_error(const char *bytes, size_t size)
{
    char *text = malloc(size + 1);
    assert_non_null(text);
    memcpy(text, bytes, size);
    text[size] = '\0';
    const char *end = NULL;
    cJSON *root = size ? cJSON_ParseWithLengthOpts(text, size, &end, false) : NULL;
    size_t offset = end ? (size_t)(end - text) : 0;
    if (root)
        while (offset < size && strchr(" \t\n\r", text[offset]) && text[offset])
            offset++;
    cJSON_Delete(root);
    free(text);
    return root && offset == size ? SIZE_MAX : offset;
}

/* The loader on `bytes` agrees with whole-text cJSON: the same offset for
 * a syntax error, unless a wrong value came first in the document (read
 * in order, it is then the error). Counts what it saw. */
void expect_like_whole_text(const char *bytes, size_t size, size_t *syntax,
                                   size_t *value_first)
{
    size_t expected = whole_text_error(bytes, size);
    struct test_draft *profile;
    struct load_error error;
    enum load_status status = load_bytes(bytes, size, &profile, &error);
    test_draft_free(profile);
    bool too_deep = status != LOAD_OK && strstr(error.message, "JSON nested deeper than ");
    bool invalid = status != LOAD_OK && (too_deep || strstr(error.message, ": invalid JSON"));
    if (expected == SIZE_MAX) {
        assert_false(invalid);
        return;
    }
    assert_int_equal(status, LOAD_BAD_INPUT);
    if (invalid) {
        char message[96];
        if (too_deep)
            snprintf(message, sizeof message,
                     "JSON nested deeper than 1000 levels at offset %zu", expected);
        else
            snprintf(message, sizeof message, "offset %zu: invalid JSON", expected);
        if (strcmp(error.message, message) != 0)
            print_error("%.*s\n", (int)size, bytes);
        assert_string_equal(error.message, message);
        (*syntax)++;
    } else {
        (*value_first)++;
    }
}

/* Cut short anywhere, or one byte changed anywhere: syntax errors land
 * where cJSON parsing the whole text puts them. */
void test_errors_where_whole_text_cjson_puts_them(void **state)
{
    (void)state;
    const char *documents[] = {
        "{\"memoryProfilePerAllocator\":{\"gpu\":{\"memoryProfileSnapshots\":[{\"timeOffsetPs\""
        ":\"5\",\"aggregationStats\":{\"heapAllocatedBytes\":\"1024\"},\"activityMetadata\":"
        "{\"memoryActivity\":\"ALLOCATION\",\"tfOpName\":\"o\\u0041\\\\\"}},{\"timeOffsetPs\":7}],"
        "\"activeAllocations\":[{\"snapshotIndex\":\"0\"}],\"profileSummary\":{\"memoryCapacity\""
        ":\"9\"},\"x\":[1,{\"y\":null}]},\"cpu\":{}},\"numHosts\":1,\"memoryIds\":[\"gpu\"],"
        "\"hloModules\":[{\"name\":\"m\"}]}",
        " [ {\"version\" : 1 , \"memoryProfilePerAllocator\" : { \"a\" : { "
        "\"sampledTimelineSnapshots\" : [ { } , { \"timeOffsetPs\" : \"1\" } ] } } } ]\n",
    };
    static const char replacements[] = "{}[],:\" \\\x01nt0-.ex";
    size_t syntax = 0, value_first = 0;
    for (size_t d = 0; d < sizeof documents / sizeof documents[0]; d++) {
        const char *document = documents[d];
        size_t size = strlen(document);
        expect_like_whole_text(document, size, &syntax, &value_first);
        for (size_t cut = 0; cut < size; cut++)
            expect_like_whole_text(document, cut, &syntax, &value_first);
        char *changed = malloc(size);
        assert_non_null(changed);
        for (size_t at = 0; at < size; at++) {
            for (size_t r = 0; r < sizeof replacements - 1; r++) {
                memcpy(changed, document, size);
                changed[at] = replacements[r];
                expect_like_whole_text(changed, size, &syntax, &value_first);
            }
        }
        free(changed);
    }
    /* The mutations above mostly break the syntax. */
    assert_true(syntax > 5 * value_first);
}

/* Nested past cJSON's limit inside a snapshot: an error at the offset
 * whole-text cJSON gives, never a crash; 999 levels deep is fine. */
void test_deep_nesting_inside_a_snapshot(void **state)
{
    (void)state;
    static const char prefix[] =
        "{\"memoryProfilePerAllocator\":{\"a\":{\"sampledTimelineSnapshots\":[{\"x\":";
    static const char suffix[] = "}]}}}";
    for (size_t depth = 990; depth <= 1000; depth += 5) {
        char *json = nested(depth, prefix, suffix, true);
        size_t syntax = 0, value_first = 0;
        expect_like_whole_text(json, strlen(json), &syntax, &value_first);
        /* The snapshot sits 5 deep: 995 more levels are the most cJSON takes. */
        assert_int_equal(syntax, depth + 5 > 1000 ? 1 : 0);
        free(json);
    }
    char *json = nested(100000, prefix, suffix, false);
    expect_too_deep(json, strlen(prefix) + 995);
    free(json);
}

/* Read in order, a wrong value before a syntax error is the error. */
void test_value_error_before_syntax_error(void **state)
{
    (void)state;
    expect_bad("{\"version\":\"x\",\"memoryIds\":[}",
               "version: expected a 32-bit integer, got \"x\"");
    expect_bad("{\"memoryIds\":[}", "offset 14: invalid JSON");
}

/* A big document: `count` snapshots of about 410 bytes. */
char *big_document(size_t count, size_t *size)
{
    static const char head[] = "{\"memoryProfilePerAllocator\":{\"GPU_0_bfc\":{"
                               "\"memoryProfileSnapshots\":[";
    static const char tail[] = "]}},\"version\":0}";
    size_t capacity = sizeof head + sizeof tail + count * 512;
    char *json = malloc(capacity);
    assert_non_null(json);
    size_t used = (size_t)snprintf(json, capacity, "%s", head);
    for (size_t i = 0; i < count; i++)
        used += (size_t)snprintf(
            json + used, capacity - used,
            "%s{\"timeOffsetPs\":\"%zu\",\"aggregationStats\":{\"stackReservedBytes\":\"64\","
            "\"heapAllocatedBytes\":\"%zu\",\"freeMemoryBytes\":\"1000\",\"fragmentation\":0.5,"
            "\"peakBytesInUse\":\"99999\"},\"activityMetadata\":{\"memoryActivity\":\"ALLOCATION\","
            "\"requestedBytes\":\"100\",\"allocationBytes\":\"128\",\"address\":\"%zu\","
            "\"tfOpName\":\"model/dense_%zu/MatMul\",\"stepId\":\"1\",\"regionType\":\"output\","
            "\"dataType\":\"float\",\"tensorShape\":\"[8,16]\"}}",
            i ? "," : "", 1000 * i, (i * 7919) % 100000, 4096 + 256 * i, i % 50);
    used += (size_t)snprintf(json + used, capacity - used, "%s", tail);
    *size = used;
    return json;
}

void make_unreadable(void *context, size_t from, size_t to)
{
    struct unreadable_pages *pages = context;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    assert_true(from <= to);
    assert_true(from <= pages->protected_bytes + page); /* ranges follow each other */
    size_t end = to - to % page;
    if (end > pages->protected_bytes) {
        assert_int_equal(mprotect(pages->base, end, PROT_NONE), 0);
        pages->protected_bytes = end;
    }
    pages->releases++;
}

void record_progress(void *context, uint64_t done, uint64_t total)
{
    struct progress_seen *seen = context;
    assert_true(done >= seen->last);
    assert_true(done <= total);
    seen->last = done;
    seen->total = total;
    seen->calls++;
}

/* The document is read once, front to back: with every released page
 * unreadable the load still succeeds, and progress only grows. */
void test_streaming_reads_each_byte_once(void **state)
{
    (void)state;
    size_t size;
    char *json = big_document(40000, &size);
    assert_true(size > 3 * LOAD_TRACKER_STEP);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t mapped = (size + page - 1) / page * page;
    uint8_t *base = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(base != MAP_FAILED);
    memcpy(base, json, size);
    free(json);

    struct unreadable_pages pages = {base, 0, 0};
    struct progress_seen seen = {0};
    struct load_options options = {.progress = record_progress, .progress_context = &seen};
    struct load_tracker tracker = {.options = &options, .total = size,
                                   .release = make_unreadable, .release_context = &pages};
    struct test_draft *profile = test_draft_new();
    struct load_error error;
    enum load_status status = load_json_tracked(base, size, &profile->draft, &tracker, &error);
    if (status != LOAD_OK)
        print_error("%s\n", error.message);
    assert_int_equal(status, LOAD_OK);
    assert_true(pages.releases >= 3);
    assert_true(pages.protected_bytes > size - 2 * LOAD_TRACKER_STEP);
    assert_true(seen.calls >= 3);
    assert_int_equal(seen.total, size);

    const struct snapshot_columns *snapshots = &profile->draft.allocators[0].snapshots;
    assert_int_equal(snapshots->count, 40000);
    assert_int_equal(snapshot_columns_time(snapshots, 39999), 39999000);
    assert_int_equal(snapshots->heap_bytes[12345], (12345 * 7919) % 100000);
    assert_string_equal(text(profile, snapshots->op_name[39999]), "model/dense_49/MatMul");
    test_draft_free(profile);
    munmap(base, mapped);
}

/* ---- a big profile in both forms ---- */

/* Snapshot i of the big profile: strings shared all along (op names) and
 * strings first seen late (shapes), new and known ones all the way. */
void big_snapshot_strings(size_t i, char *op, char *shape)
{
    snprintf(op, 32, "op%zu", i % 300);
    snprintf(shape, 32, "[%zu]", i / 7);
}

/* The same `count` snapshots as binary protobuf. */
struct wire_bytes big_protobuf(size_t count)
{
    struct wire_bytes value = {0}, entry = {0}, profile = {0};
    for (size_t i = 0; i < count; i++) {
        char op[32], shape[32];
        big_snapshot_strings(i, op, shape);
        struct wire_bytes snapshot = {0}, stats = {0}, metadata = {0};
        wire_bytes_put_varint_field(&stats, 2, 1000 + i % 977);
        wire_bytes_put_varint_field(&metadata, 1, MEMORY_ACTIVITY_ALLOCATION);
        wire_bytes_put_string_field(&metadata, 5, op);
        wire_bytes_put_string_field(&metadata, 9, shape);
        wire_bytes_put_varint_field(&snapshot, 1, 10 * i);
        wire_bytes_put_message_field(&snapshot, 2, &stats);
        wire_bytes_put_message_field(&snapshot, 3, &metadata);
        wire_bytes_put_message_field(&value, 1, &snapshot);
        wire_bytes_free(&snapshot);
        wire_bytes_free(&stats);
        wire_bytes_free(&metadata);
    }
    /* After the snapshots, as protobuf-c writes them: one active allocation. */
    wire_bytes_put_length_field(&value, 3, "\x08\x05", 2); /* {snapshot_index: 5} */
    wire_bytes_put_string_field(&entry, 1, "GPU_0_bfc");
    wire_bytes_put_message_field(&entry, 2, &value);
    wire_bytes_put_message_field(&profile, 1, &entry);
    wire_bytes_put_varint_field(&profile, 5, 0);
    wire_bytes_free(&value);
    wire_bytes_free(&entry);
    return profile;
}

/* ... and as proto3 JSON. */
char *big_json(size_t count, size_t *size)
{
    struct wire_bytes json = {0};
    static const char head[] = "{\"memoryProfilePerAllocator\":{\"GPU_0_bfc\":{"
                               "\"memoryProfileSnapshots\":[";
    wire_bytes_put_data(&json, head, sizeof head - 1);
    for (size_t i = 0; i < count; i++) {
        char op[32], shape[32], text[256];
        big_snapshot_strings(i, op, shape);
        int length = snprintf(text, sizeof text,
                              "%s{\"timeOffsetPs\":\"%zu\",\"aggregationStats\":{\"heapAllocatedBytes\""
                              ":\"%zu\"},\"activityMetadata\":{\"memoryActivity\":\"ALLOCATION\","
                              "\"tfOpName\":\"%s\",\"tensorShape\":\"%s\"}}",
                              i ? "," : "", 10 * i, 1000 + i % 977, op, shape);
        wire_bytes_put_data(&json, text, (size_t)length);
    }
    static const char tail[] = "],\"activeAllocations\":[{\"snapshotIndex\":\"5\"}]}},"
                               "\"version\":0}";
    wire_bytes_put_data(&json, tail, sizeof tail); /* with the NUL, not counted */
    *size = json.size - 1;
    return (char *)json.data;
}

/* A big profile, streamed from JSON one snapshot at a time, reads the same
 * as from binary protobuf (strings compared as text), and the binary
 * loader's progress only grows. */
void test_big_profile_same_from_json_and_protobuf(void **state)
{
    (void)state;
    enum { COUNT = 140000 };
    size_t json_size;
    char *json = big_json(COUNT, &json_size);
    struct test_draft *json_draft;
    struct load_error error;
    assert_int_equal(load_bytes(json, json_size, &json_draft, &error), LOAD_OK);
    free(json);
    struct profile *from_json = test_draft_finish(json_draft);

    struct wire_bytes protobuf = big_protobuf(COUNT);
    struct test_draft *protobuf_draft = test_draft_new();
    struct progress_seen seen = {0};
    struct load_options options = {.progress = record_progress, .progress_context = &seen};
    struct load_tracker tracker = {.options = &options, .total = protobuf.size};
    enum load_status status =
        load_protobuf_tracked(protobuf.data, protobuf.size, &protobuf_draft->draft, &tracker,
                              &error);
    if (status != LOAD_OK)
        print_error("%s\n", error.message);
    assert_int_equal(status, LOAD_OK);
    assert_true(seen.calls >= 1);
    wire_bytes_free(&protobuf);
    struct profile *from_protobuf = test_draft_finish(protobuf_draft);

    assert_int_equal(from_json->allocators[0].timeline.count, COUNT);
    const struct snapshot_columns *timeline = &from_protobuf->allocators[0].timeline;
    assert_string_equal(profile_text(from_protobuf, timeline->tensor_shape[COUNT - 1]),
                        "[19999]");
    assert_string_equal(profile_text(from_protobuf, timeline->op_name[COUNT - 1]), "op199");
    assert_int_equal(test_xprof_count(&from_protobuf->allocators[0]), 1);
    test_assert_profiles_equal(from_json, from_protobuf);
    profile_free(from_json);
    profile_free(from_protobuf);
}
