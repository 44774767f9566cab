#include "config.h"

#include "ui/column_fit.h"

#include <stdio.h>
#include <string.h>

#include "ui/text_fit.h"

/* Cells of the last column's text one scroll step moves past. */
#define SCROLL_TEXT_STEP 8

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

/* The largest rank given (ranks need not be contiguous). */
static int last_rank(const struct fit_column *columns, size_t count, bool hide)
{
    int last = 0;
    for (size_t c = 0; c + 1 < count; c++)
        last = max_int(last, hide ? columns[c].hide_rank : columns[c].shrink_rank);
    return last;
}

/* One step toward fitting `deficit` more cells: the first column in
 * shrink order that can shrink does, else the first in hide order still
 * shown hides. false when nothing can give way. */
static bool give_way(const struct fit_column *columns, size_t count, int heading_extra, int keep,
                     int deficit, struct column_fit *fit)
{
    for (int rank = 1, last = last_rank(columns, count, false); rank <= last; rank++) {
        int c = column_of_rank(columns, count, rank, false);
        if (c < 0)
            continue;
        int floor = max_int(columns[c].minimum, heading_width(&columns[c], heading_extra));
        if (fit->shown[c] && fit->width[c] > floor) {
            fit->width[c] = max_int(floor, fit->width[c] - deficit);
            return true;
        }
    }
    for (int rank = 1, last = last_rank(columns, count, true); rank <= last; rank++) {
        int c = column_of_rank(columns, count, rank, true);
        if (c >= 0 && fit->shown[c] && c != keep) {
            fit->shown[c] = false;
            return true;
        }
    }
    return false;
}

/* The least the last column keeps when a kept column needs room. */
static int last_least(const struct fit_column *columns, size_t count, int heading_extra)
{
    const struct fit_column *last = &columns[count - 1];
    return max_int(last->minimum, heading_width(last, heading_extra));
}

/* The kept column shown where it belongs although it would hide: its
 * room comes from the last column; when that would leave the last
 * column less than its least, the kept column shrinks to its floor,
 * then others hide in hide order. */
static void show_kept(const struct fit_column *columns, size_t count, int heading_extra, int keep,
                      int width, int gap, struct column_fit *fit)
{
    fit->shown[keep] = true;
    /* A last column left out for want of text keeps nothing. */
    int least = fit->shown[count - 1] ? last_least(columns, count, heading_extra) : 0;
    int floor = max_int(columns[keep].minimum, heading_width(&columns[keep], heading_extra));
    int short_by = least - (width - used_width(fit, count, gap));
    if (short_by > 0 && fit->width[keep] > floor)
        fit->width[keep] = max_int(floor, fit->width[keep] - short_by);
    int last = last_rank(columns, count, true);
    for (int rank = 1; rank <= last && least - (width - used_width(fit, count, gap)) > 0; rank++) {
        int c = column_of_rank(columns, count, rank, true);
        if (c >= 0 && c != keep)
            fit->shown[c] = false;
    }
}

/* Places the columns shown from the left edge; the last takes the rest. */
static void place_columns(size_t count, int width, int gap, struct column_fit *fit)
{
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

/* The fit with the first `skipped` columns left out. */
static void fit_skipping(const struct fit_column *columns, size_t count, const int *natural,
                         int heading_extra, int keep, int width, size_t skipped,
                         struct column_fit *fit)
{
    memset(fit, 0, sizeof *fit);
    fit->count = count;
    fit->skipped = skipped;
    int gap = width >= 70 ? 2 : 1;
    for (size_t c = 0; c < count; c++) {
        int heading = heading_width(&columns[c], heading_extra);
        int wanted = max_int(natural[c], heading);
        if (columns[c].maximum > 0 && wanted > columns[c].maximum)
            wanted = max_int(columns[c].maximum, heading);
        fit->width[c] = wanted;
        fit->shown[c] = !(columns[c].hide_when_empty && natural[c] == 0) &&
                        (c + 1 == count || c >= skipped);
    }
    /* The last column keeps two fifths of the width, names run long;
     * no more than its widest text needs, though. */
    /* A last column left out for want of text keeps nothing. */
    int least = fit->shown[count - 1] ? last_least(columns, count, heading_extra) : 0;
    int wanted_last = natural[count - 1] < width * 2 / 5 ? natural[count - 1] : width * 2 / 5;
    int last_minimum = max_int(least, wanted_last);
    for (;;) {
        int deficit = last_minimum - (width - used_width(fit, count, gap));
        if (deficit <= 0 || !give_way(columns, count, heading_extra, -1, deficit, fit))
            break;
    }
    bool keep_shows = keep >= 0 && (size_t)keep + 1 < count && (size_t)keep >= skipped &&
                      !(columns[keep].hide_when_empty && natural[keep] == 0);
    if (keep_shows && !fit->shown[keep])
        show_kept(columns, count, heading_extra, keep, width, gap, fit);
    place_columns(count, width, gap, fit);
}

/* The first column shown but the last; count - 1 when none is. */
static size_t first_shown(const struct column_fit *fit, size_t count)
{
    size_t c = 0;
    while (c + 1 < count && !fit->shown[c])
        c++;
    return c;
}

void column_fit_compute_scrolled(const struct fit_column *columns, size_t count,
                                 const int *natural, int heading_extra, int keep, int width,
                                 int *scroll, struct column_fit *fit)
{
    memset(fit, 0, sizeof *fit);
    if (count > COLUMN_FIT_MAX)
        count = COLUMN_FIT_MAX;
    if (count == 0)
        return;
    int steps = *scroll > 0 ? *scroll : 0, taken = 0;
    size_t skipped = 0;
    fit_skipping(columns, count, natural, heading_extra, keep, width, skipped, fit);
    /* Each step leaves out the first column still shown... */
    while (taken < steps && first_shown(fit, count) + 1 < count) {
        skipped = first_shown(fit, count) + 1;
        fit_skipping(columns, count, natural, heading_extra, keep, width, skipped, fit);
        taken++;
    }
    /* ... then moves through the last column's text, up to its end. */
    size_t last = count - 1;
    int hidden = natural[last] - fit->width[last];
    while (taken < steps && fit->last_offset < hidden) {
        fit->last_offset += SCROLL_TEXT_STEP;
        taken++;
    }
    *scroll = taken;
}

void column_fit_compute(const struct fit_column *columns, size_t count, const int *natural,
                        int heading_extra, int keep, int width, struct column_fit *fit)
{
    int scroll = 0;
    column_fit_compute_scrolled(columns, count, natural, heading_extra, keep, width, &scroll,
                                fit);
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
    /* text_fit reads NUL-terminated text: a copy of it; a text holding a
     * NUL (or too long to copy) is cut at its end by draw_bytes. */
    char raw[1024], shortened[1024];
    bool skip = fit->last_offset > 0 && column + 1 == fit->count;
    if ((skip || columns[column].shorten_middle) && !text_has_nul(text) &&
        text.length < sizeof raw) {
        memcpy(raw, text.bytes, text.length);
        raw[text.length] = '\0';
        text = text_of(skip ? text_fit_skip(raw, fit->last_offset, style)
                            : text_fit_middle(raw, fit->width[column], style, shortened,
                                              sizeof shortened));
    }
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
