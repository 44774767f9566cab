#!/bin/sh
# run.sh [SECONDS] [HARNESS...]: builds memtop's fuzz harnesses with clang
# (libFuzzer + ASan + UBSan, LeakSanitizer included), replays the crash
# regressions, then fuzzes each harness for SECONDS (default 60), as many
# harnesses at a time as there are processors (FUZZ_PARALLEL).
#
# A harness is any tests/**/fuzz_NAME.c (its dictionary, fuzz_NAME.dict,
# and its own seeds, seeds-NAME/, sit beside it); HARNESS is a NAME (default: every one found). The sources
# are compiled straight from the tree into a temporary
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
#   FUZZ_PARALLEL    harnesses fuzzed at once (default: the processors)
#   FUZZ_ARGS        more libFuzzer flags, e.g. "-only_ascii=1"
#   MEMTOP_BUILDDIR  a configured build whose config.h and generator to use
set -eu

seconds=${1:-60}
[ $# -gt 0 ] && shift
fuzz_dir=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$fuzz_dir/../.." && pwd)
# Every harness in the tree: tests/fuzz/ (decoders, reports) and each
# format's tests/formats/NAME/.
found=$(find "$source_dir/tests" -name 'fuzz_*.c' | sed 's|.*/fuzz_||; s|\.c$||' | sort)
harnesses=${*:-$found}
case $seconds in
    '' | *[!0-9]*) echo "usage: $0 [SECONDS] [HARNESS...]" >&2; exit 2 ;;
esac

cc=${FUZZ_CC:-clang}
max_len=${FUZZ_MAX_LEN:-1048576}
jobs=${FUZZ_JOBS:-1}
parallel=${FUZZ_PARALLEL:-$(nproc 2>/dev/null || echo 2)}
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
running=0
for source in $(find "$source_dir/model" "$source_dir/report" -name "*.c" | sort) \
              "$build/gen/memory_profile.pb-c.c"; do
    [ -f "$source" ] || continue
    # An in-tree build leaves its own generated copy in model/: ours is in gen/.
    case $source in *.pb-c.c) [ "$source" = "$build/gen/memory_profile.pb-c.c" ] || continue ;; esac
    object="$build/obj/$(basename "$source" .c).o"
    # shellcheck disable=SC2086
    { "$cc" $cflags -fsanitize=fuzzer-no-link -c "$source" -o "$object" ||
        : >"$build/obj/failed"; } &
    objects="$objects $object"
    running=$((running + 1))
    if [ "$running" -ge "$parallel" ]; then wait; running=0; fi
done
wait
[ ! -f "$build/obj/failed" ] || die "cannot compile the sources (see above)"
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
# Each harness's folder may hold a fuzz_seeds.sh that makes its seeds (from
# data/, the tree and the project's generators): every one found is
# sourced here, so a new format seeds its harness from its own folder.
seeds="$work/seeds"
mkdir -p "$seeds/csv_writer"
for seed_script in $(find "$source_dir/tests" -name fuzz_seeds.sh | sort); do
    # shellcheck disable=SC1090 # each format's own
    . "$seed_script"
done
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
    # A harness's own seed corpus, kept beside it: seeds-NAME/ (any files).
    harness_file=$(find "$source_dir/tests" -name "fuzz_$harness.c" | head -n 1)
    own="$(dirname "$harness_file")/seeds-$harness"
    if [ -d "$own" ]; then
        mkdir -p "$seeds/$harness"
        cp "$own"/* "$seeds/$harness/" 2>/dev/null || true
    fi
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
# fuzz_one HARNESS: replays its regressions, then fuzzes it; writes one
# line to $work/report.HARNESS and fails when it found a crash.
fuzz_one() {
    harness=$1
    report="$work/report.$harness"
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
    # Its dictionary beside fuzz_NAME.c: fuzz_NAME.dict (or NAME.dict).
    harness_dir=$(dirname "$(find "$source_dir/tests" -name "fuzz_$harness.c" | head -n 1)")
    for dictionary_file in "$harness_dir/fuzz_$harness.dict" "$harness_dir/$harness.dict"; do
        if [ -f "$dictionary_file" ]; then
            dictionary="-dict=$dictionary_file"
            break
        fi
    done

    regressions=$(find "$fuzz_dir/regressions" -type f -name "$pattern" 2>/dev/null | sort)
    if [ -n "$regressions" ]; then
        say "replaying $(echo "$regressions" | wc -l) regression inputs through fuzz_$harness"
        # shellcheck disable=SC2086 # one path per line, no blanks in them
        if ! "$program" -rss_limit_mb=2048 -timeout=30 $regressions >"$work/$harness-replay.log" 2>&1; then
            tail -n 40 "$work/$harness-replay.log"
            echo "fuzz_$harness: a regression input fails again (see above)" >"$report"
            return 1
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
    mkdir -p "$work/run/$harness"
    (cd "$work/run/$harness" && "$@") >"$log" 2>&1 || status=$?
    # With -jobs, libFuzzer writes each job's output to fuzz-N.log in the cwd.
    [ "$jobs" -gt 1 ] && cat "$work/run/$harness"/fuzz-*.log >>"$log" 2>/dev/null
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | awk '{s += $1} END {print s + 0}')
    files=$(find "$corpus" -type f | wc -l)
    # A slow-unit-* file is libFuzzer noting an input slower than 10 s (a
    # busy machine makes them): kept for a look, not a failure.
    crash=$(find "$crashes" -type f ! -name 'slow-unit-*' | head -n 1)
    if [ "$status" -ne 0 ] || [ -n "$crash" ]; then
        grep -E '^(==[0-9]+==|SUMMARY|memtop fuzz|    #[0-9]+ )' "$log" | head -n 40
        echo "fuzz_$harness: FAILED after $runs runs: input ${crash:-(none saved)}; log $log" >"$report"
        return 1
    fi
    echo "fuzz_$harness: $runs runs in ${seconds} s, corpus $files inputs, no crash" >"$report"
}

# FUZZ_PARALLEL harnesses at a time, each in a subshell of its own.
failed=0
running=""
finish() {
    for harness in $running; do
        wait "$(cat "$work/pid.$harness")" || failed=1
    done
    running=""
}
for harness in $harnesses; do
    (fuzz_one "$harness") &
    echo $! >"$work/pid.$harness"
    running="$running $harness"
    [ "$(echo $running | wc -w)" -ge "$parallel" ] && finish
done
finish
report="$work/report"
: >"$report"
for harness in $harnesses; do
    cat "$work/report.$harness" >>"$report" 2>/dev/null ||
        echo "fuzz_$harness: FAILED: no report" >>"$report"
done
[ "$failed" -eq 0 ] || keep_work=true
echo
cat "$report"
if [ "$failed" -ne 0 ]; then
    say "kept $work (corpora, crashes, logs); replay a crash with $build/fuzz_HARNESS FILE"
    exit 1
fi
$keep_work && say "corpora kept in $work/corpus"
exit 0
