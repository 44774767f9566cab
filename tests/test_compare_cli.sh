#!/bin/sh
# Two profiles compared on the command line (issue 13): --export compare
# against per-op sums recomputed here with awk from each profile's
# --export allocations, --summary --json --compare against each
# profile's own --summary --json, a profile against itself (every delta
# 0), allocators in one profile only, hostile op names and memory ids,
# -o's rules, and bad usage. Prints TAP.
set -u
source_dir="${MEMTOP_SRCDIR:-.}"
build_dir="${MEMTOP_BUILDDIR:-.}"
. "$source_dir/tests/lib.sh"
work=$test_work
generate="$build_dir/tests/generate_profile"
json_check="$build_dir/tests/json_check"

COMPARE_HEADER='op_name,base_bytes,new_bytes,delta_bytes,base_count,new_count'

# BASE: protobuf, 2 allocators (GPU_0_bfc, cpu); NEW: gzipped JSON, 3
# (GPU_0_bfc, GPU_1_bfc, cpu), another seed and another length.
base="$work/base.pb"
new="$work/new.json.gz"
"$generate" --format pb --snapshots 400 --seed 1 --allocators 2 >"$base"
"$generate" --format json --snapshots 700 --seed 2 --allocators 3 | gzip -n >"$new"

# expected_compare BASE_CSV NEW_CSV: the op table recomputed from two
# --export allocations files (generated names hold no comma or quote):
# bytes are allocation_bytes x occurrences, counts the occurrences (below
# 1 counted as 1), unresolved rows under "(unresolved)"; sorted by
# |delta| descending, then by name bytewise.
expected_compare() {
    echo "$COMPARE_HEADER"
    awk -F, 'FNR == 1 { side++; next }
        { name = $12 == "unresolved" ? "(unresolved)" : $1
          occurrences = $4 < 1 ? 1 : $4
          bytes[name, side] += $2 * occurrences; count[name, side] += occurrences
          names[name] = 1 }
        END { for (name in names) {
                delta = bytes[name, 2] - bytes[name, 1]
                printf "%.0f\t%s\t%s,%.0f,%.0f,%.0f,%.0f,%.0f\n", delta < 0 ? -delta : delta,
                       name, name, bytes[name, 1], bytes[name, 2], delta,
                       count[name, 1], count[name, 2] } }' "$1" "$2" |
        LC_ALL=C sort -t "$(printf '\t')" -k1,1nr -k2,2 | cut -f3
}

# check_against_allocations NAME ALLOCATOR BASE NEW [ALLOCATOR_NEW_SIDE]:
# --export compare --allocator ALLOCATOR is what the two allocations
# exports add up to (a side without the allocator contributes nothing).
check_against_allocations() {
    name=$1 allocator=$2 base_file=$3 new_file=$4
    for side in base new; do
        eval "file=\$${side}_file"
        if "$memtop" --export allocations --allocator "$allocator" "$file" >"$work/$side.csv" \
            2>/dev/null; then :; else echo "$COMPARE_HEADER" >"$work/$side.csv"; fi
    done
    expected_compare "$work/base.csv" "$work/new.csv" >"$work/expected.csv"
    memtop_run --export compare --allocator "$allocator" "$base_file" "$new_file"
    if [ "$status" -eq 0 ] && cmp -s "$work/expected.csv" "$work/out" &&
        [ "$(wc -l <"$work/out")" -gt 1 ]; then
        tap_ok "$name"
    else
        diff "$work/expected.csv" "$work/out" >"$work/why" 2>&1
        tap_not_ok "$name" "$work/why" "$work/err"
    fi
}

# ---- --export compare: the sums, recomputed independently ----
memtop_run --export compare "$base" "$new"
memtop_expect "--export compare BASE NEW: status 0, the header" 0 out "^$COMPARE_HEADER\$"
head -n 1 "$work/out" >"$work/header"
tap_check "  ... the header is exactly the six columns" test "$(cat "$work/header")" = "$COMPARE_HEADER"
cp "$work/out" "$work/default.csv"
check_against_allocations "GPU_0_bfc: per-op sums and deltas are the allocations exports'" \
    GPU_0_bfc "$base" "$new"
