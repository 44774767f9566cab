#include "config.h"

#include "model/query/allocation_columns.h"

#include <limits.h>
#include <string.h>

#include "model/query/allocation_table.h"
#include "model/stack_text.h"

/* ---- comparing ---- */

static int compare_numbers(int64_t a, int64_t b)
{
    return (a > b) - (a < b);
}

static char fold_case(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Case-insensitive first so "conv" sorts beside "Conv", then by bytes so
 * the order never depends on anything but the text (a NUL inside counts
 * as a byte, so "A\0x" and "A\0y" keep their order). */
static int compare_text(struct text a, struct text b)
{
    size_t common = a.length < b.length ? a.length : b.length;
    for (size_t i = 0; i < common; i++) {
        unsigned char fa = (unsigned char)fold_case(a.bytes[i]);
        unsigned char fb = (unsigned char)fold_case(b.bytes[i]);
        if (fa != fb)
            return (fa > fb) - (fa < fb);
    }
    if (a.length != b.length)
        return (a.length > b.length) - (a.length < b.length);
    int bytes = text_compare(a, b);
    return (bytes > 0) - (bytes < 0);
}

/* Interned: the same id is the same text, without reading it. */
static int compare_strings(const struct profile *profile, uint32_t a, uint32_t b)
{
    if (a == b)
        return 0;
    return compare_text(profile_string(profile, a), profile_string(profile, b));
}

#define COMPARE_NUMBER_FIELD(field)                                                          \
    static int compare_##field(const struct profile *profile, const struct allocation_row *a, \
                               const struct allocation_row *b)                               \
    {                                                                                        \
        (void)profile;                                                                       \
        return compare_numbers(a->field, b->field);                                          \
    }
#define COMPARE_STRING_FIELD(field)                                                          \
    static int compare_##field(const struct profile *profile, const struct allocation_row *a, \
                               const struct allocation_row *b)                               \
    {                                                                                        \
        return compare_strings(profile, a->field, b->field);                                 \
    }

COMPARE_STRING_FIELD(op_name)
COMPARE_NUMBER_FIELD(allocation_bytes)
COMPARE_NUMBER_FIELD(requested_bytes)
COMPARE_NUMBER_FIELD(occurrences)
COMPARE_STRING_FIELD(region_type)
COMPARE_STRING_FIELD(data_type)
COMPARE_STRING_FIELD(tensor_shape)
COMPARE_STRING_FIELD(kind)

/* What a row holds (its size times its occurrences): the share is the
 * same over the same peak, so it sorts the same way. */
static int compare_total(const struct profile *profile, const struct allocation_row *a,
                         const struct allocation_row *b)
{
    (void)profile;
    return compare_numbers(allocation_row_bytes(a), allocation_row_bytes(b));
}

/* By file, then by line as a number (model.py:9 before model.py:10). */
static int compare_location(const struct profile *profile, const struct allocation_row *a,
                            const struct allocation_row *b)
{
    int file = compare_strings(profile, a->location_file, b->location_file);
    return file ? file : compare_numbers(a->location_line, b->location_line);
}

/* ---- values ---- */

/* A report's entry has no snapshot behind it: no requested size, step,
 * address, activity or index (an empty cell, not a made-up 0), and it
 * is one tensor, not a count of identical allocations. */
static bool row_is_entry(const struct allocation_row *row)
{
    return row->origin == ROW_FROM_ENTRY;
}

#define NUMBER_VALUE(field)                                                                  \
    static struct allocation_value value_##field(const struct allocation_context *context,   \
                                                 const struct allocation_row *row)           \
    {                                                                                        \
        (void)context;                                                                       \
        return (struct allocation_value){.integer = row->field, .text = {"", 0}};            \
    }
#define SNAPSHOT_NUMBER_VALUE(field)                                                         \
    static struct allocation_value value_##field(const struct allocation_context *context,   \
                                                 const struct allocation_row *row)           \
    {                                                                                        \
        (void)context;                                                                       \
        return (struct allocation_value){.absent = row_is_entry(row), .integer = row->field, \
                                         .text = {"", 0}};                                   \
    }
#define STRING_VALUE(field)                                                                  \
    static struct allocation_value value_##field(const struct allocation_context *context,   \
                                                 const struct allocation_row *row)           \
    {                                                                                        \
        return (struct allocation_value){                                                   \
            .text = profile_string(context->profile, row->field)};                           \
    }

