#!/bin/sh
# The out-of-memory post-mortem from the command line (issue 24): the
# card --summary prints for a trace's [OutOfMemory] (each field), none
# for a profile without one. Prints TAP.
set -u
source_dir="${MEMTOP_SRCDIR:-.}"
build_dir="${MEMTOP_BUILDDIR:-.}"
. "$source_dir/tests/lib.sh"
work=$test_work

trace="$work/oom.json"
"$build_dir/tests/generate_trace" --producer pytorch --oom -o "$trace" --expect "$work/expect" ||
    echo "Bail out! generate_trace failed"
at=$(awk -F '\t' '$1 == "oom" { printf "%.3f", $3 / 1e9 }' "$work/expect")

memtop_run --summary "$trace"
memtop_expect "--summary: the card's title under the allocator" 0 \
    out "^  Out of memory at $at ms$"
memtop_expect "--summary: the request and what the allocator held" 0 \
    out "^    Requested  *80\\.00 GiB$" out "^    Allocated  *24\\.19 MiB$" \
    out "^    Reserved  *32\\.00 MiB$" out "^    Reserved but free  *7\\.81 MiB$"
memtop_expect "--summary: what the trace does not say is unknown" 0 \
    out "^    Free on the device  *unknown$" out "^    Capacity  *unknown$"
memtop_expect "--summary: the verdict" 0 \
    out "^    The request (80\\.00 GiB) was larger than the memory reserved but free"
memtop_expect "--summary: the top holders at the OOM by op, largest first" 0 \
    out "^    Top holders at the OOM, by op:$" \
    out "^         18\\.14 MiB  allocated before the profile$"
memtop_run --summary "$source_dir/data/demo.v1.pb"
if grep -q "Out of memory" "$work/out"; then
    tap_not_ok "--summary: no card without an OOM" "$work/out"
else
    tap_ok "--summary: no card without an OOM"
fi
memtop_run --summary --json "$source_dir/data/demo.v1.pb"
memtop_expect "--summary --json: oom null and oom_count 0 without one" 0 \
    out '"oom":null,"oom_count":0'
tap_done
