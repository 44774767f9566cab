/* The Chrome-trace importer on PyTorch's `fwdbwd` flows (issue 22): the
 * "s" event binds the forward op starting at its time on its thread, the
 * "f" event the backward op (and its autograd engine evaluate_function
 * parent), paired by id; memory under a linked op gets " [forward: NAME]"
 * after its context; an unpaired flow, or one at no op's start, links
 * nothing. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forward_links),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
