#!/bin/sh
# The out-of-memory post-mortem in the viewer (issue 24), in tmux at 80x24
# and 120x40, on a generated PyTorch trace with an [OutOfMemory] event:
# the chart marks the OOM (its glyph in the legend, ASCII too), o puts
# the cursor there and the table shows what was live then under its own
# title, the post-mortem card says the request, what the allocator held,
# what was free and why it failed; moving the cursor leaves the OOM; a
# profile without one says so; P is the pod overview now. Prints TAP.
set -u
source_dir="${MEMTOP_SRCDIR:-.}"
build_dir="${MEMTOP_BUILDDIR:-.}"
. "$source_dir/tests/lib.sh"
work=$test_work
tmux_require

trace="$work/oom.json"
"$build_dir/tests/generate_trace" --producer pytorch --oom -o "$trace" --expect "$work/expect" ||
    echo "Bail out! generate_trace failed"
# The OOM's time in ms as the viewer writes it (3 decimals), from the
# generator's own "oom DEVICE TIME_PS BYTES ALLOCATED RESERVED" line.
at=$(awk -F '\t' '$1 == "oom" { printf "%.3f", $3 / 1e9 }' "$work/expect")
[ -n "$at" ] || echo "Bail out! the generator wrote no oom line"

for size in 80x24 120x40; do
    memtop_viewer "${size%x*}" "${size#*x}" "" "$trace"
    tmux_wait_for "Memory" >/dev/null
    tmux_screen_has "$size: the chart marks the OOM, its glyph in the legend" "✕ out of memory"
    tmux_keys o
    tmux_screen_has "$size: o says where it went" \
        "^out of memory at $at ms: 80\\.00 GiB requested"
    tmux_screen_has "$size: the card: its title and the request" \
        "Out of memory · $at ms" "Requested +80\\.00 GiB"
    tmux_screen_has "$size: the card: what the allocator held and what was free" \
        "Allocated +24\\.19 MiB" "Reserved +32\\.00 MiB" "Reserved but free +7\\.81 MiB" \
        "Free on the device +unknown" "Capacity +unknown"
    tmux_screen_has "$size: the card's verdict in words" "The request \\(80\\.00 GiB\\) was larger"
    if [ "$size" = 80x24 ]; then
        # The card, the table and the spans (the trace's user
        # annotations) take turns: Shift-Tab brings the table.
        for _ in 1 2 3; do
            tmux_keys BTab
            tmux_settle
            grep -q "Live at the OOM" "$tmux_screen" && break
        done
        tmux_screen_has "$size: Shift-Tab: the table live at the OOM" \
            "Live at the OOM · cuda:0 · $at ms"
    else
        tmux_screen_has "$size: the table, titled, beside the card" \
            "Allocations live at the OOM · cuda:0 · $at ms \\(6\\)" \
            "Top holders at the OOM, by location or op" \
            "18\\.14 MiB  allocated before the profile"
    fi
    tmux_keys ,
    tmux_wait_gone "live at the OOM" >/dev/null
    tmux_wait_gone "Live at the OOM" >/dev/null
    if grep -q -i "live at the OOM" "$tmux_screen"; then
        tap_not_ok "$size: moving the cursor leaves the OOM" "$tmux_screen"
    else
        tap_ok "$size: moving the cursor leaves the OOM"
    fi
    tmux_keys o
    tmux_screen_has "$size: o again goes back to it" "out of memory at $at ms"
    memtop_quit "$size: q quits with status 0"
done

