/* The Chrome-trace importer, PyTorch side and what both producers share:
 * values read from their text (times to integer ns, strings with every
 * escape), the probe that tells a trace from a MemoryProfile JSON, the
 * containers (bare, cut short, trailing commas, gzip), attribution
 * (nesting, equal times, events outside any op, the autograd thread,
 * frees), steps by time window, devices, out-of-memory warnings, rows at
 * the peak, hostile strings, refusals. timeline.py traces are in
 * test_load_trace_timeline.c. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/query/allocation_columns.h"
#include "model/input_format.h"
#include "model/load.h"
#include "model/formats/chrome_trace/chrome_trace_internal.h"
#include "report/summary_report.h"
#include "tests/test_support.h"

extern const struct input_format chrome_trace_format;

/* ---- helpers ---- */

static struct profile *load_text(const char *text, enum load_status want,
                                 struct load_error *error)
{
    struct load_error unused;
    struct profile *profile = NULL;
    enum load_status status = profile_load_bytes((const uint8_t *)text, strlen(text), "t.json",
                                                 NULL, &profile, error ? error : &unused);
    if (status != want)
        print_message("# load: %s\n", (error ? error : &unused)->message);
    assert_int_equal(status, want);
    return profile;
}

static const struct allocator *allocator_named(const struct profile *profile, const char *id)
{
    long index = profile_find_allocator(profile, text_of(id));
    assert_true(index >= 0);
    return &profile->allocators[index];
}

static const char *op_at(const struct profile *profile, const struct allocator *allocator,
                         size_t i)
{
    return profile_text(profile, allocator->timeline.op_name[i]);
}

static const char *context_at(const struct profile *profile, const struct allocator *allocator,
                              size_t i)
{
    assert_non_null(allocator->timeline.context);
    return profile_text(profile, allocator->timeline.context[i]);
}

/* A [memory] event of cuda:0 on thread `tid` at `ts` (text). */
#define MEMORY(ts, tid, address, bytes, total)                                               \
    "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\","        \
    "\"pid\":7,\"tid\":" #tid ",\"ts\":" ts ",\"args\":{\"Total Reserved\":1000,"           \
    "\"Total Allocated\":" #total ",\"Bytes\":" #bytes ",\"Device Id\":0,\"Device Type\":1," \
    "\"Addr\":" #address ",\"finished\":false}}"
#define SLICE(category, name, ts, dur, tid)                                                  \
    "{\"ph\":\"X\",\"cat\":\"" category "\",\"name\":\"" name "\",\"pid\":7,\"tid\":" #tid \
    ",\"ts\":" ts ",\"dur\":" dur ",\"args\":{\"External id\":1}}"
#define OP(name, ts, dur, tid) SLICE("cpu_op", name, ts, dur, tid)

/* ---- values from their text ---- */

static void assert_scaled(const char *text, unsigned decimals, bool ok, int64_t want)
{
    int64_t got = 12345;
    assert_int_equal(trace_text_scaled(text, strlen(text), decimals, &got), ok);
    if (ok)
        assert_int_equal(got, want);
}

static void test_times_from_text(void **state)
{
    (void)state;
    assert_scaled("4558953775102.743", 3, true, INT64_C(4558953775102743)); /* relative */
    assert_scaled("1795000000123456", 3, true, INT64_C(1795000000123456000)); /* absolute */
    assert_scaled("1.5", 3, true, 1500);
    assert_scaled("-7", 3, true, -7000);
    assert_scaled("0.0005", 3, true, 1); /* half a ns rounds away from zero */
    assert_scaled("-0.0005", 3, true, -1);
    assert_scaled("0.00049", 3, true, 0);
    assert_scaled("1e3", 3, true, 1000000);
    assert_scaled("1.23456E2", 3, true, 123456);
    assert_scaled("12.3456789", 3, true, 12346);
    assert_scaled("0.000000000000000000000001", 3, true, 0);
    assert_scaled("99999999999999999999", 3, false, 0); /* past int64 */
    assert_scaled("9223372036854775807", 0, true, INT64_MAX);
    assert_scaled("-9223372036854775808", 0, true, INT64_MIN);
    assert_scaled("", 3, false, 0);
    assert_scaled("abc", 3, false, 0);
    assert_scaled("1.2.3", 3, false, 0);
    assert_scaled("1e", 3, false, 0);
}

