/* export_prompt: the viewer's `e` key. Exports what the focused pane shows
 * to CSV through the same exporter as `memtop --export`: the table's rows
 * after its filter and sort, the chart's visible time window, the summary
 * of every allocator, or the HLO modules. Offers a default path, asks
 * before replacing a file, and reports on the status line. */
#ifndef MEMTOP_EXPORT_PROMPT_H
#define MEMTOP_EXPORT_PROMPT_H

#include "src/export.h"

struct viewer;

/* What the export prompt remembers between its two questions. */
struct export_prompt_state {
    enum export_view view;
    char path[256];
};

/* Starts the flow for the focused pane: what its export op says (the
 * table's rows, the chart's window, the HLO modules), else the summary
 * of every allocator. */
void export_prompt_begin(struct viewer *viewer);

#endif
