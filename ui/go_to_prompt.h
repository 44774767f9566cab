/* go_to_prompt: `g` asks "go to: 412.3 ms, step 5, peak, oom" on the
 * status line and moves the chart's cursor there (the allocations table
 * follows when it follows the cursor, L). The text is read by
 * model/query/go_to.h; the place is found here in the open allocator (a step's
 * peak from model/query/steps.h) and reached through the viewer's follow-up.
 * Called by viewer_input.c. Must not: parse anything but through
 * go_to_parse, or move anything but the cursor. */
#ifndef MEMTOP_GO_TO_PROMPT_H
#define MEMTOP_GO_TO_PROMPT_H

struct viewer;

void go_to_prompt_begin(struct viewer *viewer);
/* Goes to the place `text` names (what Enter does), for the tests and
 * the prompt alike. */
void go_to_prompt_go(struct viewer *viewer, const char *text);

#endif
