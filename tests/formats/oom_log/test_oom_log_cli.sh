#!/bin/sh
# OOM logs end to end (issue 24): logs of tests/generate_oom_log (each
# kind, each log prefix, tabs and spaces, wrapped op names, several
# reports in one log) through memtop --summary --json, every field of the
# allocator's "oom" against the numbers the generator wrote; standard
# input and gzip; the text card of the hand-written fixtures. Prints TAP.
set -u
source_dir="${MEMTOP_SRCDIR:-.}"
build_dir="${MEMTOP_BUILDDIR:-.}"
. "$source_dir/tests/lib.sh"
work=$test_work
generate="$build_dir/tests/generate_oom_log"
data="$source_dir/tests/formats/oom_log/data"

# json_field NAME: the value of "NAME": in $work/out (the first one; for
# the OOM's own fields, the one in "oom").
json_field() {
    case $1 in
        requested_bytes | allocated_bytes | reserved_bytes | device_free_bytes | \
            largest_free_bytes) grep -o '"oom":{[^}]*}' "$work/out" | head -n 1 ;;
        *) cat "$work/out" ;;
    esac | grep -o "\"$1\":[^,}]*" | head -n 1 | sed "s/^\"$1\"://; s/\"//g"
}

# check_log NAME GENERATOR-OPTIONS...: the generated log's --summary --json
# against the generator's expect file.
check_log() {
    name=$1
    shift
    if ! "$generate" "$@" -o "$work/job.log" --expect "$work/expect"; then
        tap_not_ok "$name: the generator runs"
        return
    fi
    memtop_run --summary --json "$work/job.log"
    : >"$work/diff"
    want() { awk -F '\t' -v k="$1" '$1 == k { print $2 }' "$work/expect"; }
    for pair in id:allocator requested_bytes:requested allocated_bytes:allocated \
                reserved_bytes:reserved device_free_bytes:device_free \
                largest_free_bytes:largest_free capacity_bytes:capacity \
                active_allocations:rows oom_count:; do
        key=${pair%%:*} expected=${pair#*:}
        got=$(json_field "$key")
        case $expected in
            '') wanted=1 ;;
            *) wanted=$(want "$expected") ;;
        esac
        [ "$got" = "$wanted" ] || echo "# $key: got '$got', want '$wanted'" >>"$work/diff"
    done
    warnings=$(grep -c ': warning: line [0-9]*: another out-of-memory report' "$work/err")
    [ "$warnings" = "$(want warnings)" ] ||
        echo "# warnings: got $warnings, want $(want warnings)" >>"$work/diff"
    [ "$status" -eq 0 ] || echo "# status $status" >>"$work/diff"
    if [ -s "$work/diff" ]; then
        tap_not_ok "$name" "$work/diff" "$work/err"
    else
        tap_ok "$name"
    fi
}

seed=1
for kind in xla bfc torch; do
    for prefix in none tf absl runner; do
        check_log "$kind, prefix $prefix" --kind "$kind" --prefix "$prefix" --seed $seed
        seed=$((seed + 1))
    done
    check_log "$kind, 8 spaces for tabs, wrapped names" --kind "$kind" --spaces --wrap \
        --buffers 7 --seed $seed
    check_log "$kind, the last of 4 reports" --kind "$kind" --reports 4 --prefix tf --seed $seed
done
check_log "xla, no buffers" --kind xla --buffers 0 --seed 99

# Standard input and gzip, detected by content.
"$generate" --kind bfc --prefix tf --seed 5 -o "$work/bfc.log" --expect "$work/expect"
"$memtop" --summary --json - <"$work/bfc.log" >"$work/out" 2>"$work/err"; status=$?
memtop_expect "standard input: read by content" 0 out '"format":"oom-log"'
gzip -c "$work/bfc.log" >"$work/bfc.log.gz"
memtop_run --summary --json "$work/bfc.log.gz"
memtop_expect "gzip: read by content" 0 out '"format":"oom-log","gzip":true'

# The hand-written fixtures' cards, as a person reads them.
memtop_run --summary "$data/bfc_tf.txt"
memtop_expect "BFC dump: the card's request, its op and the largest free block" 0 \
    out "^  Out of memory, requested by dual_encoder_all/model_1/conv2d_17/Relu_1$" \
    out "^    Requested  *488\\.28 MiB$" out "^    Largest free block  *256\\.00 MiB$" \
    out "^    Capacity  *2\\.00 GiB$"
memtop_expect "BFC dump: the verdict, the Stats, the memory map" 0 \
    out "^    The request (488\\.28 MiB) was larger than all free memory (384\\.00 MiB)" \
    out "^      MaxAllocSize  *1073741824$" out "^      ################\\.\\.\\.\\.\\.\\.\\.\\.#"
memtop_run --summary "$data/torch_new.txt"
memtop_expect "PyTorch: fragmentation, with the free memory on the device" 0 \
    out "^    Free on the device  *3\\.50 MiB$" \
    out "^    Enough memory was free (1\\.20 GiB in all), but no free block was large"
memtop_run --summary "$data/xla_tabs.txt"
memtop_expect "XLA: the top holders by location, the entry parameter by name" 0 \
    out "^          6\\.00 MiB  /media/user/internal/models\\.py:689$" \
    out "^        384\\.00 KiB  entry parameter$"
printf 'Epoch 1\nTraceback (most recent call last):\nValueError: bad\n' >"$work/plain.log"
memtop_run --summary "$work/plain.log"
memtop_expect "a log without an OOM report: not a memory profile" 2 err "not a memory profile"
tap_done