STRING_VALUE(op_name)
NUMBER_VALUE(allocation_bytes)
SNAPSHOT_NUMBER_VALUE(requested_bytes)
SNAPSHOT_NUMBER_VALUE(occurrences)
STRING_VALUE(region_type)
STRING_VALUE(data_type)
STRING_VALUE(tensor_shape)
SNAPSHOT_NUMBER_VALUE(step_id)
SNAPSHOT_NUMBER_VALUE(snapshot_index)
SNAPSHOT_NUMBER_VALUE(special_index)
STRING_VALUE(kind)
STRING_VALUE(location)
STRING_VALUE(context)
STRING_VALUE(module)

/* A stack kept as frames is made into text here, into the caller's
 * buffer (model/stack_text.h). */
static struct allocation_value value_stack(const struct allocation_context *context,
                                           const struct allocation_row *row)
{
    return (struct allocation_value){
        .text = stack_text_draw(context->profile, row->stack, context->stack_text)};
}

static struct allocation_value value_time_ps(const struct allocation_context *context,
                                             const struct allocation_row *row)
{
    (void)context;
    /* Special and unresolved rows have no time: an empty cell, not 0. */
    return (struct allocation_value){.absent = !row->has_time, .integer = row->time_ps,
                                     .text = {"", 0}};
}

static struct allocation_value value_address(const struct allocation_context *context,
                                             const struct allocation_row *row)
{
    (void)context;
    return (struct allocation_value){.absent = row_is_entry(row), .address = row->address,
                                     .text = {"", 0}};
}

static struct allocation_value value_activity(const struct allocation_context *context,
                                              const struct allocation_row *row)
{
    (void)context;
    if (row_is_entry(row))
        return (struct allocation_value){.absent = true, .text = {"", 0}};
    return (struct allocation_value){.text = text_of(memory_activity_name(row->activity))};
}

static const char *origin_name(enum row_origin origin)
{
    switch (origin) {
    case ROW_FROM_SNAPSHOT: return "snapshot";
    case ROW_FROM_SPECIAL: return "special";
    case ROW_FROM_ENTRY: return "entry";
    default: return "unresolved";
    }
}

static struct allocation_value value_origin(const struct allocation_context *context,
                                            const struct allocation_row *row)
{
    (void)context;
    return (struct allocation_value){.text = text_of(origin_name(row->origin))};
}

static struct allocation_value value_total_bytes(const struct allocation_context *context,
                                                 const struct allocation_row *row)
{
    (void)context;
    return (struct allocation_value){.integer = allocation_row_bytes(row), .text = {"", 0}};
}

/* Of the allocator's peak; none when the peak is unknown. A row the
 * totals leave out (a Skyline entry of size <= 0) holds no share. */
static struct allocation_value value_share(const struct allocation_context *context,
                                           const struct allocation_row *row)
{
    if (context->peak_bytes <= 0)
        return (struct allocation_value){.absent = true, .text = {"", 0}};
    double bytes = allocation_row_is_uncounted(row) ? 0.0 : (double)allocation_row_bytes(row);
    return (struct allocation_value){.fraction = bytes / (double)context->peak_bytes,
                                     .text = {"", 0}};
}

/* ---- the table ---- */

#define TEXT ALLOCATION_VALUE_TEXT
#define BYTES ALLOCATION_VALUE_BYTES
#define INTEGER ALLOCATION_VALUE_INTEGER
#define ADDRESS ALLOCATION_VALUE_ADDRESS
#define FRACTION ALLOCATION_VALUE_FRACTION

