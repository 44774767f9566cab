#!/bin/sh
# The viewer on two profiles (memtop --compare BASE NEW, issue 13) at
# 80x24 and 120x40: both timelines on one chart with a legend that names
# them (glyphs, so without colour too), the summaries side by side with
# signed deltas and arrows, the op table largest |delta| first, ] and [
# walking the allocators matched by memory id (one in a single profile
# says so), s sorting, e exporting what --export compare writes. What
# the screen must show comes from the batch forms. Prints TAP.
set -u
source_dir="${MEMTOP_SRCDIR:-.}"
build_dir="${MEMTOP_BUILDDIR:-.}"
. "$source_dir/tests/lib.sh"
work=$test_work

tmux_require

# BASE: 2 allocators (GPU_0_bfc, cpu); NEW: 3 (GPU_0_bfc, GPU_1_bfc, cpu).
base="$work/base.pb"
new="$work/new.pb"
"$build_dir/tests/generate_profile" --format pb --snapshots 400 --seed 1 --allocators 2 >"$base"
"$build_dir/tests/generate_profile" --format pb --snapshots 500 --seed 2 --allocators 3 >"$new"
"$memtop" --export compare "$base" "$new" >"$work/ops.csv"
"$memtop" --summary --compare "$base" "$new" >"$work/summary.txt"

# The GPU_0_bfc block's counts, as the text report has them: "208 258 +50".
allocations=$(awk '/^GPU_0_bfc$/ { on = 1 } on && $1 == "Allocations" { print $2, $3, $4; exit }' \
    "$work/summary.txt")
