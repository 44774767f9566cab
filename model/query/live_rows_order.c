/* live_rows_order: the order of a live set's rows (live_rows.h's
 * live_row_key_compare, then the earlier snapshot first) found from
 * packed keys: each text field becomes its rank among the texts the rows
 * hold (one sort of the distinct texts), so that the sort of the rows
 * compares integers in a small contiguous array instead of reading two
 * 144-byte rows and their texts at every step (a big snapshot's table
 * at the peak has hundreds of thousands of rows, many of one size).
 * Owns: the ranks and the packed keys, both freed before it returns.
 * Texts are ranked by stack_text_compare (model/stack_text.h), which
 * answers for string ids and for stacks kept as frames alike.
 * Called by: live_rows.c (the groups' sort). Must not: change the rows
 * or the string table, or order them otherwise than
 * live_row_key_compare does. */
#include "config.h"

#include "model/query/live_rows.h"

#include <stdlib.h>

#include "model/stack_text.h"
#include "model/util/integer_map.h"

/* The text fields of the key, in live_row_key_compare's order. */
enum { ROW_TEXTS = 7 };

static uint32_t row_text(const struct allocation_row *row, int field)
{
    switch (field) {
    case 0: return row->op_name;
    case 1: return row->region_type;
    case 2: return row->data_type;
    case 3: return row->tensor_shape;
    case 4: return row->location;
    case 5: return row->module;
    default: return row->stack;
    }
}

struct packed_key {
    int64_t allocation_bytes;
    int64_t requested_bytes;
    uint32_t rank[ROW_TEXTS];
    uint32_t position; /* in the rows: the last tie-break, as a stable sort's */
    int64_t snapshot_index;
    int64_t special_index;
};

static int compare_packed(const void *left, const void *right)
{
    const struct packed_key *a = left, *b = right;
    if (a->allocation_bytes != b->allocation_bytes)
        return a->allocation_bytes > b->allocation_bytes ? -1 : 1;
    if (a->requested_bytes != b->requested_bytes)
        return a->requested_bytes > b->requested_bytes ? -1 : 1;
    for (int f = 0; f < ROW_TEXTS; f++)
        if (a->rank[f] != b->rank[f])
            return a->rank[f] < b->rank[f] ? -1 : 1;
    /* Equal keys: the earlier allocation first (it merges into the later). */
    if (a->snapshot_index != b->snapshot_index)
        return a->snapshot_index < b->snapshot_index ? -1 : 1;
    if (a->special_index != b->special_index)
        return a->special_index < b->special_index ? -1 : 1;
    return (a->position > b->position) - (a->position < b->position);
}

/* The profile compare_texts reads (qsort has no context; the builder
 * sorts several allocators' rows at once, a thread each). */
static _Thread_local const struct profile *thread_profile;

/* Two ids by their texts: a stack id may name a stack kept as frames,
 * whose text is compared piece by piece, never made (model/stack_text.h);
 * any other id is a string's, compared as string_table_compare does. */
static int compare_texts(const void *left, const void *right)
{
    return stack_text_compare(thread_profile, *(const uint32_t *)left,
                              *(const uint32_t *)right);
}

/* Every text id the rows hold, once, each mapped to its rank by text
 * (equal texts, equal ranks). False when memory runs out. */
static bool texts_rank(const struct profile *profile, const struct allocation_row *rows,
                       size_t count, struct integer_map *ranks)
{
    uint32_t *ids = NULL, last[ROW_TEXTS];
    size_t id_count = 0, id_capacity = 0;
    bool ok = true;
    for (size_t r = 0; ok && r < count; r++)
        for (int f = 0; ok && f < ROW_TEXTS; f++) {
            /* A field often holds the id the row before held (one op, one
             * empty region for all): no lookup then. */
            uint32_t id = row_text(&rows[r], f);
            if ((r > 0 && id == last[f]) || integer_map_find(ranks, id)) {
                last[f] = id;
                continue;
            }
            last[f] = id;
            ok = integer_map_put(ranks, id, 0);
            if (ok && id_count == id_capacity) {
                size_t grown = id_capacity ? id_capacity * 2 : 64;
                uint32_t *more = realloc(ids, grown * sizeof *ids);
                ok = more != NULL;
                if (ok) {
                    ids = more;
                    id_capacity = grown;
                }
            }
            if (ok)
                ids[id_count++] = id;
        }
    if (ok && id_count > 1) {
        thread_profile = profile;
        qsort(ids, id_count, sizeof *ids, compare_texts);
    }
    uint32_t rank = 0;
    for (size_t i = 0; ok && i < id_count; i++) {
        if (i > 0 && stack_text_compare(profile, ids[i - 1], ids[i]) != 0)
            rank++;
        *integer_map_find(ranks, ids[i]) = rank;
    }
    free(ids);
    return ok;
}

size_t *live_rows_order(const struct profile *profile, const struct allocation_row *rows,
                        size_t count)
{
    struct integer_map ranks = {0};
    struct packed_key *keys = malloc((count ? count : 1) * sizeof *keys);
    size_t *order = malloc((count ? count : 1) * sizeof *order);
    bool ok = keys && order && count <= UINT32_MAX && texts_rank(profile, rows, count, &ranks);
    uint32_t last_id[ROW_TEXTS], last_rank[ROW_TEXTS];
    for (size_t r = 0; ok && r < count; r++) {
        struct packed_key *key = &keys[r];
        key->allocation_bytes = rows[r].allocation_bytes;
        key->requested_bytes = rows[r].requested_bytes;
        for (int f = 0; f < ROW_TEXTS; f++) {
            uint32_t id = row_text(&rows[r], f);
            if (r == 0 || id != last_id[f]) {
                last_id[f] = id;
                last_rank[f] = *integer_map_find(&ranks, id);
            }
            key->rank[f] = last_rank[f];
        }
        key->position = (uint32_t)r;
        key->snapshot_index = rows[r].snapshot_index;
        key->special_index = rows[r].special_index;
    }
    integer_map_free(&ranks);
    if (ok && count > 1)
        qsort(keys, count, sizeof *keys, compare_packed);
    for (size_t r = 0; ok && r < count; r++)
        order[r] = keys[r].position;
    free(keys);
    if (!ok) {
        free(order);
        return NULL;
    }
    return order;
}
