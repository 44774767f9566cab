# fuzz_seeds.sh: the seed corpus of fuzz_load_skyline, made in
# the fuzz runner's work directory. Sourced by tests/fuzz/run.sh (POSIX sh,
# set -eu) with $seeds (a harness seeds from $seeds/HARNESS or the directory
# run.sh names for it), $source_dir, $build (a scratch directory holding
# config.h), $cc, $extra_cflags, $extra_libs, MEMTOP_BUILDDIR (a configured
# build, when there is one) and say. Ends with ':' (see the end).
# Skyline reports (see fuzz_load_skyline.c): a first byte 0 and a report
# of each case of the Skyline generator (built on the fly when no build
# has it); an odd first byte and a program of rows: weights (opcode 0),
# activations (1), stack_correlation (2), stack_frames (3), the peak (4),
# user_version (5), damage (7), over Skyline's schema (1), in WAL mode
# (3) or over tables without types (5, 7).
mkdir -p "$seeds/load_skyline"
skyline_generator=""
# shellcheck disable=SC2086 # pkg-config's flags are meant to split
if [ -n "${MEMTOP_BUILDDIR:-}" ] && [ -x "$MEMTOP_BUILDDIR/tests/generate_skyline" ]; then
    skyline_generator="$MEMTOP_BUILDDIR/tests/generate_skyline"
elif "$cc" -O1 -I"$build" -I"$source_dir" $extra_cflags "$source_dir/tests/formats/skyline/generate_skyline.c" \
        "$source_dir/tests/formats/skyline/skyline_report_maker.c" $extra_libs -o "$build/generate_skyline" \
        2>/dev/null; then
    skyline_generator="$build/generate_skyline"
fi
if [ -n "$skyline_generator" ]; then
    for case_name in demo no-gradients hostile no-peak other; do
        "$skyline_generator" --case "$case_name" -o "$build/$case_name.sqlite"
        { printf '\000'; cat "$build/$case_name.sqlite"; } \
            >"$seeds/load_skyline/$case_name.load_skyline"
        rm -f "$build/$case_name.sqlite"
    done
else
    say "no Skyline generator: seeding load_skyline with row programs only"
fi
# Each printf is one operation (the first holds the flags byte too).
{
    printf '\001\000\001\006weight\002\003\000\002\003\000'
    printf '\002\001\001\000\001'
    printf '\003\001\000\000\010model.py\000\016'
    printf '\003\001\000\001\010train.py\000\051'
    printf '\001\001\006conv2d\002\020\000'
    printf '\002\002\001\000\002'
    printf '\003\002\000\000\010model.py\000\036'
    printf '\001\002\004view\000\000'
    printf '\001\003\004add_\000\370'
    printf '\004\002\000\001'
} >"$seeds/load_skyline/rows.load_skyline"
{
    printf '\003\000\000\001w\003\000\003\000'
    printf '\000\000\001b\003\000\003\001'
    printf '\002\001\001\000\001'
    printf '\003\001\000\000\001f\003\001'
    printf '\004\003\001'
} >"$seeds/load_skyline/wal-extremes.load_skyline"
{
    printf '\007\000\001\001w\006\004\000\000\000\000\000\000\360\077'
    printf '\000\001\001w\005\00212\007\001\001'
    printf '\001\001\001a\007\001x'
    printf '\002\001\001\005\0011'
    printf '\006\020peak_usage_bytes\005\003big'
    printf '\005\377\377'
} >"$seeds/load_skyline/loose.load_skyline"
{
    printf '\001\000\001\001w\002\001\000\000\000'
    printf '\004\000\100'
    printf '\007\034\000\377'
} >"$seeds/load_skyline/damaged.load_skyline"
# The last status is the dot command's, which set -e in run.sh reads.
:
