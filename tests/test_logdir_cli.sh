#!/bin/sh
# Log directories on the command line: --list (text and JSON), --summary
# and --export on a log directory and on a run directory, --run, --host,
# hosts named apart, and the errors. The log directories are built here
# from generated MemoryProfile files (TF 2.2-2.5's <host>.memory_profile.json.gz).
# Prints TAP.
set -u
source_dir="${MEMTOP_SRCDIR:-.}"
. "$source_dir/tests/lib.sh"
work=$test_work
json_check="${MEMTOP_BUILDDIR:-.}/tests/json_check"


# A Keras-like log directory: two runs below train/, one below eval/,
# one at the top; hosts with dots and a remote port; other XProf files.
logs="$work/logs"
newest="$logs/train/plugins/profile/2026_11_23_06_39_19"
older="$logs/train/plugins/profile/2026_11_22_10_00_00"
generated_profile "$newest/BlueDiamond.local.memory_profile.json.gz" 1
generated_profile "$newest/10.0.0.2_8466.memory_profile.json.gz" 2
: >"$newest/10.0.0.2_8466.trace.json.gz"
: >"$newest/jit_train_step.hlo_proto.pb"
generated_profile "$older/worker-0.memory_profile.json.gz" 3 1
mkdir -p "$logs/eval/plugins/profile/2026_11_23_06_40_00"
: >"$logs/eval/plugins/profile/2026_11_23_06_40_00/tracer.trace.json.gz"
generated_profile "$logs/plugins/profile/2026_11_22_10_00_00/top.memory_profile.json.gz" 4 1

# ---- --list ----
memtop_run --list "$logs"
memtop_expect "--list: every run, newest first (by the run folder), status 0" 0 \
    out "^$logs: 4 runs, newest first$" \
    out "^eval/2026_11_23_06_40_00  2026-11-23 06:40:00  0 hosts with memory profiles$" \
    out "^train/2026_11_23_06_39_19  2026-11-23 06:39:19  2 hosts with memory profiles$" \
    out "^  10.0.0.2_8466: memory_profile; trace  (opens 10.0.0.2_8466.memory_profile.json.gz)$" \
    out "^  BlueDiamond.local: memory_profile  (opens BlueDiamond.local.memory_profile.json.gz)$" \
    out "^  tools: memory_profile, trace_viewer$"
order=$(grep -v '^ ' "$work/out" | grep -o '^[a-z0-9_/]*  ' | tr -d ' ' | tr '\n' ' ')
tap_check "--list: the order is by folder name, then modification time" \
    test "$order" = "eval/2026_11_23_06_40_00 train/2026_11_23_06_39_19 2026_11_22_10_00_00 train/2026_11_22_10_00_00 " ||
    echo "# order: $order"
touch -d '2020-01-01' "$logs/plugins/profile/2026_11_22_10_00_00"
touch -d '2021-01-01' "$older"
memtop_run --list "$logs"
order=$(grep -v '^ ' "$work/out" | grep -o '^[a-z0-9_/]*  ' | tr -d ' ' | tr '\n' ' ')
tap_check "--list: of two runs named alike, the newer directory first" \
    test "$order" = "eval/2026_11_23_06_40_00 train/2026_11_23_06_39_19 train/2026_11_22_10_00_00 2026_11_22_10_00_00 "

memtop_run --list --json "$logs"
memtop_expect "--list --json: runs, hosts, files and tools" 0 \
    out '^{"log_directory":"[^"]*","runs":\[{"run":"eval/2026_11_23_06_40_00",' \
    out '"run":"train/2026_11_23_06_39_19","path":"[^"]*/train/plugins/profile/2026_11_23_06_39_19","date":"2026-11-23 06:39:19","modified":[0-9]*,"tools":\["memory_profile","trace_viewer"\],"hosts":\[{"host":"10.0.0.2_8466","file":"[^"]*10.0.0.2_8466.memory_profile.json.gz","readable":true,"tools":\["memory_profile","trace_viewer"\],"files":\[' \
    out '{"file":"[^"]*10.0.0.2_8466.trace.json.gz","suffix":".trace.json.gz","format":"chrome-trace","memory":false,"tools":\["trace_viewer"\]}' \
    out '{"host":"tracer","file":null,"readable":false,'
if "$json_check" "$work/out" >/dev/null 2>&1; then tap_ok "--list --json is strict JSON"
else tap_not_ok "--list --json is strict JSON" "$work/out"; fi
if grep -q 'jit_train_step' "$work/out"; then tap_not_ok "HLO protos are not hosts" "$work/out"
else tap_ok "HLO protos are not hosts"; fi

memtop_run --list "$newest"
memtop_expect "--list on a run directory: that run" 0 out "^$newest: 1 run$" \
    out "^2026_11_23_06_39_19  2026-11-23 06:39:19  2 hosts"
mkdir "$work/nothing"
memtop_run --list "$work/nothing"
memtop_expect "--list on a directory of nothing: status 2" 2 \
    err "^memtop: $work/nothing: no memory profile files in this directory (.*), and no plugins/profile directory below it$"
memtop_run --list --run x "$logs"
memtop_expect "--list with --run: usage, status 2" 2 err "^memtop: --list goes alone (with --json)$"
memtop_run --list "$logs" "$logs"
memtop_expect "--list of two directories: status 2" 2 err "^memtop: --list takes one log directory$"

# ---- --summary on a log directory ----
memtop_run --summary --json "$logs"
memtop_expect "--summary --json LOGDIR: the newest run with memory profiles, one entry per host" 0 \
    out '^\[{"run":"train/2026_11_23_06_39_19","host":"10.0.0.2_8466","file":"[^"]*","format":"json","gzip":true,' \
    out '},{"run":"train/2026_11_23_06_39_19","host":"BlueDiamond.local","file":'
tap_check "  ... two entries" test "$(grep -o '"run":' "$work/out" | wc -l)" -eq 2
"$json_check" "$work/out" >/dev/null 2>&1
tap_check "  ... strict JSON" test $? -eq 0

memtop_run --summary "$logs"
memtop_expect "--summary LOGDIR: the run, then one block per host" 0 \
    out "^run train/2026_11_23_06_39_19$" \
    out "10.0.0.2_8466.memory_profile.json.gz: JSON (gzip), version 1, 2 allocators, host 10.0.0.2_8466$" \
    out "BlueDiamond.local.memory_profile.json.gz: JSON (gzip), version 1, 2 allocators, host BlueDiamond.local$"

memtop_run --summary --json --run train/2026_11_22_10_00_00 "$logs"
memtop_expect "--run NAME: that run" 0 \
    out '^\[{"run":"train/2026_11_22_10_00_00","host":"worker-0","file":"[^"]*worker-0.memory_profile.json.gz"'
memtop_run --summary --json --run 2026_11_23_06_39_19 --host BlueDiamond.local "$logs"
memtop_expect "--run FOLDER and --host NAME: that host alone, still an array" 0 \
    out '^\[{"run":"train/2026_11_23_06_39_19","host":"BlueDiamond.local",'
tap_check "  ... one entry" test "$(grep -o '"host":' "$work/out" | wc -l)" -eq 1
memtop_run --summary --json --run 2026_11_22_10_00_00 "$logs"
memtop_expect "--run NAME that is also another run's folder: the run of that name" 0 \
    out '^\[{"run":"2026_11_22_10_00_00","host":"top",'
generated_profile "$work/twice/a/plugins/profile/r/h.memory_profile.json.gz" 11 1
generated_profile "$work/twice/b/plugins/profile/r/h.memory_profile.json.gz" 12 1
memtop_run --summary --run r "$work/twice"
memtop_expect "--run FOLDER that two runs have: status 2" 2 \
    err "^memtop: $work/twice: several runs are named 'r': give the whole name (--list)$"
memtop_run --summary --run nope "$logs"
memtop_expect "--run unknown: status 2, the runs listed" 2 \
    err "^memtop: $logs: no run 'nope'; the runs are: eval/2026_11_23_06_40_00, train/2026_11_23_06_39_19, "
memtop_run --summary --run eval/2026_11_23_06_40_00 "$logs"
memtop_expect "--run of a run without memory profiles: status 2" 2 \
    err "^memtop: $logs: run 'eval/2026_11_23_06_40_00' holds no memory profile$"
memtop_run --summary --host nobody "$logs"
memtop_expect "--host unknown: status 2, the hosts listed" 2 \
    err "^memtop: $logs: no host 'nobody'; the hosts are: 10.0.0.2_8466, BlueDiamond.local$"
memtop_run --summary --run x "$newest/BlueDiamond.local.memory_profile.json.gz"
memtop_expect "--run with a file: status 2" 2 err "--run picks a run of a log directory"
memtop_run --summary --run x "$newest"
memtop_expect "--run with a run directory: status 2" 2 err "--run picks a run of a log directory, and this is a run"
mkdir -p "$work/tracesonly/plugins/profile/r1"
: >"$work/tracesonly/plugins/profile/r1/h.trace.json.gz"
memtop_run --summary "$work/tracesonly"
memtop_expect "a log directory without memory profiles: status 2" 2 \
    err "^memtop: $work/tracesonly: no run holds a memory profile (1 run; --list shows them)$"

# ---- a run directory ----
memtop_run --summary --json "$newest"
memtop_expect "--summary --json RUN_DIR: the run by its folder" 0 \
    out '^\[{"run":"2026_11_23_06_39_19","host":"10.0.0.2_8466",'
memtop_run --summary --json "$older/worker-0.memory_profile.json.gz"
memtop_expect "one file: one object, as before" 0 out '^{"file":"[^"]*worker-0.memory_profile.json.gz","format":"json"'

# A broken host: reported in the array with run, host, file and error.
broken_run="$work/broken/plugins/profile/2026_01_01_00_00_00"
generated_profile "$broken_run/good.memory_profile.json.gz" 5 1
printf 'not gzip' >"$broken_run/bad.memory_profile.json.gz"
memtop_run --summary --json "$work/broken"
memtop_expect "a host that fails: {run, host, file, error} in the array, status 2" 2 \
    out '^\[{"run":"2026_01_01_00_00_00","host":"bad","file":"[^"]*bad.memory_profile.json.gz","error":"' \
    out '},{"run":"2026_01_01_00_00_00","host":"good","file":' \
    err "^memtop: $broken_run/bad.memory_profile.json.gz: "

# ---- --export on directories: one CSV, a run and a host column ----
memtop_run --export summary "$logs"
memtop_expect "--export summary LOGDIR: run and host columns, one header" 0 \
    out '^run,host,allocator,snapshots,' \
    out '^train/2026_11_23_06_39_19,10.0.0.2_8466,GPU_0_bfc,' \
    out '^train/2026_11_23_06_39_19,BlueDiamond.local,cpu,'
tap_check "  ... one header, two allocators per host" \
    test "$(grep -c '^run,' "$work/out"):$(wc -l <"$work/out")" = "1:5"
memtop_run --export allocations --host BlueDiamond.local --sort allocation_bytes "$logs"
memtop_expect "--export allocations --host: that host's rows" 0 \
    out '^run,host,op_name,allocation_bytes,' out '^train/2026_11_23_06_39_19,BlueDiamond.local,'
if grep -q '10.0.0.2_8466' "$work/out"; then tap_not_ok "  ... no other host" "$work/out"
else tap_ok "  ... no other host"; fi
memtop_run --export timeline "$newest"
memtop_expect "--export timeline RUN_DIR: the run and host columns" 0 \
    out '^run,host,time_ps,time_ms,' out '^2026_11_23_06_39_19,10.0.0.2_8466,[0-9]' \
    out '^2026_11_23_06_39_19,BlueDiamond.local,[0-9]'
memtop_run --export chrome-trace "$logs"
memtop_expect "--export chrome-trace of a run of two hosts: one JSON document holds one, status 2" 2 \
    err "^memtop: $logs: --export chrome-trace writes one profile, and this holds 2 hosts: pick one with --host NAME$"
memtop_run --export chrome-trace --host BlueDiamond.local "$logs"
memtop_expect "--export chrome-trace --host: that host's trace" 0 \
    out '^{"memtop":{"version":1,"source":"[^"]*BlueDiamond.local.memory_profile.json.gz"'
mkdir -p "$work/flat"
generated_profile "$work/flat/a.json.gz" 6 1
generated_profile "$work/flat/b.json.gz" 7 1
memtop_run --export summary -o "$work/flat.csv" "$work/flat"
memtop_expect "--export -o of a plain directory: a host column only" 0
tap_check "  ... the file holds both hosts under one header" \
    test "$(sed -n '1p;2s/,.*//p;3s/,.*//p' "$work/flat.csv" | tr '\n' ' ')" = \
    "host,allocator,snapshots,allocations,deallocations,capacity_bytes,lifetime_peak_bytes,peak_bytes,peak_time_ps,peak_heap_bytes,peak_stack_bytes,peak_free_bytes,peak_fragmentation,active_allocations,summary_computed,timeline_sampled a b "
# All or nothing: rows without a host would pass for the whole run.
memtop_run --export summary "$work/broken"
memtop_expect "--export with a host that fails: nothing written, status 2, the host named" 2 \
    err "bad.memory_profile.json.gz: " err "^memtop: standard output: not written: host bad failed$"
tap_check "  ... standard output holds nothing" test ! -s "$work/out"
for view in allocations timeline summary hlo steps; do
    echo ORIGINAL >"$work/target.csv"
    memtop_run --export "$view" -o "$work/target.csv" --force "$work/broken"
    memtop_expect "--export $view -o --force with a host that fails: status 2, the host named" 2 \
        err "^memtop: $work/target.csv: not written: host bad failed$"
    tap_check "  ... the target is untouched" test "$(cat "$work/target.csv")" = ORIGINAL
    rm -f "$work/new.csv"
    memtop_run --export "$view" -o "$work/new.csv" "$work/broken"
    memtop_expect "--export $view -o NEW with a host that fails: status 2" 2 \
        err "^memtop: $work/new.csv: not written: host bad failed$"
    tap_check "  ... no file made" test ! -e "$work/new.csv"
done
memtop_run --export allocations --allocator nope "$newest"
memtop_expect "--export --allocator missing on a host: status 2, nothing written" 2 \
    err "no allocator 'nope'" err "^memtop: standard output: not written: host 10.0.0.2_8466 failed$"

# ---- hosts that share a name are named apart ----
generated_profile "$work/apart/one/w.memory_profile.json.gz" 8 1
generated_profile "$work/apart/two/w.memory_profile.json.gz" 9 1
memtop_run --summary --json "$work/apart/one/w.memory_profile.json.gz" \
    "$work/apart/two/w.memory_profile.json.gz"
memtop_expect "same file name in two directories: named by directory" 0 \
    out '^\[{"host":"one/w",' out '},{"host":"two/w",'
cp "$work/flat/a.json.gz" "$work/flat/a.pb.gz"
memtop_run --summary --json "$work/flat"
memtop_expect "same stem, two files in one directory: named by file name" 0 \
    out '^\[{"host":"a.json.gz",' out '},{"host":"a.pb.gz",' out '},{"host":"b",'

# ---- hostile run and host names never reach the terminal raw ----
evil_run=$(printf 'r\033[2J\302\233x')
evil_host=$(printf 'h\033]0;owned\007')
generated_profile "$work/evil/plugins/profile/$evil_run/$evil_host.memory_profile.json.gz" 13 1
no_escapes() {
    ! LC_ALL=C grep -q "$(printf '\033')" "$work/out" "$work/err" &&
        ! LC_ALL=C grep -q "$(printf '\302\233')" "$work/out" "$work/err"
}
for mode in "--list" "--summary" "--summary --run nope"; do
    # shellcheck disable=SC2086 # the modes are meant to split
    memtop_run $mode "$work/evil"
    tap_check "hostile names escaped: $mode" no_escapes
done
memtop_run --list --json "$work/evil"
memtop_expect "hostile names in --list --json: escaped as JSON" 0 \
    out '"run":"r\\u001b\[2J\\u009bx"' out '"host":"h\\u001b\]0;owned\\u0007"'

# ---- the demo log directory (make data) ----
demo="$source_dir/data/logdir"
memtop_run --list "$demo"
memtop_expect "demo: --list shows its two runs and four hosts" 0 \
    out "^2026_11_23_06_39_19  2026-11-23 06:39:19  2 hosts with memory profiles$" \
    out "^2026_11_21_17_42_08  2026-11-21 17:42:08  2 hosts with memory profiles$" \
    out "^  10.0.0.2_8466: memory_profile  (opens 10.0.0.2_8466.memory_profile.json.gz)$" \
    out "^  BlueDiamond.local: xplane  (" out "^  t1v-n-6d5ad4f1-w-1: xplane  ("
memtop_run --summary --json --host 10.0.0.2_8466 "$demo"
memtop_expect "demo: its MemoryProfile host loads" 0 \
    out '^\[{"run":"2026_11_23_06_39_19","host":"10.0.0.2_8466","file":"[^"]*","format":"json","gzip":true'

# ---- XSpace runs (tests/generate_xspace --run-layout) ----
xspace_runs() {
    xgen="${MEMTOP_BUILDDIR:-.}/tests/generate_xspace"
    xlogs="$work/xlogs"
    "$xgen" --style tpu --devices 2 --run-layout "$xlogs" --host t1v-n-0.internal \
        --run 2026_03_01_00_00_00 --expect "$work/tpu.expect"
    "$xgen" --style tf-gpu --run-layout "$xlogs" --host 10.0.0.2_8466 --run 2026_03_01_00_00_00
    "$xgen" --style tf-gpu --run-layout "$xlogs" --host old --run 2026_02_01_00_00_00
    generated_profile "$xlogs/plugins/profile/2026_02_01_00_00_00/old.memory_profile.json.gz" 10 1
    memtop_run --list --json "$xlogs"
    memtop_expect "xspace: --list: XProf's tools for an XSpace run" 0 \
        out '"run":"2026_03_01_00_00_00",.*"tools":\["trace_viewer","overview_page","input_pipeline_analyzer","framework_op_stats","memory_profile","op_profile","hlo_stats","roofline_model"\]' \
        out '"host":"t1v-n-0.internal","file":"[^"]*t1v-n-0.internal.xplane.pb","readable":true'
    memtop_run --summary --json "$xlogs"
    memtop_expect "xspace: --summary --json LOGDIR: both hosts of the newest run" 0 \
        out '^\[{"run":"2026_03_01_00_00_00","host":"10.0.0.2_8466","file":"[^"]*.xplane.pb",' \
        out '},{"run":"2026_03_01_00_00_00","host":"t1v-n-0.internal",'
    peak=$(sed -n 's/^peak_bytes_in_use //p' "$work/tpu.expect" | head -1)
    memtop_run --export summary --host t1v-n-0.internal "$xlogs"
    memtop_expect "xspace: --export summary --host: the generator's peak" 0 \
        out "^2026_03_01_00_00_00,t1v-n-0.internal,0,[0-9]*,[0-9]*,[0-9]*,[0-9]*,[0-9]*,$peak,"
    memtop_run --summary --json --run 2026_02_01_00_00_00 "$xlogs"
    memtop_expect "xspace: .xplane.pb preferred over .memory_profile.json.gz" 0 \
        out '^\[{"run":"2026_02_01_00_00_00","host":"old","file":"[^"]*old.xplane.pb"'
    # A capture cut short beside a good one (the campaign's case): the
    # export leaves its target alone, the summary reports both.
    cut="$xlogs/plugins/profile/2026_03_01_00_00_00/10.0.0.2_8466.xplane.pb"
    head -c "$(($(wc -c <"$cut") / 2))" "$cut" >"$work/cut.pb" && mv "$work/cut.pb" "$cut"
    echo ORIGINAL >"$work/xout.csv"
    memtop_run --export timeline -o "$work/xout.csv" --force "$xlogs"
    memtop_expect "xspace: --export timeline -o --force, one host cut short: status 2" 2 \
        err "^memtop: $work/xout.csv: not written: host 10.0.0.2_8466 failed$"
    tap_check "  ... the target is untouched" test "$(cat "$work/xout.csv")" = ORIGINAL
    memtop_run --summary --json "$xlogs"
    memtop_expect "xspace: --summary --json, one host cut short: its error and the other's summary" 2 \
        out '^\[{"run":"2026_03_01_00_00_00","host":"10.0.0.2_8466","file":"[^"]*","error":"' \
        out '},{"run":"2026_03_01_00_00_00","host":"t1v-n-0.internal","file":"[^"]*","format":"xspace"'
    memtop_run --summary "$xlogs"
    memtop_expect "xspace: --summary, one host cut short: the other's summary, the error on stderr" 2 \
        out "t1v-n-0.internal.xplane.pb: " err "10.0.0.2_8466.xplane.pb: "
}

xspace_runs

tap_done
