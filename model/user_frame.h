/* user_frame: which frame of a recorded Python/C++ stack is the user's own
 * code, so that a row's `location` names the line the user wrote
 * (`torch_trace.py:15 step`) rather than the library line that made the
 * tensor (`torch/nn/modules/linear.py:130 forward`).
 *
 * A frame is library code when its file is
 *   - empty or `??` (a frame without a file: a C/C++ frame unwound
 *     without symbols);
 *   - a C/C++/CUDA source or shared object (`.c .cc .cpp .cxx .cu .cuh
 *     .h .hh .hpp .hxx .inl .ipp .so`): PyTorch's own frames in a memory
 *     snapshot (`RegisterCUDA_0.cpp`, `CUDACachingAllocator.cpp`);
 *   - Python's own pseudo-files `<built-in ...>`, `<frozen ...>` and
 *     torch.fx's generated `<eval_with_key...>` (other `<...>` names,
 *     `<stdin>`, `<string>`, `<ipython-input-...>`, are code the user
 *     typed, and stay the user's);
 *   - anywhere under a `site-packages` or `dist-packages` folder (either
 *     slash), or under `lib/pythonX...`/`lib64/pythonX...` (the standard
 *     library, absolute as a snapshot records it);
 *   - a relative path (Kineto writes a python_function's file relative to
 *     the sys.path entry it came from: `torch/optim/adam.py(791): step`,
 *     `typing.py(2154): cast`, `logging/__init__.py(1776): ...`) whose top
 *     name is a package or module of the Python standard library or of a
 *     well-known library (torch, jax, numpy, transformers, ...): `name/...`
 *     for a package, `name.py` for a module. A user's script is relative
 *     too (`torch_trace.py(15): step`: its folder is sys.path[0]); a
 *     script named like a standard module (`trace.py`) reads as library,
 *     as Python itself would have shadowed one of the two.
 * Everything else (absolute paths outside those folders, relative paths
 * of other top names) is the user's.
 *
 * Owns: only that rule and the two small lists it reads. Called by the
 * loaders that record stacks (PyTorch traces, memory snapshots, Skyline)
 * when they fill an allocation row's location.
 * Must not: allocate, or trust a frame's bytes to be NUL-terminated. */
#ifndef MEMTOP_USER_FRAME_H
#define MEMTOP_USER_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/util/text.h"

struct user_frame {
    struct text file;     /* as recorded, relative or absolute */
    int64_t line;         /* 1-based; 0 (or less) when not recorded */
    struct text function; /* may be empty */
};

/* Whether `file` is library code by the rule above. */
bool user_frame_is_library(struct text file);

/* Frames innermost first: the index of the innermost frame whose file is
 * the user's; the innermost frame (0) when every frame is library code;
 * -1 when count is 0. */
long user_frame_pick(const struct user_frame *frames, size_t count);

/* Kineto's python_function event name, `file(line): function`, as a
 * frame (borrowing name's bytes); false when the name is not of that
 * shape (`nn.Module: Linear_0`, `<built-in function len>`). */
bool user_frame_parse_kineto(struct text name, struct user_frame *out);

/* Writes `file:line function` (`torch_trace.py:15 step`; `file function`
 * without a line, `file:line` without a function, the function alone
 * without a file) into buffer, at most size - 1 bytes and a NUL when size
 * > 0. Returns the length the whole text needs, as snprintf does; the
 * bytes are the frame's own (NUL bytes included), so read them by that
 * length, not as a C string. */
size_t user_frame_format(const struct user_frame *frame, char *buffer, size_t size);

#endif
