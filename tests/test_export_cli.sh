#!/bin/sh
# memtop --export end to end: usage errors, headers, row counts against
# --summary --json, windows, filter and sort, -o refusal and --force,
# write failures. Uses the demo data and the real XProf file when they
# are there (skips otherwise). Prints TAP.
set -u
source_dir="${MEMTOP_SRCDIR:-.}"
shared="$source_dir/data/real/xprof-tpu-v4-8-demo.memory_profile.json"
. "$source_dir/tests/lib.sh"
work=$test_work

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

ALLOCATIONS_HEADER='op_name,allocation_bytes,requested_bytes,occurrences,region_type,data_type,tensor_shape,step_id,time_ps,address,activity,origin,snapshot_index,special_index,kind,location,stack,total_bytes,share,context,module'
TIMELINE_HEADER='time_ps,time_ms,heap_bytes,stack_bytes,free_bytes,fragmentation,peak_bytes_in_use,activity,requested_bytes,allocation_bytes,address,op_name,step_id,region_type,data_type,tensor_shape'
SUMMARY_HEADER='allocator,snapshots,allocations,deallocations,capacity_bytes,lifetime_peak_bytes,peak_bytes,peak_time_ps,peak_heap_bytes,peak_stack_bytes,peak_free_bytes,peak_fragmentation,active_allocations,summary_computed,timeline_sampled'
HLO_HEADER='id,name,plane_name,start_time_ps,end_time_ps,duration_ps'

# ---- usage: status 2 and one line, before any file is read ----
memtop_run --help
memtop_expect "--help lists --export" 0 out "--export VIEW" out "--force"
memtop_run --export bogus x.pb
memtop_expect "unknown view: status 2, the views listed" 2 \
    err "^memtop: --export: unknown view 'bogus' (allocations, timeline, summary, hlo, chrome-trace, compare, steps, segments, xprof-table, spans)$"
memtop_run --export timeline --filter conv x.pb
memtop_expect "--filter with another view: status 2" 2 err "^memtop: --filter goes with --export allocations$"
memtop_run --export summary --from 1 x.pb
memtop_expect "--from with another view: status 2" 2 err "^memtop: --from goes with --export timeline$"
memtop_run --allocator 0 x.pb
memtop_expect "--allocator without --export: status 2" 2 err "^memtop: --allocator goes with --export$"
memtop_run --export summary --force x.pb
memtop_expect "--force without -o: status 2" 2 err "^memtop: --force goes with -o FILE$"
memtop_run --export summary -o '' "$shared"
memtop_expect "-o '': a usage error, status 2" 2 err "^memtop: -o: empty file name$"
memtop_run --export timeline --from 2 --to 1 x.pb
memtop_expect "--from after --to: status 2" 2 err "^memtop: --from is after --to$"
memtop_run --export timeline --from 1e3 x.pb
memtop_expect "a time that is not plain milliseconds: status 2" 2 err "^memtop: --from: '1e3' is not a time"
memtop_run --export timeline --to 0.0000000001 x.pb
memtop_expect "a time finer than a picosecond: status 2" 2 err "^memtop: --to: '0.0000000001' is not a time"
memtop_run --export allocations --sort Size x.pb
memtop_expect "unknown sort column: status 2, the columns listed" 2 \
    err "^memtop: --sort: unknown column 'Size' (op, size, requested, count, region, type, shape, kind, location, total, share; or the CSV header's names: op_name, allocation_bytes, requested_bytes, occurrences, region_type, data_type, tensor_shape, kind, location, total_bytes, share; then :asc or :desc)$"
memtop_run --export summary --summary x.pb
memtop_expect "--export with --summary: status 2" 2 err "^memtop: --export and --summary do not go together$"
memtop_run --summary --export summary x.pb
memtop_expect "--summary with --export: status 2" 2 err "^memtop: --export and --summary do not go together$"
memtop_run --export summary a.pb b.pb
memtop_expect "two profiles: status 2" 2 err "^memtop: --export takes one profile$"
memtop_run --export summary /nonexistent/x.pb
memtop_expect "missing profile: status 2" 2 err "^memtop: /nonexistent/x.pb: No such file or directory$"
if [ -s "$work/out" ]; then tap_not_ok "nothing on stdout after an error" "$work/out" "$work/err"; else tap_ok "nothing on stdout after an error"; fi

