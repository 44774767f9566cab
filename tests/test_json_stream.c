/* json_stream on its own: walking a document's members and elements one
 * at a time, handing a value to cJSON or its bytes to the caller, and what
 * a caller may ask to tolerate (a trace writer's array never closed), as
 * a Chrome trace importer will use them. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/decode/json_stream.h"

/* What the walks below saw: one line per value. */
struct seen {
    char text[512];
    size_t used;
    bool spans; /* elements as bytes (json_stream_value_span), not cJSON */
};

/* Appends text[length] and then `end` ('=', ';' or ':'). */
static void seen_add(struct seen *seen, const char *text, size_t length, char end)
{
    int wrote = snprintf(seen->text + seen->used, sizeof seen->text - seen->used, "%.*s%c",
                         (int)length, text, end);
    assert_true(wrote > 0 && (size_t)wrote < sizeof seen->text - seen->used);
    seen->used += (size_t)wrote;
}

static enum load_status each_element(const struct json_stream *stream, void *context,
                                     const struct json_path *path, size_t *offset, size_t depth)
{
    struct seen *seen = context;
    char where[32];
    snprintf(where, sizeof where, "[%zu]", path->index);
    seen_add(seen, where, strlen(where), '=');
    if (seen->spans) {
        size_t start, end;
        enum load_status status = json_stream_value_span(stream, offset, depth, &start, &end);
        if (status == LOAD_OK)
            seen_add(seen, stream->text + start, end - start, ';');
        return status;
    }
    cJSON *item;
    enum load_status status = json_stream_parse_value(stream, offset, depth, &item);
    if (status != LOAD_OK)
        return status;
    char *printed = cJSON_PrintUnformatted(item);
    assert_non_null(printed);
    seen_add(seen, printed, strlen(printed), ';');
    free(printed);
    cJSON_Delete(item);
    return LOAD_OK;
}

static enum load_status each_member(const struct json_stream *stream, void *context,
                                    const char *key, const struct json_path *path, size_t *offset,
                                    size_t depth)
{
    seen_add(context, key, strlen(key), ':');
    if (json_stream_at(stream, *offset, '['))
        return json_stream_array(stream, offset, depth, path, each_element, context);
    cJSON *item;
    enum load_status status = json_stream_member_value(stream, offset, depth, key, &item);
    if (status == LOAD_OK)
        seen_add(context, item->string, strlen(item->string), ';');
    cJSON_Delete(item);
    return status;
}

/* Walks `text` (an object or an array at the top) as asked. */
static enum load_status walk(const char *text, unsigned tolerate, struct seen *seen,
                             struct load_error *error)
{
    struct json_stream stream;
    json_stream_init(&stream, (const uint8_t *)text, strlen(text), error, NULL);
    stream.tolerate = tolerate;
    size_t offset = json_stream_start(&stream);
    enum load_status status =
        json_stream_at(&stream, offset, '{')
            ? json_stream_object(&stream, &offset, 0, NULL, each_member, seen)
            : json_stream_array(&stream, &offset, 0, NULL, each_element, seen);
    return status == LOAD_OK ? json_stream_finish(&stream, offset) : status;
}

static void expect_walk(const char *text, unsigned tolerate, bool spans, const char *expected)
{
    struct seen seen = {.used = 0, .spans = spans};
    struct load_error error = {0};
    enum load_status status = walk(text, tolerate, &seen, &error);
    if (status != LOAD_OK)
        fail_msg("%s: %s", text, error.message);
    assert_string_equal(seen.text, expected);
}

static void expect_refused(const char *text, unsigned tolerate, const char *message)
{
    struct seen seen = {.used = 0, .spans = false};
    struct load_error error = {0};
    assert_int_equal(walk(text, tolerate, &seen, &error), LOAD_BAD_INPUT);
    assert_string_equal(error.message, message);
}

static void test_elements_one_at_a_time(void **state)
{
    (void)state;
    expect_walk(" [{\"a\":1}, [2,3] ,\"s\",12.5,true,null] \n", 0, false,
                "[0]={\"a\":1};[1]=[2,3];[2]=\"s\";[3]=12.5;[4]=true;[5]=null;");
    expect_walk("{\"x\":1,\"events\":[{\"ph\":\"B\"},{\"ph\":\"E\"}],\"y\":\"z\"}", 0, false,
                "x:x;events:[0]={\"ph\":\"B\"};[1]={\"ph\":\"E\"};y:y;");
    expect_walk("[]", 0, false, "");
}

/* A caller that reads a value's bytes itself gets exactly them. */
static void test_spans_for_a_caller_that_reads_bytes(void **state)
{
    (void)state;
    expect_walk("[{\"a\":\"]}\\\"\"} ,[[1],{}], \"x\\\\\" ,-0.5e3,false]", 0, true,
                "[0]={\"a\":\"]}\\\"\"};[1]=[[1],{}];[2]=\"x\\\\\";[3]=-0.5e3;[4]=false;");
    /* Brackets that do not match fail where cJSON says. */
    struct seen seen = {.used = 0, .spans = true};
    struct load_error error = {0};
    assert_int_equal(walk("[{\"a\":[1}]", 0, &seen, &error), LOAD_BAD_INPUT);
    assert_string_equal(error.message, "offset 8: invalid JSON");
}

/* Trace writers may stop without closing their array: tolerated only when
 * asked, and only after a whole element. */
static void test_unterminated_only_when_tolerated(void **state)
{
    (void)state;
    const unsigned tolerate = JSON_STREAM_TOLERATE_UNTERMINATED;
    expect_walk("[{\"a\":1},{\"b\":2},\n", tolerate, false, "[0]={\"a\":1};[1]={\"b\":2};");
    expect_walk("[{\"a\":1}  ", tolerate, false, "[0]={\"a\":1};");
    expect_walk("[", tolerate, false, "");
    expect_walk("{\"traceEvents\":[{\"ph\":\"X\"},", tolerate, false,
                "traceEvents:[0]={\"ph\":\"X\"};");
    expect_walk("[1,2]", tolerate, false, "[0]=1;[1]=2;");
    expect_refused("[{\"a\":1},{\"b\":2},\n", 0, "offset 17: invalid JSON");
    expect_refused("[{\"a\":1}", 0, "offset 7: invalid JSON");
    /* Inside an element the text may not stop. */
    expect_refused("[{\"a\":1},{\"b\":", tolerate, "offset 13: invalid JSON");
    expect_refused("[1,2] x", tolerate, "offset 6: invalid JSON");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_elements_one_at_a_time),
        cmocka_unit_test(test_spans_for_a_caller_that_reads_bytes),
        cmocka_unit_test(test_unterminated_only_when_tolerated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
