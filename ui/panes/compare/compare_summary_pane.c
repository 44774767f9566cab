#include "config.h"

#include "ui/panes/compare/compare_summary_pane.h"

#include <stdio.h>
#include <string.h>

#include "report/compare_report.h"
#include "ui/panes/compare/compare_cells.h"
#include "ui/viewer.h"

/* The cells of one field: base, new, delta, and the delta's value. */
struct field_cells {
    char text[3][COMPARE_CELL_SIZE];
    bool has_delta;
    int64_t delta;
};

/* How the card is laid out in its width: labels long or short, values
 * in full or compact, and each column's width. */
struct card_layout {
    bool long_labels, compact;
    int label, value[3];
};

static void field_cells_fill(const struct allocator_pair *pair, enum compare_field_id id,
                             bool compact, const struct ui_style *style,
                             struct field_cells *cells)
{
    const struct compare_field *field = compare_field(id);
    const struct allocator *sides[2] = {pair->base, pair->new};
    for (int side = 0; side < 2; side++) {
        int64_t value;
        if (compare_field_value(id, sides[side], &value))
            compare_cell_value(value, field->is_bytes, compact, cells->text[side],
                               sizeof cells->text[side]);
        else /* "-": not in this profile; "?": its format does not record it */
            snprintf(cells->text[side], sizeof cells->text[side], "%s", sides[side] ? "?" : "-");
    }
    cells->has_delta = compare_field_delta(id, pair, &cells->delta);
    if (cells->has_delta)
        compare_cell_delta(cells->delta, field->is_bytes, compact, style, cells->text[2],
                           sizeof cells->text[2]);
    else
        snprintf(cells->text[2], sizeof cells->text[2], "-");
}

/* The widths of a layout's columns, from the cells it would draw;
 * whether they fit in `width`. */
static bool card_layout_measure(const struct allocator_pair *pair, bool long_labels,
                                bool compact, const struct ui_style *style, int width,
                                struct card_layout *layout)
{
    *layout = (struct card_layout){long_labels, compact, 0, {4, 3, 5}}; /* the headings */
    for (int f = 0; f < COMPARE_FIELD_COUNT; f++) {
        const struct compare_field *field = compare_field((enum compare_field_id)f);
        int label = (int)strlen(long_labels ? field->label : field->short_label);
        layout->label = label > layout->label ? label : layout->label;
        struct field_cells cells;
        field_cells_fill(pair, (enum compare_field_id)f, compact, style, &cells);
        for (int c = 0; c < 3; c++) {
            int cell = draw_text_width(cells.text[c], style);
            layout->value[c] = cell > layout->value[c] ? cell : layout->value[c];
        }
    }
    return layout->label + 3 + layout->value[0] + layout->value[1] + layout->value[2] <= width;
}

/* Long labels and full values when they fit, else shorter ones. */
static void card_layout_choose(const struct allocator_pair *pair, const struct ui_style *style,
                               int width, struct card_layout *layout)
{
    if (card_layout_measure(pair, true, false, style, width, layout) ||
        card_layout_measure(pair, false, false, style, width, layout))
        return;
    card_layout_measure(pair, false, true, style, width, layout);
}

/* Three right-aligned cells after the label's column. */
static void draw_cells(WINDOW *window, int y, int x, const struct card_layout *layout,
                       const char *const texts[3], const attr_t attrs[3],
                       const struct ui_style *style)
{
    int at = x + layout->label;
    for (int c = 0; c < 3; c++) {
        at += 1 + layout->value[c];
        wattrset(window, attrs[c]);
        draw_text_right(window, y, at - layout->value[c], layout->value[c], texts[c], style);
    }
    wattrset(window, style->normal);
}

static void draw_field(WINDOW *window, int y, int x, const struct card_layout *layout,
                       const struct allocator_pair *pair, enum compare_field_id id,
                       const struct ui_style *style)
{
    const struct compare_field *field = compare_field(id);
    struct field_cells cells;
    field_cells_fill(pair, id, layout->compact, style, &cells);
    wattrset(window, style->dim);
    draw_text(window, y, x, layout->label, layout->long_labels ? field->label : field->short_label,
              style);
    const char *texts[3] = {cells.text[0], cells.text[1], cells.text[2]};
    attr_t delta = cells.has_delta ? compare_cell_delta_attr(cells.delta, style) : style->dim;
    attr_t peak = id == COMPARE_FIELD_PEAK ? A_BOLD : 0;
    const attr_t attrs[3] = {style->normal | peak, style->normal | peak, delta | peak};
    draw_cells(window, y, x, layout, texts, attrs, style);
}

/* "base  a.pb", "new   b.pb" and what is odd about the pair, under
 * the fields while rows are left. */
static void draw_notes(WINDOW *window, int y, int x, int width, int rows,
                       const struct viewer *viewer, const struct allocator_pair *pair)
{
    const struct ui_style *style = &viewer->style;
    const char *files[2][2] = {{"base ", viewer->profile->path},
                               {"new  ", viewer->compare.profile->path}};
    char line[600];
    int used = 0;
    if (!pair->base || !pair->new) {
        wattrset(window, style->title);
        if (used < rows)
            draw_text(window, y + used++, x, width, pair->base ? "only in base" : "only in new",
                      style);
    }
    bool sampled = (pair->base && pair->base->timeline_sampled) ||
                   (pair->new && pair->new->timeline_sampled);
    wattrset(window, style->dim);
    if (sampled && used < rows)
        draw_text(window, y + used++, x, width, "counts: of XProf's sample", style);
    for (int i = 0; i < 2 && used < rows; i++) {
        const char *slash = strrchr(files[i][1], '/');
        snprintf(line, sizeof line, "%s%s", files[i][0],
                 slash && slash[1] ? slash + 1 : files[i][1]);
        draw_text(window, y + used++, x, width, line, style);
    }
    wattrset(window, style->normal);
}

static void compare_summary_draw(struct pane *pane, struct viewer *viewer,
                                 const struct pane_area *area)
{
    (void)pane;
    WINDOW *window = area->window;
    int y = area->rect.y, x = area->rect.x + 1, height = area->rect.height;
    int width = area->rect.width - 1;
    const struct ui_style *style = &viewer->style;
    draw_pane_title(window, y, area->rect.x, area->rect.width, "Summaries", false,
                    style);
    const struct allocator_pair *pair = viewer_pair(viewer);
    if (!pair || height < 3 || width < 8)
        return;
    struct card_layout layout;
    card_layout_choose(pair, style, width, &layout);
    const char *headings[3] = {"base", "new", "delta"};
    const attr_t dim[3] = {style->dim, style->dim, style->dim};
    draw_cells(window, y + 1, x, &layout, headings, dim, style);
    int line = 2;
    for (int f = 0; f < COMPARE_FIELD_COUNT && line < height; f++)
        draw_field(window, y + line++, x, &layout, pair, (enum compare_field_id)f, style);
    if (line + 1 < height)
        draw_notes(window, y + line + 1, x, width, height - line - 1, viewer, pair);
}

static const struct pane_ops compare_summary_ops = {
    .draw = compare_summary_draw,
    .free = pane_free_plain,
    .scope = KEY_SCOPE_GLOBAL,
};

struct pane *compare_summary_pane_create(struct viewer *viewer)
{
    (void)viewer;
    return pane_create(&compare_summary_ops, sizeof(struct pane));
}
