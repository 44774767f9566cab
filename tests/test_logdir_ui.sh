#!/bin/sh
# The memtop_viewer on a log directory, as a person sees it in tmux at 80x24 and
# 120x40: the runs list, hosts loading in the background (held by the
# loader's test gate, MEMTOP_TEST_LOAD_GATE, so that every state is seen
# whatever the machine's speed), each host's peak and capacity share, the
# allocator kept from host to host, the pod overview, Enter on a run.
# The log directory is built here from generated MemoryProfile files.
# Prints TAP.
set -u
source_dir="${MEMTOP_SRCDIR:-.}"
. "$source_dir/tests/lib.sh"
memtop="${MEMTOP_BUILDDIR:-.}/memtop"
work=$test_work

tmux_require

# check NAME TEXT...: ok when the screen comes to hold every TEXT.
check() {
    name=$1
    shift
    for text in "$@"; do
        if ! tmux_wait_for "$text"; then
            echo "# the screen lacks: $text" >>"$tmux_screen"
            tap_not_ok "$name"
            return
        fi
    done
    tap_ok "$name"
}

logs="$work/logs"
newest="$logs/train/plugins/profile/2026_11_23_06_39_19"
generated_profile "$newest/10.0.0.2_8466.memory_profile.json.gz" 1 3
generated_profile "$newest/BlueDiamond.local.memory_profile.json.gz" 2 3
generated_profile "$newest/worker-2.memory_profile.json.gz" 3 3
generated_profile "$logs/train/plugins/profile/2026_11_22_10_00_00/solo-a.memory_profile.json.gz" 4 1
generated_profile "$logs/train/plugins/profile/2026_11_22_10_00_00/solo-b.memory_profile.json.gz" 5 1
mkdir -p "$logs/eval/plugins/profile/2026_11_21_00_00_00"
: >"$logs/eval/plugins/profile/2026_11_21_00_00_00/tracer.trace.json.gz"

# What the screens must show, from the batch mode: every host x
# allocator of the newest run with its peak and capacity.
"$memtop" --export summary "$logs" >"$work/summary.csv"
# share HOST ALLOCATOR: "59%", the peak's share of the capacity.
share() {
    awk -F, -v host="$1" -v allocator="$2" \
        '$2 == host && $3 == allocator { printf "%d%%\n", $9 * 100 / $7 }' "$work/summary.csv"
}
# The row with the highest peak (the pod overview's first, sorted by peak).
top=$(awk -F, 'NR > 1 && $9 > peak { peak = $9; row = $2 " " $3 } END { print row }' \
    "$work/summary.csv")
top_host=${top% *} top_allocator=${top#* }

# ---- 80x24: hosts load in the background ----
gate="$work/gate"
memtop_viewer 80 24 "MEMTOP_TEST_LOAD_GATE='$gate'" "$logs"
check "80x24: the runs list, newest first, the newest run open (long names cut in the middle)" \
    "Runs (3)" "▸ train/…26_11_23_06_39_19 3│" "  train/…26_11_22_10_00_00 2│" \
    "  eval/2026_11_21_00_00_00 0│"
check "80x24: before any load, the hosts are listed and the first says it is loading" \
    "Hosts (3, 0 loaded)" "10.0.0.2_8466" "BlueDiamond.local" "worker-2" \
    "Loading host 10.0.0.2_8466: 0%" "loading 10.0.0.2_8466: 0%"
check "80x24: hosts taken by the loader show their progress" "loading 0%"
: >"$gate"
check "80x24: when the loads end, the first host opens and the list is complete" \
    "Hosts (3)" "host 10.0.0.2_8466 (1/3)" "allocator GPU_0_bfc (1/3)"
if head -1 "$tmux_screen" | grep -q "^ …/2026_11_23_06_39_19  host 10.0.0.2_8466 (1/3)"; then
    tap_ok "80x24: the title keeps the run's name (memtop, the format and the hint go first)"
else
    tap_not_ok "80x24: the title keeps the run's name (memtop, the format and the hint go first)"
fi
for host in 10.0.0.2_8466 BlueDiamond.local worker-2; do
    expected=$(share "$host" GPU_0_bfc)
    if tmux_wait_for "$host" && grep -q "$host.* $expected│" "$tmux_screen"; then
        tap_ok "80x24: $host shows its peak's share of the capacity ($expected)"
    else
        tap_not_ok "80x24: $host shows its peak's share of the capacity ($expected)"
    fi
done

# ---- the allocator is kept from host to host ----
tmux_keys ]
check "80x24: ] shows the second allocator" "allocator GPU_1_bfc (2/3)"
expected=$(share BlueDiamond.local GPU_1_bfc)
if tmux_wait_for "BlueDiamond.local" && grep -q "BlueDiamond.local.* $expected│" "$tmux_screen"; then
    tap_ok "80x24: the hosts list follows the allocator shown ($expected)"
else
    tap_not_ok "80x24: the hosts list follows the allocator shown ($expected)"
fi
tmux_keys BTab BTab BTab
check "80x24: Shift-Tab reaches the hosts list" "Enter open host"
tmux_keys j
check "80x24: moving in the hosts list says what Enter does" "Enter opens BlueDiamond.local"
tmux_keys Enter
check "80x24: another host opens on the same allocator" \
    "host BlueDiamond.local (2/3)" "allocator GPU_1_bfc (2/3)"

# ---- the pod overview ----
tmux_keys P
check "80x24: P opens the pod overview of the run" \
    "Pod overview of train/2026_11_23_06_39_19: 3 hosts x allocators" "Host▲" "Allocator" \
    "% cap"
rows=$(grep -c -E '^ (10.0.0.2_8466|BlueDiamond.local|worker-2) ' "$tmux_screen")
tap_check "80x24: the overview lists every host x allocator (9 rows)" test "$rows" -eq 9
tmux_keys s s Home
check "80x24: s s sorts by peak, largest first" "Peak▼"
first=$(sed -n 4p "$tmux_screen")
case $first in
*"$top_host"*"$top_allocator"*) tap_ok "80x24: the largest peak is first ($top_host $top_allocator)" ;;
*) tap_not_ok "80x24: the largest peak is first ($top_host $top_allocator)" ;;
esac
tmux_keys Enter
tmux_wait_gone "Pod overview" >/dev/null
check "80x24: Enter opens that host on that allocator" "host $top_host" \
    "allocator $top_allocator"
tmux_keys P
check "80x24: P again" "Pod overview of"
tmux_keys Escape
if tmux_wait_gone "Pod overview" && tmux_wait_for "Runs (3)"; then
    tap_ok "80x24: Esc closes the overview"
else
    tap_not_ok "80x24: Esc closes the overview"
fi

# ---- another run ----
tmux_keys BTab BTab BTab BTab
check "80x24: Shift-Tab reaches the runs list" "Enter open run"
tmux_keys j
check "80x24: moving over a run says its date and its hosts' sources" \
    "train/2026_11_22_10_00_00: 2026-11-22 10:00:00, 2 hosts: solo-a (memory_prof"
tmux_keys Enter
check "80x24: Enter opens the run, its first host" "▸ train/…26_11_22_10_00_00" \
    "Hosts (2)" "host solo-a (1/2)" "allocator GPU_0_bfc (1/1)"
tmux_keys j
check "80x24: a run without memory profiles says so" "eval/2026_11_21_00_00_00"
tmux_keys Enter
check "80x24: ... and does not open" "eval/2026_11_21_00_00_00: no memory profile in this run"
tmux_keys k k Enter
check "80x24: back to the first run: its hosts load again" "host 10.0.0.2_8466 (1/3)" \
    "Hosts (3)"
memtop_quit "80x24: q quits with status 0"

# ---- ?: the help at the focused pane's keys; / searches it ----
memtop_viewer 100 30 "" "$logs"
check "help: the table has the focus" "Runs (3)"
tmux_keys "?"
tmux_wait_for "memtop keys" >/dev/null
if sed -n 3p "$tmux_screen" | grep -q "│ Allocations table  "; then
    tap_ok "help: ? opens at the focused pane's keys (the table's)"
else
    tap_not_ok "help: ? opens at the focused pane's keys (the table's)"
fi
tmux_keys /
tmux_text "capacity line"
tmux_keys Enter
tmux_wait_for "the capacity line" >/dev/null
if sed -n 3p "$tmux_screen" | grep -q "The legend under the chart names each glyph"; then
    tap_ok "help: / scrolls it to the first entry holding the text"
