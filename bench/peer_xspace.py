#!/usr/bin/python3
"""peer_xspace.py: what a user's script does to get memory numbers out of
an XSpace with Python's protobuf: parse the whole file, then walk the first
/host:CPU plane's memory events the way XProf reads them (docs/formats/xspace.md
section 4), keep each allocator's summary in walk order, sort each
allocator's snapshots by time. Step grouping is left out, which only makes
it faster. The benchmark's Python peer for memtop's XSpace loader.

    peer_xspace.py MODULE_DIR FILE.xplane.pb

MODULE_DIR holds xplane_pb2.py, made by `protoc --python_out` from
bench/xplane.proto (bench.sh does it). Run it with the system python3
(/usr/bin/python3), which Debian's python3-protobuf package serves.
"""
import sys


def main():
    sys.path.insert(0, sys.argv[1])
    import xplane_pb2  # noqa: E402 (generated at bench time)

    with open(sys.argv[2], "rb") as stream:
        space = xplane_pb2.XSpace.FromString(stream.read())
    host = next((p for p in space.planes if p.name == "/host:CPU"), None)
    if host is None:
        sys.exit("no host plane")
    events = {key: value.name for key, value in host.event_metadata.items()}
    stats = {key: value.name for key, value in host.stat_metadata.items()}
    allocators = {}
    for line in host.lines:
        for event in line.events:
            name = events.get(event.metadata_id)
            if name not in ("MemoryAllocation", "MemoryDeallocation"):
                continue
            snapshot = {"time": event.offset_ps, "allocation": name == "MemoryAllocation"}
            memory_id = ""
            for stat in event.stats:
                key = stats.get(stat.metadata_id)
                if key is None:
                    continue
                kind = stat.WhichOneof("value")
                number = stat.int64_value if kind == "int64_value" else 0
                if key == "allocator_name":
                    memory_id = (stat.str_value if kind == "str_value" else
                                 stats.get(stat.ref_value, "") if kind == "ref_value" else "")
                elif key in ("index_on_host", "device_ordinal"):
                    memory_id = str(number)
                else:
                    snapshot[key] = number
            profile = allocators.setdefault(memory_id, {"snapshots": [], "peak": 0})
            profile["snapshots"].append(snapshot)
            in_use = snapshot.get("bytes_reserved", 0) + snapshot.get("bytes_allocated", 0)
            profile["lifetime"] = snapshot.get("peak_bytes_in_use", 0)
            if in_use >= profile["peak"]:
                profile["peak"] = in_use
                profile["peak_time"] = snapshot["time"]
    for memory_id in sorted(allocators):
        profile = allocators[memory_id]
        profile["snapshots"].sort(key=lambda snapshot: snapshot["time"])
        allocations = sum(1 for s in profile["snapshots"] if s["allocation"])
        print(f"{memory_id}: {len(profile['snapshots'])} snapshots, {allocations} allocations, "
              f"peak {profile['peak']} at {profile.get('peak_time', 0)} ps, "
              f"lifetime {profile.get('lifetime', 0)}")


if __name__ == "__main__":
    main()
