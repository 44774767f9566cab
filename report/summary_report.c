/* summary_report: what the text and the JSON summaries share (see
 * summary_report.h): the rows both list and the utilization both show,
 * so that summary_text.c and summary_json.c each call down here and never
 * into each other. Computes from the model; writes nothing. */
#include "config.h"

#include "report/summary_report.h"

#include <math.h>

bool summary_report_top_table(struct allocation_table *table, const struct profile *profile,
                              const struct allocator *allocator, int64_t min_bytes)
{
    if (!allocation_table_init(table, profile, allocator))
        return false;
    allocation_table_set_sort(table, TABLE_COLUMN_ALLOCATION_BYTES, true);
    allocation_table_set_min_bytes(table, min_bytes);
    return true;
}

double summary_report_utilization(const struct allocator_summary *summary)
{
    if (summary->capacity_bytes <= 0)
        return NAN;
    return (double)summary->peak_bytes / (double)summary->capacity_bytes;
}
