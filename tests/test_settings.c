/* settings: the viewer's remembered choices, a key=value file read
 * tolerantly and written atomically in $XDG_STATE_HOME/memtop/. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/test_support.h"
#include "ui/settings.h"

static char *file_in_test_directory(const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", test_directory(), name);
    return path;
}

static void write_text(const char *path, const char *text, size_t size)
{
    FILE *file = fopen(path, "wb");
    assert_non_null(file);
    assert_int_equal(fwrite(text, 1, size, file), size);
    fclose(file);
}

static void test_where_the_file_is(void **state)
{
    (void)state;
    char path[256];
    setenv("XDG_STATE_HOME", "/state", 1);
    setenv("HOME", "/home/me", 1);
    assert_true(settings_path(path, sizeof path));
    assert_string_equal(path, "/state/memtop/settings");
    /* Unset, empty or relative: the default under the home directory. */
    const char *odd[] = {"", "relative/state"};
    for (size_t i = 0; i < 2; i++) {
        setenv("XDG_STATE_HOME", odd[i], 1);
        assert_true(settings_path(path, sizeof path));
        assert_string_equal(path, "/home/me/.local/state/memtop/settings");
    }
    unsetenv("XDG_STATE_HOME");
    assert_true(settings_path(path, sizeof path));
    assert_string_equal(path, "/home/me/.local/state/memtop/settings");
    unsetenv("HOME");
    assert_false(settings_path(path, sizeof path));
    assert_false(settings_path(path, 4));
}

static void test_round_trip(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s", file_in_test_directory("deep/er/memtop/settings"));
    struct settings settings = {0};
    assert_true(settings_set(&settings, "table.sort", "allocation_bytes"));
    assert_true(settings_set_bool(&settings, "chart.free", true));
    assert_true(settings_set_bool(&settings, "chart.free", false)); /* replaces */
    assert_true(settings_set(&settings, "viewer.zoomed_pane", "HLO modules"));
    char error[256];
    /* Its directories are made (0700). */
    assert_true(settings_save(&settings, path, error, sizeof error));
    struct stat status;
    assert_int_equal(stat(file_in_test_directory("deep/er/memtop"), &status), 0);
    assert_int_equal(status.st_mode & 0777, 0700);
    struct settings read;
    settings_load(&read, path);
    assert_int_equal(read.count, 3);
    assert_string_equal(settings_get(&read, "table.sort"), "allocation_bytes");
    assert_false(settings_get_bool(&read, "chart.free", true));
    assert_string_equal(settings_get(&read, "viewer.zoomed_pane"), "HLO modules");
    assert_null(settings_get(&read, "chart.fragmentation"));
    assert_true(settings_get_bool(&read, "chart.fragmentation", true));
}

/* What is not a setting is passed over: the rest still counts. */
static void test_garbage_is_tolerated(void **state)
{
    (void)state;
    char *path = file_in_test_directory("garbage");
    static const char text[] =
        "# a comment=yes\n"
        "no equals sign\n"
        "UPPER=case\n"
        "chart.free=yes\r\n"
        "chart.auto_axis=maybe\n"
        "bad value=\x1b[2J\n"
        "binary=\x80\xff\n"
        "=empty key\n"
        "\0nul=yes\n"
        "hlo.sort=start";
    write_text(path, text, sizeof text - 1);
    struct settings settings;
    settings_load(&settings, path);
    assert_true(settings_get_bool(&settings, "chart.free", false));
    /* Neither yes nor no: the default. */
    assert_true(settings_get_bool(&settings, "chart.auto_axis", true));
    assert_false(settings_get_bool(&settings, "chart.auto_axis", false));
    assert_null(settings_get(&settings, "binary"));
    assert_null(settings_get(&settings, "UPPER"));
    /* The last line needs no line end. */
    assert_string_equal(settings_get(&settings, "hlo.sort"), "start");

    /* An overlong line (and what follows it on that line) is no setting. */
    char long_line[SETTINGS_LINE_MAX * 3];
    memset(long_line, 'x', sizeof long_line);
    memcpy(long_line, "chart.free=no", 13);
    memcpy(long_line + SETTINGS_LINE_MAX + 10, "\nhlo.sort=id\n", 13);
    write_text(path, long_line, SETTINGS_LINE_MAX + 23);
    settings_load(&settings, path);
    assert_null(settings_get(&settings, "chart.free"));
    assert_string_equal(settings_get(&settings, "hlo.sort"), "id");

    /* A missing file, a directory: nothing. */
    settings_load(&settings, file_in_test_directory("missing"));
    assert_int_equal(settings.count, 0);
    settings_load(&settings, test_directory());
    assert_int_equal(settings.count, 0);
}

/* A FIFO (or anything but a regular file) is never waited on, never
 * read, never written into: the alarm ends a test that blocks. */
static void test_only_a_regular_file(void **state)
{
    (void)state;
    struct settings settings;
    const char *path = file_in_test_directory("fifo");
    remove(path);
    assert_int_equal(mkfifo(path, 0600), 0);
    alarm(10);
    assert_int_equal(settings_load(&settings, path), SETTINGS_NOT_REGULAR);
    assert_int_equal(settings.count, 0);
    assert_true(settings_set(&settings, "chart.free", "yes"));
    char error[256];
    assert_false(settings_save(&settings, path, error, sizeof error));
    alarm(0);
    struct stat after;
    assert_int_equal(stat(path, &after), 0);
    assert_true(S_ISFIFO(after.st_mode));
    assert_int_equal(settings_load(&settings, test_directory()), SETTINGS_NOT_REGULAR);
    write_text(file_in_test_directory("regular"), "chart.free=no\n", 14);
    assert_int_equal(settings_load(&settings, file_in_test_directory("regular")), SETTINGS_READ);
    assert_int_equal(settings_load(&settings, file_in_test_directory("missing")), SETTINGS_READ);
    remove(path);
}

static void test_what_cannot_be_set(void **state)
{
    (void)state;
    struct settings settings = {0};
    assert_false(settings_set(&settings, "", "x"));
    assert_false(settings_set(&settings, "a=b", "x"));
    assert_false(settings_set(&settings, "a", "line\nbreak"));
    char key[SETTINGS_KEY_SIZE + 1];
    memset(key, 'k', sizeof key - 1);
    key[sizeof key - 1] = '\0';
    assert_false(settings_set(&settings, key, "x"));
    for (int i = 0; i < SETTINGS_MAX; i++) {
        char name[16];
        snprintf(name, sizeof name, "k%d", i);
        assert_true(settings_set(&settings, name, "v"));
    }
    assert_false(settings_set(&settings, "one.more", "v"));
    assert_true(settings_set(&settings, "k0", "replaced")); /* not a new one */
    /* A file where its directory should be: a reason, no crash. */
    write_text(file_in_test_directory("a-file"), "x", 1);
    char error[256] = "";
    char *path = file_in_test_directory("a-file/settings");
    assert_false(settings_save(&settings, path, error, sizeof error));
    assert_true(error[0] != '\0');
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_where_the_file_is),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_garbage_is_tolerated),
        cmocka_unit_test(test_what_cannot_be_set),
        cmocka_unit_test(test_only_a_regular_file),
    };
    return cmocka_run_group_tests(tests, test_directory_create, test_directory_remove);
}
