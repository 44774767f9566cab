#!/bin/sh
# The allocations table as a person reads it (issue 15, "The table", and
# issue 14's grouping by location and by file), in tmux at 80x24, 120x40
# and 200x60: op names cut in their middle with their end kept, data
# types and shapes whole, h/l scrolling sideways with a marker; a total
# and a share column; the sort chosen with < and > under one name per
# column, columns staying put while sorting; the filter over regions,
# types and shapes; the least size (H), shown in the title and
# remembered; grouping by op scope (t, Enter, Backspace) and, for a
# Skyline report, by location and file; e on groups; unresolved rows
# said alike in the viewer and --summary. Prints TAP.
set -u
source_dir="${MEMTOP_SRCDIR:-.}"
build_dir="${MEMTOP_BUILDDIR:-.}"
. "$source_dir/tests/lib.sh"
work=$test_work
demo="$source_dir/data/demo.v1.pb"

tmux_require
if [ ! -r "$demo" ]; then
    echo "1..0 # SKIP data/demo.v1.pb is absent"
    exit 0
fi

sizes="80x24 120x40 200x60"

# heading_line: the table's column headings (the line under its title).
heading_line() {
    sed -n '/Allocations at peak\|At peak (/{n;p;q}' "$tmux_screen" | sed 's/.*│//'
}

# table_area: the table's lines (its title and what is under it), past
# the panes at its left; the chart's readout above it names an op too.
table_area() {
    sed -n '/[├┼]─ \(Allocations at peak\|At peak\|Entries\)/,$p' "$tmux_screen" | sed 's/^[^│├┼]*[│├┼]//'
}

# table_wait holds|lacks TEXT: polls until the table's lines hold (or
# lack) TEXT, then reads the whole frame (tmux_settle).
table_wait() {
    tries=0
    while [ "$tries" -lt 100 ]; do
        tmux_capture
        if table_area | grep -q -F -e "$2"; then found=holds; else found=lacks; fi
        if [ "$found" = "$1" ]; then
            tmux_settle
            return 0
        fi
        sleep 0.1
        tries=$((tries + 1))
    done
    return 1
}

# open_demo SIZE: the demo profile in tmux, its table on screen.
open_demo() {
    memtop_viewer "${1%x*}" "${1#*x}" "" "$demo"
    tmux_wait_for "allocator GPU_0_bfc (1/3)" >/dev/null
    tmux_wait_for "ReluGrad" >/dev/null
}

# ---- names, types and shapes; total and share ----
for size in $sizes; do
    open_demo "$size"
    # The gradient row: its end stays ("ReluGrad"), cut in its middle
    # when narrow, whole when there is room.
    case $size in
    80x24) name='gradients/…/ReluGrad' ;;
    120x40) name='gradients/…/Relu_grad/ReluGrad' ;;
    *) name='gradients/model/dense_94/Relu_grad/ReluGrad' ;;
    esac
    tap_check "$size: a long op name keeps its first scope and its end ($name)" \
        grep -q -F "$name" "$tmux_screen"
    if grep -q -F 'bflo…' "$tmux_screen" || grep -q -F 'INVA…' "$tmux_screen" ||
        grep -q -F '[8,512,3…' "$tmux_screen"; then
        tap_not_ok "$size: data types and shapes are never cut"
    else
        tap_ok "$size: data types and shapes are never cut"
    fi
    # 48 MiB twice is 96 MiB, 1.3 % of the 7.17 GiB peak.
    tap_check "$size: the total column says what a row holds, with its share" \
        grep -q '48\.00 MiB.* 96\.00 MiB  *1\.3% .*ReluGrad' "$tmux_screen"
    tap_check "$size: one name per column in the header" \
        sh -c "sed -n '/Allocations at peak\\|At peak (/{n;p;q}' '$tmux_screen' |
               grep -q 'size .*total .*share .*op'"
    memtop_quit "$size (names): q quits with status 0"
