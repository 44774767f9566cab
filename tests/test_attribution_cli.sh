#!/bin/sh
# Issue 22 from the command line, on the real captures in data/real/ and
# the demo profiles: who holds the memory at the peak.
# - the table at the peak is the live set there: on a version-0 profile
#   --export allocations equals --export allocations --at <peak ms> row
#   for row, live_allocations counts its allocations, and --export
#   xprof-table writes XProf's rows (as many as active_allocations);
# - JAX rows are named after their XLA executable: the 256 MiB buffer of
#   the real transformer capture is jit__step's temporary, and in all
#   three JAX captures no row of 1 KiB or more at the peak is nameless;
# - the filter reads a row's context (tests/formats/chrome_trace's test
#   checks --filter Adam on the real PyTorch trace);
# - a PyTorch backward row names its forward op and takes the forward
#   op's module and location (Linear_0, Linear_1 and Linear_2 apart).
# Prints TAP.
set -u
source_dir="${MEMTOP_SRCDIR:-.}"
build_dir="${MEMTOP_BUILDDIR:-.}"
. "$source_dir/tests/lib.sh"
work=$test_work
real="$source_dir/data/real"

# ms PS: picoseconds as the milliseconds --at takes, exactly.
ms() { printf '%010d' "$1" | sed 's/\(.........\)$/.\1/'; }
# unquoted FILE: the CSV with each quoted field as Q (shapes hold commas).
unquoted() { sed 's/"[^"]*"/Q/g' "$1"; }

# ---- version 0: the live set at the peak is the table ----
for demo in demo.v0.pb.gz demo.v0.json.gz; do
    file="$source_dir/data/$demo"
    if [ ! -r "$file" ]; then
        tap_skip "$demo is absent"
        continue
    fi
    "$memtop" --summary --json "$file" >"$work/summary.json"
    peak_ps=$(grep -o '"peak":{"bytes":[0-9]*,"time_ps":[0-9]*' "$work/summary.json" | head -n 1 |
        sed 's/.*"time_ps"://')
    active=$(grep -o '"active_allocations":[0-9]*' "$work/summary.json" | head -n 1 | cut -d: -f2)
    live=$(grep -o '"live_allocations":[0-9]*' "$work/summary.json" | head -n 1 | cut -d: -f2)
    "$memtop" --export allocations "$file" >"$work/peak.csv"
    "$memtop" --export allocations --at "$(ms "$peak_ps")" "$file" >"$work/at.csv"
    tap_check "$demo: --export allocations is --export allocations --at $(ms "$peak_ps"), row for row" \
        cmp -s "$work/peak.csv" "$work/at.csv"
    counted=$(unquoted "$work/peak.csv" | awk -F, 'NR > 1 && $12 == "snapshot" { n += $4 } END { print n + 0 }')
    tap_check "$demo: live_allocations ($live) counts the allocations of the rows ($counted)" \
        test -n "$live" -a "$live" = "$counted"
    "$memtop" --export xprof-table "$file" >"$work/xprof.csv"
    rows=$(($(wc -l <"$work/xprof.csv") - 1))
    tap_check "$demo: --export xprof-table writes XProf's $active rows ($rows), the same columns" \
        test -n "$active" -a "$rows" = "$active" -a \
        "$(head -n 1 "$work/xprof.csv")" = "$(head -n 1 "$work/peak.csv")"
    if cmp -s "$work/xprof.csv" "$work/peak.csv"; then
        tap_not_ok "$demo: XProf's table is another table than the live set"
    else
        tap_ok "$demo: XProf's table is another table than the live set"
    fi
done

# ---- JAX: rows named after their XLA executable and role ----
transformer="$real/jax-transformer-noprealloc.xplane.pb.gz"
if [ -r "$transformer" ]; then
    "$memtop" --summary --json --top 20 "$transformer" >"$work/tfm.json"
    tap_check "jax-transformer: --summary --json --top 20 names jit__step in the 256 MiB row, a temp" \
        grep -q '{"op_name":"jit__step","allocation_bytes":268435456,[^}]*"region_type":"temp"' \
        "$work/tfm.json"
else
    tap_skip "jax-transformer: jit__step" "no data/real"
fi
for capture in jax-mlp-steps jax-mlp-nosteps jax-transformer-noprealloc; do
    file="$real/$capture.xplane.pb.gz"
    if [ ! -r "$file" ]; then
        tap_skip "$capture: no nameless rows" "no data/real"
        continue
    fi
    nameless=0 total=0
    for allocator in GPU_0_bfc xla_gpu_host_bfc; do
        "$memtop" --export allocations --allocator "$allocator" "$file" >"$work/rows.csv" ||
            nameless=$((nameless + 1000))
        total=$((total + $(unquoted "$work/rows.csv" | awk -F, 'NR > 1' | wc -l)))
        nameless=$((nameless + $(unquoted "$work/rows.csv" |
            awk -F, 'NR > 1 && $2 >= 1024 && $1 == "" { n++ } END { print n + 0 }')))
    done
    tap_check "$capture: no row of 1 KiB or more at the peak is nameless ($nameless of $total)" \
        test "$nameless" -eq 0 -a "$total" -gt 0
