#!/bin/sh
# The Chrome-trace generator (tests/generate_trace): the same options give
# the same bytes; the JSON is strict JSON for every ending that should be,
# and the broken endings are broken exactly as catapult repairs them; the
# --tiny expectations equal values worked out by hand; the quirks of each
# producer appear. Prints TAP.
set -u
source_dir="${MEMTOP_SRCDIR:-.}"
build_dir="${MEMTOP_BUILDDIR:-.}"
. "$source_dir/tests/lib.sh"
work=$test_work
generate="$build_dir/tests/generate_trace"
check="$build_dir/tests/json_check"

# ---- determinism ----
for producer in timeline pytorch; do
    "$generate" --producer $producer --hostile --schedule --oom --devices 2 -o "$work/a.json" --expect "$work/a.exp" &&
        "$generate" --producer $producer --hostile --schedule --oom --devices 2 -o "$work/b.json" --expect "$work/b.exp"
    tap_check "$producer: same options, same trace" cmp -s "$work/a.json" "$work/b.json"
    tap_check "$producer: same options, same expectations" cmp -s "$work/a.exp" "$work/b.exp"
    "$generate" --producer $producer --seed 2 -o "$work/c.json"
    "$generate" --producer $producer -o "$work/a.json"
    if cmp -s "$work/a.json" "$work/c.json"; then tap_not_ok "$producer: another seed, another trace"; else tap_ok "$producer: another seed, another trace"; fi
    "$generate" --producer $producer --gzip -o "$work/a.json.gz" && "$generate" --producer $producer --gzip -o "$work/b.json.gz"
    tap_check "$producer: gzip is deterministic" cmp -s "$work/a.json.gz" "$work/b.json.gz"
    gzip -dc "$work/a.json.gz" > "$work/unzipped.json"
    tap_check "$producer: gzip holds the plain trace" cmp -s "$work/a.json" "$work/unzipped.json"
done

# ---- endings ----
for producer in timeline pytorch; do
    for ending in object bare trailing-empty-object; do
        "$generate" --producer $producer --ending $ending -o "$work/e.json"
        tap_check "$producer --ending $ending: strict JSON" "$check" "$work/e.json"
    done
    for ending in bare-unterminated bare-unterminated-comma bare-trailing-comma; do
        "$generate" --producer $producer --ending $ending -o "$work/e.json"
        if "$check" "$work/e.json"; then tap_not_ok "$producer --ending $ending: not strict JSON"; else tap_ok "$producer --ending $ending: not strict JSON"; fi
        tap_check "$producer --ending $ending: JSON once repaired" "$check" --repair "$work/e.json"
    done
    "$generate" --producer $producer --hostile -o "$work/h.json"
    if [ $producer = timeline ]; then
        tap_check "timeline --hostile: still strict JSON (ensure_ascii)" "$check" "$work/h.json"
    else
        if "$check" "$work/h.json"; then tap_not_ok "pytorch --hostile: raw bytes make it lax JSON"; else tap_ok "pytorch --hostile: raw bytes make it lax JSON"; fi
    fi
done
"$generate" --producer pytorch --timestamps absolute -o "$work/e.json"
tap_check "pytorch --timestamps absolute: strict JSON" "$check" "$work/e.json"

# ---- --tiny, worked out by hand ----
# timeline: cpu tuples (10,+16,input:1) (10,+32,input) (30,-16,input:1)
# (49,-32,input) (100,-8,summary) (100,+8,summary): the summary ends where
# it starts, so its free sorts first (a dip to -8) and it stays in
# timeline.py's set. GPU_0_bfc reaches 260 at T0+70 (the second split
# output); live then: split x2, loss, and the zero-byte "empty" (never
# removed). matmul's only reader is relu (the "^matmul" input never
# matches); "input/_1" is cut at "/_" to "input". The earliest event is
# _SOURCE's X at T0.
tr() { sed 's/|/	/g'; }
tr > "$work/timeline.want" <<'END'
memtop-trace-expect|1
producer|timeline
earliest_ts_ns|1712345678000000000
allocators|3
allocator|0|cpu|6|3|3|1|48|10000000|0|48|0|2|e96483a92cd08373
row|0|0|32|32|1|input|output|float|[2,4]
row|0|1|16|16|1|input|output|int64|[2]
snapshot|0|0|10000000|16|0|16|ALLOCATION|16|94363786936576|-1|input|output|int64|[2]|
snapshot|0|1|10000000|48|0|48|ALLOCATION|32|94363786936320|-1|input|output|float|[2,4]|
snapshot|0|2|30000000|32|0|48|DEALLOCATION|16|94363786936576|-1|input|output|int64|[2]|
snapshot|0|3|49000000|0|0|48|DEALLOCATION|32|94363786936320|-1|input|output|float|[2,4]|
snapshot|0|4|100000000|-8|0|48|DEALLOCATION|8|94363786936832|-1|summary|output|string|[]|
snapshot|0|5|100000000|0|0|48|ALLOCATION|8|94363786936832|-1|summary|output|string|[]|
allocator|1|GPU_0_bfc|12|6|6|8|260|70000000|0|260|0|3|7e16fa82d69a0149
row|1|0|128|128|2|split|output|float|[4,8]
row|1|1|4|4|1|loss|output|float|[]
row|1|2|0|0|1|empty|output|float|[0,8]
snapshot|1|0|40000000|64|0|64|ALLOCATION|64|139888158572544|-1|matmul|output|float|[2,8]|
snapshot|1|1|50000000|128|0|128|ALLOCATION|64|139888158572800|-1|relu|output|float|[2,8]|
snapshot|1|2|54000000|64|0|128|DEALLOCATION|64|139888158572544|-1|matmul|output|float|[2,8]|
snapshot|1|3|56000000|64|0|128|ALLOCATION|0|0|-1|empty|output|float|[0,8]|
snapshot|1|4|58000000|64|0|128|DEALLOCATION|0|0|-1|empty|output|float|[0,8]|
snapshot|1|5|60000000|68|0|128|ALLOCATION|4|139888158573056|-1|loss|output|float|[]|
snapshot|1|6|69000000|4|0|128|DEALLOCATION|64|139888158572800|-1|relu|output|float|[2,8]|
snapshot|1|7|70000000|132|0|132|ALLOCATION|128|139888158573312|-1|split|output|float|[4,8]|
snapshot|1|8|70000000|260|0|260|ALLOCATION|128|139888158573568|-1|split|output|float|[4,8]|
snapshot|1|9|89000000|132|0|260|DEALLOCATION|128|139888158573312|-1|split|output|float|[4,8]|
snapshot|1|10|89000000|4|0|260|DEALLOCATION|128|139888158573568|-1|split|output|float|[4,8]|
snapshot|1|11|99000000|0|0|260|DEALLOCATION|4|139888158573056|-1|loss|output|float|[]|
allocator|2|gpu_host_bfc|2|1|1|0|64|80000000|0|64|0|1|5e395575b65af6dc
row|2|0|64|64|1|concat|output|float|[2,8]
snapshot|2|0|80000000|64|0|64|ALLOCATION|64|139891379798016|-1|concat|output|float|[2,8]|
snapshot|2|1|90000000|0|0|64|DEALLOCATION|64|139891379798016|-1|concat|output|float|[2,8]|
end
END
"$generate" --producer timeline --tiny -o "$work/tiny.json" --expect "$work/timeline.got"
tap_check "timeline --tiny: the hand-worked expectations" cmp -s "$work/timeline.want" "$work/timeline.got" ||
    diff "$work/timeline.want" "$work/timeline.got" | sed 's/^/# /'

