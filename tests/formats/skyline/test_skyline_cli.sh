#!/bin/sh
# Skyline memory reports from the command line (issue 14): --summary
# (text and JSON) and --export allocations against the totals that
# tests/generate_skyline --expect works out itself; hostile strings
# escaped; other databases, non-SQLite files, truncated and gzip'd
# reports refused with one line and status 2; nothing written beside the
# report. Prints TAP.
set -u
source_dir="${MEMTOP_SRCDIR:-.}"
build_dir="${MEMTOP_BUILDDIR:-.}"
. "$source_dir/tests/lib.sh"
work=$test_work
generate="$build_dir/tests/generate_skyline"

# expected KEY: the generator's value for KEY in the case last expected.
expected() { sed -n "s/^$1=//p" "$work/expect"; }

"$generate" --case demo --expect -o "$work/demo.sqlite" >"$work/expect" ||
    echo "Bail out! generate_skyline failed"

# ---- --summary --json: the peak, the entries, the totals by kind ----
memtop_run --summary --json "$work/demo.sqlite"
memtop_expect "--summary --json: format skyline, one allocator cuda, no snapshots" 0 \
    out '"format":"skyline"' out '"allocators":\[{"id":"cuda","snapshots":0,' \
    out '"capacity_bytes":0,'
for key in weights_bytes gradients_bytes activations_bytes untracked_bytes; do
    memtop_expect "--summary --json: $key as the generator sums it" 0 \
        out "\"$key\":$(expected "$key"),"
done
memtop_expect "--summary --json: peak.bytes, active_allocations = entries" 0 \
    out "\"peak\":{\"bytes\":$(expected peak_bytes),\"time_ps\":null," \
    out "\"active_allocations\":$(expected entries),"
if [ -x "$build_dir/tests/json_check" ]; then
    tap_check "--summary --json is valid JSON" "$build_dir/tests/json_check" "$work/out"
fi

# ---- --summary for people ----
memtop_run --summary "$work/demo.sqlite"
memtop_expect "--summary: the totals, the entries, the largest with their location" 0 \
    out "demo.sqlite: skyline, version 1, 1 allocator" \
    out "^    Weights  *4\.07 MiB$" out "^    Gradients  *4\.07 MiB$" \
    out "^    Activations  *24\.00 MiB$" out "^    Untracked  *5\.99 MiB$" \
    out "^  Entries: $(expected entries) ($(expected rows) rows" \
    out "16\.00 MiB  activation  conv2d  model/net.py:33$"

# ---- --export allocations: kind, location, stack ----
memtop_run --export allocations -o "$work/demo.csv" "$work/demo.sqlite"
memtop_expect "--export allocations: status 0" 0
tap_check "--export allocations: the header has kind,location,stack, then total_bytes,share, context,module" \
    grep -q '^op_name,.*,special_index,kind,location,stack,total_bytes,share,context,module$' "$work/demo.csv"
tap_check "--export allocations: a weight with its location and whole stack" \
    grep -q '^weight,73728,,,,,,,,,,entry,,,weight,model/net.py:15,"model/net.py:15$' \
    "$work/demo.csv"
tap_check "--export allocations: its gradient is a row of its own" \
    grep -q '^weight,73728,,,,,,,,,,entry,,,gradient,model/net.py:15,' "$work/demo.csv"
records=$(awk '{ quotes += gsub(/"/, "\"") } quotes % 2 == 0 { n++ } END { print n - 1 }' \
    "$work/demo.csv")
if [ "$records" -eq "$(expected rows)" ]; then
    tap_ok "--export allocations: one record per row ($records)"
else
    tap_not_ok "--export allocations: one record per row ($records)" "$work/demo.csv"
fi
memtop_run --export allocations --sort location:asc -o - "$work/demo.sqlite"
memtop_expect "--sort location: by file, then line" 0 \
    out '^weight,[0-9]*,,,,,,,,,,entry,,,weight,model/head.py:22,'
first_location=$(sed -n '2p' "$work/out" | cut -d, -f16)
if [ "$first_location" = "" ]; then
    tap_ok "--sort location:asc: the frameless entry first"
else
    tap_not_ok "--sort location:asc: the frameless entry first ($first_location)" "$work/out"
fi

# ---- no gradients ----
"$generate" --case no-gradients --expect -o "$work/frozen.sqlite" >"$work/expect"
memtop_run --summary --json "$work/frozen.sqlite"
memtop_expect "no gradients: gradients_bytes 0, every entry one row" 0 \
    out '"gradients_bytes":0,' out "\"active_allocations\":$(expected entries),"

# ---- hostile strings ----
"$generate" --case hostile -o "$work/hostile.sqlite"
memtop_run --summary "$work/hostile.sqlite"
memtop_expect "hostile strings: --summary escapes them" 0 out 'w\\x1b\[31mred' \
    out 'evil\\x1b\[2J'
if grep -q "$(printf '\033')" "$work/out"; then
    tap_not_ok "hostile strings: no raw escape in --summary" "$work/out"
else
    tap_ok "hostile strings: no raw escape in --summary"
fi

# ---- what is not a report ----
"$generate" --case other -o "$work/other.sqlite"
memtop_run --summary "$work/other.sqlite"
memtop_expect "another program's SQLite file: status 2, says what it lacks" 2 \
    err "^memtop: .*other.sqlite: not a memory profile: an SQLite database, but not a Skyline memory report: no weight_entries table$"
head -c 3000 "$work/demo.sqlite" >"$work/cut.sqlite"
memtop_run --summary "$work/cut.sqlite"
memtop_expect "a truncated report: status 2, one line" 2 err "^memtop: .*cut.sqlite: "
printf 'SQLite format 3\000not really' >"$work/fake.sqlite"
memtop_run --summary "$work/fake.sqlite"
memtop_expect "an SQLite header and nothing else: status 2" 2 err "^memtop: .*fake.sqlite: "
printf 'plain text, not a database\n' >"$work/text.sqlite"
memtop_run --summary "$work/text.sqlite"
memtop_expect "a file that is not SQLite: status 2" 2 err "^memtop: .*text.sqlite: "
gzip -c "$work/demo.sqlite" >"$work/demo.sqlite.gz"
memtop_run --summary "$work/demo.sqlite.gz"
memtop_expect "a gzip'd report: status 2, gunzip it first" 2 \
    err "^memtop: .*demo.sqlite.gz: .*SQLite.*gunzip"

# ---- read-only: nothing beside the report ----
mkdir "$work/readonly"
cp "$work/demo.sqlite" "$work/readonly/report.sqlite"
before=$(ls -la --time-style=full-iso "$work/readonly"; cksum <"$work/readonly/report.sqlite")
memtop_run --summary "$work/readonly/report.sqlite"
memtop_run --export allocations -o - "$work/readonly/report.sqlite"
after=$(ls -la --time-style=full-iso "$work/readonly"; cksum <"$work/readonly/report.sqlite")
if [ "$before" = "$after" ]; then
    tap_ok "reading a report changes nothing in its directory"
else
    printf '%s\n---\n%s\n' "$before" "$after" >"$work/listing"
    tap_not_ok "reading a report changes nothing in its directory" "$work/listing"
fi

tap_done
