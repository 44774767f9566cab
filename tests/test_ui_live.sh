#!/bin/sh
# Issue 13 in the viewer, as a person meets it at 80x24 and 120x40: L
# makes the allocations table follow the chart's cursor (its title says
# the time, which is the readout's, and the rows change as the cursor
# moves); m marks a time and the table shows what grew since, with the
# total in its title, while the chart shades the span; m or Esc clears
# the mark; XProf's sampled timeline is refused with the words;
# the steps tab lists each step with its change and the possible leaks,
# Enter zooms the chart to a step; b marks the step boundaries on the
# time axis; e exports the live rows and the steps as --export does; L
# and b are remembered. Prints TAP.
set -u
source_dir="${MEMTOP_SRCDIR:-.}"
. "$source_dir/tests/lib.sh"
demo_v0="$source_dir/data/demo.v0.pb.gz"
demo_v1="$source_dir/data/demo.v1.pb"

tmux_require

# title: the allocations table's title line, from its name on.
title() {
    tmux_capture
    grep -E -m 1 -o -e '(Allocations a|A)t peak.*' -e '(Allocations l|L)ive at.*' \
        -e '(Allocations g|G)rown since.*' "$tmux_screen"
}
# title_time: the time in the table's title ("12.345").
title_time() { title | sed -n 's/^[^0-9]*\([0-9][0-9.]*\) ms.*/\1/p'; }
# table_rows: the table's first rows (what is right of the column rule).
table_rows() {
    tmux_capture
    awk '/ size.* total.* op/ { rows = 4; next } rows-- > 0' "$tmux_screen" | sed 's/^.*[│├┤┼]//'
}

# A profile of six steps: each allocates a temporary it frees, and from
# step 3 on keeps 2 MiB it never frees (ends rise from step 3: steps 5
# and 6 are possible leaks).
leak=$test_work/leak.json
snapshot() {
    printf '{"timeOffsetPs":"%s","aggregationStats":{"heapAllocatedBytes":"%s"},' "$1" "$2"
    printf '"activityMetadata":{"memoryActivity":"%s","allocationBytes":"%s",' "$3" "$4"
    printf '"requestedBytes":"%s","address":"%s","tfOpName":"%s","stepId":"%s",' "$4" "$5" "$6" "$7"
    printf '"regionType":"output","dataType":"float","tensorShape":"[4]"}}'
}
{
    heap=1048576 time=1
    printf '{"memoryProfilePerAllocator":{"gpu":{"memoryProfileSnapshots":['
    for step in 1 2 3 4 5 6; do
        [ "$step" -eq 1 ] || printf ','
        heap=$((heap + 4194304))
        snapshot "${time}000000000" $heap ALLOCATION 4194304 "${step}01" "step$step/temp" $step
        heap=$((heap - 4194304))
        printf ','
        snapshot "$((time + 1))000000000" $heap DEALLOCATION 4194304 "${step}01" "step$step/temp" $step
        kept=0
        [ "$step" -lt 3 ] || kept=2097152
        heap=$((heap + kept))
        printf ','
        snapshot "$((time + 2))000000000" $heap ALLOCATION $kept "${step}02" "step$step/cache" $step
        time=$((time + 3))
    done
    printf ']}},"memoryIds":["gpu"],"version":0}'
} >"$leak"

