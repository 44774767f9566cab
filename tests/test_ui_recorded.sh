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

newline='
'

# screens NAME FILE HAS LACKS: at 80x24 and 120x40, memtop on FILE shows
# a line matching each pattern of HAS and none matching one of LACKS
# (grep -E, one pattern a line; the line PEAK stands for the card's
# first row, whose label fits at 120 columns and not at 80), and q quits.
# WORD (heap unless given) is what the card calls the heap: "allocated"
# for PyTorch's caching allocator (issue 22).
screens() {
    s_name=$1 s_file=$2 s_has=$3 s_lacks=$4 s_word=${5:-heap}
    for s_size in "80 24" "120 40"; do
        s_cols=${s_size% *} s_rows=${s_size#* }
        s_label='Peak usage'
        [ "$s_cols" = 80 ] || s_label="Peak .$s_word."
        memtop_viewer "$s_cols" "$s_rows" "" "$s_file"
        s_at="$s_name, ${s_cols}x$s_rows"
        set -f
        IFS=$newline
        set -- $(printf '%s\n' "$s_has" | sed "s/^PEAK\$/^ $s_label /")
        unset IFS
        tmux_screen_has "$s_at: what the format records" "$@"
        IFS=$newline
        set -- $s_lacks
        unset IFS
        set +f
        screen_lacks "$s_at: nothing it cannot know" "$@"
        memtop_quit "$s_at: q quits with status 0"
    done
}

# A PyTorch trace: no version, no stack, no region, data type or shape;
# PyTorch's words for its caching allocator (memtop's own export of one
# records no allocator kind: XProf's words).
pytorch_has='( chrome-trace(\.gz)?| torch-mlp\.pt\.trace\.json\.gz) +allocator 
PEAK
█ allocated
size .* op( |$)'
pytorch_lacks='chrome-trace(\.gz)? v[0-9]
stack\+heap
▒ stack
At peak by
size .*(region|type|shape)( |$)
persist/dynamic
INVALID
█ heap'
exported_has=$(printf '%s\n' "$pytorch_has" | sed 's/^█ allocated$/█ heap/')
exported_lacks=$(printf '%s\n' "$pytorch_lacks" | sed '/^█ heap$/d')

torch="$source_dir/data/real/torch-mlp.pt.trace.json.gz"
if [ -f "$torch" ]; then
    screens "torch-mlp.pt.trace.json.gz" "$torch" "$pytorch_has" "$pytorch_lacks" allocated
else
    for i in 1 2 3 4 5 6; do tap_skip "no $torch"; done
fi
"$build_dir/tests/generate_trace" --producer pytorch --devices 2 -o "$work/torch.json" ||
    echo "Bail out! generate_trace failed"
screens "a generated PyTorch trace" "$work/torch.json" "$pytorch_has" "$pytorch_lacks" allocated
"$memtop" --export chrome-trace -o "$work/exported.json" "$work/torch.json" ||
    echo "Bail out! --export chrome-trace failed"
screens "memtop's export of a PyTorch trace" "$work/exported.json" "$exported_has" \
    "$exported_lacks"

# timeline.py: regions and types it records, the stack it does not.
"$build_dir/tests/generate_trace" --producer timeline -o "$work/timeline.json" ||
    echo "Bail out! generate_trace failed"
screens "timeline.py" "$work/timeline.json" ' chrome-trace +allocator 
PEAK
█ heap' 'chrome-trace v[0-9]
stack\+heap
▒ stack'

# Skyline: kinds and locations; no stack, regions or types; no timeline,
# so no chart (the table has its rows).
"$build_dir/tests/generate_skyline" --case demo -o "$work/report.sqlite" ||
    echo "Bail out! generate_skyline failed"
screens "Skyline" "$work/report.sqlite" 'Entries \(19\)
size +(share +)?kind +location +op' 'Memory
stack\+heap
▒ stack
At peak by
size .*(region|type|shape)( |$)'

# ---- MemoryProfile: everything it records is still there ----
# At 120 columns the table gives the room to size, total, share, shape
# and the op name (issue 15); region and type show where there is more.
memtop_viewer 200 60 "" "$source_dir/data/demo.v0.pb.gz"
tmux_screen_has "MemoryProfile, 200x60: version, stack, breakdowns and region columns" \
    ' pb\.gz v0 +allocator ' '^ Peak \(stack\+heap\) ' '█ heap +▒ stack' \
    '^─ At peak by region ' '^─ At peak by type ' 'size .*region +type +shape +op'
memtop_quit "MemoryProfile, 200x60: q quits with status 0"

# ---- XSpace: XProf's peak step, when the peak's time is in another ----
# Seed 3's steps all reach the same peak (--ties yes): XProf's peak step
# is the last of them, the peak's time in an earlier one.
"$build_dir/tests/generate_xspace" --seed 3 -o "$work/ties.xplane.pb" \
    --expect "$work/ties.expect" || echo "Bail out! generate_xspace failed"
step=$(sed -n 's/^peak_step //p' "$work/ties.expect" | head -n 1)
memtop_viewer 120 40 "" "$work/ties.xplane.pb"
# The table at the peak is what was live then (issue 22); X shows XProf's
# own table, whose title names its step.
tmux_screen_has "XSpace with ties, 120x40: the live set at the peak first" \
    'Allocations live at peak \([0-9]+\) '
tmux_keys X
# The title keeps the rows' total against the peak at any width (issue
# 15): where the long name does not fit beside it, the short one names
# both steps.
tmux_screen_has "XSpace with ties, 120x40: the title names XProf's step ($step)" \
    "(Allocations at peak \\(XProf's step $step; peak in step [0-9]+\\)|At peak \\(step $step; peak in [0-9]+\\)) \\(.* of "
time_step=$(sed -n "s/.*step $step; peak in \\(step \\)\\{0,1\\}\\([0-9]*\\)).*/\\2/p" "$tmux_screen")
if [ -n "$time_step" ] && [ "$time_step" != "$step" ]; then
    tap_ok "XSpace with ties: the peak's own step ($time_step) is another"
else
    tap_not_ok "XSpace with ties: the peak's own step (${time_step:-none}) is another"
fi
memtop_quit "XSpace with ties, 120x40: q quits with status 0"
memtop_viewer 80 24 "" "$work/ties.xplane.pb"
tmux_keys X
tmux_screen_has "XSpace with ties, 80x24: the short title names both steps" \
    "─ At peak \\(step $step; peak in $time_step\\) "
memtop_quit "XSpace with ties, 80x24: q quits with status 0"
"$build_dir/tests/generate_xspace" --seed 3 --ties no -o "$work/no-ties.xplane.pb" ||
    echo "Bail out! generate_xspace failed"
memtop_viewer 120 40 "" "$work/no-ties.xplane.pb"
tmux_screen_has "XSpace without ties, 120x40: the usual title" 'Allocations live at peak \([0-9]+\) '
screen_lacks "XSpace without ties: no step in the title" "XProf's step"
tmux_keys X
tmux_screen_has "XSpace without ties, X: XProf's table, no step in its title" \
    "Allocations at peak, XProf's table \\([0-9]+\\) "
screen_lacks "XSpace without ties, X: still no step in the title" "XProf's step"
memtop_quit "XSpace without ties, 120x40: q quits with status 0"

tap_done
