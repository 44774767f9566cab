#!/usr/bin/env python3
"""peer_trace.py: the plain way to get memtop's summary of a Chrome trace.

    python3 peer_trace.py TRACE[.gz]

What a notebook does: json.load the whole trace (gzip or not), then the
same extraction memtop makes (see docs/formats/chrome_trace.md): for
PyTorch [memory] events, one allocator per device, events sorted by
exact time, each attributed to the innermost cpu_op of its thread, steps
by ProfilerStep#N windows, frees taking their allocation's op, the first
peak of Total Allocated and the blocks live there; for timeline.py, one
allocator per Memory counter of the Allocators process, paired with the
tensor tuples sorted as Python sorts them, the first peak and
AllocationMaximum's set. Prints one line per allocator (id, snapshots,
peak bytes, peak time in ps, rows at the peak) for bench/bench.sh, which
times it against memtop --summary.
"""
import bisect
import collections
import decimal
import gzip
import json
import sys

DEVICE_TYPES = ["cpu", "cuda", "mkldnn", "opengl", "opencl", "ideep", "hip", "fpga", "maia",
                "xla", "vulkan", "metal", "xpu", "mps", "meta", "hpu", "ve", "lazy", "ipu",
                "mtia", "privateuse1"]


def nanoseconds(value):
    """ts/dur in microseconds to integer ns, exactly (never via float)."""
    return int((decimal.Decimal(str(value)) * 1000).to_integral_value(decimal.ROUND_HALF_UP))


def device_name(kind, index):
    if kind == 0:
        return "cpu"
    if 0 < kind < len(DEVICE_TYPES):
        return "%s:%d" % (DEVICE_TYPES[kind], index)
    return "device%d:%d" % (kind, index)


def pytorch(events, earliest):
    memory, ops, steps = [], collections.defaultdict(list), collections.defaultdict(list)
    for order, event in enumerate(events):
        if event.get("ph") == "X" and event.get("cat") in ("cpu_op", "user_annotation"):
            start = nanoseconds(event["ts"])
            end = start + nanoseconds(event.get("dur", 0))
            thread = (event.get("pid"), event.get("tid"))
            ops[thread].append((start, -end, order, event.get("name", ""),
                                event["cat"] == "cpu_op"))
            name = event.get("name", "")
            if event["cat"] == "user_annotation" and name.startswith("ProfilerStep#"):
                steps[event.get("pid")].append((start, end, int(name[13:])))
        elif event.get("ph") == "i" and event.get("name") == "[memory]":
            memory.append((nanoseconds(event["ts"]), order, event))
    # Innermost cpu_op per thread: a sweep over the nested slices.
    attributed = {}
    by_thread = collections.defaultdict(list)
    for record in memory:
        event = record[2]
        by_thread[(event.get("pid"), event.get("tid"))].append(record)
    for thread, records in by_thread.items():
        slices = sorted(ops.get(thread, []))
        stack, position = [], 0
        for time, order, _ in sorted(records, key=lambda r: (r[0], r[1])):
            while position < len(slices) and slices[position][0] <= time:
                slice_ = slices[position]
                while stack and -stack[-1][1] <= slice_[0]:
                    stack.pop()
                stack.append(slice_)
                position += 1
            while stack and -stack[-1][1] <= time:
                stack.pop()
            op = ""
            for slice_ in reversed(stack):
                if slice_[4]:
                    op = slice_[3]
                    break
            attributed[order] = (op, " > ".join(s[3] for s in stack))
    for windows in steps.values():
        windows.sort()
    devices = collections.OrderedDict()
    for time, order, event in sorted(memory, key=lambda r: (r[0], r[1])):
        args = event["args"]
        name = device_name(args["Device Type"], args.get("Device Id", -1))
        device = devices.setdefault(name, {"events": [], "last": {}})
        op, chain = attributed[order]
        if args["Bytes"] < 0 and args["Addr"] in device["last"]:
            op, chain = device["last"][args["Addr"]]
        elif args["Bytes"] >= 0:
            device["last"][args["Addr"]] = (op, chain)
        windows, step = steps.get(event.get("pid"), []), -1
        at = bisect.bisect_right(windows, (time, float("inf"), 0)) - 1
        if at >= 0 and time < windows[at][1]:
            step = windows[at][2]
        device["events"].append(((time - earliest) * 1000, args["Total Allocated"],
                                 args["Bytes"], args["Addr"], op, chain, step))
    for name, device in devices.items():
        heaps = [e[1] for e in device["events"]]
        peak = heaps.index(max(heaps))
        live = {}
        for time, heap, size, address, op, chain, step in device["events"][:peak + 1]:
            if size >= 0:
                live[address] = (size, op)
            else:
                live.pop(address, None)
        rows = collections.Counter(live.values())
        before = heaps[peak] - sum(size for size, _ in live.values())
        print(name, len(heaps), heaps[peak], device["events"][peak][0],
              len(rows) + (before > 0))


