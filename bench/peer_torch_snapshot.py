#!/usr/bin/env python3
"""peer_torch_snapshot.py: the plain way to get what `memtop --summary` says of
a PyTorch memory snapshot: `pickle.load` (as memory_viz's Python tooling
does), then the replay of docs/formats/torch_snapshot.md per
device: the state before the first entry (unmatched frees and ghost
blocks), allocated bytes after each entry (only free_completed ends an
allocation), reserved bytes from the segments, the first peak and what is
live there. Prints one line per device; the bench compares its time and
memory with memtop's.

    peer_torch_snapshot.py FILE
"""
import gzip
import pickle
import sys


def load(path):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rb") as f:
        return pickle.load(f)


def replay(device, trace, segments):
    blocks = [b for s in segments if s["device"] == device for b in s["blocks"]
              if b["state"] in ("active_allocated", "active_pending_free")]
    reserved = sum(s["total_size"] for s in segments if s["device"] == device)
    open_ = {}
    initial = 0
    for e in trace:
        action = e["action"]
        if action == "alloc":
            open_[e["addr"]] = e["size"]
        elif action == "free_completed":
            if open_.pop(e["addr"], None) is None:
                initial += e["size"]
        elif action in ("segment_alloc", "segment_map"):
            reserved -= e["size"]
        elif action in ("segment_free", "segment_unmap"):
            reserved += e["size"]
    initial += sum(b["requested_size"] for b in blocks if b["address"] not in open_)
    live = {}
    allocated = initial
    peak, peak_index, peak_live = allocated, -1, 0
    for i, e in enumerate(trace):
        action = e["action"]
        if action == "alloc":
            allocated += e["size"]
            live[e["addr"]] = e["size"]
        elif action == "free_completed":
            allocated -= live.pop(e["addr"], e["size"])
        if allocated > peak or peak_index < 0:
            peak, peak_index, peak_live = allocated, i, len(live)
    return initial, peak, peak_index, peak_live


def main():
    snapshot = load(sys.argv[1])
    segments = snapshot["segments"]
    for device, trace in enumerate(snapshot["device_traces"]):
        if trace:
            initial, peak, index, live = replay(device, trace, segments)
            print(f"cuda:{device} entries {len(trace)} initial {initial} peak {peak} "
                  f"at {index} live {live}")


if __name__ == "__main__":
    main()
