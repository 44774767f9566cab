#include "config.h"

#include "model/query/steps.h"

#include "model/util/integer_map.h"
#include "model/util/saturating.h"

#include <stdlib.h>

static void step_row_start(struct step_row *row, const struct snapshot_columns *timeline,
                           size_t index)
{
    *row = (struct step_row){
        .step_id = snapshot_columns_step_id(timeline, index),
        .is_none = snapshot_columns_step_id(timeline, index) == STEP_ID_NONE,
        .start_time_ps = snapshot_columns_time(timeline, index),
        .peak_bytes = snapshot_columns_in_use(timeline, index),
        .peak_time_ps = snapshot_columns_time(timeline, index),
        .first_index = index,
        .peak_index = index,
    };
}

static void step_row_add(struct step_row *row, const struct snapshot_columns *timeline,
                         size_t index)
{
    int64_t in_use = snapshot_columns_in_use(timeline, index);
    if (in_use >= row->peak_bytes) { /* a later snapshot wins ties */
        row->peak_bytes = in_use;
        row->peak_time_ps = snapshot_columns_time(timeline, index);
        row->peak_index = index;
    }
    row->end_time_ps = snapshot_columns_time(timeline, index);
    row->end_bytes = in_use;
    row->last_index = index;
    row->snapshot_count++;
    if (timeline->activity[index] == MEMORY_ACTIVITY_ALLOCATION)
        row->allocations++;
    else if (timeline->activity[index] == MEMORY_ACTIVITY_DEALLOCATION)
        row->deallocations++;
}

/* Rows in order of first appearance; false when memory runs out. */
static bool step_table_gather(struct step_table *table, const struct snapshot_columns *timeline)
{
    struct integer_map positions = {0};
    size_t capacity = 0;
    bool ok = true;
    /* Snapshots come in runs of one step (a format without steps: one
     * run): the last step's row is at hand without the map. */
    uint64_t last_step = 0;
    uint32_t last_position = UINT32_MAX;
    for (size_t i = 0; ok && i < timeline->count; i++) {
        uint64_t step = (uint64_t)snapshot_columns_step_id(timeline, i);
        if (last_position != UINT32_MAX && step == last_step) {
            step_row_add(&table->rows[last_position], timeline, i);
            continue;
        }
        uint32_t *position = integer_map_find(&positions, step);
        if (!position) {
            if (table->count == capacity) {
                capacity = capacity ? capacity * 2 : 16;
                struct step_row *grown = realloc(table->rows, capacity * sizeof *grown);
                if (!grown) {
                    ok = false;
                    break;
                }
                table->rows = grown;
            }
            ok = integer_map_put(&positions, step, (uint32_t)table->count);
            if (!ok)
                break;
            step_row_start(&table->rows[table->count++], timeline, i);
            position = integer_map_find(&positions, step);
        }
        last_step = step;
        last_position = *position;
        step_row_add(&table->rows[*position], timeline, i);
    }
    integer_map_free(&positions);
    return ok;
}

/* Moves the step -1 entry (at most one) to the end. */
static void step_table_none_last(struct step_table *table)
{
    for (size_t i = 0; i + 1 < table->count; i++) {
        if (!table->rows[i].is_none)
            continue;
        struct step_row none = table->rows[i];
        for (size_t j = i; j + 1 < table->count; j++)
            table->rows[j] = table->rows[j + 1];
        table->rows[table->count - 1] = none;
        return;
    }
}

/* Deltas and leak flags along the listed steps, step -1 left out. */
static void step_table_link(struct step_table *table)
{
    const struct step_row *previous = NULL;
    size_t rises = 0;
    for (size_t i = 0; i < table->count; i++) {
        struct step_row *row = &table->rows[i];
        if (row->is_none)
            continue;
        if (previous) {
            row->has_previous = true;
            row->end_delta_bytes = saturating_subtract(row->end_bytes, previous->end_bytes);
            rises = row->end_bytes > previous->end_bytes ? rises + 1 : 0;
            row->possible_leak = rises >= STEP_LEAK_RISES;
        }
        previous = row;
    }
}

bool step_table_build(struct step_table *table, const struct allocator *allocator)
{
    *table = (struct step_table){.sampled = allocator->timeline_sampled};
    if (allocator->timeline.count >= UINT32_MAX || !step_table_gather(table, &allocator->timeline)) {
        step_table_free(table);
        return false;
    }
    step_table_none_last(table);
    step_table_link(table);
    return true;
}

void step_table_free(struct step_table *table)
{
    free(table->rows);
    table->rows = NULL;
    table->count = 0;
}
