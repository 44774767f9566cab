/* Skyline memory reports (issue 14): reports written with Skyline's DDL
 * by tests/skyline_report_maker, read through profile_load(); the values
 * expected are worked out here by hand. Also: databases that are not
 * reports, damaged, truncated, locked or in WAL mode fail cleanly, and
 * reading never leaves anything beside the file. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/format.h"
#include "model/input_format.h"
#include "model/load.h"
#include "model/profile.h"
#include "tests/formats/skyline/skyline_report_maker.h"
#include "tests/test_support.h"

/* ---- the small report: every kind, a frameless weight, sizes <= 0 ---- */

static const struct skyline_frame conv_weight_frames[] = {{"model.py", 0, 12},
                                                          {"train.py", 0, 40}};
static const struct skyline_frame bias_frames[] = {{"model.py", 0, 13}};
static const struct skyline_frame conv_frames[] = {{"model.py", 0, 30}, {"train.py", 0, 41}};
static const struct skyline_frame relu_frames[] = {{"model.py", 0, 31}};
static const struct skyline_frame add_frames[] = {{"lib/blocks.py", 0, 9}};

static const struct skyline_entry small_weights[] = {
    {"weight", 0, 4096, 4096, conv_weight_frames, 2},
    {"bias", 0, 64, 64, bias_frames, 1},
    {"weight", 0, 1024, 0, NULL, 0}, /* frozen, no frame */
};
static const struct skyline_entry small_activations[] = {
    {"conv2d", 0, 8192, 0, conv_frames, 2},
    {"relu", 0, 0, 0, relu_frames, 1},      /* a view */
    {"add", 0, -512, 0, add_frames, 1},     /* in place */
};
/* weights 5184, gradients 4160, activations 8192: 17536 tracked. */
static const struct skyline_report small_report = {
    small_weights, 3, small_activations, 3, true, 30000, 1,
};

static char *report_path(const char *name)
{
    size_t size = strlen(test_directory()) + strlen(name) + 2;
    char *path = malloc(size);
    assert_non_null(path);
    snprintf(path, size, "%s/%s", test_directory(), name);
    unlink(path);
    return path;
}

static void write_report(const char *path, const struct skyline_report *report)
{
    char message[256] = "";
    if (!skyline_report_write(path, report, message, sizeof message))
        fail_msg("%s", message);
}

/* Loads `path`, which must fail with LOAD_BAD_INPUT and a message that
 * holds `expected`. */
static void load_fails(const char *path, const char *expected)
{
    struct profile *profile = NULL;
    struct load_error error = {0};
    assert_int_equal(profile_load(path, NULL, &profile, &error), LOAD_BAD_INPUT);
    assert_null(profile);
    if (!strstr(error.message, expected))
        fail_msg("'%s' lacks '%s'", error.message, expected);
}

/* A connection of another program to `path` that has run `sql` and
 * stays open (holding what it holds) until sqlite3_close(). */