# pytorch: cuda:0 in time order (ts, then file order; the autograd block
# comes first in the file): 2500 +512 and 2500 +2048 in aten::empty (its
# start is inside), 3000 -512 (aten::empty's end: outside it, but a free
# takes its allocation's op), 5500 +1024 in aten::mm (autograd), 5500 +256
# on main (written last in main's block) in aten::linear only, 6000 -512
# of an address never seen (own op: AddmmBackward0's evaluate_function,
# aten::mm ended at 6000), 8000 -1024 (outside everything; op of its
# allocation), 21000 -2048. Peak 13328 at 5500 (index 4); live then 2048
# + 1024 + 256, so 10000 were allocated before the profile. Free at the
# peak 2097152 - 13328. cpu: 4 bytes in aten::_foreach_sqrt, not in the
# user annotation inside it. Every cpu_op's Input type and Input Dims
# (the generator writes one set) are each event's type and shape (issue
# 22), a free's those of its allocation (or of its own op).
tr > "$work/pytorch.want" <<'END'
memtop-trace-expect|1
producer|pytorch
earliest_ts_ns|4558953768941529
allocators|2
allocator|0|cuda:0|8|4|4|4|13328|5500000|2083824|13328|0|4|87907914bb8a7aa0
row|0|0|10000|10000|1|allocated before the profile|persist/dynamic|INVALID|unknown
row|0|1|2048|2048|1|aten::empty||float, float, float|[[256, 1024], [1024, 512], []]
row|0|2|1024|1024|1|aten::mm||float, float, float|[[256, 1024], [1024, 512], []]
row|0|3|256|256|1|aten::linear||float, float, float|[[256, 1024], [1024, 512], []]
snapshot|0|0|2500000|10512|2086640|10512|ALLOCATION|512|12288|-1|aten::empty||float, float, float|[[256, 1024], [1024, 512], []]|aten::linear > aten::addmm > aten::empty
snapshot|0|1|2500000|12560|2084592|12560|ALLOCATION|2048|16384|-1|aten::empty||float, float, float|[[256, 1024], [1024, 512], []]|aten::linear > aten::addmm > aten::empty
snapshot|0|2|3000000|12048|2085104|12560|DEALLOCATION|512|12288|-1|aten::empty||float, float, float|[[256, 1024], [1024, 512], []]|aten::linear > aten::addmm > aten::empty
snapshot|0|3|5500000|13072|2084080|13072|ALLOCATION|1024|4096|-1|aten::mm||float, float, float|[[256, 1024], [1024, 512], []]|autograd::engine::evaluate_function: AddmmBackward0 > aten::mm
snapshot|0|4|5500000|13328|2083824|13328|ALLOCATION|256|24576|-1|aten::linear||float, float, float|[[256, 1024], [1024, 512], []]|aten::linear
snapshot|0|5|6000000|12816|2084336|13328|DEALLOCATION|512|8192|-1|autograd::engine::evaluate_function: AddmmBackward0||float, float, float|[[256, 1024], [1024, 512], []]|autograd::engine::evaluate_function: AddmmBackward0
snapshot|0|6|8000000|11792|2085360|13328|DEALLOCATION|1024|4096|-1|aten::mm||float, float, float|[[256, 1024], [1024, 512], []]|autograd::engine::evaluate_function: AddmmBackward0 > aten::mm
snapshot|0|7|21000000|9744|2087408|13328|DEALLOCATION|2048|16384|-1|aten::empty||float, float, float|[[256, 1024], [1024, 512], []]|aten::linear > aten::addmm > aten::empty
allocator|1|cpu|2|1|1|0|4|12500000|0|4|0|1|86e045ec6ecc4114
row|1|0|4|4|1|aten::_foreach_sqrt||float, float, float|[[256, 1024], [1024, 512], []]
snapshot|1|0|12500000|4|0|4|ALLOCATION|4|20480|-1|aten::_foreach_sqrt||float, float, float|[[256, 1024], [1024, 512], []]|Optimizer.step#Adam.step > aten::_foreach_sqrt > ## adam: unscale ##
snapshot|1|1|16000000|0|0|4|DEALLOCATION|4|20480|-1|aten::_foreach_sqrt||float, float, float|[[256, 1024], [1024, 512], []]|Optimizer.step#Adam.step > aten::_foreach_sqrt > ## adam: unscale ##
end
END
"$generate" --producer pytorch --tiny -o "$work/tiny.json" --expect "$work/pytorch.got"
tap_check "pytorch --tiny: the hand-worked expectations" cmp -s "$work/pytorch.want" "$work/pytorch.got" ||
    diff "$work/pytorch.want" "$work/pytorch.got" | sed 's/^/# /'

# ---- the quirks appear ----
"$generate" --producer timeline -o "$work/t.json" --expect "$work/t.exp"
tap_check "timeline: a zero dim prints as dim {} with nothing in it" grep -q 'dim {\\n  }\\n' "$work/t.json"
tap_check "timeline: a zero-byte tensor is live at the peak" grep -q '^row	1	.*	0	0	1	.*dropout/Empty' "$work/t.exp"
tap_check "timeline: a Recv input is cut at /_" grep -q '"input0": "microbatch_0/IteratorGetNext/_1"' "$work/t.json"
tap_check "timeline: control inputs are kept in the args" grep -q '"input3": "^microbatch_0/loss/Mean"' "$work/t.json"
tap_check "timeline: a tensor with no shape" grep -q '	iterator	output	resource	unknown' "$work/t.exp"
tap_check "timeline: a free sorts before an allocation at one ts" awk -F'\t' '
    $1 == "snapshot" && $12 ~ /summaries/ { if ($8 == "DEALLOCATION") d[$4] = 1; else if (d[$4]) found = 1 }
    END { exit !found }' "$work/t.exp"
tap_check "timeline: several counters share a ts" awk '/"ph": "C"/ { c = 1 } c && /"ts"/ { if (seen[$2]++) found = 1; c = 0 } END { exit !found }' "$work/t.json"
"$generate" --producer timeline --hostile -o "$work/t.json" --expect "$work/t.exp"
tap_check "timeline --hostile: ESC, OSC and bidi as \\u escapes" grep -q 'Relu\\u001b]0;owned\\u0007' "$work/t.json"
tap_check "timeline --hostile: a lone surrogate as a \\u escape" grep -q 'gradients/\\udc80ReluGrad\\u007f' "$work/t.json"
tap_check "timeline --hostile: astral characters as surrogate pairs" grep -q 'loss/Mean\\ud83d\\ude00' "$work/t.json"
tap_check "timeline --hostile: the bytes memtop stores, escaped" grep -q 'gradients/\\xed\\xb2\\x80ReluGrad\\x7f' "$work/t.exp"

