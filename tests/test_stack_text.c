/* model/stack_text.h: a stack kept as frames made into text when asked,
 * by the folding rules (a run of non-Python frames folded into "[N C++
 * frames]" where the stack has a Python frame; the machinery folded where
 * it has none), ordered and hashed as its text without making it, and
 * given one id per distinct text by the builder. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/profile_builder.h"
#include "model/stack_text.h"

enum { PY_F, PY_G, CPP_A, CPP_B, CPP_C, MACHINE_1, MACHINE_2, FRAMES };

struct fixture {
    struct profile_builder builder;
    uint32_t frames[FRAMES];
    struct stack_text drawn;
};

static uint32_t intern(struct fixture *f, const char *text)
{
    return string_table_intern(profile_builder_strings(&f->builder), text, strlen(text));
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    assert_true(profile_builder_init(&f->builder));
    static const struct {
        const char *file, *name;
        int64_t line;
        uint8_t kind;
    } frames[FRAMES] = {
        [PY_F] = {"x.py", "f", 1, STACK_FRAME_PYTHON},
        [PY_G] = {"<string>", "g", 22, STACK_FRAME_PYTHON},
        [CPP_A] = {"a.cpp", "A(int)", 3, 0},
        [CPP_B] = {"b.cpp", "B", 4, 0},
        [CPP_C] = {"", "C", 0, 0},
        [MACHINE_1] = {"", "unwind", 0, STACK_FRAME_MACHINERY},
        [MACHINE_2] = {"ceval.c", "_PyEval_X", 9, STACK_FRAME_MACHINERY},
    };
    for (size_t i = 0; i < FRAMES; i++) {
        struct stack_frame frame = {frames[i].line, intern(f, frames[i].file),
                                    intern(f, frames[i].name), frames[i].kind};
        assert_true(profile_builder_add_stack_frame(&f->builder, &frame, &f->frames[i]));
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    stack_text_free(&f->drawn);
    profile_builder_discard(&f->builder);
    free(f);
    return 0;
}

/* The stack id of frames named by enum, innermost first. */
static uint32_t stack_of(struct fixture *f, const int *which, size_t count)
{
    uint32_t frames[16];
    for (size_t i = 0; i < count; i++)
        frames[i] = f->frames[which[i]];
    uint32_t stack;
    assert_true(profile_builder_add_frame_stack(&f->builder, frames, count, &stack));
    return stack;
}
#define STACK(f, ...) \
    stack_of(f, (const int[]){__VA_ARGS__}, sizeof (int[]){__VA_ARGS__} / sizeof(int))

static void assert_draws(struct fixture *f, uint32_t stack, const char *expected)
{
    struct text text = stack_text_draw(f->builder.profile, stack, &f->drawn);
    assert_int_equal(text.length, strlen(expected));
    assert_memory_equal(text.bytes, expected, text.length);
}

static void test_python_stack_folds_other_frames(void **state)
{
    struct fixture *f = *state;
    uint32_t stack = STACK(f, MACHINE_1, CPP_A, PY_F, CPP_B, PY_G, MACHINE_2, CPP_C);
    assert_true(stack_id_is_frames(stack));
    /* Every run of non-Python frames, the machinery among them, is one
     * line; one frame says "frame". */
    assert_draws(f, stack,
                 "[2 C++ frames]\nx.py:1 f\n[1 C++ frame]\n<string>:22 g\n[2 C++ frames]");
    assert_draws(f, STACK(f, PY_F), "x.py:1 f");
}

static void test_cpp_stack_folds_the_machinery(void **state)
{
    struct fixture *f = *state;
    /* No Python frame: the C++ frames are the stack, the machinery is
     * folded (and only the machinery). */
    assert_draws(f, STACK(f, MACHINE_1, CPP_A, MACHINE_2, MACHINE_1, CPP_B, CPP_C, MACHINE_2),
                 "[1 C++ frame]\na.cpp:3 A(int)\n[2 C++ frames]\nb.cpp:4 B\n:0 C\n"
                 "[1 C++ frame]");
    assert_draws(f, STACK(f, MACHINE_2, MACHINE_1), "[2 C++ frames]");
    assert_draws(f, STACK(f, CPP_C), ":0 C");
}

static void test_one_id_per_text(void **state)
{
    struct fixture *f = *state;
    uint32_t a = STACK(f, CPP_A, PY_F, CPP_B);
    uint32_t b = STACK(f, CPP_B, PY_F, MACHINE_1); /* other frames, the same text */
    uint32_t c = STACK(f, CPP_A, CPP_B, PY_F, CPP_B);
    assert_int_equal(a, b);
    assert_int_not_equal(a, c);
    assert_int_equal(f->builder.profile->frame_stack_count, 2);
    /* Kept as lines: a folded run is one count. */
    assert_int_equal(f->builder.profile->stack_frame_ref_count, 3 + 3);
    uint32_t none;
    assert_true(profile_builder_add_frame_stack(&f->builder, NULL, 0, &none));
    assert_int_equal(none, STRING_ID_EMPTY);
}

/* The order is the texts' (bytewise, a prefix first), whichever way a
 * stack is kept. */
static void test_order_and_hash_are_the_texts(void **state)
{
    struct fixture *f = *state;
    const struct profile *profile = f->builder.profile;
    uint32_t python = STACK(f, PY_F);                 /* "x.py:1 f" */
    uint32_t longer = STACK(f, PY_F, CPP_A);          /* "x.py:1 f\n[1 C++ frame]" */
    uint32_t cpp = STACK(f, CPP_A);                   /* "a.cpp:3 A(int)" */
    uint32_t same = intern(f, "x.py:1 f");            /* a string of python's text */
    uint32_t after = intern(f, "x.py:1 f\n[2");       /* past longer's "[1" */
    assert_int_equal(stack_text_compare(profile, python, longer), -1);
    assert_int_equal(stack_text_compare(profile, longer, python), 1);
    assert_int_equal(stack_text_compare(profile, cpp, python), -1);
    assert_int_equal(stack_text_compare(profile, python, same), 0);
    assert_int_equal(stack_text_compare(profile, longer, after), -1);
    assert_int_equal(stack_text_compare(profile, after, longer), 1);
    assert_true(stack_text_hash(profile, python) == stack_text_hash(profile, same));
    assert_true(stack_text_hash(profile, python) != stack_text_hash(profile, longer));
}

static void test_strings_pass_through(void **state)
{
    struct fixture *f = *state;
    const struct profile *profile = f->builder.profile;
    uint32_t id = intern(f, "a.py:1\nb.py:2");
    struct text text = stack_text_draw(profile, id, NULL);
    struct text string = profile_string(profile, id);
    assert_ptr_equal(text.bytes, string.bytes); /* no copy */
    assert_int_equal(text.length, 13);
    /* A stack of frames needs a buffer; an id the profile never gave is empty. */
    assert_int_equal(stack_text_draw(profile, STACK(f, PY_F), NULL).length, 0);
    assert_int_equal(stack_text_draw(profile, stack_id_of_frames(999), &f->drawn).length, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_python_stack_folds_other_frames, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cpp_stack_folds_the_machinery, setup, teardown),
        cmocka_unit_test_setup_teardown(test_one_id_per_text, setup, teardown),
        cmocka_unit_test_setup_teardown(test_order_and_hash_are_the_texts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_strings_pass_through, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
