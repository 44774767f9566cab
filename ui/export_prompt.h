/* export_prompt: the viewer's `e` key. Exports what the focused pane shows
 * to CSV through the same exporter as `memtop --export`: what the pane's
 * export op asks for (the table's rows after the query's filter and sort,
 * the chart's visible time window, the HLO modules), else the summary of
 * every allocator. Offers a default path, asks before replacing a file,
 * and reports on the status line. Writes no CSV itself: the exporter
 * does. */
#ifndef MEMTOP_EXPORT_PROMPT_H
#define MEMTOP_EXPORT_PROMPT_H

#include "report/export.h"

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