/* In the CSV's order. The widths are the table pane's. */
static const struct allocation_column_info columns[ALLOCATION_COLUMN_COUNT] = {
    {TABLE_COLUMN_OP_NAME, "op", "op_name", TEXT, false, 12, INT_MAX, compare_op_name, false,
     value_op_name},
    {TABLE_COLUMN_ALLOCATION_BYTES, "size", "allocation_bytes", BYTES, true, 0, 0,
     compare_allocation_bytes, true, value_allocation_bytes},
    {TABLE_COLUMN_REQUESTED_BYTES, "requested", "requested_bytes", BYTES, true, 0, 0,
     compare_requested_bytes, true, value_requested_bytes},
    {TABLE_COLUMN_OCCURRENCES, "count", "occurrences", INTEGER, true, 0, 0,
     compare_occurrences, true, value_occurrences},
    {TABLE_COLUMN_REGION_TYPE, "region", "region_type", TEXT, false, 6, 16,
     compare_region_type, false, value_region_type},
    {TABLE_COLUMN_DATA_TYPE, "type", "data_type", TEXT, false, 5, 12, compare_data_type, false,
     value_data_type},
    {TABLE_COLUMN_TENSOR_SHAPE, "shape", "tensor_shape", TEXT, false, 8, 32,
     compare_tensor_shape, false, value_tensor_shape},
    {TABLE_COLUMN_STEP_ID, "step", "step_id", INTEGER, true, 0, 0, NULL, false, value_step_id},
    {TABLE_COLUMN_TIME_PS, "time", "time_ps", INTEGER, true, 0, 0, NULL, false, value_time_ps},
    {TABLE_COLUMN_ADDRESS, "address", "address", ADDRESS, true, 0, 0, NULL, false,
     value_address},
    {TABLE_COLUMN_ACTIVITY, "activity", "activity", TEXT, false, 8, 16, NULL, false,
     value_activity},
    {TABLE_COLUMN_ORIGIN, "origin", "origin", TEXT, false, 6, 10, NULL, false, value_origin},
    {TABLE_COLUMN_SNAPSHOT_INDEX, "snapshot", "snapshot_index", INTEGER, true, 0, 0, NULL, false,
     value_snapshot_index},
    {TABLE_COLUMN_SPECIAL_INDEX, "special", "special_index", INTEGER, true, 0, 0, NULL, false,
     value_special_index},
    {TABLE_COLUMN_KIND, "kind", "kind", TEXT, false, 6, 10, compare_kind, false, value_kind},
    {TABLE_COLUMN_LOCATION, "location", "location", TEXT, false, 12, 40, compare_location, false,
     value_location},
    /* Many lines: the CSV and the detail view carry it, the table cannot. */
    {TABLE_COLUMN_STACK, "stack", "stack", TEXT, false, 0, 0, NULL, false, value_stack},
    {TABLE_COLUMN_TOTAL_BYTES, "total", "total_bytes", BYTES, true, 0, 0, compare_total, true,
     value_total_bytes},
    {TABLE_COLUMN_SHARE, "share", "share", FRACTION, true, 0, 0, compare_total, true,
     value_share},
    /* Where it was made (issue 22): the enclosing events, outermost
     * first, and the innermost module; the CSV and JSON carry them, the
     * detail view shows them, the table shows the module where a row
     * has one. */
    {TABLE_COLUMN_CONTEXT, "context", "context", TEXT, false, 0, 0, NULL, false, value_context},
    {TABLE_COLUMN_MODULE, "module", "module", TEXT, false, 6, 24, NULL, false, value_module},
};

const struct allocation_column_info *allocation_column(enum table_column id)
{
    if (id < 0 || id >= ALLOCATION_COLUMN_COUNT)
        return NULL;
    return &columns[id];
}

const struct allocation_column_info *allocation_columns(void)
{
    return columns;
}

bool allocation_column_find(const char *name, size_t length, enum table_column *id)
{
    for (size_t i = 0; i < ALLOCATION_COLUMN_COUNT; i++) {
        const char *names[] = {columns[i].name, columns[i].csv_name};
        for (size_t n = 0; n < 2; n++) {
            if (strlen(names[n]) == length && memcmp(names[n], name, length) == 0) {
                *id = columns[i].id;
                return true;
            }
        }
    }
    return false;
}

bool allocation_column_sortable(enum table_column id)
{
    if (id == TABLE_COLUMN_FILE_ORDER)
        return true;
    const struct allocation_column_info *column = allocation_column(id);
    return column && column->compare;
}

/* Columns only some formats fill (enum allocator_field). */
static const struct {
    enum table_column id;
    unsigned field;
} recorded_by[] = {
    {TABLE_COLUMN_REGION_TYPE, ALLOCATOR_FIELD_REGION},
    {TABLE_COLUMN_DATA_TYPE, ALLOCATOR_FIELD_DATA_TYPE},
    {TABLE_COLUMN_TENSOR_SHAPE, ALLOCATOR_FIELD_TENSOR_SHAPE},
};

bool allocation_column_recorded(const struct allocator *allocator, enum table_column id)
{
    for (size_t i = 0; allocator && i < sizeof recorded_by / sizeof *recorded_by; i++)
        if (recorded_by[i].id == id)
            return allocator_records(allocator, recorded_by[i].field);
    return true;
}
