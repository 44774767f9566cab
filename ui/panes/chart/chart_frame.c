/* chart_frame: the arithmetic of one chart frame that every drawing file
 * of the chart needs (see chart_frame.h): the value a column's bar
 * reaches (and the reserved line), the row a value ends on, which
 * fragmentation values plot.
 * Called by chart_pane.c, chart_plot.c and chart_overlay.c, so that they
 * call down here instead of into chart_pane.c. Reads the frame; draws
 * nothing. */
#include "config.h"

#include "ui/panes/chart/chart_frame.h"

#include <math.h>

#include "model/util/saturating.h"

int64_t chart_frame_column_value(const struct chart_frame *frame,
                                 const struct chart_column *column)
{
    if (column->snapshot == SIZE_MAX)
        return 0;
    if (!frame->show_free)
        return column->in_use;
    int64_t free_bytes = snapshot_columns_free_bytes(frame->timeline, column->snapshot);
    return saturating_add(column->in_use, free_bytes > 0 ? free_bytes : 0);
}

int64_t chart_frame_column_reserved(const struct chart_frame *frame,
                                    const struct chart_column *column)
{
    if (column->snapshot == SIZE_MAX)
        return 0;
    return allocator_reserved_at(frame->allocator, column->snapshot);
}

bool chart_frame_fragmentation_valid(double value)
{
    return isfinite(value) && value >= 0.0;
}

int chart_frame_value_row(const struct chart_frame *frame, int64_t value)
{
    int64_t above = value > frame->bottom ? value - frame->bottom : 0;
    int eighths = chart_bar_eighths(above, frame->top - frame->bottom, frame->bar_rows);
    return eighths > 0 ? (eighths - 1) / 8 : 0;
}
