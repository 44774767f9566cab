#!/bin/sh
# run.sh [SECONDS] [HARNESS...]: builds memtop's fuzz harnesses with clang
# (libFuzzer + ASan + UBSan, LeakSanitizer included), replays the crash
# regressions, then fuzzes each harness for SECONDS (default 60).
#
# HARNESS is any of load_protobuf load_json load_gzip load_trace csv_writer
# load_xspace load_skyline (default: all). The sources are compiled straight from the tree into a temporary
# directory, so no configured build is needed; protoc-c generates the
# .proto's C code there. Prints what it runs and the executions of each
# harness; exits 1 when a harness found a crash (its input's path is
# printed) and 2 when it cannot build.
#
# Environment:
#   FUZZ_CC          the compiler (default clang)
#   FUZZ_WORK        keep the build and the grown corpora here (default: a
#                    temporary directory, removed at the end unless a crash
#                    was found); a kept FUZZ_WORK makes the next run resume
#                    from the corpora it grew
#   FUZZ_MAX_LEN     the largest input (default 1 MiB; longer seeds are cut)
#   FUZZ_JOBS        parallel fuzzing processes per harness (default 1)
#   FUZZ_ARGS        more libFuzzer flags, e.g. "-only_ascii=1"
#   MEMTOP_BUILDDIR  a configured build whose config.h and generator to use
set -eu

seconds=${1:-60}
[ $# -gt 0 ] && shift
harnesses=${*:-load_protobuf load_json load_gzip load_trace csv_writer load_xspace load_skyline}
case $seconds in
    '' | *[!0-9]*) echo "usage: $0 [SECONDS] [HARNESS...]" >&2; exit 2 ;;
esac

fuzz_dir=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$fuzz_dir/../.." && pwd)
cc=${FUZZ_CC:-clang}
max_len=${FUZZ_MAX_LEN:-1048576}
jobs=${FUZZ_JOBS:-1}
keep_work=false
if [ -n "${FUZZ_WORK:-}" ]; then
    work=$FUZZ_WORK
    keep_work=true
    mkdir -p "$work"
else
    work=$(mktemp -d "${TMPDIR:-/tmp}/memtop-fuzz-XXXXXX")
fi
cleanup() { $keep_work || rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

say() { printf 'fuzz: %s\n' "$*"; }
die() { printf 'fuzz: %s\n' "$*" >&2; exit 2; }

# ---- tools ----
command -v "$cc" >/dev/null 2>&1 ||
    die "$cc not found: install clang and libclang-rt-dev (e.g. clang libclang-rt-14-dev)"
command -v protoc-c >/dev/null 2>&1 || die "protoc-c not found: install protobuf-c-compiler"
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long s) { (void)d; (void)s; return 0; }\n' \
    >"$work/probe.c"
"$cc" -fsanitize=fuzzer,address,undefined "$work/probe.c" -o "$work/probe" 2>"$work/probe.log" ||
    { cat "$work/probe.log" >&2; die "$cc cannot build libFuzzer harnesses (libclang-rt-dev missing?)"; }

# ---- build ----
build="$work/build"
mkdir -p "$build/gen" "$build/obj"
if [ -n "${MEMTOP_BUILDDIR:-}" ] && [ -f "$MEMTOP_BUILDDIR/config.h" ]; then
    cp "$MEMTOP_BUILDDIR/config.h" "$build/config.h"
elif [ -f "$source_dir/config.h" ]; then
    cp "$source_dir/config.h" "$build/config.h"
else
    # What configure would define that the compiled sources need.
    printf '#define _GNU_SOURCE 1\n#define PACKAGE_STRING "memtop fuzz"\n' >"$build/config.h"
fi
protoc-c --proto_path="$source_dir/model/formats/memory_profile" --c_out="$build/gen" "$source_dir/model/formats/memory_profile/memory_profile.proto"
# shellcheck disable=SC2046 # pkg-config prints flags meant to split
extra_cflags=$(pkg-config --cflags libcjson libprotobuf-c zlib sqlite3 2>/dev/null || echo -I/usr/include/cjson)
extra_libs=$(pkg-config --libs libcjson libprotobuf-c zlib sqlite3 2>/dev/null || echo -lcjson -lprotobuf-c -lz -lsqlite3)
sanitize="-fsanitize=address,undefined -fno-sanitize-recover=all"
cflags="-std=gnu11 -g -O1 -fno-omit-frame-pointer $sanitize -I$build -I$source_dir -I$build/gen $extra_cflags"

say "building with $("$cc" --version | head -n1)"
objects=""
for source in $(find "$source_dir/model" -name "*.c" | sort) "$build/gen/memory_profile.pb-c.c" \
              "$source_dir"/report/*.c; do
    [ -f "$source" ] || continue
    # An in-tree build leaves its own generated copy in model/: ours is in gen/.
    case $source in *.pb-c.c) [ "$source" = "$build/gen/memory_profile.pb-c.c" ] || continue ;; esac
    object="$build/obj/$(basename "$source" .c).o"
    # shellcheck disable=SC2086
    "$cc" $cflags -fsanitize=fuzzer-no-link -c "$source" -o "$object" ||
        die "cannot compile $source"
    objects="$objects $object"
done
for harness in $harnesses; do
    harness_file=$(find "$source_dir/tests" -name "fuzz_$harness.c" | head -n 1)
    [ -n "$harness_file" ] || die "no harness $harness (tests/**/fuzz_$harness.c)"
    # The Skyline harness builds its databases with the tests' schema.
    harness_sources=""
    [ "$harness" = load_skyline ] && harness_sources="$source_dir/tests/formats/skyline/skyline_report_maker.c"
    # shellcheck disable=SC2086
    "$cc" $cflags -fsanitize=fuzzer "$harness_file" $harness_sources $objects \
        $extra_libs -lm \
        -o "$build/fuzz_$harness" || die "cannot link fuzz_$harness"
done

# ---- seeds ----
generator=""
if [ -n "${MEMTOP_BUILDDIR:-}" ] && [ -x "$MEMTOP_BUILDDIR/tests/generate_profile" ]; then
    generator="$MEMTOP_BUILDDIR/tests/generate_profile"
elif "$cc" -O1 -I"$build" -I"$source_dir" "$source_dir"/tests/formats/memory_profile/generate_profile*.c -lm \
        -o "$build/generate_profile" 2>/dev/null; then
    generator="$build/generate_profile"