# ---- L: the table follows the cursor; m: what grew since the mark ----
# (The table at the peak is the live set there: 564 allocations, issue 22;
# XProf's peak-step table had 191 rows.)
for size in "80 24" "120 40"; do
    set -- $size
    memtop_viewer "$1" "$2" "" "$demo_v0"
    tmux_wait_for "allocator GPU_0_bfc (1/3)" >/dev/null
    tmux_screen_has "$1x$2: the table starts at the peak" '(Allocations l|L)ive at peak \(564\)'
    tmux_keys L
    tmux_screen_has "$1x$2: L: the table follows the cursor, its title says when" \
        '(Allocations l|L)ive at 652\.649 ms \(' 'the table follows the chart.s cursor'
    # The breakdowns (on a tall terminal) sum what the table shows.
    [ "$2" -lt 40 ] || tmux_screen_has "$1x$2: ... and the breakdowns say so" 'Live by region'
    tmux_screen_has "$1x$2: at the peak the live rows add up to the peak" \
        'ive at 652\.649 ms \([0-9]+\) · 7\.04 GiB of 7\.04 GiB'
    before_rows=$(table_rows)
    # Shift-Tab: the chart; Home: the cursor to the window's first column.
    tmux_keys BTab Home
    tmux_wait_gone "ive at 652.649 ms" >/dev/null
    at=$(title_time)
    after_rows=$(table_rows)
    if [ -n "$at" ] && [ "$at" != 652.649 ] && [ "$before_rows" != "$after_rows" ] &&
        grep -q "│ $at ms" "$tmux_screen"; then
        tap_ok "$1x$2: the cursor moved: the title's time is the readout's, the rows changed"
    else
        printf '# at %s\n# before:\n%s\n# after:\n%s\n' "$at" "$before_rows" "$after_rows" \
            >"$test_work/why"
        tap_not_ok "$1x$2: the cursor moved: the title's time is the readout's, the rows changed" \
            "$test_work/why" "$tmux_screen"
    fi
    # m at the peak, then the cursor to the last column: what grew since.
    tmux_keys p m
    tmux_screen_has "$1x$2: m marks the cursor's time" 'mark at 652\.649 ms'
    tmux_keys End
    tmux_screen_has "$1x$2: with a mark, the table shows what grew since, with its total" \
        '(Allocations g|G)rown since 652\.649 ms: \+[0-9.]+ [KMG]iB'
    [ "$2" -lt 40 ] || tmux_screen_has "$1x$2: ... and the breakdowns say so" 'Grown by region'
    grown=$(title | sed -n 's/.*: +\([0-9.]* [KMG]iB\).*/\1/p')
    # Where the title has room, the rows shown add up to it.
    [ "$1" -lt 120 ] || tmux_screen_has "$1x$2: the title's total is the rows' total" \
        "rown since 652\\.649 ms: \\+$grown \\([0-9]+\\) · $grown of"
    tmux_screen_has "$1x$2: the chart shades the span since the mark (named in the legend)" \
        '│ +[0-9.]* [KMG]iB[ ≈]*[^│]*·' '· since the mark' '◆'
    tmux_keys m
    tmux_screen_has "$1x$2: m again clears the mark: live at the cursor again" \
        'mark cleared' '(Allocations l|L)ive at'
    if ! grep -q 'since the mark' "$tmux_screen"; then
        tap_ok "$1x$2: ... and the shading is gone"
    else
        tap_not_ok "$1x$2: ... and the shading is gone"
    fi
    tmux_keys m Escape
    tmux_screen_has "$1x$2: Esc clears a mark too" 'mark cleared' '(Allocations l|L)ive at'
    tmux_keys L
    tmux_screen_has "$1x$2: L again: the table at the peak" '(Allocations l|L)ive at peak \(564\)'
    memtop_quit "$1x$2 (live): q quits with status 0"
done

# ---- version 1: XProf's sample cannot say what was live ----
memtop_viewer 160 30 "" "$demo_v1"
tmux_wait_for "allocator GPU_0_bfc (1/3)" >/dev/null
tmux_keys L
tmux_screen_has "version 1: L says why not, in the issue's words" \
    "live allocations need the full timeline; this file keeps XProf's 1000-snapshot sample \\(open the run's \\.xplane\\.pb instead\\)"
tmux_screen_has "version 1: the table stays at the peak" 'Allocations at peak \('
tmux_keys m
tmux_screen_has "version 1: m says so too, and marks nothing" "live allocations need the full timeline"
if ! grep -q '◆' "$tmux_screen"; then tap_ok "version 1: no mark drawn"; else tap_not_ok "version 1: no mark drawn"; fi
memtop_quit "version 1: q quits with status 0"

