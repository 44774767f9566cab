/* chart_memory_map: what the chart shows for an allocator with no
 * timeline whose format walks its memory (a BFC allocator's dump in an
 * OOM log): the memory map, the address space in rows of cells, each
 * cell in use, free, or both, so fragmentation shows where it is.
 * Called by chart_pane.c instead of "this report has no timeline";
 * draws only (the cells come from model/query/oom.h). */
#include "config.h"

#include <stdio.h>

#include "model/format.h"
#include "model/query/oom.h"
#include "model/util/saturating.h"
#include "ui/panes/chart/chart_frame.h"

#define GLYPH_USED(style) ((style)->utf8 ? "\xe2\x96\x88" : "#")  /* █ */
#define GLYPH_BOTH(style) ((style)->utf8 ? "\xe2\x96\x92" : "+")  /* ▒ */
#define GLYPH_FREE(style) ((style)->utf8 ? "\xc2\xb7" : ".")      /* · */

bool chart_memory_map_draw(const struct allocator *allocator, WINDOW *window,
                           const struct rect *rect, bool focused, const struct ui_style *style)
{
    int rows = rect->height - 4, width = rect->width - 2;
    if (allocator->memory_map_count == 0 || rows < 1 || width < 8)
        return false;
    if (width > CHART_MAX_COLUMNS)
        width = CHART_MAX_COLUMNS;
    int64_t total = 0, free_bytes = 0, largest = 0;
    for (size_t i = 0; i < allocator->memory_map_count; i++) {
        const struct memory_block *block = &allocator->memory_map[i];
        total = saturating_add(total, block->bytes);
        if (!block->in_use) {
            free_bytes = saturating_add(free_bytes, block->bytes);
            largest = block->bytes > largest ? block->bytes : largest;
        }
    }
    static double cells[CHART_MAX_COLUMNS * 64];
    if (rows > 64)
        rows = 64;
    if (!oom_memory_map_cells(allocator, cells, rows * width))
        return false;
    char title[160], bytes[FORMAT_BYTES_SIZE];
    snprintf(title, sizeof title, "Memory map %s %s in %zu chunks, address order",
             style->utf8 ? "\xc2\xb7" : "-", format_bytes(total, bytes, sizeof bytes),
             allocator->memory_map_count);
    draw_pane_title(window, rect->y, rect->x, rect->width, title, focused, style);
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < width; c++) {
            double cell = cells[r * width + c];
            bool used = cell >= 0.999, free_cell = cell <= 0.001;
            wattrset(window, free_cell ? style->dim : style->heap);
            mvwaddstr(window, rect->y + 1 + r, rect->x + 1 + c,
                      used ? GLYPH_USED(style) : free_cell ? GLYPH_FREE(style) : GLYPH_BOTH(style));
        }
    char legend[200], free_text[FORMAT_BYTES_SIZE], largest_text[FORMAT_BYTES_SIZE];
    snprintf(legend, sizeof legend, "%s in use  %s free  %s both", GLYPH_USED(style),
             GLYPH_FREE(style), GLYPH_BOTH(style));
    wattrset(window, style->normal);
    draw_text(window, rect->y + 2 + rows, rect->x + 1, width, legend, style);
    snprintf(legend, sizeof legend, "free %s, the largest block %s",
             format_bytes(free_bytes, free_text, sizeof free_text),
             format_bytes(largest, largest_text, sizeof largest_text));
    draw_text(window, rect->y + 3 + rows, rect->x + 1, width, legend, style);
    return true;
}
