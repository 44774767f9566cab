#!/bin/sh
# Chrome traces end to end: generated traces of both producers (every
# ending, gzip, hostile names, out-of-order events, steps, OOM) against
# the values tests/generate_trace computed for them on its own
# (tests/trace_expect compares); the real PyTorch captures against numbers
# read from them by hand; a trace without memory events; the
# chrome-trace export (valid JSON, atomic, no overwrite) and its round
# trip on every demo file, generated profiles and traces. Prints TAP.
set -u
source_dir="${MEMTOP_SRCDIR:-.}"
build_dir="${MEMTOP_BUILDDIR:-.}"
. "$source_dir/tests/lib.sh"
work=$test_work
generate="$build_dir/tests/generate_trace"
expect_check="$build_dir/tests/trace_expect"
json_check="$build_dir/tests/json_check"
real="$source_dir/data/real"

# check_trace NAME GENERATOR-OPTIONS...: memtop's outputs for the trace
# against the generator's expectations.
check_trace() {
    name=$1
    shift
    out="$work/out-$tap_count"
    mkdir -p "$out"
    suffix=json
    case " $* " in *" --gzip "*) suffix=json.gz ;; esac
    trace="$work/trace.$suffix"
    if ! "$generate" "$@" -o "$trace" --expect "$work/expect"; then
        tap_not_ok "$name: the generator runs"
        return
    fi
    "$memtop" --summary --json "$trace" >"$out/summary.json" 2>"$out/stderr"
    "$memtop" --export chrome-trace "$trace" >"$out/trace.json" 2>/dev/null
    for index in $(awk -F '\t' '$1 == "allocator" { print $2 }' "$work/expect"); do
        id=$(awk -F '\t' -v i="$index" '$1 == "allocator" && $2 == i { print $3 }' "$work/expect")
        "$memtop" --export timeline --allocator "$id" "$trace" >"$out/timeline-$index.csv" 2>/dev/null
        "$memtop" --export allocations --allocator "$id" "$trace" >"$out/allocations-$index.csv" 2>/dev/null
    done
    if "$expect_check" "$work/expect" "$out" 2>"$out/check"; then
        tap_ok "$name"
    else
        tap_not_ok "$name" "$out/check"
    fi
}

# ---- generated traces against their expectations ----
for producer in timeline pytorch; do
    check_trace "$producer --tiny" --producer $producer --tiny
    check_trace "$producer, default" --producer $producer
    check_trace "$producer --hostile" --producer $producer --hostile --seed 3
    for ending in bare bare-unterminated bare-unterminated-comma bare-trailing-comma \
                  trailing-empty-object; do
        check_trace "$producer --ending $ending" --producer $producer --ending $ending --steps 2
    done
    check_trace "$producer --gzip" --producer $producer --gzip --seed 5
    check_trace "$producer --size 2M (padding, elided snapshots)" --producer $producer \
        --size 2M --expect-snapshots 20
done
check_trace "pytorch --timestamps absolute" --producer pytorch --timestamps absolute
check_trace "pytorch --schedule (steps by time window)" --producer pytorch --schedule --steps 4
check_trace "pytorch --devices 2 --oom" --producer pytorch --devices 2 --oom
check_trace "pytorch, all at once" --producer pytorch --devices 2 --oom --schedule --hostile \
    --timestamps absolute --ending bare-unterminated-comma --seed 9

# ---- the real captures (data/real/README; numbers read by hand) ----
torch="$real/torch-mlp.pt.trace.json.gz"
if [ -f "$torch" ]; then
    memtop_run --summary --json "$torch"
    memtop_expect "torch-mlp: cuda:0 then cpu, 289 and 10 events" 0 \
        out '"allocators":\[{"id":"cuda:0","snapshots":289,"allocations":145,"deallocations":144,' \
        out '{"id":"cpu","snapshots":10,"allocations":5,"deallocations":5,'
    memtop_expect "torch-mlp: peak = the largest Total Allocated, free from Total Reserved" 0 \
        out '"lifetime_peak_bytes":100390400,"peak":{"bytes":100390400,' \
        out '"stack_bytes":null,"free_bytes":17050112,"fragmentation":null}'
    memtop_expect "torch-mlp: capacity unknown, summary computed" 0 \
        out '"capacity_bytes":null' out '"summary_computed":true,"timeline_sampled":false'
    memtop_run --export allocations "$torch"
    memtop_expect "torch-mlp: blocks from before the profile are a row" 0 \
        out '^allocated before the profile,[0-9]*,[0-9]*,1,persist/dynamic,INVALID,unknown,'
    memtop_run --summary --json "$real/torch-mlp-schedule.pt.trace.json.gz"
    memtop_expect "torch-mlp-schedule: 174 and 6 events" 0 \
        out '{"id":"cuda:0","snapshots":174,' out '{"id":"cpu","snapshots":6,'
    memtop_run --export timeline "$real/torch-mlp-schedule.pt.trace.json.gz"
    memtop_expect "torch-mlp-schedule: steps 2 to 4 by time" 0 \
        out ',2,,' out ',3,,' out ',4,,'
else
    tap_skip "the real PyTorch captures" "data/real is not there"
fi
jax="$real/jax-mlp-steps.trace.json.gz"
if [ -f "$jax" ]; then
    memtop_run --summary "$jax"
    memtop_expect "a trace without memory events: status 2 and why" 2 \
        err "no memory events in this trace (PyTorch: profile_memory=True; TensorFlow timeline: show_memory=True)"
else
    tap_skip "the JAX trace" "data/real is not there"
fi

# ---- the export ----
"$generate" --producer pytorch --hostile -o "$work/hostile.json"
memtop_run --export chrome-trace -o "$work/export.json" "$work/hostile.json"
memtop_expect "--export chrome-trace -o writes a file" 0
tap_check "the export is strict JSON" "$json_check" "$work/export.json"
memtop_run --export chrome-trace -o "$work/export.json" "$work/hostile.json"
memtop_expect "an existing file is not replaced" 1 err "already exists; --force replaces it"
memtop_run --export chrome-trace -o "$work/export.json" --force "$work/hostile.json"
memtop_expect "--force replaces it" 0
memtop_run --export chrome-trace --allocator cpu "$work/hostile.json"
memtop_expect "--allocator exports one allocator" 0 \
    out '"allocators":\[{"id":"cpu","pid":1,' out '"process_name","pid":1,"args":{"name":"cpu"}'
if grep -q '"pid":2' "$work/out"; then
    tap_not_ok "--allocator: no other allocator's events"
else
    tap_ok "--allocator: no other allocator's events"
fi

# round_trip NAME FILE: the export read back gives the same summary (but
# the file's name and format), timelines, rows and HLO modules.
round_trip() {
    name=$1 file=$2
    "$memtop" --export chrome-trace -o "$work/round.json" --force "$file" 2>/dev/null
    strip='s/^{"file":"[^"]*","format":"[^"]*","gzip":[a-z]*,//'
    "$memtop" --summary --json "$file" 2>/dev/null | sed "$strip" >"$work/a.summary"
    "$memtop" --summary --json "$work/round.json" 2>/dev/null | sed "$strip" >"$work/b.summary"
    if ! cmp -s "$work/a.summary" "$work/b.summary" || ! [ -s "$work/a.summary" ]; then
        diff "$work/a.summary" "$work/b.summary" >"$work/diff" 2>&1
        tap_not_ok "round trip: $name: the same summary" "$work/diff"
        return
    fi
    "$memtop" --export hlo "$file" >"$work/a.csv"
    "$memtop" --export hlo "$work/round.json" >"$work/b.csv"
    same=true
    cmp -s "$work/a.csv" "$work/b.csv" || same=false
    for id in $(sed 's/"id":"\([^"]*\)"/\n\1\n/g' "$work/a.summary" | grep -v '[{}:,]'); do
        for view in timeline allocations; do
            "$memtop" --export $view --allocator "$id" "$file" >"$work/a.csv" 2>/dev/null
            "$memtop" --export $view --allocator "$id" "$work/round.json" >"$work/b.csv" 2>/dev/null
            cmp -s "$work/a.csv" "$work/b.csv" || { same=false; echo "# $view $id" >>"$work/diff"; }
        done
    done
    if $same; then tap_ok "round trip: $name"; else tap_not_ok "round trip: $name" "$work/diff"; fi
}

for file in "$source_dir"/data/demo.*; do
    round_trip "$(basename "$file")" "$file"
done
"$build_dir/tests/generate_profile" --version 0 --snapshots 3000 --hlo 3 --unsorted \
    -o "$work/generated.pb"
round_trip "a generated version 0 profile with HLO modules" "$work/generated.pb"
"$build_dir/tests/generate_profile" --version 1 --snapshots 3000 --format json \
    -o "$work/generated.json"
