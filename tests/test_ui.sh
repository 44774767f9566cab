#!/bin/sh
# The memtop_viewer as a person sees it: memtop runs in a private tmux server at
# fixed sizes, the test types keys and reads the screen back. Prints TAP.
set -u
source_dir="${MEMTOP_SRCDIR:-.}"
. "$source_dir/tests/lib.sh"
memtop="${MEMTOP_BUILDDIR:-.}/memtop"
xprof="$source_dir/data/real/xprof-tpu-v4-8-demo.memory_profile.json"
demo_dir="$source_dir/data"

tmux_require

chart_glyphs='▁|▂|▃|▄|▅|▆|▇|█'

# memtop_viewer and memtop_quit: tests/lib.sh.

# no_high_bytes: the screen is pure ASCII.
no_high_bytes() {
    [ "$(LC_ALL=C tr -d '\000-\177' <"$tmux_screen" | wc -c)" -eq 0 ]
}

# colour_codes: how many SGR colour parameters (30-49, 90-107, but not the
# defaults 39 and 49) the screen with attributes (capture-pane -e) holds.
colour_codes() {
    tmux_run capture-pane -t "$tmux_session" -p -e >"$test_work/attributes"
    LC_ALL=C grep -o "$(printf '\033')\[[0-9;:]*m" "$test_work/attributes" |
        LC_ALL=C tr -d '\033[m' | tr ';:' '\n\n' |
        awk '$1 == 39 || $1 == 49 { next }
             ($1 >= 30 && $1 <= 49) || ($1 >= 90 && $1 <= 107) { n++ }
             END { print n + 0 }'
}

# A profile written here, with hostile strings: an escape sequence in an op
# name and in the allocator's memory id.
hostile="$test_work/hostile.json"
printf '%s' '{"memoryProfilePerAllocator":{"GPU_0_bfc\u001b[2J":{"memoryProfileSnapshots":[' \
    '{"timeOffsetPs":"1000000000","aggregationStats":{"stackReservedBytes":"0",' \
    '"heapAllocatedBytes":"1048576","freeMemoryBytes":"1048576","fragmentation":0,' \
    '"peakBytesInUse":"1048576"},"activityMetadata":{"memoryActivity":"ALLOCATION",' \
    '"requestedBytes":"1048576","allocationBytes":"1048576","address":"4096",' \
    '"tfOpName":"\u001b[31mEVIL","stepId":"1","regionType":"output","dataType":"float",' \
    '"tensorShape":"[256,1024]"}}],"activeAllocations":[{"snapshotIndex":"0",' \
    '"specialIndex":"-1","numOccurrences":"1"}]}},"numHosts":1,' \
    '"memoryIds":["GPU_0_bfc\u001b[2J"],"version":0}' >"$hostile"

# ---- one profile, through everything a person does ----
# The real XProf file when the shared data is there, else the demo
# profile the repository carries. What the screen must show comes from
# --summary, so the cases hold for either.
main_file=""
if [ -r "$xprof" ]; then
    main_file=$xprof filter_text=dumm filter_kept=dummy
elif [ -r "$demo_dir/demo.v1.pb" ]; then
    main_file=$demo_dir/demo.v1.pb filter_text=dense_2 filter_kept=dense_2
