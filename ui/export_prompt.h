/* export_prompt: the viewer's `e` key. Exports what the focused pane shows
 * to CSV through the same exporter as `memtop --export`: the table's rows
 * after its filter and sort, the chart's visible time window, the summary
 * of every allocator, or the HLO modules. Offers a default path, asks
 * before replacing a file, and reports on the status line. */
#ifndef MEMTOP_EXPORT_PROMPT_H
#define MEMTOP_EXPORT_PROMPT_H

#include "report/export.h"

struct viewer;

/* What the export prompt remembers between its two questions. */
struct export_prompt_state {
    enum export_view view;
    char path[256];
};

/* Starts the flow for the focused pane. */
void export_prompt_begin(struct viewer *viewer);

/* The view `e` exports from a pane: allocations (table), timeline
 * (chart), hlo (HLO modules), summary (anything else). */
enum export_view export_prompt_view_for_pane(int pane);

#endif
