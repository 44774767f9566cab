/* The Chrome-trace importer on TensorFlow timeline.py traces: counters of
 * the Allocators process paired with the tensor tuples they were made
 * from (Python's tuple order: time, then bytes, then name), the
 * TensorDescription text (dtype, shape, requested bytes, allocator, ptr),
 * AllocationMaximum's set at the peak with its quirks (a zero-byte tensor
 * and one freed at its creation never leave it), counters that do not
 * match their tensors, a trace without an Allocators process. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "model/load.h"
#include "tests/test_support.h"

#define PROCESS(pid, name) \
    "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" #pid ",\"args\":{\"name\":\"" name "\"}}"
#define CREATE(name, id, ts) \
    "{\"ph\":\"N\",\"cat\":\"Tensor\",\"name\":\"" name "\",\"pid\":2,\"tid\":0,\"ts\":" #ts \
    ",\"id\":" #id "}"
#define DELETE(name, id, ts) \
    "{\"ph\":\"D\",\"cat\":\"Tensor\",\"name\":\"" name "\",\"pid\":2,\"tid\":0,\"ts\":" #ts \
    ",\"id\":" #id "}"
#define DESCRIBE(name, id, ts, text)                                                        \
    "{\"ph\":\"O\",\"cat\":\"Tensor\",\"name\":\"" name "\",\"pid\":2,\"tid\":0,\"ts\":" #ts \
    ",\"id\":" #id ",\"args\":{\"snapshot\":{\"tensor_description\":\"" text "\"}}}"
#define COUNTER(pid, allocator, ts, value)                                                  \
    "{\"ph\":\"C\",\"cat\":\"Memory\",\"name\":\"" allocator "\",\"pid\":" #pid            \
    ",\"tid\":0,\"ts\":" #ts ",\"args\":{\"" allocator "\":" #value "}}"
#define ALLOCATION(requested, allocator) \
    "allocation_description {\\n  requested_bytes: " #requested                   \
    "\\n  allocated_bytes: 256\\n  allocator_name: " allocator "\\n  ptr: 4096\\n}\\n"

/* cpu: a [2,4] float, b:1 a bfloat16 scalar, z zero bytes of [0,8] (a
 * zero dim prints as "dim {}" and its requested_bytes line is absent), q
 * a string without shape freed at its creation, w 100 bytes; g on the
 * GPU. Tuples of cpu in Python's order, with the running total:
 * (10,+8,b:1) 8, (10,+32,a) 40, (15,0,z) 40, (20,-8,b:1) 32, (25,0,z) 32,
 * (30,-32,a) 0, (40,-4,q) -4, (40,+4,q) 0, (45,+100,w) 100, (60,-100,w) 0. */
static const char trace[] =
    "{\"traceEvents\":[" PROCESS(0, "Allocators") "," PROCESS(1, "/cpu:0 Compute") ","
    PROCESS(2, "/cpu:0 Tensors") ","
    CREATE("a", 0, 10) "," DESCRIBE("a", 0, 11,
        "dtype: DT_FLOAT\\nshape {\\n  dim {\\n    size: 2\\n  }\\n  dim {\\n    size: 4\\n  }\\n}\\n"
        ALLOCATION(32, "cpu")) ","
    CREATE("b:1", 1, 10) "," DESCRIBE("b:1", 1, 11,
        "dtype: DT_BFLOAT16\\nshape {\\n}\\n" ALLOCATION(8, "\\\"cpu\\\"")) ","
    CREATE("z", 2, 15) "," DESCRIBE("z", 2, 15,
        "dtype: DT_INT32\\nshape {\\n  dim {\\n  }\\n  dim {\\n    size: 8\\n  }\\n}\\n"
        "allocation_description {\\n  allocator_name: cpu\\n}\\n") ","
    CREATE("q", 3, 40) "," DESCRIBE("q", 3, 39, "dtype: DT_STRING\\n" ALLOCATION(4, "cpu")) ","
    CREATE("w", 4, 45) "," DESCRIBE("w", 4, 46, "dtype: DT_FLOAT\\n" ALLOCATION(100, "cpu")) ","
    CREATE("g", 5, 5) "," DESCRIBE("g", 5, 6, "dtype: DT_HALF\\n" ALLOCATION(64, "GPU_0_bfc")) ","
    DELETE("a", 0, 30) "," DELETE("b:1", 1, 20) "," DELETE("z", 2, 25) "," DELETE("q", 3, 40) ","
    DELETE("w", 4, 60) "," DELETE("g", 5, 50) ","
    COUNTER(0, "cpu", 10, 8) "," COUNTER(0, "cpu", 10, 40) "," COUNTER(0, "cpu", 15, 40) ","
    COUNTER(0, "cpu", 20, 32) "," COUNTER(0, "cpu", 25, 32) "," COUNTER(0, "cpu", 30, 0) ","
    COUNTER(0, "cpu", 40, -4) "," COUNTER(0, "cpu", 40, 0) "," COUNTER(0, "cpu", 45, 100) ","
    COUNTER(0, "cpu", 60, 0) "," COUNTER(0, "GPU_0_bfc", 5, 64) ","
    COUNTER(0, "GPU_0_bfc", 50, 0) ","
    COUNTER(1, "elsewhere", 7, 99) "]}";