fi
if [ -n "$main_file" ]; then
    "$memtop" --summary "$main_file" >"$test_work/summary" 2>&1
    allocators=$(awk 'NR > 2 && /^[^ ]/' "$test_work/summary")
    count=$(echo "$allocators" | wc -l)
    first=$(echo "$allocators" | sed -n 1p)
    second=$(echo "$allocators" | sed -n 2p)
    last=$(echo "$allocators" | sed -n "${count}p")
    peak=$(awk '/Peak memory usage/ { print $(NF - 1), $NF; exit }' "$test_work/summary")
    peak_time=$(awk '$1 == "at" { print $(NF - 1), $NF; exit }' "$test_work/summary")
    capacity=$(awk '/Memory capacity/ { print $(NF - 1), $NF; exit }' "$test_work/summary")
    home="allocator $first (1/$count)"

    memtop_viewer 80 24 "" "$main_file"
    if tmux_wait_for "$home" && tmux_wait_for "$peak"; then
        tap_ok "80x24: the first allocator and its peak"
    else
        tap_not_ok "80x24: the first allocator and its peak"
    fi
    tap_check "80x24: the summary has the peak time and the capacity" \
        sh -c "grep -q '$peak_time' '$tmux_screen' && grep -q '$capacity' '$tmux_screen'"
    tap_check "80x24: the chart draws block glyphs" grep -E -q "$chart_glyphs" "$tmux_screen"
    tap_check "80x24: the table lists the allocations at the peak" \
        tmux_wait_for "unused preallocated"

    tmux_keys ']'
    tap_check "] switches to the next allocator" tmux_wait_for "allocator $second (2/$count)"
    tmux_keys '['
    tmux_wait_for "$home" >/dev/null
    tmux_keys '['
    tap_check "[ from the first allocator wraps to the last" \
        tmux_wait_for "allocator $last ($count/$count)"
    tmux_keys ']'
    tmux_wait_for "$home" >/dev/null

    tmux_keys '/'
    tmux_text "$filter_text"
    if tmux_wait_gone "unused preallocated" && grep -q "$filter_kept" "$tmux_screen"; then
        tap_ok "/ filters the table as you type"
    else
        tap_not_ok "/ filters the table as you type"
    fi
    tmux_keys Escape
    tap_check "Esc clears the filter" tmux_wait_for "unused preallocated"

    tmux_keys '?'
    tap_check "? opens the help" tmux_wait_for "memtop keys"
    tmux_keys Escape
    tap_check "Esc closes the help" tmux_wait_gone "memtop keys"

    tmux_resize 40 10
    tap_check "a tiny terminal says it is too small" tmux_wait_for "too small"
    tmux_resize 80 24
    tap_check "back to 80x24, the memtop_viewer is back" tmux_wait_for "$home"
    memtop_quit "q quits with status 0 and restores the screen"

    memtop_viewer 200 60 "" "$main_file"
    if tmux_wait_for "$home" && tmux_wait_for "HLO"; then
        tap_ok "200x60: the HLO modules have their own pane"
    else
        tap_not_ok "200x60: the HLO modules have their own pane"
    fi
    memtop_quit "200x60: q quits with status 0"

    memtop_viewer 80 24 "LANG=C LC_ALL=C" "$main_file"
    if tmux_wait_for "$home" && no_high_bytes; then
        tap_ok "LANG=C draws ASCII only"
    else
        tap_not_ok "LANG=C draws ASCII only"
    fi
    memtop_quit "LANG=C: q quits with status 0"

    memtop_viewer 80 24 "" --ascii "$main_file"
    if tmux_wait_for "$home" && no_high_bytes; then
        tap_ok "--ascii draws ASCII only in a UTF-8 terminal"
    else
        tap_not_ok "--ascii draws ASCII only in a UTF-8 terminal"
    fi
    tmux_keys '?'
    if tmux_wait_for "memtop keys" && no_high_bytes; then
        tap_ok "--ascii: the help is ASCII too"
    else
        tap_not_ok "--ascii: the help is ASCII too"
    fi
    tmux_keys Escape
    memtop_quit "--ascii: q quits with status 0"

    memtop_viewer 80 24 "" "$main_file"
    tmux_wait_for "$home" >/dev/null
    with_colour=$(colour_codes)
    memtop_viewer 80 24 "NO_COLOR=1" "$main_file"
    tmux_wait_for "$home" >/dev/null
    without_colour=$(colour_codes)
    if [ "$with_colour" -gt 0 ] && [ "$without_colour" -eq 0 ]; then
        tap_ok "NO_COLOR turns colours off"
    else
        echo "colour codes: $with_colour with colours, $without_colour with NO_COLOR" \
            >"$test_work/colours"
        tap_not_ok "NO_COLOR turns colours off" "$test_work/colours" "$tmux_screen"
    fi
    memtop_viewer 80 24 "" --no-color "$main_file"
    tmux_wait_for "$home" >/dev/null
    tap_check "--no-color turns colours off" test "$(colour_codes)" -eq 0

    for term in xterm-256color screen linux vt100; do
        memtop_viewer 80 24 "TERM=$term" "$main_file"
        if tmux_wait_for "$home" && tmux_wait_for "$peak"; then
            tap_ok "TERM=$term: the memtop_viewer draws"
        else
            tap_not_ok "TERM=$term: the memtop_viewer draws"
        fi
        memtop_quit "TERM=$term: q quits with status 0"
    done

    # A signal ends memtop the way it would end any program (the shell sees
    # 128+N), after the screen is given back; SEGV stands for a crash.
    for signal in TERM HUP INT SEGV; do
        tmux_start 80 24 "env LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=tmux-256color \
sh -c 'ulimit -c 0; echo \$\$ >\"$test_work/pid\"; exec \"$memtop\" \"$main_file\"'; \
echo EXIT=\$?; sleep 60"
        tmux_wait_for "$home" >/dev/null
        kill -"$signal" "$(cat "$test_work/pid")"
        case $signal in TERM) want=143 ;; HUP) want=129 ;; INT) want=130 ;; SEGV) want=139 ;; esac
        if tmux_wait_for "EXIT=$want" && ! grep -q "q quit" "$tmux_screen"; then
            tap_ok "SIG$signal ends memtop at once and restores the screen"
        else
            tap_not_ok "SIG$signal ends memtop at once and restores the screen"
        fi
    done

    # Every other signal whose default action ends a program (a broken
    # pipe, a timer, a user signal, a resource limit, a real-time signal)
    # ends memtop the same way, the screen given back first; the exit
    # status names the signal (kill -l turns 128+N back into its name).
    for signal in USR1 USR2 PIPE ALRM VTALRM PROF XCPU IO QUIT RTMIN+1; do
        tmux_start 80 24 "env LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=tmux-256color \
sh -c 'ulimit -c 0; echo \$\$ >\"$test_work/pid\"; exec \"$memtop\" \"$main_file\"'; \
echo EXIT=\$?; sleep 60"
        tmux_wait_for "$home" >/dev/null
        kill -"$signal" "$(cat "$test_work/pid")"
        if tmux_wait_for "EXIT=" && ! grep -q "q quit" "$tmux_screen"; then
            status=$(sed -n 's/^EXIT=\([0-9]*\).*/\1/p' "$tmux_screen" | head -n 1)
            ended_by=$(kill -l $((status - 128)) 2>/dev/null)
        else
            ended_by=""
        fi
        if [ "$ended_by" = "$signal" ]; then
            tap_ok "SIG$signal ends memtop with its status and restores the screen"
        else
            tap_not_ok "SIG$signal ends memtop with its status and restores the screen"
        fi
    done

    # --mouse: clicks in xterm's SGR encoding (1-based column;row, M down,
    # m up) on the third allocator, then on the second.
    memtop_viewer 80 24 "TERM=xterm-256color" --mouse "$main_file"
    tmux_wait_for "$home" >/dev/null
    tmux_paste "$(printf '\033[<0;6;5M\033[<0;6;5m')"
    third=$(echo "$allocators" | sed -n 3p)
    tap_check "--mouse: a click selects an allocator" tmux_wait_for "allocator $third (3/$count)"
    tmux_paste "$(printf '\033[<0;6;4M\033[<0;6;4m')"
    tap_check "--mouse: another click selects another" \
        tmux_wait_for "allocator $second (2/$count)"
    memtop_quit "--mouse: q quits with status 0"

    # Several hosts: a directory with a good profile and a broken one.
    mkdir "$test_work/run"
    cp "$main_file" "$test_work/run/a-good.${main_file##*.}"
    printf 'not a memory profile\n' >"$test_work/run/b-broken.pb"
    memtop_viewer 80 24 "" "$test_work/run"
    if tmux_wait_for "Hosts (2)" && tmux_wait_for "$home"; then
        tap_ok "a directory opens as hosts, the first one loaded"
    else
        tap_not_ok "a directory opens as hosts, the first one loaded"
    fi
    tmux_keys BTab
    tmux_keys BTab
    tmux_keys BTab
    tmux_keys j
    tap_check "moving to a host that is not loaded says Enter opens it" \
        tmux_wait_for "Enter opens b-broken"
    tmux_keys Enter
    if tmux_wait_for "Could not load this host" && grep -q "b-broken: " "$tmux_screen"; then
        tap_ok "a host that fails to load shows its error"
    else
        tap_not_ok "a host that fails to load shows its error"
    fi
    tmux_keys k
    tmux_keys Enter
    tap_check "the other host stays usable" tmux_wait_for "$home"
    memtop_quit "hosts: q quits with status 0"
