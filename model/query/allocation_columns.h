/* allocation_columns: the one table of allocation columns. Each row says
 * what a column is called, how the table pane lays it out, how rows
 * compare in it and how its value is read from a row.
 *
 * A column has one name for people, short ("size", "total", "op"): the
 * table pane's header, the status line ("sorted by size") and --sort
 * use it. The CSV header (and the JSON of --summary's top rows) keeps
 * the documented long names ("allocation_bytes"), which --sort accepts
 * too and the settings file keeps (files written before stay valid).
 *
 * Called by the allocation table (sorting, filtering, the status line's
 * "sorted by X"), the CSV exporter (header and cells, by walking the
 * table), the JSON top rows, --sort parsing and its usage list, and the
 * table pane. A new column is one row here (and an id in enum
 * table_column).
 *
 * It must not format for a screen or a file: values come out raw (a
 * number, a fraction, a profile's text); each caller writes them its
 * own way.
 *
 * The table pane takes names, alignment, widths and values from here
 * and keeps only its display order and which columns give way first. */
#ifndef MEMTOP_ALLOCATION_COLUMNS_H
#define MEMTOP_ALLOCATION_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"

/* The columns, in the CSV's order. The first TABLE_COLUMN_COUNT are
 * ones a table sorts by (and --sort names); of the others, which the CSV
 * carries, kind, location, total and share sort too (a column sorts when
 * it has a comparison). Kind, location and stack are filled by the
 * formats whose rows name the code that made them (Skyline) and empty
 * elsewhere. Total and share (what a row holds: its size times its
 * occurrences, and that over the allocator's peak) came next, then
 * context and module (issue 22). Columns are added at the end so that
 * the CSV's earlier columns keep their places. */
enum table_column {
    TABLE_COLUMN_FILE_ORDER = -1, /* no sort: XProf's order, as in the file */
    TABLE_COLUMN_OP_NAME = 0,
    TABLE_COLUMN_ALLOCATION_BYTES,
    TABLE_COLUMN_REQUESTED_BYTES,
    TABLE_COLUMN_OCCURRENCES,
    TABLE_COLUMN_REGION_TYPE,
    TABLE_COLUMN_DATA_TYPE,
    TABLE_COLUMN_TENSOR_SHAPE,
    TABLE_COLUMN_COUNT, /* the sortable columns end here */
    TABLE_COLUMN_STEP_ID = TABLE_COLUMN_COUNT,
    TABLE_COLUMN_TIME_PS,
    TABLE_COLUMN_ADDRESS,
    TABLE_COLUMN_ACTIVITY,
    TABLE_COLUMN_ORIGIN,
    TABLE_COLUMN_SNAPSHOT_INDEX,
    TABLE_COLUMN_SPECIAL_INDEX,
    TABLE_COLUMN_KIND,
    TABLE_COLUMN_LOCATION,
    TABLE_COLUMN_STACK,
    TABLE_COLUMN_TOTAL_BYTES,
    TABLE_COLUMN_SHARE,
    TABLE_COLUMN_CONTEXT, /* issue 22 */
    TABLE_COLUMN_MODULE,
    ALLOCATION_COLUMN_COUNT
};

/* How a column's value reads. */
enum allocation_value_kind {
    ALLOCATION_VALUE_TEXT,    /* text: a profile's string or a name */
    ALLOCATION_VALUE_BYTES,   /* a size in bytes (people read "1.50 MiB") */
    ALLOCATION_VALUE_INTEGER, /* a count, an index, a step, a time */
    ALLOCATION_VALUE_ADDRESS, /* an unsigned 64-bit address */
    ALLOCATION_VALUE_FRACTION, /* a share of a whole: 0.25 (people read "25.0%") */
};

struct allocation_value {
    bool absent;      /* no value here (time of a row without one): an empty cell */
    int64_t integer;  /* BYTES, INTEGER */
    uint64_t address; /* ADDRESS */
    double fraction;  /* FRACTION */
    struct text text; /* TEXT: the profile's bytes with their length */
};

struct stack_text;

/* What a column's value may need beside its row: the profile (its
 * strings), the whole a share is of, and where a stack kept as frames
 * is drawn (model/stack_text.h: the stack's text lives until the next
 * value is read; NULL: such a stack reads as empty). */
struct allocation_context {
    const struct profile *profile;
    int64_t peak_bytes; /* the allocator's peak; 0 or less: unknown (no share) */
    struct stack_text *stack_text;
};

/* Compares two rows in a column, ascending: <0, 0, >0. */
typedef int allocation_compare_fn(const struct profile *profile, const struct allocation_row *a,
                                  const struct allocation_row *b);
/* A row's value in a column. */
typedef struct allocation_value allocation_value_fn(const struct allocation_context *context,
                                                    const struct allocation_row *row);

struct allocation_column_info {
    enum table_column id;
    /* The one name for people: the table pane's header, the status
     * line's "sorted by size" and --sort: "size". */
    const char *name;
    const char *csv_name; /* the CSV header and JSON keys (--sort takes it too): "allocation_bytes" */
    enum allocation_value_kind kind;
    /* The table pane: numbers right-aligned; a text column shrinks to
     * min_width before it is hidden and grows to max_width (0: as wide
     * as its widest value). */
    bool right_aligned;
    int min_width;
    int max_width;
    allocation_compare_fn *compare; /* NULL: a table does not sort by it */
    bool descending_first;          /* sizes and counts largest first, text A to Z */
    allocation_value_fn *value;
};

/* The column `id` (NULL for TABLE_COLUMN_FILE_ORDER and ids out of range). */
const struct allocation_column_info *allocation_column(enum table_column id);
/* Every column, in the CSV's order: ALLOCATION_COLUMN_COUNT of them. */
const struct allocation_column_info *allocation_columns(void);
/* The column whose name or csv_name is the `length` bytes at name
 * ("size" or "allocation_bytes"); false when none. */
bool allocation_column_find(const char *name, size_t length, enum table_column *id);
/* Whether a table can sort by `id` (file order included). */
bool allocation_column_sortable(enum table_column id);
/* Whether allocator's format records column `id` (a PyTorch trace has no
 * region, data type or shape: its special rows carry XProf's words for
 * them, which the CSV keeps but a view need not show); true for a NULL
 * allocator. */
bool allocation_column_recorded(const struct allocator *allocator, enum table_column id);

#endif
