#!/bin/sh
# Bad and hostile files through `memtop --summary`: each refused with
# exactly one line "memtop: FILE: WHAT" and status 2, without hanging or
# leaking (valgrind, when installed and the build is not sanitized), and
# strings from a profile never reaching the terminal raw. Prints TAP.
#
# A known bug not fixed yet can be checked with `todo` instead of
# tap_check: TAP counts it as an expected failure, and as an unexpected
# pass (which fails the suite) once fixed, so that the marker goes.
set -u
memtop="${MEMTOP_BUILDDIR:-.}/memtop"
source_dir="${MEMTOP_SRCDIR:-.}"
. "$source_dir/tests/lib.sh"
work=$test_work

# run ARGS...: memtop with a time limit; keeps out, err and status.
run() {
    timeout 60 "$memtop" "$@" >"$work/out" 2>"$work/err"
    status=$?
}

# refused NAME FILE MESSAGE: status 2, nothing on stdout, and stderr is
# exactly "memtop: FILE: MESSAGE" (MESSAGE a grep -E pattern, whole line).
refused() {
    name=$1 file=$2 message=$3
    run --summary "$file"
    printf '%s\n' "# status $status" >"$work/why"
    if [ "$status" -ne 2 ]; then
        tap_not_ok "$name: status 2" "$work/why" "$work/err"
        return
    fi
    if [ -s "$work/out" ] || [ "$(wc -l <"$work/err")" -ne 1 ]; then
        tap_not_ok "$name: one line on stderr, nothing on stdout" "$work/err" "$work/out"
        return
    fi
    line=$(cat "$work/err")
    case $line in
        "memtop: $file: "*) ;;
        *) tap_not_ok "$name: starts with 'memtop: FILE: '" "$work/err"; return ;;
    esac
    if printf '%s\n' "${line#"memtop: $file: "}" | grep -E -q -x -e "$message"; then
        tap_ok "$name"
    else
        echo "# expected: memtop: $file: $message" >"$work/why"
        tap_not_ok "$name" "$work/err" "$work/why"
    fi
}

# todo NAME COMMAND...: a check that fails until a known bug is fixed.
todo() {
    name=$1
    shift
    tap_count=$((tap_count + 1))
    if "$@"; then
        echo "ok $tap_count - $name # TODO known bug: remove this marker, it is fixed"
    else
        echo "not ok $tap_count - $name # TODO known bug, reported"
    fi
}

# Bytes a terminal may receive: no C0 control but newline, no DEL, no C1
# (U+0080..U+009F, as UTF-8 or as raw bytes), valid UTF-8 only.
terminal_safe() {
    LC_ALL=C tr -d '\000-\011\013-\037\177' <"$1" >"$work/stripped"
    cmp -s "$1" "$work/stripped" || return 1
    c1=$(printf '\302[\200-\237]')
    if LC_ALL=C grep -q -e "$c1" "$1"; then return 1; fi
    if command -v iconv >/dev/null 2>&1; then
        iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1 || return 1
    fi
    return 0
}

# ---- files that are not profiles ----
: >"$work/empty.pb"
refused "empty file" "$work/empty.pb" "empty file"
printf '\n' >"$work/one-byte.pb"
refused "one byte" "$work/one-byte.pb" \
    "offset 1: varint runs past the end of the data \(1 bytes?\)"
refused "missing file" "$work/missing.pb" "No such file or directory"
mkdir "$work/nothing"
refused "a directory without profiles" "$work/nothing" \
    "no memory profile files in this directory .*"
# A FIFO or a device is read as a pipe is (issue 15: test_cli.sh); one
# with nothing in it is empty.
mkfifo "$work/fifo.pb"
: >"$work/fifo.pb" &
refused "a FIFO whose writer writes nothing" "$work/fifo.pb" "empty input"
wait
refused "a character device with nothing in it" /dev/null "empty input"
printf 'this is not a memory profile\n' >"$work/text.pb"
refused "plain text" "$work/text.pb" "not a memory profile \(none of the formats memtop reads: pb, json, [a-z, -]*\)"
printf '{"version":1}' >"$work/secret.json"
chmod 0 "$work/secret.json"
if [ "$(id -u)" -ne 0 ]; then
    refused "an unreadable file" "$work/secret.json" "Permission denied"
elif command -v setpriv >/dev/null 2>&1; then
    chmod 0711 "$work"
    setpriv --reuid=65534 --regid=65534 --clear-groups "$memtop" --summary "$work/secret.json" \
        >"$work/out" 2>"$work/err"
    status=$?
    if [ "$status" -eq 2 ] && [ "$(cat "$work/err")" = "memtop: $work/secret.json: Permission denied" ]; then
        tap_ok "an unreadable file (as nobody)"
    else
        echo "# status $status" >"$work/why"
        tap_not_ok "an unreadable file (as nobody)" "$work/why" "$work/err"
    fi
    chmod 0700 "$work"