else
    for name in first-allocator summary chart table next-allocator wrap filter filter-clear \
        help help-close too-small restore quit 200x60 200x60-quit lang-c lang-c-quit ascii \
        ascii-help ascii-quit no-color-env no-color-option term-xterm term-xterm-quit \
        term-screen term-screen-quit term-linux term-linux-quit term-vt100 term-vt100-quit \
        sigterm sighup sigint sigsegv sigusr1 sigusr2 sigpipe sigalrm sigvtalrm sigprof sigxcpu \
        sigio sigquit sigrtmin mouse mouse-again mouse-quit hosts host-cursor host-error host-usable hosts-quit; do
        tap_skip "no profile to view ($name)"
    done
fi

# ---- hostile strings are shown escaped, never sent raw ----
memtop_viewer 80 24 "" "$hostile"
if tmux_wait_for '\x1b[31mEVIL' && tmux_wait_for 'GPU_0_bfc\x1b[2J'; then
    tap_ok "escape sequences in op names and memory ids show as \\x1b"
else
    tap_not_ok "escape sequences in op names and memory ids show as \\x1b"
fi
memtop_quit "hostile strings: q quits with status 0"

# ---- the demo profiles ----
for demo in demo.v0.pb.gz demo.v0.json.gz demo.v1.pb demo.v1.json; do
    if [ ! -r "$demo_dir/$demo" ]; then
        tap_skip "$demo is absent"
        continue
    fi
    memtop_viewer 80 24 "" "$demo_dir/$demo"
    if tmux_wait_for "allocator GPU_0_bfc (1/" && grep -E -q "$chart_glyphs" "$tmux_screen"; then
        tap_ok "$demo: the memtop_viewer opens it"
    else
        tap_not_ok "$demo: the memtop_viewer opens it"
    fi
