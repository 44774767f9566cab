#!/bin/sh
# Two views of a PyTorch memory snapshot (issue 23), in tmux at 80x24 and
# 120x40: the chart draws reserved memory as a line over the allocated
# bars (title, legend, readout; v hides it and shows it again), and the
# external annotations are spans in the steps pane (Enter zooms the chart
# to one and holds the table at its peak; again zooms back). A generated
# snapshot's spans whose START or END the file lacks are marked. The
# spans as CSV: --export spans, and e on a span. Prints TAP.
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

# How many cells of the thin line (─) the screen holds: the reserved
# line's and the legend's besides the rules between the panes.
line_cells() {
    grep -o '─' "$tmux_screen" | wc -l
}

# Tab until the spans list has the focus (its hint on the status line).
focus_spans() {
    for _ in 1 2 3 4 5 6 7 8; do
        tmux_keys Tab
        tmux_settle
        if grep -q "Spans (" "$tmux_screen" && grep -q "Enter zoom the chart to it" "$tmux_screen"
        then
            return 0
        fi
    done
    return 1
}

for size in 80x24 120x40; do
    memtop_viewer "${size%x*}" "${size#*x}" "" "$real"
    tmux_wait_for "95.74 MiB" >/dev/null
    tmux_screen_has "$size: the chart is titled allocated / reserved, the legend names the line" \
        "Memory: allocated / reserved" "█ allocated  ─ reserved"
    tmux_screen_has "$size: the readout has the reserved bytes at the cursor" \
        "in use 95\.74 MiB  reserved 112\.00 MiB"
    shown=$(line_cells)
    tmux_keys v
    if tmux_wait_for "reserved memory hidden" && ! grep -q "─ reserved" "$tmux_screen" &&
        ! grep -q "allocated / reserved" "$tmux_screen" && [ "$(line_cells)" -lt $((shown - 1)) ]
    then
        tap_ok "$size: v hides the reserved line ($shown cells of it before)"
    else
        tap_not_ok "$size: v hides the reserved line ($shown cells of it before)"
    fi
    tmux_keys v
    if tmux_wait_for "reserved memory shown as a line" && grep -q "─ reserved" "$tmux_screen" &&
        [ "$(line_cells)" -eq "$shown" ]; then
        tap_ok "$size: v again shows it"
    else
        tap_not_ok "$size: v again shows it"
    fi

    if focus_spans; then
        tap_ok "$size: the steps pane lists the snapshot's annotations as spans"
    else
        tap_not_ok "$size: the steps pane lists the snapshot's annotations as spans"
    fi
    if [ "$size" = 120x40 ]; then
        tmux_screen_has "$size: Spans (6): name, start, end, length and peak of each" \
            "Spans \(6\)" "Span +Start ms +End ms +Length ms +Peak" \
            "Optimizer\.zero_grad#Ada… +0\.381 +0\.566 +0\.185 +89\.69 MiB" \
            "Optimizer\.step#Adam\.step +7\.716 +8\.376 +0\.660 +95\.74 MiB"
    else
        tmux_screen_has "$size: Spans (6): name, start, length and peak of each" \
            "Spans \(6\)" "Optimizer\.step#… +7\.716 +0\.660 95\.74 MiB"
    fi
    # The fourth span holds the peak: Enter there.
    tmux_keys j j j Enter
    if tmux_wait_for "chart zoomed to Optimizer.step#Adam.step" &&
        grep -q "8.220 ms  in use 95.74 MiB" "$tmux_screen" && grep -q "ms 7\.7" "$tmux_screen"
    then
        tap_ok "$size: Enter zooms the chart to the span, the cursor on its peak"
    else
        tap_not_ok "$size: Enter zooms the chart to the span, the cursor on its peak"
    fi
    if [ "$size" = 120x40 ]; then
        tmux_screen_has "$size: the table holds what was live at the span's peak" \
            "At Optimizer\.step#Adam\.step's peak \(8\.220 ms\)" "_multi_tensor_adam"
        # The same live set as the table at the peak: the allocations live
        # before the trace as rows, each allocation's location.
        tmux_screen_has "$size: ... with the allocations live before the trace and the locations" \
            "size +total +share +location +op" "32\.00 MiB +64\.00 MiB +66\.9% +<before the trace>" \
            "…pshot\.py:21  _multi_tensor_adam" "<no python …  torch::autograd::generated"
        tap_check "$size: ... and no lump 'allocated before the profile'" \
            sh -c "! grep -q 'allocated before the profile' '$tmux_screen'"
    fi
    tmux_keys Enter
    if tmux_wait_for "chart zoomed back out from Optimizer.step#Adam.step" &&
        grep -q "ms 0.0" "$tmux_screen"; then
        tap_ok "$size: Enter again zooms back out"
    else
        tap_not_ok "$size: Enter again zooms back out"
    fi
    memtop_quit "$size: q quits with status 0"
    tmux_stop
