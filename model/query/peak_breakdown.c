#include "config.h"

#include "model/query/peak_breakdown.h"

#include <stdlib.h>
#include <string.h>

#include "model/util/index_sort.h"
#include "model/util/saturating.h"

static uint32_t row_name(const struct allocation_row *row, enum breakdown_key key)
{
    return key == BREAKDOWN_BY_REGION ? row->region_type : row->data_type;
}

struct rows_by_name {
    const struct allocation_row *rows;
    enum breakdown_key key;
};

/* Interned: equal ids are equal texts, so rows group by id. */
static bool row_before(const void *context, size_t a, size_t b)
{
    const struct rows_by_name *by = context;
    return row_name(&by->rows[a], by->key) < row_name(&by->rows[b], by->key);
}

struct groups_by_size {
    const struct breakdown_group *groups;
    const struct profile *profile;
};

static bool group_before(const void *context, size_t a, size_t b)
{
    const struct groups_by_size *by = context;
    const struct breakdown_group *x = &by->groups[a], *y = &by->groups[b];
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes;
    return text_compare(profile_string(by->profile, x->name),
                        profile_string(by->profile, y->name)) < 0;
}

/* Runs of equal names in `order` (row indices sorted by name) become
 * groups; returns how many. */
static size_t breakdown_sum_runs(const struct allocation_row *rows, const size_t *order,
                                 size_t count, enum breakdown_key key,
                                 struct breakdown_group *groups, int64_t *total)
{
    size_t group_count = 0;
    for (size_t i = 0; i < count; i++) {
        const struct allocation_row *row = &rows[order[i]];
        uint32_t name = row_name(row, key);
        if (group_count == 0 || groups[group_count - 1].name != name)
            groups[group_count++] = (struct breakdown_group){ name, 0 };
        int64_t bytes = allocation_row_bytes(row);
        groups[group_count - 1].bytes = saturating_add(groups[group_count - 1].bytes, bytes);
        *total = saturating_add(*total, bytes);
    }
    return group_count;
}

bool peak_breakdown_build(struct peak_breakdown *breakdown, const struct allocation_table *table,
                          enum breakdown_key key)
{
    memset(breakdown, 0, sizeof *breakdown);
    size_t count = table->count;
    if (count == 0)
        return true;
    size_t *order = malloc(count * sizeof *order);
    size_t *scratch = malloc(count * sizeof *scratch);
    struct breakdown_group *groups = malloc(count * sizeof *groups);
    bool ok = order && scratch && groups;
    if (ok) {
        const struct allocation_row *rows = table->source.rows;
        memcpy(order, table->order, count * sizeof *order);
        struct rows_by_name by_name = { rows, key };
        index_sort_stable(order, scratch, count, row_before, &by_name);
        size_t group_count =
            breakdown_sum_runs(rows, order, count, key, groups, &breakdown->total_bytes);
        for (size_t i = 0; i < group_count; i++)
            order[i] = i;
        struct groups_by_size by_size = { groups, table->profile };
        index_sort_stable(order, scratch, group_count, group_before, &by_size);
        breakdown->groups = malloc(group_count * sizeof *breakdown->groups);
        ok = breakdown->groups != NULL;
        for (size_t i = 0; ok && i < group_count; i++)
            breakdown->groups[i] = groups[order[i]];
        breakdown->count = ok ? group_count : 0;
    }
    if (!ok)
        breakdown->total_bytes = 0;
    free(order);
    free(scratch);
    free(groups);
    return ok;
}

void peak_breakdown_free(struct peak_breakdown *breakdown)
{
    free(breakdown->groups);
    memset(breakdown, 0, sizeof *breakdown);
}