static void test_strings_and_numbers(void **state)
{
    (void)state;
    const char text[] = "[\"a\\u00e9\\ud83d\\ude00\\udc80\\n\\\"\\\\\\/\\x\x01\xff\", 12, "
                        "-3, 1.5, \"42\", 1e2, 18446744073709551615]";
    struct load_error error;
    struct trace_reader reader = {text, sizeof text - 1, &error, NULL, 0};
    size_t at = 1, start = at;
    assert_int_equal(trace_skip_value(&reader, &at, 1), LOAD_OK);
    const char *decoded;
    size_t length;
    assert_true(trace_value_text(&reader, (struct trace_value){start, at}, &decoded, &length,
                                 NULL));
    /* é, U+1F600 from its surrogate pair, a lone surrogate as WTF-8, the
     * simple escapes, an unknown escape kept, raw bytes kept. */
    const char want[] = "a\xc3\xa9\xf0\x9f\x98\x80\xed\xb2\x80\n\"\\/\\x\x01\xff";
    assert_int_equal(length, sizeof want - 1);
    assert_memory_equal(decoded, want, length);
    int64_t number;
    uint64_t unsigned_number;
    struct trace_value values[6];
    for (size_t i = 0; i < 6; i++) {
        at += 2;
        start = at;
        assert_int_equal(trace_skip_value(&reader, &at, 1), LOAD_OK);
        values[i] = (struct trace_value){start, at};
    }
    assert_true(trace_value_integer(&reader, values[0], &number) && number == 12);
    assert_true(trace_value_integer(&reader, values[1], &number) && number == -3);
    assert_false(trace_value_integer(&reader, values[2], &number)); /* 1.5 */
    assert_true(trace_value_integer(&reader, values[3], &number) && number == 42);
    assert_true(trace_value_integer(&reader, values[4], &number) && number == 100);
    assert_false(trace_value_integer(&reader, values[5], &number));
    assert_true(trace_value_unsigned(&reader, values[5], &unsigned_number));
    assert_true(unsigned_number == UINT64_MAX);
    free(reader.scratch);
}

/* ---- the probe ---- */

static const struct input_format *detect(const char *text)
{
    return input_format_detect((const uint8_t *)text, strlen(text), false);
}

static void test_probe_tells_traces_from_memory_profiles(void **state)
{
    (void)state;
    const struct input_format *json = PROFILE_FORMAT_JSON, *trace = &chrome_trace_format;
    assert_ptr_equal(detect("{\"traceEvents\":[]}"), trace);
    assert_ptr_equal(detect("\xef\xbb\xbf {\"schemaVersion\":1,\"deviceProperties\":[{\"id\":0}],"
                            "\"traceEvents\":["),
                     trace);
    assert_ptr_equal(detect("[{\"name\":\"x\",\"ph\":\"X\"}"), trace);
    assert_ptr_equal(detect("[\n  {\"ph\": \"M\"},"), trace);
    assert_ptr_equal(detect("{\"memoryProfilePerAllocator\":{},\"traceEvents\":[]}"), json);
    assert_ptr_equal(detect("{\"numHosts\":1}"), json);
    assert_ptr_equal(detect("[{\"memoryProfilePerAllocator\":{}}]"), json);
    assert_ptr_equal(detect("{}"), json);
    assert_ptr_equal(detect("[]"), json);
}

/* ---- containers ---- */

#define TWO_EVENTS MEMORY("10.0", 1, 4096, 512, 512) "," MEMORY("12.5", 1, 4096, -512, 0)

static void assert_two_events(const char *text, size_t warnings)
{
    struct profile *profile = load_text(text, LOAD_OK, NULL);
    const struct allocator *cuda = allocator_named(profile, "cuda:0");
    assert_int_equal(cuda->timeline.count, 2);
    assert_int_equal(snapshot_columns_time(&cuda->timeline, 1), 2500000);
    assert_int_equal(profile->warning_count, warnings);
    profile_free(profile);
}

static void test_containers_and_broken_endings(void **state)
{
    (void)state;
    assert_two_events("{\"traceEvents\":[" TWO_EVENTS "],\"traceName\":\"x\"}", 0);
    assert_two_events("[" TWO_EVENTS "]", 0);
    assert_two_events("[" TWO_EVENTS, 0);              /* unterminated */
    assert_two_events("[" TWO_EVENTS ",\n", 0);        /* and a comma */
    assert_two_events("[" TWO_EVENTS ",\n]", 0);       /* a comma before ] */
    assert_two_events("[" TWO_EVENTS ",{}]", 0);       /* JAX's empty last event */
    assert_two_events("[" TWO_EVENTS ",1,\"x\",[]]", 0); /* not events: skipped */
    /* An object cut short loads, and says so. */
    assert_two_events("{\"traceEvents\":[" TWO_EVENTS ",", 1);
    const char *plain = "[" TWO_EVENTS "]";
    size_t size;
    uint8_t *gzipped = test_gzip_bytes(plain, strlen(plain), &size);
    struct profile *profile = NULL;
    struct load_error error;
    assert_int_equal(profile_load_bytes(gzipped, size, "t.json.gz", NULL, &profile, &error),
                     LOAD_OK);
    assert_true(profile->gzipped);
    assert_ptr_equal(profile->format, &chrome_trace_format);
    profile_free(profile);
    free(gzipped);
}

static void test_refusals(void **state)
{
    (void)state;
    struct load_error error;
    load_text("{\"traceEvents\":[" SLICE("python_function", "f", "1", "2", 1) "]}",
              LOAD_BAD_INPUT, &error);
    assert_string_equal(error.message,
                        "no memory events in this trace (PyTorch: profile_memory=True; "
                        "TensorFlow timeline: show_memory=True)");
    load_text("{\"traceEvents\":5}", LOAD_BAD_INPUT, &error);
    assert_non_null(strstr(error.message, "no memory events"));
    load_text("[" MEMORY("1", 1, 1, 1, 1) ",{\"ph\":\"i\",\"args\":{\"a\":[}}]", LOAD_BAD_INPUT,
              &error);
    assert_true(error.has_offset);
    assert_non_null(strstr(error.message, "invalid JSON"));
    load_text("{\"traceEvents\":[" MEMORY("1", 1, 1, 1, 1) "]} x", LOAD_BAD_INPUT, &error);
    load_text("{\"memtop\":{\"version\":99},\"traceEvents\":[]}", LOAD_BAD_INPUT, &error);
    assert_non_null(strstr(error.message, "another version"));
}

/* ---- attribution ---- */

/* Main thread 1: ProfilerStep#7 [0,100) > linear [0,10) > addmm [1,4) >
 * empty [2,2.5); the autograd thread 2: mm [30,40). */
static const char attribution_trace[] =
    "{\"traceEvents\":["
    SLICE("user_annotation", "ProfilerStep#7", "0", "100", 1) ","
    OP("aten::linear", "0", "10", 1) "," OP("aten::addmm", "1", "3", 1) ","
    OP("aten::empty", "2", "0.5", 1) "," OP("aten::mm", "30", "10", 2) ","
    SLICE("python_function", "f", "0", "1000", 1) ","
    MEMORY("2.200", 1, 100, 512, 10512) ","   /* 0: inside empty */
    MEMORY("1.000", 1, 200, 1024, 11536) ","  /* 1: at addmm's start: addmm */
    MEMORY("10.000", 1, 300, 2048, 13584) "," /* 2: at linear's end: outside it */
    MEMORY("35", 2, 400, 4096, 17680) ","     /* 3: autograd thread, in mm, step 7 */
    MEMORY("36", 2, 999, -512, 17168) ","     /* 4: a free of an unseen block */
    MEMORY("50", 1, 500, 64, 17232) ","       /* 5, 6: equal times, file order */
    MEMORY("50", 1, 500, -64, 17168) ","
    MEMORY("200", 1, 100, -512, 16656) "]}"; /* 7: outside all: takes 0's op */

