#!/usr/bin/env python3
# stacks_snapshot.py TRACEBACKS ENTRIES FILE: writes a PyTorch memory
# snapshot whose tracebacks are many and long, as stacks='all' records
# them (issue 23's stacks kept as frames): TRACEBACKS distinct tracebacks
# of 91 frames each (6 Python frames among C++ ones and the machinery of
# recording and of the interpreter) drawn from a pool of 4,600 frames,
# one dict per distinct frame and one list per distinct traceback (as
# pybind writes them); ENTRIES trace entries, allocations and frees in
# turn. Deterministic (seed 1). Used to measure the read where stacks
# matter (docs/performance.md); tests/generate_torch_snapshot's files
# have 64 tracebacks only. Writes a bench input: never commit its output.
import pickle
import random
import sys


def main():
    tracebacks, count, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    random.seed(1)
    python = [dict(name=f"fn_{i}", filename=f"/home/u/proj/mod_{i % 40}.py", line=10 + i)
              for i in range(600)]
    cpp = [dict(name=f"at::native::(anonymous namespace)::kernel_{i}<float, at::Tensor const&>"
                     "(at::TensorIterator&)",
                filename=f"aten/src/ATen/native/File{i % 90}.cpp", line=i)
           for i in range(4000)]
    unwind = dict(name="torch::unwind::unwind()", filename="", line=0)
    interpreter = dict(name="_PyEval_EvalFrameDefault", filename="Python/ceval.c", line=0)
    stacks = []
    for _ in range(tracebacks):
        frames = [unwind] + random.sample(cpp, 30)
        for _ in range(6):
            frames += [random.choice(python)] + random.sample(cpp, 8) + [interpreter]
        stacks.append(frames)
    entries, live, time = [], [], 1_700_000_000_000_000
    for e in range(count):
        time += 7
        if live and (len(live) > 3000 or random.random() < 0.45):
            address, size, frames = live.pop(random.randrange(len(live)))
            for action in ("free_requested", "free_completed"):
                entries.append(dict(action=action, addr=address, size=size, stream=0,
                                    time_us=time, frames=frames))
        else:
            address = 0x7f0000000000 + e * 4096
            size = random.choice([512, 4096, 1 << 20, 2 << 20])
            frames = random.choice(stacks)
            live.append((address, size, frames))
            entries.append(dict(action="alloc", addr=address, size=size, stream=0,
                                time_us=time, frames=frames))
    with open(out, "wb") as f:
        pickle.dump({"segments": [], "device_traces": [entries]}, f, protocol=4)


if __name__ == "__main__":
    main()