else
    tap_not_ok "help: / scrolls it to the first entry holding the text"
fi
tmux_keys Escape
tmux_wait_gone "memtop keys" >/dev/null
for tab in 1 2 3 4 5 6; do
    tmux_keys BTab
    tmux_wait_for "Enter open run" 1 >/dev/null && break
done
tmux_keys "?"
tmux_wait_for "memtop keys" >/dev/null
if sed -n 3p "$tmux_screen" | grep -q "│ Runs (a log directory)"; then
    tap_ok "help: from the runs list, ? opens at the runs' keys"
else
    tap_not_ok "help: from the runs list, ? opens at the runs' keys"
fi
tmux_keys Escape
memtop_quit "help: q quits with status 0"

# ---- --ascii: a cut name and a cut axis read apart ----
memtop_viewer 80 24 "" --ascii "$logs"
check "80x24 --ascii: a run name cut with +, the axis cut with ~" \
    "> train/+26_11_23_06_39_19 3|" "~ axis cut"
memtop_quit "80x24 --ascii: q quits with status 0"

# ---- 120x40: room for every column ----
memtop_viewer 120 40 "" "$logs"
check "120x40: the runs with their host counts, the hosts with peaks" \
    "train/2026_11_23_06_39_19  3 hosts│" "train/2026_11_22_10_00_00  2 hosts│" "Hosts (3)" \
    "$(share worker-2 GPU_0_bfc)│"
tmux_keys P
check "120x40: the overview has every column" "Host▲" "Allocator" "Peak" "Capacity" \
    "% cap" "Peak at ms"
tmux_keys G Enter
check "120x40: the last row opens its host" "host worker-2 (3/3)" "allocator cpu (3/3)"
memtop_quit "120x40: q quits with status 0"

memtop_viewer 120 40 "" --host BlueDiamond.local "$newest"
check "120x40: a run directory with --host: that host first, no runs list" \
    "Hosts (3)" "host BlueDiamond.local (2/3)"
if grep -q "Runs (" "$tmux_screen"; then tap_not_ok "120x40: a run directory has no runs list"
else tap_ok "120x40: a run directory has no runs list"; fi
memtop_quit "120x40 --host: q quits with status 0"

# ---- the demo log directory (the README's first command) ----
memtop_viewer 80 24 "" "$source_dir/data/logdir"
check "demo: data/logdir opens its newest run on the MemoryProfile host" "Runs (2)" \
    "Hosts (2)" "host 10.0.0.2_8466 (1/2)" "allocator GPU_0_bfc (1/3)"
memtop_quit "demo: q quits with status 0"

# ---- XSpace runs (tests/generate_xspace --run-layout) ----
xspace_viewer() {
    xgen="${MEMTOP_BUILDDIR:-.}/tests/generate_xspace"
    xlogs="$work/xlogs"
    "$xgen" --style tpu --devices 2 --run-layout "$xlogs" --host t1v-n-0.internal \
        --run 2026_03_01_00_00_00
    "$xgen" --style tf-gpu --run-layout "$xlogs" --host 10.0.0.2_8466 --run 2026_03_01_00_00_00
    memtop_viewer 80 24 "" "$xlogs"
    check "xspace: both hosts load, with peaks" "Hosts (2)" "host 10.0.0.2_8466 (1/2)"
    tmux_keys P
    check "xspace: the pod overview lists the TPU's devices" "t1v-n-0.internal" "GPU_0_bfc"
    memtop_quit "xspace: q quits with status 0"
}

xspace_viewer

# ---- the newest run cut short: the newest that loads opens ----
clogs="$work/cut"
generated_profile "$clogs/plugins/profile/2026_04_01_00_00_00/w-1.memory_profile.json.gz" 11 1
generated_profile "$work/whole.json.gz" 12 1
mkdir -p "$clogs/plugins/profile/2026_04_02_00_00_00"
head -c 3000 "$work/whole.json.gz" \
    >"$clogs/plugins/profile/2026_04_02_00_00_00/w-1.memory_profile.json.gz"
memtop_viewer 80 24 "" "$clogs"
check "cut: the older run opens, the cut one marked ✗, the status line says why" \
    "Runs (2)" " ✗2026_04_02_00_00_00" "▸ 2026_04_01_00_00_00" "allocator GPU_0_bfc" \
    "✗ run 2026_04_02_00_00_00 did not load (w-1: offset 3000: truncated"
