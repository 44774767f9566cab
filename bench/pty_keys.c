/* pty_keys: what the viewer writes to a terminal, measured from outside
 * through a pseudo-terminal of a fixed size, as over SSH.
 *
 *     pty_keys [--until TEXT] COLUMNS ROWS STEPS SETUP -- COMMAND [ARG]...
 *
 * Starts COMMAND on a pty (TERM=xterm-256color, a UTF-8 locale), waits for
 * its first screen to settle (no output for QUIET_MS), types SETUP (say a
 * Tab that moves the focus to the chart; may be empty) and waits again,
 * then presses the Right arrow STEPS times, each time counting the bytes written until the
 * output is quiet again, and finally q. Prints for scripts:
 *
 *     first_frame_ms X    (start to the last byte of the first screen)
 *     first_frame_bytes N
 *     key_bytes_median N  (bytes written for one cursor step)
 *     key_bytes_max N
 *
 * --until TEXT: the first screen is not over before TEXT has been written
 * (a word only the loaded view shows): a big file's load may pause its
 * progress bar longer than QUIET_MS, which would otherwise end the first
 * screen early. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define QUIET_MS 400
#define FIRST_FRAME_LIMIT_MS 60000

static double now_ms(void)
{
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return (double)time.tv_sec * 1e3 + (double)time.tv_nsec / 1e6;
}

/* Reads until nothing came for QUIET_MS (or `limit_ms` in all), and, if
 * the reader waits for a text, it came: bytes read, and the time of the
 * last one. Remembers whether the program
 * switched the keypad to application mode, which changes what the arrow
 * keys send. */
struct reader {
    int terminal;
    bool keypad_mode;
    const char *until; /* NULL, or the text to wait for (shorter than tail) */
    bool until_seen;
    char tail[64]; /* the last bytes seen, for sequences cut between reads */
};

static bool contains(const char *bytes, size_t length, const char *wanted)
{
    size_t wanted_length = strlen(wanted);
    for (size_t i = 0; i + wanted_length <= length; i++)
        if (memcmp(bytes + i, wanted, wanted_length) == 0)
            return true;
    return false;
}

static size_t read_until_quiet(struct reader *reader, double limit_ms, double *last_ms)
{
    size_t total = 0;
    double started = now_ms();
    *last_ms = started;
    char buffer[65536];
    for (;;) {
        struct pollfd poll_entry = {reader->terminal, POLLIN, 0};
        int ready = poll(&poll_entry, 1, QUIET_MS);
        if (now_ms() - started > limit_ms || ready < 0)
            return total;
        if (ready == 0) {
            if (reader->until == NULL || reader->until_seen)
                return total;
            continue;
        }
        ssize_t got = read(reader->terminal, buffer, sizeof buffer);
        if (got <= 0)
            return total; /* the program ended (EIO on Linux) */
        *last_ms = now_ms();
        total += (size_t)got;
        char joined[sizeof reader->tail + sizeof buffer];
        size_t tail_length = strlen(reader->tail);
        memcpy(joined, reader->tail, tail_length);
        memcpy(joined + tail_length, buffer, (size_t)got);
        size_t joined_length = tail_length + (size_t)got;
        if (contains(joined, joined_length, "\033[?1h")) /* keypad transmit */
            reader->keypad_mode = true;
        if (reader->until && contains(joined, joined_length, reader->until))
            reader->until_seen = true;
        size_t keep = joined_length < sizeof reader->tail - 1 ? joined_length
                                                               : sizeof reader->tail - 1;
        memcpy(reader->tail, joined + joined_length - keep, keep);
        reader->tail[keep] = '\0';
    }
}

static int compare_sizes(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    const char *until = NULL;
    if (argc > 2 && strcmp(argv[1], "--until") == 0) {
        until = argv[2];
        argv += 2;
        argc -= 2;
    }
    if (argc < 7 || strcmp(argv[5], "--") != 0 ||
        (until && (*until == '\0' || strlen(until) >= sizeof ((struct reader *)0)->tail))) {
        fputs("usage: pty_keys [--until TEXT] COLUMNS ROWS STEPS SETUP -- COMMAND [ARG]...\n",
              stderr);
        return 2;
    }
    struct winsize size = {.ws_col = (unsigned short)atoi(argv[1]),
                           .ws_row = (unsigned short)atoi(argv[2])};
    int steps = atoi(argv[3]);
    if (size.ws_col == 0 || size.ws_row == 0 || steps < 1 || steps > 1000)
        return 2;
    struct reader reader = {.terminal = -1, .until = until};
    double started = now_ms();
    pid_t child = forkpty(&reader.terminal, NULL, NULL, &size);
    if (child < 0) {
        perror("pty_keys: forkpty");
        return 1;
    }
    if (child == 0) {
        setenv("TERM", "xterm-256color", 1);
        setenv("LC_ALL", "C.UTF-8", 1);
        execvp(argv[6], &argv[6]);
        fprintf(stderr, "pty_keys: %s: %s\n", argv[6], strerror(errno));
        _exit(127);
    }
    double last_ms;
    size_t first_bytes = read_until_quiet(&reader, FIRST_FRAME_LIMIT_MS, &last_ms);
    double first_frame_ms = last_ms - started;
    const char *setup = argv[4];
    if (*setup && write(reader.terminal, setup, strlen(setup)) > 0)
        read_until_quiet(&reader, 10000, &last_ms);
    size_t *key_bytes = calloc((size_t)steps, sizeof *key_bytes);
    if (!key_bytes)
        return 1;
    const char *right = reader.keypad_mode ? "\033OC" : "\033[C";
    for (int step = 0; step < steps; step++) {
        if (write(reader.terminal, right, strlen(right)) < 0)
            break;
        key_bytes[step] = read_until_quiet(&reader, 10000, &last_ms);
    }
    if (write(reader.terminal, "q", 1) < 0 || waitpid(child, NULL, WNOHANG) == 0) {
        read_until_quiet(&reader, 2000, &last_ms);
        kill(child, SIGTERM);
    }
    waitpid(child, NULL, 0);
    qsort(key_bytes, (size_t)steps, sizeof *key_bytes, compare_sizes);
    printf("first_frame_ms %.1f\nfirst_frame_bytes %zu\nkey_bytes_median %zu\nkey_bytes_max %zu\n",
           first_frame_ms, first_bytes, key_bytes[(steps - 1) / 2], key_bytes[steps - 1]);
    free(key_bytes);
    if (until && !reader.until_seen)
        fprintf(stderr, "pty_keys: the first screen never showed \"%s\"\n", until);
    return first_bytes > 0 && (!until || reader.until_seen) ? 0 : 1;
}
