#include "config.h"

#include "ui/terminal.h"

#include <curses.h>
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
static int signal_pipe[2] = {-1, -1};
static volatile sig_atomic_t pending_signal;

static const int ending_signals[] = {SIGINT, SIGTERM, SIGHUP};
static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGQUIT};
#define ENDING_COUNT (sizeof ending_signals / sizeof *ending_signals)
#define FATAL_COUNT (sizeof fatal_signals / sizeof *fatal_signals)
static struct sigaction saved_ending[ENDING_COUNT];
static struct sigaction saved_fatal[FATAL_COUNT];

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

static bool install_signals(void)
{
    struct sigaction action;
    memset(&action, 0, sizeof action);
    sigemptyset(&action.sa_mask);
    /* No SA_RESTART: a blocked poll() returns EINTR and sees the flag. */
    action.sa_handler = on_ending_signal;
    for (size_t i = 0; i < ENDING_COUNT; i++)
        if (sigaction(ending_signals[i], &action, &saved_ending[i]) != 0)
            return false;
    action.sa_handler = on_fatal_signal;
    action.sa_flags = SA_RESETHAND | SA_NODEFER;
    for (size_t i = 0; i < FATAL_COUNT; i++)
        if (sigaction(fatal_signals[i], &action, &saved_fatal[i]) != 0)
            return false;
    return true;
}

static void restore_signals(void)
{
    for (size_t i = 0; i < ENDING_COUNT; i++)
        sigaction(ending_signals[i], &saved_ending[i], NULL);
    for (size_t i = 0; i < FATAL_COUNT; i++)
        sigaction(fatal_signals[i], &saved_fatal[i], NULL);
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
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        snprintf(error, error_size, "the viewer needs a terminal; try --summary");
        return false;
    }
    pending_signal = 0;
    if (!open_signal_pipe()) {
        snprintf(error, error_size, "cannot set up signals: %s", strerror(errno));
        close_signal_pipe();
        return false;
    }
    screen = newterm(NULL, stdout, stdin);
    if (!screen) {
        const char *term = getenv("TERM");
        snprintf(error, error_size, "cannot use the terminal (TERM=%s); try --summary",
                 term ? term : "unset");
        close_signal_pipe();
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
        mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
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
        struct pollfd fds[2] = {
            {.fd = STDIN_FILENO, .events = POLLIN},
            {.fd = signal_pipe[0], .events = POLLIN},
        };
        int ready = poll(fds, 2, -1);
        if (ready < 0) {
            if (errno == EINTR)
                continue; /* SIGWINCH (wgetch then gives KEY_RESIZE) or ours */
            return TERMINAL_KEY_CLOSED;
        }
        if (fds[1].revents)
            continue;
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
