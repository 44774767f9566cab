/* allocation_table: the rows of an allocations table as a view sees
 * them: filtered by op name, sorted, totalled. No drawing, so the viewer,
 * the CSV exporter and the text summary share it and the tests check it
 * without a screen.
 *
 * The rows come from a row source: today the allocator's rows at its
 * peak (allocation_rows_at_peak); later rows computed on the fly (what is
 * live at a time, what grew since a mark). The table borrows them: the
 * source's rows must outlive it. The table must not reach into
 * allocator->rows itself, nor know which source it shows.
 *
 * Sorts are stable: rows that compare equal keep the source's order
 * (XProf writes them largest first), in both directions. The columns and
 * how they compare are model/allocation_columns.h's. */
#ifndef MEMTOP_ALLOCATION_TABLE_H
#define MEMTOP_ALLOCATION_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/allocation_columns.h"
#include "model/profile.h"

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
    char filter[ALLOCATION_TABLE_FILTER_SIZE]; /* case-insensitive op-name
                                                  substring; "" = all */
    size_t *sorted;  /* every row, in sort order (the filter picks from it) */
    size_t *scratch; /* for the merge sort */
};

/* The allocator's rows at its peak (XProf's active allocations), in the
 * file's order; allocator may be NULL (no rows). */
struct allocation_row_source allocation_rows_at_peak(const struct profile *profile,
                                                     const struct allocator *allocator);

/* The column's name for people ("Allocation", "Op name"), as the status line
 * names the sort ("File order" for no sort). */
const char *allocation_table_column_name(enum table_column column);
/* The sort after `column` in the order the table's sort key cycles
 * through: file order, then the sortable columns that sort largest first,
 * then the A-to-Z ones, each group in the column table's order (today:
 * allocation, requested, occurrences, op, region, data type, shape, kind,
 * location), then file order again. */
enum table_column allocation_table_next_column(enum table_column column);
/* Whether some row of the table's source has a value in `column` (not
 * an empty text, not an absent number): an XProf file fills no kind or
 * location, a Skyline report no region, type, shape or requested size. */
bool allocation_table_column_filled(const struct allocation_table *table,
                                    enum table_column column);
/* allocation_table_next_column(), passing over the columns no row of the
 * table fills (what the table's sort key cycles through). */
enum table_column allocation_table_next_filled_column(const struct allocation_table *table,
                                                      enum table_column column);
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
void allocation_table_free(struct allocation_table *table);
/* Re-filter (live, on every keystroke); false when memory runs out. */
bool allocation_table_set_filter(struct allocation_table *table, const char *filter);
void allocation_table_set_sort(struct allocation_table *table, enum table_column column,
                               bool descending);
/* The row at display position `position` (NULL past the end). */
const struct allocation_row *allocation_table_row(const struct allocation_table *table,
                                                  size_t position);
/* Whether an op name (its bytes, a NUL among them or not) holds the
 * filter, ignoring ASCII case: the way the table filters. */
bool allocation_table_matches(struct text op_name, const char *filter);
/* Whether the table's filter keeps this row (unresolved rows have no op
 * name and match only the empty filter). */
bool allocation_table_row_matches(const struct allocation_table *table,
                                  const struct allocation_row *row);
/* The op name to show for a row: the profile's text, or
 * "(unresolved: snapshot N)" ("special N" when the snapshot index was
 * negative) written into buffer for unresolved rows. */
struct text allocation_table_op_name(const struct allocation_table *table,
                                     const struct allocation_row *row, char *buffer,
                                     size_t size);
/* Rows before the filter (0 when the table has no memory). */
size_t allocation_table_total(const struct allocation_table *table);
/* A row's share of the peak: its allocation size times its occurrences
 * (an occurrence count below 1 counts as 1), saturating. */
int64_t allocation_row_bytes(const struct allocation_row *row);
/* Sum of allocation_row_bytes() over the rows shown (saturating), but
 * for the rows a report's totals leave out (allocation_row_is_uncounted:
 * a Skyline entry of size <= 0). */
int64_t allocation_table_shown_bytes(const struct allocation_table *table);

#endif
