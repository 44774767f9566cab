/* steps_pane: the allocator's timeline step by step (model/query/steps.h): when
 * each step ran, its peak, the memory in use at its end, its
 * allocations and frees, how its end moved from the step before, and a
 * mark on the steps whose end keeps rising (a possible leak). After the
 * steps, the profile's named spans of the allocator (model/query/spans.h:
 * a PyTorch snapshot's external_annotations, a trace's user
 * annotations): name, start, end, length, peak. A tab of the table
 * area. Enter asks the viewer to zoom the chart to a step or span (a
 * follow-up; it never calls the chart) and hold the table at its peak,
 * again on it to zoom back; `e` exports the steps.
 *
 * Owns its selection, the step table of the allocator shown (built the
 * first time the pane is drawn for it) and its columns' widths. Must not
 * change the profile or what the viewer has open. */
#ifndef MEMTOP_STEPS_PANE_H
#define MEMTOP_STEPS_PANE_H

#include <stdbool.h>

#include "ui/pane.h"

struct viewer;

struct pane *steps_pane_create(struct viewer *viewer);
/* On screen when the allocator shown has a timeline with at least one
 * step (a step_id other than -1), or named spans. */
bool steps_pane_available(const struct viewer *viewer);

#endif