else
    tap_skip "running as root without setpriv: every file is readable"
fi

# ---- broken protobuf ----
printf '\010\001' >"$work/wire-type.pb"
refused "wrong wire type" "$work/wire-type.pb" \
    "offset 0: field 1 \(memory_profile_per_allocator\) has wire type 0, expected 2"
printf '\012\005\000' >"$work/length.pb"
refused "length past the end" "$work/length.pb" \
    "offset 1: length 5 runs past the end of the data \(3 bytes\)"
printf '\020\377\377\377\377\377\377\377\377\377\377\001' >"$work/varint.pb"
refused "overlong varint" "$work/varint.pb" "offset 1: varint longer than 10 bytes"
printf '\020\001' >"$work/no-allocators.pb"
refused "valid protobuf without allocators" "$work/no-allocators.pb" "no allocators in it: .*"

# ---- broken JSON ----
printf '{"memoryProfilePerAllocator":{"gpu":{"memoryProfileSnapshots":[{"timeOffsetPs":true}]}}}' \
    >"$work/wrong-type.json"
refused "JSON with a wrong type" "$work/wrong-type.json" \
    "memoryProfilePerAllocator.gpu.memoryProfileSnapshots\[0\].timeOffsetPs: expected a 64-bit integer, got true"
printf '{"memoryProfilePerAllocator":{}}' >"$work/empty-map.json"
refused "an empty allocator map" "$work/empty-map.json" "no allocators in it: .*"
{
    printf '{"memoryProfilePerAllocator":{"a":{}},"x":'
    i=0
    while [ $i -lt 50 ]; do printf '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[['; i=$((i + 1)); done
    i=0
    while [ $i -lt 50 ]; do printf ']]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]'; i=$((i + 1)); done
    printf '}'
} >"$work/deep.json"
refused "5000-deep nesting" "$work/deep.json" "JSON nested deeper than 1000 levels at offset 1041"
# Issue 26.6: valid JSON past the limit is named as deep, not invalid: in a
# MemoryProfile's unknown member, and in a trace event's args.
{ printf '{"memoryProfilePerAllocator":{"a":{}},"x":'
  head -c 1001 /dev/zero | tr '\0' '['; head -c 1001 /dev/zero | tr '\0' ']'; printf '}'
} >"$work/deep-valid.json"
refused "1001-deep valid JSON" "$work/deep-valid.json" \
    "JSON nested deeper than 1000 levels at offset 1041"
{ printf '{"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":1,"args":'
  i=0; while [ $i -lt 1001 ]; do printf '{"a":'; i=$((i + 1)); done; printf '1'
  head -c 1001 /dev/zero | tr '\0' '}'; printf '}]}'
} >"$work/deep-trace.json"
refused "a trace event 1001 deep in its args" "$work/deep-trace.json" \
    "JSON nested deeper than 1000 levels at offset [0-9]+"
printf '{"memoryProfilePerAllocator":{"a":{}}} trailing' >"$work/trailing.json"
refused "trailing garbage after the JSON" "$work/trailing.json" "offset [0-9]+: .*"

# ---- gzip ----
printf '{"memoryProfilePerAllocator":{"gpu":{}}}' | gzip -n -c >"$work/good.json.gz"
size=$(wc -c <"$work/good.json.gz")
head -c $((size - 6)) "$work/good.json.gz" >"$work/truncated.json.gz"
refused "truncated gzip" "$work/truncated.json.gz" "offset [0-9]+: truncated gzip data"
{ head -c 12 "$work/good.json.gz"; printf 'garbage garbage garbage'; } >"$work/corrupt.json.gz"
refused "corrupt gzip" "$work/corrupt.json.gz" "offset [0-9]+: corrupt gzip data"
head -c 83886080 /dev/zero | gzip -n -9 -c >"$work/bomb.pb.gz"
# About 80 KiB: the default cap is 256 times the file, at least 64 MiB.
refused "a decompression bomb (80 MiB of zeros)" "$work/bomb.pb.gz" \
    "gzip data inflates past 67108864 bytes; refusing it \(a decompression bomb\?\)"

# Issue 16.7: bytes after the gzip stream are refused, another member is not.
{ cat "$work/good.json.gz"; printf 'x'; } >"$work/trailing.json.gz"
refused "bytes after the gzip stream" "$work/trailing.json.gz" \
    "trailing data after the gzip stream at offset $(wc -c <"$work/good.json.gz" | tr -d ' ')"
