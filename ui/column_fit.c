#include "config.h"

#include "ui/column_fit.h"

#include <stdio.h>
#include <string.h>

static int max_int(int a, int b) { return a > b ? a : b; }

static int heading_width(const struct fit_column *column, int heading_extra)
{
    return (int)strlen(column->heading) + heading_extra;
}

/* Cells left of the last column with these widths, the left margin
 * included. */
static int used_width(const struct column_fit *fit, size_t count, int gap)
{
    int used = 1;
    for (size_t c = 0; c + 1 < count; c++)
        if (fit->shown[c])
            used += fit->width[c] + gap;
    return used;
}

/* The column of rank `rank` among those with a rank; -1 when none. */
static int column_of_rank(const struct fit_column *columns, size_t count, int rank, bool hide)
{
    for (size_t c = 0; c + 1 < count; c++)
        if ((hide ? columns[c].hide_rank : columns[c].shrink_rank) == rank)
            return (int)c;
    return -1;
}

/* One step toward fitting `deficit` more cells: the first column in
 * shrink order that can shrink does, else the first in hide order still
 * shown hides. false when nothing can give way. */
static bool give_way(const struct fit_column *columns, size_t count, int heading_extra, int keep,
                     int deficit, struct column_fit *fit)
{
    for (int rank = 1;; rank++) {
        int c = column_of_rank(columns, count, rank, false);
        if (c < 0)
            break;
        int floor = max_int(columns[c].minimum, heading_width(&columns[c], heading_extra));
        if (fit->shown[c] && fit->width[c] > floor) {
            fit->width[c] = max_int(floor, fit->width[c] - deficit);
            return true;
        }
    }
    for (int rank = 1;; rank++) {
        int c = column_of_rank(columns, count, rank, true);
        if (c < 0)
            return false;
        if (fit->shown[c] && c != keep) {
            fit->shown[c] = false;
            return true;
        }
    }
}

void column_fit_compute(const struct fit_column *columns, size_t count, const int *natural,
                        int heading_extra, int keep, int width, struct column_fit *fit)
{
    memset(fit, 0, sizeof *fit);
    if (count > COLUMN_FIT_MAX)
        count = COLUMN_FIT_MAX;
    if (count == 0)
        return;
    int gap = width >= 70 ? 2 : 1;
    for (size_t c = 0; c < count; c++) {
        int heading = heading_width(&columns[c], heading_extra);
        int wanted = max_int(natural[c], heading);
        if (columns[c].maximum > 0 && wanted > columns[c].maximum)
            wanted = max_int(columns[c].maximum, heading);
        fit->width[c] = wanted;
        fit->shown[c] = !(columns[c].hide_when_empty && natural[c] == 0);
    }
    /* The last column keeps two fifths of the width: names run long. */
    const struct fit_column *last = &columns[count - 1];
    int last_minimum = max_int(max_int(last->minimum, width * 2 / 5),
                               heading_width(last, heading_extra));
    for (;;) {
        int deficit = last_minimum - (width - used_width(fit, count, gap));
        if (deficit <= 0 || !give_way(columns, count, heading_extra, keep, deficit, fit))
            break;
    }
    int x = 1;
    for (size_t c = 0; c < count; c++) {
        if (!fit->shown[c])
            continue;
        fit->x[c] = x;
        if (c + 1 == count)
            fit->width[c] = max_int(0, width - x);
        x += fit->width[c] + gap;
    }
}

void column_fit_measure(size_t count, size_t rows, column_fit_cell cell, const void *context,
                        const struct ui_style *style, int *natural)
{
    for (size_t c = 0; c < count; c++)
        natural[c] = 0;
    for (size_t row = 0; row < rows; row++) {
        for (size_t c = 0; c < count; c++) {
            char buffer[96];
            int width = draw_bytes_width(cell(context, row, c, buffer, sizeof buffer), style);
            if (width > natural[c])
                natural[c] = width;
        }
    }
}

void column_fit_draw_cell(WINDOW *window, int y, int x, const struct fit_column *columns,
                          const struct column_fit *fit, size_t column, struct text text,
                          const struct ui_style *style)
{
    if (columns[column].right_aligned)
        draw_bytes_right(window, y, x + fit->x[column], fit->width[column], text, style);
    else
        draw_bytes(window, y, x + fit->x[column], fit->width[column], text, style);
}

static const char *sort_arrow(const struct ui_style *style, bool descending)
{
    if (style->utf8)
        return descending ? "\xe2\x96\xbc" : "\xe2\x96\xb2"; /* ▼ ▲ */
    return descending ? "v" : "^";
}

void column_fit_draw_headings(WINDOW *window, int y, int x, const struct fit_column *columns,
                              size_t count, const struct column_fit *fit, int sorted,
                              bool descending, const struct ui_style *style)
{
    for (size_t c = 0; c < count && c < COLUMN_FIT_MAX; c++) {
        if (!fit->shown[c])
            continue;
        bool is_sorted = (int)c == sorted;
        char text[64];
        snprintf(text, sizeof text, "%s%s", columns[c].heading,
                 is_sorted ? sort_arrow(style, descending) : "");
        wattrset(window, is_sorted ? style->title : style->dim | A_BOLD);
        column_fit_draw_cell(window, y, x, columns, fit, c, text_of(text), style);
    }
    wattrset(window, style->normal);
}