fi
seeds="$work/seeds"
mkdir -p "$seeds/pb" "$seeds/json" "$seeds/gzip" "$seeds/trace" "$seeds/csv_writer"
for file in "$source_dir"/data/*.pb "$source_dir"/tests/fuzz/seeds/*.pb; do
    [ -f "$file" ] && cp "$file" "$seeds/pb/"
done
for file in "$source_dir"/data/*.json "$source_dir"/tests/fuzz/seeds/*.json \
            "$source_dir"/../shared/data/*.json; do
    [ -f "$file" ] && cp "$file" "$seeds/json/"
done
for file in "$source_dir"/data/*.gz; do
    [ -f "$file" ] || continue
    cp "$file" "$seeds/gzip/"
    case $file in
        *.pb.gz) gzip -dc "$file" >"$seeds/pb/$(basename "$file" .gz)" ;;
        *.json.gz) gzip -dc "$file" >"$seeds/json/$(basename "$file" .gz)" ;;
    esac
done
if [ -n "$generator" ]; then
    # Small profiles: each run of the harness is fast, so mutations are many.
    n=0
    for options in "--version 0 --snapshots 40 --allocators 1 --steps 2" \
                   "--version 1 --snapshots 300 --allocators 2 --steps 3 --hlo 2" \
                   "--version 0 --snapshots 60 --allocators 3 --steps 2 --unsorted" \
                   "--version 1 --snapshots 2000 --allocators 1 --steps 4 --hlo 1"; do
        n=$((n + 1))
        # shellcheck disable=SC2086 # the option lists are meant to split
        "$generator" $options --format pb -o "$seeds/pb/generated$n.pb"
        # shellcheck disable=SC2086
        "$generator" $options --format json -o "$seeds/json/generated$n.json"
    done
    # shellcheck disable=SC2086
    "$generator" --version 0 --snapshots 40 --allocators 1 --steps 2 --format json \
        --json-style snake -o "$seeds/json/generated-snake.json"
    # shellcheck disable=SC2086
    "$generator" --version 0 --snapshots 40 --allocators 1 --steps 2 --format json \
        --json-style numbers -o "$seeds/json/generated-numbers.json"
    for file in "$seeds"/pb/generated1.pb "$seeds"/json/generated2.json; do
        gzip -n -c "$file" >"$seeds/gzip/$(basename "$file").gz"
        # Payload + control byte: the harness compresses the payload itself.
        for control in A B G '$'; do
            { cat "$file"; printf '%s' "$control"; } >"$seeds/gzip/$(basename "$file")-$control"
        done
    done
else
    say "no profile generator: seeding from data/ and tests/fuzz/seeds only"
fi
# Chrome traces: the real captures (data/real), small ones of both
# producers made by the trace generator (built on the fly when there is no
# configured build), and memtop's own export when there is a memtop.
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

# CSV programs (see fuzz_csv_writer.c): opcode 0 text (length, bytes),
# 1 int, 2 unsigned, 3 double (8 bytes each), 4 bool, 5 empty, 6 fixed
# point (8 bytes, decimals), 7 end of record.
printf '\000\011=cmd|"x",\n\001\377\377\377\377\377\377\377\377\007' \
    >"$seeds/csv_writer/formula.csv_writer"
printf '\003\000\000\000\000\000\000\370\177\006\322\004\000\000\000\000\000\000\003\005\007\007' \
    >"$seeds/csv_writer/numbers.csv_writer"
printf '\000\004\047\047-1\004\001\000\003a\rb\007\002\377\377\377\377\377\377\377\377\007' \
    >"$seeds/csv_writer/quotes.csv_writer"
for harness in $harnesses; do
    for file in "$source_dir"/tests/fuzz/seeds/*."$harness"; do
        [ -f "$file" ] && mkdir -p "$seeds/$harness" && cp "$file" "$seeds/$harness/"
    done
done

# ---- replay the regressions, then fuzz ----
# A sanitizer report is a crash, with its stack; leaks are checked too.
# Harnesses that write files (load_skyline) write them under TMPDIR: the
# work directory, so a crash leaves nothing outside it.
mkdir -p "$work/tmp"
TMPDIR="$work/tmp"
export TMPDIR
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_OPTIONS UBSAN_OPTIONS
failed=0
report="$work/report"
: >"$report"
for harness in $harnesses; do
    case $harness in
        load_protobuf) seed_dir="$seeds/pb"; pattern='*.pb' ;;
        load_json) seed_dir="$seeds/json"; pattern='*.json' ;;
        load_gzip) seed_dir="$seeds/gzip"; pattern='*.gz' ;;
        load_trace) seed_dir="$seeds/trace"; pattern='*.trace.json' ;;
        load_xspace) seed_dir="$seeds/xspace"; pattern='*.xplane.pb' ;;
        *) seed_dir="$seeds/$harness"; pattern="*.$harness" ;;
    esac
    program="$build/fuzz_$harness"
    corpus="$work/corpus/$harness"
    crashes="$work/crashes/$harness"
    mkdir -p "$corpus" "$crashes" "$seed_dir"
    dictionary=""
    dictionary_file=$(find "$source_dir/tests" -name "$harness.dict" | head -n 1)
    [ -n "$dictionary_file" ] && dictionary="-dict=$dictionary_file"

    regressions=$(find "$fuzz_dir/regressions" -type f -name "$pattern" 2>/dev/null | sort)
    if [ -n "$regressions" ]; then
        say "replaying $(echo "$regressions" | wc -l) regression inputs through fuzz_$harness"
        # shellcheck disable=SC2086 # one path per line, no blanks in them
        if ! "$program" -rss_limit_mb=2048 -timeout=30 $regressions >"$work/$harness-replay.log" 2>&1; then
            tail -n 40 "$work/$harness-replay.log"
            echo "fuzz_$harness: a regression input fails again (see above)" >>"$report"
            failed=1
            keep_work=true
            continue
        fi
    fi

    log="$work/$harness.log"
    # shellcheck disable=SC2086 # FUZZ_ARGS and the dictionary are meant to split
    set -- "$program" -max_total_time="$seconds" -rss_limit_mb=2048 -max_len="$max_len" \
        -timeout=30 -print_final_stats=1 -artifact_prefix="$crashes/" $dictionary \
        ${FUZZ_ARGS:-} "$corpus" "$seed_dir"
    if [ "$jobs" -gt 1 ]; then
        set -- "$@" -jobs="$jobs" -workers="$jobs"
    fi
    say "running: $*"
    status=0
    (cd "$work" && "$@") >"$log" 2>&1 || status=$?
    # With -jobs, libFuzzer writes each job's output to fuzz-N.log in the cwd.
    [ "$jobs" -gt 1 ] && cat "$work"/fuzz-*.log >>"$log" 2>/dev/null
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | awk '{s += $1} END {print s + 0}')
    files=$(find "$corpus" -type f | wc -l)
    crash=$(find "$crashes" -type f | head -n 1)
    if [ "$status" -ne 0 ] || [ -n "$crash" ]; then
        grep -E '^(==[0-9]+==|SUMMARY|memtop fuzz|    #[0-9]+ )' "$log" | head -n 40
        echo "fuzz_$harness: FAILED after $runs runs: input ${crash:-(none saved)}; log $log" >>"$report"
        failed=1
        keep_work=true
    else
        echo "fuzz_$harness: $runs runs in ${seconds} s, corpus $files inputs, no crash" >>"$report"
    fi
done

echo
cat "$report"
if [ "$failed" -ne 0 ]; then
    say "kept $work (corpora, crashes, logs); replay a crash with $build/fuzz_HARNESS FILE"
    exit 1
fi
$keep_work && say "corpora kept in $work/corpus"
exit 0