# ---- the real XProf file ----
if [ -r "$shared" ]; then
    "$memtop" --summary --json "$shared" >"$work/summary.json"
    for view in allocations timeline summary hlo; do
        memtop_run --export $view "$shared"
        cp "$work/out" "$work/$view.csv"
        case $view in
        allocations) header=$ALLOCATIONS_HEADER ;;
        timeline) header=$TIMELINE_HEADER ;;
        summary) header=$SUMMARY_HEADER ;;
        hlo) header=$HLO_HEADER ;;
        esac
        if [ "$status" -eq 0 ] && [ "$(head -n 1 "$work/out")" = "$header" ] && [ ! -s "$work/err" ]; then
            tap_ok "XProf file: $view header, status 0"
        else
            tap_not_ok "XProf file: $view header, status 0" "$work/out" "$work/err"
        fi
    done
    # One line per allocator in the JSON: id snapshots active_allocations.
    sed 's/},{"id"/}\n{"id"/g' "$work/summary.json" |
        sed -n 's/.*"id":"\([^"]*\)","snapshots":\([0-9]*\),.*"active_allocations":\([0-9]*\),.*/\1 \2 \3/p' \
        >"$work/allocators"
    tap_check "XProf file: summary has one row per allocator" \
        test "$(rows "$work/summary.csv")" -eq 4 -a "$(wc -l <"$work/allocators")" -eq 4
    tap_check "XProf file: summary row as --summary --json has it" grep -qx \
        '0,10,5,5,33014413312,305938944,306004480,1685890000,305938944,65536,32708408832,0.000401934,3,false,true' \
        "$work/summary.csv"
    while read -r id snapshots active; do
        "$memtop" --export timeline --allocator "$id" "$shared" >"$work/t.csv"
        "$memtop" --export allocations --allocator "$id" "$shared" >"$work/a.csv"
        tap_check "XProf file, allocator $id: $snapshots timeline rows, $active allocation rows" \
            test "$(rows "$work/t.csv")" -eq "$snapshots" -a "$(rows "$work/a.csv")" -eq "$active"
    done <"$work/allocators"
    tap_check "XProf file: 40 HLO modules" test "$(rows "$work/hlo.csv")" -eq 40
    "$memtop" --export timeline --allocator 0 "$shared" >"$work/t0.csv"
    tap_check "the first allocator is the default" cmp -s "$work/timeline.csv" "$work/t0.csv"

    memtop_run --export timeline --from 1.68589 --to 1.68589 "$shared"
    memtop_expect "a one-snapshot window, both ends included" 0 out '^1685890000,1.68589,305938944,'
    tap_check "  ... and nothing else" test "$(rows "$work/out")" -eq 1
    memtop_run --export timeline --from 1.0 --to 4.52532 "$shared"
    tap_check "window 1.0..4.52532 ms: the 6 snapshots in it" \
        test "$status" -eq 0 -a "$(rows "$work/out")" -eq 6 -a \
        "$(column "$work/out" 1 | head -n 1)" = 1004840000 -a \
        "$(column "$work/out" 1 | tail -n 1)" = 4525320000
    memtop_run --export timeline --from 10 "$shared"
    tap_check "a window after the last snapshot: the header only" \
        test "$status" -eq 0 -a "$(rows "$work/out")" -eq 0

    memtop_run --export allocations --sort allocation_bytes "$shared"
    tap_check "--sort allocation_bytes: largest first" test "$status" -eq 0 -a "$(rows "$work/out")" -eq 3
    column "$work/out" 2 | monotonic desc
    tap_check "  ... every row" test $? -eq 0 -a "$(column "$work/out" 2 | head -n 1)" = 289161728
    memtop_run --export allocations --sort allocation_bytes:asc "$shared"
    column "$work/out" 2 | monotonic asc
    tap_check "--sort allocation_bytes:asc: smallest first" \
        test $? -eq 0 -a "$(column "$work/out" 2 | head -n 1)" = 65536
    memtop_run --export allocations --sort op_name:desc "$shared"
    tap_check "--sort op_name:desc: Z to A" test "$(column "$work/out" 1 | tr '\n' '|')" = \
        'unused preallocated device memory|stack|dummy|'
    memtop_run --export allocations --filter DUMMY "$shared"
    tap_check "--filter matches op names in any case" \
        test "$status" -eq 0 -a "$(rows "$work/out")" -eq 1 -a "$(column "$work/out" 1)" = dummy
    memtop_run --export allocations --filter 'no such op' "$shared"
    tap_check "a filter that matches nothing: the header only" \
        test "$status" -eq 0 -a "$(rows "$work/out")" -eq 0

    memtop_run --export timeline --allocator nope "$shared"
    memtop_expect "unknown allocator: status 2, the ids listed" 2 \
        err "^memtop: $shared: no allocator 'nope'; the allocators are: 0, 1, 2, 3$"

else
    tap_skip "data/real has no XProf file (the XProf file tests)"
fi

