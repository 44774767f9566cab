#include "config.h"

#include "model/query/live_rows.h"

#include "model/stack_text.h"

#include "model/util/saturating.h"

#include <stdlib.h>
#include <string.h>

bool live_special_texts_intern(struct string_table *strings, struct live_special_texts *texts)
{
    const struct {
        uint32_t *id;
        const char *text;
    } wanted[] = {
        {&texts->stack_name, LIVE_STACK_NAME},
        {&texts->stack_region, "stack"},
        {&texts->before_name, LIVE_BEFORE_PROFILE_NAME},
        {&texts->before_region, "persist/dynamic"},
        {&texts->data_type, "INVALID"},
        {&texts->shape, "unknown"},
    };
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++) {
        *wanted[i].id = string_table_intern(strings, wanted[i].text, strlen(wanted[i].text));
        if (*wanted[i].id == STRING_ID_NONE)
            return false;
    }
    return true;
}

/* Where the last row's lookups ended: the rows are made in increasing
 * timeline order (the live sets' numbers are sorted), so the next
 * lookup starts there instead of searching everything again. */
struct row_cursor {
    size_t context_run;
    size_t block;
};

/* The block of timeline allocation `index`, where the allocator's
 * allocation_blocks (sorted by snapshot index) say; 0 otherwise. */
static int64_t block_of(const struct live_rows_request *request, size_t index,
                        struct row_cursor *cursor)
{
    const struct allocation_block *blocks = request->blocks;
    size_t count = request->block_count, low = cursor->block;
    if (low >= count || blocks[low].snapshot_index > index)
        low = 0;
    /* Gallop from the last block found to a bound at or past index. */
    size_t step = 1, high = low;
    while (high < count && blocks[high].snapshot_index < index) {
        low = high + 1;
        high = low + step;
        step *= 2;
    }
    if (high > count)
        high = count;
    while (low < high) { /* the first block at or past index */
        size_t middle = low + (high - low) / 2;
        if (blocks[middle].snapshot_index < index)
            low = middle + 1;
        else
            high = middle;
    }
    cursor->block = low;
    return low < count && blocks[low].snapshot_index == index ? blocks[low].block_bytes : 0;
}

static struct allocation_row row_from_snapshot(const struct profile *profile,
                                               const struct snapshot_columns *timeline,
                                               uint32_t index, struct row_cursor *cursor)
{
    struct frame_site site = profile_site(profile, snapshot_columns_site(timeline, index));
    return (struct allocation_row){
        .location = site.location,
        .location_file = site.location_file,
        .location_line = site.location_line,
        .stack = site.stack,
        .module = site.module,
        .origin = ROW_FROM_SNAPSHOT,
        .snapshot_index = index,
        .special_index = -1,
        .occurrences = 1,
        .allocation_bytes = snapshot_columns_allocation_bytes(timeline, index),
        .requested_bytes = snapshot_columns_requested_bytes(timeline, index),
        .op_name = snapshot_columns_op_name(timeline, index),
        .region_type = snapshot_columns_region_type(timeline, index),
        .data_type = snapshot_columns_data_type(timeline, index),
        .tensor_shape = snapshot_columns_tensor_shape(timeline, index),
        .step_id = snapshot_columns_step_id(timeline, index),
        .address = snapshot_columns_address(timeline, index),
        .activity = timeline->activity[index],
        .has_time = true,
        .time_ps = snapshot_columns_time(timeline, index),
        .context = snapshot_columns_context_from(timeline, index, &cursor->context_run),
    };
}

/* The row of live allocation `number` (live_is_initial). */
static struct allocation_row row_of(const struct live_rows_request *request, uint32_t number,
                                    struct row_cursor *cursor)
{
    if (live_is_initial(request->initial_count, number))
        return request->initial[number];
    uint32_t index = (uint32_t)(number - request->initial_count);
    struct allocation_row row =
        row_from_snapshot(request->profile, request->timeline, index, cursor);
    if (request->block_count)
        row.block_bytes = block_of(request, index, cursor);
    return row;
}

