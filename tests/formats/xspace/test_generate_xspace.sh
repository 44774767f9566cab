#!/bin/sh
# The XSpace generator (tests/generate_xspace) and its XProf oracle
# (--expect), checked from outside: an independent wire walker
# (tests/xspace_walk) reads what it writes; a tiny TPU capture's
# expectations were worked out by hand from the file; the oracle's reading
# of a real JAX capture (data/real, --replay) matches the numbers measured
# in FINDINGS-real-captures.md; same options, same bytes. Prints TAP.
set -u
source_dir="${MEMTOP_SRCDIR:-.}"
build_dir="${MEMTOP_BUILDDIR:-.}"
. "$source_dir/tests/lib.sh"
work=$test_work
generate="$build_dir/tests/generate_xspace"
walk="$build_dir/tests/xspace_walk"

# value FILE KEY [ALLOCATOR]: the rest of the line "KEY ..." in the
# expectations (within ALLOCATOR's block when given).
value() {
    awk -v key="$2" -v allocator="${3-}" '
        $1 == "allocator" { current = $2 }
        $1 == key && (allocator == "" || current == allocator) {
            sub(/^[^ ]* /, ""); print; exit }' "$1"
}

# check_value NAME FILE KEY WANT [ALLOCATOR]
check_value() {
    got=$(value "$2" "$3" "${5-}")
    if [ "$got" = "$4" ]; then
        tap_ok "$1"
    else
        printf '# %s: want "%s", got "%s"\n' "$3" "$4" "$got" >"$work/why"
        tap_not_ok "$1" "$work/why"
    fi
}

# walk_matches NAME FILE EXPECT: the walker accepts the file, and its
# memory-event counts per allocator equal the expectations'.
walk_matches() {
    name=$1 file=$2 expect=$3
    if ! "$walk" "$file" >"$work/walk" 2>"$work/walk.err"; then
        tap_not_ok "$name: the wire walker accepts the file" "$work/walk.err"
        return
    fi
    awk '$1 == "allocator" { print $2, $3, $4 }' "$work/walk" | sort >"$work/walked"
    awk '$1 == "allocator" { id = $2 } $1 == "allocations" { a = $2 }
         $1 == "deallocations" { print id, a, $2 }' "$expect" | sort >"$work/expected"
    if [ -s "$work/walked" ] && cmp -s "$work/walked" "$work/expected"; then
        tap_ok "$name: counts per allocator equal the expectations'"
    else
        tap_not_ok "$name: counts per allocator equal the expectations'" \
            "$work/walked" "$work/expected"
    fi
}

# ---- every style and option: the walker's view and the oracle agree ----
for style in tf-gpu jax-gpu tpu; do
    for options in "" "--odd" "--hostile --strings str" "--markers no" "--while-loop" \
        "--big-ids --threads 5 --ties no" "--odd --hostile --big-ids"; do
        name="$style ${options:-(defaults)}"
        # shellcheck disable=SC2086 # the options are meant to split
        if "$generate" --style "$style" $options -o "$work/x.pb" --expect "$work/x.expect" \
            2>"$work/err"; then
            walk_matches "$name" "$work/x.pb" "$work/x.expect"
        else
            tap_not_ok "$name: generates with --expect" "$work/err"
        fi
        case $options in
        *--markers*|*--while-loop*)
            # No grouping: every snapshot is in step 0.
            if awk '$1 == "steps" && !($2 == 1 && $3 ~ /^0\*/) { bad = 1 }
                    END { exit bad }' "$work/x.expect"; then
                tap_ok "$name: every snapshot in step 0"
            else
                tap_not_ok "$name: every snapshot in step 0" "$work/x.expect"
            fi ;;
        esac
    done
done
"$generate" --while-loop -o "$work/loop.pb" --expect "$work/loop.expect"
check_value "--while-loop: XProf groups nothing" "$work/loop.expect" step_grouping off

# ---- a tiny TPU capture, worked out by hand ----
# `--style tpu --devices 1 --steps 2 --memory-events 20 --threads 2`:
# xspace_walk --dump lists 12 memory events of memory id "0", stack
# 1962934272 in all. In walk order (lines python3, tpu_executor/0,
# tpu_executor/1, tpu_transfer), heap after each, time = offset_ps:
#   executor/0: alloc 339501568 @79943975000, free @79944028000,
#               free @79944097000 (step -1's program: its producer was
#               never captured, so no group); alloc 339501568
#               @79946507000, free, free (group 1, fed by the second
#               `train`)
#   executor/1: alloc 339501568 @79945298000, free, free (group 0)
#   transfer:   alloc 305947136 @79945039000, @79946267000,
#               @79947545000 (nested in nothing: no group)
# Peak (walk order, last of the largest stack + heap): the executor/1
# allocation, time 79945298000, in group 0; free 30711977472; capacity
# 2302435840 + 30711977472. Time order with UpdateStepId: -1,-1,-1,-1
# -> 0,0,0,0; group 0 x3; the transfer at 79946267000 -> 1; group 1 x3;
# the last transfer -> 2: steps 0*7 1*4 2*1. Peak step: the latest in time
# at 2302435840 is group 1's allocation at 79946507000, after the peak
# time: no step-1 snapshot is at or before it, so the table is the two
# special rows: the stack, and the whole heap as unused preallocated
# memory.
"$generate" --style tpu --devices 1 --steps 2 --memory-events 20 --threads 2 --seed 1 \
    -o "$work/hand.pb" --expect "$work/hand.expect"
hand=$work/hand.expect
check_value "hand: memory ids" "$hand" memory_ids "1 0"
check_value "hand: two step groups" "$hand" step_groups 2
check_value "hand: snapshots" "$hand" snapshots 12 0
check_value "hand: allocations" "$hand" allocations 6 0
check_value "hand: deallocations" "$hand" deallocations 6 0
check_value "hand: peak bytes" "$hand" peak_bytes_in_use 2302435840 0
check_value "hand: peak time (walk order)" "$hand" peak_stats_time_ps 79945298000 0
check_value "hand: stack at the peak" "$hand" stack_reserved_bytes 1962934272 0
check_value "hand: heap at the peak" "$hand" heap_allocated_bytes 339501568 0
check_value "hand: free at the peak" "$hand" free_memory_bytes 30711977472 0
check_value "hand: capacity" "$hand" memory_capacity 33014413312 0
check_value "hand: lifetime peak (the last event's)" "$hand" peak_bytes_usage_lifetime 339501568 0
check_value "hand: fragmentation (int64 0)" "$hand" fragmentation 0 0
check_value "hand: peak step (latest in time)" "$hand" peak_step 1 0
check_value "hand: steps in time order" "$hand" steps "3 0*7 1*4 2*1" 0
check_value "hand: only the special rows" "$hand" rows 2 0
if grep -q '^row stack 1962934272 1962934272 1 stack INVALID unknown$' "$hand" &&
    grep -q '^row unused%20preallocated%20device%20memory 339501568 339501568 1 persist/dynamic INVALID unknown$' "$hand"; then
    tap_ok "hand: the stack row, then the unused heap"
else
    tap_not_ok "hand: the stack row, then the unused heap" "$hand"
fi
check_value "hand: HLO modules from the TPU plane" "$hand" hlo_modules 3
if [ "$(awk '$1 == "hlo" { print $2, $4 }' "$hand" | tr '\n' ' ')" = "0 TPU:0 1 TPU:0 2 TPU:0 " ]; then
    tap_ok "hand: HLO module ids and plane"
else
    tap_not_ok "hand: HLO module ids and plane" "$hand"
fi

# ---- --ties no: one step's peak is the highest, so the peak time and the
# peak step are in that step, and its table lists its live allocations ----
for style in tf-gpu jax-gpu tpu; do
    "$generate" --style "$style" --ties no --threads 3 -o "$work/t.pb" --expect "$work/t.expect"
    if awk '$1 == "allocator" { id = $2 } $1 == "rows" && $2 < 3 && id !~ /cpu|host/ { bad = 1 }
            END { exit bad }' "$work/t.expect"; then
        tap_ok "$style --ties no: the peak step's table has its allocations"
    else
        tap_not_ok "$style --ties no: the peak step's table has its allocations" "$work/t.expect"
    fi
done

# ---- walk order is not time order: device 0 of a TPU capture grows in
# its last program, after its last transfer (the last event in file
# order), so XProf's lifetime peak is below the heap at the peak ----
"$generate" --style tpu -o "$work/tpu.pb" --expect "$work/tpu.expect"
lifetime=$(value "$work/tpu.expect" peak_bytes_usage_lifetime 0)
heap=$(value "$work/tpu.expect" heap_allocated_bytes 0)
if [ -n "$lifetime" ] && [ -n "$heap" ] && [ "$lifetime" -lt "$heap" ]; then
    tap_ok "tpu: the lifetime peak ($lifetime) is the last visited event's, below $heap"
else
    tap_not_ok "tpu: the lifetime peak is the last visited event's" "$work/tpu.expect"
fi

# ---- XProf's readings of odd values, in the table at the peak ----
"$generate" --odd --seed 1 -o "$work/odd.pb" --expect "$work/odd.expect"
for row in \
    'row model/dense_0/Relu 1048576 1048576 1 output unknown%20dtype%20enum%20(31)_ref [128,2048]' \
    'row model/dense_1/Relu 262144 0 1 output unknown%20dtype%20enum%20(100) [128,512]' \
    'row model/dense_2/Relu 131072 131072 1 output float [128,256]' \
    'row model/dense_3/Relu 131072 131072 1 output int16_ref [128,256]' \
    'row "" 131072 131072 1 output float ""'; do
    if grep -qxF "$row" "$work/odd.expect"; then
        tap_ok "odd: $row"
    else
        echo "# want: $row" >"$work/why"
        tap_not_ok "odd: $row" "$work/why" "$work/odd.expect"
    fi
