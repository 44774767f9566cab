# fuzz_seeds.sh: the seed corpus of fuzz_torch_snapshot, made in
# the fuzz runner's work directory. Sourced by tests/fuzz/run.sh (POSIX sh,
# set -eu) with $seeds (a harness seeds from $seeds/HARNESS or the directory
# run.sh names for it), $source_dir, $build (a scratch directory holding
# config.h), $cc, $extra_cflags, $extra_libs, MEMTOP_BUILDDIR (a configured
# build, when there is one) and say. Ends with ':' (see the end).
# PyTorch memory snapshots: the real capture and small generated ones
# (every protocol, a ring buffer, stacks='python', an OOM).
mkdir -p "$seeds/torch_snapshot"
for file in "$source_dir"/data/real/*.pickle.gz; do
    [ -f "$file" ] && gzip -dc "$file" >"$seeds/torch_snapshot/$(basename "$file" .gz).torch_snapshot"
done
snapshot_generator=""
if [ -n "${MEMTOP_BUILDDIR:-}" ] &&
    [ -x "$MEMTOP_BUILDDIR/tests/generate_torch_snapshot" ]; then
    snapshot_generator="$MEMTOP_BUILDDIR/tests/generate_torch_snapshot"
elif "$cc" -O1 -I"$build" -I"$source_dir" "$source_dir"/tests/formats/torch_snapshot/generate_torch_snapshot*.c \
        "$source_dir/tests/formats/torch_snapshot/pickle_writer.c" \
        -o "$build/generate_torch_snapshot" 2>/dev/null; then
    snapshot_generator="$build/generate_torch_snapshot"
fi
if [ -n "$snapshot_generator" ]; then
    n=0
    for options in "--entries 60 --devices 1 --params 3" "--entries 80 --max-entries 40 --protocol 2" \
                   "--entries 60 --python-only --protocol 5 --oom" \
                   "--entries 1100 --devices 1 --params 2"; do
        # (the last: a trace of two batches, whose second the reader claims)
        n=$((n + 1))
        # shellcheck disable=SC2086 # the option lists are meant to split
        "$snapshot_generator" $options -o "$seeds/torch_snapshot/generated$n.torch_snapshot"
    done
fi
# The last status is the dot command's, which set -e in run.sh reads.
:
