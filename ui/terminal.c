#include "config.h"

#include "ui/terminal.h"

#include <curses.h>
#include <term.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Esc must feel instant; escape sequences arrive far faster than this. */
#define ESCAPE_DELAY_MS 25
/* Readable input that yields no key this many times in a row is a closed
 * terminal (read() returning 0 or an error). */
#define CLOSED_INPUT_STREAK 3

static SCREEN *screen;
/* Where keys come from: standard input, or the controlling terminal
 * (/dev/tty) when standard input carried a profile. */
static FILE *key_input;
static int signal_pipe[2] = {-1, -1};
static volatile sig_atomic_t pending_signal;

/* Every signal whose default action ends the process must leave the
 * terminal as it found it. Those that ask memtop to end (someone typed
 * Ctrl-C, a session ended, a pipe broke, a timer or a resource limit
 * ran out) end the main loop: the terminal is given back outside the
 * handler, then the signal is raised again with its default action, so
 * the exit status says which it was. The real-time signals (SIGRTMIN..
 * SIGRTMAX) are of this kind too. */
static const int ending_signals[] = {
    SIGINT,  SIGTERM, SIGHUP,    SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM,
    SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ,
#ifdef SIGPOLL
    SIGPOLL, /* SIGIO on Linux */
#elif defined SIGIO
    SIGIO,
#endif
#ifdef SIGPWR
    SIGPWR,
#endif
#ifdef SIGSTKFLT
    SIGSTKFLT,
#endif
#ifdef SIGEMT
    SIGEMT,
#endif
#ifdef SIGLOST
    SIGLOST,
#endif
};
/* Faults (and SIGQUIT, which asks for a core now): the program cannot go
 * on, so the handler itself gives the terminal back and re-raises. */
static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGQUIT,
                                    SIGTRAP, SIGSYS};
#define ENDING_COUNT (sizeof ending_signals / sizeof *ending_signals)
#define FATAL_COUNT (sizeof fatal_signals / sizeof *fatal_signals)
#ifndef NSIG
#define NSIG 65
#endif
/* What each signal did before terminal_start(), for terminal_stop(). */
static struct sigaction saved_actions[NSIG];
static bool installed[NSIG];

static void on_ending_signal(int signal_number)
{
    int saved_errno = errno;
    pending_signal = signal_number;
    if (signal_pipe[1] >= 0) {
        ssize_t written = write(signal_pipe[1], "x", 1);
        (void)written; /* a full pipe already holds a wake-up */
    }
    errno = saved_errno;
}

/* Crashing: endwin() is not async-signal-safe, but a shell left in raw
 * mode on the alternate screen is worse than the small risk. Then the
 * default action (core dump, exit status) happens as if we were not here. */
static void on_fatal_signal(int signal_number)
{
    if (screen)
        endwin();
    signal(signal_number, SIG_DFL);
    raise(signal_number);
}

/* Installs `action` for one signal, remembering what it did. A signal
 * that asks to end and was ignored when memtop started (nohup, a parent
 * that ignores SIGPIPE) stays ignored, as the caller wanted. */
static bool install_signal(int signal_number, const struct sigaction *action, bool keep_ignored)
{
    if (signal_number <= 0 || signal_number >= NSIG || installed[signal_number])
        return true;
    struct sigaction old;
    if (sigaction(signal_number, NULL, &old) != 0)
        return false;
    if (keep_ignored && old.sa_handler == SIG_IGN)
        return true;
    if (sigaction(signal_number, action, &saved_actions[signal_number]) != 0)
        return false;
    installed[signal_number] = true;
    return true;
}

static bool install_signals(void)
{
    struct sigaction action;
    memset(&action, 0, sizeof action);
    sigemptyset(&action.sa_mask);
    /* No SA_RESTART: a blocked poll() returns EINTR and sees the flag. */
    action.sa_handler = on_ending_signal;
    for (size_t i = 0; i < ENDING_COUNT; i++)
        if (!install_signal(ending_signals[i], &action, true))
            return false;
#if defined SIGRTMIN && defined SIGRTMAX
    for (int signal_number = SIGRTMIN; signal_number <= SIGRTMAX; signal_number++)
        if (!install_signal(signal_number, &action, true))
            return false;
#endif
    action.sa_handler = on_fatal_signal;
    action.sa_flags = SA_RESETHAND | SA_NODEFER;
    for (size_t i = 0; i < FATAL_COUNT; i++)
        if (!install_signal(fatal_signals[i], &action, false))
            return false;
    return true;
}

static void restore_signals(void)
{
    for (int signal_number = 1; signal_number < NSIG; signal_number++) {
        if (installed[signal_number])
            sigaction(signal_number, &saved_actions[signal_number], NULL);
        installed[signal_number] = false;
    }
}

static bool open_signal_pipe(void)
{
    if (pipe(signal_pipe) != 0)
        return false;
    for (int i = 0; i < 2; i++) {
        int flags = fcntl(signal_pipe[i], F_GETFL);
        if (flags < 0 || fcntl(signal_pipe[i], F_SETFL, flags | O_NONBLOCK) != 0 ||
            fcntl(signal_pipe[i], F_SETFD, FD_CLOEXEC) != 0)
            return false;
    }
    return true;
}

static void close_signal_pipe(void)
{
    for (int i = 0; i < 2; i++) {
        if (signal_pipe[i] >= 0)
            close(signal_pipe[i]);
        signal_pipe[i] = -1;
    }
}

static void close_key_input(void)
{
    if (key_input && key_input != stdin)
        fclose(key_input);
    key_input = NULL;
}

/* Whether $TERM names a terminal curses knows. Asked before newterm():
 * a newterm() that fails keeps the screen it allocated (ncurses'
 * new_prescr(), 1.6 KB that LSan and valgrind report), while a failed
 * setupterm() allocates nothing, and the description a successful one
 * loads is freed here; newterm() loads its own. */
static bool terminal_known(void)
{
    int status = 0;
    if (setupterm(NULL, STDOUT_FILENO, &status) != OK)
        return false;
    del_curterm(cur_term);
    return true;
}

static bool locale_is_utf8(void)
{
    const char *codeset = nl_langinfo(CODESET);
    return codeset && (strcmp(codeset, "UTF-8") == 0 || strcmp(codeset, "utf8") == 0);
}

static bool start_colors(const struct ui_options *options)
{
    if (options->no_color || !has_colors())
        return false;
    /* Default colours keep the user's background (and transparency). */
    return start_color() == OK && use_default_colors() == OK;
}

bool terminal_start(const struct ui_options *options, struct ui_style *style, char *error,
                    size_t error_size)
{
    if (!isatty(STDOUT_FILENO) || (!isatty(STDIN_FILENO) && !options->keys_from_terminal)) {
        snprintf(error, error_size, "the viewer needs a terminal; try --summary");
        return false;
    }
    key_input = stdin;
    if (!isatty(STDIN_FILENO)) {
        /* A profile came through standard input: keys come from the
         * terminal itself, as less reads them. */
        key_input = fopen("/dev/tty", "re");
        if (!key_input) {
            snprintf(error, error_size, "cannot read keys from /dev/tty: %s; try --summary",
                     strerror(errno));
            return false;
        }
    }
    pending_signal = 0;
    if (!open_signal_pipe()) {
        snprintf(error, error_size, "cannot set up signals: %s", strerror(errno));
        close_signal_pipe();
        close_key_input();
        return false;
    }
    screen = terminal_known() ? newterm(NULL, stdout, key_input) : NULL;
    if (!screen) {
        const char *term = getenv("TERM");
        snprintf(error, error_size, "cannot use the terminal (TERM=%s); try --summary",
                 term ? term : "unset");
        close_signal_pipe();
        close_key_input();
        return false;
    }
    if (!install_signals()) {
        snprintf(error, error_size, "cannot set up signals: %s", strerror(errno));
        terminal_stop();
        return false;
    }
    set_escdelay(ESCAPE_DELAY_MS);
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    curs_set(0);
    if (options->mouse) {
        /* Releases too, though the viewer ignores them: when two clicks
         * arrive together, curses drops a release that is outside the mask
         * from its queue together with the press after it (two quick
         * clicks became one; test_ui.sh saw it under load). Double and
         * triple clicks too, should curses ever fold clicks read together
         * into one: the viewer takes them as that many clicks. */
        mousemask(BUTTON1_PRESSED | BUTTON1_RELEASED | BUTTON1_CLICKED |
                      BUTTON1_DOUBLE_CLICKED | BUTTON1_TRIPLE_CLICKED | BUTTON4_PRESSED |
                      BUTTON5_PRESSED,
                  NULL);
        mouseinterval(0);
    }
    draw_style_init(style, !options->ascii && locale_is_utf8(), start_colors(options));
    return true;
}

void terminal_stop(void)
{
    if (screen) {
        curs_set(1);
        endwin();
        delscreen(screen);
        screen = NULL;
        restore_signals();
    }
    close_signal_pipe();
    close_key_input();
}

static int watched_fd = -1;
static int follow_fd = -1, follow_timeout_ms = -1;

void terminal_watch(int fd)
{
    watched_fd = fd;
}

void terminal_watch_follow(int fd, int timeout_ms)
{
    follow_fd = fd;
    follow_timeout_ms = timeout_ms;
}

int terminal_read_key(void)
{
    int streak = 0;
    for (;;) {
        if (pending_signal)
            return TERMINAL_KEY_SIGNAL;
        int key = wgetch(stdscr); /* never blocks: nodelay */
        if (key != ERR)
            return key;
        /* Unwatched places are -1: poll() passes them over. */
        struct pollfd fds[4] = {
            {.fd = fileno(key_input), .events = POLLIN},
            {.fd = signal_pipe[0], .events = POLLIN},
            {.fd = watched_fd, .events = POLLIN},
            {.fd = follow_fd, .events = POLLIN},
        };
        int ready = poll(fds, 4, follow_timeout_ms);
        if (ready == 0)
            return TERMINAL_KEY_FOLLOW;
        if (ready < 0) {
            if (errno == EINTR)
                continue; /* SIGWINCH (wgetch then gives KEY_RESIZE) or ours */
            return TERMINAL_KEY_CLOSED;
        }
        if (fds[1].revents)
            continue;
        /* Keys first: a busy loader must not hold up typing. */
        if (watched_fd >= 0 && fds[2].revents && !(fds[0].revents & (POLLIN | POLLHUP)))
            return TERMINAL_KEY_WAKE;
        if (follow_fd >= 0 && fds[3].revents && !(fds[0].revents & (POLLIN | POLLHUP)))
            return TERMINAL_KEY_FOLLOW;
        if (fds[0].revents & (POLLERR | POLLNVAL))
            return TERMINAL_KEY_CLOSED;
        if (fds[0].revents & (POLLIN | POLLHUP)) {
            key = wgetch(stdscr);
            if (key != ERR)
                return key;
            if (++streak >= CLOSED_INPUT_STREAK)
                return TERMINAL_KEY_CLOSED;
        }
    }
}

int terminal_pending_signal(void)
{
    return pending_signal;
}

void terminal_reraise(int signal_number)
{
    if (signal_number <= 0)
        return;
    signal(signal_number, SIG_DFL);
    raise(signal_number);
}
