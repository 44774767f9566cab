/* compare_summary_pane: --compare's summary card: the pair's peak, heap
 * and stack at the peak, capacity and allocation counts in BASE, in NEW
 * and their delta (signed, with an arrow that works without colour),
 * side by side; compact numbers when the column is narrow; then the two
 * files. The fields are report/compare_report.h's, as --summary
 * --compare writes them. Draws only: no keys, no focus, no state. */
#ifndef MEMTOP_COMPARE_SUMMARY_PANE_H
#define MEMTOP_COMPARE_SUMMARY_PANE_H

#include "ui/pane.h"

struct viewer;

struct pane *compare_summary_pane_create(struct viewer *viewer);

#endif