# ---- the steps tab ----
for size in "80 24" "120 40"; do
    set -- $size
    memtop_viewer "$1" "$2" "" "$leak"
    tmux_wait_for "allocator gpu (1/1)" >/dev/null
    tmux_keys Tab
    # Where the names leave room, the allocation and free counts show too.
    tmux_screen_has "$1x$2: Tab: the steps, two possible leaks" 'Steps \(6\) · 2 possible leaks' \
        'Step +.*Peak +At end +(Allocs +Frees +)?End change'
    tmux_screen_has "$1x$2: each step's peak, end and change; the leaks flagged" \
        ' 1 .*5\.00 MiB +1\.00 MiB( +2 +1)? *$' ' 2 .*1\.00 MiB( +2 +1)? +0 B *$' \
        ' 4 .*7\.00 MiB +5\.00 MiB( +2 +1)? +\+2\.00 MiB *$' \
        ' 5 .*9\.00 MiB +7\.00 MiB( +2 +1)? +\+2\.00 MiB  ↑ leak\?' ' 6 .*↑ leak\?'
    tmux_keys j j j Enter
    # Step 4 runs from 10 to 12 ms: zoomed, the time axis (the line that
    # starts with its unit) has times in between with two decimals; the
    # whole 18 ms have one.
    tmux_screen_has "$1x$2: Enter zooms the chart to the step" \
        'chart zoomed to step 4, the table at its peak \(Enter again: back out\)' \
        '│ +ms .*1[01]\.[0-9]{2}( |$)'
    tmux_keys Enter
    if tmux_wait_for "chart zoomed back out from step 4" &&
        ! grep -E -q '│ +ms .*1[01]\.[0-9]{2}( |$)' "$tmux_screen"; then
        tap_ok "$1x$2: Enter again on it zooms back out"
    else
        tap_not_ok "$1x$2: Enter again on it zooms back out"
    fi
    memtop_quit "$1x$2 (steps): q quits with status 0"
done

# Wide enough, every column is there: step 3 peaks at 7 ms (its
# temporary), allocates twice and frees once.
memtop_viewer 200 60 "" "$leak"
tmux_wait_for "allocator gpu (1/1)" >/dev/null
tmux_keys Tab
tmux_screen_has "200x60: every column of the steps" \
    'Step +Start ms +End ms +Peak +Peak ms +At end +Allocs +Frees +End change' \
    ' 3 +7\.000 +9\.000 +5\.00 MiB +7\.000 +3\.00 MiB +2 +1 +\+2\.00 MiB *$'
tmux_keys j j j Enter
tmux_screen_has "200x60: Enter on a step: the table at that step's peak, titled so" \
    'Allocations at step 4.s peak \(10\.000 ms\) \([0-9]+\)'
tmux_keys Escape
tmux_screen_has "200x60: Esc: the table back at the peak" 'Allocations live at peak \([0-9]+\)'
# g: go to a time, a step's peak, the peak; oom and nonsense said.
go() { tmux_keys g; tmux_text "$1"; tmux_keys Enter; }
go "step 5"
tmux_screen_has "200x60: g step 5: the cursor at step 5's peak" \
    'cursor at step 5.s peak \(13\.000 ms\)' '│ 13\.000 ms +in use'
tmux_keys L
go "7 ms"
tmux_screen_has "200x60: g 7 ms: the cursor there, the table following it (L)" \
    'cursor at 7\.000 ms' 'Allocations live at 7\.000 ms'
go "0.016 s"
tmux_screen_has "200x60: g 0.016 s: seconds too" 'cursor at 16\.000 ms'
go peak
tmux_screen_has "200x60: g peak" 'cursor at the peak \([0-9.]+ ms\)'
go oom
tmux_screen_has "200x60: g oom: no OOM recorded" 'no OOM recorded in this profile'
go "3 h"
tmux_screen_has "200x60: g 3 h: the unit refused" "unknown unit 'h' \(s, ms, us, ns or ps\)"
go "step 9"
tmux_screen_has "200x60: g step 9: which steps there are" 'no step 9 \(steps 1 to 6\)'
memtop_quit "200x60 (steps): q quits with status 0"

# g oom on a trace that records one: the cursor at it.
"${MEMTOP_BUILDDIR:-.}/tests/generate_trace" --producer pytorch --steps 4 --events 300 --oom \
    >"$test_work/oom.json"
memtop_viewer 120 40 "" "$test_work/oom.json"
tmux_wait_for "allocator cuda:0" >/dev/null
go oom
tmux_screen_has "120x40: g oom: the cursor at the OOM" 'cursor at the OOM \([0-9.]+ ms\)'
memtop_quit "120x40 (oom): q quits with status 0"

# With HLO modules too (an XSpace of a TPU), the table keeps its place and
# the HLO modules and the steps take turns below it.
tpu=$test_work/tpu.xplane.pb
"${MEMTOP_BUILDDIR:-.}/tests/generate_xspace" --style tpu --steps 2 --memory-events 200 -o "$tpu"
memtop_viewer 160 45 "" "$tpu"
tmux_wait_for "allocator 0 (1/4)" >/dev/null
tmux_screen_has "160x45, HLO modules and steps: the modules below the table, the steps a tab beside" \
    'Allocations live at peak \(' 'HLO modules \(11\).* Tab: steps ─' 'TPU:0'
tmux_keys Tab Tab
tmux_screen_has "Tab Tab: the steps in front there, the table still above" \
    'Allocations live at peak \(' 'Steps \(3\)' 'Shift-Tab HLO modules'
memtop_quit "160x45 (tabs): q quits with status 0"

# ---- b: the step boundaries on the time axis; L and b remembered ----
state=$test_work/state-remembered
for size in "80 24" "120 40"; do
    set -- $size
    rm -rf "$state"
    memtop_viewer "$1" "$2" "XDG_STATE_HOME='$state'" "$leak"
    tmux_wait_for "allocator gpu (1/1)" >/dev/null
    tmux_keys b
    tmux_screen_has "$1x$2: b: the time axis marks where each step starts, with its id" \
        ' step ┆1 ' '┆ step start' 'Memory \+steps' 'the time axis marks where each step starts'
    tmux_keys b
    tmux_screen_has "$1x$2: b again: times" ' ms [0-9]' 'the time axis shows times'
    tmux_keys b L
    tmux_wait_for "ive at" >/dev/null
    memtop_quit "$1x$2 (boundaries): q quits with status 0"
    memtop_viewer "$1" "$2" "XDG_STATE_HOME='$state'" "$leak"
    tmux_screen_has "$1x$2: the boundaries and the live table are there again next time" \
        'Memory \+steps' '(Allocations l|L)ive at'
    memtop_quit "$1x$2 (remembered): q quits with status 0"
done

# ---- e: the live rows and the steps, as --export writes them ----
export_dir="$test_work/export"
mkdir -p "$export_dir" "$test_work/home"
peak_time=$("$memtop" --summary --json "$demo_v0" |
    sed -n 's/^[^]]*"peak":{"bytes":[0-9]*,"time_ps":\([0-9]*\).*/\1/p')
peak_ms=$(printf '%010d' "$peak_time" | sed 's/\(.........\)$/.\1/')
"$memtop" --export allocations --at "$peak_ms" "$demo_v0" >"$test_work/live.csv"
"$memtop" --export steps "$demo_v0" >"$test_work/steps.csv"
tmux_start 80 24 "cd '$export_dir' && env -u NO_COLOR LANG=C.UTF-8 LC_ALL=C.UTF-8 \
TERM=tmux-256color HOME='$test_work/home' XDG_STATE_HOME='$test_work/state-export' \
'$memtop' '$demo_v0'; echo EXIT=\$?; sleep 60"
tmux_wait_for "allocator GPU_0_bfc (1/" >/dev/null
tmux_keys L e
tmux_wait_for "export allocations to: memtop-GPU_0_bfc-allocations.csv" >/dev/null
tmux_keys Enter
if tmux_wait_for "wrote" && cmp -s "$export_dir/memtop-GPU_0_bfc-allocations.csv" "$test_work/live.csv"; then
    tap_ok "e on the live table writes what --export allocations --at writes"
else
    tap_not_ok "e on the live table writes what --export allocations --at writes"
fi
tmux_keys Tab e
tap_check "e on the steps offers memtop-<allocator>-steps.csv" \
    tmux_wait_for "export steps to: memtop-GPU_0_bfc-steps.csv"
tmux_keys Enter
if tmux_wait_for "wrote 9 rows" && cmp -s "$export_dir/memtop-GPU_0_bfc-steps.csv" "$test_work/steps.csv"; then
    tap_ok "e on the steps writes what --export steps writes"
else
    tap_not_ok "e on the steps writes what --export steps writes"
fi
memtop_quit "export: q quits with status 0"

tap_done