for tab in 1 2 3 4 5 6; do
    tmux_keys BTab
    tmux_wait_for "Enter open run" 1 >/dev/null && break
done
tmux_keys k
check "cut: the cursor on the bad run says why it did not load" \
    "2026_04_02_00_00_00 ✗ did not load: w-1: offset 3000: truncated gzip data"
memtop_quit "cut: q quits with status 0"

# ---- a pod's hosts: natural order, / searches the focused list ----
pod="$work/pod"
for h in w-0 w-1 w-2 w-10 w-11; do
    generated_profile "$pod/t1v-n-0c5c7fd0-$h.memory_profile.json.gz" 13 1
done
memtop_viewer 100 30 "" "$pod"
check "pod: the hosts in natural order" "Hosts (5)"
order=$(sed 1d "$tmux_screen" | grep -o 't1v-n-0c5c7fd0-w-[0-9]*' | tr '\n' ' ')
tap_check "pod: w-2 before w-10 in the hosts list" \
    test "$order" = "t1v-n-0c5c7fd0-w-0 t1v-n-0c5c7fd0-w-1 t1v-n-0c5c7fd0-w-2 t1v-n-0c5c7fd0-w-10 t1v-n-0c5c7fd0-w-11 "
for tab in 1 2 3 4 5 6; do
    tmux_keys BTab
    tmux_wait_for "Enter open host" 1 >/dev/null && break
done
tmux_keys /
tmux_text "W-1"
tmux_keys Enter
check "pod: / in the hosts list searches it (any case), the first match" \
    "/W-1: t1v-n-0c5c7fd0-w-1 (1 of 3)"
tmux_keys n
check "pod: n goes to the next match" "/W-1: t1v-n-0c5c7fd0-w-10 (2 of 3)"
tmux_keys N N
check "pod: N goes back, round the start" "/W-1: t1v-n-0c5c7fd0-w-11 (3 of 3)"
tmux_keys Enter
check "pod: Enter opens the host found" "host t1v-n-0c5c7fd0-w-11 (5/5)"
memtop_quit "pod: q quits with status 0"

# ---- R and F5 reload; --follow watches ----
rl="$work/reload/plugins/profile"
generated_profile "$rl/2026_06_01_00_00_00/a.memory_profile.json.gz" 21 2
memtop_viewer 100 30 "" "$work/reload"
check "reload: one run, one host, two allocators" "allocator GPU_0_bfc (1/2)"
generated_profile "$rl/2026_06_02_00_00_00/a.memory_profile.json.gz" 22 2
generated_profile "$rl/2026_06_01_00_00_00/b.memory_profile.json.gz" 23 2
tmux_keys R
check "reload: R finds the new run and the new host, says so" "Runs (2)" "Hosts (2)" \
    "reloaded: 2 runs (1 new), 2 hosts in this run (1 new), 1 unchanged"
# The open host's file written anew (three allocators now): read again whole.
generated_profile "$rl/2026_06_01_00_00_00/a.memory_profile.json.gz" 24 3
tmux_keys F5
check "reload: F5 reads the open host's changed file again" "allocator GPU_0_bfc (1/3)"
memtop_quit "reload: q quits with status 0"

fl="$work/follow/plugins/profile"
generated_profile "$fl/2026_07_01_00_00_00/a.memory_profile.json.gz" 25 1
memtop_viewer 100 30 "" --follow "$work/follow"
check "--follow: says it follows" "following $work/follow: new runs and hosts appear"
generated_profile "$work/follow-b.json.gz" 26 1
mv "$work/follow-b.json.gz" "$fl/2026_07_01_00_00_00/b.memory_profile.json.gz"
check "--follow: a host written into the run appears, said on the status line" "Hosts (2)" \
    "following: 1 run (0 new), 2 hosts in this run (1 new)"
mkdir -p "$fl/2026_07_02_00_00_00"
generated_profile "$work/follow-c.json.gz" 27 1
mv "$work/follow-c.json.gz" "$fl/2026_07_02_00_00_00/c.memory_profile.json.gz"
check "--follow: a new run appears" "Runs (2)"
memtop_quit "--follow: q quits with status 0"

tap_done