static sqlite3 *other_program(const char *path, const char *sql)
{
    sqlite3 *database;
    assert_int_equal(sqlite3_open(path, &database), SQLITE_OK);
    if (sqlite3_exec(database, sql, NULL, NULL, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(database));
    return database;
}

static const char *text(const struct profile *profile, uint32_t id)
{
    return profile_text(profile, id);
}

struct expected_row {
    const char *name, *kind;
    int64_t bytes;
    const char *location, *file;
    int64_t line;
    const char *stack;
    bool uncounted;
};

static void assert_rows(const struct profile *profile, const struct expected_row *expected,
                        size_t count)
{
    const struct allocator *allocator = &profile->allocators[0];
    assert_int_equal(allocator->row_count, count);
    for (size_t i = 0; i < count; i++) {
        const struct allocation_row *row = &allocator->rows[i];
        assert_int_equal(row->origin, ROW_FROM_ENTRY);
        assert_false(row->has_time);
        assert_string_equal(text(profile, row->op_name), expected[i].name);
        assert_string_equal(text(profile, row->kind), expected[i].kind);
        assert_int_equal(row->allocation_bytes, expected[i].bytes);
        assert_string_equal(text(profile, row->location), expected[i].location);
        assert_string_equal(text(profile, row->location_file), expected[i].file);
        assert_int_equal(row->location_line, expected[i].line);
        assert_string_equal(text(profile, row->stack), expected[i].stack);
        assert_int_equal(allocation_row_is_uncounted(row), expected[i].uncounted);
    }
}

static void test_small_report(void **state)
{
    (void)state;
    char *path = report_path("small.sqlite");
    write_report(path, &small_report);
    struct profile *profile = test_load_ok(path);
    assert_string_equal(profile_format_name(profile->format), "skyline");
    assert_int_equal(profile->version, 1);
    assert_int_equal(profile->warning_count, 0);
    assert_int_equal(profile->allocator_count, 1);
    const struct allocator *cuda = &profile->allocators[0];
    assert_string_equal(text(profile, cuda->id), "cuda");
    assert_int_equal(cuda->timeline_kind, TIMELINE_NONE);
    assert_int_equal(cuda->timeline.count, 0);
    const struct allocator_summary *summary = &cuda->summary;
    assert_int_equal(summary->peak_bytes, 30000);
    assert_int_equal(summary->capacity_bytes, 0);
    assert_true(summary->tracked.known);
    assert_int_equal(summary->tracked.entries, 6);
    assert_int_equal(summary->tracked.weights_bytes, 4096 + 64 + 1024);
    assert_int_equal(summary->tracked.gradients_bytes, 4096 + 64);
    assert_int_equal(summary->tracked.activations_bytes, 8192);
    assert_int_equal(summary->tracked.untracked_bytes, 30000 - 17536);
    static const struct expected_row rows[] = {
        {"weight", "weight", 4096, "model.py:12", "model.py", 12, "model.py:12\ntrain.py:40",
         false},
        {"weight", "gradient", 4096, "model.py:12", "model.py", 12, "model.py:12\ntrain.py:40",
         false},
        {"bias", "weight", 64, "model.py:13", "model.py", 13, "model.py:13", false},
        {"bias", "gradient", 64, "model.py:13", "model.py", 13, "model.py:13", false},
        {"weight", "weight", 1024, "", "", 0, "", false},
        {"conv2d", "activation", 8192, "model.py:30", "model.py", 30,
         "model.py:30\ntrain.py:41", false},
        {"relu", "activation", 0, "model.py:31", "model.py", 31, "model.py:31", true},
        {"add", "activation", -512, "lib/blocks.py:9", "lib/blocks.py", 9, "lib/blocks.py:9",
         true},
    };
    assert_rows(profile, rows, sizeof rows / sizeof *rows);
    /* One location, one id: grouping by it is grouping by an integer. */
    assert_int_equal(cuda->rows[0].location, cuda->rows[1].location);
    assert_int_equal(cuda->rows[0].location_file, cuda->rows[2].location_file);
    profile_free(profile);
    free(path);
}

/* No gradient (inference, frozen weights): a row per entry; a peak below
 * what is tracked leaves nothing untracked, not a negative amount. */
static void test_no_gradients_and_small_peak(void **state)
{
    (void)state;
    static const struct skyline_entry weights[] = {{"weight", 0, 1000, 0, bias_frames, 1}};
    static const struct skyline_entry activations[] = {{"linear", 0, 500, 0, conv_frames, 2}};
    const struct skyline_report report = {weights, 1, activations, 1, true, 1200, 1};
    char *path = report_path("no_gradients.sqlite");
    write_report(path, &report);
    struct profile *profile = test_load_ok(path);
    const struct allocator_summary *summary = &profile->allocators[0].summary;
    assert_int_equal(profile->allocators[0].row_count, 2);
    assert_int_equal(summary->tracked.entries, 2);
    assert_int_equal(summary->tracked.gradients_bytes, 0);
    assert_int_equal(summary->tracked.untracked_bytes, 0);
    assert_int_equal(summary->peak_bytes, 1200);
    profile_free(profile);
    free(path);
}

/* An empty report (no entries) still has its allocator and peak; one
 * without the peak row says so in a warning; another user_version too. */
static void test_empty_report_and_warnings(void **state)
{
    (void)state;
    const struct skyline_report report = {NULL, 0, NULL, 0, false, 0, 7};
    char *path = report_path("empty.sqlite");
    write_report(path, &report);
    struct profile *profile = test_load_ok(path);
    assert_int_equal(profile->allocator_count, 1);
    assert_int_equal(profile->allocators[0].row_count, 0);
    assert_int_equal(profile->allocators[0].summary.peak_bytes, 0);
    assert_int_equal(profile->version, 7);
    assert_int_equal(profile->warning_count, 2);
    assert_non_null(strstr(test_warning(profile, 0), "user_version is 7"));
    assert_non_null(strstr(test_warning(profile, 1), "no peak_usage_bytes"));
    profile_free(profile);
    free(path);
}

/* Names and paths are kept byte for byte: escapes, bidi controls,
 * invalid UTF-8, NUL, a newline. */
static void test_hostile_strings(void **state)
{
    (void)state;
    static const char evil_name[] = "\x1b[31mred\xe2\x80\xae\xff\xfe";
    static const char nul_name[] = "a\0b";
    static const char evil_path[] = "dir\x1b]0;title\x07/m\xc3\xa9\xff.py";
    static const char newline_path[] = "two\nlines.py";
    static const struct skyline_frame frames[] = {{evil_path, 0, 7}, {newline_path, 0, 8}};
    static const struct skyline_entry weights[] = {{evil_name, 0, 10, 10, frames, 2}};
    static const struct skyline_entry activations[] = {{nul_name, 3, 20, 0, frames + 1, 1}};
    const struct skyline_report report = {weights, 1, activations, 1, true, 100, 1};
    char *path = report_path("hostile.sqlite");
    write_report(path, &report);
    struct profile *profile = test_load_ok(path);
    const struct allocation_row *rows = profile->allocators[0].rows;
    assert_int_equal(profile->allocators[0].row_count, 3);
    assert_string_equal(text(profile, rows[0].op_name), evil_name);
    assert_string_equal(text(profile, rows[0].location), "dir\x1b]0;title\x07/m\xc3\xa9\xff.py:7");
    assert_string_equal(text(profile, rows[0].location_file), evil_path);
    assert_string_equal(text(profile, rows[0].stack),
                        "dir\x1b]0;title\x07/m\xc3\xa9\xff.py:7\ntwo\nlines.py:8");
    assert_int_equal(string_table_length(profile->strings, rows[2].op_name), 3);
    assert_memory_equal(text(profile, rows[2].op_name), nul_name, 3);
    assert_string_equal(text(profile, rows[2].location), "two\nlines.py:8");
    profile_free(profile);
    free(path);
}

/* ---- what is not a report ---- */

static void test_other_database(void **state)
{
    (void)state;
    char *path = report_path("other.sqlite");
    char message[256];
    assert_true(skyline_report_write_other(path, message, sizeof message));
    load_fails(path, "not a memory profile: an SQLite database, but not a Skyline memory "
                     "report: no weight_entries table");
    free(path);
}

/* A database with some of the tables names the first one missing. */
static void test_missing_table(void **state)
{
    (void)state;
    char *path = report_path("partial.sqlite");
    sqlite3_close(other_program(path, "CREATE TABLE weight_entries (id INTEGER PRIMARY KEY);"
                                      "CREATE VIEW activation_entries AS SELECT 1 AS id;"));
    load_fails(path, "not a Skyline memory report: no activation_entries table");
    free(path);
}

/* A size that is not an integer names its table and row. */
static void test_size_not_an_integer(void **state)
{
    (void)state;
    char *path = report_path("text_size.sqlite");
    write_report(path, &small_report);
    sqlite3_close(
        other_program(path, "UPDATE weight_entries SET grad_size_bytes = 'big' WHERE id = 2"));
    load_fails(path, "weight_entries, row 2: grad_size_bytes is not an integer");
    free(path);
}

/* SQLite's message quotes a damaged schema's own text: its control bytes
 * stay raw in the message (escaped once, where it is shown) and what is
 * shown is one terminal-safe line (fuzz_load_skyline found them). */
static void test_schema_text_escaped(void **state)
{
    (void)state;
    char *path = report_path("escape_schema.sqlite");
    write_report(path, &small_report);
    sqlite3_close(other_program(path, "PRAGMA writable_schema = ON;"
                                      "UPDATE sqlite_master SET sql = 'CREATE TABLE"
                                      " weight_entries (id, \x1b]0;x\x07 \x1b[2J)'"
                                      " WHERE name = 'weight_entries'"));
    struct profile *profile = NULL;
    struct load_error error = {0};
    assert_int_equal(profile_load(path, NULL, &profile, &error), LOAD_BAD_INPUT);
    assert_null(profile);
    if (!strstr(error.message, "damaged") || !strchr(error.message, 0x1b))
        fail_msg("'%s' lacks 'damaged' or the schema's ESC", error.message);
    char shown[4 * sizeof error.message];
    size_t length = format_safe_bytes(load_error_message(&error), 0, shown, sizeof shown);
    assert_non_null(strstr(shown, "\\x1b"));
    for (size_t i = 0; i < length; i++)
        assert_true((unsigned char)shown[i] >= 0x20 && shown[i] != 0x7f);
    free(path);
}

static void copy_prefix(const char *from, const char *to, off_t length)
{
    int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(in >= 0 && out >= 0);
    char buffer[4096];
    while (length > 0) {
        ssize_t got = read(in, buffer, length < (off_t)sizeof buffer ? (size_t)length
                                                                      : sizeof buffer);
        assert_true(got > 0);
        assert_int_equal(write(out, buffer, (size_t)got), got);
        length -= got;
    }
    close(in);
    close(out);
}

/* Cut anywhere, or with its pages past the first overwritten, a report
 * fails with a message, never a crash (the first page alone says which
 * tables there are: their pages are then missing or garbage). */
static void test_truncated_and_damaged(void **state)
{
    (void)state;
    char *path = report_path("whole.sqlite"), *cut = report_path("cut.sqlite");
    write_report(path, &small_report);
    struct stat status;
    assert_int_equal(stat(path, &status), 0);
    const off_t lengths[] = {16, 17, 99, 100, 1000, 4096, 4097, status.st_size - 1};
    for (size_t i = 0; i < sizeof lengths / sizeof *lengths; i++) {
        if (lengths[i] >= status.st_size)
            continue;
        unlink(cut);
        copy_prefix(path, cut, lengths[i]);
        struct profile *profile = NULL;
        struct load_error error = {0};
        enum load_status result = profile_load(cut, NULL, &profile, &error);
        /* SQLite reads a cut file's missing pages as absent: whatever it
         * gives, it is a clean failure or a profile. */
        if (result == LOAD_OK)
            profile_free(profile);
        else
            assert_true(result == LOAD_BAD_INPUT && error.message[0]);
    }
    /* Every page but the first overwritten: the tables are garbage. */
    unlink(cut);
    copy_prefix(path, cut, status.st_size);
    int descriptor = open(cut, O_WRONLY);
    assert_true(descriptor >= 0);
    char garbage[4096];
    memset(garbage, 0xa5, sizeof garbage);
    for (off_t offset = 4096; offset < status.st_size; offset += 4096)
        assert_int_equal(pwrite(descriptor, garbage, sizeof garbage, offset), sizeof garbage);
    close(descriptor);
    load_fails(cut, "damaged");
    free(path);
    free(cut);
}

/* ---- read-only, nothing beside it ---- */

/* The names in the test directory, sorted, one per line. */
static char *directory_listing(void)
{
    struct dirent **entries;
    int count = scandir(test_directory(), &entries, NULL, alphasort);
    assert_true(count >= 0);
    size_t size = 1;
    for (int i = 0; i < count; i++)
        size += strlen(entries[i]->d_name) + 1;
    char *listing = calloc(1, size);
    assert_non_null(listing);
    for (int i = 0; i < count; i++) {
        strcat(strcat(listing, entries[i]->d_name), "\n");
        free(entries[i]);
    }
    free(entries);
    return listing;
}

static void assert_unchanged(const char *path, const struct stat *before, const char *listing)
{
    struct stat after;
    assert_int_equal(stat(path, &after), 0);
    assert_int_equal(after.st_size, before->st_size);
    assert_true(after.st_mtim.tv_sec == before->st_mtim.tv_sec &&
                after.st_mtim.tv_nsec == before->st_mtim.tv_nsec);
    char *now = directory_listing();
    assert_string_equal(now, listing);
    free(now);
}

/* Opening a report creates no -journal, -wal or -shm and changes nothing,
 * in rollback mode and in WAL mode (which a read-only connection would
 * otherwise give a -shm). */
static void test_directory_unchanged(void **state)
{
    (void)state;
    char *path = report_path("untouched.sqlite");
    write_report(path, &small_report);
    for (int wal = 0; wal < 2; wal++) {
        /* Closing the last connection removes the -wal. */
        if (wal)
            sqlite3_close(other_program(path, "PRAGMA journal_mode = WAL"));
        struct stat before;
        assert_int_equal(stat(path, &before), 0);
        char *listing = directory_listing();
        assert_null(strstr(listing, "untouched.sqlite-"));
        struct profile *profile = test_load_ok(path);
        assert_int_equal(profile->allocators[0].row_count, 8);
        profile_free(profile);
        assert_unchanged(path, &before, listing);
        free(listing);
    }
    free(path);
}

/* A file cut short in its header, whose bytes 18 and 19 still say WAL
 * mode (a fuzzer's find): refused, with nothing created beside it
 * (SQLite, opened other than immutable, made a -wal and a -shm). */
static void test_short_wal_header_untouched(void **state)
{
    (void)state;
    char *path = report_path("shortwal.sqlite");
    static const char header[30] = "SQLite format 3\0iva\2\0\0\0\0\0\0\0\366\0";
    FILE *file = fopen(path, "wb");
    assert_non_null(file);
    assert_int_equal(fwrite(header, 1, sizeof header, file), sizeof header);
    assert_int_equal(fclose(file), 0);
    struct stat before;
    assert_int_equal(stat(path, &before), 0);
    char *listing = directory_listing();
    struct profile *profile = NULL;
    struct load_error error = {0};
    assert_int_not_equal(profile_load(path, NULL, &profile, &error), LOAD_OK);
    assert_null(profile);
    assert_unchanged(path, &before, listing);
    free(listing);
    free(path);
}

/* A WAL database with committed data still in its -wal (a writer has it
 * open) is refused with the way out, not read half. */
static void test_wal_with_content(void **state)
{
    (void)state;
    char *path = report_path("live.sqlite");
    write_report(path, &small_report);
    sqlite3 *writer = other_program(path, "PRAGMA journal_mode = WAL;"
                                          "PRAGMA wal_autocheckpoint = 0;"
                                          "INSERT INTO misc_sizes VALUES ('other', 1);");
    load_fails(path, "WAL mode with data still in its -wal file");
    sqlite3_close(writer);
    free(path);
}

/* Issue 26: a WAL database copied without its -wal (the tables still in
 * there): named as such, not "no weight_entries table". */
static void test_wal_left_behind(void **state)
{
    (void)state;
    char *path = report_path("walonly.sqlite");
    char *copy = report_path("walonly-copy.sqlite");
    /* A table in the main file, then WAL mode, and the report's tables in
     * the -wal, which the holder's open connection keeps there. */
    sqlite3 *holder = other_program(path, "CREATE TABLE notes (text TEXT);"
                                          "PRAGMA journal_mode = WAL;"
                                          "PRAGMA wal_autocheckpoint = 0;"
                                          "CREATE TABLE weight_entries (id INTEGER);");
    FILE *from = fopen(path, "rb"), *to = fopen(copy, "wb");
    assert_non_null(from);
    assert_non_null(to);
    char buffer[4096];
    size_t got;
    while ((got = fread(buffer, 1, sizeof buffer, from)) > 0)
        assert_int_equal(fwrite(buffer, 1, got, to), got);
    fclose(from);
    fclose(to);
    load_fails(copy, "an SQLite database in WAL mode without its -wal file, and no ");
    sqlite3_close(holder);
    free(copy);
    free(path);
}

/* Another program holds an exclusive lock: the load fails after a short
 * wait, saying so; once the lock is gone the report reads. */
static void test_locked(void **state)
{
    (void)state;
    char *path = report_path("locked.sqlite");
    write_report(path, &small_report);
    sqlite3 *writer = other_program(path, "BEGIN EXCLUSIVE");
    load_fails(path, "locked by another program");
    assert_int_equal(sqlite3_exec(writer, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(writer);
    profile_free(test_load_ok(path));
    free(path);
}

/* Paths with the characters an SQLite URI gives a meaning to. */
static void test_uri_characters_in_path(void **state)
{
    (void)state;
    char *path = report_path("a ?b#c%41&mode=rw.sqlite");
    write_report(path, &small_report);
    struct profile *profile = test_load_ok(path);
    assert_int_equal(profile->allocators[0].row_count, 8);
    profile_free(profile);
    free(path);
}

/* The format row: found by content, by name, reads its path. */
static void test_format_row(void **state)
{
    (void)state;
    size_t suffix_length;
    const struct input_format *format = input_format_for_name("run.sqlite", &suffix_length);
    assert_non_null(format);
    assert_string_equal(format->name, "skyline");
    assert_true(format->reads_path);
    assert_ptr_equal(input_format_detect((const uint8_t *)"SQLite format 3\0xxxx", 20, true),
                     format);
    assert_null(input_format_detect((const uint8_t *)"SQLite format 2\0xxxx", 20, true));
    /* As bytes (gzip'd, piped), SQLite cannot read it: said so. */
    struct profile *profile = NULL;
    struct load_error error = {0};
    assert_int_equal(profile_load_bytes((const uint8_t *)"SQLite format 3\0xxxx", 20, "pipe",
                                        NULL, &profile, &error),
                     LOAD_BAD_INPUT);
    assert_non_null(strstr(error.message, "gunzip it first"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_report),
        cmocka_unit_test(test_no_gradients_and_small_peak),
        cmocka_unit_test(test_empty_report_and_warnings),
        cmocka_unit_test(test_hostile_strings),
        cmocka_unit_test(test_other_database),
        cmocka_unit_test(test_missing_table),
        cmocka_unit_test(test_size_not_an_integer),
        cmocka_unit_test(test_truncated_and_damaged),
        cmocka_unit_test(test_schema_text_escaped),
        cmocka_unit_test(test_directory_unchanged),
        cmocka_unit_test(test_short_wal_header_untouched),
        cmocka_unit_test(test_wal_with_content),
        cmocka_unit_test(test_wal_left_behind),
        cmocka_unit_test(test_locked),
        cmocka_unit_test(test_uri_characters_in_path),
        cmocka_unit_test(test_format_row),
    };
    return cmocka_run_group_tests(tests, test_directory_create, test_directory_remove);
}
