#!/bin/sh
# A profile's text as the user meets it (issue 16): names holding a NUL
# byte stay apart everywhere (--summary, --summary --json, the CSV, the
# bytes of a file, --allocator, the viewer), and file text in messages
# and warnings is escaped exactly once, on stderr and in the viewer.
# Prints TAP.
set -u
source_dir="${MEMTOP_SRCDIR:-.}"
. "$source_dir/tests/lib.sh"
work="$test_work"

# ---- the profiles of the issue ----
# Binary: map keys "A\0x" and "A\0y", one allocation each (ops "op", "oq").
printf '\012\033\012\003A\000x\022\024\012\014\010\001\032\010\010\001\030\100\052\002op\032\004\010\000\030\001' >"$work/nul.pb"
printf '\012\033\012\003A\000y\022\024\012\014\010\002\032\010\010\001\030\140\052\002oq\032\004\010\000\030\001' >>"$work/nul.pb"
# JSON: keys "c\u0000x" and "c\u0000y"; the first one's op is "a\u0000b".
printf '{"memoryProfilePerAllocator":{"c\\u0000x":{"memoryProfileSnapshots":[{"timeOffsetPs":"1","aggregationStats":{"heapAllocatedBytes":"64"},"activityMetadata":{"memoryActivity":"ALLOCATION","tfOpName":"a\\u0000b","allocationBytes":"64"}}],"activeAllocations":[{"snapshotIndex":"0","specialIndex":"-1","numOccurrences":"1"}]},"c\\u0000y":{"memoryProfileSnapshots":[{"timeOffsetPs":"2","aggregationStats":{"heapAllocatedBytes":"32"}}]}}}' \
    >"$work/nul.json"

# nul_visible FILE: FILE with every NUL byte shown as '@', for grep.
nul_visible() {
    tr '\000' '@' <"$1"
}

for case in "pb A" "json c"; do
    set -- $case
    format=$1 key=$2
    file="$work/nul.$format"
    memtop_run --summary "$file"
    memtop_expect "$format: --summary shows both keys, NUL escaped" 0 \
        out "^$key\\\\x00x\$" out "^$key\\\\x00y\$"
    tap_check "  ... in two reports and no warning of a repeated key" \
        test "$(grep -c '^  Snapshots' "$work/out")" -eq 2 -a ! -s "$work/err"

    memtop_run --summary --json "$file"
    memtop_expect "$format: --summary --json: both ids, NUL as \\u0000" 0 \
        out "\"id\":\"$key\\\\u0000x\"" out "\"id\":\"$key\\\\u0000y\""

    memtop_run --export summary -o "$work/summary-$format.csv" "$file"
    if [ "$status" -eq 0 ] && nul_visible "$work/summary-$format.csv" | grep -q "^$key@x," &&
        nul_visible "$work/summary-$format.csv" | grep -q "^$key@y,"; then
        tap_ok "$format: --export summary -o FILE: both ids, the NUL byte itself"
    else
        tap_not_ok "$format: --export summary -o FILE: both ids, the NUL byte itself" \
            "$work/err"
    fi

    memtop_run --export summary --allocator "$key\\x00y" "$file"
    if [ "$status" -eq 0 ] && [ "$(wc -l <"$work/out")" -eq 2 ] &&
        nul_visible "$work/out" | grep -q "^$key@y,"; then
        tap_ok "$format: --allocator '$key\\x00y' (as memtop shows it) picks the second"
    else
        tap_not_ok "$format: --allocator '$key\\x00y' (as memtop shows it) picks the second" \
            "$work/out" "$work/err"
    fi

    memtop_run --export summary --allocator "$key" "$file"
    memtop_expect "$format: --allocator $key is no allocator; the list shows both apart" 2 \
        err "no allocator '$key'; the allocators are: $key\\\\x00x, $key\\\\x00y\$"
done