# ---- writing files: refusal, --force, failures (any profile will do) ----
sample="$shared"
[ -r "$sample" ] || sample="$source_dir/data/demo.v1.pb"
if [ -r "$sample" ]; then
    "$memtop" --export summary "$sample" >"$work/sample-summary.csv"
    "$memtop" --export hlo "$sample" >"$work/sample-hlo.csv"
    mkdir "$work/dir"
    memtop_run --export summary -o "$work/dir/out.csv" "$sample"
    tap_check "-o FILE: status 0, nothing on stdout, the same CSV" \
        test "$status" -eq 0 -a ! -s "$work/out" -a ! -s "$work/err"
    tap_check "  ... FILE holds what stdout would" cmp -s "$work/dir/out.csv" "$work/sample-summary.csv"
    echo precious >"$work/dir/out.csv"
    memtop_run --export timeline -o "$work/dir/out.csv" "$sample"
    memtop_expect "-o on an existing FILE: refused, status 1" 1 \
        err "^memtop: $work/dir/out.csv: already exists; --force replaces it$"
    tap_check "  ... FILE untouched" test "$(cat "$work/dir/out.csv")" = precious
    memtop_run --export timeline --output "$work/dir/out.csv" --force "$sample"
    tap_check "--force replaces FILE" \
        test "$status" -eq 0 -a "$(head -n 1 "$work/dir/out.csv")" = "$TIMELINE_HEADER"
    tap_check "  ... no temporary left" no_temporaries "$work/dir"
    memtop_run --export hlo -o - "$sample"
    tap_check "-o - is stdout" cmp -s "$work/out" "$work/sample-hlo.csv"

    # What cannot be replaced atomically is written into, --force or not;
    # a directory is refused (issue 16.1).
    # (timeout: a FIFO wrongly replaced would leave its reader waiting.)
    mkfifo "$work/dir/fifo"
    timeout 60 cat "$work/dir/fifo" >"$work/from-fifo" &
    reader=$!
    memtop_run --export hlo -o "$work/dir/fifo" "$sample"
    wait "$reader"
    tap_check "-o FIFO: written into, not replaced" sh -c \
        "test $status -eq 0 && cmp -s '$work/from-fifo' '$work/sample-hlo.csv' && test -p '$work/dir/fifo'"
    timeout 60 cat "$work/dir/fifo" >"$work/from-fifo" &
    reader=$!
    memtop_run --export hlo --force -o "$work/dir/fifo" "$sample"
    wait "$reader"
    tap_check "-o FIFO --force: written into, still a FIFO" sh -c \
        "test $status -eq 0 && cmp -s '$work/from-fifo' '$work/sample-hlo.csv' && test -p '$work/dir/fifo'"
    rm -f "$work/dir/fifo"
    memtop_run --export hlo -o /dev/null "$sample"
    tap_check "-o /dev/null: written into, status 0" test "$status" -eq 0 -a ! -s "$work/err" -a -c /dev/null
    if [ "$(id -u)" -eq 0 ] && mknod "$work/dir/null" c 1 3 2>/dev/null; then
        memtop_run --export hlo --force -o "$work/dir/null" "$sample"
        tap_check "-o DEVICE --force (a node of /dev/null): written into, still a device" \
            test "$status" -eq 0 -a -c "$work/dir/null"
        rm -f "$work/dir/null"
    else
        tap_skip "not root: cannot mknod a character device"
    fi
    "$memtop" --export hlo --force -o /dev/fd/1 "$sample" >"$work/fd1.csv" 2>"$work/err"
    status=$?
    tap_check "-o /dev/fd/1 with stdout on a file: that file gets the CSV" sh -c \
        "test $status -eq 0 && cmp -s '$work/fd1.csv' '$work/sample-hlo.csv'"
    ln -s /dev/stdout "$work/dir/to-stdout"
    "$memtop" --export hlo -o "$work/dir/to-stdout" "$sample" | cat >"$work/piped.csv"
    tap_check "-o LINK to /dev/stdout, stdout a pipe: the pipe gets it, the link stays" sh -c \
        "cmp -s '$work/piped.csv' '$work/sample-hlo.csv' && test -L '$work/dir/to-stdout'"
    rm -f "$work/dir/to-stdout"
    mkdir "$work/dir/sub"
    memtop_run --export hlo --force -o "$work/dir/sub" "$sample"
    memtop_expect "-o DIRECTORY: refused, status 1, saying why" 1 \
        err "^memtop: $work/dir/sub: is a directory, not a file$"
    tap_check "  ... the directory untouched, no temporary left" sh -c \
        "test -d '$work/dir/sub' && ! ls -A '$work/dir' | grep -q '^\.'"

    if [ -w /dev/full ]; then
        "$memtop" --export timeline "$sample" >/dev/full 2>"$work/err"; status=$?
        : >"$work/out"
        memtop_expect "stdout on a full disk: status 1" 1 \
            err "^memtop: standard output: No space left on device$"
    else
        tap_skip "/dev/full not available"
    fi
    memtop_run --export hlo -o "$work/missing/out.csv" "$sample"
    memtop_expect "-o into a missing directory: status 1" 1 \
        err "^memtop: $work/missing/out.csv: cannot create a temporary file there: No such file or directory$"
    if [ -d /sys/kernel ]; then
        memtop_run --export hlo --force -o /sys/kernel/memtop-export-test.csv "$sample"
        memtop_expect "-o where no file can be made (sysfs refuses even root): status 1" 1 \
            err "^memtop: /sys/kernel/memtop-export-test.csv: cannot create a temporary file there: "
    else
        tap_skip "no /sys/kernel"
    fi
