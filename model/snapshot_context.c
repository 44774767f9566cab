/* snapshot_context: a timeline's context column kept in runs. A PyTorch
 * snapshot's context (the annotations open, the stream) changes about
 * once in ten entries, and its column, 4 bytes an entry with every page
 * written, was the largest part of the load's peak after the times.
 * Called by the loaders when the column is written
 * (snapshot_columns_compact_context) and by every reader of a snapshot's
 * context (snapshot_columns_context). Must not: change what a snapshot's
 * context reads as, or be called while the loader still appends. */
#include "config.h"

#include "model/profile.h"

#include <stdlib.h>

uint32_t snapshot_columns_context(const struct snapshot_columns *columns, size_t index)
{
    if (columns->context)
        return columns->context[index];
    if (!columns->context_runs)
        return STRING_ID_EMPTY;
    /* The last run that starts at or before `index` (the first starts at 0). */
    size_t low = 0, high = columns->context_run_count;
    while (high - low > 1) {
        size_t middle = low + (high - low) / 2;
        if (columns->context_runs[middle].first <= index)
            low = middle;
        else
            high = middle;
    }
    return columns->context_runs[low].context;
}

uint32_t snapshot_columns_context_from(const struct snapshot_columns *columns, size_t index,
                                       size_t *run)
{
    if (!columns->context_runs)
        return snapshot_columns_context(columns, index);
    const struct context_run *runs = columns->context_runs;
    size_t count = columns->context_run_count, low = *run;
    if (low >= count || runs[low].first > index)
        low = 0; /* behind the last one: from the first run (which starts at 0) */
    /* Gallop: runs[low] starts at or before index; find a bound past it. */
    size_t step = 1, high = low + 1;
    while (high < count && runs[high].first <= index) {
        low = high;
        step *= 2;
        high = low + step;
    }
    if (high > count)
        high = count;
    while (high - low > 1) {
        size_t middle = low + (high - low) / 2;
        if (runs[middle].first <= index)
            low = middle;
        else
            high = middle;
    }
    *run = low;
    return runs[low].context;
}

bool snapshot_columns_compact_context(struct snapshot_columns *columns)
{
    const uint32_t *context = columns->context;
    size_t count = columns->count;
    if (!context || count == 0 || count > UINT32_MAX)
        return true;
    size_t runs = 1;
    for (size_t i = 1; i < count; i++)
        runs += context[i] != context[i - 1];
    if (runs * sizeof(struct context_run) >= count * sizeof *context / 2)
        return true; /* the column is as small: kept */
    struct context_run *run = malloc(runs * sizeof *run);
    if (!run)
        return false;
    size_t k = 0;
    for (size_t i = 0; i < count; i++)
        if (i == 0 || context[i] != context[i - 1])
            run[k++] = (struct context_run){(uint32_t)i, context[i]};
    free(columns->context);
    columns->context = NULL;
    columns->context_runs = run;
    columns->context_run_count = runs;
    return true;
}