done
tmux_stop

# ---- --mouse in the chart and the tables ----
# click COLUMN ROW: a left click in xterm's SGR encoding (1-based).
click() {
    tmux_paste "$(printf '\033[<0;%d;%dM\033[<0;%d;%dm' "$1" "$2" "$1" "$2")"
}
mouse_v0=$demo_dir/demo.v0.pb.gz mouse_v1=$demo_dir/demo.v1.pb
if tmux_have && [ -r "$mouse_v0" ] && [ -r "$mouse_v1" ]; then
    # At 80x24 the chart's plot starts at column 41, the table's first
    # data row is line 13.
    memtop_viewer 80 24 "TERM=xterm-256color" --mouse "$mouse_v0"
    tmux_wait_for "allocator GPU_0_bfc (1/" >/dev/null
    click 42 5
    tap_check "--mouse: a click in the chart puts the cursor on that column" \
        tmux_wait_for "39.582 ms (largest of 373)"
    click 40 15
    click 40 15
    # 564: the allocations live at the peak (issue 22; XProf's table had 191).
    tap_check "--mouse: a click selects a table row, a second click opens it" \
        tmux_wait_for "Allocation 3 of 564"
    tmux_keys Escape
    memtop_quit "--mouse in the chart and table: q quits with status 0"

    memtop_viewer 80 24 "TERM=xterm-256color" --mouse "$mouse_v1"
    tmux_wait_for "allocator GPU_0_bfc (1/" >/dev/null
    tmux_keys Tab
    tmux_wait_for "HLO modules (10)" >/dev/null
    click 40 14
    click 40 14
    tap_check "--mouse: clicks on an HLO module zoom the chart to it" \
        tmux_wait_for "chart zoomed to module 1 jit_train_step"
    memtop_quit "--mouse in the HLO modules: q quits with status 0"
else
    for name in chart table hlo; do
        tap_skip "tmux or the demo profiles are absent (--mouse $name)"
    done
    tap_skip "tmux or the demo profiles are absent (--mouse quit)"
    tap_skip "tmux or the demo profiles are absent (--mouse quit again)"
fi

# ---- what the peak is made of, under the summary on a tall terminal ----
if tmux_have && [ -r "$mouse_v1" ]; then
    memtop_viewer 160 50 "" "$mouse_v1"
    tmux_wait_for "allocator GPU_0_bfc (1/" >/dev/null
    tap_check "160x50: the peak by region under the summary" \
        tmux_wait_for " persist/dynamic      2.66 GiB  37 %"
    tap_check "160x50: the peak by data type below it" \
        tmux_wait_for " bfloat16             4.41 GiB  61 %"
    tmux_keys /
    tmux_text dense_2
    tmux_keys Enter
    tap_check "160x50: the breakdowns follow the table's filter" \
        tmux_wait_for "At peak by region (filter)"
    if tmux_wait_for " output             540.00 MiB 100 %" &&
        grep -q "540.00 MiB of 7.17 GiB" "$tmux_screen"; then
        tap_ok "160x50: the filtered breakdown sums what the filtered table sums"
    else
        tap_not_ok "160x50: the filtered breakdown sums what the filtered table sums"
    fi
    memtop_quit "160x50 with breakdowns: q quits with status 0"