gzip -dc "$work/good.json.gz" >"$work/two.json"
half=$(($(wc -c <"$work/two.json") / 2))
{ head -c "$half" "$work/two.json" | gzip -n -c
  tail -c "+$((half + 1))" "$work/two.json" | gzip -n -c; } >"$work/two-members.json.gz"
run --summary "$work/two-members.json.gz"
tap_check "two gzip members still load (as their concatenation)" [ "$status" -eq 0 ]

# Issue 16.5: a repeated map key: the last entry wins, with a warning on
# stderr in the usual shape; the exit status stays 0.
printf '{"memoryProfilePerAllocator":{"A\\u001b[2J":{"memoryProfileSnapshots":[{"timeOffsetPs":"1"}]},"A\\u001b[2J":{"memoryProfileSnapshots":[{"timeOffsetPs":"2"},{"timeOffsetPs":"3"}]}}}' \
    >"$work/repeated.json"
for mode in "--summary --json" "--export summary"; do
    # shellcheck disable=SC2086 # the mode is two words
    run $mode "$work/repeated.json"
    expected="memtop: $work/repeated.json: warning: the file repeats map key \"A\\\\x1b\\[2J\"; the last entry wins, as protobuf reads it"
    if [ "$status" -eq 0 ] && [ "$(wc -l <"$work/err")" -eq 1 ] &&
       grep -q -x -e "$expected" "$work/err" && terminal_safe "$work/err"; then
        tap_ok "$mode: a repeated map key is one warning line, status 0"
    else
        echo "# status $status; expected: $expected" >"$work/why"
        tap_not_ok "$mode: a repeated map key is one warning line, status 0" "$work/why" "$work/err"
    fi
done
run --summary --json "$work/repeated.json"
tap_check "a repeated map key: the last entry's 2 snapshots, not 3" \
    grep -q '"snapshots":2,' "$work/out"

# Issue 26.7: gzip inside gzip is read; a third layer, and JSON in
# UTF-16 or UTF-32 (with a byte-order mark or without), are named.
gzip -n -c "$work/good.json.gz" >"$work/twice.json.gz"
run --summary "$work/twice.json.gz"
tap_check "gzip inside gzip: read" [ "$status" -eq 0 ]
gzip -n -c "$work/twice.json.gz" >"$work/thrice.json.gz"
refused "gzip three times" "$work/thrice.json.gz" "gzip-compressed more than twice: gunzip it first"
if command -v iconv >/dev/null 2>&1; then
    for encoding in UTF-16LE UTF-16BE UTF-32LE UTF-32BE UTF-16 UTF-32; do
        gzip -dc "$work/good.json.gz" | iconv -f UTF-8 -t "$encoding" >"$work/wide.json"
        name=${encoding%??}
        case $encoding in *LE|*BE) ;; *) name=$encoding ;; esac
        refused "JSON in $encoding" "$work/wide.json" \
            "$name text: convert it to UTF-8 \(iconv -f $encoding -t UTF-8\)"
    done
    gzip -dc "$work/good.json.gz" | iconv -f UTF-8 -t UTF-16 | gzip -n -c >"$work/wide.json.gz"
    refused "gzipped JSON in UTF-16" "$work/wide.json.gz" \
        "UTF-16 text: convert it to UTF-8 \(iconv -f UTF-16 -t UTF-8\)"
else
    tap_skip "JSON in UTF-16 and UTF-32: no iconv"
fi

# ---- hostile strings: never raw on the terminal ----
# The allocator, op, region, type and shape hold ESC sequences, BEL, C1
# controls (as JSON escapes and as raw UTF-8) and invalid UTF-8.
evil=$(printf '\\u001b]0;owned\\u0007\\u001b[2J\\u009b31m\302\233\377\300\257')
printf '{"memoryProfilePerAllocator":{"gpu%s":{"memoryProfileSnapshots":[{"timeOffsetPs":"1","aggregationStats":{"heapAllocatedBytes":"64"},"activityMetadata":{"memoryActivity":"ALLOCATION","tfOpName":"op%s","regionType":"r%s","dataType":"d%s","tensorShape":"s%s"}}],"activeAllocations":[{"snapshotIndex":"0","specialIndex":"-1","numOccurrences":"1"}]}}}' \
    "$evil" "$evil" "$evil" "$evil" "$evil" >"$work/evil.json"
run --summary "$work/evil.json"
if [ "$status" -eq 0 ] && grep -q 'op' "$work/out" && terminal_safe "$work/out"; then
    tap_ok "--summary text: profile strings escaped"
else
    echo "# status $status" >"$work/why"
    LC_ALL=C od -c "$work/out" | head -n 30 >"$work/dump"
    tap_not_ok "--summary text: profile strings escaped" "$work/why" "$work/dump" "$work/err"
fi
run --summary --json "$work/evil.json"
if [ "$status" -eq 0 ] && terminal_safe "$work/out"; then
    tap_ok "--summary --json: profile strings escaped"
else
    tap_not_ok "--summary --json: profile strings escaped" "$work/out"
fi

# Bidirectional controls in the allocator id and in a host's file name:
# escaped in the JSON report as in the text one (issue 16.2).
mkdir "$work/bidi"
bidi_name=$(printf 'w\342\200\256bp.json')
printf '{"memoryProfilePerAllocator":{"gpu\\u202ex\\u2066y\\u200fz\\u061c":{"memoryProfileSnapshots":[{"timeOffsetPs":"1","aggregationStats":{"heapAllocatedBytes":"64"}}]}}}' \
    >"$work/bidi/$bidi_name"
cp "$work/bidi/$bidi_name" "$work/bidi/plain.json"
run --summary --json "$work/bidi"
raw_bidi=$(printf '\342\200\256|\342\201\246|\342\200\217|\330\234')
if [ "$status" -eq 0 ] && ! LC_ALL=C grep -Eq "$raw_bidi" "$work/out" &&
   grep -q '"id":"gpu\\u202ex\\u2066y\\u200fz\\u061c"' "$work/out" &&
   grep -q '"host":"w\\u202ebp","file":"[^"]*/w\\u202ebp.json"' "$work/out"; then
    tap_ok "--summary --json: bidirectional controls in ids, hosts and files as \\u escapes"
else
    tap_not_ok "--summary --json: bidirectional controls in ids, hosts and files as \\u escapes" "$work/out" "$work/err"
fi
run --summary "$work/bidi"
if [ "$status" -eq 0 ] && ! LC_ALL=C grep -Eq "$raw_bidi" "$work/out"; then
    tap_ok "--summary text: the same bidirectional controls escaped"
else
    tap_not_ok "--summary text: the same bidirectional controls escaped" "$work/out"
fi

# A key of the file in a JSON error message.
printf '{"memoryProfilePerAllocator":{"%s":5}}' "$evil" >"$work/evil-error.json"
run --summary "$work/evil-error.json"
[ "$status" -eq 2 ] && [ "$(wc -l <"$work/err")" -eq 1 ]
tap_check "an error naming a hostile key: one line, status 2" [ $? -eq 0 ]
tap_check "an error naming a hostile key: escaped (C1 and invalid UTF-8 too)" \
    terminal_safe "$work/err"

# A hostile file name inside a directory of hosts.
mkdir "$work/hosts"
evil_name=$(printf 'w\033]0;owned\007\033[2J\302\233x.pb')
printf 'junk' >"$work/hosts/$evil_name"
run --summary "$work/hosts"
[ "$status" -eq 2 ] && [ "$(wc -l <"$work/err")" -eq 1 ]
tap_check "a broken host with a hostile file name: one line, status 2" [ $? -eq 0 ]
tap_check "a broken host with a hostile file name: the name escaped" terminal_safe "$work/err"

# ---- leaks: valgrind on a few refusals and an odd profile ----
if ! command -v valgrind >/dev/null 2>&1; then
    tap_skip "valgrind is not installed"
elif nm "$memtop" 2>/dev/null | grep -q __asan_init ||
     ldd "$memtop" 2>/dev/null | grep -q libasan; then
    tap_skip "memtop is built with AddressSanitizer, which checks leaks itself"
else
    for file in "$work/empty.pb" "$work/length.pb" "$work/wrong-type.json" \
                "$work/deep.json" "$work/truncated.json.gz" "$work/corrupt.json.gz" \
                "$work/nothing" "$work/missing.pb"; do
        valgrind -q --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite \
            "$memtop" --summary "$file" >"$work/out" 2>"$work/err"
        status=$?
        if [ "$status" -eq 2 ]; then
            tap_ok "valgrind: no leak refusing $(basename "$file")"
        else
            echo "# status $status (3: valgrind found an error)" >"$work/why"
            tap_not_ok "valgrind: no leak refusing $(basename "$file")" "$work/why" "$work/err"
        fi
    done
    valgrind -q --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite \
        "$memtop" --summary "$work/evil.json" >"$work/out" 2>"$work/err"
    status=$?
    if [ "$status" -eq 0 ]; then
        tap_ok "valgrind: clean on the hostile-strings profile"
    else
        tap_not_ok "valgrind: clean on the hostile-strings profile" "$work/err"
    fi
fi

tap_done
