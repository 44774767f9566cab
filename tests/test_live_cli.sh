#!/bin/sh
# Issue 13 from the command line: --export allocations --at MS [--since
# MS0] and --export steps. A hand-made profile pins the definitions down
# (equal times, before the first and after the last snapshot, an
# unmatched free, memory from before the profile, "after MS0" strictly);
# generated version-0 profiles check that protobuf and JSON give the same
# bytes and that the rows live at the peak add up to the peak; version 1
# and Skyline are refused with one line and status 2. (The model is
# checked against a brute-force replay in tests/test_live_set.c.)
# Prints TAP.
set -u
source_dir="${MEMTOP_SRCDIR:-.}"
build_dir="${MEMTOP_BUILDDIR:-.}"
. "$source_dir/tests/lib.sh"
work=$test_work
generate="$build_dir/tests/generate_profile"

STEPS_HEADER='step_id,start_time_ps,end_time_ps,peak_bytes,peak_time_ps,end_bytes,allocations,deallocations,end_delta_bytes'

# ms PS: picoseconds as the milliseconds --at takes, exactly.
ms() { printf '%010d' "$1" | sed 's/\(.........\)$/.\1/'; }
# rows: the data rows of the last run's output, columns op,bytes,occurrences,time_ps,origin
# (a quoted field, a shape "[2,3]", becomes Q first: the names here hold no quote).
rows() { tail -n +2 "$work/out" | sed 's/"[^"]*"/Q/g' | cut -d, -f1,2,4,9,12; }
# rows_are TEXT...: ok when rows() is the lines given, in order.
rows_are() {
    name=$1
    shift
    printf '%s\n' "$@" | sed '/^$/d' >"$work/want"
    rows >"$work/have"
    if [ "$status" -eq 0 ] && cmp -s "$work/want" "$work/have"; then
        tap_ok "$name"
    else
        { echo "# status $status"; diff "$work/want" "$work/have"; } >"$work/why"
        tap_not_ok "$name" "$work/why" "$work/err"
    fi
}

# ---- a profile made by hand: every rule of the definition ----
# 1 ms: a (100) allocated, 30 bytes of the heap from before the profile;
# 2 ms: b (200) allocated and a freed at the same time; 3 ms: c (50),
# stack 10; 4 ms: a free of an address never allocated.
snapshot() {
    printf '{"timeOffsetPs":"%s","aggregationStats":{"heapAllocatedBytes":"%s",' "$1" "$2"
    printf '"stackReservedBytes":"%s"},"activityMetadata":{"memoryActivity":"%s",' "$3" "$4"
    printf '"allocationBytes":"%s","requestedBytes":"%s","address":"%s","tfOpName":"%s",' \
        "$5" "$5" "$6" "$7"
    printf '"stepId":"%s","regionType":"output","dataType":"float","tensorShape":"[2]"}}' "$8"
}
{
    printf '{"memoryProfilePerAllocator":{"gpu":{"memoryProfileSnapshots":['
    snapshot 1000000000 130 0 ALLOCATION 100 1 a 1
    printf ','
    snapshot 2000000000 330 0 ALLOCATION 200 2 b 1
    printf ','
    snapshot 2000000000 230 0 DEALLOCATION 100 1 a 2
    printf ','
    snapshot 3000000000 280 10 ALLOCATION 50 3 c 2
    printf ','
    snapshot 4000000000 280 10 DEALLOCATION 64 9 x 3
    printf ']}},"memoryIds":["gpu"],"version":0}'
} >"$work/hand.json"
hand=$work/hand.json
before='allocated before the profile,30,1,,special'

memtop_run --export allocations --at 0.5 "$hand"
rows_are "--at before the first snapshot: nothing live, the header alone" ""
tap_check "--at: the allocations header" \
    grep -qx 'op_name,allocation_bytes,requested_bytes,occurrences,region_type,data_type,tensor_shape,step_id,time_ps,address,activity,origin,snapshot_index,special_index,kind,location,stack,total_bytes,share,context,module' "$work/out"
memtop_run --export allocations --at 1 "$hand"
rows_are "--at a snapshot's time: its allocation is live (time_ps <= T), the rest of the heap is from before the profile" \
    'a,100,1,1000000000,snapshot' "$before"
memtop_run --export allocations --at 1.999999999 "$hand"
rows_are "--at a picosecond before the next snapshots: the state after the first" \
    'a,100,1,1000000000,snapshot' "$before"
memtop_run --export allocations --at 2 "$hand"
rows_are "--at two snapshots of one time: both count (b allocated, a freed)" \
    'b,200,1,2000000000,snapshot' "$before"
memtop_run --export allocations --at 3 "$hand"
rows_are "--at 3: largest first, then the stack and the memory from before the profile" \
    'b,200,1,2000000000,snapshot' 'c,50,1,3000000000,snapshot' "$before" \
    'stack,10,1,,special'
memtop_run --export allocations --at 100 "$hand"
rows_are "--at after the last snapshot: as at 3 (an unmatched free removes nothing)" \
    'b,200,1,2000000000,snapshot' 'c,50,1,3000000000,snapshot' "$before" \
    'stack,10,1,,special'
memtop_run --export allocations --at 3 --since 2 "$hand"
rows_are "--since 2: only what was allocated after 2 (strictly), no special rows" \
    'c,50,1,3000000000,snapshot'
memtop_run --export allocations --at 3 --since 1.999999999 "$hand"
rows_are "--since a picosecond before 2: b too" \
    'b,200,1,2000000000,snapshot' 'c,50,1,3000000000,snapshot'
memtop_run --export allocations --at 3 --since 3 "$hand"
rows_are "--since the --at time: nothing grew" ""
memtop_run --export allocations --at 3 --since 0 --filter B "$hand"
rows_are "--filter applies to the live rows" 'b,200,1,2000000000,snapshot'
memtop_run --export allocations --at 3 --sort op_name "$hand"
rows_are "--sort applies to the live rows" \
    "$before" 'b,200,1,2000000000,snapshot' 'c,50,1,3000000000,snapshot' \
    'stack,10,1,,special'
memtop_run --export steps "$hand"
printf '%s\n' "$STEPS_HEADER" '1,1000000000,2000000000,330,2000000000,330,2,0,' \
    '2,2000000000,3000000000,290,3000000000,290,1,1,-40' \
    '3,4000000000,4000000000,290,4000000000,290,0,1,0' >"$work/want"
if [ "$status" -eq 0 ] && cmp -s "$work/want" "$work/out"; then
    tap_ok "--export steps: each step's span, peak, end, counts and change"
else
    diff "$work/want" "$work/out" >"$work/why"
    tap_not_ok "--export steps: each step's span, peak, end, counts and change" "$work/why"
fi

# ---- usage ----
memtop_run --export allocations --since 1 "$hand"
memtop_expect "--since without --at: status 2" 2 err "^memtop: --since goes with --at MS$"
memtop_run --export timeline --at 1 "$hand"
memtop_expect "--at with another view: status 2" 2 \
    err "^memtop: --at goes with --export allocations or segments$"
memtop_run --at 1 "$hand"
memtop_expect "--at without --export: status 2" 2 err "^memtop: --at goes with --export$"
memtop_run --export allocations --at 1ms "$hand"
memtop_expect "--at that is not milliseconds: status 2" 2 \
    err "^memtop: --at: '1ms' is not a time in milliseconds"
memtop_run --export allocations --at 1 --since x "$hand"
memtop_expect "--since that is not milliseconds: status 2" 2 \
    err "^memtop: --since: 'x' is not a time in milliseconds"