else
    for name in region type filter sums quit; do
        tap_skip "tmux or demo.v1.pb is absent (breakdown $name)"
    done
fi

# ---- e: export what the focused pane shows, as --export would ----
export_profile=$demo_dir/demo.v0.pb.gz
if tmux_have && [ -r "$export_profile" ]; then
    export_dir="$test_work/export"
    mkdir -p "$export_dir"
    "$memtop" --export allocations --filter dense_1 "$export_profile" >"$test_work/expected.csv"
    export_rows=$(($(wc -l <"$test_work/expected.csv") - 1))
    export_file="$export_dir/memtop-GPU_0_bfc-allocations.csv"
    mkdir -p "$test_work/home"
    tmux_start 80 24 "cd '$export_dir' && env -u NO_COLOR LANG=C.UTF-8 LC_ALL=C.UTF-8 \
TERM=tmux-256color HOME='$test_work/home' XDG_STATE_HOME='$test_work/state-export' \
'$memtop' '$export_profile'; echo EXIT=\$?; sleep 60"
    tmux_wait_for "allocator GPU_0_bfc (1/" >/dev/null
    tmux_keys '/'
    tmux_text dense_1
    tmux_keys Enter
    tmux_keys e
    tap_check "e offers memtop-<allocator>-<view>.csv" \
        tmux_wait_for "export allocations to: memtop-GPU_0_bfc-allocations.csv"
    tmux_keys Enter
    if tmux_wait_for "wrote $export_rows rows to memtop-GPU_0_bfc-allocations.csv" &&
        cmp -s "$export_file" "$test_work/expected.csv"; then
        tap_ok "e on the table writes its filtered rows, as --export does"
    else
        tap_not_ok "e on the table writes its filtered rows, as --export does"
    fi
    printf 'keep me\n' >"$export_file"
    tmux_keys e
    tmux_wait_for "export allocations to:" >/dev/null
    tmux_keys Enter
    tap_check "e asks before replacing a file" tmux_wait_for "file exists; replace? [y/N]"
    # One key answers (no Enter after it): n, Enter and Esc say no, y yes.
    tmux_keys n
    if tmux_wait_for "not replaced: memtop-GPU_0_bfc-allocations.csv" &&
        [ "$(cat "$export_file")" = "keep me" ]; then
        tap_ok "answering no leaves the file as it was"
    else
        tap_not_ok "answering no leaves the file as it was"
    fi
    for answer in Enter Escape; do
        tmux_keys e
        tmux_wait_for "export allocations to:" >/dev/null
        tmux_keys Enter
        tmux_wait_for "replace? [y/N]" >/dev/null
        tmux_keys "$answer"
        if tmux_wait_for "not replaced: memtop-GPU_0_bfc-allocations.csv" &&
            [ "$(cat "$export_file")" = "keep me" ]; then
            tap_ok "replace? [y/N]: $answer alone answers no"
        else
            tap_not_ok "replace? [y/N]: $answer alone answers no"
        fi
    done
    tmux_keys e
    tmux_wait_for "export allocations to:" >/dev/null
    tmux_keys Enter
    tmux_wait_for "replace? [y/N]" >/dev/null
    tmux_keys y
    if tmux_wait_for "wrote $export_rows rows" && cmp -s "$export_file" "$test_work/expected.csv"; then
        tap_ok "answering y alone replaces it"
    else
        tap_not_ok "answering y alone replaces it"
    fi
    # The y answered: the next key is a key again (e asks for a name).
    tmux_keys e
    tap_check "  ... and the key after it is not part of the answer" \
        tmux_wait_for "export allocations to: memtop-GPU_0_bfc-allocations.csv"
    tmux_keys Escape
    # The chart: its visible window only, after zooming in twice.
    tmux_keys Escape BTab + +
    tmux_keys e
    tmux_wait_for "export timeline to: memtop-GPU_0_bfc-timeline.csv" >/dev/null
    tmux_keys Enter
    if tmux_wait_for "rows to memtop-GPU_0_bfc-timeline.csv"; then
        written=$(sed -n 's/.*wrote \([0-9]*\) rows* to memtop-GPU_0_bfc-timeline.csv.*/\1/p' "$tmux_screen")
        lines=$(wc -l <"$export_dir/memtop-GPU_0_bfc-timeline.csv")
        if [ -n "$written" ] && [ "$written" -gt 0 ] && [ "$written" -lt 20000 ] &&
            [ "$lines" -eq $((written + 1)) ]; then
            tap_ok "e on the zoomed chart writes the visible window ($written of 20000)"
        else
            tap_not_ok "e on the zoomed chart writes the visible window ($written, $lines lines)"
        fi
    else
        tap_not_ok "e on the zoomed chart writes the visible window"
    fi
    # ~ is the home directory; Tab is not typed into the name.
    tmux_keys e
    tmux_wait_for "export timeline to:" >/dev/null
    tmux_keys C-u
    tmux_text "~/from-home"
    tmux_keys Tab
    tmux_text ".csv"
    tmux_keys Enter
    if tmux_wait_for "rows to $test_work/home/from-home.csv" &&
        [ -s "$test_work/home/from-home.csv" ]; then
        tap_ok "~/NAME is written in the home directory, Tab is not typed into it"
    else
        tap_not_ok "~/NAME is written in the home directory, Tab is not typed into it"
    fi
    # The allocators list exports every allocator: not named after one.
    tmux_keys BTab e
    tap_check "a summary of every allocator is named after none" \
        tmux_wait_for "export summary to: memtop-summary.csv"
    tmux_keys Escape
    tmux_keys q
    tap_check "quit after exporting: status 0" tmux_wait_for "EXIT=0"

    # Several hosts: the name says which host.
    mkdir -p "$test_work/hosts"
    cp "$export_profile" "$test_work/hosts/host-a.pb.gz"
    cp "$export_profile" "$test_work/hosts/host-b.pb.gz"
    tmux_start 80 24 "cd '$export_dir' && env -u NO_COLOR LANG=C.UTF-8 LC_ALL=C.UTF-8 \
TERM=tmux-256color XDG_STATE_HOME='$test_work/state-export' \
'$memtop' '$test_work/hosts'; echo EXIT=\$?; sleep 60"
    tmux_wait_for "allocator GPU_0_bfc (1/" >/dev/null
    tmux_keys e
    tap_check "with several hosts the name has the host" \
        tmux_wait_for "export allocations to: memtop-host-a-GPU_0_bfc-allocations.csv"
    tmux_keys Escape q
    tap_check "  ... q quits with status 0" tmux_wait_for "EXIT=0"
else
    for name in offer write ask keep no-enter no-escape replace next-key chart home summary quit \
        hosts hosts-quit; do
        tap_skip "export: no tmux or no demo data ($name)"
    done
fi

# ---- --list-keys: the key table as Markdown (docs/keys.md) ----
"$memtop" --list-keys >"$test_work/keys" 2>&1
if [ $? -eq 0 ] && grep -q '^| `q` | quit |$' "$test_work/keys" &&
    grep -q '^| `/` | filter op names' "$test_work/keys"; then
    tap_ok "--list-keys prints the key table as Markdown"
else
    tap_not_ok "--list-keys prints the key table as Markdown" "$test_work/keys"
fi

# ---- a profile through a pipe: the memtop_viewer reads keys from the terminal ----
if [ -r "$demo_dir/demo.v1.pb" ]; then
    tmux_start 80 24 "cat '$demo_dir/demo.v1.pb' | env -u NO_COLOR LANG=C.UTF-8 LC_ALL=C.UTF-8 \
TERM=tmux-256color XDG_STATE_HOME='$test_work/state-pipe' '$memtop' -; echo EXIT=\$?; sleep 60"
    if tmux_wait_for "allocator GPU_0_bfc (1/3)" && grep -q " - " "$tmux_screen"; then
        tap_ok "80x24: cat PROFILE | memtop - opens the viewer"
    else
        tap_not_ok "80x24: cat PROFILE | memtop - opens the viewer"
    fi
    tmux_keys ']'
    tap_check "  ... and its keys come from the terminal" tmux_wait_for "allocator GPU_1_bfc (2/3)"
    memtop_quit "  ... q quits with status 0"
else
    for name in open keys quit; do tap_skip "demo.v1.pb is absent (pipe $name)"; done
fi

# ---- without a terminal: a clear error, not a hang ----
if [ -n "$main_file" ]; then
    timeout 20 "$memtop" "$main_file" </dev/null >"$test_work/out" 2>"$test_work/err"
    status=$?
    if [ "$status" -eq 1 ] && grep -q "needs a terminal" "$test_work/err"; then
        tap_ok "without a terminal: an error and status 1"
    else
        echo "status $status" >>"$test_work/err"
        tap_not_ok "without a terminal: an error and status 1" "$test_work/err"
    fi
else
    tap_skip "no profile to view (no terminal)"
fi

tap_done
