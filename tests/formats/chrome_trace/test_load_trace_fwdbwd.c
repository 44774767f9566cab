/* The Chrome-trace importer on PyTorch's `fwdbwd` flows (issue 22): the
 * "s" event binds the forward op starting at its time on its thread, the
 * "f" event the backward op (and its autograd engine evaluate_function
 * parent), paired by id; memory under a linked op gets " [forward: NAME]"
 * after its context, and the site (module, location, stack) of the
 * Python frames open at the forward op's start; an unpaired flow, or one
 * at no op's start, links nothing. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "model/load.h"
#include "tests/test_support.h"

#define MEMORY(ts, tid, address, bytes, total)                                               \
    "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\","        \
    "\"pid\":7,\"tid\":" #tid ",\"ts\":" ts ",\"args\":{\"Total Reserved\":1000,"           \
    "\"Total Allocated\":" #total ",\"Bytes\":" #bytes ",\"Device Id\":0,\"Device Type\":1," \
    "\"Addr\":" #address "}}"
#define OP(name, ts, dur, tid)                                                               \
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" name "\",\"pid\":7,\"tid\":" #tid         \
    ",\"ts\":" ts ",\"dur\":" dur ",\"args\":{}}"
#define FLOW(ph, id, ts, tid)                                                                \
    "{\"ph\":\"" ph "\",\"id\":" #id ",\"pid\":7,\"tid\":" #tid ",\"ts\":" ts                \
    ",\"cat\":\"fwdbwd\",\"name\":\"fwdbwd\"" /* Kineto adds "bp":"e" to "f" */            \
    "}"
#define FRAME(name, ts, dur)                                                                 \
    "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"" name "\",\"pid\":7,"          \
    "\"tid\":1,\"ts\":" ts ",\"dur\":" dur ",\"args\":{}}"
#define EVALUATE "autograd::engine::evaluate_function: "

static const char flow_trace[] =
    "{\"traceEvents\":["
    /* The forward pass, thread 1. */
    OP("aten::linear", "0", "10", 1) "," OP("aten::addmm", "1", "4", 1) ","
    OP("aten::relu", "6", "2", 1) ","
    /* The backward pass, thread 2: flows written before their ops. */
    FLOW("f", 3, "21", 2) "," FLOW("f", 9, "46", 2) "," FLOW("f", 4, "62", 2) ","
    OP(EVALUATE "AddmmBackward0", "20", "20", 2) "," OP("AddmmBackward0", "21", "9", 2) ","
    OP("aten::mm", "22", "3", 2) "," OP("aten::sum", "33", "4", 2) ","
    OP(EVALUATE "TBackward0", "45", "10", 2) "," OP("TBackward0", "46", "5", 2) ","
    OP(EVALUATE "ReluBackward0", "60", "10", 2) "," OP("ReluBackward0", "62", "5", 2) ","
    MEMORY("2", 1, 100, 512, 512) ","    /* 0: the forward op itself */
    MEMORY("23", 2, 200, 256, 768) ","   /* 1: in the backward op */
    MEMORY("35", 2, 300, 16, 784) ","    /* 2: in evaluate_function, after the node */
    MEMORY("47", 2, 400, 16, 800) ","    /* 3: flow 9 has no start */
    MEMORY("63", 2, 500, 16, 816) ","    /* 4: flow 4 starts at no op's start */
    /* Starts after their finishes in the file: paired at the end. */
    FLOW("s", 3, "1", 1) "," FLOW("s", 4, "7", 1) "]}";

static void test_forward_links(void **state)
{
    (void)state;
    struct load_error error;
    struct profile *profile = NULL;
    enum load_status status = profile_load_bytes((const uint8_t *)flow_trace, strlen(flow_trace),
                                                 "t.json", NULL, &profile, &error);
    if (status != LOAD_OK)
        print_message("# load: %s\n", error.message);
    assert_int_equal(status, LOAD_OK);
    long index = profile_find_allocator(profile, text_of("cuda:0"));
    assert_true(index >= 0);
    const struct snapshot_columns *timeline = &profile->allocators[index].timeline;
    assert_int_equal(timeline->count, 5);
    assert_non_null(timeline->context);
    const char *want[] = {
        "aten::linear > aten::addmm",
        EVALUATE "AddmmBackward0 > AddmmBackward0 > aten::mm [forward: aten::addmm]",
        EVALUATE "AddmmBackward0 > aten::sum [forward: aten::addmm]",
        EVALUATE "TBackward0 > TBackward0",
        EVALUATE "ReluBackward0 > ReluBackward0",
    };
    for (size_t i = 0; i < 5; i++)
        assert_string_equal(profile_text(profile, timeline->context[i]), want[i]);
    assert_string_equal(profile_text(profile, timeline->op_name[1]), "aten::mm");
    profile_free(profile);
}

/* Kineto's order: ops and flows, memory events, then the Python frames
 * (only those around a memory event or a forward op's start are kept).
 * The autograd thread (2) runs no Python: its events take the frames
 * open at their forward op's start on thread 1. */
static const char frames_trace[] =
    "{\"traceEvents\":["
    OP("aten::linear", "15", "5", 1) "," OP("aten::addmm", "16", "4", 1) ","
    OP("aten::linear", "55", "10", 1) "," OP("aten::addmm", "56", "4", 1) ","
    OP("aten::relu", "95", "3", 1) ","
    FLOW("f", 3, "201", 2) "," FLOW("f", 5, "302", 2) ","
    OP(EVALUATE "AddmmBackward0", "200", "20", 2) "," OP("AddmmBackward0", "201", "9", 2) ","
    OP("aten::mm", "202", "3", 2) ","
    OP(EVALUATE "ReluBackward0", "300", "10", 2) "," OP("ReluBackward0", "302", "5", 2) ","
    OP(EVALUATE "TBackward0", "400", "10", 2) "," OP("TBackward0", "401", "5", 2) ","
    FLOW("s", 3, "56", 1) ","
    MEMORY("17", 1, 100, 512, 512) ","  /* 0: Linear_0's forward */
    MEMORY("203", 2, 200, 256, 768) "," /* 1: Linear_1's backward (no memory forward) */
    MEMORY("303", 2, 300, 16, 784) ","  /* 2: ReLU's backward, flow read after the frames */
    MEMORY("402", 2, 400, 16, 800) ","  /* 3: no flow */
    FRAME("train.py(30): <module>", "0", "1000") "," FRAME("train.py(12): step", "5", "495") ","
    FRAME("nn.Module: Linear_0", "10", "30") ","
    FRAME("torch/nn/modules/linear.py(130): forward", "12", "26") ","
    FRAME("nn.Module: Linear_1", "50", "30") ","
    FRAME("torch/nn/modules/linear.py(130): forward", "52", "26") ","
    FRAME("nn.Module: ReLU_0", "90", "20") ","
    FLOW("s", 5, "95", 1) "]}";

static void test_forward_sites(void **state)
{
    (void)state;
    struct load_error error;
    struct profile *profile = NULL;
    enum load_status status = profile_load_bytes(
        (const uint8_t *)frames_trace, strlen(frames_trace), "t.json", NULL, &profile, &error);
    if (status != LOAD_OK)
        print_message("# load: %s\n", error.message);
    assert_int_equal(status, LOAD_OK);
    long index = profile_find_allocator(profile, text_of("cuda:0"));
    assert_true(index >= 0);
    const struct snapshot_columns *timeline = &profile->allocators[index].timeline;
    assert_int_equal(timeline->count, 4);
    assert_non_null(timeline->site);
    struct frame_site site = profile_site(profile, timeline->site[0]);
    assert_string_equal(profile_text(profile, site.module), "Linear_0");
    /* The backward event: Linear_1's, told apart from Linear_0's. */
    assert_string_equal(profile_text(profile, timeline->context[1]),
                        EVALUATE "AddmmBackward0 > AddmmBackward0 > aten::mm [forward: aten::addmm]");
    assert_int_not_equal(timeline->site[1], 0);
    site = profile_site(profile, timeline->site[1]);
    assert_string_equal(profile_text(profile, site.module), "Linear_1");
    assert_string_equal(profile_text(profile, site.location), "train.py:12 step");
    assert_string_equal(profile_text(profile, site.stack),
                        "torch/nn/modules/linear.py:130 forward\n"
                        "train.py:12 step\n"
                        "train.py:30 <module>");
    /* ReLU_0's frame was not kept (its flow came after the frames): no
     * site rather than step's. The context still names the forward op. */
    assert_string_equal(profile_text(profile, timeline->context[2]),
                        EVALUATE "ReluBackward0 > ReluBackward0 [forward: aten::relu]");
    assert_int_equal(timeline->site[2], 0);
    assert_int_equal(timeline->site[3], 0);
    /* The rows at the peak carry the module. */
    const struct allocator *cuda = &profile->allocators[index];
    bool found = false;
    for (size_t i = 0; i < cuda->row_count; i++)
        if (cuda->rows[i].allocation_bytes == 256) {
            assert_string_equal(profile_text(profile, cuda->rows[i].module), "Linear_1");
            found = true;
        }
    assert_true(found);
    profile_free(profile);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forward_links),
        cmocka_unit_test(test_forward_sites),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
