#!/bin/sh
# The viewer on a PyTorch memory snapshot (issue 23), in tmux at 80x24 and
# 120x40: it opens on cuda:0's peak, the summary card says how long the
# trace covers and what was live at its start, the table lists the live
# allocations with their Python line, the detail view shows a row's stack
# made from its frames (C++ runs folded; without a Python frame, the C++
# frames but the machinery), the segments tab shows the segments at the
# cursor with their totals, and q quits with status 0. Prints TAP.
set -u
source_dir="${MEMTOP_SRCDIR:-.}"
build_dir="${MEMTOP_BUILDDIR:-.}"
. "$source_dir/tests/lib.sh"
work=$test_work

if ! tmux_have; then
    tap_skip "tmux is not installed"
    tap_done
    exit
fi
real="$source_dir/data/real/torch-mlp.snapshot.pickle.gz"

for size in 80x24 120x40; do
    memtop_viewer "${size%x*}" "${size#*x}" "" "$real"
    if tmux_wait_for "95.74 MiB" && grep -q "cuda:0" "$tmux_screen"; then
        tap_ok "$size: the chart and the card show the peak"
    else
        tap_not_ok "$size: the chart and the card show the peak" "$tmux_screen"
    fi
    if [ "$size" = 120x40 ]; then
        tap_check "$size: the card says what was live when the trace begins" \
            grep -q "Live at its start *89.19 MiB" "$tmux_screen"
        tap_check "$size: the table has the live allocations, adam.py's among them" \
            sh -c "grep -q 'Allocations live at peak (20)' '$tmux_screen' &&
                   grep -q '_multi_tensor_adam' '$tmux_screen'"
        # The largest row: two allocations live before the trace.
        tmux_keys Enter
        tmux_screen_has "$size: Enter on a <before the trace> row: its address, live when the trace began" \
            "Op name +<before the trace>" "Count +2, in all 64\.00 MiB" "Address +0x7f8b" \
            "Time +before the timeline \(live when it began\)" \
            "Origin +allocation [0-9]+ of those live when the timeline began"
        # Adam's state: its stack, kept as frames, drawn as text here.
        tmux_keys j
        tmux_keys j
        tmux_screen_has "$size: the detail view draws a row's stack from its frames" \
            "Allocation 3 of 20" "Op name +_multi_tensor_adam" "Stack +\[26 C\+\+ frames\]" \
            "optim/adam\.py:791 _multi_tensor" "^ +│ +\[11 C\+\+ frames\]" \
            "capture/torch_snapshot\.py:30 <module>"
        tap_check "$size: ... innermost first, a folded run before the first Python frame" \
            sh -c "grep -A1 'Stack  *\[26 C++ frames\]' '$tmux_screen' |
                   grep -q 'adam.py:791 _multi_tensor'"
        # Autograd's thread: no Python frame, the C++ frames shown but
        # the machinery (unwind and its kin, folded first).
        tmux_keys j
        tmux_screen_has "$size: ... and a stack without a Python frame" \
            "Allocation 4 of 20" "Location +<no python frame>" "Stack +\[3 C\+\+ frames\]" \
            "CUDACachingAllocator\.cpp:0 c10::cuda::CUDACachingAllocator::Native::DeviceCachingAl"
        tmux_keys Escape
        tmux_wait_gone "Op name" >/dev/null
    fi
    # Tab to the segments tab, whatever the layout shows first.
    found=false
    for _ in 1 2 3 4 5 6 7 8; do
        tmux_keys Tab
        tmux_settle
        if grep -q "Segments (8)" "$tmux_screen"; then found=true; break; fi
    done
    if $found && grep -q "112.00 MiB" "$tmux_screen"; then
        tap_ok "$size: the segments tab lists 8 segments, 112 MiB reserved"
    else
        tap_not_ok "$size: the segments tab lists 8 segments, 112 MiB reserved" "$tmux_screen"
    fi
    tmux_keys q
    if tmux_wait_for "EXIT=" && grep -q "EXIT=0" "$tmux_screen"; then
        tap_ok "$size: q quits with status 0"
    else
        tap_not_ok "$size: q quits with status 0" "$tmux_screen"
    fi
    tmux_stop
done
# A directory of rank snapshots: the hosts pane lists them by rank, in
# natural order; the pod overview (P) too.
mkdir "$work/ranks"
for rank in 10 2 0; do
    "$build_dir/tests/generate_torch_snapshot" --entries 300 --devices 1 --seed "$rank" \
        -o "$work/ranks/snapshot_rank$rank.pickle"
done
for size in 80x24 120x40; do
    memtop_viewer "${size%x*}" "${size#*x}" "" "$work/ranks"
    if tmux_wait_for "Hosts (3)" && grep -A3 "Hosts (3)" "$tmux_screen" | tr -s ' ' |
        grep -o 'rank[0-9]*' | tr '\n' ' ' | grep -q '^rank0 rank2 rank10 $'; then
        tap_ok "$size: a rank directory opens as hosts rank0, rank2, rank10"
    else
        tap_not_ok "$size: a rank directory opens as hosts rank0, rank2, rank10" "$tmux_screen"
    fi
    tmux_keys P
    if tmux_wait_for "Pod overview" &&
        grep -o 'rank[0-9]*' "$tmux_screen" | tr '\n' ' ' | grep -q 'rank0 rank2 rank10 $'; then
        tap_ok "$size: the pod overview lists the ranks in natural order"
    else
        tap_not_ok "$size: the pod overview lists the ranks in natural order" "$tmux_screen"
    fi
    tmux_keys q
    tmux_wait_for "EXIT=" >/dev/null
    tmux_stop
done
tap_done
