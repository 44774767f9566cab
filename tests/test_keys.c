/* keys: the one key table behind dispatch, help and --list-keys. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curses.h>

#include "ui/keys.h"

static void test_every_request_has_a_key(void **state)
{
    (void)state;
    size_t count;
    const struct key_binding *table = keys_table(&count);
    for (int request = REQUEST_NONE + 1; request < REQUEST_COUNT; request++) {
        bool bound = false;
        for (size_t i = 0; i < count; i++)
            if ((int)table[i].request == request && table[i].codes[0] != 0)
                bound = true;
        if (!bound)
            fail_msg("request %d has no key", request);
    }
}

/* A key may appear in several scopes (for help), but always asking for
 * the same request: dispatch must not depend on which row it finds. */
static void test_a_key_means_one_request(void **state)
{
    (void)state;
    size_t count;
    const struct key_binding *table = keys_table(&count);
    for (size_t i = 0; i < count; i++) {
        assert_non_null(table[i].label);
        assert_non_null(table[i].help);
        assert_true(table[i].scope < KEY_SCOPE_COUNT);
        for (size_t k = 0; k < KEY_BINDING_CODES && table[i].codes[k]; k++)
            assert_int_equal(keys_request_for(table[i].codes[k]), table[i].request);
    }
}

static void test_the_keys_people_expect(void **state)
{
    (void)state;
    assert_int_equal(keys_request_for('q'), REQUEST_QUIT);
    assert_int_equal(keys_request_for('?'), REQUEST_HELP);
    assert_int_equal(keys_request_for(KEY_CODE_ESCAPE), REQUEST_CANCEL);
    assert_int_equal(keys_request_for(KEY_CODE_CONTROL('l')), REQUEST_REDRAW);
    assert_int_equal(keys_request_for('\t'), REQUEST_FOCUS_NEXT);
    assert_int_equal(keys_request_for(KEY_BTAB), REQUEST_FOCUS_PREVIOUS);
    assert_int_equal(keys_request_for(']'), REQUEST_ALLOCATOR_NEXT);
    assert_int_equal(keys_request_for('['), REQUEST_ALLOCATOR_PREVIOUS);
    assert_int_equal(keys_request_for('k'), REQUEST_MOVE_UP);
    assert_int_equal(keys_request_for(KEY_DOWN), REQUEST_MOVE_DOWN);
    assert_int_equal(keys_request_for('h'), REQUEST_MOVE_LEFT);
    assert_int_equal(keys_request_for(KEY_RIGHT), REQUEST_MOVE_RIGHT);
    assert_int_equal(keys_request_for(KEY_NPAGE), REQUEST_PAGE_DOWN);
    assert_int_equal(keys_request_for(KEY_HOME), REQUEST_FIRST);
    assert_int_equal(keys_request_for('g'), REQUEST_GO_TO);
    assert_int_equal(keys_request_for(KEY_END), REQUEST_LAST);
    assert_int_equal(keys_request_for('\r'), REQUEST_ENTER);
    assert_int_equal(keys_request_for('='), REQUEST_ZOOM_IN);
    assert_int_equal(keys_request_for('-'), REQUEST_ZOOM_OUT);
    assert_int_equal(keys_request_for('0'), REQUEST_ZOOM_RESET);
    assert_int_equal(keys_request_for('p'), REQUEST_JUMP_PEAK);
    assert_int_equal(keys_request_for('f'), REQUEST_TOGGLE_FREE);
    assert_int_equal(keys_request_for('F'), REQUEST_TOGGLE_FRAGMENTATION);
    assert_int_equal(keys_request_for('s'), REQUEST_SORT_NEXT);
    assert_int_equal(keys_request_for('r'), REQUEST_SORT_REVERSE);
    assert_int_equal(keys_request_for('/'), REQUEST_FILTER);
    assert_int_equal(keys_request_for('n'), REQUEST_MATCH_NEXT);
    assert_int_equal(keys_request_for('N'), REQUEST_MATCH_PREVIOUS);
    assert_int_equal(keys_request_for('e'), REQUEST_EXPORT);
    assert_int_equal(keys_request_for('L'), REQUEST_LIVE_TOGGLE);
    assert_int_equal(keys_request_for('m'), REQUEST_MARK);
    assert_int_equal(keys_request_for('b'), REQUEST_STEP_BOUNDARIES);
    assert_int_equal(keys_request_for('x'), REQUEST_NONE);
    assert_int_equal(keys_request_for(0), REQUEST_NONE);
}

