#!/bin/sh
# The order of the house: model <- report <- ui <- src. A layer may
# include from the layers before it, never from one after it: model/
# nothing of report/, ui/ or src/; report/ nothing of ui/ or src/; ui/
# nothing of src/. Each layer is walked with its folders (model/decode/,
# model/formats/NAME/, ui/panes/...). One more rule: a format's internal
# header, model/formats/NAME/NAME_internal.h, is included only from its
# own folder (and its tests in tests/formats/NAME/).
#
#   test_layering.sh TREE   checks the source tree TREE: prints every
#                           upward include as FILE:LINE: ... and exits 1
#                           when there is one, 0 otherwise.
#   test_layering.sh        the make check test (TAP): checks the source
#                           tree, then shows that the check can fail: a
#                           copy of the tree with one upward include
#                           injected, for each rule and in each folder,
#                           and with each format's internal header
#                           included from outside its folder, must be
#                           refused.
set -u

layers="model report ui src"

# The layers after $1 in the order of the house.
layers_after() {
    after=""
    seen=false
    for layer in $layers; do
        if $seen; then after="$after $layer"; fi
        [ "$layer" = "$1" ] && seen=true
    done
    echo $after
}

# check_tree TREE: prints the upward includes; false when there is one.
check_tree() {
    tree=$1
    found=0
    for layer in $layers; do
        higher=$(layers_after "$layer" | tr ' ' '|')
        [ -n "$higher" ] || continue
        for file in $(find "$tree/$layer" -name '*.[ch]' | sort); do
            # #include "ui/x.h", <src/x.h>, "../report/x.h", with any blanks.
            matches=$(grep -n -E "^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"<](\.\./)*($higher)/" \
                "$file") || continue
            echo "$matches" | while IFS= read -r match; do
                echo "$file:${match%%:*}: $layer/ includes from a later layer: ${match#*:}"
            done
            found=1
        done
    done
    [ "$found" -eq 0 ]
}

if [ $# -gt 0 ]; then
    check_tree "$1"
    exit $?
fi

# ---- the make check test ----
source_dir="${MEMTOP_SRCDIR:-.}"
. "$source_dir/tests/lib.sh"
work=$test_work

if check_tree "$source_dir" >"$work/report"; then
    tap_ok "no layer includes from a later one (model <- report <- ui <- src)"
else
    tap_not_ok "no layer includes from a later one (model <- report <- ui <- src)" "$work/report"
fi

# A copy of the layers, for injecting includes into.
copy="$work/tree"
mkdir "$copy"
for layer in $layers; do
    cp -R "$source_dir/$layer" "$copy/$layer"
done
tap_check "the check passes on an untouched copy" sh "$0" "$copy"

# inject LAYER HIGHER: one "#include "HIGHER/...h"" appended to a header
# of LAYER (a copy of which is kept to put back); the check must fail
# and name that file.
inject() {
    layer=$1 higher=$2
    target=$(ls "$copy/$layer"/*.h | head -n 1)
    target_header=$(ls "$source_dir/$higher"/*.h | head -n 1)
    cp "$target" "$work/saved.h"
    printf '#include "%s/%s"\n' "$higher" "$(basename "$target_header")" >>"$target"
    if sh "$0" "$copy" >"$work/report" 2>&1; then
        tap_not_ok "an upward include $layer/ -> $higher/ is refused" "$work/report"
    elif ! grep -q "^$target:[0-9]*: $layer/ includes from a later layer" "$work/report"; then
        tap_not_ok "an upward include $layer/ -> $higher/ is refused, naming the file" "$work/report"
    else
        tap_ok "an upward include $layer/ -> $higher/ is refused, naming the file"
    fi
    cp "$work/saved.h" "$target"
}

inject model report
inject model ui
inject model src
inject report ui
inject report src
inject ui src

# Spellings a careless include might take.
target="$copy/model/$(ls "$copy/model" | grep '\.c$' | head -n 1)"
cp "$target" "$work/saved.c"
printf '  #  include <../ui/draw.h>\n' >>"$target"
tap_check "  ... also with blanks, <> and ../" sh -c "! sh '$0' '$copy' >/dev/null"
cp "$work/saved.c" "$target"
# Folders are walked to the bottom: model/decode/, model/formats/NAME/,
# ui/panes/chart/ are checked as their layer's top is.
for target in $(find "$copy/model" "$copy/ui" -mindepth 2 -name '*.c' | sort | awk -F/ '!seen[$(NF-1)]++'); do
    cp "$target" "$work/saved.c"
    printf '#include "src/input.h"\n' >>"$target"
    if sh "$0" "$copy" 2>&1 | grep -q "^$target:[0-9]*: "; then
        tap_ok "  ... also in ${target#"$copy"/}"
    else
        tap_not_ok "  ... also in ${target#"$copy"/}"
    fi
    cp "$work/saved.c" "$target"
done

# ---- profile strings travel with their length (issue 16.4) ----
# A profile's string may hold a NUL: views, reports and messages take it
# as a struct text (profile_string, string_table_get), never as a C
# string, which would stop short. The C-string accessors are defined in
# model/ for the tests; no other code calls them.
c_string_calls() {
    grep -rn --include='*.c' -E '\b(profile_text|string_table_text)[[:space:]]*\(' \
        "$1"/model "$1"/report "$1"/ui "$1"/src 2>/dev/null |
        grep -v -E '^[^:]*/model/(profile|string_table)\.c:[0-9]+:(const char \*|    return string_table_text)'
}
if c_string_calls "$source_dir" >"$work/report"; then
    tap_not_ok "no code outside the tests reads a profile string as a C string" "$work/report"
else
    tap_ok "no code outside the tests reads a profile string as a C string"
fi
printf 'static void f(void) { profile_text(0, 0); }\n' >>"$copy/ui/draw.c"
if c_string_calls "$copy" | grep -q '/ui/draw\.c:'; then
    tap_ok "  ... and it finds one put in a view"
else
    tap_not_ok "  ... and it finds one put in a view"
fi

# ---- the loaders' own headers stay in model/ (issue 10) ----
# load.h is the door to loading: the format table, the builder, the wire
# and JSON readers and each loader's internals are model/'s business, so
# a new format never reaches report/, ui/ or src/.
private_headers='load_internal|query/live_source|snapshot_columns_internal|input_format|profile_builder|decode/[a-z0-9_]+|formats/memory_profile/(xprof_draft|memory_profile_internal)|formats/[a-z0-9_]+/[a-z0-9_]+_internal|formats/chrome_trace/load_trace_(kineto|timeline)'
private_includes() {
    grep -n -E "^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"<](\.\./)*model/($private_headers)\.h" \
        -r --include='*.[ch]' "$1"/report "$1"/ui "$1"/src 2>/dev/null
}
if private_includes "$source_dir" >"$work/report"; then
    tap_not_ok "no code above model/ includes a loader's own header" "$work/report"
else
    tap_ok "no code above model/ includes a loader's own header"
fi
printf '#include "model/input_format.h"\n' >>"$copy/report/export.h"
if private_includes "$copy" | grep -q '/report/export\.h:'; then
    tap_ok "  ... and it finds one put in report/"
else
    tap_not_ok "  ... and it finds one put in report/"
fi

# ---- a format's internal header stays in its folder (issue 21) ----
# model/formats/X/X_internal.h indexes X's files for one another: only
# model/formats/X/ (and X's own tests, tests/formats/X/) include it, so a
# format is read, changed or removed in its folder alone.
foreign_internal_includes() {
    for folder in "$1"/model/formats/*/; do
        [ -d "$folder" ] || continue
        name=$(basename "$folder")
        grep -rn --include='*.[ch]' -E \
            "^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"<](\.\./)*model/formats/$name/${name}_internal\.h" \
            "$1"/model "$1"/report "$1"/ui "$1"/src "$1"/tests 2>/dev/null |
            grep -v -E "^$1/(model|tests)/formats/$name/"
    done
}
if foreign_internal_includes "$source_dir" >"$work/report"; then
    tap_not_ok "no file outside model/formats/X/ includes X's internal header" "$work/report"
else
    tap_ok "no file outside model/formats/X/ includes X's internal header"
fi
formats=$(cd "$copy/model/formats" && ls)
tap_check "  ... the copy has formats to check" test -n "$formats"
# inject_internal FILE NAME: FILE (in the copy) includes format NAME's
# internal header; the check must name FILE.
inject_internal() {
    target=$1 name=$2
    cp "$target" "$work/saved.internal"
    printf '#include "model/formats/%s/%s_internal.h"\n' "$name" "$name" >>"$target"
    if foreign_internal_includes "$copy" | grep -q "^$target:"; then
        tap_ok "  ... and it refuses ${target#"$copy"/} including $name's"
    else
        tap_not_ok "  ... and it refuses ${target#"$copy"/} including $name's"
    fi
    cp "$work/saved.internal" "$target"
}
for name in $formats; do
    # Another format's face file, the door, and a view.
    for other in $formats; do
        [ "$other" = "$name" ] && continue
        inject_internal "$(ls "$copy/model/formats/$other"/*.c | head -n 1)" "$name"
        break
    done
    inject_internal "$copy/model/load.c" "$name"
    inject_internal "$copy/ui/viewer.c" "$name"
done
# Its own folder may: an include from inside is not reported.
name=$(echo "$formats" | head -n 1)
target=$(ls "$copy/model/formats/$name"/*.c | head -n 1)
printf '#include "model/formats/%s/%s_internal.h"\n' "$name" "$name" >>"$target"
if foreign_internal_includes "$copy" | grep -q "^$target:"; then
    tap_not_ok "  ... but not $name's own files including it"
else
    tap_ok "  ... but not $name's own files including it"
fi
cp "$work/saved.internal" "$target"

tap_done