done

# ---- h/l: sideways, with a marker ----
for size in $sizes; do
    open_demo "$size"
    tmux_keys l l l l l l l l l l
    if table_wait holds 'gradients/model/dense_94/Relu_grad/ReluGrad' &&
        heading_line | grep -q '◂'; then
        tap_ok "$size: l scrolls the table sideways to the whole name, ◂ marks it"
    else
        tap_not_ok "$size: l scrolls the table sideways to the whole name, ◂ marks it"
    fi
    tmux_keys h h h h h h h h h h
    if tmux_wait_gone "◂" && heading_line | grep -q 'size'; then
        tap_ok "$size: h scrolls back"
    else
        tap_not_ok "$size: h scrolls back"
    fi
    tmux_keys h
    tap_check "$size: h at the left edge says so" tmux_wait_for "the table is not scrolled"
    memtop_quit "$size (scroll): q quits with status 0"
done

# ---- sorting: one name everywhere, columns stay ----
for size in $sizes; do
    open_demo "$size"
    before=$(heading_line)
    tmux_keys '>'
    if tmux_wait_for "sorted by size, descending" && heading_line | grep -q 'size▼'; then
        tap_ok "$size: > sorts by size; the status line and the header say size"
    else
        tap_not_ok "$size: > sorts by size; the status line and the header say size"
    fi
    tmux_keys '<' '<'
    tap_check "$size: < past the first column sorts by op, the last" \
        tmux_wait_for "sorted by op, ascending"
    # Seven steps left of op: size, requested, count, total, share,
    # region, type, shape: shape.
    tmux_keys '<'
    tmux_wait_for "sorted by shape, ascending" >/dev/null
    after=$(heading_line)
    missing=""
    for word in $before; do
        echo "$after" | grep -q -w -e "$word" || missing="$missing $word"
    done
    if [ -z "$missing" ] && echo "$after" | grep -q 'shape▲'; then
        tap_ok "$size: sorting by shape shows it, and no other column goes"
    else
        echo "# before: $before; after: $after; missing:$missing" >>"$tmux_screen"
        tap_not_ok "$size: sorting by shape shows it, and no other column goes"
    fi
    memtop_quit "$size (sort): q quits with status 0"
done
"$memtop" --export allocations --sort size "$demo" >"$work/by-size.csv"
"$memtop" --export allocations --sort allocation_bytes "$demo" >"$work/by-bytes.csv"
tap_check "--sort size is --sort allocation_bytes" cmp -s "$work/by-size.csv" "$work/by-bytes.csv"

# ---- the filter, the least size ----
for size in $sizes; do
    open_demo "$size"
    tmux_keys /
    tmux_text dense_2
    tmux_keys Enter
    tap_check "$size: filtered, the title keeps the rows' total" \
        tmux_wait_for "540.00 MiB of 7.17 GiB"
    tmux_keys Escape /
    tmux_text persist
    tmux_keys Enter
    if tmux_wait_for "1 of 293 rows match" && table_wait lacks "ReluGrad" &&
        table_area | grep -q "unused preallocated"; then
        tap_ok "$size: / finds a region (persist) as well as op names"
    else
        tap_not_ok "$size: / finds a region (persist) as well as op names"
    fi
    tmux_keys Escape /
    tmux_text '[8,512,768]'
    tmux_keys Enter
    if tmux_wait_for "142 of 293 rows match" && table_area | grep -q "BiasAdd" &&
        ! table_area | grep -q "ReluGrad"; then
        tap_ok "$size: / finds a shape"
    else
        tap_not_ok "$size: / finds a shape"
    fi
    tmux_keys Escape
    memtop_quit "$size (filter): q quits with status 0"
done
shown=$(($("$memtop" --export allocations --min-size 1MiB "$demo" | wc -l) - 1))
state="$work/state-least"
memtop_viewer 80 24 "XDG_STATE_HOME='$state'" "$demo"
tmux_wait_for "allocator GPU_0_bfc (1/3)" >/dev/null
tmux_keys H
if tmux_wait_for "≥1 MiB" && grep -q "($shown)" "$tmux_screen" &&
    grep -q "rows holding less than 1.00 MiB hidden: $shown of 293 shown" "$tmux_screen"; then
    tap_ok "80x24: H hides the rows under 1 MiB; the title says so"
else
    tap_not_ok "80x24: H hides the rows under 1 MiB; the title says so"
fi
memtop_quit "80x24 (least size): q quits with status 0"
tap_check "the least size is remembered" \
    grep -qx 'table.min_size=1048576' "$state/memtop/settings"
for size in 120x40 200x60; do
    # Each run from the state the 80x24 run left (the runs before change it).
    rm -rf "$state-$size"
    cp -R "$state" "$state-$size"
    memtop_viewer "${size%x*}" "${size#*x}" "XDG_STATE_HOME='$state-$size'" "$demo"
    tap_check "$size: the next run hides them again" tmux_wait_for "≥1 MiB"
    tmux_keys H H H H
    tap_check "$size: H through 16 MiB, 256 MiB, 1 GiB, back to every row" \
        tmux_wait_for "every row shown, whatever its size"
    memtop_quit "$size (least size): q quits with status 0"
done

# ---- grouping by op scope: ncdu's tree ----
"$memtop" --export allocations --group-by scope:model/ "$demo" >"$work/model-scopes.csv"
for size in $sizes; do
    open_demo "$size"
    tmux_keys t
    if tmux_wait_for "by scope" && grep -q '4\.37 GiB .* 285  *model/' "$tmux_screen" &&
        grep -q '141\.00 MiB .* 5  *gradients/' "$tmux_screen"; then
        tap_ok "$size: t groups by op scope: model/ and gradients/ with their totals"
    else
        tap_not_ok "$size: t groups by op scope: model/ and gradients/ with their totals"
    fi
    tmux_keys Enter
    if tmux_wait_for "in model/" && tmux_wait_for "dense_26/" &&
        grep -q '90\.00 MiB .* 3  *dense_26/' "$tmux_screen"; then
        tap_ok "$size: Enter opens model/: its layers, largest first (dense_26/: 90 MiB, 3 rows)"
    else
        tap_not_ok "$size: Enter opens model/: its layers, largest first (dense_26/: 90 MiB, 3 rows)"
    fi
    tmux_keys e
    tmux_wait_for "export allocations to:" >/dev/null
    tmux_keys C-u
    tmux_text "$work/groups-$size.csv"
    tmux_keys Enter
    if tmux_wait_for "rows to $work/groups-$size.csv" &&
        cmp -s "$work/groups-$size.csv" "$work/model-scopes.csv"; then
        tap_ok "$size: e on the groups writes them, as --group-by scope:model/ does"
    else
        tap_not_ok "$size: e on the groups writes them, as --group-by scope:model/ does"
    fi
    tmux_keys Enter
    if tmux_wait_for "3 rows, 90.00 MiB" && table_wait holds "model/dense_26/MatMul" &&
        [ "$(table_area | grep -c 'model/dense_26/[A-Z]')" -eq 3 ]; then
        tap_ok "$size: Enter on a layer lists its ops"
    else
        tap_not_ok "$size: Enter on a layer lists its ops"
    fi
    tmux_keys BSpace
    if tmux_wait_gone "model/dense_26/MatMul" && tmux_wait_for "dense_50/"; then
        tap_ok "$size: Backspace goes back up"
    else
        tap_not_ok "$size: Backspace goes back up"
    fi
    tmux_keys h
    tap_check "$size: h at the left edge goes up too" tmux_wait_for "gradients/"
    tmux_keys t
    tap_check "$size: t again: by op (whole names)" tmux_wait_for "grouped by op,"
    tmux_keys t
    tap_check "$size: t again: not grouped" tmux_wait_for "not grouped: every row"
    memtop_quit "$size (groups): q quits with status 0"