static struct profile *load(const char *text, enum load_status want)
{
    struct profile *profile = NULL;
    struct load_error error;
    enum load_status status =
        profile_load_bytes((const uint8_t *)text, strlen(text), "t.json", NULL, &profile, &error);
    if (status != want)
        print_message("# load: %s\n", error.message);
    assert_int_equal(status, want);
    return profile;
}

static void test_counters_paired_with_tensors(void **state)
{
    (void)state;
    struct profile *profile = load(trace, LOAD_OK);
    /* Series in order of first appearance; other processes' left out. */
    assert_int_equal(profile->allocator_count, 2);
    assert_int_equal(profile->warning_count, 0);
    const struct allocator *cpu = &profile->allocators[0];
    assert_string_equal(profile_text(profile, cpu->id), "cpu");
    const struct snapshot_columns *timeline = &cpu->timeline;
    assert_int_equal(timeline->count, 10);
    static const struct {
        int64_t time, heap, bytes;
        int activity;
        const char *op, *type, *shape;
    } want[] = {
        {10, 8, 8, MEMORY_ACTIVITY_ALLOCATION, "b", "bfloat16", "[]"},
        {10, 40, 32, MEMORY_ACTIVITY_ALLOCATION, "a", "float", "[2,4]"},
        {15, 40, 0, MEMORY_ACTIVITY_ALLOCATION, "z", "int32", "[0,8]"},
        {20, 32, 8, MEMORY_ACTIVITY_DEALLOCATION, "b", "bfloat16", "[]"},
        {25, 32, 0, MEMORY_ACTIVITY_DEALLOCATION, "z", "int32", "[0,8]"},
        {30, 0, 32, MEMORY_ACTIVITY_DEALLOCATION, "a", "float", "[2,4]"},
        {40, -4, 4, MEMORY_ACTIVITY_DEALLOCATION, "q", "string", "unknown"},
        {40, 0, 4, MEMORY_ACTIVITY_ALLOCATION, "q", "string", "unknown"},
        {45, 100, 100, MEMORY_ACTIVITY_ALLOCATION, "w", "float", "unknown"},
        {60, 0, 100, MEMORY_ACTIVITY_DEALLOCATION, "w", "float", "unknown"},
    };
    for (size_t i = 0; i < 10; i++) {
        /* Times after the earliest event (g's creation at 5 us). */
        assert_int_equal(snapshot_columns_time(timeline, i), (want[i].time - 5) * 1000000);
        assert_int_equal(timeline->heap_bytes[i], want[i].heap);
        assert_int_equal(timeline->allocation_bytes[i], want[i].bytes);
        assert_int_equal(timeline->requested_bytes[i], want[i].bytes);
        assert_int_equal(timeline->activity[i], want[i].activity);
        assert_string_equal(profile_text(profile, timeline->op_name[i]), want[i].op);
        assert_string_equal(profile_text(profile, timeline->data_type[i]), want[i].type);
        assert_string_equal(profile_text(profile, timeline->tensor_shape[i]), want[i].shape);
        assert_string_equal(profile_text(profile, timeline->region_type[i]), "output");
        assert_int_equal(timeline->step_id[i], -1);
    }
    assert_int_equal(timeline->address[1], 4096);
    assert_int_equal(timeline->address[2], 0); /* no ptr line */
    assert_true(cpu->unknown_fields & ALLOCATOR_FIELD_STACK);
    assert_true(cpu->unknown_fields & ALLOCATOR_FIELD_FREE);
    assert_true(cpu->unknown_fields & ALLOCATOR_FIELD_CAPACITY);
    const struct allocator *gpu = &profile->allocators[1];
    assert_string_equal(profile_text(profile, gpu->id), "GPU_0_bfc");
    assert_int_equal(gpu->timeline.count, 2);
    assert_string_equal(profile_text(profile, gpu->timeline.data_type[0]), "half");
    profile_free(profile);
}

static void test_allocation_maximum_and_its_quirks(void **state)
{
    (void)state;
    struct profile *profile = load(trace, LOAD_OK);
    const struct allocator *cpu = &profile->allocators[0];
    assert_int_equal(cpu->summary.peak.heap_bytes, 100);
    assert_int_equal(cpu->summary.peak_time_ps, 40000000);
    assert_int_equal(cpu->summary.lifetime_peak_bytes, 100);
    assert_int_equal(cpu->summary.capacity_bytes, 0);
    /* At the peak: w, and q and z, which timeline.py never removes. */
    assert_int_equal(cpu->row_count, 3);
    static const struct {
        int64_t bytes;
        const char *op;
    } want[] = {{100, "w"}, {4, "q"}, {0, "z"}};
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(cpu->rows[i].allocation_bytes, want[i].bytes);
        assert_string_equal(profile_text(profile, cpu->rows[i].op_name), want[i].op);
        assert_int_equal(cpu->rows[i].occurrences, 1);
    }
    profile_free(profile);
}

static void test_unpaired_counters_and_no_allocators_process(void **state)
{
    (void)state;
    /* One counter more than tensor tuples, and a value that disagrees. */
    const char mismatched[] =
        "[" PROCESS(0, "Allocators") "," CREATE("a", 0, 1) ","
        DESCRIBE("a", 0, 2, "dtype: DT_FLOAT\\n" ALLOCATION(16, "cpu")) "," DELETE("a", 0, 3) ","
        COUNTER(0, "cpu", 1, 16) "," COUNTER(0, "cpu", 3, 8) "," COUNTER(0, "cpu", 4, 0) "]";
    struct profile *profile = load(mismatched, LOAD_OK);
    const struct allocator *cpu = &profile->allocators[0];
    assert_int_equal(cpu->timeline.count, 3);
    assert_int_equal(cpu->timeline.activity[0], MEMORY_ACTIVITY_ALLOCATION);
    assert_int_equal(cpu->timeline.activity[1], MEMORY_ACTIVITY_UNKNOWN);
    assert_int_equal(cpu->timeline.heap_bytes[1], 8);
    assert_int_equal(profile->warning_count, 1);
    assert_string_equal(test_warning(profile, 0), "allocator \"cpu\": 3 Memory counters, 2 tensor "
                                              "events; only the first 1 match, the rest have no "
                                              "tensor");
    profile_free(profile);
    /* Without process names every process's counters count. */
    const char nameless[] = "[" COUNTER(3, "cpu", 1, 16) "," COUNTER(3, "cpu", 2, 0) "]";
    profile = load(nameless, LOAD_OK);
    assert_int_equal(profile->allocators[0].timeline.count, 2);
    assert_int_equal(profile->warning_count, 2);
    assert_non_null(strstr(test_warning(profile, 0), "no process is named Allocators"));
    profile_free(profile);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counters_paired_with_tensors),
        cmocka_unit_test(test_allocation_maximum_and_its_quirks),
        cmocka_unit_test(test_unpaired_counters_and_no_allocators_process),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
