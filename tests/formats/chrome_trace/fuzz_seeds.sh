# fuzz_seeds.sh: the seed corpus of fuzz_load_trace (seeds/trace), made in
# the fuzz runner's work directory. Sourced by tests/fuzz/run.sh (POSIX sh,
# set -eu) with $seeds (a harness seeds from $seeds/HARNESS or the directory
# run.sh names for it), $source_dir, $build (a scratch directory holding
# config.h), $cc, $extra_cflags, $extra_libs, MEMTOP_BUILDDIR (a configured
# build, when there is one) and say. Ends with ':' (see the end).
# Chrome traces: the real captures (data/real), small ones of both
# producers made by the trace generator (built on the fly when there is no
# configured build), and memtop's own export when there is a memtop.
mkdir -p "$seeds/trace"
for file in "$source_dir"/data/real/*.trace.json.gz; do
    [ -f "$file" ] && gzip -dc "$file" >"$seeds/trace/$(basename "$file" .gz)"
done
trace_generator=""
if [ -n "${MEMTOP_BUILDDIR:-}" ] && [ -x "$MEMTOP_BUILDDIR/tests/generate_trace" ]; then
    trace_generator="$MEMTOP_BUILDDIR/tests/generate_trace"
elif "$cc" -O1 -I"$build" -I"$source_dir" "$source_dir"/tests/formats/chrome_trace/generate_trace*.c -lz \
        -o "$build/generate_trace" 2>/dev/null; then
    trace_generator="$build/generate_trace"
fi
if [ -n "$trace_generator" ]; then
    n=0
    for options in "--producer pytorch --tiny" "--producer timeline --tiny" \
                   "--producer pytorch --events 60 --hostile --schedule --oom --devices 2" \
                   "--producer timeline --events 60 --hostile" \
                   "--producer pytorch --tiny --timestamps absolute --ending bare-unterminated-comma" \
                   "--producer timeline --tiny --ending bare-trailing-comma"; do
        n=$((n + 1))
        # shellcheck disable=SC2086 # the option lists are meant to split
        "$trace_generator" $options -o "$seeds/trace/generated$n.trace.json"
    done
    if [ -n "${MEMTOP_BUILDDIR:-}" ] && [ -x "$MEMTOP_BUILDDIR/memtop" ]; then
        "$MEMTOP_BUILDDIR/memtop" --export chrome-trace "$seeds/trace/generated1.trace.json" \
            >"$seeds/trace/export.trace.json" 2>/dev/null || rm -f "$seeds/trace/export.trace.json"
    fi
fi
# The last status is the dot command's, which set -e in run.sh reads.
:
