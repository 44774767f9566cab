/* chart_marks: what is marked on the chart's time axis (see
 * chart_frame.h): where steps start (found once per allocator from
 * model/query/steps.h and kept) and the span since the mark, with their legend
 * items. Called by chart_pane.c and chart_plot.c; only draws and keeps
 * the step starts it found, changes nothing else. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "ui/panes/chart/chart_frame.h"

/* The span since the mark, in the plot's empty cells: shading that reads
 * without colour. */
#define GLYPH_SPAN(style) ((style)->utf8 ? "\xc2\xb7" : ".")        /* · */
/* Where a step starts: a thin dashed line up the plot and on the axis. */
#define GLYPH_STEP(style) ((style)->utf8 ? "\xe2\x94\x86" : ":")    /* ┆ */
/* The mark's own column on the time axis (the cursor's is ▲). */
#define GLYPH_MARK(style) ((style)->utf8 ? "\xe2\x97\x86" : "M")    /* ◆ */

/* An out-of-memory error: its own glyph on the plot's top row, in the
 * legend, bold (and red where there is colour). */
#define GLYPH_OOM(style) ((style)->utf8 ? "\xe2\x9c\x95" : "X")     /* ✕ */

/* The columns where the steps start, each with the first one's id. */
static void chart_marks_find_steps(const struct step_table *steps,
                                   const struct chart_window *window,
                                   struct chart_step_mark *marks)
{
    memset(marks, 0, (size_t)(window->width > 0 ? window->width : 0) * sizeof *marks);
    for (size_t i = 0; i < steps->count; i++) {
        const struct step_row *step = &steps->rows[i];
        if (step->is_none)
            continue;
        int column = chart_column_of_time(window, step->start_time_ps);
        if (column < 0 || column >= window->width || marks[column].starts)
            continue;
        marks[column] = (struct chart_step_mark){true, step->step_id};
    }
}

const struct chart_step_mark *chart_steps_marks(struct chart_steps *steps,
                                                const struct allocator *allocator,
                                                const struct chart_window *plot)
{
    if (steps->of != allocator) {
        chart_steps_forget(steps);
        /* A timeline without a step column has no step to mark (a PyTorch
         * snapshot's: its steps are spans): no table, no pass over it. */
        if (snapshot_columns_has_steps(&allocator->timeline) &&
            !step_table_build(&steps->table, allocator))
            return NULL;
        steps->of = allocator;
    }
    chart_marks_find_steps(&steps->table, plot, steps->marks);
    return steps->marks;
}

void chart_steps_forget(struct chart_steps *steps)
{
    step_table_free(&steps->table);
    steps->of = NULL;
}

/* The columns from the mark to the cursor, both included; the mark off
 * the window counts from the window's edge. */
static bool chart_marks_in_span(const struct chart_frame *frame, int c)
{
    if (!frame->marked)
        return false;
    int width = frame->g.plot_width;
    int mark = frame->mark_column < 0 ? 0
               : frame->mark_column >= width ? width - 1
                                             : frame->mark_column;
    int cursor = frame->cursor_column;
    return c >= (mark < cursor ? mark : cursor) && c <= (mark < cursor ? cursor : mark);
}

const char *chart_marks_empty_glyph(const struct chart_frame *frame, int c)
{
    if (frame->step_marks && frame->step_marks[c].starts)
        return GLYPH_STEP(frame->style);
    if (chart_marks_in_span(frame, c))
        return GLYPH_SPAN(frame->style);
    return NULL;
}

/* Whether a step starts in one of the columns [from, to). */
static bool chart_marks_any_start(const struct chart_frame *frame, int from, int to)
{
    for (int c = from; c < to && c < frame->g.plot_width; c++)
        if (frame->step_marks[c].starts)
            return true;
    return false;
}

void chart_marks_draw_steps_axis(const struct chart_frame *frame)
{
    WINDOW *window = frame->window;
    const struct ui_style *style = frame->style;
    const struct chart_geometry *g = &frame->g;
    if (g->axis_y < 0 || !frame->step_marks)
        return;
    wattrset(window, style->dim);
    if (g->gutter_width > 0)
        draw_text_right(window, g->axis_y, g->x, g->gutter_width, "step", style);
    int free_from = 0; /* the first column a label may use */
    for (int c = 0; c < g->plot_width; c++) {
        if (!frame->step_marks[c].starts)
            continue;
        mvwaddstr(window, g->axis_y, g->plot_x + c, GLYPH_STEP(style));
        char id[32];
        int length = snprintf(id, sizeof id, "%lld", (long long)frame->step_marks[c].step_id);
        /* The id after its line, when it ends before the next step's. */
        if (c + 1 >= free_from && c + 1 + length <= g->plot_width &&
            !chart_marks_any_start(frame, c + 1, c + 1 + length)) {
            draw_text(window, g->axis_y, g->plot_x + c + 1, length, id, style);
            free_from = c + 2 + length;
        }
    }
    wattrset(window, style->normal);
}

void chart_marks_draw_mark(const struct chart_frame *frame)
{
    const struct chart_geometry *g = &frame->g;
    int column = frame->mark_column;
    if (!frame->marked || g->axis_y < 0 || column < 0 || column >= g->plot_width ||
        column == frame->cursor_column)
        return;
    wattrset(frame->window, frame->style->normal | A_BOLD);
    mvwaddstr(frame->window, g->axis_y, g->plot_x + column, GLYPH_MARK(frame->style));
    wattrset(frame->window, frame->style->normal);
}

bool chart_marks_find_ooms(const struct allocator *allocator, const struct chart_window *plot,
                           bool *marks)
{
    bool any = false;
    memset(marks, 0, (size_t)(plot->width > 0 ? plot->width : 0) * sizeof *marks);
    for (size_t i = 0; allocator && i < allocator->oom_count; i++) {
        int column = chart_column_of_time(plot, allocator->ooms[i].time_ps);
        if (column >= 0 && column < plot->width)
            any = marks[column] = true;
    }
    return any;
}

void chart_marks_draw_ooms(const struct chart_frame *frame)
{
    const struct chart_geometry *g = &frame->g;
    if (!frame->oom_marks || g->plot_rows <= 0)
        return;
    for (int c = 0; c < g->plot_width; c++)
        if (frame->oom_marks[c]) {
            wattrset(frame->window, frame->style->error | A_BOLD);
            mvwaddstr(frame->window, g->plot_y, g->plot_x + c, GLYPH_OOM(frame->style));
        }
    wattrset(frame->window, frame->style->normal);
}

bool chart_marks_legend(const struct chart_frame *frame,
                        bool (*item)(const struct chart_frame *frame, int *x, const char *glyph,
                                     attr_t attr, const char *label),
                        int *x)
{
    const struct ui_style *style = frame->style;
    return (!frame->oom_marks ||
            item(frame, x, GLYPH_OOM(style), style->error | A_BOLD, "out of memory")) &&
           (!frame->marked || item(frame, x, GLYPH_SPAN(style), style->dim, "since the mark")) &&
           (!frame->step_marks || item(frame, x, GLYPH_STEP(style), style->dim, "step start"));
}
