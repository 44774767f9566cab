/* load_skyline_entries: a Skyline report's weights and activations, each
 * with its stack, as rows (see load_skyline.h).
 *
 * One query per table joins each entry to its frames (stack_correlation
 * names the entry, stack_frames its frames, ordering 0 innermost) and
 * returns them entry by entry: the rows are built in the file's order,
 * weights first, without a map of entries in memory. A weight's gradient
 * becomes a row of its own right after it (kind "gradient", the weight's
 * name, location and stack) when the report gives it a size; entries
 * without frames have no location. Sizes must be integers (Skyline's
 * columns are INTEGER NOT NULL); texts are taken as whatever bytes they
 * are. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/load_internal.h"
#include "model/formats/skyline/skyline_internal.h"
#include "model/util/saturating.h"

/* stack_correlation's entry_type: entry_types' rows (1, 'Weight') and
 * (2, 'Activation'). */
#define SKYLINE_ENTRY_WEIGHT 1
#define SKYLINE_ENTRY_ACTIVATION 2

/* Columns of the entry queries below: the entry, then one frame. */
enum entry_column {
    ENTRY_ROWID,
    ENTRY_NAME,
    ENTRY_SIZE,
    ENTRY_GRADIENT_SIZE, /* weights only */
    ENTRY_FRAME_ORDERING, /* NULL: the entry has no frame */
    ENTRY_FRAME_FILE,
    ENTRY_FRAME_LINE,
};

/* Frames in ordering order (innermost first), by correlation, for
 * deterministic output even from a file with several correlations for
 * one entry. */
#define SKYLINE_FRAMES_JOIN(alias, type)                                                      \
    " LEFT JOIN stack_correlation c ON c.entry_type = " #type " AND c.entry_id = " alias ".id" \
    " LEFT JOIN stack_frames f ON f.correlation_id = c.correlation_id"                         \
    " ORDER BY " alias ".rowid, c.correlation_id, f.ordering"

static const char weight_sql[] =
    "SELECT w.rowid, w.name, w.size_bytes, w.grad_size_bytes, f.ordering, f.file_path,"
    " f.line_number FROM weight_entries w" SKYLINE_FRAMES_JOIN("w", 1);
static const char activation_sql[] =
    "SELECT a.rowid, a.operation_name, a.size_bytes, NULL, f.ordering, f.file_path,"
    " f.line_number FROM activation_entries a" SKYLINE_FRAMES_JOIN("a", 2);

_Static_assert(SKYLINE_ENTRY_WEIGHT == 1 && SKYLINE_ENTRY_ACTIVATION == 2,
               "the queries above spell the entry types out");

/* One table being read. */
struct entry_reader {
    sqlite3 *database;
    struct profile_builder *builder;
    size_t allocator;
    struct tracked_memory *tracked;
    const char *table;
    sqlite3_stmt *statement;
    int code; /* of the last sqlite3_step() */
    /* The stack being gathered: "file:line" lines, innermost first. */
    char *stack;
    size_t stack_length, stack_capacity;
    /* The ids of the strings every row of this load shares. */
    uint32_t kind_weight, kind_gradient, kind_activation;
};

/* One entry with its innermost frame, as the rows take it. */
struct entry {
    int64_t rowid;
    uint32_t name;
    int64_t size;
    int64_t gradient_size;
    uint32_t location, location_file, stack;
    int64_t location_line;
};

static bool reader_intern(struct entry_reader *reader, const char *text, size_t length,
                          uint32_t *id)
{
    *id = string_table_intern(profile_builder_strings(reader->builder), text, length);
    return *id != STRING_ID_NONE;
}

/* Text column `column` of the current row, as its bytes (a number reads
 * as its decimal text, as SQLite converts it; NULL as ""). */
static bool reader_intern_column(struct entry_reader *reader, int column, uint32_t *id)
{
    const char *text = (const char *)sqlite3_column_text(reader->statement, column);
    size_t length = (size_t)sqlite3_column_bytes(reader->statement, column);
    return reader_intern(reader, text ? text : "", text ? length : 0, id);
}

static bool stack_append(struct entry_reader *reader, const char *text, size_t length)
{
    if (reader->stack_length + length + 1 > reader->stack_capacity) {
        size_t capacity = reader->stack_capacity ? reader->stack_capacity : 256;
        while (capacity < reader->stack_length + length + 1)
            capacity *= 2;
        char *grown = realloc(reader->stack, capacity);
        if (!grown)
            return false;
        reader->stack = grown;
        reader->stack_capacity = capacity;
    }
    memcpy(reader->stack + reader->stack_length, text, length);
    reader->stack_length += length;
    reader->stack[reader->stack_length] = '\0';
    return true;
}

/* Adds the current row's frame to the stack; the first one (the
 * innermost) is also the entry's location. */
static bool entry_add_frame(struct entry_reader *reader, struct entry *entry)
{
    sqlite3_stmt *statement = reader->statement;
    const char *file = (const char *)sqlite3_column_text(statement, ENTRY_FRAME_FILE);
    size_t file_length = file ? (size_t)sqlite3_column_bytes(statement, ENTRY_FRAME_FILE) : 0;
    int64_t line = sqlite3_column_int64(statement, ENTRY_FRAME_LINE);
    char number[32];
    int number_length = snprintf(number, sizeof number, ":%lld", (long long)line);
    size_t start = reader->stack_length;
    if ((start > 0 && !stack_append(reader, "\n", 1)) ||
        !stack_append(reader, file ? file : "", file_length) ||
        !stack_append(reader, number, (size_t)number_length))
        return false;
    if (entry->location != STRING_ID_EMPTY)
        return true;
    entry->location_line = line;
    return reader_intern(reader, file ? file : "", file_length, &entry->location_file) &&
           reader_intern(reader, reader->stack + start + (start > 0),
                         reader->stack_length - start - (start > 0), &entry->location);
}

/* A size column must hold an integer (Skyline's are INTEGER NOT NULL). */
static bool entry_size(struct entry_reader *reader, int column, int64_t *size,
                       struct load_error *error)
{
    if (sqlite3_column_type(reader->statement, column) != SQLITE_INTEGER) {
        load_error_set(error, "%s, row %lld: %s is not an integer", reader->table,
                       (long long)sqlite3_column_int64(reader->statement, ENTRY_ROWID),
                       sqlite3_column_name(reader->statement, column));
        return false;
    }
    *size = sqlite3_column_int64(reader->statement, column);
    return true;
}

static bool reader_add_row(struct entry_reader *reader, const struct entry *entry, uint32_t kind,
                           int64_t size)
{
    struct allocation_row row = {
        .origin = ROW_FROM_ENTRY,
        .snapshot_index = -1,
        .special_index = -1,
        .occurrences = 1,
        .allocation_bytes = size,
        .op_name = entry->name,
        .step_id = -1,
        .kind = kind,
        .location = entry->location,
        .location_file = entry->location_file,
        .location_line = entry->location_line,
        .stack = entry->stack,
    };
    return profile_builder_add_row(reader->builder, reader->allocator, &row);
}

/* The current entry's rows and its share of the totals. */
static bool reader_add_entry(struct entry_reader *reader, const struct entry *entry,
                             bool weight)
{
    struct tracked_memory *tracked = reader->tracked;
    tracked->entries++;
    int64_t *total = weight ? &tracked->weights_bytes : &tracked->activations_bytes;
    if (entry->size > 0)
        *total = saturating_add(*total, entry->size);
    if (!reader_add_row(reader, entry, weight ? reader->kind_weight : reader->kind_activation,
                        entry->size))
        return false;
    /* 0: the weight had no gradient after the iteration. */
    if (!weight || entry->gradient_size == 0)
        return true;
    if (entry->gradient_size > 0)
        tracked->gradients_bytes = saturating_add(tracked->gradients_bytes, entry->gradient_size);
    return reader_add_row(reader, entry, reader->kind_gradient, entry->gradient_size);
}

/* Reads one entry: its first result row is current; on return the
 * current row is the next entry's (or the end). */
static enum load_status reader_read_entry(struct entry_reader *reader, bool weight,
                                          struct load_error *error)
{
    sqlite3_stmt *statement = reader->statement;
    struct entry entry = {.rowid = sqlite3_column_int64(statement, ENTRY_ROWID)};
    if (!entry_size(reader, ENTRY_SIZE, &entry.size, error) ||
        (weight && !entry_size(reader, ENTRY_GRADIENT_SIZE, &entry.gradient_size, error)))
        return LOAD_BAD_INPUT;
    if (!reader_intern_column(reader, ENTRY_NAME, &entry.name))
        goto no_memory;
    reader->stack_length = 0;
    do {
        if (sqlite3_column_type(statement, ENTRY_FRAME_ORDERING) != SQLITE_NULL &&
            !entry_add_frame(reader, &entry))
            goto no_memory;
        reader->code = sqlite3_step(statement);
    } while (reader->code == SQLITE_ROW &&
             sqlite3_column_int64(statement, ENTRY_ROWID) == entry.rowid);
    if (reader->stack_length && !reader_intern(reader, reader->stack, reader->stack_length,
                                               &entry.stack))
        goto no_memory;
    if (!reader_add_entry(reader, &entry, weight))
        goto no_memory;
    return LOAD_OK;
no_memory:
    load_error_set(error, "out of memory");
    return LOAD_NO_MEMORY;
}

static enum load_status reader_read_table(struct entry_reader *reader, const char *sql,
                                          bool weight, struct load_error *error)
{
    reader->table = weight ? "weight_entries" : "activation_entries";
    char what[64];
    snprintf(what, sizeof what, "reading %s", reader->table);
    int code = sqlite3_prepare_v2(reader->database, sql, -1, &reader->statement, NULL);
    if (code != SQLITE_OK)
        return skyline_sqlite_error(reader->database, code, what, error);
    enum load_status status = LOAD_OK;
    reader->code = sqlite3_step(reader->statement);
    while (status == LOAD_OK && reader->code == SQLITE_ROW)
        status = reader_read_entry(reader, weight, error);
    if (status == LOAD_OK && reader->code != SQLITE_DONE)
        status = skyline_sqlite_error(reader->database, reader->code, what, error);
    sqlite3_finalize(reader->statement);
    reader->statement = NULL;
    return status;
}

enum load_status skyline_read_entries(sqlite3 *database, struct profile_builder *builder,
                                      size_t index, struct tracked_memory *tracked,
                                      struct load_error *error)
{
    struct entry_reader reader = {
        .database = database, .builder = builder, .allocator = index, .tracked = tracked,
    };
    if (!reader_intern(&reader, "weight", 6, &reader.kind_weight) ||
        !reader_intern(&reader, "gradient", 8, &reader.kind_gradient) ||
        !reader_intern(&reader, "activation", 10, &reader.kind_activation)) {
        load_error_set(error, "out of memory");
        return LOAD_NO_MEMORY;
    }
    enum load_status status = reader_read_table(&reader, weight_sql, true, error);
    if (status == LOAD_OK)
        status = reader_read_table(&reader, activation_sql, false, error);
    free(reader.stack);
    return status;
}