done

# ---- Skyline: which line, which file ----
if "$build_dir/tests/generate_skyline" --case demo -o "$work/demo.sqlite" 2>/dev/null; then
    for size in $sizes; do
        memtop_viewer "${size%x*}" "${size#*x}" "" "$work/demo.sqlite"
        tmux_wait_for "Entries (19)" >/dev/null
        tmux_keys t
        if tmux_wait_for "by location" && grep -q 'model/net.py:33' "$tmux_screen"; then
            tap_ok "$size: t (one key) groups a report by location: its lines of code"
        else
            tap_not_ok "$size: t (one key) groups a report by location: its lines of code"
        fi
        tmux_keys t
        if tmux_wait_for "by file" && grep -q ' model/net.py *$' "$tmux_screen"; then
            tap_ok "$size: then by file"
        else
            tap_not_ok "$size: then by file"
        fi
        tmux_keys Enter
        # The title names the open file, cut in its middle when narrow.
        if tmux_wait_for "24.15 MiB of" &&
            table_area | grep -q 'Entries in \(model/\|…/\)net\.py\( ([0-9 of]*)\)\? · 24\.15 MiB of'; then
            tap_ok "$size: Enter on a file lists its rows; the title says which"
        else
            tap_not_ok "$size: Enter on a file lists its rows; the title says which"
        fi
        memtop_quit "$size (report groups): q quits with status 0"
    done
    "$memtop" --export allocations --group-by location "$work/demo.sqlite" >"$work/lines.csv"
    tap_check "--group-by location: one row per line of code" \
        grep -q '^model/net.py:33,' "$work/lines.csv"
else
    for size in $sizes; do
        for name in location file open quit; do tap_skip "no generate_skyline ($name)"; done
    done
    tap_skip "no generate_skyline (--group-by location)"
fi

# ---- rows whose indices point nowhere: said alike everywhere ----
unresolved="$work/unresolved.json"
printf '%s' '{"memoryProfilePerAllocator":{"GPU_0_bfc":{"profileSummary":{"peakBytesInUse":' \
    '"1048576","peakStats":{"heapAllocatedBytes":"1048576"}},"sampledTimelineSnapshots":[' \
    '{"timeOffsetPs":"1000000000","aggregationStats":{"heapAllocatedBytes":"1048576",' \
    '"peakBytesInUse":"1048576"},"activityMetadata":{"memoryActivity":"ALLOCATION",' \
    '"allocationBytes":"1048576","tfOpName":"model/dense/MatMul"}}],"activeAllocations":' \
    '[{"snapshotIndex":"0","specialIndex":"-1","numOccurrences":"15"}]}},"numHosts":1,' \
    '"memoryIds":["GPU_0_bfc"],"version":1}' >"$unresolved"
"$memtop" --summary "$unresolved" >"$work/summary" 2>&1
tap_check "--summary: ? x15 (unresolved: snapshot 0), then why" \
    sh -c "grep -q '^ *? *x15 *(unresolved: snapshot 0)\$' '$work/summary' &&
           grep -q 'snapshot index points past the file.s snapshot list' '$work/summary'"
for size in $sizes; do
    memtop_viewer "${size%x*}" "${size#*x}" "" "$unresolved"
    if tmux_wait_for "(unresolved: snapshot" && grep -q ' ? *15 *? *? *(unresolved' "$tmux_screen" &&
        grep -q "snapshot index points past" "$tmux_screen"; then
        tap_ok "$size: the table says ? and (unresolved: snapshot 0), and why, once"
    else
        tap_not_ok "$size: the table says ? and (unresolved: snapshot 0), and why, once"
    fi
    memtop_quit "$size (unresolved): q quits with status 0"
done

tap_done