static void test_attribution(void **state)
{
    (void)state;
    struct profile *profile = load_text(attribution_trace, LOAD_OK, NULL);
    const struct allocator *cuda = allocator_named(profile, "cuda:0");
    const struct snapshot_columns *timeline = &cuda->timeline;
    assert_int_equal(timeline->count, 8);
    /* Sorted by time: 1.0, 2.2, 10, 35, 36, 50, 50, 200. */
    assert_string_equal(op_at(profile, cuda, 0), "aten::addmm");
    assert_string_equal(context_at(profile, cuda, 0),
                        "ProfilerStep#7 > aten::linear > aten::addmm");
    assert_string_equal(op_at(profile, cuda, 1), "aten::empty");
    assert_string_equal(context_at(profile, cuda, 1),
                        "ProfilerStep#7 > aten::linear > aten::addmm > aten::empty");
    assert_string_equal(op_at(profile, cuda, 2), "");
    assert_string_equal(context_at(profile, cuda, 2), "ProfilerStep#7");
    assert_string_equal(op_at(profile, cuda, 3), "aten::mm");
    assert_string_equal(context_at(profile, cuda, 3), "aten::mm");
    assert_string_equal(op_at(profile, cuda, 4), "aten::mm");
    assert_int_equal(timeline->activity[4], MEMORY_ACTIVITY_DEALLOCATION);
    assert_int_equal(timeline->activity[5], MEMORY_ACTIVITY_ALLOCATION);
    assert_int_equal(timeline->activity[6], MEMORY_ACTIVITY_DEALLOCATION);
    assert_string_equal(op_at(profile, cuda, 7), "aten::empty");
    assert_string_equal(context_at(profile, cuda, 7),
                        "ProfilerStep#7 > aten::linear > aten::addmm > aten::empty");
    /* Steps by time window, any thread of the pid. */
    const int64_t steps[] = {7, 7, 7, 7, 7, 7, 7, -1};
    for (size_t i = 0; i < 8; i++)
        assert_int_equal(timeline->step_id[i], steps[i]);
    /* Times: ps after the earliest event (ts 0). */
    assert_int_equal(snapshot_columns_time(timeline, 1), 2200000);
    assert_int_equal(timeline->heap_bytes[1], 10512);
    assert_int_equal(timeline->free_bytes[1], 0); /* 1000 reserved < 10512 allocated */
    profile_free(profile);
}

/* Issue 22: with record_shapes=True a cpu_op carries its inputs' dims
 * and types; the memory it allocates (directly, or inside a user
 * annotation within it) takes them as shape and type, a free its
 * allocation's, and an op without them gives none. */
#define SHAPED_OP(name, ts, dur, dims, types)                                                \
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" name "\",\"pid\":7,\"tid\":1,"          \
    "\"ts\":" ts ",\"dur\":" dur ",\"args\":{\"External id\":1,\"Input type\": " types     \
    ", \"Input Strides\": [[10, 1]], \"Input Dims\": " dims ",\"Ev Idx\":1}}"
static const char shaped_trace[] =
    "{\"traceEvents\":["
    SHAPED_OP("aten::mm", "0", "10", "[[256, 10],\n [10, 4]]", "[\"float\", \"float\"]") ","
    SLICE("user_annotation", "inner", "1", "2", 1) ","
    SHAPED_OP("aten::nll_loss", "20", "10", "[[], [256]]", "[\"float\", \"long int\", \"Scalar\"]") ","
    SHAPED_OP("aten::empty", "40", "10", "[[], []]", "[\"ScalarList\"]") ","
    MEMORY("2", 1, 100, 512, 512) ","   /* 0: in the annotation inside mm */
    MEMORY("21", 1, 200, 1024, 1536) "," /* 1: in nll_loss */
    MEMORY("41", 1, 300, 64, 1600) ","  /* 2: in an op with dims but no number */
    MEMORY("60", 1, 100, -512, 1088) "]}"; /* 3: a free, after every op */

