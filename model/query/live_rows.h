/* live_rows: turns a set of live allocations (snapshot indices) into the
 * rows live_set.h promises: one row per allocation plus the special rows,
 * ordered and merged as XProf orders its peak table.
 *
 * The order is model/query/live_rows_order.c's (packed keys).
 *
 * Internal to the model: the live-set queries (model/query/live_set.c,
 * model/query/live_at_once.c) and the
 * Chrome-trace loader (model/formats/chrome_trace/load_trace*.c, whose rows at the peak are
 * made the same way) and the XSpace loader's table at the peak
 * (model/formats/xspace/load_xspace_profile.c) call it; views use model/query/live_set.h. It
 * must not replay the timeline (that is its callers') nor keep state
 * between calls. */
#ifndef MEMTOP_LIVE_ROWS_H
#define MEMTOP_LIVE_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/query/live_set.h"
#include "model/profile.h"
#include "model/string_table.h"

/* String ids of the special rows' texts in the profile's table. */
struct live_special_texts {
    uint32_t stack_name;
    uint32_t stack_region;
    uint32_t before_name;
    uint32_t before_region;
    uint32_t data_type; /* "INVALID" */
    uint32_t shape;     /* "unknown" */
};

/* Interns the texts (the string table only grows); false when memory
 * runs out. */
bool live_special_texts_intern(struct string_table *strings, struct live_special_texts *texts);

/* An allocation of the live set, by number: numbers below
 * initial_count name the allocator's initial allocations (struct
 * allocator's initial: live when the timeline begins), the others
 * timeline index number - initial_count. Without initial allocations a
 * number is a timeline index. */
static inline bool live_is_initial(size_t initial_count, uint32_t number)
{
    return number < initial_count;
}

struct live_rows_request {
    const struct profile *profile; /* for the strings */
    const struct snapshot_columns *timeline;
    /* The allocator's initial allocations (NULL and 0 for none). */
    const struct allocation_row *initial;
    size_t initial_count;
    /* The allocator's allocation_blocks (NULL and 0 for none). */
    const struct allocation_block *blocks;
    size_t block_count;
    const struct live_special_texts *texts;
    const uint32_t *live; /* the live allocations by number (see above), any order */
    size_t live_count;
    /* Snapshots replayed: the special rows come from snapshot end - 1
     * (none when end is 0). */
    size_t end;
    bool with_specials;
    /* The heap bytes the special row "allocated before the profile"
     * subtracts from: the sum of every live allocation's size, which is
     * more than the listed ones' when the request lists only some. */
    int64_t live_allocation_bytes;
};

/* The `number`-th special row present (0 first), as XProf numbers its
 * own: snapshot_index -1 - number, special_index number; type INVALID and
 * shape unknown from `texts`. */
struct allocation_row live_special_row(int64_t number, int64_t bytes, uint32_t name,
                                       uint32_t region, const struct live_special_texts *texts,
                                       int64_t step_id);

/* XProf's order of rows (its MetadataComparator): allocation bytes, then
 * requested bytes, both larger first, then op, region, data type and shape
 * bytewise; then, for formats that record where a row was made (issue
 * 22), its location, module and stack (empty for the others; a stack
 * by its text, whether the profile keeps it as a string or as frames:
 * model/stack_text.h). Rows of
 * equal keys then go by snapshot index and special index (initial
 * allocations: their position), the later last, and merge into the
 * last. */
int live_row_key_compare(const struct profile *profile, const struct allocation_row *a,
                         const struct allocation_row *b);

/* The order of `count` rows by live_row_key_compare, rows of equal keys
 * by snapshot index then special index, the earlier first, then as
 * given (model/query/live_rows_order.c): order[i] is the row to put
 * i-th. A new array the caller frees; NULL when memory runs out. */
size_t *live_rows_order(const struct profile *profile, const struct allocation_row *rows,
                        size_t count);

/* Replaces rows->rows with the request's rows; false when memory runs
 * out (the rows are then empty). O(L) to group L allocations by key,
 * then O(G log G) to sort the G distinct ones. */
bool live_rows_make(const struct live_rows_request *request, struct live_rows *rows);

/* Makes room for `needed` elements of `size` bytes in *array (doubling);
 * false when memory runs out. Shared with live_set.c. */
bool live_array_reserve(void **array, size_t *capacity, size_t needed, size_t size);

#endif