static void test_scopes(void **state)
{
    (void)state;
    assert_int_equal(keys_scope_of(REQUEST_QUIT), KEY_SCOPE_GLOBAL);
    assert_int_equal(keys_scope_of(REQUEST_ALLOCATOR_NEXT), KEY_SCOPE_GLOBAL);
    assert_int_equal(keys_scope_of(REQUEST_MOVE_UP), KEY_SCOPE_PANE);
    assert_int_equal(keys_scope_of(REQUEST_JUMP_PEAK), KEY_SCOPE_CHART);
    assert_int_equal(keys_scope_of(REQUEST_FILTER), KEY_SCOPE_TABLE);
    assert_int_equal(keys_scope_of(REQUEST_LIVE_TOGGLE), KEY_SCOPE_TABLE);
    assert_int_equal(keys_scope_of(REQUEST_MARK), KEY_SCOPE_CHART);
    assert_int_equal(keys_scope_of(REQUEST_ENTER), KEY_SCOPE_HOSTS);
    for (int scope = 0; scope < KEY_SCOPE_COUNT; scope++)
        assert_true(strlen(keys_scope_name((enum key_scope)scope)) > 0);
}

static void test_markdown_lists_every_binding(void **state)
{
    (void)state;
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    assert_non_null(out);
    keys_print_markdown(out);
    assert_int_equal(fclose(out), 0);
    assert_non_null(strstr(text, "### Anywhere\n\n| Key | Action |\n|---|---|\n"));
    assert_non_null(strstr(text, "| `q` | quit |\n"));
    assert_non_null(strstr(text, "| `Up`, `k` | move up |\n"));
    assert_non_null(strstr(text, "| `+`, `=` | zoom in"));
    size_t count, rows = 0;
    const struct key_binding *table = keys_table(&count);
    for (const char *line = text; (line = strstr(line, "\n| `")); line++)
        rows++;
    assert_int_equal(rows, count);
    for (size_t i = 0; i < count; i++)
        assert_non_null(strstr(text, table[i].help));
    free(text);
}

/* The status line's hints come from the table: short, one per thing a
 * pane's keys do, in the table's order, then a few global keys. */
static void test_hints_come_from_the_table(void **state)
{
    (void)state;
    size_t count;
    const struct key_binding *table = keys_table(&count);
    bool hinted[KEY_SCOPE_COUNT] = {false};
    for (size_t i = 0; i < count; i++) {
        if (!table[i].hint)
            continue;
        assert_true(strlen(table[i].hint) > 2 && strlen(table[i].hint) <= 30);
        hinted[table[i].scope] = true;
    }
    for (int scope = 0; scope < KEY_SCOPE_COUNT; scope++)
        if (!hinted[scope])
            fail_msg("scope %s has no hint", keys_scope_name((enum key_scope)scope));

    char line[256];
    const enum key_scope table_scopes[] = {KEY_SCOPE_PANE, KEY_SCOPE_TABLE};
    const enum request globals[] = {REQUEST_FOCUS_NEXT, REQUEST_ALLOCATOR_NEXT, REQUEST_HELP};
    keys_hint_line(table_scopes, 2, globals, 3, NULL, line, sizeof line);
    assert_string_equal(line, "j/k move  s sort  r reverse  / filter  Enter detail  t group  "
                              "h/l scroll  H hide small  L live  Tab pane  [ ] allocator  ? help");
    /* The allocators list says what its Enter does, not the hosts'. */
    const enum key_scope allocator_scopes[] = {KEY_SCOPE_PANE, KEY_SCOPE_ALLOCATORS};
    keys_hint_line(allocator_scopes, 2, globals, 1, "Tab HLO modules", line, sizeof line);
    assert_string_equal(line, "j/k move  Enter table  Tab HLO modules");
    const enum key_scope host_scopes[] = {KEY_SCOPE_HOSTS};
    keys_hint_line(host_scopes, 1, NULL, 0, NULL, line, sizeof line);
    assert_string_equal(line, "Enter open host");
    /* A short buffer is cut, not overrun. */
    char short_line[12];
    keys_hint_line(table_scopes, 2, globals, 3, NULL, short_line, sizeof short_line);
    assert_string_equal(short_line, "j/k move  s");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_request_has_a_key),
        cmocka_unit_test(test_a_key_means_one_request),
        cmocka_unit_test(test_the_keys_people_expect),
        cmocka_unit_test(test_scopes),
        cmocka_unit_test(test_markdown_lists_every_binding),
        cmocka_unit_test(test_hints_come_from_the_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
