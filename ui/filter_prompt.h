/* filter_prompt: the table's `/` key: the viewer's query filter edited
 * on the status line as you type (Enter keeps it, Esc clears it), and
 * Esc outside everything clearing it. Changes only the query (ui/query.h)
 * and the status line; the panes that show the query's rows see the
 * change on their next draw. */
#ifndef MEMTOP_FILTER_PROMPT_H
#define MEMTOP_FILTER_PROMPT_H

#include <stdbool.h>

struct viewer;

/* Starts the prompt with the current filter. */
void filter_prompt_begin(struct viewer *viewer);
/* Clears the filter, saying so; false when there was none. */
bool filter_prompt_clear(struct viewer *viewer);

#endif
