/* compare_cells: how the compare panes write a value and a delta: bytes
 * 1024-based ("1.25 GiB", or "1.25G" in a narrow column), counts plain
 * ("258", or "1.2M"), a delta signed behind an arrow that says whether
 * it grew or shrank without colour ("▲+1.25 GiB", "▼-3", "=0"; ASCII
 * "^", "v"), and the delta's attribute. Used by the compare summary,
 * the matched allocators and the op table; writes into the caller's
 * buffers, never draws. */
#ifndef MEMTOP_COMPARE_CELLS_H
#define MEMTOP_COMPARE_CELLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ui/draw.h"

#define COMPARE_CELL_SIZE 48

/* A value: bytes or a count, compact when asked. */
char *compare_cell_value(int64_t value, bool is_bytes, bool compact, char *buffer, size_t size);
/* A delta with its arrow and sign. */
char *compare_cell_delta(int64_t delta, bool is_bytes, bool compact, const struct ui_style *style,
                         char *buffer, size_t size);
/* The attribute of a delta: grew, shrank, or normal for none. */
attr_t compare_cell_delta_attr(int64_t delta, const struct ui_style *style);

#endif
