#!/bin/sh
# bench.sh: what `make bench` runs. Generates the inputs once (cached
# outside the source tree), runs memtop's loaders and the plain
# approaches ("peers") alternately, several times, and prints a table of
# medians and ratios.
#
#     bench.sh BUILDDIR
#
# Environment: MEMTOP_BENCH_RUNS (rounds, default 11: this virtual
# machine has slow spells of a second or two, which a median of 5 did not
# always outvote; the slow JSON peer and the 10M case get at most 3), MEMTOP_BENCH_CACHE (default $XDG_CACHE_HOME/memtop-bench,
# else /tmp/memtop-bench). Needs about 2 GB of disk in the cache.
# MEMTOP_BENCH_BASELINE: another memtop binary (say an older commit's,
# built the same way) to run beside this one in the same rounds of the
# MemoryProfile, Chrome-trace and XSpace loads, so "not slower than
# before" is one table of one run rather than two tables from days the
# machine ran at different speeds.
set -eu

build=${1:?usage: bench.sh BUILDDIR}
build=$(cd "$build" && pwd)
runs=${MEMTOP_BENCH_RUNS:-11}
json_runs=$((runs < 3 ? runs : 3))
if [ -n "${MEMTOP_BENCH_CACHE:-}" ]; then
    cache=$MEMTOP_BENCH_CACHE
elif [ -n "${XDG_CACHE_HOME:-}" ]; then
    cache=$XDG_CACHE_HOME/memtop-bench
else
    cache=/tmp/memtop-bench
fi
mkdir -p "$cache"

memtop=$build/memtop
generator=$build/tests/generate_profile
run=$build/bench/bench_run
results=$cache/results.$$
trap 'rm -f "$results".*' EXIT INT TERM

say() { printf '%s\n' "$*" >&2; }

# generate NAME ARGS...: $cache/NAME from the generator, unless it is
# there and newer than the generator (its output is deterministic).
generate() {
    generate_with "$generator" "$@"
}

# generate_with GENERATOR NAME ARGS...: the same with another generator.
generate_with() {
    maker=$1 name=$2
    shift 2
    if [ ! -s "$cache/$name" ] || [ "$maker" -nt "$cache/$name" ]; then
        say "generating $cache/$name"
        "$maker" "$@" -o "$cache/$name.tmp"
        mv "$cache/$name.tmp" "$cache/$name"
    fi
}

generate v0-1m.pb --format pb --version 0 --snapshots 1000000 --allocators 1 --seed 1
generate v0-1m.json --format json --version 0 --snapshots 1000000 --allocators 1 --seed 1
generate v0-10m.pb --format pb --version 0 --snapshots 10000000 --allocators 1 --seed 1

size_of() { wc -c < "$1" | tr -d ' '; }

# The files are read from the page cache in every run: one read first,
# and bench_run -w reads the input again before each run, since this
# machine's page cache may let pages of it go in between.
for file in v0-1m.pb v0-1m.json v0-10m.pb; do
    cat "$cache/$file" > /dev/null
done

# Other work on the machine slows both sides of a comparison alike, but
# shows in the absolute numbers: the table says how busy it was.
load=$(cut -d ' ' -f 1-3 /proc/loadavg 2> /dev/null || echo unknown)

baseline=${MEMTOP_BENCH_BASELINE:-}
if [ -n "$baseline" ] && [ ! -x "$baseline" ]; then
    say "MEMTOP_BENCH_BASELINE=$baseline is not an executable file"
    exit 2
fi

# Each run below ends with "$@": the baseline's command on the same
# input (set -- ... just before it), or nothing.
say "1M snapshots, binary protobuf: memtop and protobuf-c${baseline:+ and the baseline}, $runs rounds"
set -- ${baseline:+-- baseline "$baseline" --summary "$cache/v0-1m.pb"}
"$run" -n "$runs" -w "$cache/v0-1m.pb" -- memtop "$memtop" --summary "$cache/v0-1m.pb" \
    -- protobuf-c "$build/bench/peer_protobuf_c" "$cache/v0-1m.pb" "$@" > "$results.pb"
say "1M snapshots, proto3 JSON: memtop and cJSON${baseline:+ and the baseline}, $json_runs rounds"
set -- ${baseline:+-- baseline "$baseline" --summary "$cache/v0-1m.json"}
"$run" -n "$json_runs" -w "$cache/v0-1m.json" -- memtop "$memtop" --summary "$cache/v0-1m.json" \
    -- cJSON "$build/bench/peer_cjson" "$cache/v0-1m.json" "$@" > "$results.json"
