/* The PyTorch snapshot reader's stacks (issue 23): tracebacks kept as
 * frames, each frame dict read once (the memo hands the same dict back),
 * and a site's stack text made from its frames when asked, with
 * memory_viz's folding: runs of C++ frames folded into a count where
 * there is a Python frame, the machinery folded where there is none.
 * Stacks of equal text share one id, so that their rows still merge. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/load.h"
#include "model/profile.h"
#include "model/stack_text.h"
#include "tests/formats/torch_snapshot/pickle_writer.h"

static void int_member(struct pickle_writer *w, const char *key, int64_t value)
{
    pickle_write_key(w, key);
    pickle_write_int(w, value);
    pickle_write_item_done(w);
}

/* A frame dict, as py_symbolize writes one per distinct frame; its memo
 * id, to write it again into another traceback. */
static uint32_t frame(struct pickle_writer *w, const char *name, const char *file, int64_t line)
{
    uint32_t id = pickle_write_dict(w, 3);
    pickle_write_key(w, "name");
    pickle_write_str(w, name);
    pickle_write_item_done(w);
    pickle_write_key(w, "filename");
    pickle_write_str(w, file);
    pickle_write_item_done(w);
    int_member(w, "line", line);
    return id;
}

enum { UNWIND, ALLOC, ADAM, ADD, STEP, EVAL, NODE, START, MUL, FRAME_COUNT };

/* Writes frame `which` (the first time its dict, later a memo get). */
static void frame_item(struct pickle_writer *w, uint32_t *ids, int which)
{
    static const struct {
        const char *name, *file;
        int64_t line;
    } frames[FRAME_COUNT] = {
        [UNWIND] = {"torch::unwind::unwind()", "", 0},
        [ALLOC] = {"c10::cuda::CUDACachingAllocator::malloc", "CUDACachingAllocator.cpp", 0},
        [ADAM] = {"_multi_tensor_adam", "torch/optim/adam.py", 791},
        [ADD] = {"at::_ops::add::call", "Operators.cpp", 3},
        [STEP] = {"step", "train.py", 16},
        [EVAL] = {"_PyEval_EvalFrameDefault", "Python/ceval.c", 0},
        [NODE] = {"torch::autograd::generated::MmBackward0::apply(x)", "Functions.cpp", 120},
        [START] = {"__libc_start_main", "", 0},
        [MUL] = {"at::_ops::mul::call", "Operators.cpp", 9},
    };
    if (ids[which] != UINT32_MAX)
        pickle_write_get(w, ids[which]);
    else
        ids[which] = frame(w, frames[which].name, frames[which].file, frames[which].line);
    pickle_write_item_done(w);
}

static void alloc(struct pickle_writer *w, int64_t address, int64_t time_us, uint32_t *ids,
                  const int *frames, size_t count)
{
    pickle_write_dict(w, 6);
    pickle_write_key(w, "action");
    pickle_write_key(w, "alloc");
    pickle_write_item_done(w);
    int_member(w, "addr", address);
    int_member(w, "size", 512);
    int_member(w, "stream", 0);
    int_member(w, "time_us", time_us);
    pickle_write_key(w, "frames");
    pickle_write_list(w, count);
    for (size_t i = 0; i < count; i++)
        frame_item(w, ids, frames[i]);
    pickle_write_item_done(w);
    pickle_write_item_done(w);
}

/* Three tracebacks, innermost first: Python with C++ runs; C++ only
 * (autograd's thread), sharing frame dicts with the first; the first
 * again with another C++ frame in a folded run (the same text). */
static struct profile *load_stacks(int protocol)
{
    char *bytes = NULL;
    size_t size = 0;
    FILE *file = open_memstream(&bytes, &size);
    assert_non_null(file);
    struct pickle_writer *w = pickle_writer_new(file, protocol);
    assert_non_null(w);
    uint32_t ids[FRAME_COUNT];
    for (size_t i = 0; i < FRAME_COUNT; i++)
        ids[i] = UINT32_MAX;
    static const int python[] = {UNWIND, ALLOC, ADAM, ADD, STEP, EVAL};
    static const int cpp[] = {UNWIND, ALLOC, NODE, EVAL, START};
    static const int python_again[] = {UNWIND, ALLOC, ADAM, MUL, STEP, EVAL};
    pickle_write_dict(w, 2);
    pickle_write_key(w, "segments");
    pickle_write_list(w, 0);
    pickle_write_item_done(w);
    pickle_write_key(w, "device_traces");
    pickle_write_list(w, 1);
    pickle_write_list(w, 3);
    alloc(w, 0x1000, 10, ids, python, 6);
    alloc(w, 0x2000, 20, ids, cpp, 5);
    alloc(w, 0x3000, 30, ids, python_again, 6);
    pickle_write_item_done(w);
    pickle_write_item_done(w);
    assert_true(pickle_writer_finish(w));
    assert_int_equal(fclose(file), 0);
    struct profile *profile = NULL;
    struct load_error error;
    if (profile_load_bytes((const uint8_t *)bytes, size, "stacks.pickle", NULL, &profile,
                           &error) != LOAD_OK)
        fail_msg("%s", error.message);
    free(bytes);
    return profile;
}

static void assert_stack(const struct profile *profile, uint32_t stack, const char *expected)
{
    assert_true(stack_id_is_frames(stack));
    struct stack_text drawn = {0};
    struct text text = stack_text_draw(profile, stack, &drawn);
    char *copy = strndup(text.bytes, text.length);
    assert_non_null(copy);
    assert_string_equal(copy, expected);
    free(copy);
    stack_text_free(&drawn);
}

static void test_stacks_from_frames(void **state)
{
    (void)state;
    static const int protocols[] = {2, 4};
    for (size_t p = 0; p < 2; p++) {
        struct profile *profile = load_stacks(protocols[p]);
        /* One frame per distinct dict, read once; no stack's text kept,
         * and only the frames a stack shows keep their file and name
         * (the allocator's frame, Adam's, the step's, autograd's node):
         * the others only ever fold into a count. */
        assert_int_equal(profile->stack_frame_count, 9);
        size_t named = 0;
        for (size_t i = 0; i < profile->stack_frame_count; i++)
            named += profile->stack_frames[i].name != STRING_ID_EMPTY;
        assert_int_equal(named, 4);
        assert_int_equal(profile->site_count, 4); /* no place, and one per traceback */
        /* Python frames shown, every other run folded (unwind and the
         * allocator; the op; the interpreter). */
        assert_stack(profile, profile->sites[1].stack,
                     "[2 C++ frames]\n"
                     "torch/optim/adam.py:791 _multi_tensor_adam\n"
                     "[1 C++ frame]\n"
                     "train.py:16 step\n"
                     "[1 C++ frame]");
        /* No Python frame: the C++ frames shown but the machinery
         * (unwind; the interpreter and __libc_start_main). */
        assert_stack(profile, profile->sites[2].stack,
                     "[1 C++ frame]\n"
                     "CUDACachingAllocator.cpp:0 c10::cuda::CUDACachingAllocator::malloc\n"
                     "Functions.cpp:120 torch::autograd::generated::MmBackward0::apply(x)\n"
                     "[2 C++ frames]");
        /* Another traceback of the same text: the same stack id, as an
         * interned string would be, so that its rows merge. */
        assert_int_equal(profile->sites[3].stack, profile->sites[1].stack);
        assert_int_equal(profile->frame_stack_count, 2);
        /* The rows at the peak: the two allocations of the same place and
         * stack are one row of two. */
        const struct allocator *allocator = &profile->allocators[0];
        size_t merged = 0;
        for (size_t i = 0; i < allocator->row_count; i++)
            if (allocator->rows[i].stack == profile->sites[1].stack)
                merged += (size_t)allocator->rows[i].occurrences * 100 + 1;
        assert_int_equal(merged, 201);
        profile_free(profile);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stacks_from_frames),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
