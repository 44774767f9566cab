#!/bin/sh
# The command line as scripts and CI use it: exit codes, error lines,
# --summary in text and JSON, several hosts. Prints TAP.
set -u
source_dir="${MEMTOP_SRCDIR:-.}"
shared="$source_dir/data/real/xprof-tpu-v4-8-demo.memory_profile.json"
. "$source_dir/tests/lib.sh"
work=$test_work

memtop_run --help
memtop_expect "--help prints usage, status 0" 0 out "^Usage: memtop" out "--summary"
memtop_expect "--help lists every format of the format table" 0 out "^  pb  " out "^  json  " out "^  xspace  " out "^  chrome-trace  " out "^  skyline  "
memtop_run --list-keys
missing=$(grep -v '^$' "$work/out" | while IFS= read -r line; do
    grep -qxF -- "$line" "$source_dir/docs/keys.md" || echo "$line"; done)
if [ "$status" -eq 0 ] && [ -s "$work/out" ] && [ -z "$missing" ]; then
    tap_ok "docs/keys.md lists every key of the key table"
else
    echo "# not in docs/keys.md (make update-keys): $missing" >>"$work/err"
    tap_not_ok "docs/keys.md lists every key of the key table" "$work/out" "$work/err"
fi
memtop_run --version
memtop_expect "--version" 0 out "^memtop [0-9]"
if [ -w /dev/full ]; then
    for option in --list-keys --help --version; do
        "$memtop" $option >/dev/full 2>"$work/err"; status=$?
        : >"$work/out"
        memtop_expect "$option on a full disk: status 1, the output named" 1 \
            err "^memtop: standard output: No space left on device$"
    done
else
    for option in --list-keys --help --version; do tap_skip "/dev/full not available ($option)"; done
fi
# No PROFILE: $TENSORBOARD_LOGDIR, else the current directory when it
# holds profiles, else the usage.
memtop_abs="$(cd "$(dirname "$memtop")" && pwd)/$(basename "$memtop")"
mkdir -p "$test_work/empty"
(cd "$test_work/empty" && env -u TENSORBOARD_LOGDIR "$memtop_abs" >"$test_work/out" 2>"$test_work/err")
status=$?
memtop_expect "no profile, nothing here: the usage, status 2" 2 err "^memtop: no profile given" \
    err "^Usage: memtop \[OPTION\]... PROFILE...$"
(cd "$test_work/empty" && TENSORBOARD_LOGDIR="$source_dir/data/logdir" "$memtop_abs" --list \
    >"$test_work/out" 2>"$test_work/err")
status=$?
memtop_expect "no profile: \$TENSORBOARD_LOGDIR is listed" 0 out "data/logdir: 2 runs, newest first$"
(cd "$source_dir/data/logdir" && env -u TENSORBOARD_LOGDIR "$memtop_abs" --list \
    >"$test_work/out" 2>"$test_work/err")
status=$?
memtop_expect "no profile: the current directory, when it holds profiles" 0 \
    out "^\.: 2 runs, newest first$"
memtop_run --summary "$source_dir/data/demo.v1.pb"
memtop_expect "--summary: the rows' columns named over them" 0 \
    out "^            size  count op  region  type  shape$"
memtop_run --frobnicate x.pb
memtop_expect "unknown option: status 2" 2 err "unknown option '--frobnicate'"
memtop_run --json x.pb
memtop_expect "--json alone: status 2" 2 err "--json goes with --summary"
memtop_run --summary /nonexistent/x.pb
memtop_expect "missing file: one line, status 2" 2 err "^memtop: /nonexistent/x.pb: No such file or directory$"
: >"$work/empty.pb"
memtop_run --summary "$work/empty.pb"
memtop_expect "empty file: status 2" 2 err "^memtop: $work/empty.pb: empty file$"
printf 'this is not a memory profile\n' >"$work/text.pb"
memtop_run --summary "$work/text.pb"
memtop_expect "not a profile: status 2" 2 err "^memtop: $work/text.pb: "
memtop_expect "  ... plain text says it is not a memory profile" 2 \
    err "^memtop: $work/text.pb: not a memory profile (none of the formats memtop reads: pb, json, [a-z, -]*)$"
printf '{"memoryProfilePerAllocator": 5}' >"$work/wrong.json"
memtop_run --summary "$work/wrong.json"
memtop_expect "JSON with a wrong type: status 2" 2 err "^memtop: $work/wrong.json: .*memoryProfilePerAllocator"
mkdir "$work/nothing"
memtop_run --summary "$work/nothing"
memtop_expect "directory without profiles: status 2" 2 err "no memory profile files"
memtop_run "$work/empty.pb"
memtop_expect "viewer on a bad file: error in the shell, status 2" 2 err "^memtop: $work/empty.pb: empty file$"

if [ -r "$shared" ]; then
    memtop_run --summary "$shared"
    memtop_expect "text summary of the XProf file" 0 \
        out "JSON, version 1, 4 allocators, 40 HLO modules" \
        out "Peak memory usage  *291.83 MiB" out "Memory capacity  *30.75 GiB" \
        out "unused preallocated device memory"
    memtop_run --summary --json "$shared"
    memtop_expect "JSON summary of the XProf file" 0 \
        out '"format":"json","gzip":false,"version":1,"hosts":1' \
        out '{"id":"0","snapshots":10,"allocations":5,"deallocations":5,"capacity_bytes":33014413312,"lifetime_peak_bytes":305938944,"peak":{"bytes":306004480,"time_ps":1685890000,"heap_bytes":305938944,"stack_bytes":65536,"free_bytes":32708408832,"fragmentation":0.000401934},"active_allocations":3'
    mkdir "$work/run"
    cp "$shared" "$work/run/worker-0.memory_profile.json"
    gzip -c "$shared" >"$work/run/worker-1.memory_profile.json.gz"
    cp "$work/text.pb" "$work/run/broken.pb"
    : >"$work/run/notes.txt"
    memtop_run --summary --json "$work/run"
    memtop_expect "a directory of hosts: a JSON array, the bad host reported, status 2" 2 \
        out '^\[{"host":"broken","file":"[^"]*broken.pb","error":"not a memory profile ' out '{"host":"worker-0","file":' \
        out '"host":"worker-1","file":"[^"]*worker-1.memory_profile.json.gz","format":"json","gzip":true' \
        err "^memtop: $work/run/broken.pb: "
    if grep -q notes "$work/out"; then tap_not_ok "non-profile files are not hosts" "$work/out" "$work/err"; else tap_ok "non-profile files are not hosts"; fi
    memtop_run --summary --json "$shared" "$work/run/worker-1.memory_profile.json.gz"
    memtop_expect "two files: two hosts" 0 out '^\[{"host":"xprof-tpu-v4-8-demo"' out '},{"host":"worker-1"'
    if [ -w /dev/full ]; then
        "$memtop" --summary "$shared" >/dev/full 2>"$work/err"; status=$?
        : >"$work/out"
        memtop_expect "a full disk on stdout: status 1" 1 \
            err "^memtop: standard output: No space left on device$"
        tap_check "  ... one line on stderr" test "$(wc -l <"$work/err")" -eq 1
        "$memtop" --summary --json "$shared" "$work/run/worker-1.memory_profile.json.gz" \
            >/dev/full 2>"$work/err"; status=$?
        memtop_expect "--summary --json on a full disk: status 1, the output named" 1 \
            err "^memtop: standard output: No space left on device$"
    else
        tap_skip "/dev/full not available"
    fi
else
    for name in text json directory non-profile two-files full-disk full-disk-line full-disk-json; do
        tap_skip "data/real has no XProf file ($name)"
    done
fi

for demo in demo.v0.pb.gz demo.v0.json.gz demo.v1.pb demo.v1.json; do
    memtop_run --summary --json "$source_dir/data/$demo"
    memtop_expect "demo profile $demo loads" 0 out '"allocators":\[{"id":"GPU_0_bfc"'
done

# ---- profiles through pipes: standard input (-), /dev/stdin, a pipe
# named /dev/fd/N as <(gsutil cat URL) gives it, a FIFO; gzip too ----
demo_pb="$source_dir/data/demo.v1.pb"
"$memtop" --summary "$demo_pb" | sed 1d >"$work/from-file"
cat "$demo_pb" | "$memtop" --summary - >"$work/out" 2>"$work/err"; status=$?
memtop_expect "- reads the profile from a pipe on standard input" 0 \
    out "^-: protobuf, version 1, 3 allocators, 10 HLO modules$"