say "10M snapshots, binary protobuf: memtop${baseline:+ and the baseline}, $json_runs rounds"
set -- ${baseline:+-- baseline "$baseline" --summary "$cache/v0-10m.pb"}
"$run" -n "$json_runs" -w "$cache/v0-10m.pb" -- memtop "$memtop" --summary "$cache/v0-10m.pb" \
    "$@" > "$results.big"
say "chart columns over 10M snapshots at every zoom"
"$build/bench/frame_bench" "$cache/v0-10m.pb" 200 > "$results.frame" 2> /dev/null
say "the viewer on a 200x60 pseudo-terminal"
# Shift-Tab: from the peak table, where the viewer starts, to the chart,
# whose cursor the Right arrow then moves one column a step.
if "$build/bench/pty_keys" 200 60 20 "$(printf '\033[Z')" -- "$memtop" "$cache/v0-1m.pb" \
    > "$results.pty" 2> /dev/null; then :; else : > "$results.pty"; fi

# ---- live allocations (issue 13): the rows live at 500 random times of
# the 10M-snapshot timeline and what grew before each, from the index of
# checkpoints; its weight next to the timeline's columns ----
say "live allocations at any time, 10M snapshots: 500 queries"
if "$build/bench/live_bench" "$cache/v0-10m.pb" 0 500 > "$results.live" 2> /dev/null; then :; else
    : > "$results.live"
fi

# ---- Chrome traces (issue 12): 1 GB traces of both producers, memtop
# --summary against Python's json.load plus the same extraction
# (bench/peer_trace.py, one run: it needs minutes and ~10 GB), in a table
# of their own ----
trace_generator=$build/tests/generate_trace
for producer in pytorch timeline; do
    name=$producer-1g.trace.json
    if [ ! -s "$cache/$name" ] || [ "$trace_generator" -nt "$cache/$name" ]; then
        say "generating $cache/$name"
        "$trace_generator" --producer $producer --size 1G -o "$cache/$name.tmp"
        mv "$cache/$name.tmp" "$cache/$name"
    fi
done
for producer in pytorch timeline; do
    say "1 GB $producer trace: memtop, $json_runs rounds; Python, 1 round"
    set -- ${baseline:+-- baseline "$baseline" --summary "$cache/$producer-1g.trace.json"}
    "$run" -n "$json_runs" -w "$cache/$producer-1g.trace.json" \
        -- memtop "$memtop" --summary "$cache/$producer-1g.trace.json" "$@" > "$results.$producer"
    if command -v python3 > /dev/null 2>&1; then
        "$run" -n 1 -w "$cache/$producer-1g.trace.json" -- python \
            python3 "$(dirname "$0")/peer_trace.py" "$cache/$producer-1g.trace.json" \
            >> "$results.$producer" || true
    fi
done
# ---- XSpace (issue 11): memtop --summary on .xplane.pb, against protobuf-c
# unpacking the whole XSpace (bench/peer_xspace_protobuf_c) and Python's
# protobuf (bench/peer_xspace.py). Inputs: tf-gpu captures from the
# XSpace generator (the style with the most host events: memory events are
# about a third of the bytes, device kernels the rest), 80 MB and 1 GB.
# Also the viewer's first screen of the 1 GB capture, on a pty.
xspace_generator=$build/tests/generate_xspace
xspace_runs=$((runs < 5 ? runs : 5))
big_runs=$((runs < 3 ? runs : 3))
for size in 80M 1G; do
    generate_with "$xspace_generator" "xspace-tf-gpu-$size.xplane.pb" --style tf-gpu --size "$size"
done
# Python's protobuf: Debian's python3-protobuf for /usr/bin/python3 (not a
# pyenv python3 on PATH), and protoc for xplane_pb2.py.
python_peer=""
if ! /usr/bin/python3 -c 'import google.protobuf' 2>/dev/null || ! command -v protoc >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        say "installing python3-protobuf and protobuf-compiler for the Python peer"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            python3-protobuf protobuf-compiler >/dev/null 2>&1 || true
    fi
fi
if /usr/bin/python3 -c 'import google.protobuf' 2>/dev/null && command -v protoc >/dev/null 2>&1 &&
    protoc --proto_path="$(dirname "$0")" --python_out="$cache" "$(dirname "$0")/xplane.proto"; then
    python_peer=yes
