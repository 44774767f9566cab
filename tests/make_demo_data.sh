#!/bin/sh
# make_demo_data.sh GENERATOR DATADIR: regenerate the committed demo profiles.
#
# Deterministic: the same generator gives the same bytes (gzip -n leaves the
# name and time out of the header). The pb and json of one version come from
# the same parameters, so they describe the identical profile.
#   demo.v0.*  older TensorFlow: the whole timeline (32500 snapshots on
#              GPU_0_bfc, GPU_1_bfc and cpu), no version, no HLO modules
#   demo.v1.*  XProf today: a 325000-snapshot run sampled to 1000 per
#              allocator, the snapshots the peak table points at, 10 HLO
#              modules
# Each file must stay under 2 MiB.
set -eu

if [ $# -ne 2 ]; then
    echo "usage: $0 GENERATOR DATADIR" >&2
    exit 2
fi
generator=$1
datadir=$2
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

for name in demo.v0.pb.gz demo.v0.json.gz demo.v1.pb demo.v1.json; do
    size=$(wc -c < "$work/$name")
    if [ "$size" -ge "$limit" ]; then
        echo "$0: $name is $size bytes, over the 2 MiB limit" >&2
        exit 1
    fi
done

mkdir -p "$datadir"
for name in demo.v0.pb.gz demo.v0.json.gz demo.v1.pb demo.v1.json; do
    cp "$work/$name" "$datadir/$name"
    echo "$datadir/$name: $(wc -c < "$datadir/$name") bytes"
done
