/* terminal: curses set up and torn down, signals, and reading keys.
 * Called by ui.c only; the only module that talks to curses' setup.
 *
 * The terminal is restored however memtop ends: a quit, a closed input,
 * any signal whose default action ends a program (SIGINT, SIGTERM,
 * SIGHUP when an SSH connection drops, SIGPIPE, SIGALRM, SIGUSR1/2,
 * SIGXCPU, the real-time signals, ...: the main loop ends, the terminal
 * is given back, then the signal is raised again so the exit status
 * says which), or a crash (SIGSEGV, SIGBUS, SIGABRT, SIGQUIT, ...:
 * restored in the handler, then the signal's default action). A signal
 * ignored when memtop started stays ignored. Reading blocks in poll() on
 * the terminal and a self-pipe the signal handlers write to, so a signal
 * ends the wait at once and a closed terminal never turns into a busy
 * loop. */
#ifndef MEMTOP_TERMINAL_H
#define MEMTOP_TERMINAL_H

#include <stdbool.h>
#include <stddef.h>

#include "ui/draw.h"
#include "ui/ui.h"

/* terminal_read_key() results that are not keys. */
#define TERMINAL_KEY_CLOSED (-2) /* input ended or failed */
#define TERMINAL_KEY_SIGNAL (-3) /* a signal asked memtop to end */
#define TERMINAL_KEY_WAKE (-4)   /* the watched descriptor became readable */

/* Starts curses on the controlling terminal (stdin/stdout) and fills
 * *style for it. false, with a one-line reason, when there is no usable
 * terminal. */
bool terminal_start(const struct ui_options *options, struct ui_style *style, char *error,
                    size_t error_size);
/* Gives the terminal back as it was. Safe to call twice. */
void terminal_stop(void);

/* The next key (a curses key code, KEY_RESIZE, KEY_MOUSE, or a byte of a
 * UTF-8 character), or TERMINAL_KEY_CLOSED / TERMINAL_KEY_SIGNAL, or
 * TERMINAL_KEY_WAKE when the descriptor given to terminal_watch() is
 * readable (the caller empties it). */
int terminal_read_key(void);
/* A descriptor whose news ends the wait for a key (a background load's
 * progress); -1: none. */
void terminal_watch(int fd);

/* --follow: a descriptor whose news (or, with timeout_ms >= 0, that
 * many milliseconds without a key) makes terminal_read_key() return
 * TERMINAL_KEY_FOLLOW; -1 and -1: none. */
#define TERMINAL_KEY_FOLLOW (-5)
void terminal_watch_follow(int fd, int timeout_ms);

/* The signal that ended the session, 0 if none. After terminal_stop(),
 * terminal_reraise() lets it end the process the way it would have. */
int terminal_pending_signal(void);
void terminal_reraise(int signal_number);

#endif
