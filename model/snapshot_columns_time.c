/* snapshot_columns_time: the time column in 4 bytes a snapshot
 * (SNAPSHOT_NARROW_TIME): a count of units from a base kept for each
 * SNAPSHOT_TIME_BLOCK snapshots, the base being the first time stored
 * into the block. A time that does not fit (before its block's base, off
 * the unit, 2^32 units or more past the base, or SNAPSHOT_TIME_UNSET
 * itself) widens the whole column back to 8 bytes at once: no time is
 * ever rounded or lost, and the accessor keeps one branch. Also the two
 * changes of clock a loader makes once its times are in (scaled from an
 * origin, or counted), and whether the times are in order, on either
 * column.
 * Called by: model/snapshot_columns.c as it stores snapshots and makes
 * room; loaders (snapshot_columns_scale_times, _count_times); the
 * builder (snapshot_columns_times_sorted).
 * Must not: change what any snapshot's time reads as, except as a clock
 * change says. */
#include "config.h"

#include "model/snapshot_columns_internal.h"
#include "model/util/saturating.h"

#include <stdlib.h>

static size_t blocks_of(size_t capacity)
{
    return (capacity >> SNAPSHOT_TIME_BLOCK_SHIFT) + ((capacity & (SNAPSHOT_TIME_BLOCK - 1)) != 0);
}

bool columns_time_bases_room(struct snapshot_columns *columns, size_t had, size_t capacity)
{
    size_t blocks = blocks_of(capacity), blocks_had = columns->time_bases ? blocks_of(had) : 0;
    if (blocks == blocks_had)
        return true;
    if (blocks == 0) {
        free(columns->time_bases);
        columns->time_bases = NULL;
        return true;
    }
    int64_t *bases = realloc(columns->time_bases, blocks * sizeof *bases);
    if (!bases)
        return blocks < blocks_had; /* fewer: the old room serves */
    for (size_t b = blocks_had; b < blocks; b++)
        bases[b] = SNAPSHOT_TIME_UNSET;
    columns->time_bases = bases;
    return true;
}

/* Snapshot i's time from its block's base and count, in unsigned
 * arithmetic: a slot never stored into (past the count) may hold anything. */
static int64_t narrow_time(const struct snapshot_columns *columns, size_t i)
{
    int64_t base = columns->time_bases[i >> SNAPSHOT_TIME_BLOCK_SHIFT];
    if (base == SNAPSHOT_TIME_UNSET)
        return 0;
    return (int64_t)((uint64_t)base + (uint64_t)columns->time_narrow[i] *
                                          (uint64_t)columns->time_unit);
}

bool columns_time_widen(struct snapshot_columns *columns)
{
    size_t capacity = columns->capacity;
    /* Sparse columns (snapshot_columns_append_sparse) hold times up to
     * the count and read zero past it; others, every slot of the room: a
     * loader filling it out of order (snapshot_columns_set) may have
     * stored past the count. */
    size_t stored = columns->written & (1u << COLUMN_BIT_time_narrow) ? columns->count : capacity;
    int64_t *wide = calloc(capacity ? capacity : 1, sizeof *wide);
    if (!wide)
        return false;
    for (size_t i = 0; i < stored; i++)
        wide[i] = narrow_time(columns, i);
    free(columns->time_narrow);
    free(columns->time_bases);
    columns->time_narrow = NULL;
    columns->time_bases = NULL;
    columns->time_ps = wide;
    columns->omitted &= ~(1u << COLUMN_BIT_time_ps);
    columns->written |= 1u << COLUMN_BIT_time_ps;
    return true;
}

bool columns_time_store_any(struct snapshot_columns *columns, size_t index, int64_t value)
{
    int64_t *base = &columns->time_bases[index >> SNAPSHOT_TIME_BLOCK_SHIFT];
    if (*base == SNAPSHOT_TIME_UNSET && value != SNAPSHOT_TIME_UNSET) {
        *base = value;
        columns->time_narrow[index] = 0;
        return true;
    }
    if (*base != SNAPSHOT_TIME_UNSET && value >= *base) {
        uint64_t delta = (uint64_t)value - (uint64_t)*base;
        uint64_t unit = (uint64_t)columns->time_unit;
        /* Unit 1 (a loader's own clock until it scales it) divides nothing. */
        uint64_t count = unit == 1 ? delta : delta / unit;
        if (count <= UINT32_MAX && (unit == 1 || delta % unit == 0)) {
            columns->time_narrow[index] = (uint32_t)count;
            return true;
        }
    }
    if (!columns_time_widen(columns)) {
        columns->lost = true;
        return false;
    }
    columns->time_ps[index] = value;
    return true;
}

bool snapshot_columns_times_sorted(const struct snapshot_columns *columns)
{
    size_t count = columns->count;
    if (columns->time_ps) {
        for (size_t i = 1; i < count; i++)
            if (columns->time_ps[i] < columns->time_ps[i - 1])
                return false;
        return true;
    }
    /* Within a block the counts order the times (one base, one unit). */
    for (size_t i = 1; i < count; i++)
        if (i & (SNAPSHOT_TIME_BLOCK - 1) ? columns->time_narrow[i] < columns->time_narrow[i - 1]
                                          : snapshot_columns_time(columns, i) <
                                                snapshot_columns_time(columns, i - 1))
            return false;
    return true;
}

/* (t - origin) * factor, saturating (factor >= 1). */
static int64_t time_scaled(int64_t t, int64_t origin, int64_t factor)
{
    int64_t since = saturating_subtract(t, origin);
    if (since > INT64_MAX / factor)
        return INT64_MAX;
    if (since < INT64_MIN / factor)
        return INT64_MIN;
    return since * factor;
}

/* Whether every time of a block from `base` on (up to 2^32 - 1 units past
 * it) scales without saturating: then the counts stay as they are. */
static bool block_scales(int64_t base, int64_t unit, int64_t origin, int64_t factor)
{
    if ((origin < 0 && base > INT64_MAX + origin) || (origin > 0 && base < INT64_MIN + origin))
        return false;
    int64_t since = base - origin;
    if (unit > INT64_MAX / (int64_t)UINT32_MAX || since > INT64_MAX - (int64_t)UINT32_MAX * unit)
        return false;
    int64_t last = since + (int64_t)UINT32_MAX * unit;
    return since >= INT64_MIN / factor && last <= INT64_MAX / factor;
}

static bool narrow_scales(const struct snapshot_columns *columns, int64_t origin, int64_t factor)
{
    if (columns->time_unit > INT64_MAX / factor)
        return false;
    size_t blocks = blocks_of(columns->capacity);
    for (size_t b = 0; b < blocks; b++)
        if (columns->time_bases[b] != SNAPSHOT_TIME_UNSET &&
            !block_scales(columns->time_bases[b], columns->time_unit, origin, factor))
            return false;
    return true;
}

bool snapshot_columns_scale_times(struct snapshot_columns *columns, int64_t origin,
                                  int64_t factor)
{
    if (factor < 1)
        return false;
    if (!columns->time_ps && columns->time_narrow) {
        if (narrow_scales(columns, origin, factor)) {
            size_t blocks = blocks_of(columns->capacity);
            for (size_t b = 0; b < blocks; b++)
                if (columns->time_bases[b] != SNAPSHOT_TIME_UNSET)
                    columns->time_bases[b] = (columns->time_bases[b] - origin) * factor;
            columns->time_unit *= factor;
            return true;
        }
        if (!columns_time_widen(columns))
            return false;
    }
    for (size_t i = 0; columns->time_ps && i < columns->count; i++)
        columns->time_ps[i] = time_scaled(columns->time_ps[i], origin, factor);
    return true;
}

bool snapshot_columns_count_times(struct snapshot_columns *columns, int64_t unit)
{
    if (unit < 1)
        return false;
    if (!columns->time_ps && columns->time_narrow) {
        size_t count = columns->count, blocks = blocks_of(count);
        /* The last time, the largest, must not saturate. */
        if (count == 0 || (uint64_t)(count - 1) <= (uint64_t)(INT64_MAX / unit)) {
            for (size_t b = 0; b < blocks_of(columns->capacity); b++)
                columns->time_bases[b] = b < blocks
                                             ? (int64_t)(b << SNAPSHOT_TIME_BLOCK_SHIFT) * unit
                                             : SNAPSHOT_TIME_UNSET;
            columns->time_unit = unit;
            for (size_t i = 0; i < columns->count; i++)
                columns->time_narrow[i] = (uint32_t)(i & (SNAPSHOT_TIME_BLOCK - 1));
            return true;
        }
        if (!columns_time_widen(columns))
            return false;
    }
    for (size_t i = 0; columns->time_ps && i < columns->count; i++)
        columns->time_ps[i] = i > (uint64_t)(INT64_MAX / unit) ? INT64_MAX : (int64_t)i * unit;
    return true;
}