done
check_value "odd: the second /host:CPU plane is ignored" "$work/odd.expect" memory_ids \
    "2 GPU_0_bfc cpu"

# ---- the oracle on a real JAX capture (FINDINGS-real-captures.md 1.2, 1.3) ----
real="$source_dir/data/real/jax-mlp-steps.xplane.pb.gz"
if [ -r "$real" ] && gzip -dc "$real" >"$work/real.pb" 2>/dev/null; then
    "$generate" --replay "$work/real.pb" --expect "$work/real.expect"
    r=$work/real.expect
    check_value "real: six steps grouped" "$r" step_groups 6
    check_value "real: memory ids" "$r" memory_ids "2 GPU_0_bfc xla_gpu_host_bfc"
    check_value "real: GPU_0_bfc allocations" "$r" allocations 48 GPU_0_bfc
    check_value "real: GPU_0_bfc peak 14,248,192" "$r" peak_bytes_in_use 14248192 GPU_0_bfc
    check_value "real: lifetime peak from before the capture" "$r" \
        peak_bytes_usage_lifetime 156817152 GPU_0_bfc
    check_value "real: 16 GPU_0_bfc events per step" "$r" steps \
        "6 0*16 1*16 2*16 3*16 4*16 5*16" GPU_0_bfc
    check_value "real: the peak ties every step; the last one wins" "$r" peak_step 5 GPU_0_bfc
    check_value "real: xla_gpu_host_bfc events are in no step" "$r" steps "1 0*12" \
        xla_gpu_host_bfc
    walk_matches "real: the walker reads the real file" "$work/real.pb" "$r"
else
    tap_skip "data/real/jax-mlp-steps.xplane.pb.gz not readable"
fi

# ---- determinism ----
mkdir -p "$work/one" "$work/two"
for options in "--style tf-gpu --odd --hostile" "--style jax-gpu --size 300K" \
    "--style tpu --threads 3 --big-ids"; do
    for run in one two; do
        # shellcheck disable=SC2086
        "$generate" $options -o "$work/$run/x.pb" --expect "$work/$run/x.expect"
    done
    if cmp -s "$work/one/x.pb" "$work/two/x.pb" &&
        cmp -s "$work/one/x.expect" "$work/two/x.expect"; then
        tap_ok "same options, same bytes: $options"
    else
        tap_not_ok "same options, same bytes: $options"
    fi
done
"$generate" -o "$work/seed1.pb"
"$generate" --seed 2 -o "$work/seed2.pb"
tap_check "another seed, other bytes" sh -c "! cmp -s '$work/seed1.pb' '$work/seed2.pb'"

# ---- size, noise and the run layout ----
"$generate" --style tf-gpu --size 2M --stats -o "$work/size.pb" 2>"$work/stats"
bytes=$(wc -c <"$work/size.pb" | tr -d ' ')
share=$(sed -n 's/.*(\([0-9]*\)\.[0-9]%).*/\1/p' "$work/stats")
if [ "$bytes" -gt 1960000 ] && [ "$bytes" -lt 2040000 ] && [ "${share:-100}" -lt 50 ]; then
    tap_ok "--size 2M: about 2 MB, memory events a minority ($share%)"
else
    tap_not_ok "--size 2M: about 2 MB, memory events a minority" "$work/stats"
fi
"$generate" --style jax-gpu --run-layout "$work/logdir" --host host.example.com --run 2024_05_06_07_08_09
layout_file="$work/logdir/plugins/profile/2024_05_06_07_08_09/host.example.com.xplane.pb"
if [ -s "$layout_file" ] && "$walk" "$layout_file" | grep -qx 'hostname host.example.com'; then
    tap_ok "--run-layout writes LOGDIR/plugins/profile/RUN/HOST.xplane.pb"
else
    tap_not_ok "--run-layout writes LOGDIR/plugins/profile/RUN/HOST.xplane.pb"
fi

# ---- usage ----
for options in "--style nope" "--steps 0" "--markers maybe" "--size 12X" "--replay x" \
    "-o a --run-layout b" "--threads 65"; do
    # shellcheck disable=SC2086
    "$generate" $options >/dev/null 2>"$work/err"
    status=$?
    if [ "$status" -eq 2 ] && [ "$(wc -l <"$work/err")" -eq 1 ]; then
        tap_ok "bad usage ($options): status 2, one line"
    else
        tap_not_ok "bad usage ($options): status 2, one line" "$work/err"
    fi
done
tap_check "--help documents the --expect format" sh -c \
    "'$generate' --help | grep -q 'steps_fnv1a64'"

tap_done
