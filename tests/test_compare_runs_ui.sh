#!/bin/sh
# The viewer on two runs of one log directory (memtop --compare --run A
# --run B LOGDIR, issue 25 point 5) at 120x40: the header names the host
# shown and both runs, the status line says how the hosts matched (and
# names those in one run only), } and { step through the hosts in both
# runs (a host the same in both shows every delta =0), and --pair pairs
# allocators of different names in the allocators list. Prints TAP.
set -u
source_dir="${MEMTOP_SRCDIR:-.}"
build_dir="${MEMTOP_BUILDDIR:-.}"
. "$source_dir/tests/lib.sh"
work=$test_work

tmux_require

# w-0 changed between the runs (seeds 1 and 2), w-1 the same file in
# both (seed 3), w-2 only in the older run, w-3 only in the newer.
logs="$work/logs"
base_run="$logs/plugins/profile/2026_11_20_10_00_00"
new_run="$logs/plugins/profile/2026_11_21_10_00_00"
generated_profile "$base_run/w-0.memory_profile.json.gz" 1
generated_profile "$base_run/w-1.memory_profile.json.gz" 3
generated_profile "$base_run/w-2.memory_profile.json.gz" 4
generated_profile "$new_run/w-0.memory_profile.json.gz" 2
cp "$base_run/w-1.memory_profile.json.gz" "$new_run/w-1.memory_profile.json.gz"
generated_profile "$new_run/w-3.memory_profile.json.gz" 5

# w-0's GPU_0_bfc peak delta as the text report gives it ("+1.14 MiB").
"$memtop" --summary --compare --host w-0 --run 2026_11_20 --run 2026_11_21 "$logs" \
    >"$work/summary.txt"
delta=$(awk '/^GPU_0_bfc$/ { on = 1 } on && /Peak memory usage/ { print $(NF - 1), $NF; exit }' \
    "$work/summary.txt")
# The pairs list draws it with an arrow: ▲+1.14M, ▼-26.1M.
case $delta in
-*) arrow='▼-' ;;
*) arrow='▲\+' ;;
esac

# screen_has NAME PATTERN...: the screen has a line matching each
# (grep -E), polling while keys may still be on their way.
screen_has() {
    LC_ALL=C.UTF-8 tmux_screen_has "$@"
}

memtop_viewer 120 40 "" --compare --run 2026_11_20 --run 2026_11_21 "$logs"
if tmux_wait_for "host w-0 (1/2)"; then
    tap_ok "120x40: opens on the first host in both runs"
else
    tap_not_ok "120x40: opens on the first host in both runs" "$tmux_screen"
fi
screen_has "  ... the header names the host and both runs" \
    "^ memtop  host w-0 \(1/2\) 2026_11_20_10_00_00 vs 2026_11_21_10_00_00  allocator GPU_0_bfc \(1/2\)"
screen_has "  ... the status line: how the hosts matched, those in one run only named" \
    "^2 hosts in both runs \(\{ \} step through them\); only in base: w-2; only in new: w-3 *$"
screen_has "  ... w-0's GPU_0_bfc with its peak's delta ($delta)" \
    "^▸ GPU_0_bfc +$arrow[0-9.]+[KMG]│" "Memory: new vs base" "Live at each peak, by op"

tmux_keys '}'
tmux_wait_for "host w-1 (2/2)" >/dev/null
screen_has "}: the next host (w-1), the same file in both runs: every delta =0" \
    "^ memtop  host w-1 \(2/2\) " "^▸ GPU_0_bfc +=0B│" "^  cpu +=0B│" "^ Peak .* =0 B"
# The left column (the pairs and the summaries) has no arrow of change.
if ! grep -q "host w-1 (2/2)" "$tmux_screen" ||
    LC_ALL=C.UTF-8 sed 's/[│┼├┤].*//' "$tmux_screen" | grep -q "▲\|▼"; then
    tap_not_ok "  ... no delta arrow in w-1's pairs and summaries" "$tmux_screen"
else
    tap_ok "  ... no delta arrow in w-1's pairs and summaries"
fi
tmux_keys '}'
tmux_wait_for "host w-0 (1/2)" >/dev/null
screen_has "}: past the last host, the first again" "^ memtop  host w-0 \(1/2\) " \
    "^▸ GPU_0_bfc +$arrow"
tmux_keys '{'
tmux_wait_for "host w-1 (2/2)" >/dev/null
screen_has "{: back to the last host" "^ memtop  host w-1 \(2/2\) "
tmux_keys ']'
screen_has "]: the allocators of the host shown" "allocator cpu \(2/2\)" "^▸ cpu "
memtop_quit "q quits with status 0"

# ---- --pair in the viewer ----
"$build_dir/tests/generate_profile" --format json --snapshots 600 --seed 1 --allocators 2 \
    >"$work/base.json"
"$build_dir/tests/generate_profile" --format json --snapshots 600 --seed 2 --allocators 2 |
    sed 's/GPU_0_bfc/cuda:0/g' >"$work/port.json"
memtop_viewer 120 40 "" --compare --pair GPU_0_bfc=cuda:0 "$work/base.json" "$work/port.json"
tmux_wait_for "allocator GPU_0_bfc" >/dev/null
screen_has "--pair GPU_0_bfc=cuda:0: one pair named by both, its delta, two pairs in all" \
    "^▸ GPU_0_bfc=cuda:0 +$arrow[0-9.]+[KMG]│" "allocator GPU_0_bfc \(1/2\)"
if ! grep -q "GPU_0_bfc=cuda:0" "$tmux_screen" || grep -q "only" "$tmux_screen"; then
    tap_not_ok "  ... no allocator in one profile only" "$tmux_screen"
else
    tap_ok "  ... no allocator in one profile only"
fi
memtop_quit "--pair: q quits with status 0"

# Files are not runs: { says what it is for.
memtop_viewer 120 40 "" --compare "$work/base.json" "$work/port.json"
tmux_wait_for "allocator GPU_0_bfc" >/dev/null
tmux_keys '}'
screen_has "two files: } says it steps through the hosts of two runs" \
    "\{ \} step through the hosts of two runs compared"
tmux_keys q

tap_done