# ---- generated profiles: protobuf and JSON agree; the peak adds up ----
if "$generate" --version 0 --snapshots 3000 --allocators 2 --steps 6 --seed 5 \
    -o "$work/v0.pb" &&
    "$generate" --version 0 --format json --snapshots 3000 --allocators 2 --steps 6 --seed 5 \
        -o "$work/v0.json" &&
    "$generate" --snapshots 3000 --allocators 2 --seed 5 -o "$work/v1.pb"; then
    "$memtop" --summary --json "$work/v0.pb" >"$work/summary"
    peak_time=$(sed -n 's/^[^]]*"peak":{"bytes":[0-9]*,"time_ps":\([0-9]*\).*/\1/p' "$work/summary")
    peak_bytes=$(sed -n 's/^[^]]*"peak":{"bytes":\([0-9]*\).*/\1/p' "$work/summary")
    last_time=$("$memtop" --export timeline "$work/v0.pb" | tail -n 1 | cut -d, -f1)
    same=true
    for at in 0 "$(ms "$peak_time")" "$(ms $((peak_time - 1)))" 100.5 "$(ms "$last_time")" 99999; do
        for since in "" 50 "$(ms $((peak_time - 1)))"; do
            set -- --export allocations --at "$at"
            [ -z "$since" ] || set -- "$@" --since "$since"
            "$memtop" "$@" "$work/v0.pb" >"$work/pb.csv" 2>"$work/err" &&
                "$memtop" "$@" "$work/v0.json" >"$work/json.csv" 2>>"$work/err" &&
                cmp -s "$work/pb.csv" "$work/json.csv" || {
                same=false
                echo "# differ: $*" >>"$work/why-same"
            }
        done
    done
    if $same; then
        tap_ok "--at and --since: protobuf and JSON give the same bytes (before, at, after the peak and the last snapshot)"
    else
        tap_not_ok "--at and --since: protobuf and JSON give the same bytes" "$work/why-same"
    fi
    for view in "steps" "steps --allocator cpu"; do
        # shellcheck disable=SC2086
        "$memtop" --export $view "$work/v0.pb" >"$work/pb.csv" &&
            "$memtop" --export $view "$work/v0.json" >"$work/json.csv"
        tap_check "--export $view: protobuf and JSON give the same bytes" \
            cmp -s "$work/pb.csv" "$work/json.csv"
    done
    memtop_run --export allocations --at "$(ms "$peak_time")" "$work/v0.pb"
    total=$(awk -F, 'NR > 1 { sum += $2 * $4 } END { printf "%.0f", sum }' "$work/out")
    if [ "$status" -eq 0 ] && [ -n "$peak_bytes" ] && [ "$total" = "$peak_bytes" ]; then
        tap_ok "--at the peak's time: the rows add up to the peak ($total bytes)"
    else
        echo "# total $total, peak $peak_bytes at $peak_time" >"$work/why"
        tap_not_ok "--at the peak's time: the rows add up to the peak" "$work/why"
    fi
    memtop_run --export allocations --at "$(ms "$peak_time")" --since 50 "$work/v0.pb"
    late=$(rows | awk -F, '$4 <= 50000000000 || $5 != "snapshot"' | wc -l)
    if [ "$status" -eq 0 ] && [ "$(tail -n +2 "$work/out" | wc -l)" -gt 0 ] && [ "$late" -eq 0 ]; then
        tap_ok "--since 50: every row allocated after 50 ms, none special"
    else
        tap_not_ok "--since 50: every row allocated after 50 ms, none special" "$work/out"
    fi
    memtop_run --export steps "$work/v0.pb"
    steps=$("$memtop" --export timeline "$work/v0.pb" | tail -n +2 | cut -d, -f13 | sort -u | wc -l)
    memtop_expect "--export steps: the header" 0 out "^$STEPS_HEADER\$"
    if [ "$(tail -n +2 "$work/out" | wc -l)" -eq "$steps" ]; then
        tap_ok "--export steps: one row per step of the timeline ($steps)"
    else
        tap_not_ok "--export steps: one row per step of the timeline ($steps)" "$work/out"
    fi

    # ---- version 1: XProf's sample ----
    memtop_run --export allocations --at 100 "$work/v1.pb"
    memtop_expect "--at on a version-1 file: refused with status 2" 2 \
        err "^memtop: $work/v1.pb: live allocations need the full timeline; this file keeps XProf's 1000-snapshot sample (open the run's .xplane.pb instead)\$"
    tap_check "--at on a version-1 file: nothing on stdout" test ! -s "$work/out"
    memtop_run --export allocations --at 100 --since 1 "$work/v1.pb"
    memtop_expect "--since on a version-1 file: refused with status 2" 2 \
        err "live allocations need the full timeline"
    memtop_run --export steps "$work/v1.pb"
    memtop_expect "--export steps on a version-1 file: written, with a warning" 0 \
        out "^$STEPS_HEADER\$" \
        err "^memtop: $work/v1.pb: warning: the steps of XProf's 1000-snapshot sample"

    # ---- a directory: every host, a host column first ----
    mkdir -p "$work/hosts"
    cp "$work/v0.pb" "$work/hosts/a.pb"
    cp "$work/v0.json" "$work/hosts/b.json"
    memtop_run --export allocations --at 100 "$work/hosts"
    memtop_expect "--at on a directory: every host's rows after a host column" 0 \
        out '^host,op_name,' out '^a,' out '^b,'
    cp "$work/v1.pb" "$work/hosts/c.pb"
    memtop_run --export allocations --at 100 "$work/hosts"
    memtop_expect "--at on a directory with a version-1 host: nothing written, status 2" 2 \
        err "c.pb: live allocations need the full timeline" \
        err "^memtop: standard output: not written: host c failed$"
    tap_check "  ... standard output holds nothing" test ! -s "$work/out"
else
    echo "Bail out! generate_profile failed"
fi

# ---- a report without a timeline ----
if [ -x "$build_dir/tests/generate_skyline" ] &&
    "$build_dir/tests/generate_skyline" --case demo -o "$work/demo.sqlite" >/dev/null; then
    memtop_run --export allocations --at 1 "$work/demo.sqlite"
    memtop_expect "--at on a Skyline report: refused with status 2" 2 \
        err "demo.sqlite: live allocations need a timeline; this report records none$"
else
    tap_skip "tests/generate_skyline is not built"
fi

tap_done