tap_check "  ... the default pair is the first allocator (GPU_0_bfc)" \
    cmp -s "$work/default.csv" "$work/out"
check_against_allocations "cpu: the same, pb against gzipped JSON" cpu "$base" "$new"
check_against_allocations "GPU_1_bfc (only in NEW): every op all new" GPU_1_bfc "$base" "$new"
awk -F, 'NR > 1 && ($2 != 0 || $5 != 0 || $4 != $3) { bad = 1 } END { exit bad }' "$work/out"
tap_check "  ... base bytes and counts 0, delta = new" test $? -eq 0
# Sorted by |delta| descending.
awk -F, 'NR > 1 { d = $4 < 0 ? -$4 : $4; if (NR > 2 && d > last) bad = 1; last = d }
    END { exit bad }' "$work/default.csv"
tap_check "the rows are sorted by |delta|, largest first" test $? -eq 0

# ---- equal profiles: every delta 0 ----
memtop_run --export compare "$base" "$base"
awk -F, 'NR > 1 && ($4 != 0 || $2 != $3 || $5 != $6) { bad = 1 } END { exit bad }' "$work/out"
memtop_expect "a profile against itself: status 0" 0 out "^$COMPARE_HEADER\$"
tap_check "  ... every op's delta is 0, both sides equal" test $? -eq 0
memtop_run --summary --json --compare "$base" "$base"
grep -o '"delta":{[^}]*}' "$work/out" >"$work/deltas"
if [ "$status" -eq 0 ] && [ "$(wc -l <"$work/deltas")" -eq 2 ] &&
    ! grep -q ':-\{0,1\}[1-9]' "$work/deltas" && ! grep -q ':null' "$work/deltas"; then
    tap_ok "--summary --json --compare of a profile and itself: every delta 0"
else
    tap_not_ok "--summary --json --compare of a profile and itself: every delta 0" \
        "$work/out" "$work/err"
fi
memtop_run --summary --compare "$base" "$base"
if [ "$status" -eq 0 ] && grep -q "^GPU_0_bfc$" "$work/out" &&
    ! grep -E -q ' [+-][0-9]' "$work/out"; then
    tap_ok "--summary --compare (text) of a profile and itself: no signed delta"
else
    tap_not_ok "--summary --compare (text) of a profile and itself: no signed delta" "$work/out"
fi

# ---- --summary --json --compare: both summaries and the deltas ----
memtop_run --summary --json --compare "$base" "$new"
cp "$work/out" "$work/compare.json"
memtop_expect "--summary --json --compare: status 0" 0 out '^{"base":{"file":'
tap_check "  ... one strict JSON value" "$json_check" "$work/compare.json"
# peak_of FILE ALLOCATOR: that allocator's peak.bytes in a --summary --json.
peak_of() {
    sed -n "s/.*\"id\":\"$2\",\"snapshots\"[^}]*\"peak\":{\"bytes\":\([0-9]*\).*/\1/p" "$1"
}
"$memtop" --summary --json "$base" >"$work/base.json"
"$memtop" --summary --json "$new" >"$work/new.json"
for allocator in GPU_0_bfc cpu; do
    want=$(( $(peak_of "$work/new.json" $allocator) - $(peak_of "$work/base.json" $allocator) ))
    pattern="\"id\":\"$allocator\",\"in\":\"both\",\"base\":{[^}]*},\"new\":{[^}]*}"
    got=$(sed -n "s/.*$pattern,\"delta\":{\"peak_bytes\":\(-\{0,1\}[0-9]*\).*/\1/p" \
        "$work/compare.json")
    tap_check "  ... $allocator: delta peak_bytes = new peak - base peak ($want)" test "$got" = "$want"
done
tap_check "  ... GPU_1_bfc is in new only: base and delta null" \
    grep -q '"id":"GPU_1_bfc","in":"new","base":null,"new":{"peak_bytes":[0-9]*,' "$work/compare.json"
tap_check "  ... and its delta is null" \
    grep -q '"id":"GPU_1_bfc","in":"new","base":null,"new":{[^}]*},"delta":null,"changes_by":"op","changes":\[' "$work/compare.json"
tap_check "  ... the base's summary is the file's own (--summary --json)" \
    grep -q -F "{\"base\":$(cat "$work/base.json"),\"new\":" "$work/compare.json"
memtop_run --summary --compare "$base" "$new"
memtop_expect "--summary --compare (text): one block per allocator, base, new, delta" 0 \
    out "^  base  .*base.pb: pb, version 1, 2 allocators$" \
    out "^GPU_1_bfc (only in new)$" \
    out "^  Peak memory usage  *[0-9.]* [KMG]iB  *[0-9.]* [KMG]iB  *[+-][0-9.]* [KMG]iB$" \
    out "^  Allocations  *[0-9]*  *[0-9]*  *[+-]\{0,1\}[0-9]*$"

# ---- hostile op names and memory ids ----
# hostile_profile FILE BYTES: one allocator "GPU\u001b[2J" with four ops
# of BYTES each, named with a comma, quotes and a newline; an escape
# sequence; a formula; a bidi override.
hostile_profile() {
    snapshots="" actives="" index=0
    for op in 'a,\"b\"\nc' '\u001b[31mEVIL' '=cmd' '\u202egnp.exe'; do
        [ "$index" -eq 0 ] || { snapshots="$snapshots,"; actives="$actives,"; }
        heap=$(( (index + 1) * $2 ))
        snapshots="$snapshots{\"timeOffsetPs\":\"$(( (index + 1) * 1000 ))\",
            \"aggregationStats\":{\"stackReservedBytes\":\"0\",\"heapAllocatedBytes\":\"$heap\",
            \"freeMemoryBytes\":\"0\",\"fragmentation\":0,\"peakBytesInUse\":\"$heap\"},
            \"activityMetadata\":{\"memoryActivity\":\"ALLOCATION\",\"requestedBytes\":\"$2\",
            \"allocationBytes\":\"$2\",\"address\":\"$(( 4096 * (index + 1) ))\",
            \"tfOpName\":\"$op\",\"stepId\":\"1\",\"regionType\":\"output\",
            \"dataType\":\"float\",\"tensorShape\":\"[1]\"}}"
        actives="$actives{\"snapshotIndex\":\"$index\",\"specialIndex\":\"-1\",\"numOccurrences\":\"1\"}"
        index=$((index + 1))
    done
    printf '{"memoryProfilePerAllocator":{"GPU\\u001b[2J":{"memoryProfileSnapshots":[%s],
        "activeAllocations":[%s]}},"numHosts":1,"memoryIds":["GPU\\u001b[2J"],"version":0}' \
        "$snapshots" "$actives" >"$1"
}
hostile_profile "$work/hostile-base.json" 100
hostile_profile "$work/hostile-new.json" 300
memtop_run --export compare -o "$work/hostile.csv" "$work/hostile-base.json" "$work/hostile-new.json"
# Equal deltas, so by name bytewise: ESC, '=', 'a', then U+202E.
printf '%s\n' "$COMPARE_HEADER" "$(printf '\033[31mEVIL'),100,300,200,1,1" \
    "'=cmd,100,300,200,1,1" "\"a,\"\"b\"\"" "c\",100,300,200,1,1" \
    "$(printf '\342\200\256gnp.exe'),100,300,200,1,1" >"$work/hostile-expected.csv"
if [ "$status" -eq 0 ] && cmp -s "$work/hostile.csv" "$work/hostile-expected.csv"; then
    tap_ok "hostile op names: quoted and formula-guarded in the CSV, bytes kept (ties by name)"
else
    od -c "$work/hostile.csv" >"$work/why" 2>&1
    tap_not_ok "hostile op names: quoted and formula-guarded in the CSV, bytes kept (ties by name)" \
        "$work/why" "$work/err"
fi
memtop_run --summary --compare "$work/hostile-base.json" "$work/hostile-new.json"
if [ "$status" -eq 0 ] && grep -q -F 'GPU\x1b[2J' "$work/out" &&
    ! grep -q "$(printf '\033')" "$work/out"; then
    tap_ok "a hostile memory id is escaped in the text report"
else
    tap_not_ok "a hostile memory id is escaped in the text report" "$work/out"
fi
memtop_run --summary --json --compare "$work/hostile-base.json" "$work/hostile-new.json"
if [ "$status" -eq 0 ] && grep -q -F '"id":"GPU\u001b[2J","in":"both"' "$work/out" &&
    ! grep -q "$(printf '\033')" "$work/out"; then
    tap_ok "... and as \\u001b in the JSON"
else
    tap_not_ok "... and as \\u001b in the JSON" "$work/out"
fi

# ---- -o follows --export's rules ----
memtop_run --export compare -o "$work/hostile.csv" "$work/hostile-base.json" "$work/hostile-new.json"
memtop_expect "-o onto an existing file without --force: status 1" 1 \
    err "hostile.csv: already exists; --force replaces it$"
tap_check "  ... the file is untouched" cmp -s "$work/hostile.csv" "$work/hostile-expected.csv"
memtop_run --export compare --force -o "$work/hostile.csv" "$base" "$new"
tap_check "--force replaces it" cmp -s "$work/hostile.csv" "$work/default.csv"

# ---- bad usage and bad input: status 2, one clear line ----
memtop_run --compare "$base"
memtop_expect "--compare with one profile: status 2" 2 \
    err "^memtop: --compare takes two profiles, BASE and NEW (1 given), or one log directory with --run BASE_RUN --run NEW_RUN$"
memtop_run --compare "$base" "$new" "$base"
memtop_expect "--compare with three profiles: status 2" 2 \
    err "^memtop: --compare takes two profiles, BASE and NEW (3 given), or one"
memtop_run --export compare "$base"
memtop_expect "--export compare with one profile: status 2" 2 \
    err "^memtop: --export compare takes two profiles, BASE and NEW (1 given), or one"
memtop_run --compare --list "$base" "$new"
memtop_expect "--compare --list: status 2" 2 err "^memtop: --compare and --list do not go together"
memtop_run --compare --host h "$base" "$new"
memtop_expect "--compare --host of two files: status 2" 2 \
    err "^memtop: $base: --host goes with directories, and BASE and NEW are files$"
memtop_run --compare --export allocations "$base" "$new"
memtop_expect "--compare --export allocations: status 2" 2 \
    err "^memtop: --compare exports one view: --export compare (the op table)$"
memtop_run --export compare --sort op_name "$base" "$new"
memtop_expect "--export compare --sort: status 2" 2 err "^memtop: --sort goes with --export allocations$"
memtop_run --compare - -
memtop_expect "--compare - -: status 2" 2 \
    err "^memtop: --compare: standard input can be BASE or NEW, not both$"
memtop_run --summary --compare "$work" "$base"
memtop_expect "--compare with a directory: status 2, refused by name" 2 \
    err "^memtop: $work: --compare takes two profile files or two directories, and this is a directory beside a file$"
memtop_run --summary --compare "$base" "$work/missing.pb"
memtop_expect "--compare with a missing file: status 2, named" 2 err "^memtop: $work/missing.pb: "
printf 'plain text\n' >"$work/text.txt"
memtop_run --export compare "$work/text.txt" "$base"
memtop_expect "--export compare with a file that is no profile: status 2" 2 \
    err "^memtop: $work/text.txt: .*not a memory profile"
memtop_run --export compare --allocator nope "$base" "$new"
memtop_expect "--allocator in neither profile: status 2, both lists" 2 \
    err "no allocator 'nope' in either profile; .*base.pb has: GPU_0_bfc, cpu; .*new.json.gz has: GPU_0_bfc, GPU_1_bfc, cpu$"
"$memtop" --compare "$base" "$new" </dev/null >"$work/out" 2>"$work/err"
status=$?
memtop_expect "the viewer without a terminal: status 1, says why" 1 err "^memtop: "
memtop_run --summary "$base" "$new"
memtop_expect "without --compare, two files are two hosts (unchanged)" 0 out "host base" out "host new"

tap_done