# Two OOMs on one device: o takes the last, o again wraps to the first,
# O goes back; each says which of the two it is.
two="$work/two.json"
{
    printf '[{"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":1,"args":{"Addr":16,'
    printf '"Bytes":1048576,"Total Allocated":1048576,"Total Reserved":2097152,'
    printf '"Device Type":1,"Device Id":0}},\n'
    printf '{"ph":"i","name":"[OutOfMemory]","pid":1,"tid":1,"ts":3,"args":{"Bytes":3145728,'
    printf '"Total Allocated":1048576,"Total Reserved":2097152,"Device Type":1,"Device Id":0}},\n'
    printf '{"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":5,"args":{"Addr":16,'
    printf '"Bytes":-1048576,"Total Allocated":0,"Total Reserved":2097152,'
    printf '"Device Type":1,"Device Id":0}},\n'
    printf '{"ph":"i","name":"[OutOfMemory]","pid":1,"tid":1,"ts":9,"args":{"Bytes":4194304,'
    printf '"Total Allocated":0,"Total Reserved":2097152,"Device Type":1,"Device Id":0}}]\n'
} >"$two"
memtop_viewer 120 40 "" "$two"
tmux_wait_for "Memory" >/dev/null
tmux_keys o
tmux_screen_has "two OOMs: o goes to the last" \
    "^out of memory 2 of 2 at 0\.0080* ms: 4\.00 MiB requested \(o: next, O: previous\)" \
    "Out of memory · 0\.0080* ms \(2 of 2\)"
tmux_keys o
tmux_screen_has "two OOMs: o again wraps to the first" "^out of memory 1 of 2 at 0\.0020* ms" \
    "Allocations live at the OOM · cuda:0 · 0\.0020* ms \(1\)"
tmux_keys O
tmux_screen_has "two OOMs: O goes to the previous (the last again)" \
    "^out of memory 2 of 2 at 0\.0080* ms" "Allocations live at the OOM · cuda:0 · 0\.0080* ms"
memtop_quit "two OOMs: q quits with status 0"

# The help lists o, O and P.
memtop_viewer 120 40 "" "$trace"
tmux_wait_for "Memory" >/dev/null
tmux_keys '?'
# The help opens at the focused pane's keys: Home goes up to Anywhere's.
tmux_keys Home
tmux_screen_has "help: o, O and P" "o +to the out-of-memory error" \
    "O +to the previous out-of-memory error" "P +the pod overview"
tmux_keys Escape
memtop_quit "help: q quits with status 0"

# Without colour or UTF-8 the marker is still there, as ASCII.
memtop_viewer 120 40 "" --ascii --no-color "$trace"
tmux_wait_for "Memory" >/dev/null
tmux_screen_has "--ascii --no-color: the OOM's marker and legend in ASCII" "X out of memory"
tmux_keys o
tmux_screen_has "--ascii: the titles' separator in ASCII" \
    "Allocations live at the OOM - cuda:0 - $at ms" "Out of memory - $at ms"
memtop_quit "--ascii: q quits with status 0"

# An OOM log (a BFC dump): the chart's place shows the memory map, the
# table the chunks live at the OOM, the card why the request failed.
bfc="$source_dir/tests/formats/oom_log/data/bfc_tf.txt"
for size in 80x24 120x40; do
    memtop_viewer "${size%x*}" "${size#*x}" "" "$bfc"
    tmux_wait_for "Memory map" >/dev/null
    tmux_screen_has "$size, BFC log: the memory map with its free memory" \
        "Memory map · 2\.00 GiB in 7 chunks" "free 384\.00 MiB, the largest block 256\.00 MiB"
    tmux_keys o
    tmux_screen_has "$size, BFC log: the card" "Out of memory" "Largest free block +256\.00 MiB" \
        "Capacity +2\.00 GiB" "The request \(488\.28 MiB\) was larger than all"
    memtop_quit "$size, BFC log: q quits with status 0"
done

# A profile without an OOM: o says so, and there is no card.
memtop_viewer 120 40 "" "$source_dir/data/demo.v1.pb"
tmux_wait_for "Memory" >/dev/null
tmux_keys o
tmux_screen_has "no OOM: o says there is none" "no out-of-memory error in this profile"
if grep -q "Out of memory" "$tmux_screen"; then
    tap_not_ok "no OOM: no card" "$tmux_screen"
else
    tap_ok "no OOM: no card"
fi
memtop_quit "no OOM: q quits with status 0"
tap_done