static void test_input_shapes(void **state)
{
    (void)state;
    struct profile *profile = load_text(shaped_trace, LOAD_OK, NULL);
    const struct allocator *cuda = allocator_named(profile, "cuda:0");
    const struct snapshot_columns *timeline = &cuda->timeline;
    assert_int_equal(timeline->count, 4);
    assert_string_equal(profile_text(profile, timeline->tensor_shape[0]), "[[256, 10], [10, 4]]");
    assert_string_equal(profile_text(profile, timeline->data_type[0]), "float, float");
    assert_string_equal(profile_text(profile, timeline->tensor_shape[1]), "[[], [256]]");
    assert_string_equal(profile_text(profile, timeline->data_type[1]), "float, long int, Scalar");
    assert_string_equal(profile_text(profile, timeline->tensor_shape[2]), "");
    assert_string_equal(profile_text(profile, timeline->tensor_shape[3]), "[[256, 10], [10, 4]]");
    /* Recorded: the table shows the shape; the type list is no tensor's
     * type (no column, no breakdown); region stays unknown. */
    assert_true(allocator_records(cuda, ALLOCATOR_FIELD_TENSOR_SHAPE));
    assert_false(allocator_records(cuda, ALLOCATOR_FIELD_DATA_TYPE));
    assert_false(allocator_records(cuda, ALLOCATOR_FIELD_REGION));
    profile_free(profile);
}

/* Issue 26.2: ops nested deeper than 64 levels: a context keeps the
 * outermost 32 and innermost 32 names and counts those between, so that
 * contexts grow with the file, not with the square of the nesting. */
static void test_deep_nesting_contexts(void **state)
{
    (void)state;
    enum { DEPTH = 100 };
    size_t size = 200 * DEPTH + 1024, used = 0;
    char *text = malloc(size);
    assert_non_null(text);
    used += (size_t)snprintf(text + used, size - used, "{\"traceEvents\":[");
    for (int i = 0; i < DEPTH; i++) {
        char name[16], ts[16], dur[16];
        snprintf(name, sizeof name, "op%d", i);
        snprintf(ts, sizeof ts, "%d", 10 * i);
        snprintf(dur, sizeof dur, "%d", 10 * (2 * DEPTH - 2 * i));
        used += (size_t)snprintf(text + used, size - used,
                                 "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"pid\":7,"
                                 "\"tid\":1,\"ts\":%s,\"dur\":%s},",
                                 name, ts, dur);
    }
    /* Inside 64 levels (op63 starts at 630), 65, and all 100. */
    used += (size_t)snprintf(text + used, size - used, "%s,%s,%s]}",
                             MEMORY("635", 1, 4096, 8, 8), MEMORY("645", 1, 8192, 8, 16),
                             MEMORY("995", 1, 12288, 8, 24));
    assert_true(used < size);
    struct profile *profile = load_text(text, LOAD_OK, NULL);
    free(text);
    const struct allocator *cuda = allocator_named(profile, "cuda:0");
    char want[2048];
    size_t at = 0;
    for (int i = 0; i < 64; i++)
        at += (size_t)snprintf(want + at, sizeof want - at, "%sop%d", i ? " > " : "", i);
    assert_string_equal(context_at(profile, cuda, 0), want);
    assert_string_equal(op_at(profile, cuda, 0), "op63");
    at = 0;
    for (int i = 0; i < 32; i++)
        at += (size_t)snprintf(want + at, sizeof want - at, "op%d > ", i);
    char head[2048];
    snprintf(head, sizeof head, "%s", want);
    snprintf(want + at, sizeof want - at, "\xe2\x80\xa6 1 levels \xe2\x80\xa6");
    at = strlen(want);
    for (int i = 33; i < 65; i++)
        at += (size_t)snprintf(want + at, sizeof want - at, " > op%d", i);
    assert_string_equal(context_at(profile, cuda, 1), want);
    at = (size_t)snprintf(want, sizeof want, "%s\xe2\x80\xa6 36 levels \xe2\x80\xa6", head);
    for (int i = 68; i < 100; i++)
        at += (size_t)snprintf(want + at, sizeof want - at, " > op%d", i);
    assert_string_equal(context_at(profile, cuda, 2), want);
    assert_string_equal(op_at(profile, cuda, 2), "op99");
    profile_free(profile);
}

/* Python frames (with_stack=True, issue 22): the module, the user's
 * innermost frame and the stack of each memory event. */
#define FRAME(name, ts, dur) SLICE("python_function", name, ts, dur, 1)
static const char frames_trace[] =
    "{\"traceEvents\":["
    FRAME("train.py(30): <module>", "0", "1000") ","
    FRAME("train.py(12): step", "5", "495") ","
    FRAME("nn.Module: Linear_1", "10", "90") ","
    FRAME("torch/nn/modules/linear.py(130): forward", "12", "78") ","
    FRAME("<built-in function linear>", "14", "66") ","
    OP("aten::linear", "15", "45", 1) "," OP("aten::addmm", "16", "4", 1) ","
    FRAME("torch/optim/adam.py(554): _multi_tensor_adam", "600", "100") ","
    MEMORY("17", 1, 100, 512, 512) ","     /* 0: Linear_1's forward, called from step */
    MEMORY("650", 1, 200, 1024, 1536) ","  /* 1: Adam, called from <module> */
    MEMORY("2000", 1, 300, 64, 1600) ","   /* 2: no frame open */
    MEMORY("2001", 2, 400, 64, 1664) "]}"; /* 3: another thread (autograd) */

static void test_python_frames(void **state)
{
    (void)state;
    struct profile *profile = load_text(frames_trace, LOAD_OK, NULL);
    const struct allocator *cuda = allocator_named(profile, "cuda:0");
    const struct snapshot_columns *timeline = &cuda->timeline;
    assert_int_equal(timeline->count, 4);
    assert_non_null(timeline->site);
    struct frame_site site = profile_site(profile, timeline->site[0]);
    assert_string_equal(profile_text(profile, site.module), "Linear_1");
    assert_string_equal(profile_text(profile, site.location), "train.py:12 step");
    assert_string_equal(profile_text(profile, site.location_file), "train.py");
    assert_int_equal(site.location_line, 12);
    assert_string_equal(profile_text(profile, site.stack),
                        "torch/nn/modules/linear.py:130 forward\n"
                        "train.py:12 step\n"
                        "train.py:30 <module>");
    assert_string_equal(op_at(profile, cuda, 0), "aten::addmm"); /* the op stays */
    site = profile_site(profile, timeline->site[1]);
    assert_string_equal(profile_text(profile, site.location), "train.py:30 <module>");
    assert_int_equal(site.module, 0);
    assert_int_equal(timeline->site[2], 0);
    assert_int_equal(timeline->site[3], 0);
    /* The rows at the peak carry them: two rows of one op and size made in
     * two places stay two rows. */
    bool found = false;
    for (size_t i = 0; i < cuda->row_count; i++)
        if (cuda->rows[i].allocation_bytes == 512) {
            assert_string_equal(profile_text(profile, cuda->rows[i].location),
                                "train.py:12 step");
            assert_string_equal(profile_text(profile, cuda->rows[i].module), "Linear_1");
            found = true;
        }
    assert_true(found);
    profile_free(profile);
}

/* PyTorch's own order: memory events first, then the frames; the reader
 * keeps only frames around a memory event, and one read after the frames
 * began gets no site rather than a wrong one. */
static const char frames_after_trace[] =
    "{\"traceEvents\":["
    MEMORY("17", 1, 100, 512, 512) ","
    FRAME("train.py(30): <module>", "0", "1000") ","
    FRAME("train.py(12): step", "5", "20") ","
    FRAME("train.py(40): unrelated", "100", "50") ","
    MEMORY("120", 1, 200, 64, 576) "]}"; /* inside `unrelated`, read late */

static void test_python_frames_filtered(void **state)
{
    (void)state;
    struct profile *profile = load_text(frames_after_trace, LOAD_OK, NULL);
    const struct allocator *cuda = allocator_named(profile, "cuda:0");
    const struct snapshot_columns *timeline = &cuda->timeline;
    assert_int_equal(timeline->count, 2);
    struct frame_site site = profile_site(profile, timeline->site[0]);
    assert_string_equal(profile_text(profile, site.location), "train.py:12 step");
    assert_int_equal(timeline->site[1], 0);
    profile_free(profile);
}

