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
