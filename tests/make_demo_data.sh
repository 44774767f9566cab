#!/bin/sh
# make_demo_data.sh GENERATOR DATADIR [XSPACE_GENERATOR]: regenerate the
# committed demo profiles (and, given the XSpace generator, the demo log
# directory).
#
# Deterministic: the same generator gives the same bytes (gzip -n leaves the
# name and time out of the header). The pb and json of one version come from
# the same parameters, so they describe the identical profile.
#   demo.v0.*  older TensorFlow: the whole timeline (32500 snapshots on
#              GPU_0_bfc, GPU_1_bfc and cpu), no version, no HLO modules
#   demo.v1.*  XProf today: a 325000-snapshot run sampled to 1000 per
#              allocator, the snapshots the peak table points at, 10 HLO
#              modules
#   logdir/    a TensorBoard log directory (memtop data/logdir), two runs:
#              2026_11_23_06_39_19  a TF-GPU-like capture: BlueDiamond.local
#                                   (XSpace) and 10.0.0.2_8466 (TF 2.2-2.5's
#                                   MemoryProfile JSON, readable by any memtop)
#              2026_11_21_17_42_08  a TPU-like capture: two hosts of a v4-8
#                                   slice, four devices each (XSpace)
# Each file must stay under 2 MiB.
set -eu

if [ $# -ne 2 ] && [ $# -ne 3 ]; then
    echo "usage: $0 GENERATOR DATADIR [XSPACE_GENERATOR]" >&2
    exit 2
fi
generator=$1
datadir=$2
xspace_generator=${3:-}
limit=2097152

v0_options="--version 0 --snapshots 20000 --allocators 3 --steps 8 --seed 1"
v1_options="--version 1 --snapshots 200000 --allocators 3 --steps 10 --hlo 10 --seed 2"

work=$(mktemp -d "${TMPDIR:-/tmp}/memtop-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# shellcheck disable=SC2086 # the option lists are meant to split
"$generator" $v0_options --format pb -o "$work/demo.v0.pb"
# shellcheck disable=SC2086
"$generator" $v0_options --format json -o "$work/demo.v0.json"
gzip -n -9 "$work/demo.v0.pb" "$work/demo.v0.json"
# shellcheck disable=SC2086
"$generator" $v1_options --format pb -o "$work/demo.v1.pb"
# shellcheck disable=SC2086
"$generator" $v1_options --format json -o "$work/demo.v1.json"

names="demo.v0.pb.gz demo.v0.json.gz demo.v1.pb demo.v1.json"
if [ -n "$xspace_generator" ]; then
    gpu_run=logdir/plugins/profile/2026_11_23_06_39_19
    tpu_run=logdir/plugins/profile/2026_11_21_17_42_08
    "$xspace_generator" --style tf-gpu --seed 3 --run-layout "$work/logdir" \
        --host BlueDiamond.local --run 2026_11_23_06_39_19
    "$generator" --format json --snapshots 3000 --seed 9 |
        gzip -n -9 >"$work/$gpu_run/10.0.0.2_8466.memory_profile.json.gz"
    for worker in 0 1; do
        "$xspace_generator" --style tpu --devices 4 --seed $((7 + worker)) \
            --run-layout "$work/logdir" --host "t1v-n-6d5ad4f1-w-$worker" \
            --run 2026_11_21_17_42_08
    done
    names="$names $gpu_run/BlueDiamond.local.xplane.pb"
    names="$names $gpu_run/10.0.0.2_8466.memory_profile.json.gz"
    names="$names $tpu_run/t1v-n-6d5ad4f1-w-0.xplane.pb $tpu_run/t1v-n-6d5ad4f1-w-1.xplane.pb"
fi

for name in $names; do
    size=$(wc -c < "$work/$name")
    if [ "$size" -ge "$limit" ]; then
        echo "$0: $name is $size bytes, over the 2 MiB limit" >&2
        exit 1
    fi
done

mkdir -p "$datadir"
[ -z "$xspace_generator" ] || rm -rf "$datadir/logdir"
for name in $names; do
    mkdir -p "$(dirname "$datadir/$name")"
    cp "$work/$name" "$datadir/$name"
    echo "$datadir/$name: $(wc -c < "$datadir/$name") bytes"
done
