/* row_groups: the rows a table shows grouped by op scope (one level of
 * the name's path at a time, as ncdu walks a tree), by location and by
 * file, with totals and row counts, largest first; and the table's own
 * narrowing to one group, a least size and a filter over every text
 * field, which the groups follow. Rows are built by hand on any row
 * source: nothing here knows the peak. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "model/query/allocation_table.h"
#include "model/query/row_groups.h"
#include "model/string_table.h"
#include "tests/test_support.h"

struct spec {
    const char *op; /* NULL: an unresolved row */
    int64_t bytes;
    int64_t occurrences;
    const char *region;
    const char *location; /* "file:line", or NULL */
};

static const struct spec scoped_rows[] = {
    {"model/dense_1/MatMul", 400, 1, "output", NULL},
    {"model/dense_1/Relu", 100, 2, "temp", NULL},
    {"model/dense_2/MatMul", 300, 1, "output", NULL},
    {"gradients/model/dense_1/MatMul_grad/MatMul", 700, 1, "temp", NULL},
    {"loss", 50, 1, "output", NULL},
    {NULL, 0, 3, NULL, NULL},
    {"model/dense_2/Relu", 100, 1, "persist", NULL},
};

static const struct spec located_rows[] = {
    {"conv1.weight", 400, 1, NULL, "model/net.py:14"},
    {"conv1.weight", 400, 1, NULL, "model/net.py:14"},
    {"relu", 200, 1, NULL, "model/net.py:20"},
    {"add_", -50, 1, NULL, "model/net.py:20"}, /* size <= 0: a row, not counted */
    {"loss", 100, 1, NULL, "train.py:3"},
    {"bias", 10, 1, NULL, NULL}, /* no frame in the user's code */
};

/* PyTorch's leaf ops have no scope: one group per op name (issue 22). */
static const struct spec unscoped_rows[] = {
    {"aten::mm", 400, 1, NULL, NULL},
    {"aten::empty_strided", 300, 2, NULL, NULL},
    {"aten::mm", 100, 1, NULL, NULL},
    {"aten::mmx", 50, 1, NULL, NULL},
    {"aten::mm", 200, 1, NULL, NULL},
    {"model/dense/MatMul", 10, 1, NULL, NULL},
};

#define COUNT(array) (sizeof(array) / sizeof *(array))
#define ROWS_MAX 8

struct fixture {
    struct profile *profile;
    struct allocator allocator; /* only its peak: the share's whole */
    struct allocation_row rows[ROWS_MAX];
    struct allocation_table table;
};

static uint32_t intern(struct profile *profile, const char *text)
{
    return text ? string_table_intern(profile->strings, text, strlen(text)) : 0;
}

/* A table over hand-made rows (an "entry"-like source: any source will do). */
static struct fixture *fixture_new(const struct spec *specs, size_t count, bool entries)
{
    static struct fixture fixture;
    memset(&fixture, 0, sizeof fixture);
    fixture.profile = test_draft_finish(test_draft_new());
    fixture.allocator.summary.peak_bytes = 2000;
    assert_true(count <= ROWS_MAX);
    for (size_t i = 0; i < count; i++) {
        struct allocation_row *row = &fixture.rows[i];
        *row = (struct allocation_row){
            .origin = specs[i].op ? (entries ? ROW_FROM_ENTRY : ROW_FROM_SNAPSHOT)
                                  : ROW_UNRESOLVED,
            .snapshot_index = specs[i].op ? (int64_t)i : 99,
            .special_index = -1,
            .allocation_bytes = specs[i].bytes,
            .occurrences = specs[i].occurrences,
            .op_name = intern(fixture.profile, specs[i].op),
            .region_type = intern(fixture.profile, specs[i].region),
        };
        if (entries)
            row->kind = intern(fixture.profile, "activation");
        if (specs[i].location) {
            const char *location = specs[i].location;
            row->location = intern(fixture.profile, location);
            row->location_file = string_table_intern(fixture.profile->strings, location,
                                                     strcspn(location, ":"));
        }
    }
    struct allocation_row_source source = {.profile = fixture.profile,
                                           .allocator = &fixture.allocator,
                                           .rows = fixture.rows,
                                           .count = count,
                                           .label = "live at 1.000 ms"};
    assert_true(allocation_table_init_source(&fixture.table, &source));
    return &fixture;
}

static int setup_scoped(void **state)
{
    *state = fixture_new(scoped_rows, COUNT(scoped_rows), false);
    return 0;
}

static int setup_located(void **state)
{
    *state = fixture_new(located_rows, COUNT(located_rows), true);
    return 0;
}

static int setup_unscoped(void **state)
{
    *state = fixture_new(unscoped_rows, COUNT(unscoped_rows), false);
    return 0;
}

static int teardown(void **state)
{
    struct fixture *fixture = *state;
    allocation_table_free(&fixture->table);
    profile_free(fixture->profile);
    return 0;
}

/* The group at `index` is named `name` with these totals. */
static void assert_group(const struct row_groups *groups, size_t index, const char *name,
                         bool single_row, int64_t bytes, size_t rows)
{
    assert_true(index < groups->count);
    const struct row_group *group = &groups->groups[index];
    assert_int_equal(group->name_length, strlen(name));
    assert_memory_equal(group->name, name, group->name_length);
    assert_int_equal(group->single_row, single_row);
    assert_int_equal(group->bytes, bytes);
    assert_int_equal(group->row_count, rows);
}

/* The top level: the first scopes with their totals, and the rows in no
 * scope alone, largest first. */
static void test_scopes_at_the_top(void **state)
{
    struct fixture *fixture = *state;
    struct row_groups groups;
    assert_true(row_groups_build(&groups, &fixture->table, ROW_GROUP_OP_SCOPE, text_of("")));
    assert_int_equal(groups.count, 4);
    assert_int_equal(groups.group_count, 2);
    /* 400 + 100 x 2 + 300 + 100 */
    assert_group(&groups, 0, "model/", false, 1000, 4);
    assert_group(&groups, 1, "gradients/", false, 700, 1);
    assert_group(&groups, 2, "loss", true, 50, 1);
    assert_group(&groups, 3, "", true, 0, 1); /* the unresolved row */
    assert_int_equal(groups.total_bytes, 1750);
    /* Each group's first row, in the table's order. */
    assert_int_equal(groups.groups[0].first_position, 0);
    assert_int_equal(groups.groups[2].first_position, 4);
    row_groups_free(&groups);
}

/* Rows of one op without a scope are one group of its name (no key
 * repeats), an op with one row stays a row; the op's group holds that op
 * alone (not aten::mmx), and inside it its rows are rows. */
static void test_unscoped_ops_group_by_name(void **state)
{
    struct fixture *fixture = *state;
    struct row_groups groups;
    assert_true(row_groups_build(&groups, &fixture->table, ROW_GROUP_OP_SCOPE, text_of("")));
    assert_int_equal(groups.count, 4);
    assert_group(&groups, 0, "aten::mm", false, 700, 3);
    assert_group(&groups, 1, "aten::empty_strided", true, 600, 1);
    assert_group(&groups, 2, "aten::mmx", true, 50, 1);
    assert_group(&groups, 3, "model/", false, 10, 1);
    assert_int_equal(groups.group_count, 2);
    for (size_t i = 0; i < groups.count; i++)
        for (size_t j = i + 1; j < groups.count; j++)
            assert_false(groups.groups[i].name_length == groups.groups[j].name_length &&
                         memcmp(groups.groups[i].name, groups.groups[j].name,
                                groups.groups[i].name_length) == 0);
    row_groups_free(&groups);
    assert_true(allocation_table_set_within(&fixture->table, ROW_GROUP_OP_SCOPE,
                                            text_of("aten::mm")));
    assert_int_equal(fixture->table.count, 3);
    assert_true(row_groups_build(&groups, &fixture->table, ROW_GROUP_OP_SCOPE,
                                 text_of("aten::mm")));
    assert_int_equal(groups.count, 3);
    assert_int_equal(groups.group_count, 0);
    assert_group(&groups, 0, "aten::mm", true, 400, 1);
    row_groups_free(&groups);
}

/* One level down, then another; a scope with only ops in it has no
 * groups (the view then shows its rows). */
static void test_scopes_one_level_at_a_time(void **state)
{
    struct fixture *fixture = *state;
    struct row_groups groups;
    assert_true(row_groups_build(&groups, &fixture->table, ROW_GROUP_OP_SCOPE, text_of("model/")));
    assert_int_equal(groups.count, 2);
    assert_group(&groups, 0, "model/dense_1/", false, 600, 2);
    assert_group(&groups, 1, "model/dense_2/", false, 400, 2);
    row_groups_free(&groups);
    assert_true(row_groups_build(&groups, &fixture->table, ROW_GROUP_OP_SCOPE, text_of("model/dense_1/")));
    assert_int_equal(groups.group_count, 0);
    assert_group(&groups, 0, "model/dense_1/MatMul", true, 400, 1);
    assert_group(&groups, 1, "model/dense_1/Relu", true, 200, 1);
    row_groups_free(&groups);
    /* A scope that is not one: nothing under it. */
    assert_true(row_groups_build(&groups, &fixture->table, ROW_GROUP_OP_SCOPE, text_of("nothing/")));
    assert_int_equal(groups.count, 0);
    row_groups_free(&groups);
    /* No key: no groups. */
    assert_true(row_groups_build(&groups, &fixture->table, ROW_GROUP_NONE, text_of("")));
    assert_int_equal(groups.count, 0);
    row_groups_free(&groups);
}

/* The table narrowed to a scope shows its rows; the groups follow the
 * table's filter, least size and sort. */
static void test_groups_follow_the_table(void **state)
{
    struct fixture *fixture = *state;
    struct allocation_table *table = &fixture->table;
    assert_true(allocation_table_set_within(table, ROW_GROUP_OP_SCOPE, text_of("model/dense_1/")));
    assert_int_equal(table->count, 2);
    assert_true(allocation_table_narrowed(table));
    assert_int_equal(allocation_table_shown_bytes(table), 600);
    /* The unresolved row is in no scope but the top. */
    assert_true(allocation_table_set_within(table, ROW_GROUP_OP_SCOPE, text_of("")));
    assert_int_equal(table->count, COUNT(scoped_rows));
    assert_int_equal(table->unresolved_count, 1);
    assert_true(allocation_table_set_within(table, ROW_GROUP_NONE, text_of(NULL)));
    assert_false(allocation_table_narrowed(table));

    /* The filter reads the region too: "temp" keeps two rows. */
    assert_true(allocation_table_set_filter(table, "TEMP"));
    assert_int_equal(table->count, 2);
    assert_int_equal(table->unresolved_count, 0);
    struct row_groups groups;
    assert_true(row_groups_build(&groups, table, ROW_GROUP_OP_SCOPE, text_of("")));
    assert_int_equal(groups.count, 2);
    assert_group(&groups, 0, "gradients/", false, 700, 1);
    assert_group(&groups, 1, "model/", false, 200, 1);
    row_groups_free(&groups);
    assert_true(allocation_table_set_filter(table, ""));

    /* A least size: rows holding 300 bytes or more (the Relu's 100 x 2
     * is 200: hidden). */
    allocation_table_set_min_bytes(table, 300);
    assert_int_equal(table->count, 3);
    assert_true(allocation_table_narrowed(table));
    assert_true(row_groups_build(&groups, table, ROW_GROUP_OP_SCOPE, text_of("")));
    assert_group(&groups, 0, "gradients/", false, 700, 1);
    assert_group(&groups, 1, "model/", false, 700, 2);
    row_groups_free(&groups);
    allocation_table_set_min_bytes(table, 0);
    assert_int_equal(table->count, COUNT(scoped_rows));
}

/* Equal totals: by name, so the order never depends on anything else. */
static void test_equal_totals_by_name(void **state)
{
    (void)state;
    static const struct spec specs[] = {
        {"b/x", 100, 1, NULL, NULL}, {"a/x", 100, 1, NULL, NULL}, {"c", 100, 1, NULL, NULL}};
    struct fixture *fixture = fixture_new(specs, COUNT(specs), false);
    struct row_groups groups;
    assert_true(row_groups_build(&groups, &fixture->table, ROW_GROUP_OP_SCOPE, text_of(NULL)));
    assert_group(&groups, 0, "a/", false, 100, 1);
    assert_group(&groups, 1, "b/", false, 100, 1);
    assert_group(&groups, 2, "c", true, 100, 1);
    row_groups_free(&groups);
    teardown((void **)&fixture);
}

/* Skyline's rows by line of code and by file: the heavy line first; a
 * size <= 0 is a row of its group but adds nothing; a row without a
 * frame has a group of its own with no name. */
static void test_locations_and_files(void **state)
{
    struct fixture *fixture = *state;
    struct row_groups groups;
    assert_true(row_groups_build(&groups, &fixture->table, ROW_GROUP_LOCATION, text_of("")));
    assert_int_equal(groups.count, 4);
    assert_int_equal(groups.group_count, 4);
    assert_group(&groups, 0, "model/net.py:14", false, 800, 2);
    assert_group(&groups, 1, "model/net.py:20", false, 200, 2);
    assert_group(&groups, 2, "train.py:3", false, 100, 1);
    assert_group(&groups, 3, "", false, 10, 1);
    row_groups_free(&groups);
    assert_true(row_groups_build(&groups, &fixture->table, ROW_GROUP_FILE, text_of("")));
    assert_int_equal(groups.count, 3);
    assert_group(&groups, 0, "model/net.py", false, 1000, 4);
    assert_group(&groups, 1, "train.py", false, 100, 1);
    row_groups_free(&groups);
    /* Opened: the table shows that file's rows. */
    assert_true(allocation_table_set_within(&fixture->table, ROW_GROUP_FILE, text_of("model/net.py")));
    assert_int_equal(fixture->table.count, 4);
    assert_int_equal(allocation_table_shown_bytes(&fixture->table), 1000);
    assert_true(allocation_table_set_within(&fixture->table, ROW_GROUP_LOCATION, text_of("")));
    assert_int_equal(fixture->table.count, 1); /* the row without a frame */
}

/* PyTorch's rows (issue 22): by whole op name, by module, by the
 * function of the location; each key recorded only where a row has it. */
static void test_op_module_function(void **state)
{
    struct fixture *fixture = *state;
    struct profile *profile = fixture->profile;
    /* Locations as Kineto's rows have them, "file:line function"; a module on two rows. */
    const char *locations[] = {"train.py:15 step", "train.py:15 step", "model.py:7 forward",
                               NULL, "model.py:9 forward", NULL};
    for (size_t i = 0; i < COUNT(locations); i++) {
        if (!locations[i])
            continue;
        fixture->rows[i].location = intern(profile, locations[i]);
        fixture->rows[i].location_file = string_table_intern(profile->strings, locations[i],
                                                            strcspn(locations[i], ":"));
    }
    fixture->rows[0].module = intern(profile, "Linear_1");
    fixture->rows[2].module = intern(profile, "Linear_1");
    struct allocation_table *table = &fixture->table;
    assert_true(row_group_key_recorded(table, ROW_GROUP_OP));
    assert_true(row_group_key_recorded(table, ROW_GROUP_MODULE));
    assert_true(row_group_key_recorded(table, ROW_GROUP_FUNCTION));
    struct row_groups groups;
    /* By op: aten::mm is one group, aten::mmx another, the scoped op whole. */
    assert_true(row_groups_build(&groups, table, ROW_GROUP_OP, text_of("")));
    assert_int_equal(groups.count, 4);
    assert_group(&groups, 0, "aten::mm", false, 700, 3);
    assert_group(&groups, 1, "aten::empty_strided", false, 600, 1);
    assert_group(&groups, 2, "aten::mmx", false, 50, 1);
    assert_group(&groups, 3, "model/dense/MatMul", false, 10, 1);
    assert_int_equal(groups.groups[0].key, ROW_GROUP_OP);
    row_groups_free(&groups);
    /* By module: Linear_1 (rows 0 and 2), the rest nameless. */
    assert_true(row_groups_build(&groups, table, ROW_GROUP_MODULE, text_of("")));
    assert_int_equal(groups.count, 2);
    assert_group(&groups, 0, "", false, 860, 4);
    assert_group(&groups, 1, "Linear_1", false, 500, 2);
    row_groups_free(&groups);
    /* By function: step (rows 0, 1), forward (rows 2, 4, two files), none. */
    assert_true(row_groups_build(&groups, table, ROW_GROUP_FUNCTION, text_of("")));
    assert_int_equal(groups.count, 3);
    assert_group(&groups, 0, "step", false, 1000, 2);
    assert_group(&groups, 1, "forward", false, 300, 2);
    assert_group(&groups, 2, "", false, 60, 2);
    row_groups_free(&groups);
    assert_true(row_group_contains(profile, ROW_GROUP_FUNCTION, text_of("forward"),
                                   &fixture->rows[4]));
    assert_true(row_group_contains(profile, ROW_GROUP_OP, text_of("aten::mm"), &fixture->rows[2]));
    assert_false(row_group_contains(profile, ROW_GROUP_OP, text_of("aten::mm"), &fixture->rows[3]));
    assert_true(row_group_contains(profile, ROW_GROUP_MODULE, text_of("Linear_1"),
                                   &fixture->rows[0]));
    assert_string_equal(row_group_empty_name(ROW_GROUP_MODULE), "(no module)");
}

/* XProf's rows record no module, location or function: only scope and op. */
static void test_recorded_keys(void **state)
{
    struct fixture *fixture = *state;
    assert_true(row_group_key_recorded(&fixture->table, ROW_GROUP_OP_SCOPE));
    assert_true(row_group_key_recorded(&fixture->table, ROW_GROUP_OP));
    assert_false(row_group_key_recorded(&fixture->table, ROW_GROUP_MODULE));
    assert_false(row_group_key_recorded(&fixture->table, ROW_GROUP_LOCATION));
    assert_false(row_group_key_recorded(&fixture->table, ROW_GROUP_FILE));
    assert_false(row_group_key_recorded(&fixture->table, ROW_GROUP_FUNCTION));
}

/* Skyline's "file:line" names no function. */
static void test_skyline_has_no_function(void **state)
{
    struct fixture *fixture = *state;
    assert_true(row_group_key_recorded(&fixture->table, ROW_GROUP_LOCATION));
    assert_false(row_group_key_recorded(&fixture->table, ROW_GROUP_FUNCTION));
}

static void test_membership(void **state)
{
    struct fixture *fixture = *state;
    const struct profile *profile = fixture->profile;
    const struct allocation_row *rows = fixture->rows;
    assert_true(row_group_contains(profile, ROW_GROUP_OP_SCOPE, text_of("model/"), &rows[0]));
    assert_true(row_group_contains(profile, ROW_GROUP_OP_SCOPE, text_of(""), &rows[0]));
    assert_false(row_group_contains(profile, ROW_GROUP_OP_SCOPE, text_of("gradients/"), &rows[0]));
    assert_false(row_group_contains(profile, ROW_GROUP_OP_SCOPE, text_of("model/"), &rows[5]));
    assert_true(row_group_contains(profile, ROW_GROUP_OP_SCOPE, text_of(""), &rows[5]));
    assert_true(row_group_contains(profile, ROW_GROUP_NONE, text_of("anything"), &rows[5]));
    assert_false(row_group_contains(profile, ROW_GROUP_LOCATION, text_of("x.py:1"), &rows[0]));
    assert_true(row_group_contains(profile, ROW_GROUP_FILE, text_of(""), &rows[0]));
}

static void test_keys_and_scopes(void **state)
{
    (void)state;
    enum row_group_key key = ROW_GROUP_NONE;
    for (int k = 0; k < ROW_GROUP_KEY_COUNT; k++) {
        assert_true(row_group_key_parse(row_group_key_name((enum row_group_key)k), &key));
        assert_int_equal(key, k);
    }
    assert_string_equal(row_group_key_name(ROW_GROUP_OP_SCOPE), "scope");
    assert_false(row_group_key_parse("op_name", &key));
    assert_non_null(strstr(row_group_key_list(), "location"));
    assert_string_equal(row_group_key_list(), "scope, op, module, location, file, function");
    char scope[64] = "gradients/model/dense_1/";
    scope[row_group_scope_up(text_of(scope))] = '\0';
    assert_string_equal(scope, "gradients/model/");
    scope[row_group_scope_up(text_of(scope))] = '\0';
    assert_string_equal(scope, "gradients/");
    scope[row_group_scope_up(text_of(scope))] = '\0';
    assert_string_equal(scope, "");
    scope[row_group_scope_up(text_of(scope))] = '\0';
    assert_string_equal(scope, "");
    strcpy(scope, "a//");
    scope[row_group_scope_up(text_of(scope))] = '\0';
    assert_string_equal(scope, "a/");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_scopes_at_the_top, setup_scoped, teardown),
        cmocka_unit_test_setup_teardown(test_unscoped_ops_group_by_name, setup_unscoped,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_scopes_one_level_at_a_time, setup_scoped,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_groups_follow_the_table, setup_scoped, teardown),
        cmocka_unit_test(test_equal_totals_by_name),
        cmocka_unit_test_setup_teardown(test_locations_and_files, setup_located, teardown),
        cmocka_unit_test_setup_teardown(test_membership, setup_scoped, teardown),
        cmocka_unit_test(test_keys_and_scopes),
        cmocka_unit_test_setup_teardown(test_op_module_function, setup_unscoped, teardown),
        cmocka_unit_test_setup_teardown(test_recorded_keys, setup_scoped, teardown),
        cmocka_unit_test_setup_teardown(test_skyline_has_no_function, setup_located, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
