/* bench_run: runs commands alternately, several times each, and prints
 * the median wall time and peak resident size of each.
 *
 *     bench_run -n RUNS [-w FILE] -- LABEL COMMAND [ARG]... [-- LABEL COMMAND...]...
 *
 * -w FILE reads FILE through once before every run, untimed: the page
 * cache of a shared or virtual machine may drop pages of a big input
 * between runs, and then a run would time the disk instead of the loader.
 *
 * Rounds run every command once, in turn (the order reversed every other
 * round), so that a machine busy for a while slows them all alike. Each
 * child's peak resident size comes from wait4()'s rusage (ru_maxrss), its
 * standard output goes to /dev/null. One line per command on standard
 * output, for scripts:
 *
 *     LABEL RUNS MEDIAN_SECONDS MIN_SECONDS MAX_SECONDS MEDIAN_PEAK_KIB
 *
 * Exit status 1 when a command fails (its status is printed), 2 on bad
 * usage. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct command {
    const char *label;
    char **argv; /* NULL-terminated, inside the program's argv */
    double *seconds;
    long *peak_kib;
};

static double now_seconds(void)
{
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return (double)time.tv_sec + (double)time.tv_nsec / 1e9;
}

/* One run of `command`; false (with a message) when it did not exit 0. */
static bool run_once(const struct command *command, double *seconds, long *peak_kib)
{
    double start = now_seconds();
    pid_t child = fork();
    if (child < 0) {
        perror("bench_run: fork");
        return false;
    }
    if (child == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, STDOUT_FILENO);
        execvp(command->argv[0], command->argv);
        fprintf(stderr, "bench_run: %s: %s\n", command->argv[0], strerror(errno));
        _exit(127);
    }
    int status;
    struct rusage usage;
    while (wait4(child, &status, 0, &usage) < 0) {
        if (errno != EINTR) {
            perror("bench_run: wait4");
            return false;
        }
    }
    *seconds = now_seconds() - start;
    *peak_kib = usage.ru_maxrss;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "bench_run: %s failed (status %d)\n", command->label, status);
        return false;
    }
    return true;
}

/* Reads `path` to the end so that its pages are in the page cache. */
static bool warm_file(const char *path)
{
    int descriptor = open(path, O_RDONLY);
    if (descriptor < 0) {
        fprintf(stderr, "bench_run: %s: %s\n", path, strerror(errno));
        return false;
    }
    static char buffer[1 << 16];
    ssize_t got;
    while ((got = read(descriptor, buffer, sizeof buffer)) > 0 || (got < 0 && errno == EINTR))
        continue;
    close(descriptor);
    return got == 0;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int compare_longs(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static void print_result(const struct command *command, int runs)
{
    qsort(command->seconds, (size_t)runs, sizeof *command->seconds, compare_doubles);
    qsort(command->peak_kib, (size_t)runs, sizeof *command->peak_kib, compare_longs);
    /* The lower median for an even count: never a run that did not happen. */
    int middle = (runs - 1) / 2;
    printf("%s %d %.4f %.4f %.4f %ld\n", command->label, runs, command->seconds[middle],
           command->seconds[0], command->seconds[runs - 1], command->peak_kib[middle]);
}

static int usage_error(void)
{
    fputs("usage: bench_run -n RUNS [-w FILE] -- LABEL COMMAND [ARG]... "
          "[-- LABEL COMMAND...]...\n",
          stderr);
    return 2;
}

/* Splits argv at each "--" into commands (the separators become NULL). */
static int parse_commands(int argc, char **argv, int first, struct command *commands, int runs)
{
    int count = 0;
    for (int i = first; i < argc; i++) {
        if (strcmp(argv[i], "--") != 0)
            continue;
        argv[i] = NULL;
        if (i + 2 >= argc || strcmp(argv[i + 1], "--") == 0 || strcmp(argv[i + 2], "--") == 0)
            return -1;
        commands[count].label = argv[i + 1];
        commands[count].argv = &argv[i + 2];
        commands[count].seconds = calloc((size_t)runs, sizeof(double));
        commands[count].peak_kib = calloc((size_t)runs, sizeof(long));
        if (!commands[count].seconds || !commands[count].peak_kib)
            return -1;
        count++;
    }
    return count;
}

int main(int argc, char **argv)
{
    if (argc < 6 || strcmp(argv[1], "-n") != 0)
        return usage_error();
    const char *warm = NULL;
    int first = 3;
    if (strcmp(argv[3], "-w") == 0) {
        warm = argv[4];
        first = 5;
    }
    if (first >= argc || strcmp(argv[first], "--") != 0)
        return usage_error();
    int runs = atoi(argv[2]);
    if (runs < 1 || runs > 1000)
        return usage_error();
    struct command *commands = calloc((size_t)argc, sizeof *commands);
    if (!commands)
        return 1;
    int count = parse_commands(argc, argv, first, commands, runs);
    if (count <= 0)
        return usage_error();
    for (int round = 0; round < runs; round++) {
        for (int turn = 0; turn < count; turn++) {
            int which = round % 2 ? count - 1 - turn : turn;
            struct command *command = &commands[which];
            if (warm && !warm_file(warm))
                return 1;
            if (!run_once(command, &command->seconds[round], &command->peak_kib[round]))
                return 1;
        }
    }
    for (int i = 0; i < count; i++)
        print_result(&commands[i], runs);
    return 0;
}