else
    tap_skip "no profile to write files from (data/real and data/ are absent)"
fi

# ---- the demo data ----
for demo in demo.v0.pb.gz demo.v0.json.gz demo.v1.pb demo.v1.json; do
    file="$source_dir/data/$demo"
    if [ ! -r "$file" ]; then
        tap_skip "$demo is absent"
        continue
    fi
    "$memtop" --summary --json "$file" >"$work/summary.json"
    snapshots=$(sed -n 's/.*"allocators":\[{"id":"[^"]*","snapshots":\([0-9]*\),.*/\1/p' "$work/summary.json")
    active=$(grep -o '"active_allocations":[0-9]*' "$work/summary.json" | head -n 1 | cut -d: -f2)
    allocators=$(grep -o '"summary_computed"' "$work/summary.json" | wc -l)
    "$memtop" --export timeline "$file" >"$work/$demo.timeline.csv"
    # XProf's table is what active_allocations counts (issue 22).
    "$memtop" --export xprof-table "$file" >"$work/$demo.allocations.csv"
    "$memtop" --export summary "$file" >"$work/$demo.summary.csv"
    tap_check "$demo: rows as --summary --json counts them ($snapshots snapshots, $active active)" \
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
        tap_check "demo $version: protobuf and JSON export the same CSV" sh -c \
            "cmp -s '$work/$pb.timeline.csv' '$work/$json.timeline.csv' &&
             cmp -s '$work/$pb.allocations.csv' '$work/$json.allocations.csv'"
    else
        tap_skip "demo $version files are absent"
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
    memtop_expect "a write that fails half-way: status 1, the reason" 1 err "^memtop: $work/limited/big.csv: File too large$"
    tap_check "  ... the old FILE is kept, no temporary left" sh -c \
        "test \"\$(cat '$work/limited/big.csv')\" = old && ! ls -A '$work/limited' | grep -q '^\.'"
else
    tap_skip "demo data is absent (the half-way failure test)"
fi

# ---- CSV to a terminal: escaped as the viewer escapes it (issue 16.3) ----
# An op name that would set the terminal's title (OSC 0), then a literal
# backslash-x-1-b, which must read differently from a real ESC.
printf '{"memoryProfilePerAllocator":{"gpu":{"memoryProfileSnapshots":[{"timeOffsetPs":"1","aggregationStats":{"heapAllocatedBytes":"64"},"activityMetadata":{"memoryActivity":"ALLOCATION","tfOpName":"\\u001b]0;PWNED\\u0007x\\\\x1b","allocationBytes":"64"}}],"activeAllocations":[{"snapshotIndex":"0","specialIndex":"-1","numOccurrences":"1"}]}}}' \
    >"$work/osc.json"
"$memtop" --export allocations "$work/osc.json" >"$work/osc-pipe.csv"
printf '\033]0;PWNED\007x\\x1b,64,' >"$work/osc-raw"
tap_check "CSV to a pipe or file: the profile's bytes, unescaped" sh -c \
    "sed -n 2p '$work/osc-pipe.csv' | head -c $(wc -c <"$work/osc-raw") | cmp -s - '$work/osc-raw'"
if tmux_have; then
    tmux_start 160 8 "env TERM=tmux-256color '$memtop' --export allocations '$work/osc.json'; echo EXIT=\$?; sleep 60"
    if tmux_wait_for "EXIT=" && grep -q "EXIT=0" "$tmux_screen" &&
        grep -F -q '\x1b]0;PWNED\x07x\\x1b,64,' "$tmux_screen"; then
        tap_ok "CSV to a terminal: ESC, OSC and BEL shown as \\x1b..., a backslash doubled"
    else
        tap_not_ok "CSV to a terminal: ESC, OSC and BEL shown as \\x1b..., a backslash doubled"
    fi
    title=$(tmux_run display-message -p -t "$tmux_session" '#{pane_title}')
    tap_check "  ... and the terminal's title is not set" test "${title#*PWNED}" = "$title"
    tmux_stop
else
    tap_skip "tmux not found (CSV to a terminal)"
    tap_skip "tmux not found (the terminal's title)"
fi

tap_done
