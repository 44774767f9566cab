# fuzz_seeds.sh: the seed corpus of fuzz_load_xspace (seeds/xspace), made in
# the fuzz runner's work directory. Sourced by tests/fuzz/run.sh (POSIX sh,
# set -eu) with $seeds (a harness seeds from $seeds/HARNESS or the directory
# run.sh names for it), $source_dir, $build (a scratch directory holding
# config.h), $cc, $extra_cflags, $extra_libs, MEMTOP_BUILDDIR (a configured
# build, when there is one) and say. Ends with ':' (see the end).
# XSpace captures: small ones of every style from the XSpace generator
# (built on the fly when no build has it), and the real JAX captures.
mkdir -p "$seeds/xspace"
xspace_generator=""
if [ -n "${MEMTOP_BUILDDIR:-}" ] && [ -x "$MEMTOP_BUILDDIR/tests/generate_xspace" ]; then
    xspace_generator="$MEMTOP_BUILDDIR/tests/generate_xspace"
elif "$cc" -O1 -I"$build" -I"$source_dir" "$source_dir/tests/formats/xspace/generate_xspace.c" \
        "$source_dir"/tests/formats/xspace/xspace_gen/*.c -lm -o "$build/generate_xspace" 2>/dev/null; then
    xspace_generator="$build/generate_xspace"
fi
if [ -n "$xspace_generator" ]; then
    n=0
    for options in "--style tf-gpu --steps 2 --memory-events 40" \
                   "--style jax-gpu --steps 2" \
                   "--style tpu --devices 2 --steps 2 --memory-events 30" \
                   "--style tf-gpu --steps 2 --memory-events 60 --odd" \
                   "--style jax-gpu --steps 2 --odd --hostile --strings str" \
                   "--style tpu --devices 1 --steps 2 --memory-events 20 --big-ids --odd" \
                   "--style tf-gpu --steps 1 --memory-events 30 --markers no --while-loop"; do
        n=$((n + 1))
        # shellcheck disable=SC2086 # the option lists are meant to split
        "$xspace_generator" $options -o "$seeds/xspace/generated$n.xplane.pb"
    done
else
    say "no XSpace generator: seeding load_xspace from data/real only"
fi
for file in "$source_dir"/data/real/*.xplane.pb.gz; do
    [ -f "$file" ] && gzip -dc "$file" >"$seeds/xspace/$(basename "$file" .gz)"
done
# The last status is the dot command's, which set -e in run.sh reads.
:
