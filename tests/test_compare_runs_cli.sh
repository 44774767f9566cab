#!/bin/sh
# Comparing beyond two files (issue 25, point 5), from the command line:
# - two runs of one log directory host by host (--compare --run A --run B
#   LOGDIR), hosts matched by name, a host in one run only said so; each
#   matched host's block is what --compare of its two files says, in
#   --summary (text and JSON) and --export compare (a host column);
# - the same from two run directories and from two log directories (the
#   newest run of each, or --run per side);
# - --pair BASE_ID=NEW_ID pairing allocators of different names;
# - --summary --compare's largest changes, by op (checked against
#   --export compare) and by location (Skyline, checked against each
#   side's --export allocations --group-by location), --top N of them.
# The log directories are built here from generated profiles. Prints TAP.
set -u
source_dir="${MEMTOP_SRCDIR:-.}"
build_dir="${MEMTOP_BUILDDIR:-.}"
. "$source_dir/tests/lib.sh"
work=$test_work
json_check="$build_dir/tests/json_check"

# A log directory with two runs: w-0 changed (seeds 1 and 2), w-1 the
# same in both (seed 3), w-2 only in the older run, w-3 only in the newer.
logs="$work/logs"
base_run="$logs/train/plugins/profile/2026_11_20_10_00_00"
new_run="$logs/train/plugins/profile/2026_11_21_10_00_00"
generated_profile "$base_run/w-0.memory_profile.json.gz" 1
generated_profile "$base_run/w-1.memory_profile.json.gz" 3
generated_profile "$base_run/w-2.memory_profile.json.gz" 4
generated_profile "$new_run/w-0.memory_profile.json.gz" 2
generated_profile "$new_run/w-1.memory_profile.json.gz" 3
generated_profile "$new_run/w-3.memory_profile.json.gz" 5
base0="$base_run/w-0.memory_profile.json.gz" new0="$new_run/w-0.memory_profile.json.gz"
base1="$base_run/w-1.memory_profile.json.gz" new1="$new_run/w-1.memory_profile.json.gz"

# ---- --summary --compare of two runs ----
memtop_run --summary --compare --run 2026_11_20 --run 2026_11_21 "$logs"
memtop_expect "two runs: status 0, the runs and how the hosts matched" 0 \
    out "^Two runs compared host by host (delta: new minus base)$" \
    out "^  base  run train/2026_11_20_10_00_00$" \
    out "^  new   run train/2026_11_21_10_00_00$" \
    out "^  hosts: 2 matched by name, 1 only in base, 1 only in new$" \
    out "^== host w-2: only in base ==$" out "^== host w-3: only in new =="
cp "$work/out" "$work/runs.txt"
headings=$(grep '^== host' "$work/runs.txt" | tr '\n' '|')
tap_check "  ... a block per host: BASE's order, then the hosts only NEW has" \
    test "$headings" = "== host w-0 ==|== host w-1 ==|== host w-2: only in base ==|== host w-3: only in new ==|"
# host_block NAME: the lines of that host's block (its heading left out).
host_block() {
    awk -v heading="== host $1 ==" '$0 == heading { on = 1; next } /^== host / { on = 0 }
        on && !(/^$/ && last) { print } { last = /^$/ }' "$work/runs.txt" | sed '$ { /^$/d }'
}
for host in w-0 w-1; do
    eval "base_file=\$base${host#w-} new_file=\$new${host#w-}"
    "$memtop" --summary --compare "$base_file" "$new_file" >"$work/files.txt"
    host_block "$host" >"$work/block.txt"
    if cmp -s "$work/files.txt" "$work/block.txt"; then
        tap_ok "  ... $host's block is --summary --compare of its two files"
    else
        diff "$work/files.txt" "$work/block.txt" >"$work/why"
        tap_not_ok "  ... $host's block is --summary --compare of its two files" "$work/why"
    fi
done
# w-1 is the same profile in both runs: no change listed.
host_block w-1 | grep -c '^    (none: the same bytes live at both peaks)$' >"$work/count"
tap_check "  ... w-1 unchanged: each allocator says no change" test "$(cat "$work/count")" -eq 2

memtop_run --summary --json --compare --run 2026_11_20 --run 2026_11_21 "$logs"
memtop_expect "two runs, --json: the runs and one entry per host" 0 \
    out '^{"base_run":"train/2026_11_20_10_00_00","new_run":"train/2026_11_21_10_00_00","hosts":\[{"host":"w-0","in":"both","comparison":{"base":{' \
    out '{"host":"w-2","in":"base","comparison":null},{"host":"w-3","in":"new","comparison":null}\]}$'
cp "$work/out" "$work/runs.json"
"$json_check" "$work/runs.json" >/dev/null 2>&1
tap_check "  ... strict JSON" test $? -eq 0
"$memtop" --summary --json --compare "$base0" "$new0" >"$work/files.json"
tap_check "  ... w-0's comparison is --summary --json --compare of its two files" \
    grep -q -F "{\"host\":\"w-0\",\"in\":\"both\",\"comparison\":$(cat "$work/files.json")}" \
    "$work/runs.json"

memtop_run --summary --compare --host w-1 --run 2026_11_20 --run 2026_11_21 "$logs"
memtop_expect "--host w-1: that host alone" 0 \
    out "^  hosts: 1 matched by name, 0 only in base, 0 only in new$" out "^== host w-1 ==$"

# ---- --export compare of two runs ----
memtop_run --export compare --run 2026_11_20 --run 2026_11_21 "$logs"
memtop_expect "--export compare of two runs: a host column, the hosts in one run named" 0 \
    out '^host,op_name,base_bytes,new_bytes,delta_bytes,base_count,new_count$' \
    err "^memtop: host w-2 is only in base: not compared$" \
    err "^memtop: host w-3 is only in new: not compared$"
cp "$work/out" "$work/runs.csv"
{
    echo 'host,op_name,base_bytes,new_bytes,delta_bytes,base_count,new_count'
    "$memtop" --export compare "$base0" "$new0" | sed '1d; s/^/w-0,/'
    "$memtop" --export compare "$base1" "$new1" | sed '1d; s/^/w-1,/'
} >"$work/expected.csv"
if cmp -s "$work/expected.csv" "$work/runs.csv"; then
    tap_ok "  ... each matched host's rows are --export compare of its two files"
else
    diff "$work/expected.csv" "$work/runs.csv" >"$work/why"
    tap_not_ok "  ... each matched host's rows are --export compare of its two files" "$work/why"
fi

# ---- two run directories, two log directories ----
# hosts_only FILE: the "hosts" of a runs' JSON, without the files' paths.
hosts_only() {
    sed 's/^{"base_run":"[^"]*","new_run":"[^"]*",/{/; s/"file":"[^"]*"//g' "$1"
}
memtop_run --summary --json --compare "$base_run" "$new_run"
hosts_only "$work/out" >"$work/dirs.json"
hosts_only "$work/runs.json" >"$work/runs_hosts.json"
tap_check "--compare RUN_DIR RUN_DIR: the same hosts compared as with --run" \
    test "$status" -eq 0 -a -s "$work/dirs.json" -a -s "$work/runs_hosts.json" -a \
    "$(cat "$work/dirs.json")" = "$(cat "$work/runs_hosts.json")"
mkdir -p "$work/before/plugins/profile" "$work/after/plugins/profile"
cp -R "$base_run" "$work/before/plugins/profile/"
cp -R "$new_run" "$work/after/plugins/profile/"
generated_profile "$work/after/plugins/profile/2026_01_01_00_00_00/w-0.memory_profile.json.gz" 9
touch -d '2020-01-01' "$work/after/plugins/profile/2026_01_01_00_00_00"
memtop_run --summary --json --compare "$work/before" "$work/after"
hosts_only "$work/out" >"$work/logdirs.json"
tap_check "--compare LOGDIR LOGDIR: the newest run of each" \
    test "$status" -eq 0 -a -s "$work/logdirs.json" -a \
    "$(cat "$work/logdirs.json")" = "$(cat "$work/runs_hosts.json")"
memtop_run --summary --compare --run 2026_11_20 --run 2026_01_01 "$work/before" "$work/after"
memtop_expect "--compare LOGDIR LOGDIR --run --run: a run per side" 0 \
    out "^  new   run 2026_01_01_00_00_00$" \
    out "^  hosts: 1 matched by name, 2 only in base, 0 only in new$"

# ---- --pair: allocators of different names ----
"$build_dir/tests/generate_profile" --format json --snapshots 600 --seed 1 --allocators 2 \
    >"$work/base.json"
"$build_dir/tests/generate_profile" --format json --snapshots 600 --seed 2 --allocators 2 \
    >"$work/new.json"
sed 's/GPU_0_bfc/cuda:0/g' "$work/new.json" >"$work/port.json"
# Without --pair: GPU_0_bfc only in base, cuda:0 only in new.
"$memtop" --summary --compare "$work/base.json" "$work/port.json" >"$work/unpaired.txt"
memtop_run --summary --compare --pair GPU_0_bfc=cuda:0 "$work/base.json" "$work/port.json"
memtop_expect "--pair GPU_0_bfc=cuda:0: one pair, named by both" 0 out "^GPU_0_bfc=cuda:0$"
tap_check "  ... nothing left unpaired (without it, both sides were alone)" \
    test "$status" -eq 0 -a "$(grep -c 'only in' "$work/out")" -eq 0 -a \
    "$(grep -c -e '^GPU_0_bfc (only in base)$' -e '^cuda:0 (only in new)$' "$work/unpaired.txt")" -eq 2
"$memtop" --summary --compare "$work/base.json" "$work/new.json" | sed 1,3d >"$work/same_names.txt"
sed '1,3d; s/^GPU_0_bfc=cuda:0$/GPU_0_bfc/' "$work/out" >"$work/paired.txt"
tap_check "  ... its deltas and changes are those of the same names unrenamed" \
    cmp -s "$work/same_names.txt" "$work/paired.txt"
memtop_run --summary --json --compare --pair GPU_0_bfc=cuda:0 "$work/base.json" "$work/port.json"
memtop_expect "--pair, --json: the new side's id as new_id" 0 \
    out '"allocators":\[{"id":"GPU_0_bfc","new_id":"cuda:0","in":"both","base":{'
"$memtop" --export compare "$work/base.json" "$work/new.json" >"$work/same_names.csv"
memtop_run --export compare --pair GPU_0_bfc=cuda:0 "$work/base.json" "$work/port.json"
tap_check "--export compare --pair: the op table of the pair" \
    cmp -s "$work/same_names.csv" "$work/out"
memtop_run --summary --compare --pair GPU_0_bfc=cuda:1 "$work/base.json" "$work/port.json"
memtop_expect "--pair naming no allocator: status 2, what the profile has" 2 \
    err "^memtop: --pair GPU_0_bfc=cuda:1: $work/port.json has no allocator 'cuda:1'; it has: cuda:0, cpu$"
memtop_run --compare --pair GPU_0_bfc=cuda:1 "$work/base.json" "$work/port.json" </dev/null
memtop_expect "  ... the viewer says so too, before it opens" 2 \
    err "^memtop: --pair GPU_0_bfc=cuda:1: $work/port.json has no allocator 'cuda:1'"
memtop_run --summary --compare --pair GPU_0_bfc "$work/base.json" "$work/port.json"
memtop_expect "--pair without '=': status 2" 2 err "^memtop: --pair: 'GPU_0_bfc' is not BASE_ID=NEW_ID$"
memtop_run --summary --pair a=b "$work/base.json"
memtop_expect "--pair without --compare: status 2" 2 err "^memtop: --pair goes with --compare$"
# In two runs, --pair holds for every host.
mkdir -p "$work/ported"
cp -R "$logs/train" "$work/ported/"
renamed="$work/ported/train/plugins/profile/2026_11_21_10_00_00/w-1.memory_profile.json.gz"
gzip -dc "$renamed" | sed 's/GPU_0_bfc/cuda:0/g' | gzip -n >"$work/renamed.gz"
mv "$work/renamed.gz" "$renamed"
memtop_run --summary --compare --pair GPU_0_bfc=cuda:0 --run 2026_11_20 --run 2026_11_21 \
    "$work/ported"
memtop_expect "--pair with two runs: the host whose allocator was renamed is paired" 0 \
    out "^GPU_0_bfc=cuda:0$"

# ---- the largest changes, by op ----
"$memtop" --export compare "$work/base.json" "$work/new.json" >"$work/ops.csv"
# The first 3 rows of the op table that changed, as "changes" writes them.
expected=$(awk -F, 'NR > 1 && $4 != 0 && n < 3 { n++
        printf "%s{\"key\":\"%s\",\"base_bytes\":%s,\"new_bytes\":%s,\"delta_bytes\":%s}",
               (n > 1 ? "," : ""), $1, $2, $3, $4 }' "$work/ops.csv")
memtop_run --summary --json --top 3 --compare "$work/base.json" "$work/new.json"
tap_check "--summary --json --compare --top 3: GPU_0_bfc's changes are the op table's first three that changed" \
    grep -q -F "\"changes_by\":\"op\",\"changes\":[$expected]}" "$work/out"
memtop_run --summary --top 3 --compare "$work/base.json" "$work/new.json"
awk '/^GPU_0_bfc$/ { on = 1 } on && /^  Largest changes/ { list = 1; next }
     list && /^    / { print; next } list { exit }' "$work/out" >"$work/listed.txt"
first=$(awk -F, 'NR > 1 && $4 != 0 { print $1; exit }' "$work/ops.csv")
tap_check "--summary --compare --top 3: the changes by op, the largest |delta| first" \
    grep -q -e "^  Largest changes by op (top 3):$" "$work/out"
tap_check "  ... GPU_0_bfc lists $(wc -l <"$work/listed.txt" | tr -d ' ') changes, the first $first" \
    test "$(wc -l <"$work/listed.txt")" -ge 1 -a "$(wc -l <"$work/listed.txt")" -le 3 -a \
    -n "$(head -n 1 "$work/listed.txt" | grep -F " $first  (base ")"
memtop_run --summary --top 0 --compare "$work/base.json" "$work/new.json"
tap_check "--top 0: no changes listed (where --top 3 listed some)" \
    test "$status" -eq 0 -a "$(grep -c 'Largest changes' "$work/out")" -eq 0 -a \
    -s "$work/listed.txt"

# ---- the largest changes, by location (Skyline records one) ----
skyline="$build_dir/tests/generate_skyline"
"$skyline" --case demo -o "$work/a.sqlite" >/dev/null
"$skyline" --case no-gradients -o "$work/b.sqlite" >/dev/null
for side in a b; do
    "$memtop" --export allocations --group-by location "$work/$side.sqlite" >"$work/$side.locations"
done
# location,base,new,delta of every location, |delta| descending then by
# name bytewise, the first 4 that changed (a row without one: "(no location)").
expected=$(awk -F, 'FNR == 1 { side++; next }
        { key = $1 == "" ? "(no location)" : $1; bytes[key, side] += $2; keys[key] = 1 }
        END { for (key in keys) { delta = bytes[key, 2] - bytes[key, 1]
                if (delta != 0) printf "%.0f\t%s\t{\"key\":\"%s\",\"base_bytes\":%.0f,\"new_bytes\":%.0f,\"delta_bytes\":%.0f}\n",
                    delta < 0 ? -delta : delta, key, key, bytes[key, 1], bytes[key, 2], delta } }' \
        "$work/a.locations" "$work/b.locations" |
    LC_ALL=C sort -t "$(printf '\t')" -k1,1nr -k2,2 | head -n 4 | cut -f3 | paste -sd, -)
memtop_run --summary --json --top 4 --compare "$work/a.sqlite" "$work/b.sqlite"
tap_check "Skyline: the changes by location, as the --group-by location exports add up" \
    grep -q -F "\"changes_by\":\"location\",\"changes\":[$expected]}" "$work/out"
memtop_run --summary --top 4 --compare "$work/a.sqlite" "$work/b.sqlite"
memtop_expect "Skyline, text: Largest changes by location" 0 \
    out "^  Largest changes by location (top 4):$" \
    out "^ *-16.00 MiB  model/net.py:33  (base 16.00 MiB, new 0 B)$"

# ---- what is refused ----
memtop_run --summary --compare "$logs"
memtop_expect "--compare LOGDIR without two --run: status 2" 2 \
    err "or one log directory with --run BASE_RUN --run NEW_RUN$"
memtop_run --summary --compare --run 2026_11_20 "$work/before" "$work/after"
memtop_expect "two directories and one --run: status 2" 2 \
    err "takes --run twice (BASE's, then NEW's), or none (the newest of each)$"
memtop_run --summary --run a --run b "$logs"
memtop_expect "--run twice without --compare: status 2" 2 err "^memtop: a second --run goes with --compare$"
memtop_run --summary --compare --run 2026_11_20 --run 2026_11_21 --run x "$logs"
memtop_expect "--run three times: status 2" 2 err "^memtop: --run goes at most twice"
memtop_run --summary --compare "$base_run" "$base0"
memtop_expect "a directory beside a file: status 2" 2 \
    err "and this is a directory beside a file$"
memtop_run --summary --compare --run 2026_11_20 --run nope "$logs"
memtop_expect "an unknown run: status 2, the runs listed" 2 err "nope"
memtop_run --export compare --host w-2 --run 2026_11_20 --run 2026_11_21 "$logs"
memtop_expect "--export compare, no host in both runs: status 2" 2 err "w-2"

tap_done
