#!/bin/sh
# Files cut short and files that are no memory profile, as a person meets
# them on the command line (issue 25 item 6): a Chrome trace cut anywhere
# (inside an event, inside its gzip data) reads the whole events before
# the cut, with a warning naming the offset, status 0; an XSpace cut
# short says the file ends early; a file no format claims says "not a
# memory profile" and what it looks like; JAX's trace.json.gz points to
# the .xplane.pb beside it. Prints TAP.
set -u
source_dir="${MEMTOP_SRCDIR:-.}"
. "$source_dir/tests/lib.sh"
work=$test_work
generate_trace="${MEMTOP_BUILDDIR:-.}/tests/generate_trace"
generate_xspace="${MEMTOP_BUILDDIR:-.}/tests/generate_xspace"

# ---- a PyTorch trace cut inside an event ----
"$generate_trace" --producer pytorch --steps 6 --events 400 >"$work/whole.json"
size=$(wc -c <"$work/whole.json")
half=$((size / 2 + 1))
head -c "$half" "$work/whole.json" >"$work/cut.json"
memtop_run --summary "$work/cut.json"
memtop_expect "a trace cut inside an event: the events before it read, status 0" 0 \
    err "^memtop: $work/cut.json: warning: the trace ends inside an event at offset [0-9][0-9]* (still being written or copied?): the [0-9][0-9]* whole events before it are read$" \
    out "^  Snapshots  *[0-9][0-9]*"
head -c 2000 "$work/whole.json" >"$work/early.json"
memtop_run --summary "$work/early.json"
memtop_expect "a trace cut before any memory event: status 2, the cut said" 2 \
    err "no memory events before the trace ends at offset [0-9][0-9]*, cut short (still being written or copied?)$"

# ---- the same, gzip-compressed and cut inside the gzip data ----
gzip -n -c "$work/whole.json" >"$work/whole.json.gz"
gz_size=$(wc -c <"$work/whole.json.gz")
head -c $((gz_size * 2 / 3)) "$work/whole.json.gz" >"$work/cut.json.gz"
memtop_run --summary "$work/cut.json.gz"
memtop_expect "a gzip trace cut short: what inflates before the cut is read, status 0" 0 \
    err "warning: the gzip data ends early at offset $((gz_size * 2 / 3)) (still being written or copied?): what came before it is read$" \
    out "^  Snapshots  *[0-9][0-9]*"
# A MemoryProfile cut short is still refused (its JSON must be whole).
generated_profile "$work/mp.json.gz" 3 1
head -c 3000 "$work/mp.json.gz" >"$work/mp-cut.json.gz"
memtop_run --summary "$work/mp-cut.json.gz"
memtop_expect "a MemoryProfile gzip cut short: still refused, status 2" 2 \
    err "offset 3000: truncated gzip data$"

# ---- an XSpace cut short ----
"$generate_xspace" --style tpu --devices 2 -o "$work/tpu.xplane.pb"
head -c 5000 "$work/tpu.xplane.pb" >"$work/cut.xplane.pb"
memtop_run --summary "$work/cut.xplane.pb"
memtop_expect "an XSpace cut short: the file ends early, with the offset, status 2" 2 \
    err "^memtop: $work/cut.xplane.pb: offset [0-9][0-9]*: the file ends early (still being written or copied?): length [0-9][0-9]* runs past the end of the data (5000 bytes)$"

# ---- files that are no memory profile ----
printf 'PK\003\004\024\000\000\000\010\000archive/data.pkl' >"$work/model.pt"
printf '\223NUMPY\001\000v\000{"descr": "<f4"}' >"$work/array.npy"
printf '\211HDF\r\n\032\n\000\000\000\000' >"$work/weights.h5"
printf '\177ELF\002\001\001\000\000\000\000\000' >"$work/a.out"
printf '\030\000\000\000\000\000\000\000\000\000\000\000\011\000\000\000\000\000\000\360\077\032\015brain.Event:2' \
    >"$work/events.out.tfevents.1.host"
printf 'hello, this is text\n' | gzip -n >"$work/notes.gz"
gzip -n -c "$work/a.out" >"$work/a.out.gz"
wrong() { # NAME FILE WORDS
    memtop_run --summary "$2"
    memtop_expect "$1" 2 err "^memtop: $2: not a memory profile: $3"
}
wrong "a ZIP archive: a PyTorch checkpoint?" "$work/model.pt" "a ZIP archive (a PyTorch checkpoint?"
wrong "a NumPy array" "$work/array.npy" "a NumPy array (.npy)$"
wrong "an HDF5 file" "$work/weights.h5" "an HDF5 file"
wrong "an ELF binary" "$work/a.out" "an ELF binary"
wrong "a TensorBoard event file (by its first record)" "$work/events.out.tfevents.1.host" \
    "a TensorBoard event file"
cp "$work/events.out.tfevents.1.host" "$work/ev.bin"
wrong "a TensorBoard event file without its name" "$work/ev.bin" "a TensorBoard event file"
wrong "gzip of text" "$work/notes.gz" 'gzip of text ("hello, this is text ")'
wrong "gzip of an ELF binary" "$work/a.out.gz" "gzip of an ELF binary"

# ---- JAX's trace beside its XSpace ----
mkdir -p "$work/jax"
printf '{"traceEvents":[{"ph":"X","pid":1,"tid":1,"ts":1,"dur":2,"name":"fusion"}]}' |
    gzip -n >"$work/jax/host.trace.json.gz"
memtop_run --summary "$work/jax/host.trace.json.gz"
memtop_expect "JAX's trace.json.gz alone: no memory events" 2 "err" "no memory events in this trace"
cp "$work/tpu.xplane.pb" "$work/jax/host.xplane.pb"
memtop_run --summary "$work/jax/host.trace.json.gz"
memtop_expect "JAX's trace.json.gz beside its .xplane.pb: pointed to it" 2 \
    err "JAX keeps the memory events in the XSpace beside it: open $work/jax/host.xplane.pb$"

tap_done
