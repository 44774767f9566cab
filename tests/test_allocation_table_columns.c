/* test_allocation_table_columns: what the peak is made of (breakdowns by
 * region and type, many groups), rows from another source, the column
 * table and its values, and entry rows (tests/test_allocation_table). */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "model/profile.h"
#include "model/string_table.h"
#include "tests/test_support.h"
#include "model/query/allocation_table.h"
#include "model/query/peak_breakdown.h"

#include "tests/test_allocation_table.h"

/* ---- what the peak is made of ---- */

static void assert_breakdown(const struct allocation_table *table, enum breakdown_key key,
                             const struct expected_group *expected, size_t count, int64_t total)
{
    struct peak_breakdown breakdown;
    assert_true(peak_breakdown_build(&breakdown, table, key));
    assert_int_equal(breakdown.count, count);
    for (size_t i = 0; i < count; i++) {
        assert_string_equal(profile_text(table->profile, breakdown.groups[i].name),
                            expected[i].name);
        assert_int_equal(breakdown.groups[i].bytes, expected[i].bytes);
    }
    assert_int_equal(breakdown.total_bytes, total);
    assert_int_equal(breakdown.total_bytes, allocation_table_shown_bytes(table));
    peak_breakdown_free(&breakdown);
}

void test_breakdown_by_region_and_type(void **state)
{
    struct allocation_table *table = &((struct fixture *)*state)->table;
    /* Largest first, equal sizes by name; the unresolved row has neither
     * region nor type and counts 0 bytes. */
    static const struct expected_group regions[] = {
        {"temp", 400 * 2 + 900}, {"output", 400 + 100}, {"persist", 100 * 5}, {"", 0}};
    assert_breakdown(table, BREAKDOWN_BY_REGION, regions, 4, 2700);
    static const struct expected_group types[] = {
        {"float", 400 + 100 * 5 + 900}, {"half", 400 * 2}, {"bfloat16", 100}, {"", 0}};
    assert_breakdown(table, BREAKDOWN_BY_DATA_TYPE, types, 4, 2700);
    /* The table's sort changes nothing; its filter picks the rows. */
    allocation_table_set_sort(table, TABLE_COLUMN_OP_NAME, false);
    assert_breakdown(table, BREAKDOWN_BY_REGION, regions, 4, 2700);
    assert_true(allocation_table_set_filter(table, "CONV"));
    static const struct expected_group conv[] = {{"temp", 800}, {"output", 400}};
    assert_breakdown(table, BREAKDOWN_BY_REGION, conv, 2, 1200);
    assert_true(allocation_table_set_filter(table, "no such op"));
    assert_breakdown(table, BREAKDOWN_BY_REGION, NULL, 0, 0);
}

/* A hostile file: every row its own data type, sizes in no order. */
void test_breakdown_of_many_groups(void **state)
{
    (void)state;
    enum { ROWS = 3000 };
    static struct row_spec specs[ROWS];
    static char types[ROWS][16];
    for (size_t i = 0; i < ROWS; i++) {
        snprintf(types[i], sizeof types[i], "type%zu", i);
        specs[i] = (struct row_spec){"op", (int64_t)((i * 7919) % ROWS), 1, 1, "temp", types[i],
                                     "[1]"};
    }
    struct profile *profile = profile_with_rows(specs, ROWS);
    struct allocation_table table;
    assert_true(allocation_table_init_xprof(&table, profile, &profile->allocators[0]));
    struct peak_breakdown breakdown;
    assert_true(peak_breakdown_build(&breakdown, &table, BREAKDOWN_BY_DATA_TYPE));
    assert_int_equal(breakdown.count, ROWS);
    /* 7919 is prime to 3000: the sizes are 0..2999, each once. */
    for (size_t i = 0; i < ROWS; i++)
        assert_int_equal(breakdown.groups[i].bytes, ROWS - 1 - (int64_t)i);
    assert_int_equal(breakdown.total_bytes, (int64_t)ROWS * (ROWS - 1) / 2);
    peak_breakdown_free(&breakdown);
    assert_true(peak_breakdown_build(&breakdown, &table, BREAKDOWN_BY_REGION));
    assert_int_equal(breakdown.count, 1);
    assert_int_equal(breakdown.groups[0].bytes, (int64_t)ROWS * (ROWS - 1) / 2);
    peak_breakdown_free(&breakdown);
    allocation_table_free(&table);
    profile_free(profile);
}

/* ---- rows from a source; the column table ---- */

/* Rows that are not an allocator's rows at its peak (as rows computed on
 * the fly will be): the table sorts, filters and totals them the same. */
void test_rows_from_another_source(void **state)
{
    struct fixture *fixture = *state;
    const struct allocator *allocator = &fixture->profile->allocators[0];
    /* Rows 5, 2 and 0 of the file, in that order. */
    struct allocation_row rows[3] = {allocator->xprof_rows[5], allocator->xprof_rows[2],
                                     allocator->xprof_rows[0]};
    struct allocation_row_source source = {
        .profile = fixture->profile, .rows = rows, .count = 3, .label = "grown since the mark"};
    struct allocation_table table;
    assert_true(allocation_table_init_source(&table, &source));
    assert_string_equal(table.source.label, "grown since the mark");
    assert_null(table.allocator);
    assert_int_equal(allocation_table_total(&table), 3);
    assert_ptr_equal(allocation_table_row(&table, 0), &rows[0]); /* the source's order */
    allocation_table_set_sort(&table, TABLE_COLUMN_ALLOCATION_BYTES, false);
    assert_ptr_equal(allocation_table_row(&table, 0), &rows[1]); /* MatMul, 100 */
    assert_ptr_equal(allocation_table_row(&table, 2), &rows[0]); /* matmul_grad, 900 */
    assert_true(allocation_table_set_filter(&table, "matmul"));
    assert_int_equal(table.count, 2);
    assert_int_equal(allocation_table_shown_bytes(&table), 100 * 5 + 900);
    allocation_table_free(&table);

    struct allocation_row_source at_peak = allocation_rows_at_peak(fixture->profile, allocator);
    /* A version 0 file: the live set at the peak (issue 22). */
    assert_string_equal(at_peak.label, "live at peak");
    assert_ptr_equal(at_peak.rows, allocator->rows);
    assert_int_equal(at_peak.count, allocator->row_count);
}

/* One table of columns, in the CSV's order; the first TABLE_COLUMN_COUNT
 * are the sortable ones, each with a name, a heading and a comparison. */
void test_column_table(void **state)
{
    (void)state;
    const struct allocation_column_info *columns = allocation_columns();
    char header[512] = "";
    for (int id = 0; id < ALLOCATION_COLUMN_COUNT; id++) {
        assert_ptr_equal(allocation_column((enum table_column)id), &columns[id]);
        assert_int_equal(columns[id].id, id);
        assert_non_null(columns[id].value);
        assert_true(columns[id].name[0] && columns[id].csv_name[0]);
        /* Kind, location, total and share came after the CSV's other
         * columns, and sort. */
        bool sortable = id < TABLE_COLUMN_COUNT || id == TABLE_COLUMN_KIND ||
                        id == TABLE_COLUMN_LOCATION || id == TABLE_COLUMN_TOTAL_BYTES ||
                        id == TABLE_COLUMN_SHARE;
        assert_int_equal(allocation_column_sortable((enum table_column)id), sortable);
        assert_int_equal(columns[id].compare != NULL, sortable);
        enum table_column found = TABLE_COLUMN_FILE_ORDER;
        assert_true(allocation_column_find(columns[id].csv_name, strlen(columns[id].csv_name),
                                           &found));
        assert_int_equal(found, id);
        /* One short name each, which finds the column too, and names
         * no other column's CSV name. */
        found = TABLE_COLUMN_FILE_ORDER;
        assert_true(allocation_column_find(columns[id].name, strlen(columns[id].name), &found));
        assert_int_equal(found, id);
        for (int other = 0; other < ALLOCATION_COLUMN_COUNT; other++)
            if (other != id)
                assert_true(strcmp(columns[id].name, columns[other].name) != 0 &&
                            strcmp(columns[id].name, columns[other].csv_name) != 0);
        snprintf(header + strlen(header), sizeof header - strlen(header), "%s%s", id ? "," : "",
                 columns[id].csv_name);
    }
    assert_string_equal(header, "op_name,allocation_bytes,requested_bytes,occurrences,"
                                "region_type,data_type,tensor_shape,step_id,time_ps,address,"
                                "activity,origin,snapshot_index,special_index,kind,location,"
                                "stack,total_bytes,share,context,module");
    assert_null(allocation_column(TABLE_COLUMN_FILE_ORDER));
    assert_null(allocation_column(ALLOCATION_COLUMN_COUNT));
    assert_true(allocation_column_sortable(TABLE_COLUMN_FILE_ORDER));
    enum table_column found;
    assert_false(allocation_column_find("op_nam", 6, &found));
    /* The header says what the status line and --sort say. */
    assert_string_equal(allocation_column(TABLE_COLUMN_ALLOCATION_BYTES)->name, "size");
    assert_string_equal(allocation_table_column_name(TABLE_COLUMN_ALLOCATION_BYTES), "size");
    assert_string_equal(allocation_table_column_name(TABLE_COLUMN_OCCURRENCES), "count");
    assert_string_equal(allocation_table_column_name(TABLE_COLUMN_OP_NAME), "op");
    assert_string_equal(allocation_table_column_name(TABLE_COLUMN_FILE_ORDER), "file order");
    assert_true(allocation_column_find("size", 4, &found));
    assert_int_equal(found, TABLE_COLUMN_ALLOCATION_BYTES);
    assert_true(allocation_column_find("total", 5, &found));
    assert_int_equal(found, TABLE_COLUMN_TOTAL_BYTES);
}

/* Values as the CSV writes them: raw numbers, the profile's text, an
 * absent time for rows without one. */
void test_column_values(void **state)
{
    struct fixture *fixture = *state;
    const struct allocation_row *row = &fixture->profile->allocators[0].xprof_rows[1];
    struct allocation_context context = {fixture->profile, 2700, NULL};
    struct allocation_value value = allocation_column(TABLE_COLUMN_OP_NAME)->value(&context, row);
    assert_string_equal(value.text.bytes, "conv2d_1");
    value = allocation_column(TABLE_COLUMN_OCCURRENCES)->value(&context, row);
    assert_int_equal(value.integer, 2);
    value = allocation_column(TABLE_COLUMN_ORIGIN)->value(&context, row);
    assert_string_equal(value.text.bytes, "snapshot");
    value = allocation_column(TABLE_COLUMN_TIME_PS)->value(&context, row);
    assert_false(value.absent);
    /* What the row holds: 400 bytes twice, 800 of the 2700 of the peak. */
    value = allocation_column(TABLE_COLUMN_TOTAL_BYTES)->value(&context, row);
    assert_int_equal(value.integer, 800);
    value = allocation_column(TABLE_COLUMN_SHARE)->value(&context, row);
    assert_false(value.absent);
    assert_true(value.fraction > 800.0 / 2700.0 - 1e-12 && value.fraction < 800.0 / 2700.0 + 1e-12);
    context.peak_bytes = 0; /* no peak known: no share */
    assert_true(allocation_column(TABLE_COLUMN_SHARE)->value(&context, row).absent);
    const struct allocation_row *unresolved = &fixture->profile->allocators[0].xprof_rows[3];
    value = allocation_column(TABLE_COLUMN_TIME_PS)->value(&context, unresolved);
    assert_true(value.absent);
    value = allocation_column(TABLE_COLUMN_ORIGIN)->value(&context, unresolved);
    assert_string_equal(value.text.bytes, "unresolved");
    /* The table's context: its allocator's peak. */
    context = allocation_table_context(&fixture->table);
    assert_ptr_equal(context.profile, fixture->profile);
    assert_int_equal(context.peak_bytes, fixture->profile->allocators[0].summary.peak_bytes);
}

/* Rows of a report without a timeline (Skyline's): kind and location
 * filled, the snapshot's columns empty; location sorts by file, then by
 * line as a number; the sort key's cycle passes over the columns no row
 * fills, in either kind of table. */