round_trip "a generated version 1 (sampled) profile" "$work/generated.json"
round_trip "a PyTorch trace with hostile names" "$work/hostile.json"
"$generate" --producer timeline --hostile -o "$work/timeline.json"
round_trip "a timeline.py trace with hostile names" "$work/timeline.json"
if [ -f "$torch" ]; then
    round_trip "torch-mlp.pt.trace.json.gz" "$torch"
    # The filter reads the context (issue 22): Adam's rows are aten::empty_strided
    # inside Optimizer.step#Adam.step; no row's own op names Adam.
    "$memtop" --export allocations --filter Adam "$torch" >"$work/adam.csv" 2>/dev/null
    "$memtop" --export allocations "$torch" >"$work/all.csv" 2>/dev/null
    # Records start with their op (aten::...); a stack's frames continue a
    # quoted field on the lines after.
    adam=$(grep -c '^aten::' "$work/adam.csv")
    all=$(grep -c '^aten::' "$work/all.csv")
    tap_check "torch-mlp: --filter Adam finds the optimizer's rows by their context ($adam of $all)" \
        test "$adam" -ge 1 -a "$adam" -lt "$all" -a \
        "$(grep '^aten::' "$work/all.csv" | cut -d, -f1 | grep -ci adam)" -eq 0
    # Leaf ops without a scope are one group each (issue 22): no key repeats.
    "$memtop" --export allocations --group-by scope "$torch" >"$work/scopes.csv" 2>/dev/null
    groups=$(($(wc -l <"$work/scopes.csv") - 1))
    distinct=$(tail -n +2 "$work/scopes.csv" | cut -d, -f1 | sort -u | wc -l)
    tap_check "torch-mlp: --group-by scope repeats no key ($groups groups, $distinct names)" \
        test "$groups" -ge 2 -a "$groups" -eq "$distinct" -a \
        "$(grep -c '^aten::mm,' "$work/scopes.csv")" -eq 1
    # The user's own line (with_stack=True, issue 22): torch_trace.py, not torch/optim/adam.py.
    "$memtop" --export allocations --group-by location "$torch" >"$work/locations.csv" 2>/dev/null
    tap_check "torch-mlp: --group-by location names the user's line torch_trace.py:15 step" \
        grep -q '^torch_trace.py:15 step,' "$work/locations.csv"
    if grep -q '^torch/' "$work/locations.csv"; then
        tap_not_ok "torch-mlp: --group-by location: no library file is a location"
    else
        tap_ok "torch-mlp: --group-by location: no library file is a location"
    fi
else
    tap_skip "torch-mlp: --filter Adam" "no data/real"
    tap_skip "torch-mlp: --group-by scope" "no data/real"
    tap_skip "torch-mlp: --group-by location" "no data/real"
    tap_skip "torch-mlp: --group-by location, library" "no data/real"
fi
if "$build_dir/tests/generate_skyline" -o "$work/report.sqlite" 2>/dev/null; then
    round_trip "a Skyline report (entries, kinds, stacks, no timeline)" "$work/report.sqlite"
else
    tap_skip "round trip: a Skyline report" "no tests/generate_skyline"
fi

# ---- a directory of traces: hosts named by the file minus its suffix ----
mkdir -p "$work/logs"
"$generate" --producer pytorch --gzip -o "$work/logs/worker0.pt.trace.json.gz"
"$generate" --producer pytorch --seed 2 -o "$work/logs/worker1.pt.trace.json"
memtop_run --summary --json "$work/logs"
memtop_expect "a directory of PyTorch traces opens as hosts" 0 \
    out '"host":"worker0",' out '"host":"worker1",'

# ---- issue 26.2: ops nested 30,000 and 100,000 deep, memory bounded ----
# deep_trace N EVERY: N cpu_ops one inside another on one thread, and a
# [memory] allocation inside every EVERY-th level and the deepest.
deep_trace() {
    awk -v n="$1" -v every="$2" 'BEGIN {
        printf "{\"schemaVersion\": 1, \"traceEvents\": ["
        for (i = 0; i < n; i++)
            printf "\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::op%d\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": %d},", i % 10, i, 2 * (n - i)
        total = 0
        for (i = 0; i < n; i++) {
            if (i % every != 0 && i != n - 1)
                continue
            total += 512
            printf "\n{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, \"ts\": %d.5, \"args\": {\"Total Reserved\": 2097152000, \"Total Allocated\": %d, \"Bytes\": 512, \"Device Id\": 0, \"Device Type\": 1, \"Addr\": %d}},", i, total, 1000000 + i * 512
        }
        printf "\n{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 1, \"tid\": 0, \"args\": {\"name\": \"python\"}}\n]}\n"
    }'
}
# Before: 6.5 GB for 30,000 levels (3 MB of JSON), out of memory for
# 100,000. A sanitized build reserves more address space than the limit.
if (ulimit -v 300000 && "$memtop" --version) >/dev/null 2>&1; then
    for case in "30000 1000" "100000 1000" "30000 1"; do
        set -- $case
        deep_trace "$1" "$2" >"$work/deep.json"
        (ulimit -v 300000 && exec "$memtop" --summary "$work/deep.json") \
            >"$work/out" 2>"$work/err"
        status=$?
        memtop_expect "ops nested $1 deep (an allocation every $2 levels) load within 300 MB" 0 \
            out "^  Allocations  *$(($1 / $2 + ($2 > 1)))\$"
    done
    rm -f "$work/deep.json"
else
    tap_skip "ops nested 30,000 deep within 300 MB" "ulimit -v stops this build"
fi

tap_done
