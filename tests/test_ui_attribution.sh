#!/bin/sh
# Who holds the memory, on the screen (issue 22), in tmux at 80x24 and
# 200x60 on the real captures of data/real/: the table at the peak is the
# live set; JAX rows name their executable and role, with no all-INVALID
# type column and no shape column of XProf's placeholders ("unknown" on a
# special row); PyTorch rows show the user's line in a location column;
# grouping by scope makes one group per unscoped op (Enter opens it,
# Backspace leaves it); Enter on a row shows its context, module,
# location and stack, and a special row in words.
# Prints TAP.
set -u
source_dir="${MEMTOP_SRCDIR:-.}"
build_dir="${MEMTOP_BUILDDIR:-.}"
. "$source_dir/tests/lib.sh"
work=$test_work

tmux_require
real="$source_dir/data/real"
jax="$real/jax-transformer-noprealloc.xplane.pb.gz"
torch="$real/torch-mlp.pt.trace.json.gz"
if [ ! -r "$jax" ] || [ ! -r "$torch" ]; then
    tap_skip "the real captures" "no data/real"
    tap_done
    exit 0
fi

# screen_lacks NAME PATTERN: ok when the last screen read has no line matching it.
screen_lacks() {
    if grep -E -q -e "$2" "$tmux_screen"; then
        echo "# the screen has: $2" >"$work/why"
        tap_not_ok "$1" "$work/why" "$tmux_screen"
    else
        tap_ok "$1"
    fi
}

# ---- JAX: executables and roles, no INVALID type column ----
for size in "80 24" "200 60"; do
    set -- $size
    memtop_viewer "$1" "$2" "" "$jax"
    tmux_screen_has "jax $1x$2: the live set at the peak, the 256 MiB buffer is jit__step's" \
        '(Allocations l|L)ive at peak \(6\)' '256\.00 MiB .*jit__step'
    screen_lacks "jax $1x$2: no type column of INVALID only" ' type +(shape +)?op'
    screen_lacks "jax $1x$2: no module column (XSpace records none)" ' module '
    screen_lacks "jax $1x$2: no shape column of XProf's placeholder only" ' shape +op|unknown'
    if [ "$1" -ge 200 ]; then
        screen_lacks "jax 200x60: no breakdown by type (INVALID only)" 'At peak by type'
        tmux_screen_has "jax 200x60: the breakdown by region (the roles) stays" \
            '^─ At peak by region ' '^ temp +256\.00 MiB'
        tmux_screen_has "jax $1x$2: its role as region, the older memory in words" \
            '256\.00 MiB .*temp .*jit__step' 'allocated before the profile'
    fi
    tmux_keys j Enter
    tmux_screen_has "jax $1x$2: Enter on the special row says what it is" \
        'What +memory held when the profile began'
    tmux_keys Escape
    memtop_quit "jax $1x$2: q quits with status 0"
done

# ---- PyTorch: the user's line, grouping, the detail ----
for size in "80 24" "200 60"; do
    set -- $size
    memtop_viewer "$1" "$2" "" "$torch"
    # At 80 columns the op takes the room; at 200 the location is beside it.
    [ "$1" -lt 200 ] || tmux_screen_has "torch $1x$2: a location column with the user's line" \
        ' location +op' 'torch_trace\.py:15 step +aten::empty_strided'
    tmux_keys t
    tmux_screen_has "torch $1x$2: t groups by location first: the user's line, the rest in words" \
        'by location' 'torch_trace\.py:15 step' 'no location'
    tmux_keys t
    tmux_screen_has "torch $1x$2: t t: by file" 'by file' 'torch_trace\.py'
    tmux_keys t
    tmux_screen_has "torch $1x$2: t t t: by function, the frame's function" 'by function' \
        '[0-9] +step *$'
    tmux_keys t
    tmux_screen_has "torch $1x$2: t x4: by module, the loss's module" 'by module' \
        'CrossEntropyLoss_0' '\(no module\)'
    tmux_keys t
    tmux_screen_has "torch $1x$2: t x5: by scope, aten::mm one group of its name" \
        'by (op )?scope' 'aten::mm'
    if [ "$(grep -c 'aten::mm' "$tmux_screen")" -eq 1 ]; then
        tap_ok "torch $1x$2: aten::mm is one group, not one per row"
    else
        tap_not_ok "torch $1x$2: aten::mm is one group, not one per row" "$tmux_screen"
    fi
    # The second group (after the special row): aten::empty_strided's rows.
    tmux_keys j Enter
    tmux_screen_has "torch $1x$2: Enter opens a group: that op's rows alone" \
        'aten::empty_strided'
    screen_lacks "torch $1x$2: ... no other op in it" 'aten::mm'
    tmux_keys BSpace
    tmux_screen_has "torch $1x$2: Backspace leaves it" 'by (op )?scope' 'aten::mm'
    tmux_keys t
    tmux_screen_has "torch $1x$2: t x6: by op" 'by op' 'aten::mm'
    tmux_keys t
    tap_check "torch $1x$2: t x7: not grouped" tmux_wait_for "not grouped: every row"
    memtop_quit "torch $1x$2: q quits with status 0"