done

# L, the cursor at the first column (0 ms, before the first step): the
# allocations live then, from the 27 live before the trace, with the
# location of what the trace made; m there and the cursor to the peak:
# what grew since, never what was live before the trace.
memtop_viewer 120 40 "" "$real"
tmux_wait_for "95.74 MiB" >/dev/null
tmux_keys L
tmux_wait_for "Allocations live at 8.220 ms" >/dev/null
tmux_keys BTab Home
tmux_screen_has "120x40: L at 0 ms: the allocations live before the trace, the locations" \
    "Allocations live at 0\.000 ms \(8\) · 89\.69 MiB of 95\.74 MiB" \
    "size +count +total +share +location +op" \
    "32\.00 MiB +2 +64\.00 MiB +66\.9% +<before the trace>" "…pshot\.py:16  step"
tap_check "120x40: ... and no lump 'allocated before the profile'" \
    sh -c "! grep -q 'allocated before the profile' '$tmux_screen'"
tmux_keys m p
tmux_screen_has "120x40: m at 0 ms, the cursor at the peak: what grew, by location" \
    "Allocations grown since 0\.000 ms: \+12\.60 MiB \(13\)" "…pshot\.py:21  _multi_tensor_adam"
tap_check "120x40: ... never what was live before the trace" \
    sh -c "! grep -q '<before the trace>' '$tmux_screen'"
memtop_quit "120x40 (L): q quits with status 0"
tmux_stop

# The generator writes ProfilerStep#N annotations: step 0's START is
# before the trace, the last step's END after the dump.
"$build_dir/tests/generate_torch_snapshot" --entries 2000 --devices 1 --seed 7 \
    -o "$work/steps.pickle"
memtop_viewer 120 40 "" "$work/steps.pickle"
tmux_wait_for "allocated / reserved" >/dev/null
focus_spans >/dev/null
tmux_screen_has "120x40: a span whose START the file lacks starts at ≤, one whose END it lacks ends at ≥" \
    "Spans \(4\)" "ProfilerStep#0 +≤0\.000 " "ProfilerStep#3 +[0-9.]+ +≥[0-9.]+ "
memtop_quit "120x40 (generated): q quits with status 0"
tmux_stop

# --export spans: the same spans as CSV; e on a span writes it too.
memtop_run --export spans "$real"
memtop_expect "--export spans: the real snapshot's six spans, the peak in the second step" 0 \
    out '^name,start_time_ps,end_time_ps,duration_ps,peak_bytes,peak_time_ps,end_bytes,allocations,deallocations,depth,starts_before_trace,open_at_end$' \
    out '^Optimizer\.step#Adam\.step,7716000000,8376000000,660000000,100387024,8220000000,94046376,6,6,0,false,false$'
tap_check "--export spans: a header and 6 rows" test "$(wc -l <"$test_work/out")" -eq 7
memtop_run --export spans "$work/steps.pickle"
memtop_expect "--export spans: a span without its START or its END says so" 0 \
    out '^ProfilerStep#0,0,[0-9]*,[0-9]*,[0-9]*,[0-9]*,[0-9]*,[0-9]*,[0-9]*,0,true,false$' \
    out '^ProfilerStep#3,[0-9]*,[0-9]*,[0-9]*,[0-9]*,[0-9]*,[0-9]*,[0-9]*,[0-9]*,0,false,true$'
memtop_run --export spans "$source_dir/data/real/torch-mlp.pt.trace.json.gz"
memtop_expect "--export spans: a PyTorch trace's user annotations, not its steps" 0 \
    out '^Optimizer\.zero_grad#Adam\.zero_grad,' out '^Optimizer\.step#Adam\.step,'
tap_check "--export spans: the trace's 10 spans" test "$(wc -l <"$test_work/out")" -eq 11

"$memtop" --export spans "$real" >"$work/expected.csv"
mkdir -p "$work/e"
tmux_start 120 40 "cd '$work/e' && env -u NO_COLOR LANG=C.UTF-8 LC_ALL=C.UTF-8 \
TERM=tmux-256color XDG_STATE_HOME='$work/state-e' '$memtop' '$real'; echo EXIT=\$?; sleep 60"
tmux_wait_for "allocated / reserved" >/dev/null
focus_spans >/dev/null
tmux_keys j e
tmux_wait_for "export spans to: memtop-cuda_0-spans.csv" >/dev/null
tmux_keys Enter
if tmux_wait_for "wrote 6 rows to memtop-cuda_0-spans.csv" &&
    cmp -s "$work/expected.csv" "$work/e/memtop-cuda_0-spans.csv"; then
    tap_ok "120x40: e on a span writes the spans as --export spans does"
else
    tap_not_ok "120x40: e on a span writes the spans as --export spans does"
fi
memtop_quit "120x40 (e): q quits with status 0"
tap_done