tap_check "  ... the same summary as from the file" sh -c "sed 1d '$work/out' | cmp -s - '$work/from-file'"
"$memtop" --summary --json - <"$source_dir/data/demo.v0.json.gz" >"$work/out" 2>"$work/err"; status=$?
memtop_expect "- reads gzip from standard input" 0 out '^{"file":"-","format":"json","gzip":true,"version":0,'
cat "$demo_pb" | "$memtop" --summary /dev/stdin >"$work/out" 2>"$work/err"; status=$?
memtop_expect "/dev/stdin on a pipe" 0 out "^/dev/stdin: protobuf, version 1, 3 allocators"
gzip -c "$demo_pb" | "$memtop" --summary /dev/fd/3 3<&0 >"$work/out" 2>"$work/err"; status=$?
memtop_expect "a pipe named /dev/fd/3, gzipped (as <(gsutil cat URL) gives it)" 0 \
    out "^/dev/fd/3: protobuf (gzip), version 1, 3 allocators"
mkfifo "$work/profile.fifo"
cat "$demo_pb" >"$work/profile.fifo" &
memtop_run --summary "$work/profile.fifo"
wait
memtop_expect "a FIFO with a writer" 0 out "^$work/profile.fifo: protobuf, version 1, 3 allocators"
printf 'this is not a memory profile\n' | "$memtop" --summary - >"$work/out" 2>"$work/err"; status=$?
memtop_expect "plain text on standard input: not a memory profile" 2 \
    err "^memtop: -: not a memory profile (none of the formats memtop reads: pb, json, [a-z, -]*)$"
"$memtop" --summary - </dev/null >"$work/out" 2>"$work/err"; status=$?
memtop_expect "nothing on standard input: empty input, status 2" 2 err "^memtop: -: empty input$"
if command -v script >/dev/null 2>&1; then
    script -qec "'$memtop' --summary - 2>'$work/err'" /dev/null >/dev/null </dev/null; status=$?
    memtop_expect "- on a terminal: status 2, how to pipe a profile in" 2 \
        err "^memtop: -: standard input is a terminal; pipe a profile in"
else
    tap_skip "script(1) is not installed (- on a terminal)"
fi

# What the text summary has, the JSON has: the share of the capacity and
# the largest rows at the peak (--top N, 10 unless told). rows: how many
# the first allocator (GPU_0_bfc) lists.
demo_v1="$source_dir/data/demo.v1.pb"
memtop_run --summary --json "$demo_v1"
memtop_expect "--summary --json: utilization and the 10 largest rows at the peak" 0 \
    out '"capacity_bytes":15843721216,"lifetime_peak_bytes":7694752768,"peak":{"bytes":7694818304,' \
    out '"timeline_sampled":true,"utilization":0.4856698877173679,"top_rows":\[{"op_name":"unused preallocated device memory","allocation_bytes":2852377856,"requested_bytes":2852377856,"occurrences":1,"region_type":"persist/dynamic","data_type":"INVALID","tensor_shape":"unknown","step_id":7,"time_ps":null,"address":0,"activity":"ALLOCATION","origin":"special","snapshot_index":-1,"special_index":0,"kind":"","location":"","stack":"","total_bytes":2852377856,"share":0.3706881362640165,"context":"","module":""},{"op_name":"gradients/model/dense_94/Relu_grad/ReluGrad","allocation_bytes":50331648,'
rows=$(sed 's/{"id":"GPU_1_bfc".*//' "$work/out" | grep -o '"op_name"' | wc -l)
tap_check "  ... ten rows for the first allocator" test "$rows" -eq 10
memtop_run --summary --json --top 2 "$demo_v1"
rows=$(sed 's/{"id":"GPU_1_bfc".*//' "$work/out" | grep -o '"op_name"' | wc -l)
tap_check "--top 2: two rows" test "$status" -eq 0 -a "$rows" -eq 2
memtop_run --summary --top 0 "$demo_v1"
memtop_expect "--top 0: the text summary counts the rows, lists none" 0 \
    out "^  Active allocations at peak: 293 rows$" out "^    of capacity  *48.57 %$"
