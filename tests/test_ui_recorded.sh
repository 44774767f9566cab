#!/bin/sh
# The viewer shows what a format records and hides what it cannot know
# (issue 12), in tmux at 80x24 and 120x40: on PyTorch traces (the real
# capture, a generated one, and memtop's own chrome-trace export of it)
# no version in the header, no stack in the card's label or the chart's
# legend, no breakdown by region or type, no Region/Type/Shape columns;
# on a timeline.py trace no version and no stack; on a Skyline report no
# stack, breakdowns or region columns; on a MemoryProfile all of them
# still there. And on an XSpace whose steps all reach the peak (issue
# 11), the table's title names XProf's peak step and the peak's own.
# Prints TAP.
set -u
source_dir="${MEMTOP_SRCDIR:-.}"
build_dir="${MEMTOP_BUILDDIR:-.}"
. "$source_dir/tests/lib.sh"
work=$test_work

tmux_require

# screen_lacks NAME PATTERN...: ok when the screen, a whole frame read by
# the tmux_screen_has before it, has no line matching any (grep -E)
# pattern; else not ok with the first it has and the screen.
screen_lacks() {
    name=$1
    shift
    for pattern in "$@"; do
        if grep -E -q -e "$pattern" "$tmux_screen"; then
            echo "# the screen has: $pattern" >"$work/why"
            tap_not_ok "$name" "$work/why" "$tmux_screen"
            return 0
        fi
    done
    tap_ok "$name"
}

# The card's first row: its label fits at 120 columns, not at 80.
peak_label() {
    if [ "$1" = 80 ]; then echo 'Peak usage'; else echo 'Peak \(heap\)'; fi
}

# pytorch_screens NAME FILE: what a PyTorch trace cannot know is not shown.
pytorch_screens() {
    for size in "80 24" "120 40"; do
        set -- $size "$1" "$2"
        memtop_viewer "$1" "$2" "" "$4"
        tmux_screen_has "$3, $1x$2: the format without a version, the heap alone" \
            ' chrome-trace(\.gz)? +allocator ' "^ $(peak_label "$1") " '█ heap' \
            'Size .*Op name'
        screen_lacks "$3, $1x$2: no version, stack, breakdowns or region columns" \
            'chrome-trace(\.gz)? v[0-9]' 'stack\+heap' '▒ stack' 'At peak by' \
            'Size .*(Region|Type|Shape)' 'persist/dynamic' 'INVALID'
        memtop_quit "$3, $1x$2: q quits with status 0"
        shift 2
    done
}

torch="$source_dir/data/real/torch-mlp.pt.trace.json.gz"
if [ -f "$torch" ]; then
    pytorch_screens "torch-mlp.pt.trace.json.gz" "$torch"
else
    for i in 1 2 3 4; do tap_skip "no $torch"; done
fi
"$build_dir/tests/generate_trace" --producer pytorch --devices 2 -o "$work/torch.json" ||
    echo "Bail out! generate_trace failed"
pytorch_screens "a generated PyTorch trace" "$work/torch.json"
"$memtop" --export chrome-trace -o "$work/exported.json" "$work/torch.json" ||
    echo "Bail out! --export chrome-trace failed"
pytorch_screens "memtop's export of a PyTorch trace" "$work/exported.json"

# ---- timeline.py: regions and types it records, the stack it does not ----
"$build_dir/tests/generate_trace" --producer timeline -o "$work/timeline.json" ||
    echo "Bail out! generate_trace failed"
for size in "80 24" "120 40"; do
    set -- $size
    memtop_viewer "$1" "$2" "" "$work/timeline.json"
    tmux_screen_has "timeline.py, $1x$2: the format without a version, the heap alone" \
        ' chrome-trace +allocator ' "^ $(peak_label "$1") " '█ heap'
    screen_lacks "timeline.py, $1x$2: no version, no stack" \
        'chrome-trace v[0-9]' 'stack\+heap' '▒ stack'
    memtop_quit "timeline.py, $1x$2: q quits with status 0"
done

# ---- Skyline: kinds and locations, no stack, regions or types ----
"$build_dir/tests/generate_skyline" --case demo -o "$work/report.sqlite" ||
    echo "Bail out! generate_skyline failed"
for size in "80 24" "120 40"; do
    set -- $size
    memtop_viewer "$1" "$2" "" "$work/report.sqlite"
    tmux_screen_has "Skyline, $1x$2: the report's card and table" \
        'this report has no timeline' 'Size +Kind +Location +Op name'
    screen_lacks "Skyline, $1x$2: no stack, breakdowns or region columns" \
        'stack\+heap' '▒ stack' 'At peak by' 'Size .*(Region|Type|Shape)'
    memtop_quit "Skyline, $1x$2: q quits with status 0"
done

# ---- MemoryProfile: everything it records is still there ----
memtop_viewer 120 40 "" "$source_dir/data/demo.v0.pb.gz"
tmux_screen_has "MemoryProfile, 120x40: version, stack, breakdowns and region columns" \
    ' pb\.gz v0 +allocator ' '^ Peak \(stack\+heap\) ' '█ heap +▒ stack' \
    '^─ At peak by region ' '^─ At peak by type ' 'Size .*Region +Type +Shape +Op name'
memtop_quit "MemoryProfile, 120x40: q quits with status 0"

# ---- XSpace: XProf's peak step, when the peak's time is in another ----
# Seed 3's steps all reach the same peak (--ties yes): XProf's peak step
# is the last of them, the peak's time in an earlier one.
"$build_dir/tests/generate_xspace" --seed 3 -o "$work/ties.xplane.pb" \
    --expect "$work/ties.expect" || echo "Bail out! generate_xspace failed"
step=$(sed -n 's/^peak_step //p' "$work/ties.expect" | head -n 1)
memtop_viewer 120 40 "" "$work/ties.xplane.pb"
tmux_screen_has "XSpace with ties, 120x40: the title names XProf's step ($step)" \
    "Allocations at peak \\(XProf's step $step; peak in step [0-9]+\\) \\("
time_step=$(sed -n "s/.*XProf's step $step; peak in step \\([0-9]*\\)).*/\\1/p" "$tmux_screen")
if [ -n "$time_step" ] && [ "$time_step" != "$step" ]; then
    tap_ok "XSpace with ties: the peak's own step ($time_step) is another"
else
    tap_not_ok "XSpace with ties: the peak's own step (${time_step:-none}) is another"
fi
memtop_quit "XSpace with ties, 120x40: q quits with status 0"
memtop_viewer 80 24 "" "$work/ties.xplane.pb"
tmux_screen_has "XSpace with ties, 80x24: the short title names both steps" \
    "─ At peak \\(step $step; peak in $time_step\\) \\([0-9]+\\) ─"
memtop_quit "XSpace with ties, 80x24: q quits with status 0"
"$build_dir/tests/generate_xspace" --seed 3 --ties no -o "$work/no-ties.xplane.pb" ||
    echo "Bail out! generate_xspace failed"
memtop_viewer 120 40 "" "$work/no-ties.xplane.pb"
tmux_screen_has "XSpace without ties, 120x40: the usual title" 'Allocations at peak \([0-9]+\) '
screen_lacks "XSpace without ties: no step in the title" "XProf's step"
memtop_quit "XSpace without ties, 120x40: q quits with status 0"

tap_done
