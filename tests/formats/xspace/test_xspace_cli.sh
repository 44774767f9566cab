#!/bin/sh
# XSpace captures (.xplane.pb) on the command line: --summary and its JSON,
# gzip input, run directories with dotted host names, hostile strings kept
# off the terminal, and every bad input refused with one line "memtop:
# FILE: ..." and status 2. Prints TAP.
set -u
source_dir="${MEMTOP_SRCDIR:-.}"
build_dir="${MEMTOP_BUILDDIR:-.}"
. "$source_dir/tests/lib.sh"
work=$test_work
generator="$build_dir/tests/generate_xspace"
json_check="$build_dir/tests/json_check"

"$generator" --style tf-gpu --steps 2 --memory-events 200 -o "$work/host.xplane.pb" \
    --expect "$work/host.expect"
memtop_run --summary --json "$work/host.xplane.pb"
memtop_expect "--summary --json of an XSpace" 0 out '"format":"xspace"' \
    out '"timeline_sampled":false' out '"id":"GPU_0_bfc"' out '"version":1,"hosts":1'
peak=$(sed -n 's/^peak_bytes_in_use //p' "$work/host.expect" | head -n 1)
memtop_expect "the peak is XProf's" 0 out "\"peak\":{\"bytes\":$peak,"

memtop_run --summary "$work/host.xplane.pb"
memtop_expect "--summary text names the format, no version (the timeline is complete)" 0 \
    out "host.xplane.pb: xspace, [0-9][0-9]* allocators*$" out "^GPU_0_bfc"
if grep -q "version" "$test_work/out"; then
    tap_not_ok "--summary text of an XSpace says no version" "$test_work/out"
else
    tap_ok "--summary text of an XSpace says no version"
fi

gzip -c "$work/host.xplane.pb" >"$work/zipped.xplane.pb.gz"
memtop_run --summary --json "$work/zipped.xplane.pb.gz"
memtop_expect "gzip input" 0 out '"format":"xspace","gzip":true'

memtop_run --summary --json "$source_dir/data/real/jax-mlp-steps.xplane.pb.gz"
memtop_expect "a real JAX capture" 0 out '"id":"GPU_0_bfc","snapshots":96,"allocations":48' \
    out '"id":"xla_gpu_host_bfc","snapshots":12'

mkdir -p "$work/run"
cp "$work/host.xplane.pb" "$work/run/BlueDiamond.local.xplane.pb"
cp "$work/host.xplane.pb" "$work/run/10.0.0.2_8466.xplane.pb"
memtop_run --summary --json "$work/run"
memtop_expect "a run directory: hosts are file names minus .xplane.pb" 0 \
    out '"host":"10.0.0.2_8466"' out '"host":"BlueDiamond.local"'

"$generator" --style jax-gpu --hostile --odd -o "$work/hostile.xplane.pb"
memtop_run --summary "$work/hostile.xplane.pb"
if [ "$status" -eq 0 ] && ! LC_ALL=C grep -q "$(printf '\033')" "$work/out"; then
    tap_ok "hostile strings stay off the terminal in --summary"
else
    tap_not_ok "hostile strings stay off the terminal in --summary" "$work/out" "$work/err"
fi
memtop_run --summary --json "$work/hostile.xplane.pb"
if [ "$status" -eq 0 ] && "$json_check" "$work/out" >"$work/check" 2>&1; then
    tap_ok "hostile strings give valid JSON"
else
    tap_not_ok "hostile strings give valid JSON" "$work/check" "$work/err"
fi

# refused NAME FILE PATTERN: status 2, one line "memtop: FILE: PATTERN"
refused() {
    memtop_run --summary "$2"
    lines=$(wc -l <"$work/err")
    if [ "$status" -eq 2 ] && [ "$lines" -eq 1 ] && [ ! -s "$work/out" ] &&
        grep -q -E -e "^memtop: $2: $3" "$work/err"; then
        tap_ok "$1"
    else
        echo "# status $status, expected 2 and: memtop: $2: $3" >>"$work/err"
        tap_not_ok "$1" "$work/err" "$work/out"
    fi
}

: >"$work/big.xplane.pb"
refused "a 0-byte .xplane.pb" "$work/big.xplane.pb" \
    'empty: protobuf cannot hold a capture over 2 GiB; XProf writes an empty file then$'
printf '\203\257\160\321\015\210\112\077\000\000\000\000\000\000\000\000' >"$work/host.xplane.riegeli"
refused "Riegeli XSpace" "$work/host.xplane.riegeli" 'a Riegeli XSpace .* not supported yet'
printf '\012\017\022\015/device:GPU:0' >"$work/device.xplane.pb"
refused "no /host:CPU plane" "$work/device.xplane.pb" \
    'no host plane: this capture has no memory events$'
printf '\012\013\022\011/host:CPU' >"$work/quiet.xplane.pb"
refused "a host plane without memory events" "$work/quiet.xplane.pb" \
    'no memory events in the host plane: capture with host_tracer_level >= 2 .*jax-ml/jax#22890\)$'
size=$(wc -c <"$work/host.xplane.pb")
head -c $((size / 2)) "$work/host.xplane.pb" >"$work/cut.xplane.pb"
refused "a truncated capture names the offset" "$work/cut.xplane.pb" 'offset [0-9]+: .*runs past'

# The viewer on a TPU capture: the format, the allocators "0".."3", the
# allocations live at the peak (issue 22: what was allocated before the
# capture in words, no longer XProf's "unused preallocated" row) and the
# HLO modules with their device.
if tmux_have && locale -a 2>/dev/null | grep -qi '^c\.utf-\?8$'; then
    "$generator" --style tpu --steps 2 --memory-events 200 -o "$work/tpu.xplane.pb"
    tmux_start 160 45 "env -u NO_COLOR LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=tmux-256color \
'$memtop' '$work/tpu.xplane.pb'; echo EXIT=\$?; sleep 60"
    if tmux_wait_for "xplane.pb  xspace " && ! grep -q "xspace v" "$tmux_screen" &&
        tmux_wait_for "allocator 0 (1/4)" &&
        tmux_wait_for "Allocations live at peak" && tmux_wait_for "allocated before the profile" &&
        tmux_wait_for "TPU:0"; then
        tap_ok "the viewer shows an XSpace: allocators, the peak table, HLO modules by device"
    else
        tap_not_ok "the viewer shows an XSpace: allocators, the peak table, HLO modules by device" \
            "$tmux_screen"
    fi
    tmux_keys q
    tap_check "the viewer quits cleanly" tmux_wait_for "EXIT=0"
    # The header names the format without XProf's version (issue 22): the
    # 1 of a converted XSpace means a sample, and this timeline is whole.
    for size in "80 24" "200 60"; do
        memtop_viewer ${size% *} ${size#* } "" "$work/tpu.xplane.pb"
        if tmux_wait_for "allocator 0 (1/4)" && ! head -n 1 "$tmux_screen" | grep -q " v[0-9]" &&
            { [ "$size" = "80 24" ] || head -n 1 "$tmux_screen" | grep -q "xplane.pb  xspace  "; }; then
            tap_ok "the header at $size names no version"
        else
            tap_not_ok "the header at $size names no version" "$tmux_screen"
        fi
        memtop_quit "the viewer at $size quits cleanly"
    done
else
    for skipped in 1 2 3 4 5 6; do
        tap_skip "tmux or the C.UTF-8 locale missing: no viewer test"
    done
fi

tap_done