void test_entry_rows(void **state)
{
    struct fixture *fixture = *state;
    struct profile *profile = fixture->profile;
    struct string_table *strings = profile->strings;
    uint32_t weight = string_table_intern(strings, "weight", 6);
    struct allocation_row rows[3];
    const char *const locations[] = {"model.py:10", "model.py:9", "a.py:100"};
    const int64_t lines[] = {10, 9, 100};
    for (size_t i = 0; i < 3; i++) {
        const char *location = locations[i];
        rows[i] = (struct allocation_row){
            .origin = ROW_FROM_ENTRY, .snapshot_index = -1, .special_index = -1,
            .occurrences = 1, .allocation_bytes = 100, .op_name = weight, .kind = weight,
            .location = string_table_intern(strings, location, strlen(location)),
            .location_file = string_table_intern(strings, location, strcspn(location, ":")),
            .location_line = lines[i],
            .stack = string_table_intern(strings, location, strlen(location))};
    }
    static const enum table_column empty[] = {
        TABLE_COLUMN_REQUESTED_BYTES, TABLE_COLUMN_OCCURRENCES, TABLE_COLUMN_STEP_ID,
        TABLE_COLUMN_ADDRESS,         TABLE_COLUMN_ACTIVITY,    TABLE_COLUMN_SNAPSHOT_INDEX,
        TABLE_COLUMN_SPECIAL_INDEX,   TABLE_COLUMN_TIME_PS,
    };
    struct allocation_context context = {profile, 1000, NULL};
    for (size_t i = 0; i < sizeof empty / sizeof *empty; i++)
        assert_true(allocation_column(empty[i])->value(&context, &rows[0]).absent);
    assert_string_equal(allocation_column(TABLE_COLUMN_ORIGIN)->value(&context, &rows[0]).text.bytes,
                        "entry");
    assert_string_equal(allocation_column(TABLE_COLUMN_KIND)->value(&context, &rows[0]).text.bytes,
                        "weight");

    struct allocation_row_source source = {
        .profile = profile, .rows = rows, .count = 3, .label = "in the report"};
    struct allocation_table table;
    assert_true(allocation_table_init_source(&table, &source));
    /* A size <= 0 (a view, an in-place op) is not counted in the total. */
    assert_int_equal(allocation_table_shown_bytes(&table), 300);
    rows[1].allocation_bytes = -50;
    assert_true(allocation_row_is_uncounted(&rows[1]));
    assert_false(allocation_row_is_uncounted(&fixture->profile->allocators[0].rows[0]));
    assert_int_equal(allocation_table_shown_bytes(&table), 200);
    rows[1].allocation_bytes = 100;
    allocation_table_set_sort(&table, TABLE_COLUMN_LOCATION, false);
    assert_ptr_equal(allocation_table_row(&table, 0), &rows[2]); /* a.py */
    assert_ptr_equal(allocation_table_row(&table, 1), &rows[1]); /* model.py:9 */
    assert_ptr_equal(allocation_table_row(&table, 2), &rows[0]); /* model.py:10 */
    assert_true(allocation_table_column_filled(&table, TABLE_COLUMN_KIND));
    assert_false(allocation_table_column_filled(&table, TABLE_COLUMN_REGION_TYPE));
    assert_false(allocation_table_column_filled(&table, TABLE_COLUMN_REQUESTED_BYTES));
    /* An entry's total is its size (no occurrences: one tensor). */
    assert_int_equal(allocation_column(TABLE_COLUMN_TOTAL_BYTES)->value(&context, &rows[0]).integer,
                     100);
    /* No allocator, so no peak: no share either. */
    static const enum table_column entry_steps[] = {
        TABLE_COLUMN_ALLOCATION_BYTES, TABLE_COLUMN_TOTAL_BYTES, TABLE_COLUMN_KIND,
        TABLE_COLUMN_LOCATION, TABLE_COLUMN_OP_NAME, TABLE_COLUMN_FILE_ORDER};
    enum table_column column = TABLE_COLUMN_FILE_ORDER;
    for (size_t i = 0; i < sizeof entry_steps / sizeof *entry_steps; i++) {
        column = allocation_table_step_sort(&table, view_order, VIEW_ORDER_COUNT, column, 1);
        assert_int_equal(column, entry_steps[i]);
    }
    /* Location groups and the filter by location. */
    assert_true(allocation_table_set_filter(&table, "MODEL.PY"));
    assert_int_equal(table.count, 2);
    assert_true(allocation_table_set_filter(&table, ""));
    assert_true(allocation_table_set_within(&table, ROW_GROUP_FILE, text_of("model.py")));
    assert_int_equal(table.count, 2);
    assert_true(allocation_table_set_within(&table, ROW_GROUP_LOCATION, text_of("a.py:100")));
    assert_int_equal(table.count, 1);
    assert_ptr_equal(allocation_table_row(&table, 0), &rows[2]);
    allocation_table_free(&table);

    /* The XProf file's table: no kind, no location. */
    assert_false(allocation_table_column_filled(&fixture->table, TABLE_COLUMN_KIND));
    assert_false(allocation_table_column_filled(&fixture->table, TABLE_COLUMN_LOCATION));
    assert_int_equal(allocation_table_step_sort(&fixture->table, view_order, VIEW_ORDER_COUNT,
                                                TABLE_COLUMN_TENSOR_SHAPE, 1),
                     TABLE_COLUMN_OP_NAME);
    assert_int_equal(allocation_table_step_sort(&fixture->table, view_order, VIEW_ORDER_COUNT,
                                                TABLE_COLUMN_OP_NAME, 1),
                     TABLE_COLUMN_FILE_ORDER);
}
