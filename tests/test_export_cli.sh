#!/bin/sh
# memtop --export end to end: usage errors, headers, row counts against
# --summary --json, windows, filter and sort, -o refusal and --force,
# write failures. Uses the demo data and the real XProf file when they
# are there (skips otherwise). Prints TAP.
set -u
memtop="${MEMTOP_BUILDDIR:-.}/memtop"
source_dir="${MEMTOP_SRCDIR:-.}"
shared="$source_dir/../shared/data/xprof-tpu-v4-8-demo.memory_profile.json"
work=$(mktemp -d /tmp/memtop-export-cli-XXXXXX)
trap 'rm -rf "$work"' EXIT

count=0
failed=0
ok() { count=$((count + 1)); echo "ok $count - $1"; }
not_ok() {
    count=$((count + 1)); failed=$((failed + 1))
    echo "not ok $count - $1"
    sed 's/^/# /' "$work/out" "$work/err" 2>/dev/null | head -40
}
skip() { count=$((count + 1)); echo "ok $count # SKIP $1"; }
check() { # check NAME COMMAND...: ok when the command succeeds
    name=$1; shift
    if "$@"; then ok "$name"; else not_ok "$name"; fi
}
run() { "$memtop" "$@" >"$work/out" 2>"$work/err"; status=$?; }
expect() { # expect NAME STATUS [STREAM PATTERN]...
    name=$1 want=$2; shift 2
    if [ "$status" -ne "$want" ]; then
        echo "# status $status, expected $want" >>"$work/err"; not_ok "$name"; return
    fi
    while [ $# -gt 0 ]; do
        stream=$1 pattern=$2; shift 2
        if ! grep -q -e "$pattern" "$work/$stream"; then
            echo "# $stream lacks: $pattern" >>"$work/err"; not_ok "$name"; return
        fi
    done
    ok "$name"
}

# Data rows of a CSV file: records (a quoted field may hold a newline: a
# record ends on a line with an even count of quotes so far) minus the header.
rows() {
    awk '{ quotes += gsub(/"/, "\"") } quotes % 2 == 0 { records++ } END { print records - 1 }' "$1"
}
# Field N of every data row, quotes honoured (rows on one line each).
column() {
    awk -v n="$2" 'NR > 1 {
        field = 0; text = ""; quoted = 0
        for (i = 1; i <= length($0); i++) {
            c = substr($0, i, 1)
            if (quoted) {
                if (c == "\"" && substr($0, i + 1, 1) == "\"") { text = text c; i++ }
                else if (c == "\"") quoted = 0
                else text = text c
            } else if (c == "\"") quoted = 1
            else if (c == ",") { if (++field == n) break; text = "" }
            else text = text c
        }
        if (field == n - 1 || field == n) print text
    }' "$1"
}
# Succeeds when the numbers on stdin never go up (down with "asc").
monotonic() {
    awk -v direction="$1" 'NR > 1 && ((direction == "desc" && $1 > last) ||
                                      (direction == "asc" && $1 < last)) { bad = 1 }
                           { last = $1 } END { exit bad }'
}
# Temporaries a failed or refused write must not leave behind.
no_temporaries() { ! ls -A "$1" | grep -q '^\.'; }

ALLOCATIONS_HEADER='op_name,allocation_bytes,requested_bytes,occurrences,region_type,data_type,tensor_shape,step_id,time_ps,address,activity,origin,snapshot_index,special_index'
TIMELINE_HEADER='time_ps,time_ms,heap_bytes,stack_bytes,free_bytes,fragmentation,peak_bytes_in_use,activity,requested_bytes,allocation_bytes,address,op_name,step_id,region_type,data_type,tensor_shape'
SUMMARY_HEADER='allocator,snapshots,allocations,deallocations,capacity_bytes,lifetime_peak_bytes,peak_bytes,peak_time_ps,peak_heap_bytes,peak_stack_bytes,peak_free_bytes,peak_fragmentation,active_allocations,summary_computed'
HLO_HEADER='id,name,plane_name,start_time_ps,end_time_ps,duration_ps'

# ---- usage: status 2 and one line, before any file is read ----
run --help
expect "--help lists --export" 0 out "--export VIEW" out "--force"
run --export bogus x.pb
expect "unknown view: status 2, the views listed" 2 \
    err "^memtop: --export: unknown view 'bogus' (allocations, timeline, summary, hlo)$"
run --export timeline --filter conv x.pb
expect "--filter with another view: status 2" 2 err "^memtop: --filter goes with --export allocations$"
run --export summary --from 1 x.pb
expect "--from with another view: status 2" 2 err "^memtop: --from goes with --export timeline$"
run --allocator 0 x.pb
expect "--allocator without --export: status 2" 2 err "^memtop: --allocator goes with --export$"
run --export summary --force x.pb
expect "--force without -o: status 2" 2 err "^memtop: --force goes with -o FILE$"
run --export timeline --from 2 --to 1 x.pb
expect "--from after --to: status 2" 2 err "^memtop: --from is after --to$"
run --export timeline --from 1e3 x.pb
expect "a time that is not plain milliseconds: status 2" 2 err "^memtop: --from: '1e3' is not a time"
run --export timeline --to 0.0000000001 x.pb
expect "a time finer than a picosecond: status 2" 2 err "^memtop: --to: '0.0000000001' is not a time"
run --export allocations --sort size x.pb
expect "unknown sort column: status 2, the columns listed" 2 \
    err "^memtop: --sort: unknown column 'size' (op_name, allocation_bytes, requested_bytes, occurrences, region_type, data_type, tensor_shape; then :asc or :desc)$"
run --export summary --summary x.pb
expect "--export with --summary: status 2" 2 err "^memtop: --export and --summary do not go together$"
run --summary --export summary x.pb
expect "--summary with --export: status 2" 2 err "^memtop: --export and --summary do not go together$"
run --export summary a.pb b.pb
expect "two profiles: status 2" 2 err "^memtop: --export takes one profile$"
run --export summary /nonexistent/x.pb
expect "missing profile: status 2" 2 err "^memtop: /nonexistent/x.pb: No such file or directory$"
if [ -s "$work/out" ]; then not_ok "nothing on stdout after an error"; else ok "nothing on stdout after an error"; fi

