#!/bin/sh
# The chart and the headroom as a person sees them (issue 15), at 80x24,
# 120x40 and 200x60: the capacity line and the share of it, stack and
# heap told apart by glyph with a legend, the auto-ranged y-axis, zoom
# that stops at one snapshot per column, F and p that keep the cursor
# and the zoom, the events of a column, stepping through events, and the
# HLO modules' sort, zoom back out and device filter. Prints TAP.
set -u
source_dir="${MEMTOP_SRCDIR:-.}"
. "$source_dir/tests/lib.sh"
demo_v1="$source_dir/data/demo.v1.pb"
demo_v0="$source_dir/data/demo.v0.pb.gz"

tmux_require

# line_of PATTERN: the first screen line matching it (grep -E).
line_of() {
    tmux_capture
    grep -E -m 1 -e "$1" "$tmux_screen"
}

# ---- headroom: the capacity line, the share of it, the legend ----
for size in "80 24" "120 40" "200 60"; do
    set -- $size
    memtop_viewer "$1" "$2" "" "$demo_v1"
    tmux_wait_for "allocator GPU_0_bfc (1/3)" >/dev/null
    tmux_screen_has "$1x$2: the capacity line, labelled, above the bars (the axis cut below it)" \
        '14\.76 GiB (╌)+' '≈ axis cut'
    tmux_screen_has "$1x$2: the summary says the peak's share of the capacity" \
        'of capacity +48\.57 %'
    tmux_screen_has "$1x$2: the allocators list has each peak's share" \
        'GPU_0_bfc +7\.17 GiB +49%' 'cpu +1\.03 GiB +1\.6%'
    tmux_screen_has "$1x$2: a one-line legend tells heap, stack and capacity apart" \
        '█ heap  ▒ stack  ╌ capacity'
    memtop_quit "$1x$2: q quits with status 0"
done

# A profile whose stack is most of its memory: stack and heap differ by
# glyph, also without colour and in ASCII.
stack_heavy="$test_work/stack.json"
printf '%s' '{"memoryProfilePerAllocator":{"gpu":{"memoryProfileSnapshots":[' \
    '{"timeOffsetPs":"1000","aggregationStats":{"stackReservedBytes":"6291456",' \
    '"heapAllocatedBytes":"2097152","freeMemoryBytes":"1048576","peakBytesInUse":"8388608"},' \
    '"activityMetadata":{"memoryActivity":"ALLOCATION","allocationBytes":"2097152","tfOpName":"a"}},' \
    '{"timeOffsetPs":"2000","aggregationStats":{"stackReservedBytes":"6291456",' \
    '"heapAllocatedBytes":"4194304","freeMemoryBytes":"1048576","peakBytesInUse":"10485760"},' \
    '"activityMetadata":{"memoryActivity":"ALLOCATION","allocationBytes":"2097152","tfOpName":"b"}}' \
    ']}},"memoryIds":["gpu"],"version":0}' >"$stack_heavy"
# stack_and_heap NAME STACK HEAP ENVIRONMENT ARGUMENT...: the plot (its
# rows, right of the left column) has both glyphs, the legend names them.
stack_and_heap() {
    name=$1 stack=$2 heap=$3 environment=$4
    shift 4
    memtop_viewer 80 24 "$environment" "$@"
    # The legend is drawn after the plot: once it shows, the frame is whole.
    tmux_wait_for "$heap heap  $stack stack" >/dev/null
    plot=$(sed -n '3,6p' "$tmux_screen" | cut -c 30-)
    if printf '%s\n' "$plot" | grep -q -F "$stack" && printf '%s\n' "$plot" | grep -q -F "$heap" &&
        grep -q -F "$heap heap  $stack stack" "$tmux_screen"; then
        tap_ok "$name: stack ($stack) and heap ($heap) have glyphs of their own, with a legend"
    else
        tap_not_ok "$name: stack ($stack) and heap ($heap) have glyphs of their own, with a legend"
    fi
    memtop_quit "$name: q quits with status 0"
}
stack_and_heap NO_COLOR '▒' '█' "NO_COLOR=1" "$stack_heavy"
stack_and_heap --ascii '%' '#' "" --ascii "$stack_heavy"

# ---- the y-axis: from 0, auto-ranged (a), up to the capacity (c) ----
for size in "80 24" "120 40" "200 60"; do
    set -- $size
    memtop_viewer "$1" "$2" "" "$demo_v1"
    tmux_wait_for "allocator GPU_0_bfc (1/3)" >/dev/null
    # Zoomed in around the peak, where nothing is near 0.
    tmux_keys + +
    tmux_wait_for "Memory ×4.0" >/dev/null
    tmux_screen_has "$1x$2: the y-axis starts at 0" '[│┤├┼] +0 B [^ ]'
    tmux_keys a
    tmux_wait_for "y-axis auto-ranged" >/dev/null
    tmux_capture
    if grep -E -q '[0-9] [KMG]iB≈[^ ]' "$tmux_screen" && grep -q '≈ axis cut' "$tmux_screen" &&
        ! grep -E -q '[│┤├┼] +0 B [^ ]' "$tmux_screen"; then
        tap_ok "$1x$2: a auto-ranges the y-axis: it starts at the data, cut (≈)"
    else
        tap_not_ok "$1x$2: a auto-ranges the y-axis: it starts at the data, cut (≈)"
    fi
    tmux_keys a
    tmux_screen_has "$1x$2: a again starts it at 0" 'y-axis from 0' '[│┤├┼] +0 B [^ ]'
    tmux_keys c
    tmux_screen_has "$1x$2: c puts the capacity at the top of the axis, no cut" \
        'y-axis up to the capacity' '14\.76 GiB (╌)+'
    if grep -q '≈' "$tmux_screen"; then
        tap_not_ok "$1x$2: ... the axis is not cut then"
    else
        tap_ok "$1x$2: ... the axis is not cut then"
    fi
    memtop_quit "$1x$2 (y-axis): q quits with status 0"
done

# ---- zoom, F, p, Enter, , and . in the chart ----
memtop_viewer 80 24 "" "$demo_v0"
tmux_wait_for "allocator GPU_0_bfc (1/3)" >/dev/null
tmux_keys BTab
cursor_before=$(line_of '▲')
readout_before=$(line_of ' in use ')
tmux_keys F
tmux_wait_for "+frag" >/dev/null
cursor_after=$(line_of '▲')
readout_after=$(line_of ' in use ')
if [ "$(printf '%s' "$cursor_before" | sed 's/▲.*//' | wc -m)" -eq \
     "$(printf '%s' "$cursor_after" | sed 's/▲.*//' | wc -m)" ] &&
    [ "$readout_before" = "$readout_after" ] && [ -n "$readout_after" ]; then
    tap_ok "F shows fragmentation and leaves the cursor where it was"
else
    printf '%s\n%s\n%s\n%s\n' "$cursor_before" "$cursor_after" "$readout_before" \
        "$readout_after" >"$test_work/why"
    tap_not_ok "F shows fragmentation and leaves the cursor where it was" "$test_work/why"
fi
tmux_keys F
i=0
while [ $i -lt 40 ]; do tmux_keys +; i=$((i + 1)); done
tmux_screen_has "+ stops at one snapshot per column" \
    'zoomed in as far as it goes: one snapshot per column'
factor=$(line_of 'Memory ×' | sed 's/.*Memory ×\([0-9.]*\).*/\1/')
if [ -n "$factor" ] && [ "${factor%%.*}" -lt 10000 ]; then
    tap_ok "  ... at a zoom that still shows events (×$factor)"
else
    tap_not_ok "  ... at a zoom that still shows events (×$factor)"
fi
tmux_keys 0 + + Home Home
tmux_wait_for "Memory ×4.0" >/dev/null
tmux_keys p
if tmux_screen_has "p puts the cursor on the peak" 'peak 7\.04 GiB at 652\.6' &&
    grep -q 'Memory ×4.0' "$tmux_screen"; then
    tap_ok "  ... and keeps the zoom (×4.0)"
else
    tap_not_ok "  ... and keeps the zoom (×4.0)"
fi
tmux_keys 0
at_peak=$(line_of ' in use ' | sed 's/^.*│ \([0-9.]* ms\).*/\1/')
tmux_keys .
tmux_wait_gone "$at_peak  in use" >/dev/null
after_next=$(line_of ' in use ' | sed 's/^.*│ \([0-9.]* ms\).*/\1/')
tmux_keys ,
tmux_wait_for "$at_peak  in use" >/dev/null
after_back=$(line_of ' in use ' | sed 's/^.*│ \([0-9.]* ms\).*/\1/')
if [ -n "$at_peak" ] && [ "$after_next" != "$at_peak" ] && [ "$after_back" = "$at_peak" ]; then
    tap_ok ". and , step to the next event and back ($at_peak, $after_next)"
else
    tap_not_ok ". and , step to the next event and back ($at_peak, $after_next, $after_back)"
