#!/bin/sh
# The viewer on a Skyline memory report (issue 14), in tmux at 80x24 and
# 120x40: the chart says the report has no timeline, the summary card
# gives the totals by kind, the table shows kind and location, Enter shows
# an entry's whole stack, the keys of the chart and the time window do
# nothing harmful on an empty timeline, q quits with status 0. Prints TAP.
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
"$build_dir/tests/generate_skyline" --case demo -o "$work/demo.sqlite" ||
    echo "Bail out! generate_skyline failed"

# viewer COLS ROWS: the demo report in tmux (lib.sh's memtop_viewer: a
# state directory of its own, so no sort carries over between sizes).
viewer() {
    memtop_viewer "$1" "$2" "" "$work/demo.sqlite"
}

quit_cleanly() {
    tmux_keys q
    if tmux_wait_for "EXIT=" && grep -q "EXIT=0" "$tmux_screen"; then
        tap_ok "$1"
    else
        tap_not_ok "$1"
    fi
}

for size in 80x24 120x40; do
    viewer "${size%x*}" "${size#*x}"
    tap_check "$size: the chart says the report has no timeline" \
        tmux_wait_for "this report has no timeline"
    tap_check "$size: the summary card gives the totals by kind" \
        sh -c "grep -q 'weights *4.07 MiB' '$tmux_screen' &&
               grep -q 'activations *24.00 MiB' '$tmux_screen' &&
               grep -q 'untracked *5.99 MiB' '$tmux_screen'"
    # At 80 columns the location is cut in its middle, keeping its line.
    if [ "$size" = 80x24 ]; then row='gradient *…/net.py:14 *weight'
    else row='gradient *model/net.py:14 *weight'; fi
    tap_check "$size: the table lists entries with kind and location" \
        sh -c "grep -q 'Entries (19)' '$tmux_screen' &&
               grep -q 'size .*kind *location *op' '$tmux_screen' &&
               grep -q '$row' '$tmux_screen'"
    if grep -q -w -i 'region' "$tmux_screen"; then
        tap_not_ok "$size: no region column for rows that have none"
    else
        tap_ok "$size: no region column for rows that have none"
    fi
    # The first row: conv1's weight, two frames.
    tmux_keys Enter
    if tmux_wait_for "Stack        model/net.py:14" &&
        grep -q "Kind         weight" "$tmux_screen" &&
        grep -q "Location     model/net.py:14" "$tmux_screen" &&
        grep -q "│              model/net.py:9  " "$tmux_screen"; then
        tap_ok "$size: Enter shows the entry's kind, location and whole stack"
    else
        tap_not_ok "$size: Enter shows the entry's kind, location and whole stack"
    fi
    tmux_keys Escape
    # The last row, add_, has a negative size: kept, marked.
    tmux_keys G Enter
    tap_check "$size: an entry of size <= 0 says why it is not counted" \
        tmux_wait_for "(-2048 bytes); not counted: memory grew"
    tmux_keys Escape g
    # The chart's keys on a report without a timeline.
    tmux_keys Tab Tab p h l + - 0 f F Tab
    tap_check "$size: the chart's keys leave the viewer drawing" \
        tmux_wait_for "this report has no timeline"
    # s: kind and location are among the columns it steps through,
    # region (which a report has not) is not.
    tmux_keys s s s
    tap_check "$size: s sorts by kind after size and share" \
        tmux_wait_for "sorted by kind, ascending"
    tmux_keys s
    tap_check "$size: then by location" tmux_wait_for "sorted by location, ascending"
    quit_cleanly "$size: q quits with status 0"
done

tap_done