# ---- the real XProf file ----
if [ -r "$shared" ]; then
    "$memtop" --summary --json "$shared" >"$work/summary.json"
    for view in allocations timeline summary hlo; do
        run --export $view "$shared"
        cp "$work/out" "$work/$view.csv"
        case $view in
        allocations) header=$ALLOCATIONS_HEADER ;;
        timeline) header=$TIMELINE_HEADER ;;
        summary) header=$SUMMARY_HEADER ;;
        hlo) header=$HLO_HEADER ;;
        esac
        if [ "$status" -eq 0 ] && [ "$(head -n 1 "$work/out")" = "$header" ] && [ ! -s "$work/err" ]; then
            ok "XProf file: $view header, status 0"
        else
            not_ok "XProf file: $view header, status 0"
        fi
    done
    # One line per allocator in the JSON: id snapshots active_allocations.
    sed 's/},{"id"/}\n{"id"/g' "$work/summary.json" |
        sed -n 's/.*"id":"\([^"]*\)","snapshots":\([0-9]*\),.*"active_allocations":\([0-9]*\),.*/\1 \2 \3/p' \
        >"$work/allocators"
    check "XProf file: summary has one row per allocator" \
        test "$(rows "$work/summary.csv")" -eq 4 -a "$(wc -l <"$work/allocators")" -eq 4
    check "XProf file: summary row as --summary --json has it" grep -qx \
        '0,10,5,5,33014413312,305938944,306004480,1685890000,305938944,65536,32708408832,0.000401934,3,false' \
        "$work/summary.csv"
    while read -r id snapshots active; do
        "$memtop" --export timeline --allocator "$id" "$shared" >"$work/t.csv"
        "$memtop" --export allocations --allocator "$id" "$shared" >"$work/a.csv"
        check "XProf file, allocator $id: $snapshots timeline rows, $active allocation rows" \
            test "$(rows "$work/t.csv")" -eq "$snapshots" -a "$(rows "$work/a.csv")" -eq "$active"
    done <"$work/allocators"
    check "XProf file: 40 HLO modules" test "$(rows "$work/hlo.csv")" -eq 40
    "$memtop" --export timeline --allocator 0 "$shared" >"$work/t0.csv"
    check "the first allocator is the default" cmp -s "$work/timeline.csv" "$work/t0.csv"

    run --export timeline --from 1.68589 --to 1.68589 "$shared"
    expect "a one-snapshot window, both ends included" 0 out '^1685890000,1.68589,305938944,'
    check "  ... and nothing else" test "$(rows "$work/out")" -eq 1
    run --export timeline --from 1.0 --to 4.52532 "$shared"
    check "window 1.0..4.52532 ms: the 6 snapshots in it" \
        test "$status" -eq 0 -a "$(rows "$work/out")" -eq 6 -a \
        "$(column "$work/out" 1 | head -n 1)" = 1004840000 -a \
        "$(column "$work/out" 1 | tail -n 1)" = 4525320000
    run --export timeline --from 10 "$shared"
    check "a window after the last snapshot: the header only" \
        test "$status" -eq 0 -a "$(rows "$work/out")" -eq 0

    run --export allocations --sort allocation_bytes "$shared"
    check "--sort allocation_bytes: largest first" test "$status" -eq 0 -a "$(rows "$work/out")" -eq 3
    column "$work/out" 2 | monotonic desc
    check "  ... every row" test $? -eq 0 -a "$(column "$work/out" 2 | head -n 1)" = 289161728
    run --export allocations --sort allocation_bytes:asc "$shared"
    column "$work/out" 2 | monotonic asc
    check "--sort allocation_bytes:asc: smallest first" \
        test $? -eq 0 -a "$(column "$work/out" 2 | head -n 1)" = 65536
    run --export allocations --sort op_name:desc "$shared"
    check "--sort op_name:desc: Z to A" test "$(column "$work/out" 1 | tr '\n' '|')" = \
        'unused preallocated device memory|stack|dummy|'
    run --export allocations --filter DUMMY "$shared"
    check "--filter matches op names in any case" \
        test "$status" -eq 0 -a "$(rows "$work/out")" -eq 1 -a "$(column "$work/out" 1)" = dummy
    run --export allocations --filter 'no such op' "$shared"
    check "a filter that matches nothing: the header only" \
        test "$status" -eq 0 -a "$(rows "$work/out")" -eq 0

    run --export timeline --allocator nope "$shared"
    expect "unknown allocator: status 2, the ids listed" 2 \
        err "^memtop: $shared: no allocator 'nope'; the allocators are: 0, 1, 2, 3$"

else
    skip "../shared/data is absent (the XProf file tests)"
fi

# ---- writing files: refusal, --force, failures (any profile will do) ----
sample="$shared"
[ -r "$sample" ] || sample="$source_dir/data/demo.v1.pb"
if [ -r "$sample" ]; then
    "$memtop" --export summary "$sample" >"$work/sample-summary.csv"
    "$memtop" --export hlo "$sample" >"$work/sample-hlo.csv"
    mkdir "$work/dir"
    run --export summary -o "$work/dir/out.csv" "$sample"
    check "-o FILE: status 0, nothing on stdout, the same CSV" \
        test "$status" -eq 0 -a ! -s "$work/out" -a ! -s "$work/err"
    check "  ... FILE holds what stdout would" cmp -s "$work/dir/out.csv" "$work/sample-summary.csv"
    echo precious >"$work/dir/out.csv"
    run --export timeline -o "$work/dir/out.csv" "$sample"
    expect "-o on an existing FILE: refused, status 1" 1 \
        err "^memtop: $work/dir/out.csv: already exists; --force replaces it$"
    check "  ... FILE untouched" test "$(cat "$work/dir/out.csv")" = precious
    run --export timeline --output "$work/dir/out.csv" --force "$sample"
    check "--force replaces FILE" \
        test "$status" -eq 0 -a "$(head -n 1 "$work/dir/out.csv")" = "$TIMELINE_HEADER"
    check "  ... no temporary left" no_temporaries "$work/dir"
    run --export hlo -o - "$sample"
    check "-o - is stdout" cmp -s "$work/out" "$work/sample-hlo.csv"

    if [ -w /dev/full ]; then
        "$memtop" --export timeline "$sample" >/dev/full 2>"$work/err"; status=$?
        : >"$work/out"
        expect "stdout on a full disk: status 1" 1 \
            err "^memtop: writing to standard output: No space left on device$"
    else
        skip "/dev/full not available"
    fi
    run --export hlo -o "$work/missing/out.csv" "$sample"
    expect "-o into a missing directory: status 1" 1 \
        err "^memtop: $work/missing/out.csv: cannot create a temporary file there: No such file or directory$"
    if [ -d /sys/kernel ]; then
        run --export hlo --force -o /sys/kernel/memtop-export-test.csv "$sample"
        expect "-o where no file can be made (sysfs refuses even root): status 1" 1 \
            err "^memtop: /sys/kernel/memtop-export-test.csv: cannot create a temporary file there: "
    else
        skip "no /sys/kernel"
    fi
else
    skip "no profile to write files from (../shared/data and data/ are absent)"
fi

# ---- the demo data ----
for demo in demo.v0.pb.gz demo.v0.json.gz demo.v1.pb demo.v1.json; do
    file="$source_dir/data/$demo"
    if [ ! -r "$file" ]; then
        skip "$demo is absent"
        continue
    fi
    "$memtop" --summary --json "$file" >"$work/summary.json"
    snapshots=$(sed -n 's/.*"allocators":\[{"id":"[^"]*","snapshots":\([0-9]*\),.*/\1/p' "$work/summary.json")
    active=$(grep -o '"active_allocations":[0-9]*' "$work/summary.json" | head -n 1 | cut -d: -f2)
    allocators=$(grep -o '"summary_computed"' "$work/summary.json" | wc -l)
    "$memtop" --export timeline "$file" >"$work/$demo.timeline.csv"
    "$memtop" --export allocations "$file" >"$work/$demo.allocations.csv"
    "$memtop" --export summary "$file" >"$work/$demo.summary.csv"
    check "$demo: rows as --summary --json counts them ($snapshots snapshots, $active active)" \
        test -n "$snapshots" -a "$(rows "$work/$demo.timeline.csv")" = "$snapshots" -a \
        "$(rows "$work/$demo.allocations.csv")" = "$active" -a \
        "$(rows "$work/$demo.summary.csv")" -eq "$allocators"
done
for version in v0 v1; do
    case $version in
    v0) pb=demo.v0.pb.gz json=demo.v0.json.gz ;;
    v1) pb=demo.v1.pb json=demo.v1.json ;;
    esac
    if [ -r "$work/$pb.timeline.csv" ] && [ -r "$work/$json.timeline.csv" ]; then
        check "demo $version: protobuf and JSON export the same CSV" sh -c \
            "cmp -s '$work/$pb.timeline.csv' '$work/$json.timeline.csv' &&
             cmp -s '$work/$pb.allocations.csv' '$work/$json.allocations.csv'"
    else
        skip "demo $version files are absent"
    fi
done

# A write that fails half-way (the file size limit; a full disk is the
# same path) keeps the old FILE and leaves no temporary.
big="$source_dir/data/demo.v0.pb.gz"
if [ -r "$big" ]; then
    mkdir "$work/limited"
    echo old >"$work/limited/big.csv"
    (ulimit -f 8 && trap '' XFSZ && exec "$memtop" --export timeline --force \
        -o "$work/limited/big.csv" "$big") >"$work/out" 2>"$work/err"
    status=$?
    expect "a write that fails half-way: status 1, the reason" 1 err "^memtop: $work/limited/big.csv: File too large$"
    check "  ... the old FILE is kept, no temporary left" sh -c \
        "test \"\$(cat '$work/limited/big.csv')\" = old && ! ls -A '$work/limited' | grep -q '^\.'"
else
    skip "demo data is absent (the half-way failure test)"
fi

echo "1..$count"
[ "$failed" -eq 0 ]