static void test_out_of_order_events_and_devices(void **state)
{
    (void)state;
    const char trace[] =
        "[{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":9,"
        "\"args\":{\"Bytes\":8,\"Total Allocated\":8,\"Device Type\":12,\"Device Id\":1,"
        "\"Addr\":8}},"
        "{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":5,"
        "\"args\":{\"Bytes\":4,\"Total Allocated\":4,\"Total Reserved\":0,\"Device Type\":0,"
        "\"Device Id\":-1,\"Addr\":16}},"
        "{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":7,"
        "\"args\":{\"Bytes\":4,\"Total Allocated\":4,\"Device Type\":42,\"Device Id\":3}},"
        "{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":8,"
        "\"args\":{\"Total Allocated\":4,\"Device Type\":0}},"
        "{\"ph\":\"i\",\"name\":\"[OutOfMemory]\",\"pid\":1,\"tid\":1,\"ts\":6,"
        "\"args\":{\"Bytes\":1048576,\"Total Allocated\":4,\"Device Type\":1,\"Device Id\":0}},"
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"ts\":1,\"args\":{\"name\":\"p\"}}]";
    struct profile *profile = load_text(trace, LOAD_OK, NULL);
    /* First appearance in time order: cpu (5), device42:3 (7), xpu:1 (9);
     * then cuda:0, which has only the [OutOfMemory]. */
    assert_int_equal(profile->allocator_count, 4);
    assert_string_equal(profile_text(profile, profile->allocators[0].id), "cpu");
    assert_string_equal(profile_text(profile, profile->allocators[1].id), "device42:3");
    assert_string_equal(profile_text(profile, profile->allocators[2].id), "xpu:1");
    assert_string_equal(profile_text(profile, profile->allocators[3].id), "cuda:0");
    const struct allocator *cuda = &profile->allocators[3];
    assert_int_equal(cuda->timeline.count, 0);
    assert_int_equal(cuda->oom_count, 1);
    assert_int_equal(cuda->ooms[0].time_ps, 5000000);
    assert_int_equal(cuda->ooms[0].requested_bytes, 1048576);
    assert_int_equal(cuda->ooms[0].allocated_bytes, 4);
    assert_int_equal(cuda->ooms[0].reserved_bytes, -1); /* no Total Reserved */
    assert_int_equal(cuda->ooms[0].device_free_bytes, -1);
    assert_int_equal(cuda->ooms[0].largest_free_bytes, -1);
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(profile->allocators[i].oom_count, 0);
    /* The M event's ts (1) is the earliest. */
    assert_int_equal(snapshot_columns_time(&profile->allocators[0].timeline, 0), 4000000);
    /* No Addr: on the curve, in no row. */
    const struct allocator *other = &profile->allocators[1];
    assert_int_equal(other->timeline.activity[0], MEMORY_ACTIVITY_UNKNOWN);
    assert_true(profile->allocators[2].unknown_fields & ALLOCATOR_FIELD_FREE);
    assert_false(profile->allocators[0].unknown_fields & ALLOCATOR_FIELD_FREE);
    assert_true(profile->allocators[0].unknown_fields & ALLOCATOR_FIELD_STACK);
    assert_false(profile->version_known); /* a trace has no version */
    /* PyTorch's caching allocator: allocated/reserved, not heap/free. */
    assert_true(profile->allocators[0].caching);
    assert_string_equal(allocator_word(&profile->allocators[0], ALLOCATOR_WORD_HEAP), "allocated");
    assert_string_equal(allocator_word(&profile->allocators[0], ALLOCATOR_WORD_FREE),
                        "reserved but free");
    /* Kineto names no region, data type or shape: the viewer hides them. */
    assert_false(allocator_records(&profile->allocators[0], ALLOCATOR_FIELD_REGION));
    assert_false(allocator_records(&profile->allocators[0], ALLOCATOR_FIELD_DATA_TYPE));
    assert_false(allocator_records(&profile->allocators[0], ALLOCATOR_FIELD_TENSOR_SHAPE));
    assert_false(allocation_column_recorded(&profile->allocators[0], TABLE_COLUMN_REGION_TYPE));
    assert_false(allocation_column_recorded(&profile->allocators[0], TABLE_COLUMN_DATA_TYPE));
    assert_false(allocation_column_recorded(&profile->allocators[0], TABLE_COLUMN_TENSOR_SHAPE));
    assert_true(allocation_column_recorded(&profile->allocators[0], TABLE_COLUMN_OP_NAME));
    assert_true(allocation_column_recorded(NULL, TABLE_COLUMN_REGION_TYPE));
    const char *want[] = {
        "the trace records an out-of-memory error at 0.005 ms: 1048576 bytes on cuda:0",
        "1 [memory] events without Bytes, Total Allocated or a device were left out",
        "1 [memory] events have no Addr (PyTorch before 1.10): they change the curve but no row",
    };
    assert_int_equal(profile->warning_count, 3);
    for (size_t i = 0; i < 3; i++)
        assert_string_equal(test_warning(profile, i), want[i]);
    profile_free(profile);
}

