#include "config.h"

#include "ui/filter_prompt.h"

#include "ui/viewer.h"

static void filter_changed(struct viewer *viewer, const char *text)
{
    if (!query_set_filter(&viewer->query, text))
        viewer_status(viewer, true, "out of memory: the filter was not applied");
}

static void filter_accepted(struct viewer *viewer, const char *text)
{
    filter_changed(viewer, text);
    const struct allocation_table *rows = &viewer->query.rows;
    if (text[0])
        viewer_status(viewer, false,
                      "%zu of %zu rows match (op, region, type, shape, kind, location); n/N "
                      "step through them, Esc clears",
                      rows->count, allocation_table_total(rows));
}

static void filter_cancelled(struct viewer *viewer, const char *text)
{
    (void)text;
    filter_changed(viewer, "");
    viewer_status(viewer, false, "filter cleared");
}

void filter_prompt_begin(struct viewer *viewer)
{
    /* What the filter reads, as the rows have it: a report's rows have
     * a kind and a location instead of a region, type and shape. */
    bool located = allocation_table_column_filled(&viewer->query.rows, TABLE_COLUMN_LOCATION);
    viewer_prompt_begin(viewer,
                        located ? "filter op, kind, location: /"
                                : "filter op, region, type, shape: /",
                        query_filter(&viewer->query), filter_changed,
                        filter_accepted, filter_cancelled);
}

bool filter_prompt_clear(struct viewer *viewer)
{
    if (!viewer->allocator || !query_filter(&viewer->query)[0])
        return false;
    filter_cancelled(viewer, "");
    return true;
}
