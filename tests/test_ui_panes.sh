#!/bin/sh
# The help, pane zoom and remembered settings as a person meets them
# (issue 15), at 80x24, 120x40 and 200x60: help lines wrap instead of
# being cut and the summary's fields are explained; z zooms the focused
# pane to the whole screen and back; what a person chose (sort, toggles,
# zoom) is there again next time, unless --no-settings. Prints TAP.
set -u
source_dir="${MEMTOP_SRCDIR:-.}"
. "$source_dir/tests/lib.sh"
demo_v1="$source_dir/data/demo.v1.pb"

tmux_require

# help_text: the text inside the help's box on the screen (between the
# last two │ of each line), its lines joined with single spaces (a
# wrapped sentence reads whole again).
help_text() {
    tmux_capture
    LC_ALL=C.UTF-8 sed -n 's/^.*│\([^│]*\)│[^│]*$/\1/p' "$tmux_screen" | tr '\n' ' ' | tr -s ' '
}

# text_says NAME PATTERN...: ok when $text matches every (grep) pattern.
text_says() {
    name=$1
    shift
    for pattern in "$@"; do
        if ! printf '%s' "$text" | grep -q -e "$pattern"; then
            printf '# lacks: %s\n# text: %s\n' "$pattern" "$text" >"$test_work/why"
            tap_not_ok "$name" "$test_work/why" "$tmux_screen"
            return
        fi
    done
    tap_ok "$name"
}

# ---- help: wrapped, with the summary's fields explained ----
for size in "80 24" "120 40" "200 60"; do
    set -- $size
    memtop_viewer "$1" "$2" "" "$demo_v1"
    tmux_wait_for "allocator GPU_0_bfc (1/3)" >/dev/null
    tmux_keys '?'
    tmux_wait_for "memtop keys" >/dev/null
    # No line of the box is cut: none ends in "…".
    if help_text | grep -q '…'; then box_cut=yes; else box_cut=no; fi
    tmux_keys G
    tmux_wait_for "The summary" >/dev/null
    text=$(help_text)
    [ "$box_cut" = no ] || text="(cut lines)"
    text_says "$1x$2: the help wraps its lines and explains fragmentation and the lifetime peak" \
        'fragmentation .*1 - (largest free block / free memory)' \
        'Lifetime peak heap .*before the profiling window began'
    # The summary's first fields: on this page, or the one before it.
    tmux_keys PPage
    tmux_wait_gone "derived      in the title" >/dev/null
    text="$text $(help_text)"
    text_says "$1x$2: ... and says the peak is stack + heap within the profiling window" \
        'stack reservation plus the heap allocations' 'within the profiling window'
    tmux_keys Escape
    tmux_wait_gone "memtop keys" >/dev/null
    memtop_quit "$1x$2 (help): q quits with status 0"
done

# ---- z: the focused pane over the whole screen, and back ----
for size in "80 24" "120 40" "200 60"; do
    set -- $size
    memtop_viewer "$1" "$2" "" "$demo_v1"
    tmux_wait_for "allocator GPU_0_bfc (1/3)" >/dev/null
    tmux_keys z
    tmux_wait_for "allocations zoomed to the whole screen" >/dev/null
    if sed -n 2p "$tmux_screen" | grep -q '^─ Allocations at peak' &&
        ! grep -q 'Allocators' "$tmux_screen" && ! grep -q 'Memory' "$tmux_screen"; then
        tap_ok "$1x$2: z zooms the focused table to the whole screen"
    else
        tap_not_ok "$1x$2: z zooms the focused table to the whole screen"
    fi
    tmux_keys BTab
    if tmux_wait_for "Memory" && sed -n 2p "$tmux_screen" | grep -q '^─ Memory' &&
        ! grep -q 'Allocations at peak' "$tmux_screen"; then
        tap_ok "$1x$2: Shift-Tab moves the zoom to the chart"
    else
        tap_not_ok "$1x$2: Shift-Tab moves the zoom to the chart"
    fi
    tmux_keys z
    if tmux_wait_for "chart back in its place" && grep -q 'Allocators' "$tmux_screen" &&
        grep -E -q 'At peak \(|Allocations at peak' "$tmux_screen"; then
        tap_ok "$1x$2: z again gives every pane its place back"
    else
        tap_not_ok "$1x$2: z again gives every pane its place back"
    fi
    memtop_quit "$1x$2 (zoom): q quits with status 0"
done

# ---- settings: remembered between runs, ignored with --no-settings ----
state="$test_work/state-kept"
settings="$state/memtop/settings"
memtop_viewer 80 24 "XDG_STATE_HOME='$state'" "$demo_v1"
tmux_wait_for "allocator GPU_0_bfc (1/3)" >/dev/null
tmux_keys s s f a z
tmux_wait_for "allocations zoomed" >/dev/null
memtop_quit "settings: q quits with status 0 after s s f a z"
if [ -f "$settings" ] && grep -qx 'table.sort=requested_bytes' "$settings" &&
    grep -qx 'chart.free=yes' "$settings" && grep -qx 'chart.auto_axis=yes' "$settings" &&
    grep -qx 'viewer.zoomed_pane=allocations' "$settings"; then
    tap_ok "settings: written to \$XDG_STATE_HOME/memtop/settings on quit"
else
    tap_not_ok "settings: written to \$XDG_STATE_HOME/memtop/settings on quit" "$settings"
fi
for size in "80 24" "120 40" "200 60"; do
    set -- $size
    memtop_viewer "$1" "$2" "XDG_STATE_HOME='$state'" "$demo_v1"
    tmux_wait_for "allocator GPU_0_bfc (1/3)" >/dev/null
    if tmux_wait_for "requested▼" && sed -n 2p "$tmux_screen" | grep -q '^─ Allocations at peak'; then
        tap_ok "$1x$2: the next run has the sort and the zoomed table again"
    else
        tap_not_ok "$1x$2: the next run has the sort and the zoomed table again"
    fi
    tmux_keys z
    tap_check "$1x$2: ... and the chart's free memory" tmux_wait_for "░ free"
    tmux_keys z
    memtop_quit "$1x$2 (settings): q quits with status 0"
done
memtop_viewer 80 24 "XDG_STATE_HOME='$state'" --no-settings "$demo_v1"
tmux_wait_for "allocator GPU_0_bfc (1/3)" >/dev/null
if tmux_wait_for "Allocators" && ! grep -q "requested▼" "$tmux_screen"; then
    tap_ok "--no-settings: the remembered ones are not read"
else
    tap_not_ok "--no-settings: the remembered ones are not read"
fi
cp "$settings" "$test_work/before"
tmux_keys s
memtop_quit "--no-settings: q quits with status 0"
tap_check "--no-settings: ... nor written" cmp -s "$settings" "$test_work/before"

# Garbage in the file: what is not a setting is passed over.
printf 'garbage\n\033[2J=x\nchart.free=perhaps\ntable.sort=no_such_column\n%s\n' \
    'chart.fragmentation=yes' >"$settings"
head -c 100000 /dev/urandom >>"$settings"
memtop_viewer 80 24 "XDG_STATE_HOME='$state'" "$demo_v1"
if tmux_wait_for "allocator GPU_0_bfc (1/3)" && tmux_wait_for "Memory +frag" &&
    ! grep -q "+free" "$tmux_screen"; then
    tap_ok "a settings file with garbage: the good lines count, the rest is passed over"
else
    tap_not_ok "a settings file with garbage: the good lines count, the rest is passed over"
fi
memtop_quit "garbage settings: q quits with status 0"

# A FIFO as the settings file: never opened to wait for a writer, never
# written into; the viewer draws, says so on the status line, and quits.
fifo_state="$test_work/state-fifo"
mkdir -p "$fifo_state/memtop"
mkfifo "$fifo_state/memtop/settings"
memtop_viewer 80 24 "XDG_STATE_HOME='$fifo_state'" "$demo_v1"
if tmux_wait_for "allocator GPU_0_bfc (1/3)" && tmux_wait_for "settings: not a regular file, ignored: "; then
    tap_ok "a FIFO as the settings file: the viewer draws and warns on the status line"
else
    tap_not_ok "a FIFO as the settings file: the viewer draws and warns on the status line"
fi
memtop_quit "FIFO settings: q quits with status 0"
tap_check "FIFO settings: ... and it is still a FIFO" test -p "$fifo_state/memtop/settings"

tap_done
