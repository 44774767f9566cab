#!/bin/sh
# bench_torch_snapshot.sh: the PyTorch memory snapshot part of `make bench`
# (issue 23), run by bench.sh. Generated snapshots of about 300 MB and
# 1 GB (tests/generate_torch_snapshot: two devices, C++ frames, shared
# frame dicts and lists), memtop --summary against Python's pickle.load
# plus the spec's replay (bench/peer_torch_snapshot.py, one round: it is
# slow), the peak resident size against the file, and the viewer's first
# screen of the 1 GB one on a 200x60 pseudo-terminal. Prints a table.
#
#     bench_torch_snapshot.sh BUILDDIR CACHE RUNS
set -eu
build=$1 cache=$2 runs=$3
generator=$build/tests/generate_torch_snapshot
run=$build/bench/bench_run
results=$cache/torch-results.$$
trap 'rm -f "$results".*' EXIT INT TERM
say() { printf '%s\n' "$*" >&2; }

# name ENTRIES: the snapshot of ENTRIES entries per device, made once.
snapshot() {
    if [ ! -s "$cache/$1" ] || [ "$generator" -nt "$cache/$1" ]; then
        say "generating $cache/$1"
        "$generator" --entries "$2" --max-entries 0 --seed 1 -o "$cache/$1.tmp"
        mv "$cache/$1.tmp" "$cache/$1"
    fi
}
snapshot torch-300m.pickle 1950000
snapshot torch-1g.pickle 6500000

for name in torch-300m torch-1g; do
    file=$cache/$name.pickle
    say "$name: memtop --summary, $runs rounds; Python pickle.load + replay, 1 round"
    "$run" -n "$runs" -w "$file" -- memtop "$build/memtop" --summary "$file" > "$results.$name"
    if command -v python3 > /dev/null 2>&1; then
        "$run" -n 1 -w "$file" -- python python3 "$(dirname "$0")/peer_torch_snapshot.py" "$file" \
            >> "$results.$name" || say "the Python peer failed on $name"
    fi
    wc -c < "$file" > "$results.$name.size"
done
say "torch-1g: the viewer's first screen on a 200x60 pseudo-terminal, $runs rounds"
: > "$results.view"
round=0
while [ "$round" -lt "$runs" ]; do
    cat "$cache/torch-1g.pickle" > /dev/null
    if "$build/bench/pty_keys" --until Snapshots 200 60 1 "" -- "$build/memtop" --no-settings \
        "$cache/torch-1g.pickle" > "$results.pty" 2> /dev/null; then
        grep '^first_frame_ms ' "$results.pty" >> "$results.view"
    fi
    round=$((round + 1))
done

echo
echo "PyTorch memory snapshots (issue 23): memtop --summary against Python's"
echo "pickle.load + the spec's replay; medians of $runs rounds (Python: 1)"
for name in torch-300m torch-1g; do
    awk -v size="$(cat "$results.$name.size")" -v name="$name" '
        { seconds[$1] = $3; kib[$1] = $6 }
        END {
            mb = size / 1e6
            printf "  %-10s %6.0f MB  memtop %7.3f s  %5.0f MB/s  (>= 500: %s)  peak RSS %.2fx the file (<= 0.5x: %s)\n",
                name, mb, seconds["memtop"], mb / seconds["memtop"],
                (mb / seconds["memtop"] >= 500) ? "met" : "NOT met",
                kib["memtop"] * 1024 / size, (kib["memtop"] * 1024 <= 0.5 * size) ? "met" : "NOT met"
            if ("python" in seconds)
                printf "  %-10s %9s  Python %7.3f s  %.1fx the time of memtop (>= 20x: %s)  peak RSS %.2fx the file\n",
                    "", "", seconds["python"], seconds["python"] / seconds["memtop"],
                    (seconds["python"] >= 20 * seconds["memtop"]) ? "met" : "NOT met",
                    kib["python"] * 1024 / size
        }' "$results.$name"
done
if [ -s "$results.view" ]; then
    sort -n -k 2 "$results.view" | awk '{ v[NR] = $2 } END {
        first = v[int((NR + 1) / 2)]
        printf "  torch-1g viewer, first screen: %.0f ms (median of %d; <= 2 s: %s)\n",
            first, NR, (first <= 2000) ? "met" : "NOT met" }'
else
    echo "  torch-1g viewer, first screen: not measured (the viewer did not run on the pty)"
fi