static void test_rows_at_the_first_peak(void **state)
{
    (void)state;
    /* 1000 bytes held from before; a (100) and b (200) live at the first
     * peak 1300; the same peak again later counts not. */
    const char trace[] = "[" MEMORY("1", 1, 16, 100, 1100) "," MEMORY("2", 1, 32, 200, 1300) ","
                         MEMORY("3", 1, 16, -100, 1200) "," MEMORY("4", 1, 48, 100, 1300) "]";
    struct profile *profile = load_text(trace, LOAD_OK, NULL);
    const struct allocator *cuda = allocator_named(profile, "cuda:0");
    assert_int_equal(cuda->summary.peak_time_ps, 1000000);
    assert_int_equal(cuda->summary.peak.heap_bytes, 1300);
    assert_int_equal(cuda->summary.lifetime_peak_bytes, 1300);
    assert_true(cuda->summary.derived);
    assert_int_equal(cuda->row_count, 3);
    assert_int_equal(cuda->rows[0].allocation_bytes, 1000);
    assert_string_equal(profile_text(profile, cuda->rows[0].op_name),
                        "allocated before the profile");
    assert_int_equal(cuda->rows[0].origin, ROW_FROM_SPECIAL);
    assert_int_equal(cuda->rows[1].allocation_bytes, 200);
    assert_int_equal(cuda->rows[1].origin, ROW_FROM_SNAPSHOT);
    assert_int_equal(cuda->rows[1].snapshot_index, 1);
    assert_int_equal(cuda->rows[2].allocation_bytes, 100);
    profile_free(profile);
}

/* Raw control bytes, ESC sequences, invalid UTF-8 and escapes of lone
 * surrogates in names load as bytes; the reports stay safe. */
static void test_hostile_strings(void **state)
{
    (void)state;
    const char trace[] = "[" OP("\x1b]0;title\x07\x01\xff\\u202e\\udc80x", "0", "10", 1) ","
                         MEMORY("1", 1, 16, 100, 100) "]";
    struct profile *profile = load_text(trace, LOAD_OK, NULL);
    const struct allocator *cuda = allocator_named(profile, "cuda:0");
    assert_string_equal(op_at(profile, cuda, 0),
                        "\x1b]0;title\x07\x01\xff\xe2\x80\xae\xed\xb2\x80x");
    char *text = NULL;
    size_t length = 0;
    FILE *out = open_memstream(&text, &length);
    summary_report_text(out, profile, NULL);
    summary_report_json(out, profile, NULL);
    fclose(out);
    assert_null(memchr(text, '\x1b', length));
    assert_null(memchr(text, '\x07', length));
    assert_null(strstr(text, "\xe2\x80\xae"));
    free(text);
    profile_free(profile);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_times_from_text),
        cmocka_unit_test(test_strings_and_numbers),
        cmocka_unit_test(test_probe_tells_traces_from_memory_profiles),
        cmocka_unit_test(test_containers_and_broken_endings),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_attribution),
        cmocka_unit_test(test_input_shapes),
        cmocka_unit_test(test_deep_nesting_contexts),
        cmocka_unit_test(test_python_frames),
        cmocka_unit_test(test_python_frames_filtered),
        cmocka_unit_test(test_out_of_order_events_and_devices),
        cmocka_unit_test(test_rows_at_the_first_peak),
        cmocka_unit_test(test_hostile_strings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