def description(text):
    """dtype, shape, requested bytes and allocator from the O text."""
    fields, dims, block, shape = {}, [], [], False
    for line in text.split("\n"):
        line = line.strip()
        if line.endswith("{"):
            block.append(line[:-1].strip())
            if block == ["shape"]:
                shape = True
            if block == ["shape", "dim"]:
                dims.append(0)
        elif line == "}":
            block.pop()
        elif ":" in line:
            key, value = line.split(":", 1)
            fields[(tuple(block), key)] = value.strip()
            if block == ["shape", "dim"] and key == "size":
                dims[-1] = int(value)
    return (fields.get(((), "dtype"), ""), "[%s]" % ",".join(map(str, dims)) if shape else "unknown",
            int(fields.get((("allocation_description",), "requested_bytes"), 0)),
            fields.get((("allocation_description",), "allocator_name"), ""))


def timeline(events, earliest):
    allocators_pid = {e["pid"] for e in events
                      if e.get("ph") == "M" and e.get("name") == "process_name"
                      and e.get("args", {}).get("name") == "Allocators"}
    counters, tensors = collections.OrderedDict(), collections.OrderedDict()
    for order, event in enumerate(events):
        phase = event.get("ph")
        if phase == "C" and event.get("cat") == "Memory" and event.get("pid") in allocators_pid:
            counters.setdefault(event["name"], []).append(
                (nanoseconds(event["ts"]), order, event["args"][event["name"]]))
        elif phase in ("N", "O", "D") and "id" in event:
            tensor = tensors.setdefault((event.get("pid"), event["id"]), {"name": event["name"]})
            if phase == "N":
                tensor["create"] = nanoseconds(event["ts"])
            elif phase == "D":
                tensor["delete"] = nanoseconds(event["ts"])
            else:
                tensor["description"] = description(
                    event["args"]["snapshot"]["tensor_description"])
    for name, values in counters.items():
        values.sort(key=lambda v: (v[0], v[1]))
        tuples = []
        for tensor in tensors.values():
            if tensor.get("description", ("", "", 0, None))[3] == name and "create" in tensor:
                size = tensor["description"][2]
                tuples.append((tensor["create"], size, tensor["name"]))
                if "delete" in tensor:
                    tuples.append((tensor["delete"], -size, tensor["name"]))
        tuples.sort()
        heaps = [v[2] for v in values]
        peak = heaps.index(max(heaps))
        live = set()
        for time, size, tensor_name in tuples[:peak + 1]:
            if size < 0:
                live.discard(tensor_name)
            else:
                live.add(tensor_name)
        print(name, len(heaps), heaps[peak], (values[peak][0] - earliest) * 1000, len(live))


def main():
    path = sys.argv[1]
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as file:
        document = json.load(file)
    events = document["traceEvents"] if isinstance(document, dict) else document
    earliest = min(nanoseconds(e["ts"]) for e in events if isinstance(e, dict) and "ts" in e)
    if any(e.get("name") == "[memory]" for e in events):
        pytorch(events, earliest)
    else:
        timeline(events, earliest)


if __name__ == "__main__":
    main()
