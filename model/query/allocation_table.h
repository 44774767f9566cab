/* allocation_table: the rows of an allocations table as a view sees
 * them: filtered (by text in the op name, context, region, data type, shape, kind
 * or location; by a least size; to one group of model/query/row_groups.h),
 * sorted, totalled. No drawing, so the viewer, the CSV exporter and the
 * text summary share it and the tests check it without a screen.
 *
 * The rows come from a row source: today the allocator's rows at its
 * peak (allocation_rows_at_peak); later rows computed on the fly (what is
 * live at a time, what grew since a mark). The table borrows them: the
 * source's rows must outlive it. The table must not reach into
 * allocator->rows itself, nor know which source it shows.
 *
 * Sorts are stable: rows that compare equal keep the source's order
 * (XProf writes them largest first), in both directions. The columns and
 * how they compare are model/query/allocation_columns.h's. */
#ifndef MEMTOP_ALLOCATION_TABLE_H
#define MEMTOP_ALLOCATION_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/query/allocation_columns.h"
#include "model/profile.h"
#include "model/query/row_groups.h"

/* Rows to show and what they are. */
struct allocation_row_source {
    const struct profile *profile;     /* for the rows' strings */
    const struct allocator *allocator; /* whose rows they are; NULL: none */
    const struct allocation_row *rows; /* borrowed, in the source's own order */
    size_t count;
    const char *label; /* what they are, for people: "at peak" */
};

#define ALLOCATION_TABLE_FILTER_SIZE 256
/* Enough for allocation_table_op_name's "(unresolved: snapshot N)". */
#define ALLOCATION_TABLE_LABEL_SIZE 64

struct allocation_table {
    struct allocation_row_source source;
    /* The source's profile and allocator, kept here for the callers that
     * read them from the table. */
    const struct profile *profile;
    const struct allocator *allocator;
    size_t *order;   /* indices into source.rows, in display order */
    size_t count;    /* rows shown (after the filter) */
    enum table_column sort_column;
    bool descending;
    /* A case-insensitive substring of the op name, context, region, data type,
     * shape, kind or location; "" = all. */
    char filter[ALLOCATION_TABLE_FILTER_SIZE];
    /* Rows holding less (allocation_row_bytes) are not shown; 0: all. */
    int64_t min_bytes;
    /* Only the rows of this group (row_group_contains); ROW_GROUP_NONE
     * (and within NULL): every row. within is malloc'd: within_length
     * bytes (a NUL among them or not), then a NUL. */
    enum row_group_key within_key;
    char *within;
    size_t within_length;
    size_t unresolved_count; /* of the rows shown, those whose indices point nowhere */
    size_t *sorted;  /* every row, in sort order (the filter picks from it) */
    size_t *scratch; /* for the merge sort */
    /* Where a row's stack kept as frames is drawn when a column's value
     * asks (allocation_table_context; model/stack_text.h). */
    struct stack_text *stack_text;
};

/* Why some rows are unresolved, said once wherever they are listed (the
 * viewer's table, the text summary). */
#define ALLOCATION_TABLE_UNRESOLVED_NOTE                                              \
    "unresolved: the row's snapshot index points past the file's snapshot list " \
    "(XProf's golden test files carry none), so its op and size are unknown"

/* The allocator's rows at its peak (XProf's active allocations), in the
 * file's order; allocator may be NULL (no rows). */
struct allocation_row_source allocation_rows_at_peak(const struct profile *profile,
                                                     const struct allocator *allocator);

/* XProf's table at the peak (the peak step's allocations; issue 22),
 * where the file had it beside the live rows; else the rows at peak. */
struct allocation_row_source allocation_rows_xprof(const struct profile *profile,
                                                   const struct allocator *allocator);

/* Whether `value`, row's text in `column`, is one of XProf's placeholders
 * rather than recorded data: the type INVALID (no type recorded), and the
 * shape "unknown" of a special row. Exports keep them (XProf parity); the
 * viewer shows them as empty. */
bool allocation_value_is_placeholder(const struct allocation_row *row, enum table_column column,
                                     struct text value);

/* The column's one name ("size", "op"), as the status line names the
 * sort ("file order" for no sort). */
const char *allocation_table_column_name(enum table_column column);
/* Whether some row of the table's source has a value in `column` (not
 * an empty text, not an absent number, not one of XProf's placeholders:
 * allocation_value_is_placeholder): an XProf file fills no kind or location, a Skyline report no
 * region, type, shape or requested size, a JAX capture no type. */