"$generate" --producer pytorch --schedule --oom --hostile -o "$work/p.json" --expect "$work/p.exp"
tap_check "pytorch: Record Window End is the last event" sh -c "tail -n 6 '$work/p.json' | grep -q 'Record Window End'"
tap_check "pytorch: top-level keys in Kineto's order" sh -c "grep -n '^  \"\\(displayTimeUnit\\|baseTimeNanoseconds\\|traceEvents\\|traceName\\)\"' '$work/p.json' | cut -d'\"' -f2 | tr '\n' ' ' | grep -q '^displayTimeUnit baseTimeNanoseconds traceEvents traceName \$'"
tap_check "pytorch: memory args in the real key order" grep -q '"Total Reserved": [0-9]*, "Total Allocated": [0-9]*, "Bytes": -\{0,1\}[0-9]*, "Device Id": -\{0,1\}[0-9], "Device Type": [0-9]*, "Addr": [0-9]*, "finished": false, "Ev Idx"' "$work/p.json"
tap_check "pytorch --oom: an [OutOfMemory] event and its oom line" sh -c "grep -q '\\[OutOfMemory\\]' '$work/p.json' && grep -q '^oom	cuda:0	' '$work/p.exp'"
tap_check "pytorch --schedule: steps from ProfilerStep#2" grep -q '	ALLOCATION	[0-9]*	[0-9]*	2	' "$work/p.exp"
tap_check "pytorch: frees of addresses never allocated in the trace" awk -F'\t' '
    $1 == "snapshot" { if ($8 == "ALLOCATION") seen[$2 "/" $10] = 1; else if (!seen[$2 "/" $10]) found = 1 }
    END { exit !found }' "$work/p.exp"
tap_check "pytorch: allocated before the profile at the peak" grep -q '	allocated before the profile	persist/dynamic	INVALID	unknown' "$work/p.exp"
tap_check "pytorch: equal ts on one thread" awk '/"name": "\[memory\]"/ { m = 1; next } m && /"ts"/ { if ($0 == last) found = 1; last = $0; m = 0 } END { exit !found }' "$work/p.json"
tap_check "pytorch: file order is not time order" awk '/"name": "\[memory\]"/ { m = 1; next } m && /"ts"/ { sub(/,$/, "", $2); if ($2 + 0 < last) found = 1; last = $2 + 0; m = 0 } END { exit !found }' "$work/p.json"
tap_check "pytorch --hostile: raw ESC and invalid UTF-8 in args" sh -c "LC_ALL=C grep -q \"$(printf '\033')\\[31m\" '$work/p.json' && LC_ALL=C grep -q \"$(printf '\377\376')\" '$work/p.json'"
tap_check "pytorch --hostile: a lone surrogate escape in an op name" grep -q 'aten::mm\\udc80' "$work/p.json"
tap_check "pytorch --hostile: its bytes in the expectations" grep -q 'aten::mm\\xed\\xb2\\x80' "$work/p.exp"
"$generate" --producer pytorch --timestamps absolute -o "$work/p.json"
tap_check "pytorch --timestamps absolute: integer epoch microseconds" grep -q '"ts": 17954159797[0-9]*,' "$work/p.json"

# ---- sizes ----
"$generate" --producer pytorch --size 2M -o "$work/s.json"
size=$(wc -c < "$work/s.json")
tap_check "pytorch --size 2M: about 2 MiB ($size bytes)" test "$size" -gt 1900000 -a "$size" -le 2097152
tap_check "pytorch --size: still strict JSON" "$check" "$work/s.json"
"$generate" --producer timeline --size 2M -o "$work/s.json"
size=$(wc -c < "$work/s.json")
tap_check "timeline --size 2M: about 2 MiB ($size bytes)" test "$size" -gt 1900000 -a "$size" -le 2097152
tap_check "timeline --size: still strict JSON" "$check" "$work/s.json"
"$generate" --producer pytorch --events 2000 --expect "$work/n.exp" -o /dev/null
count=$(grep -c '^snapshot' "$work/n.exp")
tap_check "pytorch --events 2000: about 2000 memory events ($count)" test "$count" -gt 1600 -a "$count" -lt 2400
"$generate" --producer pytorch --events 2000 --expect "$work/n.exp" --expect-snapshots 2 -o /dev/null
tap_check "--expect-snapshots 2: first and last two per allocator" sh -c "test \$(grep -c '^snapshot' '$work/n.exp') -eq 8 && grep -q '^elided	0	' '$work/n.exp'"

# ---- usage ----
"$generate" --producer nope > /dev/null 2>&1
tap_check "a bad value is a usage error" test $? -eq 2
"$generate" --help | grep -q 'memtop-trace-expect'
tap_check "--help documents the --expect format" test $? -eq 0

tap_done