else
    say "no Python peer: install python3-protobuf and protobuf-compiler (Debian) to measure it"
fi
xspace80=$cache/xspace-tf-gpu-80M.xplane.pb
xspace1g=$cache/xspace-tf-gpu-1G.xplane.pb
cat "$xspace80" > /dev/null
say "XSpace 80 MB: memtop, protobuf-c${python_peer:+ and Python}, $xspace_runs rounds"
set -- ${baseline:+-- baseline "$baseline" --summary "$xspace80"}
if [ -n "$python_peer" ]; then
    set -- "$@" -- python /usr/bin/python3 "$(dirname "$0")/peer_xspace.py" "$cache" "$xspace80"
fi
"$run" -n "$xspace_runs" -w "$xspace80" -- memtop "$memtop" --summary "$xspace80" \
    -- protobuf-c "$build/bench/peer_xspace_protobuf_c" "$xspace80" "$@" \
    > "$results.xspace80" || say "an XSpace 80 MB run failed"
say "XSpace 1 GB: memtop and protobuf-c (about 9 GB of memory), $big_runs rounds"
set -- ${baseline:+-- baseline "$baseline" --summary "$xspace1g"}
"$run" -n "$big_runs" -w "$xspace1g" -- memtop "$memtop" --summary "$xspace1g" \
    -- protobuf-c "$build/bench/peer_xspace_protobuf_c" "$xspace1g" "$@" \
    > "$results.xspace1g" || say "an XSpace 1 GB run failed"
# The viewer's first screen, as for the 1M pb above (bench/pty_keys), from
# start to the last byte of the loaded view: --until waits for a word of
# its summary pane, since the progress bar may pause longer than the
# quiet time that ends a screen. No settings: the default view.
say "XSpace 1 GB: the viewer's first screen on a 200x60 pseudo-terminal, $big_runs rounds"
: > "$results.xspaceview"
round=0
while [ "$round" -lt "$big_runs" ]; do
    cat "$xspace1g" > /dev/null
    if "$build/bench/pty_keys" --until Snapshots 200 60 1 "" -- "$memtop" --no-settings "$xspace1g" \
        > "$results.xspacepty" 2> /dev/null; then
        grep '^first_frame_ms ' "$results.xspacepty" >> "$results.xspaceview"
    else
        say "an XSpace 1 GB viewer run failed"
    fi
    round=$((round + 1))
done
xspace_load=$(cut -d ' ' -f 1-3 /proc/loadavg 2> /dev/null || echo unknown)

machine=$(uname -srm)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2> /dev/null | head -n 1)
cores=$(getconf _NPROCESSORS_ONLN 2> /dev/null || echo '?')
memory=$(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo 2> /dev/null)

awk -v pb_size="$(size_of "$cache/v0-1m.pb")" \
    -v json_size="$(size_of "$cache/v0-1m.json")" \
    -v big_size="$(size_of "$cache/v0-10m.pb")" \
    -v runs="$runs" -v json_runs="$json_runs" \
    -v machine="$machine" -v cpu="${cpu:-unknown cpu}" -v cores="$cores" \
    -v memory="$memory" -v load="$load" -v when="$(date -u '+%Y-%m-%d')" \
    -v baseline="$baseline" '
    FILENAME ~ /\.pb$/    { pb[$1] = $3; pb_rss[$1] = $6 }
    FILENAME ~ /\.json$/  { json[$1] = $3; json_rss[$1] = $6 }
    FILENAME ~ /\.big$/   { big[$1] = $3; big_rss[$1] = $6 }
    FILENAME ~ /\.frame$/ { frame[$1] = $2 }
    FILENAME ~ /\.pty$/   { pty[$1] = $2 }
    FILENAME ~ /\.live$/  { live[$1] = $2 }
    function mb(bytes) { return sprintf("%.0f MB", bytes / 1e6) }
    function rate(bytes, seconds) { return sprintf("%.0f MB/s", bytes / 1e6 / seconds) }
    function rss(kib, bytes) { return sprintf("%.2fx", kib * 1024 / bytes) }
    function verdict(ok) { return ok ? "met" : "NOT met" }
    function row(a, b, c, d, e, f,    line) {
        line = sprintf("%-28s %-22s %-24s %-10s %s", a, b, c, d, e f)
        sub(/ +$/, "", line)
        print line
    }
    # Live allocations (issue 13): a query at any time, and its index.
    function live_rows() {
        if (!("live_query_max_ms" in live)) {
            row("live at T, 10M snapshots", "not measured (live_bench did not run)", "", "", "", "")
            return
        }
        row("live at T, 10M snapshots", sprintf("%.2f ms (max of 500)", live["live_query_max_ms"]),
            sprintf("median %.2f ms", live["live_query_median_ms"]), "",
            "<= 20 ms: ", verdict(live["live_query_max_ms"] <= 20))
        row("  what grew since T0", sprintf("%.2f ms (max)", live["live_grown_max_ms"]), "", "",
            "", "")
        row("  checkpoints", sprintf("%.3f %% of columns", live["live_checkpoint_percent"]),
            sprintf("%.1f MB of %.0f MB", live["live_checkpoint_bytes"] / 1e6,
                    live["live_column_bytes"] / 1e6), "",
            "<= 25 %: ", verdict(live["live_checkpoint_percent"] <= 25))
        row("  index, built once", sprintf("%.0f ms", live["live_build_ms"]), "", "", "", "")
    }
    END {
        printf "memtop benchmark, %s: %s, %s cores, %s RAM, %s\n", when, cpu, cores, memory, machine
        printf "medians of %d alternating runs (%d for JSON and 10M), wall clock; RSS: peak resident\n", runs, json_runs
        printf "size (ru_maxrss) over the file size; load average before the runs: %s\n\n", load
        row("case", "memtop", "peer", "ratio", "target", "")
        row("pb v0, 1M snapshots", sprintf("%.3f s %s", pb["memtop"], rate(pb_size, pb["memtop"])),
            sprintf("protobuf-c %.3f s", pb["protobuf-c"]),
            sprintf("%.1fx", pb["protobuf-c"] / pb["memtop"]),
            ">= 5x: ", verdict(pb["protobuf-c"] / pb["memtop"] >= 5))
        row(sprintf("  (%s)  peak RSS", mb(pb_size)), rss(pb_rss["memtop"], pb_size),
            rss(pb_rss["protobuf-c"], pb_size), "", "<= 1.0x: ", verdict(pb_rss["memtop"] * 1024 <= pb_size))
        row("JSON v0, 1M snapshots", sprintf("%.3f s %s", json["memtop"], rate(json_size, json["memtop"])),
            sprintf("cJSON %.3f s", json["cJSON"]),
            sprintf("%.1fx", json["cJSON"] / json["memtop"]),
            "no slower: ", verdict(json["memtop"] <= json["cJSON"]))
        row(sprintf("  (%s)  peak RSS", mb(json_size)), rss(json_rss["memtop"], json_size),
            rss(json_rss["cJSON"], json_size), "", "<= 2x: ", verdict(json_rss["memtop"] * 1024 <= 2 * json_size))
        row("pb v0, 10M snapshots", sprintf("%.3f s %s", big["memtop"], rate(big_size, big["memtop"])),
            "-", "", "", "")
        row(sprintf("  (%s)  peak RSS", mb(big_size)), rss(big_rss["memtop"], big_size), "-", "",
            "<= 1.0x: ", verdict(big_rss["memtop"] * 1024 <= big_size))
        row("chart columns, 10M, 200 cols", sprintf("%.3f ms (any zoom)", frame["indexed_max_ms"]),
            sprintf("full scan %.3f ms", frame["scan_full_ms"]),
            sprintf("%.0fx", frame["scan_full_ms"] / frame["indexed_max_ms"]),
            "<= 1 ms, >= 10x: ", verdict(frame["indexed_max_ms"] <= 1 && frame["scan_full_ms"] >= 10 * frame["indexed_max_ms"]))
        if ("key_bytes_max" in pty && pty["key_bytes_max"] == 0) {
            row("viewer 200x60, cursor step", "not measured: the step drew nothing", "", "", "", "")
            row("", "(the viewer did not act on Shift-Tab, Right)", "", "", "", "")
            row("viewer, first frame, 1M pb", sprintf("%.0f ms", pty["first_frame_ms"]), "-", "",
                "<= 0.5 s: ", verdict(pty["first_frame_ms"] <= 500))
        } else if ("key_bytes_median" in pty) {
            row("viewer 200x60, cursor step", sprintf("%d B (max %d B)", pty["key_bytes_median"], pty["key_bytes_max"]),
                sprintf("full repaint %d B", pty["first_frame_bytes"]),
                pty["key_bytes_median"] ? sprintf("%.0fx", pty["first_frame_bytes"] / pty["key_bytes_median"]) : "-",
                "<= 2 KB: ", verdict(pty["key_bytes_max"] > 0 && pty["key_bytes_max"] <= 2048))
            row("viewer, first frame, 1M pb", sprintf("%.0f ms", pty["first_frame_ms"]), "-", "",
                "<= 0.5 s: ", verdict(pty["first_frame_ms"] <= 500))
        } else {
            row("viewer 200x60", "not measured (the viewer did not run on the pty)", "", "", "", "")
        }
        live_rows()
        if ("baseline" in pb) {
            printf "\nthe same rounds, against the baseline build (%s)\n", baseline
            row("case", "memtop", "baseline", "ratio", "", "")
            baseline_row("pb v0, 1M snapshots", pb["memtop"], pb["baseline"], pb_rss["memtop"], pb_rss["baseline"])
            baseline_row("JSON v0, 1M snapshots", json["memtop"], json["baseline"], json_rss["memtop"], json_rss["baseline"])
            baseline_row("pb v0, 10M snapshots", big["memtop"], big["baseline"], big_rss["memtop"], big_rss["baseline"])
        }
    }
    # One case against the baseline: times, their ratio (above 1: memtop
    # now is faster), peak resident sizes.
    function baseline_row(name, now, then, now_kib, then_kib) {
        row(name, sprintf("%.3f s", now), sprintf("%.3f s", then), sprintf("%.2fx", then / now), "", "")
        row("  peak RSS", sprintf("%.0f MiB", now_kib / 1024), sprintf("%.0f MiB", then_kib / 1024),
            sprintf("%.2fx", then_kib / now_kib), "", "")
    }' "$results.pb" "$results.json" "$results.big" "$results.frame" "$results.pty" "$results.live"

# The Chrome-trace table (issue 12's targets).
awk -v pytorch_size="$(size_of "$cache/pytorch-1g.trace.json")" \
    -v timeline_size="$(size_of "$cache/timeline-1g.trace.json")" '
    FILENAME ~ /\.pytorch$/  { time["pytorch", $1] = $3; peak["pytorch", $1] = $6 }
    FILENAME ~ /\.timeline$/ { time["timeline", $1] = $3; peak["timeline", $1] = $6 }
    function verdict(ok) { return ok ? "met" : "NOT met" }
    function row(a, b, c, d, e, f,    line) {
        line = sprintf("%-28s %-22s %-24s %-10s %s", a, b, c, d, e f)
        sub(/ +$/, "", line)
        print line
    }
    function trace_rows(producer, size,    m, p) {
        m = time[producer, "memtop"]
        p = time[producer, "python"]
        row(sprintf("%s trace, %.0f MB", producer, size / 1e6),
            sprintf("%.3f s %.0f MB/s", m, size / 1e6 / m),
            p ? sprintf("python %.1f s", p) : "python: not run",
            p ? sprintf("%.1fx", p / m) : "",
            ">= 500 MB/s, >= 5x: ", verdict(size / 1e6 / m >= 500 && (!p || p / m >= 5)))
        row("  peak RSS", sprintf("%.2fx", peak[producer, "memtop"] * 1024 / size),
            p ? sprintf("%.2fx", peak[producer, "python"] * 1024 / size) : "-", "",
            "<= 0.5x: ", verdict(peak[producer, "memtop"] * 1024 <= 0.5 * size))
    }
    # Against the baseline build in the same rounds (issue 22: within 10 %).
    function baseline_rows(producer,    m, b) {
        m = time[producer, "memtop"]
        b = time[producer, "baseline"]
        if (!b || !m)
            return
        row(sprintf("  %s, baseline", producer), sprintf("%.3f s", m), sprintf("baseline %.3f s", b),
            sprintf("%.2fx", m / b), "memtop/baseline <= 1.10: ", verdict(m <= 1.10 * b))
    }
    END {
        printf "\n"
        row("Chrome traces (issue 12)", "memtop --summary", "json.load + extraction", "ratio",
            "target", "")
        trace_rows("pytorch", pytorch_size)
        trace_rows("timeline", timeline_size)
        baseline_rows("pytorch")
        baseline_rows("timeline")
    }' "$results.pytorch" "$results.timeline"

# The XSpace table (its own block: docs/performance.md quotes it under "XSpace captures").
awk -v small="$(size_of "$xspace80")" -v large="$(size_of "$xspace1g")" -v load="$xspace_load" '
    FILENAME ~ /xspace80$/ { small_s[$1] = $3; small_rss[$1] = $6 }
    FILENAME ~ /xspace1g$/ { large_s[$1] = $3; large_rss[$1] = $6 }
    FILENAME ~ /xspaceview$/ { view[++views] = $2 }
    function mb(bytes) { return sprintf("%.0f MB", bytes / 1e6) }
    function rss(kib, bytes) { return sprintf("%.2fx", kib * 1024 / bytes) }
    function verdict(ok) { return ok ? "met" : "NOT met" }
    function row(a, b, c, d, e, f,    line) {
        line = sprintf("%-28s %-22s %-24s %-10s %s", a, b, c, d, e f)
        sub(/ +$/, "", line)
        print line
    }
    END {
        printf "\nXSpace (.xplane.pb, tf-gpu style), memtop --summary; load average after: %s\n", load
        row("case", "memtop", "peer", "ratio", "target", "")
        if ("memtop" in small_s) {
            row(sprintf("xspace %s", mb(small)), sprintf("%.3f s", small_s["memtop"]),
                sprintf("protobuf-c %.3f s", small_s["protobuf-c"]),
                sprintf("%.1fx", small_s["protobuf-c"] / small_s["memtop"]),
                "<= 80 ms: ", verdict(small_s["memtop"] <= 0.080))
            if ("python" in small_s)
                row("", "", sprintf("Python %.3f s", small_s["python"]),
                    sprintf("%.1fx", small_s["python"] / small_s["memtop"]), "", "")
            row("  peak RSS", rss(small_rss["memtop"], small),
                rss(small_rss["protobuf-c"], small), "", "", "")
        } else {
            row(sprintf("xspace %s", mb(small)), "not measured (a run failed)", "", "", "", "")
        }
        if ("memtop" in large_s) {
            row(sprintf("xspace %s", mb(large)), sprintf("%.3f s", large_s["memtop"]),
                ("protobuf-c" in large_s) ? sprintf("protobuf-c %.3f s", large_s["protobuf-c"]) : "protobuf-c failed",
                ("protobuf-c" in large_s) ? sprintf("%.1fx", large_s["protobuf-c"] / large_s["memtop"]) : "-",
                "<= 1.5 s, >= 10x: ",
                verdict(large_s["memtop"] <= 1.5 && large_s["protobuf-c"] >= 10 * large_s["memtop"]))
            row("  peak RSS", rss(large_rss["memtop"], large),
                ("protobuf-c" in large_rss) ? rss(large_rss["protobuf-c"], large) : "-", "",
                "<= 0.5x: ", verdict(large_rss["memtop"] * 1024 <= 0.5 * large))
        } else {
            row(sprintf("xspace %s", mb(large)), "not measured (a run failed)", "", "", "", "")
        }
        # Against the baseline build in the same rounds (issue 22: within 10 %).
        if ("baseline" in small_s && "memtop" in small_s)
            row(sprintf("  %s, baseline", mb(small)), sprintf("%.3f s", small_s["memtop"]),
                sprintf("baseline %.3f s", small_s["baseline"]),
                sprintf("%.2fx", small_s["memtop"] / small_s["baseline"]),
                "memtop/baseline <= 1.10: ", verdict(small_s["memtop"] <= 1.10 * small_s["baseline"]))
        if ("baseline" in large_s && "memtop" in large_s)
            row(sprintf("  %s, baseline", mb(large)), sprintf("%.3f s", large_s["memtop"]),
                sprintf("baseline %.3f s", large_s["baseline"]),
                sprintf("%.2fx", large_s["memtop"] / large_s["baseline"]),
                "memtop/baseline <= 1.10: ", verdict(large_s["memtop"] <= 1.10 * large_s["baseline"]))
        if (views > 0) {
            for (i = 2; i <= views; i++)    # insertion sort: a few rounds
                for (j = i; j > 1 && view[j - 1] > view[j]; j--) {
                    t = view[j]; view[j] = view[j - 1]; view[j - 1] = t
                }
            first = view[int((views + 1) / 2)]
            row("  viewer, first screen",
                sprintf("%.0f ms (median of %d)", first, views), "-", "",
                "<= 2 s: ", verdict(first <= 2000))
        } else {
            row("  viewer, first screen",
                "not measured (the viewer did not run on the pty)", "", "", "", "")
        }
    }' "$results.xspace80" "$results.xspace1g" "$results.xspaceview"

# ---- PyTorch memory snapshots (issue 23): a table of their own ----
sh "$(dirname "$0")/bench_torch_snapshot.sh" "$build" "$cache" "$json_runs"