bool allocation_table_column_filled(const struct allocation_table *table,
                                    enum table_column column);
/* The sort one step from `column` (direction 1: the next, -1: the
 * previous) along `order` (the columns as a view shows them, left to
 * right), passing over columns that do not sort or that no row of the
 * table fills; file order lies past both ends (from file order, 1 gives
 * the first column and -1 the last). A column not in `order` counts as
 * file order. */
enum table_column allocation_table_step_sort(const struct allocation_table *table,
                                             const enum table_column *order, size_t count,
                                             enum table_column column, int direction);
/* The direction a column sorts in first: sizes and counts largest first,
 * text A to Z, file order as in the file. */
bool allocation_table_default_descending(enum table_column column);

/* A table of every row of `source` in the source's order; false when
 * memory runs out (the table is then empty but valid). */
bool allocation_table_init_source(struct allocation_table *table,
                                  const struct allocation_row_source *source);
/* The same for the rows at the peak of `allocator` (may be NULL: no rows). */
bool allocation_table_init(struct allocation_table *table, const struct profile *profile,
                           const struct allocator *allocator);
/* The same over XProf's table (allocation_rows_xprof): `--export
 * xprof-table`, the viewer's X. */
bool allocation_table_init_xprof(struct allocation_table *table, const struct profile *profile,
                                 const struct allocator *allocator);
void allocation_table_free(struct allocation_table *table);
/* Re-filter (live, on every keystroke); false when memory runs out. */
bool allocation_table_set_filter(struct allocation_table *table, const char *filter);
/* Shows only the rows holding at least `bytes` (0: every row). */
void allocation_table_set_min_bytes(struct allocation_table *table, int64_t bytes);
/* Shows only the rows of group `name` of `key` (ROW_GROUP_NONE: every
 * row); false when memory runs out (every row is then shown). */
bool allocation_table_set_within(struct allocation_table *table, enum row_group_key key,
                                 struct text name);
/* The open group's name ("" when none). */
struct text allocation_table_within(const struct allocation_table *table);
/* Whether the rows shown are fewer than the source's for a reason a
 * person chose: a filter, a least size or an open group. */
bool allocation_table_narrowed(const struct allocation_table *table);
void allocation_table_set_sort(struct allocation_table *table, enum table_column column,
                               bool descending);
/* The row at display position `position` (NULL past the end). */
const struct allocation_row *allocation_table_row(const struct allocation_table *table,
                                                  size_t position);
/* Whether a text (an op name, a region ...: its bytes, a NUL among
 * them or not) holds the filter, ignoring ASCII case: the way the table
 * filters. */
bool allocation_table_matches(struct text text, const char *filter);
/* Whether the table's filter keeps this row: its op name, region, data
 * type, shape, kind or location holds it (unresolved rows have none of
 * them and match only the empty filter). */
bool allocation_table_row_matches(const struct allocation_table *table,
                                  const struct allocation_row *row);
/* Whether the table shows this row: its filter, least size and group. */
bool allocation_table_row_shown(const struct allocation_table *table,
                                const struct allocation_row *row);
/* The op name to show for a row: the profile's text, or
 * "(unresolved: snapshot N)" ("special N" when the snapshot index was
 * negative) written into buffer for unresolved rows. */
struct text allocation_table_op_name(const struct allocation_table *table,
                                     const struct allocation_row *row, char *buffer,
                                     size_t size);
/* Rows before the filter (0 when the table has no memory). */
size_t allocation_table_total(const struct allocation_table *table);
/* What the columns' values need: the profile, the allocator's peak, and
 * the table's buffer for stacks kept as frames (a stack's text read
 * through it lives until the next one is). */
struct allocation_context allocation_table_context(const struct allocation_table *table);
/* A row's share of the peak: its allocation size times its occurrences
 * (an occurrence count below 1 counts as 1), saturating. */
int64_t allocation_row_bytes(const struct allocation_row *row);
/* Sum of allocation_row_bytes() over the rows shown (saturating), but
 * for the rows a report's totals leave out (allocation_row_is_uncounted:
 * a Skyline entry of size <= 0). */
int64_t allocation_table_shown_bytes(const struct allocation_table *table);

#endif
