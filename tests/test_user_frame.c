/* Tests of model/user_frame: which frame is the user's, on the names the
 * real captures in data/real/ hold (Kineto's relative python_function
 * files, a memory snapshot's absolute and C++ files), Kineto's name
 * parsed, and the location's text. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "model/user_frame.h"

static bool is_library(const char *file)
{
    return user_frame_is_library(text_of(file));
}

static void test_library_files(void **state)
{
    (void)state;
    /* From data/real/torch-mlp.pt.trace.json.gz (Kineto, relative). */
    assert_true(is_library("torch/optim/adam.py"));
    assert_true(is_library("torch/nn/modules/linear.py"));
    assert_true(is_library("typing.py"));
    assert_true(is_library("enum.py"));
    assert_true(is_library("logging/__init__.py"));
    assert_true(is_library("warnings.py"));
    assert_true(is_library("<built-in function isinstance>"));
    assert_true(is_library("<frozen os>"));
    assert_true(is_library("<frozen _collections_abc>"));
    /* From data/real/torch-mlp.snapshot.pickle.gz (absolute, C++). */
    assert_true(is_library("/opt/torch/.venv/lib/python3.12/site-packages/torch/optim/adam.py"));
    assert_true(is_library("/usr/local/lib/python3.10/dist-packages/torch/nn/functional.py"));
    assert_true(is_library("/usr/lib/python3.12/typing.py"));
    assert_true(is_library("C:\\Python311\\Lib\\site-packages\\torch\\_tensor.py"));
    assert_true(is_library("RegisterCUDA_0.cpp"));
    assert_true(is_library("/pytorch/c10/cuda/CUDACachingAllocator.cpp"));
    assert_true(is_library("kernel.cu"));
    assert_true(is_library("??"));
    assert_true(is_library(""));
    assert_true(is_library("<eval_with_key>.3"));
    /* Every listed name is found (an unsorted table would lose some). */
    assert_true(is_library("IPython/core/x.py"));
    assert_true(is_library("__future__.py"));
    assert_true(is_library("zipimport.py"));
    assert_true(is_library("jax/_src/api.py"));
    assert_true(is_library("numpy/core/x.py"));
    assert_true(is_library("transformers/modeling_utils.py"));
}

static void test_user_files(void **state)
{
    (void)state;
    assert_false(is_library("torch_trace.py"));
    assert_false(is_library("/work/main/.capture/torch_snapshot.py"));
    assert_false(is_library("/home/me/proj/torch/train.py")); /* absolute: not a top name */
    assert_false(is_library("mymodel/blocks.py"));
    assert_false(is_library("<stdin>"));
    assert_false(is_library("<ipython-input-3-abc>"));
    /* `test` is a standard package, not a module: a script test.py is the user's. */
    assert_false(is_library("test.py"));
    assert_true(is_library("test/support/__init__.py"));
    /* A folder named like a library deeper in the path is not a top name. */
    assert_false(is_library("proj/torch/x.py"));
    /* lib/python without a version digit is someone's folder. */
    assert_false(is_library("/home/me/lib/pythonic/x.py"));
    /* A prefix of a listed name is not that name. */
    assert_false(is_library("tor.py"));
    assert_false(is_library("torchy/x.py"));
}

static struct user_frame frame(const char *file, int64_t line, const char *function)
{
    return (struct user_frame){text_of(file), line, text_of(function)};
}

static void test_pick(void **state)
{
    (void)state;
    struct user_frame frames[] = {
        frame("<built-in method addmm>", 0, ""),
        frame("torch/nn/modules/linear.py", 130, "forward"),
        frame("torch/nn/modules/module.py", 1783, "_call_impl"),
        frame("torch_trace.py", 15, "step"),
        frame("torch_trace.py", 25, "<module>"),
    };
    assert_int_equal(user_frame_pick(frames, 5), 3);
    assert_int_equal(user_frame_pick(frames, 3), 0); /* all library: the innermost */
    assert_int_equal(user_frame_pick(frames + 3, 2), 0);
    assert_int_equal(user_frame_pick(frames, 0), -1);
}

static void test_parse_kineto(void **state)
{
    (void)state;
    struct user_frame out;
    assert_true(user_frame_parse_kineto(text_of("torch_trace.py(15): step"), &out));
    assert_true(text_equal(out.file, text_of("torch_trace.py")));
    assert_int_equal(out.line, 15);
    assert_true(text_equal(out.function, text_of("step")));
    assert_true(user_frame_parse_kineto(text_of("torch/optim/optimizer.py(182): <genexpr>"), &out));
    assert_true(text_equal(out.function, text_of("<genexpr>")));
    assert_int_equal(out.line, 182);
    assert_true(user_frame_parse_kineto(text_of("<frozen os>(762): encode"), &out));
    assert_true(text_equal(out.file, text_of("<frozen os>")));
    assert_true(user_frame_parse_kineto(text_of("a (x)/b(2).py(7): f"), &out));
    assert_true(text_equal(out.file, text_of("a (x)/b(2).py")));
    assert_int_equal(out.line, 7);
    assert_false(user_frame_parse_kineto(text_of("nn.Module: Linear_0"), &out));
    assert_false(user_frame_parse_kineto(text_of("<built-in function len>"), &out));
    assert_false(user_frame_parse_kineto(text_of("f(): g"), &out));
    assert_false(user_frame_parse_kineto(text_of("(1): g"), &out));
    assert_false(user_frame_parse_kineto(text_of(""), &out));
}

static void test_format(void **state)
{
    (void)state;
    char buffer[64];
    struct user_frame f = frame("torch_trace.py", 15, "step");
    assert_int_equal(user_frame_format(&f, buffer, sizeof buffer), 22);
    assert_string_equal(buffer, "torch_trace.py:15 step");
    f = frame("x.py", 0, "g");
    user_frame_format(&f, buffer, sizeof buffer);
    assert_string_equal(buffer, "x.py g");
    f = frame("x.py", 3, "");
    user_frame_format(&f, buffer, sizeof buffer);
    assert_string_equal(buffer, "x.py:3");
    f = frame("", 3, "g");
    user_frame_format(&f, buffer, sizeof buffer);
    assert_string_equal(buffer, "g");
    /* Cut short, it still says how long the whole is, and ends in NUL. */
    f = frame("torch_trace.py", 15, "step");
    assert_int_equal(user_frame_format(&f, buffer, 8), 22);
    assert_string_equal(buffer, "torch_t");
    assert_int_equal(user_frame_format(&f, NULL, 0), 22);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_library_files), cmocka_unit_test(test_user_files),
        cmocka_unit_test(test_pick),          cmocka_unit_test(test_parse_kineto),
        cmocka_unit_test(test_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