fi
tmux_keys h h h
tmux_wait_for "(largest of" >/dev/null
count=$(line_of '(largest of [0-9]*)' | sed 's/.*(largest of \([0-9]*\)).*/\1/')
tmux_keys Enter
tmux_screen_has "Enter lists the events of the cursor's column ($count)" \
    "$count events from .* ms to .* ms" 'Time +Activity +Size +Op' \
    '(allocation|deallocation) +[0-9.]+ [KMG]?i?B ' "[0-9]+ of $count "
selected=$(line_of "[0-9]+ of $count " | sed "s/.* \([0-9]*\) of $count .*/\1/")
tmux_keys j
tmux_screen_has "  ... j selects the next event" "$((selected + 1)) of $count "
tmux_keys Escape
tmux_wait_gone "events from" >/dev/null
if grep -q "largest of" "$tmux_screen"; then
    tap_not_ok "  ... Esc closes it, the cursor on the selected event"
else
    tap_ok "  ... Esc closes it, the cursor on the selected event"
fi
memtop_quit "chart keys: q quits with status 0"

# ---- HLO modules: sort, zoom in and back out, one device at a time ----
# Snapshots every millisecond from 0 to 100 ms; four modules on two
# devices, in the file as ids 3, 1, 2, 0.
hlo_profile="$test_work/hlo.json"
{
    printf '{"memoryProfilePerAllocator":{"gpu":{"memoryProfileSnapshots":['
    i=0
    while [ $i -le 100 ]; do
        [ $i -gt 0 ] && printf ','
        printf '{"timeOffsetPs":"%d000000000","aggregationStats":{"heapAllocatedBytes":"%d"},' \
            "$i" $(( (i % 17 + 1) * 1048576 ))
        printf '"activityMetadata":{"memoryActivity":"ALLOCATION","allocationBytes":"1024","tfOpName":"op%d"}}' "$i"
        i=$((i + 1))
    done
    printf ']}},"memoryIds":["gpu"],"version":0,"hloModules":['
    printf '{"id":"3","name":"mod_three","planeName":"A","startTimePs":"10000000000","endTimePs":"20000000000"},'
    printf '{"id":"1","name":"mod_one","planeName":"B","startTimePs":"30000000000","endTimePs":"70000000000"},'
    printf '{"id":"2","name":"mod_two","planeName":"A","startTimePs":"5000000000","endTimePs":"8000000000"},'
    printf '{"id":"0","name":"mod_zero","planeName":"B","startTimePs":"80000000000","endTimePs":"95000000000"}]}'
} >"$hlo_profile"

# first_module: the name on the HLO pane's first row.
first_module() {
    tmux_capture
    awk '/ Name *$/ { getline; print; exit }' "$tmux_screen" | grep -o 'mod_[a-z]*'
}

for size in "80 24" "120 40" "200 60"; do
    set -- $size
    memtop_viewer "$1" "$2" "" "$hlo_profile"
    tmux_wait_for "allocator gpu (1/1)" >/dev/null
    tmux_keys Tab
    tmux_wait_for "HLO modules (4)" >/dev/null
    order=$(first_module)
    for step in "s:by id" "s:by start" "s:by duration" "r:by duration, shortest first"; do
        tmux_keys "${step%%:*}"
        tmux_wait_for "HLO modules ${step#*:}" >/dev/null
        order="$order $(first_module)"
    done
    if [ "$order" = "mod_three mod_zero mod_two mod_one mod_two" ]; then
        tap_ok "$1x$2: s sorts the HLO modules by id, start and duration; r reverses"
    else
        echo "# first rows: $order" >"$test_work/why"
        tap_not_ok "$1x$2: s sorts the HLO modules by id, start and duration; r reverses" \
            "$test_work/why" "$tmux_screen"
    fi
    tmux_keys s Home
    tmux_wait_for "in the file's order" >/dev/null
    tmux_keys Enter
    tmux_screen_has "$1x$2: Enter zooms the chart to the module" \
        'chart zoomed to module 3 mod_three' 'Memory ×'
    tmux_keys Enter
    if tmux_wait_for "chart zoomed back out from module 3" && ! grep -q 'Memory ×' "$tmux_screen"; then
        tap_ok "$1x$2: Enter again on it zooms back out"
    else
        tap_not_ok "$1x$2: Enter again on it zooms back out"
    fi
    tmux_keys d
    tmux_screen_has "$1x$2: d shows one device's modules" 'HLO modules \(2 of 4 on A\)' \
        'HLO modules on A only'
    tmux_keys d
    tmux_screen_has "$1x$2: d again, the next device's" 'HLO modules \(2 of 4 on B\)'
    tmux_keys d
    tmux_screen_has "$1x$2: d again, every device's" 'HLO modules \(4\)' 'HLO modules of every device'
    memtop_quit "$1x$2 (HLO): q quits with status 0"
done

tap_done