done
memtop_viewer 200 60 "" "$torch"
tmux_screen_has "torch 200x60: the table" 'torch_trace\.py:15 step'
tmux_screen_has "torch 200x60: a shape column: aten::mm's Input Dims" \
    ' shape +(module +)?location +op' '4\.00 MiB .*\[\[1024, 256\], \[256, 1024\]\] +'
screen_lacks "torch 200x60: the special row shows no placeholder shape" \
    'unknown +allocated before the profile'
# A backward row (the weight gradient of Linear_1) takes its forward op's
# module and location.
tmux_screen_has "torch 200x60: a backward row: its forward op's module and location" \
    '\[\[1024, 256\], \[256, 1024\]\] +Linear_1 +torch_trace\.py:15 step +aten::mm' \
    '\[\[1024, 256\], \[256, 512\]\] +Linear_0 +torch_trace\.py:15 step +aten::mm'
tmux_screen_has "torch 200x60: a module column, the loss's module in it" \
    ' module +location +op' 'CrossEntropyLoss_0 +torch_trace\.py:15 step +aten::nll_loss_forward'
tmux_keys j Enter
tmux_screen_has "torch 200x60: Enter shows the context, location and stack" \
    'Context +Optimizer\.step#Adam\.step' 'Location +torch_trace\.py:15 step' \
    'Stack +torch/optim/adam\.py:[0-9]+ _multi_tensor_adam' 'torch_trace\.py:25 <module>'
tmux_keys Escape
memtop_quit "torch 200x60 (detail): q quits with status 0"

# ---- PyTorch's caching allocator in its users' words ----
for size in "80 24" "200 60"; do
    set -- $size
    memtop_viewer "$1" "$2" "" "$torch"
    if [ "$1" -ge 200 ]; then
        tmux_screen_has "torch $1x$2: the card says allocated and reserved but free" \
            '^ Peak \(allocated\) +95\.74 MiB' '^   allocated +95\.74 MiB' \
            '^   reserved but free +16\.26 MiB' '^ Lifetime peak allocated +95\.74 MiB'
        tmux_screen_has "torch $1x$2: the readout too" \
            'reserved but free 16\.26 MiB  allocated 95\.74 MiB'
    else
        tmux_screen_has "torch $1x$2: the card says allocated and reserved (short)" \
            '^   allocated +95\.74 MiB' '^   rsv\. free +16\.26 MiB'
    fi
    tmux_screen_has "torch $1x$2: the legend says allocated" '█ allocated'
    screen_lacks "torch $1x$2: no heap or free" '(heap|  free) '
    memtop_quit "torch $1x$2 (words): q quits with status 0"
done
memtop_viewer 200 60 "" "$jax"
tmux_screen_has "jax 200x60: XProf's words stay" '^   heap +[0-9]' '█ heap'
memtop_quit "jax 200x60 (words): q quits with status 0"

tap_done
