# fuzz_seeds.sh: the seed corpus of fuzz_load_protobuf (seeds/pb),
# fuzz_load_json (seeds/json) and fuzz_load_gzip (seeds/gzip), made in the
# fuzz runner's work directory. Sourced by tests/fuzz/run.sh (POSIX sh,
# set -eu) with $seeds (a harness seeds from $seeds/HARNESS or the directory
# run.sh names for it), $source_dir, $build (a scratch directory holding
# config.h), $cc, $extra_cflags, $extra_libs, MEMTOP_BUILDDIR (a configured
# build, when there is one) and say. Ends with ':' (see the end).
generator=""
if [ -n "${MEMTOP_BUILDDIR:-}" ] && [ -x "$MEMTOP_BUILDDIR/tests/generate_profile" ]; then
    generator="$MEMTOP_BUILDDIR/tests/generate_profile"
elif "$cc" -O1 -I"$build" -I"$source_dir" "$source_dir"/tests/formats/memory_profile/generate_profile*.c -lm \
        -o "$build/generate_profile" 2>/dev/null; then
    generator="$build/generate_profile"
fi
mkdir -p "$seeds/pb" "$seeds/json" "$seeds/gzip"
for file in "$source_dir"/data/*.pb "$source_dir"/tests/fuzz/seeds/*.pb; do
    [ -f "$file" ] && cp "$file" "$seeds/pb/"
done
for file in "$source_dir"/data/*.json "$source_dir"/tests/fuzz/seeds/*.json \
            "$source_dir"/data/real/*.json; do
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
# The last status is the dot command's, which set -e in run.sh reads.
:
