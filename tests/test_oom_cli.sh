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
# The backward pass's holders take their forward ops' location.
memtop_expect "--summary: the top holders at the OOM by location or op, largest first" 0 \
    out "^    Top holders at the OOM, by location or op:$" \
    out "^         18\\.14 MiB  allocated before the profile$" \
    out "^          6\\.05 MiB  torch_trace\\.py:25 <module>$"
memtop_run --summary "$source_dir/data/demo.v1.pb"
if grep -q "Out of memory" "$work/out"; then
    tap_not_ok "--summary: no card without an OOM" "$work/out"
else
    tap_ok "--summary: no card without an OOM"
fi
memtop_run --summary --json "$source_dir/data/demo.v1.pb"
memtop_expect "--summary --json: oom null and oom_count 0 without one" 0 \
    out '"oom":null,"oom_count":0'

# ---- the CI gates: exit 3 exactly when crossed ----
# demo.v1.pb's peaks: GPU_0_bfc 7694818304, GPU_1_bfc 7704161024 (48.57%
# and 48.63% of 15843721216), cpu 1102544192 (of 64 GiB).
demo="$source_dir/data/demo.v1.pb"
memtop_run --summary --fail-over 7704161024 "$demo"
memtop_expect "--fail-over SIZE: a peak equal to the limit passes" 0
memtop_run --summary --fail-over 7704161023 "$demo"
memtop_expect "--fail-over SIZE: one byte under the largest peak: status 3" 3 \
    err "^memtop: .*demo.v1.pb: GPU_1_bfc: peak 7.18 GiB (7704161024 bytes) is over --fail-over 7704161023 (7704161023 bytes)$"
if [ "$(wc -l <"$work/err")" -eq 1 ]; then
    tap_ok "--fail-over SIZE: one line per crossing (one allocator crossed)"
else
    tap_not_ok "--fail-over SIZE: one line per crossing (one allocator crossed)" "$work/err"
fi
memtop_run --summary --json --fail-over 7GiB "$demo"
memtop_expect "--fail-over 7GiB with --json: status 3, the JSON still written" 3 \
    out '^{"file":' err "GPU_0_bfc: peak .* is over --fail-over 7GiB" \
    err "GPU_1_bfc: peak .* is over --fail-over 7GiB"
memtop_run --summary --fail-over 8GiB "$demo"
memtop_expect "--fail-over 8GiB: status 0, nothing on stderr" 0
[ -s "$work/err" ] && tap_not_ok "--fail-over 8GiB: stderr empty" "$work/err" ||
    tap_ok "--fail-over 8GiB: stderr empty"
memtop_run --summary --fail-over 49% "$demo"
memtop_expect "--fail-over 49%: under every share of the capacity: status 0" 0
memtop_run --fail-over 48.6% "$demo"
memtop_expect "--fail-over 48.6% (--summary implied): GPU_1_bfc's 48.63% crosses it" 3 \
    err "GPU_1_bfc: peak 7.18 GiB is 48.63% of the capacity 14.76 GiB, over --fail-over 48.6%"
memtop_run --summary --fail-over 50% "$trace"
memtop_expect "--fail-over PCT without a capacity: a warning, status 0" 0 \
    err "cuda:0: warning: --fail-over 50% not checked: the capacity is unknown"
memtop_run --summary --fail-over lots "$demo"
memtop_expect "--fail-over lots: bad usage" 2 err "^memtop: --fail-over: 'lots' is neither a size"
memtop_run --export summary --fail-over 1G "$demo"
memtop_expect "--fail-over with --export: bad usage" 2 \
    err "^memtop: --fail-over and --fail-growth go with --summary$"
memtop_run --summary --fail-growth 10 "$demo"
memtop_expect "--fail-growth without --compare: bad usage" 2 \
    err "^memtop: --fail-growth goes with --compare BASE NEW$"
# demo.v0 -> demo.v1: GPU_0_bfc +1.85%, GPU_1_bfc +16.26%, cpu +95.55%.
base="$source_dir/data/demo.v0.pb.gz"
memtop_run --compare --summary --fail-growth 96 "$base" "$demo"
memtop_expect "--fail-growth 96: no peak grew more: status 0" 0
memtop_run --compare --summary --json --fail-growth 95% "$base" "$demo"
memtop_expect "--fail-growth 95% with --json: cpu grew 95.55%: status 3" 3 \
    err "^memtop: cpu: peak grew 95.55% (537.70 MiB to 1.03 GiB), over --fail-growth 95%$"
if [ "$(wc -l <"$work/err")" -eq 1 ]; then
    tap_ok "--fail-growth: one line per crossing"
else
    tap_not_ok "--fail-growth: one line per crossing" "$work/err"
fi
memtop_run --help
memtop_expect "--help names status 3" 0 out "3 a gate crossed"
tap_done