set -- $allocations
base_allocations=$1 new_allocations=$2 allocations_delta=${3#+}
# The op names in the CSV's order (generated names hold no comma).
ops_in_order=$(awk -F, 'NR > 1 { print $1 }' "$work/ops.csv")
first_op=$(echo "$ops_in_order" | sed -n 1p)

# screen_matches PATTERN...: the screen has a line matching each (grep -E).
screen_matches() {
    for pattern in "$@"; do
        LC_ALL=C.UTF-8 grep -E -q -e "$pattern" "$tmux_screen" || return 1
    done
}

# screen_has NAME PATTERN...: ok as soon as the screen has a line
# matching each (grep -E) pattern, polling as tmux_wait_for does (keys
# sent just before may still be on their way); else not ok, saying which.
screen_has() {
    name=$1
    shift
    tries=0
    while [ "$tries" -lt 100 ]; do
        tmux_capture
        if screen_matches "$@"; then
            tap_ok "$name"
            return
        fi
        sleep 0.1
        tries=$((tries + 1))
    done
    for pattern in "$@"; do
        LC_ALL=C.UTF-8 grep -E -q -e "$pattern" "$tmux_screen" || echo "# lacks: $pattern"
    done >"$work/why"
    cat "$tmux_screen" >>"$work/why"
    tap_not_ok "$name" "$work/why"
}

for size in "80 24" "120 40"; do
    set -- $size
    cols=$1 rows=$2
    memtop_viewer "$cols" "$rows" "" --compare "$base" "$new"
    if tmux_wait_for "allocator GPU_0_bfc (1/3)"; then
        tap_ok "${cols}x$rows: opens on the first allocator of the three matched"
    else
        tap_not_ok "${cols}x$rows: opens on the first allocator of the three matched"
    fi
    screen_has "${cols}x$rows: both timelines on one chart, named in its title and legend" \
        "Memory: new vs base" "━ base  █ new heap  ▒ new stack" "━.*█|█.*━"
    screen_has "${cols}x$rows: the readout has both at the cursor" "in use [0-9.]+ [KMG]iB  base [0-9.]+ [KMG]iB"
    screen_has "${cols}x$rows: the summaries side by side, deltas signed with an arrow" \
        "Summaries" "base +new +delta" \
        "^ Peak +[0-9.]+[KMG] +[0-9.]+[KMG] +▲\+[0-9.]+[KMG] " \
        "^ Allocs +$base_allocations +$new_allocations +▲\+$allocations_delta " \
        "^ Stack +[0-9.]+[KMG] +[0-9.]+[KMG] +=0B "
    screen_has "${cols}x$rows: the allocators matched by id, with their peak's delta" \
        "^▸ GPU_0_bfc +▲\+[0-9.]+G│" "^  GPU_1_bfc +new only│" "^  cpu +[▲▼][-+][0-9.]+[KM]│"
    screen_has "${cols}x$rows: the op table, largest |delta| first" \
        "Live at each peak, by op \($(($(wc -l <"$work/ops.csv") - 1))\)" "Delta▼" \
        "│ .* ${first_op%"${first_op#????????????????}"}"
    memtop_quit "${cols}x$rows: q quits with status 0"
done

# ---- 120x40: the whole op table, in the CSV's order ----
memtop_viewer 120 40 "" --compare "$base" "$new"
tmux_wait_for "allocator GPU_0_bfc (1/3)" >/dev/null
tmux_capture
# The op names as the table lists them (after the column headings).
LC_ALL=C.UTF-8 sed -n '/Op name/,$p' "$tmux_screen" | sed 1d |
    LC_ALL=C.UTF-8 sed -n 's/^.*│ .*[0-9]  \([^ ][^│]*[^ ]\) *$/\1/p' >"$work/shown"
if [ "$(cat "$work/shown")" = "$ops_in_order" ]; then
    tap_ok "120x40: every op, in --export compare's order (|delta|, then name)"
else
    { echo "# shown:"; cat "$work/shown"; echo "# csv:"; echo "$ops_in_order"; } >"$work/why"
    tap_not_ok "120x40: every op, in --export compare's order (|delta|, then name)" "$work/why"
fi
screen_has "120x40: all six columns at this width" "Base +New +Delta▼ +#base +#new +Op name"

# ---- ] and [ walk the pairs ----
tmux_keys ']'
tmux_wait_for "allocator cpu (2/3)" >/dev/null
screen_has "]: the next pair (cpu), in the list, the chart and the header" \
    "^▸ cpu " "Memory: new vs base" "allocator cpu \(2/3\)"
tmux_keys ']'
tmux_wait_for "allocator GPU_1_bfc (3/3)" >/dev/null
screen_has "]: an allocator only NEW has says so, in the chart and the summary" \
    "^▸ GPU_1_bfc +new only" "Memory: new only" "only in new" "^ Peak +- +[0-9.]+ ?[KMG](iB)? +- "
tmux_keys ']'
tmux_wait_for "allocator GPU_0_bfc (1/3)" >/dev/null
screen_has "]: past the last, the first again" "allocator GPU_0_bfc \(1/3\)"
tmux_keys '['
tmux_wait_for "allocator GPU_1_bfc (3/3)" >/dev/null
screen_has "[: back to the last" "allocator GPU_1_bfc \(3/3\)"
tmux_keys '['
tmux_keys '['
tmux_wait_for "allocator GPU_0_bfc (1/3)" >/dev/null

# ---- s sorts, e exports what --export compare writes ----
tmux_keys s
screen_has "s: by new bytes, largest first" "ops by new bytes, largest first" "New▼"
tmux_keys s s s
screen_has "s three times more: back to |delta|" "Delta▼"
tmux_keys e
tmux_wait_for "export compare to: memtop-GPU_0_bfc-compare.csv" >/dev/null
tmux_keys C-u
tmux_text "$work/exported.csv"
tmux_keys Enter
if tmux_wait_for "wrote $(($(wc -l <"$work/ops.csv") - 1)) rows to" &&
    cmp -s "$work/exported.csv" "$work/ops.csv"; then
    tap_ok "e: the op table to CSV, byte for byte what --export compare writes"
else
    tap_not_ok "e: the op table to CSV, byte for byte what --export compare writes"
fi
tmux_keys Tab
tmux_keys e
screen_has "e from the allocators list: the op table too" "export compare to:"
tmux_keys Escape
tmux_keys Tab
tmux_keys e
screen_has "e from the chart: its window of NEW's timeline" "export timeline to: memtop-GPU_0_bfc-timeline.csv"
tmux_keys Escape
tmux_keys P
screen_has "P: no pod overview when comparing" "no pod overview: two profiles are compared"
memtop_quit "q quits with status 0 after all that"

# ---- without colour or UTF-8: the glyphs and arrows still tell ----
memtop_viewer 80 24 "LANG=C LC_ALL=C NO_COLOR=1" --compare "$new" "$base"
tmux_wait_for "allocator GPU_0_bfc (1/3)" >/dev/null
screen_has "ASCII, no colour: the legend names the line and the bars by glyph" \
    "o base  # new heap  % new stack" "Memory: new vs base"
screen_has "ASCII, no colour: a shrinking delta is v-, a growing one ^+" \
    "^ Peak +[0-9.]+G +[0-9.]+G +v-[0-9.]+G " "^  GPU_1_bfc +base only\|" "^  cpu +\^\+"
memtop_quit "ASCII: q quits with status 0"

# ---- remembered settings: the chart's are shared, the zoom is not ----
state="XDG_STATE_HOME=$work/state"
memtop_viewer 80 24 "$state" "$base"
tmux_wait_for "allocator GPU_0_bfc (1/2)" >/dev/null
tmux_keys f
tmux_wait_for "+free" >/dev/null
memtop_quit "the usual viewer: f shows free memory, q saves it"
memtop_viewer 80 24 "$state" --compare "$base" "$new"
tmux_wait_for "allocator GPU_0_bfc (1/3)" >/dev/null
screen_has "--compare: the chart remembers free memory shown" "Memory: new vs base \+free"
tmux_keys z
tmux_wait_for "zoomed to the whole screen" >/dev/null
memtop_quit "--compare: the op table zoomed, q"
memtop_viewer 80 24 "$state" "$base"
tmux_wait_for "allocator GPU_0_bfc (1/2)" >/dev/null
screen_has "the usual viewer again: free memory still shown, nothing zoomed" \
    "Memory \+free" "Allocators"
memtop_quit "the usual viewer: q"

tap_done
