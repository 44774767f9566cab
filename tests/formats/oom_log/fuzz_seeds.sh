# fuzz_seeds.sh: the seed corpus of fuzz_oom_log, made in the fuzz
# runner's work directory. Sourced by tests/fuzz/run.sh (POSIX sh, set -eu)
# with $seeds, $source_dir, $build, $cc and MEMTOP_BUILDDIR (see
# tests/formats/skyline/fuzz_seeds.sh). The hand-written logs of
# data/, and logs of each kind from the generator (built on the fly when
# no build has it).
mkdir -p "$seeds/oom_log"
for file in "$source_dir"/tests/formats/oom_log/data/*.txt; do
    [ -f "$file" ] && cp "$file" "$seeds/oom_log/$(basename "$file" .txt).oom_log"
done
oom_log_generator=""
if [ -n "${MEMTOP_BUILDDIR:-}" ] && [ -x "$MEMTOP_BUILDDIR/tests/generate_oom_log" ]; then
    oom_log_generator="$MEMTOP_BUILDDIR/tests/generate_oom_log"
elif "$cc" -O1 -I"$build" -I"$source_dir" "$source_dir/tests/formats/oom_log/generate_oom_log.c" \
        -lm -o "$build/generate_oom_log" 2>/dev/null; then
    oom_log_generator="$build/generate_oom_log"
fi
if [ -n "$oom_log_generator" ]; then
    n=0
    for options in "--kind xla --buffers 3" "--kind bfc --prefix tf --buffers 6" \
                   "--kind torch --prefix runner" "--kind xla --spaces --wrap --prefix absl" \
                   "--kind bfc --reports 3"; do
        n=$((n + 1))
        # shellcheck disable=SC2086 # the option lists are meant to split
        "$oom_log_generator" $options --seed $n -o "$seeds/oom_log/generated$n.oom_log"
    done
fi
# The last status is the dot command's, which set -e in run.sh reads.
:
