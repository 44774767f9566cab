# lib.sh: helpers for the shell tests, sourced by tests/test_*.sh.
#
# TAP:  tap_ok NAME | tap_not_ok NAME [FILE...] | tap_skip REASON | tap_check NAME COMMAND...
#       tap_done (prints the plan, returns non-zero when a test failed)
# tmux: tmux_start COLS ROWS COMMAND   starts COMMAND in a private tmux server
#       tmux_keys KEY...               send-keys (tmux key names: Escape, Enter, BTab)
#       tmux_text TEXT                 types TEXT literally
#       tmux_capture                   the screen into $tmux_screen
#       tmux_paste TEXT                TEXT in one write (escape sequences)
#       tmux_wait_for TEXT [SECONDS]   polls until the screen holds TEXT (grep -F), then
#                                      until it stops changing (a whole frame)
#       tmux_wait_gone TEXT [SECONDS]  polls until it does not
#       tmux_screen_has NAME PATTERN...  TAP: one screen has a line matching each (grep -E)
#       tmux_stop                      kills the server (also done at exit)
#       tmux_require                   skips the whole script without tmux or C.UTF-8
#       memtop_viewer COLS ROWS "VAR=value ..." ARG...  memtop in tmux (then EXIT=status)
#       memtop_quit NAME               q ends it with status 0, the screen given back
# cli:  memtop_run ARG...               runs $memtop: $test_work/out, $test_work/err, $status
#       memtop_expect NAME STATUS [STREAM PATTERN]...  checks the last run
#       memtop_sanitized                true when memtop is built with ASan
# data: generated_profile FILE SEED [ALLOCATORS]  a small gzipped MemoryProfile JSON
# Waits poll every 0.1 s up to a generous limit: they never assert on timing.
# POSIX sh.

memtop="${memtop:-${MEMTOP_BUILDDIR:-.}/memtop}"
tap_count=0
tap_failed=0
test_work=$(mktemp -d "${TMPDIR:-/tmp}/memtop-test-XXXXXX")
tmux_screen="$test_work/screen"
tmux_socket="memtop-test-$$"
tmux_started=false
tmux_session=""
tmux_sessions=0

# The viewer's remembered settings stay in the test's folder: none of the
# person's are read, none written to their home.
XDG_STATE_HOME="$test_work/state"
export XDG_STATE_HOME

tap_ok() {
    tap_count=$((tap_count + 1))
    echo "ok $tap_count - $1"
}

# tap_not_ok NAME [FILE...]: the files (the screen by default) as comments.
tap_not_ok() {
    tap_count=$((tap_count + 1))
    tap_failed=$((tap_failed + 1))
    name=$1
    shift
    echo "not ok $tap_count - $name"
    [ $# -gt 0 ] || set -- "$tmux_screen"
    for file in "$@"; do
        [ -r "$file" ] && sed 's/^/# /' "$file"
    done
    return 0
}

tap_skip() {
    tap_count=$((tap_count + 1))
    echo "ok $tap_count # SKIP $1"
}

# tap_check NAME COMMAND...: ok when COMMAND succeeds.
tap_check() {
    name=$1
    shift
    if "$@"; then tap_ok "$name"; else tap_not_ok "$name"; fi
}

tap_done() {
    echo "1..$tap_count"
    [ "$tap_failed" -eq 0 ]
}

memtop_run() {
    "$memtop" "$@" >"$test_work/out" 2>"$test_work/err"
    status=$?
}

# memtop_expect NAME STATUS [STREAM PATTERN]...: ok when the last
# memtop_run ended with STATUS and each STREAM (out or err) has a line
# matching its grep PATTERN; otherwise says which did not.
memtop_expect() {
    name=$1 want=$2
    shift 2
    if [ "$status" -ne "$want" ]; then
        echo "# status $status, expected $want" >>"$test_work/err"
        tap_not_ok "$name" "$test_work/out" "$test_work/err"
        return
    fi
    while [ $# -gt 0 ]; do
        stream=$1 pattern=$2
        shift 2
        if ! grep -q -e "$pattern" "$test_work/$stream"; then
            echo "# $stream lacks: $pattern" >>"$test_work/err"
            tap_not_ok "$name" "$test_work/out" "$test_work/err"
            return
        fi
    done
    tap_ok "$name"
}

# memtop_sanitized: $memtop is built with AddressSanitizer (which checks
# leaks itself, and under which valgrind does not run).
memtop_sanitized() {
    nm "$memtop" 2>/dev/null | grep -q __asan_init || ldd "$memtop" 2>/dev/null | grep -q libasan
}

tmux_run() {
    "${TMUX_BIN:-tmux}" -L "$tmux_socket" -f /dev/null "$@"
}

tmux_stop() {
    if $tmux_started; then
        tmux_run kill-server >/dev/null 2>&1
        tmux_started=false
        tmux_session=""
        # kill-server leaves the socket file behind.
        rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$tmux_socket"
    fi
}

lib_cleanup() {
    tmux_stop
    rm -rf "$test_work"
}
# The EXIT trap runs on every way out a signal can take too.
trap lib_cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 141' PIPE
trap 'exit 143' TERM

# tmux_have: whether tmux can be used at all.
tmux_have() {
    [ -n "${TMUX_BIN:-}" ] && [ "$TMUX_BIN" != no ] || TMUX_BIN=$(command -v tmux) || return 1
    [ -x "$TMUX_BIN" ] || command -v "$TMUX_BIN" >/dev/null 2>&1
}

# tmux_start COLS ROWS COMMAND: a new session running COMMAND (a shell
# command line) replaces the previous one. The new session starts before
# the old one ends, so the server never empties and exits under us (a new
# server on the same socket would race the dying one). The pane stays
# after COMMAND exits, so its last words can be read.
tmux_start() {
    : >"$tmux_screen"
    previous=$tmux_session
    tmux_sessions=$((tmux_sessions + 1))
    tmux_session="test$tmux_sessions"
    tmux_run new-session -d -x "$1" -y "$2" -s "$tmux_session" "$3" || return 1
    tmux_started=true
    tmux_run set-option -t "$tmux_session" remain-on-exit on >/dev/null 2>&1
    [ -z "$previous" ] || tmux_run kill-session -t "$previous" >/dev/null 2>&1
    return 0
}

tmux_keys() {
    tmux_run send-keys -t "$tmux_session" "$@"
}

tmux_text() {
    tmux_run send-keys -t "$tmux_session" -l "$1"
}

# tmux_paste TEXT: TEXT reaches the program in one write. send-keys
# writes key by key, and on a busy machine the gap inside an escape
# sequence (a mouse click) can pass the viewer's escape delay, which then
# reads a lone Esc.
tmux_paste() {
    printf '%s' "$1" | tmux_run load-buffer -b memtop-paste - &&
        tmux_run paste-buffer -d -b memtop-paste -t "$tmux_session"
}

tmux_capture() {
    tmux_run capture-pane -t "$tmux_session" -p >"$tmux_screen" 2>/dev/null || : >"$tmux_screen"
}

tmux_resize() {
    tmux_run resize-window -t "$tmux_session" -x "$1" -y "$2"
}

# tmux_wait_for TEXT [SECONDS]: true as soon as the screen holds TEXT.
tmux_wait_for() {
    limit=$(( ${2:-10} * 10 ))
    tries=0
    while [ "$tries" -lt "$limit" ]; do
        tmux_capture
        if grep -F -q -e "$1" "$tmux_screen"; then
            tmux_settle
            return 0
        fi
        sleep 0.1
        tries=$((tries + 1))
    done
    return 1
}

# tmux_settle: $tmux_screen holds a whole frame. The text a test waits for
# can show while the terminal is still painting the rows below it (a busy
# machine splits a frame's output), so the screen is read again until two
# reads 0.05 s apart agree (at most a second).
tmux_settle() {
    settle=0
    while [ "$settle" -lt 20 ]; do
        cp "$tmux_screen" "$tmux_screen.before"
        sleep 0.05
        tmux_capture
        cmp -s "$tmux_screen" "$tmux_screen.before" && break
        settle=$((settle + 1))
    done
    rm -f "$tmux_screen.before"
}

# tmux_screen_has NAME PATTERN...: ok when one screen has a line matching
# each (grep -E) pattern, the screen read again until it does (5 s);
# else not ok with the first pattern it lacks and the screen.
tmux_screen_has() {
    screen_has_name=$1
    shift
    tmux_wait_for "" 1 >/dev/null
    screen_has_tries=0
    while :; do
        screen_has_lacks=""
        for pattern in "$@"; do
            grep -E -q -e "$pattern" "$tmux_screen" || { screen_has_lacks=$pattern; break; }
        done
        [ -n "$screen_has_lacks" ] || break
        screen_has_tries=$((screen_has_tries + 1))
        if [ "$screen_has_tries" -gt 50 ]; then
            echo "# the screen lacks: $screen_has_lacks" >"$test_work/why"
            tap_not_ok "$screen_has_name" "$test_work/why" "$tmux_screen"
            return 0
        fi
        sleep 0.1
        tmux_capture
    done
    tap_ok "$screen_has_name"
}

# tmux_wait_gone TEXT [SECONDS]: true as soon as the screen lacks TEXT.
tmux_wait_gone() {
    limit=$(( ${2:-10} * 10 ))
    tries=0
    while [ "$tries" -lt "$limit" ]; do
        tmux_capture
        grep -F -q -e "$1" "$tmux_screen" || return 0
        sleep 0.1
        tries=$((tries + 1))
    done
    return 1
}

# tmux_require: the script's plan is "skip" (and it ends) when tmux or
# the C.UTF-8 locale the viewer tests run under is missing.
tmux_require() {
    if ! tmux_have; then
        echo "1..0 # SKIP tmux not found"
        exit 0
    fi
    if ! locale -a 2>/dev/null | grep -qi '^c\.utf-\?8$'; then
        echo "1..0 # SKIP no C.UTF-8 locale"
        exit 0
    fi
}

# memtop_viewer COLS ROWS "VARIABLE=value ..." ARGUMENTS: memtop in tmux
# under a known locale and terminal, colours on, with settings of its own
# (a fresh XDG_STATE_HOME per session unless the variables name one);
# when it ends the pane says EXIT=<status>.
memtop_viewer() {
    cols=$1 rows=$2 environment=$3
    shift 3
    arguments=""
    for argument in "$@"; do
        arguments="$arguments '$argument'"
    done
    tmux_start "$cols" "$rows" "env -u NO_COLOR LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=tmux-256color \
XDG_STATE_HOME='$test_work/state-$tmux_sessions' $environment '$memtop' $arguments; \
echo EXIT=\$?; sleep 60"
}

# memtop_quit NAME: q ends memtop with status 0 and gives the screen back.
memtop_quit() {
    tmux_keys q
    if tmux_wait_for "EXIT=" && grep -q "EXIT=0" "$tmux_screen" &&
        ! grep -q "q quit" "$tmux_screen"; then
        tap_ok "$1"
    else
        tap_not_ok "$1"
    fi
}

# generated_profile FILE SEED [ALLOCATORS]: a small gzipped MemoryProfile
# JSON from the project's generator (TF 2.2-2.5's <host>.memory_profile.json.gz).
generated_profile() {
    mkdir -p "$(dirname "$1")"
    "${MEMTOP_BUILDDIR:-.}/tests/generate_profile" --format json --snapshots 600 --seed "$2" \
        --allocators "${3:-2}" | gzip -n >"$1"
}