# The op "a\u0000b": the CSV holds its three bytes, to a file and a pipe.
{
    "$memtop" --export allocations "$work/nul.json" | head -n 1
    printf 'a\000b,64,0,1,,,,0,1,0,ALLOCATION,snapshot,0,-1,,,,64,1,,\n'
} >"$work/expected.csv"
memtop_run --export allocations -o "$work/allocations.csv" "$work/nul.json"
tap_check "json: --export allocations -o FILE: the op a, NUL, b byte for byte" \
    cmp -s "$work/allocations.csv" "$work/expected.csv"
"$memtop" --export allocations "$work/nul.json" | cat >"$work/piped.csv"
tap_check "  ... and through a pipe" cmp -s "$work/piped.csv" "$work/expected.csv"
memtop_run --summary "$work/nul.json"
memtop_expect "json: --summary's top rows show the op as a\\x00b" 0 out ' a\\x00b  '

# ---- two profiles compared (--compare): the pairs' ids and ops whole ----
memtop_run --summary --compare "$work/nul.pb" "$work/nul.pb"
memtop_expect "--summary --compare: both pairs, A\\x00x and A\\x00y apart" 0 \
    out '^A\\x00x$' out '^A\\x00y$'
memtop_run --summary --json --compare "$work/nul.pb" "$work/nul.pb"
memtop_expect "--summary --json --compare: the pairs' ids with \\u0000" 0 \
    out '{"id":"A\\u0000x","in":"both"' out '{"id":"A\\u0000y","in":"both"'
memtop_run --export compare --allocator 'A\x00y' "$work/nul.pb" "$work/nul.pb"
memtop_expect "--export compare --allocator 'A\\x00y' picks the second pair" 0 \
    out '^oq,96,96,0,1,1$'
memtop_run --export compare --allocator A "$work/nul.pb" "$work/nul.pb"
memtop_expect "--export compare --allocator A: none; both lists show the ids apart" 2 \
    err "no allocator 'A' in either profile; .*nul.pb has: A\\\\x00x, A\\\\x00y; .*nul.pb has: A\\\\x00x, A\\\\x00y\$"
memtop_run --export compare -o "$work/compare.csv" "$work/nul.json" "$work/nul.json"
if [ "$status" -eq 0 ] && nul_visible "$work/compare.csv" | grep -q '^a@b,64,64,0,1,1$'; then
    tap_ok "--export compare -o FILE: the op a, NUL, b byte for byte"
else
    tap_not_ok "--export compare -o FILE: the op a, NUL, b byte for byte" "$work/err"
fi

# ---- messages and warnings: the file's text escaped exactly once ----
# A key holding ESC, a NUL and a backslash in an error: \x1b, \x00 and
# \\ on stderr (not \\x1b: the loader no longer escapes it first).
mkdir "$work/hosts"
printf '{"memoryProfilePerAllocator":{"k\\u001b[2J\\u0000z\\\\":5}}' >"$work/hosts/bad.json"
cp "$work/nul.json" "$work/hosts/good.json"
memtop_run --summary "$work/hosts/bad.json"
memtop_expect "an error quoting a hostile key: escaped once on stderr" 2 \
    err '^memtop: .*/bad.json: memoryProfilePerAllocator\.k\\x1b\[2J\\x00z\\\\: expected an object, got 5$'
memtop_run --summary --json "$work/hosts"
memtop_expect "  ... and in --summary --json's \"error\" as JSON escapes" 2 \
    out '"error":"memoryProfilePerAllocator\.k\\u001b\[2J\\u0000z\\\\: expected an object, got 5"'
# A repeated key with ESC in it: the warning, escaped once.
printf '{"memoryProfilePerAllocator":{"W\\u001b[2J":{"memoryProfileSnapshots":[{"timeOffsetPs":"1"}]},"W\\u001b[2J":{"memoryProfileSnapshots":[{"timeOffsetPs":"2"}]},"V":{},"V":{}}}' \
    >"$work/repeated.json"
memtop_run --summary "$work/repeated.json"
memtop_expect "a warning quoting a hostile key: escaped once on stderr" 0 \
    err '^memtop: .*/repeated.json: warning: the file repeats map key "W\\x1b\[2J"; the last entry wins, as protobuf reads it$'

# ---- the viewer: the two allocators shown apart ----
if tmux_have && locale -a 2>/dev/null | grep -qi '^c\.utf-\?8$'; then
    tmux_start 120 30 "env LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=tmux-256color '$memtop' '$work/nul.pb'; echo EXIT=\$?; sleep 60"
    if tmux_wait_for 'allocator A\x00x (1/2)' && grep -q 'A\\x00y' "$tmux_screen"; then
        tap_ok "viewer: A\\x00x and A\\x00y listed apart, the first open"
    else
        tap_not_ok "viewer: A\\x00x and A\\x00y listed apart, the first open"
    fi
    tmux_keys ']'
    tap_check "viewer: ] opens A\\x00y" tmux_wait_for 'allocator A\x00y (2/2)'
    tmux_keys q
    tap_check "viewer: q quits with status 0" tmux_wait_for "EXIT=0"

    # CSV to a terminal: the NUL escaped, the two ids apart.
    tmux_start 120 30 "'$memtop' --export summary '$work/nul.pb'; echo EXIT=\$?; sleep 60"
    if tmux_wait_for "EXIT=0" && grep -q '^A\\x00x,' "$tmux_screen" &&
        grep -q '^A\\x00y,' "$tmux_screen"; then
        tap_ok "CSV to a terminal: A\\x00x and A\\x00y, escaped"
    else
        tap_not_ok "CSV to a terminal: A\\x00x and A\\x00y, escaped"
    fi

    # Load warnings on the status line, escaped once, with how many more.
    tmux_start 160 30 "env LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=tmux-256color '$memtop' '$work/repeated.json'; echo EXIT=\$?; sleep 60"
    tap_check "viewer: the status line says the file repeats a key, escaped once" \
        tmux_wait_for 'repeated: warning: the file repeats map key "W\x1b[2J"; the last entry wins, as protobuf reads it (+1 more)'
    tmux_keys q
    tap_check "viewer: q quits with status 0 after the warning" tmux_wait_for "EXIT=0"

    # --compare: the header names the pair's id whole; a load warning of
    # either profile shows on the status line (main prints none then).
    tmux_start 160 30 "env LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=tmux-256color '$memtop' --compare '$work/nul.pb' '$work/nul.pb'; echo EXIT=\$?; sleep 60"
    tap_check "viewer --compare: the header names the pair A\\x00x (1/2)" \
        tmux_wait_for 'allocator A\x00x (1/2)'
    tmux_keys q
    tmux_start 160 30 "env LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=tmux-256color '$memtop' --compare '$work/nul.json' '$work/repeated.json'; echo EXIT=\$?; sleep 60"
    tap_check "viewer --compare: the new profile's load warning on the status line" \
        tmux_wait_for 'repeated: warning: the file repeats map key "W\x1b[2J"; the last entry wins, as protobuf reads it (+1 more)'
    tmux_keys q
    tap_check "viewer --compare: q quits with status 0 after the warning" tmux_wait_for "EXIT=0"

    # A host that failed on a hostile key: its error escaped once in the
    # hosts list, the status line and the error panel.
    tmux_start 160 30 "env LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=tmux-256color '$memtop' '$work/hosts'; echo EXIT=\$?; sleep 60"
    if tmux_wait_for 'Could not load this host' && tmux_wait_for 'k\x1b[2J\x00z\\: expected an object' &&
        ! grep -q 'k\\\\x1b' "$tmux_screen"; then
        tap_ok "viewer: a host's error quoting a hostile key, escaped once"
    else
        tap_not_ok "viewer: a host's error quoting a hostile key, escaped once"
    fi
    tmux_keys q
    tap_check "viewer: q quits with status 0 after the error" tmux_wait_for "EXIT=0"
else
    for name in listed next quit csv warning warning-quit compare-header compare-warning \
        compare-quit error error-quit; do
        tap_skip "no tmux or no C.UTF-8 locale ($name)"
    done
fi

tap_done
