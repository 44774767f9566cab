#!/bin/sh
# PyTorch memory snapshots from the command line (issue 23): the real
# capture against the spec's numbers; generated snapshots (every
# protocol, ring buffer or not, stacks='python', one or two devices)
# against what tests/formats/torch_snapshot/generate_torch_snapshot
# --expect works out; detection whatever the name, standard input; and
# the pickles memtop refuses, one line and status 2. Prints TAP.
set -u
source_dir="${MEMTOP_SRCDIR:-.}"
build_dir="${MEMTOP_BUILDDIR:-.}"
. "$source_dir/tests/lib.sh"
work=$test_work
generate="$build_dir/tests/generate_torch_snapshot"
real="$source_dir/data/real/torch-mlp.snapshot.pickle.gz"

# ---- the real capture ----
memtop_run --summary --json "$real"
memtop_expect "real: --summary --json: format torch-snapshot, one allocator cuda:0" 0 \
    out '"format":"torch-snapshot"' out '"allocators":\[{"id":"cuda:0","snapshots":259,'
memtop_expect "real: the peak is 100,387,024 B, 37 live, reserved 112 MiB" 0 \
    out '"peak":{"bytes":100387024,' out '"free_bytes":17053488,' \
    out '"active_allocations":20,"live_allocations":37,'
memtop_expect "real: 259 entries; 93,520,032 B in 27 allocations live before the first" 0 \
    out '"trace_entries":259,"live_before_trace":{"bytes":93520032,"allocations":27}'
tap_check "real: no warning (the trace's end is the snapshot's active blocks)" \
    test ! -s "$work/err"
memtop_run --summary "$real"
memtop_expect "real: --summary says where the trace begins and what was live then" 0 \
    out "torch-snapshot (gzip)" out "^  Trace entries  *259$" \
    out "live before its start  *89\.19 MiB  (27 allocations" \
    out "^  Allocations live at peak: 20 rows"

# The table at the peak is the live set at the peak instant, whatever the
# moment asked: --export allocations equals --at 8.22 (the peak) row for
# row; the allocations live before the trace are rows of their own (with
# their address), so nothing is left for a lump "allocated before the
# profile"; the trace's allocations carry their location and stack at any
# moment (here 5 ms), and what grew never counts them.
memtop_run --export allocations "$real"
cp "$work/out" "$work/peak.csv"
memtop_run --export allocations --at 8.22 "$real"
tap_check "real: --export allocations equals --export allocations --at 8.22 (the peak)" \
    cmp "$work/peak.csv" "$work/out"
memtop_expect "real: --at 8.22: the allocations live before the trace, no lump" 0 \
    out '^<before the trace>,33554432,33554432,2,,,,-1,,[0-9]*,ALLOCATION,special,-1,' \
    out '^_multi_tensor_adam,4194304,4194304,1,,,,-1,8191000000,140235197382656,ALLOCATION,snapshot,150,-1,,/work/main/.capture/torch_snapshot.py:21,"\[26 C++ frames\]' \
    out ',Optimizer.step#Adam.step,$'
tap_check "real: ... and no lump 'allocated before the profile'" \
    sh -c "! grep -q 'allocated before the profile' '$work/out'"
memtop_run --export allocations --at 5 "$real"
memtop_expect "real: --at 5: the location and stack of what the trace made" 0 \
    out '^<before the trace>,' \
    out '^cross_entropy,4,4,1,,,,-1,1452000000,[0-9]*,ALLOCATION,snapshot,24,-1,,/work/main/.capture/torch_snapshot.py:19,"\[31 C++ frames\]' \
    out ',<no python frame>,"\[3 C++ frames\]'
tap_check "real: --at 5: no lump 'allocated before the profile'" \
    sh -c "! grep -q 'allocated before the profile' '$work/out'"
memtop_run --export allocations --at 3.659 "$real"
memtop_expect "real: --at 3.659 (the first optimizer step's peak): its rows say in which range" 0 \
    out '^_multi_tensor_adam,4194304,' out ',Optimizer\.step#Adam\.step,$'
memtop_run --export allocations --at 5 --since 1 "$real"
memtop_expect "real: --since 1 --at 5: what grew" 0 out '^cross_entropy,'
tap_check "real: --since 1 --at 5: never what was live before the trace" \
    sh -c "! grep -q '<before the trace>' '$work/out'"

# Detected by content: no suffix, another suffix, standard input.
gzip -dc "$real" >"$work/snap"
cp "$work/snap" "$work/snap.snap"
for file in "$work/snap" "$work/snap.snap"; do
    memtop_run --summary --json "$file"
    memtop_expect "real: $(basename "$file") is read by content" 0 \
        out '"format":"torch-snapshot"' out '"bytes":100387024,'
done
"$memtop" --summary --json - <"$work/snap" >"$work/out" 2>"$work/err"
status=$?
memtop_expect "real: read from standard input" 0 out '"bytes":100387024,'

# ---- generated snapshots against the generator's own counts ----
# expected KEY: the generator's value for KEY in the case last generated.
expected() { sed -n "s/^$1=//p" "$work/expect"; }
case_number=0
for options in "--entries 3000 --max-entries 2000" \
               "--entries 1500 --protocol 2 --devices 1" \
               "--entries 2500 --protocol 5 --python-only --max-entries 900 --seed 7" \
               "--entries 4000 --params 0 --seed 3 --oom"; do
    case_number=$((case_number + 1))
    # shellcheck disable=SC2086 # the option list is meant to split
    if ! "$generate" $options --expect -o "$work/gen.pickle" >"$work/expect"; then
        tap_not_ok "generated $case_number ($options): the generator's two counts agree"
        continue
    fi
    memtop_run --summary --json "$work/gen.pickle"
    devices=$(expected devices)
    d=0
    while [ "$d" -lt "$devices" ]; do
        memtop_expect "generated $case_number ($options): cuda:$d's peak, free, live, start" 0 \
            out "\"id\":\"cuda:$d\",\"snapshots\":$(expected "d${d}_entries")," \
            out "\"bytes\":$(expected "d${d}_peak_bytes"),\"time_ps\":$(expected "d${d}_peak_time_ps")," \
            out "\"free_bytes\":$(expected "d${d}_peak_free_bytes")," \
            out "\"active_allocations\":$(expected "d${d}_peak_live"),\"live_allocations\":$(expected "d${d}_peak_live"),\"trace_entries\":$(expected "d${d}_entries"),\"live_before_trace\":{\"bytes\":$(expected "d${d}_initial_bytes"),\"allocations\":$(expected "d${d}_initial_count")}"
        d=$((d + 1))
    done
    if [ -x "$build_dir/tests/json_check" ]; then
        tap_check "generated $case_number: --summary --json is valid JSON" \
            "$build_dir/tests/json_check" "$work/out"
    fi
    # The table at the peak is the rows --at <peak> gives, on every device.
    peak_ms=$(awk -v ps="$(expected d0_peak_time_ps)" 'BEGIN { printf "%d.%09d", ps / 1e9, ps % 1e9 }')
    memtop_run --export allocations "$work/gen.pickle"
    cp "$work/out" "$work/peak.csv"
    memtop_run --export allocations --at "$peak_ms" "$work/gen.pickle"
    tap_check "generated $case_number: --export allocations equals --at $peak_ms (the peak)" \
        cmp "$work/peak.csv" "$work/out"
done
# The builder finishes big profiles' allocators on threads of their own:
# forced onto that path, a two-device snapshot reads the same on each.
"$generate" --entries 3000 --max-entries 2000 --seed 5 -o "$work/threads.pickle"
for view in "--summary --json" "--export allocations --allocator cuda:0" \
            "--export allocations --allocator cuda:1" "--export timeline --allocator cuda:1"; do
    # shellcheck disable=SC2086 # the view is meant to split
    memtop_run $view "$work/threads.pickle"
    cp "$work/out" "$work/one-thread.out"
    export MEMTOP_TEST_FINISH_THREADS=1
    # shellcheck disable=SC2086
    memtop_run $view "$work/threads.pickle"
    unset MEMTOP_TEST_FINISH_THREADS
    tap_check "finished on threads: $view reads as on one" cmp "$work/one-thread.out" "$work/out"
    tap_check "finished on threads: $view is not empty" test -s "$work/out"
done
# Segments at the peak: reserved = allocated + free there; at the end, the
# snapshot's own.
memtop_run --export segments "$work/gen.pickle"
memtop_expect "--export segments: the header" 0 \
    out '^address,size_bytes,stream,pool,expandable,allocated_bytes,pending_free_bytes,free_bytes,blocks,largest_free_bytes$'
reserved=$(awk -F, 'NR > 1 { sum += $2 } END { print sum }' "$work/out")
if [ "$reserved" = "$(($(expected d0_peak_bytes) + $(expected d0_peak_free_bytes)))" ]; then
    tap_ok "--export segments: at the peak they add up to allocated + free ($reserved)"
else
    tap_not_ok "--export segments: at the peak they add up to allocated + free ($reserved)"
fi
memtop_run --export segments --at 999999999 "$work/gen.pickle"
rows=$(($(wc -l <"$work/out") - 1))
tap_check "--export segments --at past the end: the snapshot's $(expected d0_segments) segments" \
    test "$rows" -eq "$(expected d0_segments)"
memtop_run --export segments --since 1 --at 2 "$work/gen.pickle"
memtop_expect "--export segments --since: refused, status 2" 2 err "--since"

memtop_run --summary --json "$work/gen.pickle"
memtop_expect "--summary --json: cuda:0's oom: the rounded request, CUDA's free, what was allocated" 0 \
    out "\"oom\":{\"time_ps\":[0-9]*,\"requested_bytes\":68719476736,\"allocated_bytes\":$(expected d0_final_bytes),\"reserved_bytes\":[0-9]*,\"device_free_bytes\":123456789,\"largest_free_bytes\":[0-9]*},\"oom_count\":1"
memtop_expect "--summary --json: cuda:1 has no oom" 0 out '"oom":null,"oom_count":0'
memtop_run --summary "$work/gen.pickle"
memtop_expect "generated: the OOM entry is told, with its request and the free memory" 0 \
    err "out-of-memory error at .* on cuda:0: 64.00 GiB requested, 117.74 MiB free"

# The real capture's segments at the peak: 8, 112 MiB; blocks as memory_viz counts them.
memtop_run --export segments "$real"
memtop_expect "real: --export segments at the peak: 8 segments of the default pool" 0 \
    out '^140235212062720,33554432,0,default,false,33554432,0,0,1,0$'
tap_check "real: ... 8 of them" test "$(($(wc -l <"$work/out") - 1))" -eq 8
memtop_run --export segments "$source_dir/data/real/torch-mlp.pt.trace.json.gz"
memtop_expect "--export segments of a format without segments: said, status 1" 1 \
    err "records no segments"

# ---- a directory of per-rank snapshots ----
mkdir "$work/ranks" "$work/folders"
for rank in 10 2 0 3; do
    "$generate" --entries 300 --devices 1 --seed "$rank" -o "$work/ranks/oom_rank$rank.pickle"
done
gzip "$work/ranks/oom_rank10.pickle"
mv "$work/ranks/oom_rank3.pickle" "$work/ranks/memory_trace_3.pickle"
memtop_run --summary --json "$work/ranks"
hosts=$(grep -o '"host":"[^"]*"' "$work/out" | tr '\n' ' ')
tap_check "a directory of rank snapshots: hosts named by rank, in natural order ($hosts)" \
    test "$hosts" = '"host":"rank0" "host":"rank2" "host":"rank3" "host":"rank10" '
for rank in 1 11 4; do
    mkdir "$work/folders/rank$rank"
    "$generate" --entries 200 --devices 1 --seed "$rank" -o "$work/folders/rank$rank/snapshot.pickle"
done
memtop_run --summary --json "$work/folders"
hosts=$(grep -o '"host":"[^"]*"' "$work/out" | tr '\n' ' ')
tap_check "rank folders (rankN/snapshot.pickle): one host each, in natural order ($hosts)" \
    test "$hosts" = '"host":"rank1" "host":"rank4" "host":"rank11" '

# ---- refused ----
printf '\200\004\225\020\000\000\000\000\000\000\000cos\nsystem\n(S\047id\047\ntR.' \
    >"$work/evil.pickle"
memtop_run --summary "$work/evil.pickle"
memtop_expect "a pickle that needs a function is refused by name, status 2" 2 \
    err "a pickle, but it holds objects memtop does not read (GLOBAL at offset 11)"
tap_check "... in one line" test "$(wc -l <"$work/err")" -eq 1
printf '\200\004]\224(K\001K\002e.' >"$work/numbers.pkl"
memtop_run --summary "$work/numbers.pkl"
memtop_expect "a pickle of something else is not a snapshot, status 2" 2 \
    err "a pickle, but not a PyTorch memory snapshot"
head -c 50000 "$work/snap" >"$work/cut.pickle"
memtop_run --summary "$work/cut.pickle"
memtop_expect "a cut snapshot: the offset of the opcode it cuts, status 2" 2 \
    err "offset 49970: the pickle is cut short (SHORT_BINUNICODE needs 193 more bytes"
tap_done