struct allocation_row live_special_row(int64_t number, int64_t bytes, uint32_t name,
                                       uint32_t region, const struct live_special_texts *texts,
                                       int64_t step_id)
{
    return (struct allocation_row){
        .origin = ROW_FROM_SPECIAL,
        .snapshot_index = -1 - number,
        .special_index = number,
        .occurrences = 1,
        .allocation_bytes = bytes,
        .requested_bytes = bytes,
        .op_name = name,
        .region_type = region,
        .data_type = texts->data_type,
        .tensor_shape = texts->shape,
        .step_id = step_id,
        .activity = MEMORY_ACTIVITY_ALLOCATION,
    };
}

/* Appends the special rows of the request to `rows`; returns how many. */
static size_t special_rows_add(const struct live_rows_request *request,
                               struct allocation_row *rows)
{
    if (!request->with_specials || request->end == 0)
        return 0;
    const struct snapshot_columns *timeline = request->timeline;
    size_t last = request->end - 1;
    int64_t before = saturating_subtract(timeline->heap_bytes[last],
                                         request->live_allocation_bytes);
    int64_t stack = snapshot_columns_stack_bytes(timeline, last);
    size_t count = 0;
    if (before > 0) {
        rows[count] = live_special_row((int64_t)count, before, request->texts->before_name,
                                  request->texts->before_region, request->texts,
                                  snapshot_columns_step_id(timeline, last));
        count++;
    }
    if (stack > 0) {
        rows[count] = live_special_row((int64_t)count, stack, request->texts->stack_name,
                                  request->texts->stack_region, request->texts,
                                  snapshot_columns_step_id(timeline, last));
        count++;
    }
    return count;
}

/* ---- XProf's order ---- */

int live_row_key_compare(const struct profile *profile, const struct allocation_row *a,
                         const struct allocation_row *b)
{
    const struct string_table *strings = profile->strings;
    if (a->allocation_bytes != b->allocation_bytes)
        return a->allocation_bytes > b->allocation_bytes ? -1 : 1;
    if (a->requested_bytes != b->requested_bytes)
        return a->requested_bytes > b->requested_bytes ? -1 : 1;
    int order = string_table_compare(strings, a->op_name, b->op_name);
    if (order == 0)
        order = string_table_compare(strings, a->region_type, b->region_type);
    if (order == 0)
        order = string_table_compare(strings, a->data_type, b->data_type);
    if (order == 0)
        order = string_table_compare(strings, a->tensor_shape, b->tensor_shape);
    /* Made in another place of the user's code: another row (issue 22;
     * equal for formats that record no place). */
    if (order == 0)
        order = string_table_compare(strings, a->location, b->location);
    if (order == 0)
        order = string_table_compare(strings, a->module, b->module);
    if (order == 0)
        order = stack_text_compare(profile, a->stack, b->stack);
    return order;
}

/* Whether x comes after y among rows of equal keys: by snapshot index,
 * then special index (the initial allocations' position), so that the
 * pick does not depend on the order the live set lists them in. */
static bool row_later(const struct allocation_row *x, const struct allocation_row *y)
{
    if (x->snapshot_index != y->snapshot_index)
        return x->snapshot_index > y->snapshot_index;
    return x->special_index > y->special_index;
}

/* One string table gives equal texts equal ids, and the builder gives
 * stacks of frames of equal text one id (model/stack_text.h): no text
 * compare needed. */
static bool row_same_key(const struct allocation_row *a, const struct allocation_row *b)
{
    return a->allocation_bytes == b->allocation_bytes &&
           a->requested_bytes == b->requested_bytes && a->op_name == b->op_name &&
           a->region_type == b->region_type && a->data_type == b->data_type &&
           a->tensor_shape == b->tensor_shape && a->location == b->location &&
           a->module == b->module && a->stack == b->stack;
}

/* Puts the rows in `order` (rows[i] becomes the old rows[order[i]]),
 * following each cycle of the permutation; `order` is spent (each
 * placed slot is marked as its own). In place: the rows are the
 * query's biggest array, and a second copy of them would be its peak. */
static void rows_permute(struct allocation_row *rows, size_t *order, size_t total)
{
    for (size_t i = 0; i < total; i++) {
        if (order[i] == i)
            continue;
        struct allocation_row held = rows[i];
        size_t hole = i;
        for (;;) {
            size_t from = order[hole];
            order[hole] = hole;
            if (from == i) {
                rows[hole] = held;
                break;
            }
            rows[hole] = rows[from];
            hole = from;
        }
    }
}

/* Merges equal neighbours of the sorted rows in place (a special row
 * and an allocation can have the same key); returns how many are left. */
static size_t rows_merge(struct allocation_row *rows, size_t total)
{
    size_t count = 0;
    for (size_t i = 0; i < total; i++) {
        if (count > 0 && row_same_key(&rows[count - 1], &rows[i])) {
            int64_t occurrences = saturating_add(rows[count - 1].occurrences,
                                                 rows[i].occurrences);
            rows[count - 1] = rows[i];
            rows[count - 1].occurrences = occurrences;
        } else {
            if (count != i)
                rows[count] = rows[i];
            count++;
        }
    }
    return count;
}

/* ---- equal allocations grouped before sorting ---- */

/* One group per distinct key: the row of its latest allocation, with
 * the allocations counted in `occurrences`. Grouping first makes a leak
 * of a million identical tensors a sort of a few groups, not of a
 * million rows. */
struct live_groups {
    struct allocation_row *rows;
    size_t count;
    size_t capacity;
    /* Open addressing by key hash (linear probing, at most half full):
     * a group + 1, 0 for an empty slot; 4 bytes a slot, where a map of
     * hashes with chains took 16 and then some, at the load's peak. */
    uint32_t *slots;
    size_t slot_count;
};

static uint64_t key_hash(const struct allocation_row *row)
{
    /* Every field of the key (row_same_key): rows of one size and op made
     * in many places would otherwise share one chain of slots. */
    uint64_t words[] = {(uint64_t)row->allocation_bytes, (uint64_t)row->requested_bytes,
                        (uint64_t)row->op_name << 32 | row->region_type,
                        (uint64_t)row->data_type << 32 | row->tensor_shape,
                        (uint64_t)row->location << 32 | row->module, row->stack};
    uint64_t hash = 0x243f6a8885a308d3u;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        hash = (hash ^ words[i]) * 0x9e3779b97f4a7c15u;
        hash ^= hash >> 32;
    }
    return hash;
}

static bool live_groups_reserve(struct live_groups *groups, size_t needed)
{
    return live_array_reserve((void **)&groups->rows, &groups->capacity, needed,
                              sizeof *groups->rows);
}

/* Room in the slots for `needed` groups, the groups there placed again. */
static bool live_groups_reserve_slots(struct live_groups *groups, size_t needed)
{
    if (needed <= groups->slot_count / 2)
        return true;
    size_t count = groups->slot_count ? groups->slot_count : 64;
    while (count / 2 < needed) {
        if (count > SIZE_MAX / 2 / sizeof *groups->slots)
            return false;
        count *= 2;
    }
    uint32_t *slots = calloc(count, sizeof *slots);
    if (!slots)
        return false;
    for (size_t g = 0; g < groups->count; g++) {
        size_t slot = (size_t)key_hash(&groups->rows[g]) & (count - 1);
        while (slots[slot])
            slot = (slot + 1) & (count - 1);
        slots[slot] = (uint32_t)g + 1;
    }
    free(groups->slots);
    groups->slots = slots;
    groups->slot_count = count;
    return true;
}

static bool live_groups_add(struct live_groups *groups, const struct allocation_row *row)
{
    if (groups->count >= UINT32_MAX - 1 || !live_groups_reserve_slots(groups, groups->count + 1))
        return false;
    size_t mask = groups->slot_count - 1;
    size_t slot = (size_t)key_hash(row) & mask;
    for (; groups->slots[slot]; slot = (slot + 1) & mask) {
        struct allocation_row *found = &groups->rows[groups->slots[slot] - 1];
        if (!row_same_key(found, row))
            continue;
        int64_t occurrences = found->occurrences + 1;
        if (row_later(row, found))
            *found = *row; /* the latest allocation speaks for the group */
        found->occurrences = occurrences;
        return true;
    }
    if (!live_groups_reserve(groups, groups->count + 1))
        return false;
    groups->rows[groups->count] = *row;
    groups->count++;
    groups->slots[slot] = (uint32_t)groups->count;
    return true;
}

static void live_groups_free(struct live_groups *groups)
{
    free(groups->rows);
    free(groups->slots);
}

/* Groups the live allocations, adds the special rows (room for two is
 * kept), and sums the bytes into rows->total_bytes. */
static bool live_groups_fill(struct live_groups *groups, const struct live_rows_request *request,
                             struct live_rows *rows)
{
    int64_t bytes = 0;
    /* Room for as many groups as allocations, at once: growing by
     * doubling would copy the rows and leave the old array's pages behind
     * (the pages past the groups found are never touched; the sort cuts
     * the array to its length). */
    if (!live_groups_reserve(groups, request->live_count + 2))
        return false;
    struct row_cursor cursor = {0};
    for (size_t i = 0; i < request->live_count; i++) {
        struct allocation_row row = row_of(request, request->live[i], &cursor);
        bytes = saturating_add(bytes, row.allocation_bytes);
        if (!live_groups_add(groups, &row))
            return false;
    }
    if (!live_groups_reserve(groups, groups->count + 2))
        return false;
    size_t specials = special_rows_add(request, groups->rows + groups->count);
    for (size_t i = 0; i < specials; i++)
        bytes = saturating_add(bytes, groups->rows[groups->count + i].allocation_bytes);
    groups->count += specials;
    rows->total_bytes = bytes;
    return true;
}

/* Sorts the groups in XProf's order and hands their array over as
 * rows->rows (the rows' old array is freed). The grouping's slots go
 * first: the sort needs only the rows. */
static bool live_groups_sort(struct live_groups *groups, const struct live_rows_request *request,
                             struct live_rows *rows)
{
    free(groups->slots);
    groups->slots = NULL;
    groups->slot_count = 0;
    size_t total = groups->count;
    size_t *order = live_rows_order(request->profile, groups->rows, total);
    bool ok = order != NULL;
    if (ok) {
        rows_permute(groups->rows, order, total);
        size_t count = rows_merge(groups->rows, total);
        /* give back the room the doubling left (keep it if that fails) */
        struct allocation_row *fitted =
            realloc(groups->rows, (count ? count : 1) * sizeof *groups->rows);
        if (fitted)
            groups->rows = fitted;
        free(rows->rows);
        rows->rows = groups->rows;
        rows->capacity = fitted ? (count ? count : 1) : groups->capacity;
        rows->count = count;
        groups->rows = NULL;
        groups->capacity = 0;
    }
    free(order);
    return ok;
}

bool live_rows_make(const struct live_rows_request *request, struct live_rows *rows)
{
    rows->count = 0;
    rows->total_bytes = 0;
    rows->allocations = request->live_count;
    rows->as_of_index = request->end > 0 ? (int64_t)request->end - 1 : -1;
    struct live_groups groups = {0};
    bool ok = live_groups_fill(&groups, request, rows) && live_groups_sort(&groups, request, rows);
    live_groups_free(&groups);
    if (!ok) {
        rows->count = 0;
        rows->total_bytes = 0;
    }
    return ok;
}

bool live_array_reserve(void **array, size_t *capacity, size_t needed, size_t size)
{
    if (needed <= *capacity)
        return true;
    size_t grown = *capacity < 16 ? 16 : *capacity;
    while (grown < needed) {
        if (grown > SIZE_MAX / 2 / size)
            return false;
        grown *= 2;
    }
    void *memory = realloc(*array, grown * size);
    if (!memory)
        return false;
    *array = memory;
    *capacity = grown;
    return true;
}
