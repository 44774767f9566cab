#include "config.h"

#include "src/progress.h"

#include <time.h>
#include <unistd.h>

#include "model/format.h"

enum { BAR_WIDTH = 30 };

static double progress_now(void)
{
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return (double)time.tv_sec + (double)time.tv_nsec / 1e9;
}

void progress_bar_start(struct progress_bar *bar, FILE *out, const char *name)
{
    bar->out = out;
    bar->enabled = isatty(fileno(out));
    bar->shown = false;
    /* A name from the command line or a directory: made safe to draw. */
    format_safe_text(name ? name : "", false, bar->name, sizeof bar->name);
    bar->started = progress_now();
    bar->percent = -1;
}

void progress_bar_update(void *context, uint64_t done, uint64_t total)
{
    struct progress_bar *bar = context;
    if (!bar->enabled || total == 0)
        return;
    /* In floating point: done * 100 could pass 2^64 for huge inputs. */
    int percent = done >= total ? 100 : (int)((double)done * 100.0 / (double)total);
    if (percent == bar->percent)
        return;
    if (!bar->shown && progress_now() - bar->started < PROGRESS_DELAY_SECONDS)
        return;
    bar->percent = percent;
    int filled = percent * BAR_WIDTH / 100;
    char cells[BAR_WIDTH + 1];
    for (int i = 0; i < BAR_WIDTH; i++)
        cells[i] = i < filled ? '#' : '.';
    cells[BAR_WIDTH] = '\0';
    /* \r and "erase to the end of the line": one line, redrawn in place. */
    fprintf(bar->out, "\rloading %s [%s] %3d%%\033[K", bar->name, cells, percent);
    fflush(bar->out);
    bar->shown = true;
}

void progress_bar_finish(struct progress_bar *bar)
{
    if (!bar->shown)
        return;
    fputs("\r\033[K", bar->out);
    fflush(bar->out);
    bar->shown = false;
}