if grep -q "unused preallocated" "$work/out"; then tap_not_ok "  ... and lists no row" "$work/out"; else tap_ok "  ... and lists no row"; fi
memtop_run --summary --top 3 "$demo_v1"
memtop_expect "--top 3: the text summary lists three" 0 out "293 rows, the largest:"
tap_check "  ... three of them" test "$(grep -c '^    .* x[0-9]' "$work/out")" -eq 9
memtop_run --top 3 "$demo_v1"
memtop_expect "--top without --summary: status 2" 2 err "^memtop: --top goes with --summary$"
memtop_run --summary --top -1 "$demo_v1"
memtop_expect "--top -1: status 2" 2 err "^memtop: --top: '-1' is not a number of rows$"

# Profiles memtop has never seen: fresh ones from the generator, whose own
# simulation computed the peaks the XProf way (--stats), in every form.
generator="${MEMTOP_BUILDDIR:-.}/tests/generate_profile"
for case in "0 pb 101" "0 json 202" "1 pb 303" "1 json 404"; do
    set -- $case
    version=$1 format=$2 seed=$3
    "$generator" --version "$version" --format "$format" --seed "$seed" --snapshots 4000 \
        --hlo 3 --stats -o "$work/fresh.$format" 2>"$work/stats"
    memtop_run --summary --json "$work/fresh.$format"
    set -- out "\"version\":$version,"
    sed -n 's/^\([^:]*\): \([0-9]*\) snapshots.* peak \([0-9]*\) bytes.* at \([0-9]*\) ps.* capacity \([0-9]*\), lifetime peak \([0-9]*\), \([0-9]*\) rows.*/\1 \2 \3 \4 \5 \6 \7/p' \
        "$work/stats" >"$work/expected"
    [ -s "$work/expected" ] || echo "# the generator printed no stats" >>"$work/err"
    while read -r id snapshots peak time capacity lifetime rows; do
        [ "$version" = 1 ] && [ "$snapshots" -gt 1000 ] && snapshots=1000
        set -- "$@" out "{\"id\":\"$id\",\"snapshots\":$snapshots,\"allocations\":[0-9]*,\"deallocations\":[0-9]*,\"capacity_bytes\":$capacity,\"lifetime_peak_bytes\":$lifetime,\"peak\":{\"bytes\":$peak,\"time_ps\":$time,"
        set -- "$@" out "\"id\":\"$id\"[^]]*\"active_allocations\":$rows,"
    done <"$work/expected"
    memtop_expect "fresh v$version $format profile (seed $seed): summary as XProf computes it" 0 "$@"
done

# ---- a terminal curses does not know: one clear line, status 1, and
# nothing leaked (ncurses' failed newterm() kept 1.6 KB): the sanitizer
# build checks leaks itself, valgrind checks elsewhere when installed.
# script(1) gives memtop a pseudo-terminal for stdin and stdout.
# bogus_term [WRAPPER...]: memtop under TERM=bogus; stderr in err, $status.
bogus_term() {
    script -qec "env TERM=bogus $* '$memtop' '$source_dir/data/demo.v1.pb' 2>'$work/err'" \
        /dev/null >"$work/out" </dev/null
    status=$?
    : >"$work/out"
}
bogus_line='^memtop: cannot use the terminal (TERM=bogus); try --summary$'
if ! command -v script >/dev/null 2>&1; then
    tap_skip "script(1) is not installed (TERM=bogus)"
    tap_skip "script(1) is not installed (TERM=bogus under valgrind)"
else
    bogus_term
    if [ "$(wc -l <"$work/err")" -eq 1 ]; then
        memtop_expect "TERM=bogus: one clear line, status 1, nothing leaked" 1 err "$bogus_line"
    else
        tap_not_ok "TERM=bogus: one clear line, status 1, nothing leaked" "$work/err"
    fi
    if ! command -v valgrind >/dev/null 2>&1; then
        tap_skip "valgrind is not installed (TERM=bogus)"
    elif memtop_sanitized; then
        tap_skip "memtop is built with AddressSanitizer, which checked the leak above"
    else
        bogus_term valgrind -q --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite
        if [ "$(wc -l <"$work/err")" -eq 1 ]; then
            memtop_expect "valgrind: TERM=bogus leaks nothing" 1 err "$bogus_line"
        else
            tap_not_ok "valgrind: TERM=bogus leaks nothing" "$work/err"
        fi
    fi
fi

tap_done