done
mlp="$real/jax-mlp-steps.xplane.pb.gz"
if [ -r "$mlp" ]; then
    "$memtop" --export allocations "$mlp" >"$work/mlp.csv"
    tap_check "jax-mlp-steps: jit_make_batch's 512 KiB batch is an output" \
        grep -q '^jit_make_batch,524288,.*,output,' "$work/mlp.csv"
    tap_check "jax-mlp-steps: the parameters, made before the capture, say so in words" \
        grep -q '^allocated before the profile,' "$work/mlp.csv"
fi

# ---- --group-by op, module, file, function: each where it is recorded ----
torch="$real/torch-mlp.pt.trace.json.gz"
if [ -r "$torch" ] && [ -r "$mlp" ]; then
    "$memtop" --export allocations --group-by op "$torch" >"$work/by-op.csv"
    tap_check "torch-mlp: --group-by op: aten::mm one group" \
        test "$(grep -c '^aten::mm,' "$work/by-op.csv")" -eq 1 -a "$(head -n 1 "$work/by-op.csv")" = \
        "op,total_bytes,share,rows"
    "$memtop" --export allocations --group-by module "$torch" >"$work/by-module.csv"
    tap_check "torch-mlp: --group-by module names the loss's module" \
        grep -q '^CrossEntropyLoss_0,1024,' "$work/by-module.csv"
    "$memtop" --export allocations --group-by function "$torch" >"$work/by-function.csv"
    # Every row but the one from before the profile: the backward rows
    # too, by their forward ops' frames.
    tap_check "torch-mlp: --group-by function names step" \
        grep -q '^step,[0-9]*,[0-9.e-]*,14$' "$work/by-function.csv"
    "$memtop" --export allocations --group-by file "$torch" >"$work/by-file.csv"
    tap_check "torch-mlp: --group-by file names torch_trace.py" \
        grep -q '^torch_trace\.py,' "$work/by-file.csv"
    for key in module location file function; do
        memtop_run --export allocations --group-by "$key" "$mlp"
        memtop_expect "jax-mlp-steps: --group-by $key is refused: no $key recorded" 2 \
            err "--group-by $key: the rows record no $key"
    done
    "$memtop" --export allocations "$torch" >"$work/shapes.csv"
    tap_check "torch-mlp: the allocating op's Input Dims and Input type as shape and type" \
        grep -q '^aten::mm,4194304,4194304,1,,"float, float","\[\[1024, 256\], \[256, 1024\]\]",' \
        "$work/shapes.csv"
    # The fwdbwd flow: a backward row's context names its forward op, and
    # the row takes the forward op's module and location (its stack is
    # in the CSV, on several lines: the JSON's row is one).
    "$memtop" --summary --json "$torch" >"$work/rows.json"
    backward='"op_name":"aten::mm","allocation_bytes":4194304,[^}]*'
    tap_check "torch-mlp: a backward row's context names its forward op" \
        grep -q "$backward\"context\":\"autograd::engine::evaluate_function: AddmmBackward0 > AddmmBackward0 > aten::mm \\[forward: aten::addmm\\]\"" \
        "$work/rows.json"
    tap_check "torch-mlp: a backward row takes its forward op's location and module" \
        grep -q "$backward\"location\":\"torch_trace.py:15 step\",[^}]*\"module\":\"Linear_1\"" \
        "$work/rows.json"
    "$memtop" --export allocations --filter AddmmBackward0 --group-by module "$torch" \
        >"$work/backward-modules.csv"
    tap_check "torch-mlp: the three Linear layers' gradients are three modules" \
        test "$(grep -c '^Linear_[012],' "$work/backward-modules.csv")" -eq 3 -a \
        "$(grep -c , "$work/backward-modules.csv")" -eq 4
    tap_check "torch-mlp: a forward row names no forward op" \
        test "$(grep -c 'aten::cross_entropy_loss.*\[forward: ' "$work/shapes.csv")" -eq 0
    memtop_run --export allocations --group-by op "$mlp"
    memtop_expect "jax-mlp-steps: --group-by op names jit__step" 0 out '^jit__step,'
else
    tap_skip "--group-by op, module, file, function" "no data/real"
fi

# ---- PyTorch's caching allocator says allocated/reserved ----
for capture in torch-mlp.pt.trace.json.gz torch-mlp.snapshot.pickle.gz; do
    file="$real/$capture"
    if [ ! -r "$file" ]; then
        tap_skip "$capture: allocated/reserved" "no data/real"
        continue
    fi
    "$memtop" --summary "$file" >"$work/torch.txt"
    tap_check "$capture: --summary says allocated and reserved but free" \
        grep -q '^    Allocated  *[0-9.]* MiB$' "$work/torch.txt"
    tap_check "$capture: ... reserved but free, lifetime peak allocated" \
        grep -q '^    Reserved but free  *[0-9.]* MiB$' "$work/torch.txt"
    if grep -q 'Heap allocation\|Free memory\|peak heap' "$work/torch.txt"; then
        tap_not_ok "$capture: ... and not XProf's heap and free" "$work/torch.txt"
    else
        tap_ok "$capture: ... and not XProf's heap and free"
    fi
    "$memtop" --summary --json "$file" >"$work/torch.json"
    tap_check "$capture: JSON keeps its field names" \
        grep -q '"heap_bytes":[0-9]*,"stack_bytes":null,"free_bytes":[0-9]' "$work/torch.json"
done
if [ -r "$mlp" ]; then
    "$memtop" --summary "$mlp" >"$work/jax.txt"
    tap_check "jax-mlp-steps: XProf's words stay: Heap allocation" \
        grep -q '^    Heap allocation ' "$work/jax.txt"
fi

tap_done
