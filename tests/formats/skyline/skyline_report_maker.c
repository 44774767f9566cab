#include "config.h"

#include "tests/formats/skyline/skyline_report_maker.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* Skyline's schema, as the spec gives it. */
const char skyline_report_ddl[] =
    "CREATE TABLE weight_entries (id INTEGER PRIMARY KEY, name TEXT NOT NULL,"
    " size_bytes INTEGER NOT NULL, grad_size_bytes INTEGER NOT NULL);"
    "CREATE TABLE activation_entries (id INTEGER PRIMARY KEY, operation_name TEXT NOT NULL,"
    " size_bytes INTEGER NOT NULL);"
    "CREATE TABLE stack_correlation (correlation_id INTEGER PRIMARY KEY,"
    " entry_id INTEGER NOT NULL, entry_type INTEGER NOT NULL,"
    " UNIQUE (correlation_id, entry_id));"
    "CREATE UNIQUE INDEX entry_type_and_id ON stack_correlation(entry_type, entry_id);"
    "CREATE TABLE stack_frames (correlation_id INTEGER NOT NULL, ordering INTEGER NOT NULL,"
    " file_path TEXT NOT NULL, line_number INTEGER NOT NULL,"
    " PRIMARY KEY (correlation_id, ordering));"
    "CREATE TABLE entry_types (entry_type INTEGER PRIMARY KEY, name TEXT NOT NULL);"
    "INSERT INTO entry_types VALUES (1, 'Weight'), (2, 'Activation');"
    "CREATE TABLE misc_sizes (key TEXT PRIMARY KEY, size_bytes INT NOT NULL);";

struct maker {
    sqlite3 *database;
    sqlite3_stmt *weight, *activation, *correlation, *frame;
    long long next_correlation;
    char *message;
    size_t size;
};

static bool maker_fail(struct maker *maker, const char *what)
{
    snprintf(maker->message, maker->size, "%s: %s", what,
             maker->database ? sqlite3_errmsg(maker->database) : "out of memory");
    return false;
}

static bool maker_run(struct maker *maker, sqlite3_stmt *statement, const char *what)
{
    int code = sqlite3_step(statement);
    sqlite3_reset(statement);
    return code == SQLITE_DONE || maker_fail(maker, what);
}

static size_t text_length(const char *text, size_t length)
{
    return length ? length : strlen(text);
}

/* The entry's stack_correlation row, then its frames. */
static bool maker_add_stack(struct maker *maker, long long entry_id, int entry_type,
                            const struct skyline_entry *entry)
{
    long long correlation = maker->next_correlation++;
    sqlite3_bind_int64(maker->correlation, 1, correlation);
    sqlite3_bind_int64(maker->correlation, 2, entry_id);
    sqlite3_bind_int(maker->correlation, 3, entry_type);
    if (!maker_run(maker, maker->correlation, "stack_correlation"))
        return false;
    for (size_t i = 0; i < entry->frame_count; i++) {
        const struct skyline_frame *frame = &entry->frames[i];
        sqlite3_bind_int64(maker->frame, 1, correlation);
        sqlite3_bind_int64(maker->frame, 2, (long long)i);
        sqlite3_bind_text(maker->frame, 3, frame->file,
                          (int)text_length(frame->file, frame->file_length), SQLITE_STATIC);
        sqlite3_bind_int64(maker->frame, 4, frame->line);
        if (!maker_run(maker, maker->frame, "stack_frames"))
            return false;
    }
    return true;
}

static bool maker_add_entries(struct maker *maker, const struct skyline_entry *entries,
                              size_t count, bool weights)
{
    sqlite3_stmt *statement = weights ? maker->weight : maker->activation;
    for (size_t i = 0; i < count; i++) {
        const struct skyline_entry *entry = &entries[i];
        long long id = (long long)i + 1;
        sqlite3_bind_int64(statement, 1, id);
        sqlite3_bind_text(statement, 2, entry->name,
                          (int)text_length(entry->name, entry->name_length), SQLITE_STATIC);
        sqlite3_bind_int64(statement, 3, entry->size_bytes);
        if (weights)
            sqlite3_bind_int64(statement, 4, entry->grad_size_bytes);
        if (!maker_run(maker, statement, weights ? "weight_entries" : "activation_entries") ||
            !maker_add_stack(maker, id, weights ? 1 : 2, entry))
            return false;
    }
    return true;
}

static bool maker_prepare(struct maker *maker, const char *sql, sqlite3_stmt **statement)
{
    return sqlite3_prepare_v2(maker->database, sql, -1, statement, NULL) == SQLITE_OK ||
           maker_fail(maker, sql);
}

static bool maker_fill(struct maker *maker, const struct skyline_report *report)
{
    char version[64];
    snprintf(version, sizeof version, "PRAGMA user_version = %d", report->user_version);
    if (sqlite3_exec(maker->database, version, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(maker->database, skyline_report_ddl, NULL, NULL, NULL) != SQLITE_OK)
        return maker_fail(maker, "schema");
    if (!maker_prepare(maker, "INSERT INTO weight_entries VALUES (?, ?, ?, ?)", &maker->weight) ||
        !maker_prepare(maker, "INSERT INTO activation_entries VALUES (?, ?, ?)",
                       &maker->activation) ||
        !maker_prepare(maker, "INSERT INTO stack_correlation VALUES (?, ?, ?)",
                       &maker->correlation) ||
        !maker_prepare(maker, "INSERT INTO stack_frames VALUES (?, ?, ?, ?)", &maker->frame))
        return false;
    if (sqlite3_exec(maker->database, "BEGIN", NULL, NULL, NULL) != SQLITE_OK ||
        !maker_add_entries(maker, report->weights, report->weight_count, true) ||
        !maker_add_entries(maker, report->activations, report->activation_count, false))
        return false;
    if (report->has_peak) {
        char sql[128];
        snprintf(sql, sizeof sql, "INSERT INTO misc_sizes VALUES ('peak_usage_bytes', %lld)",
                 (long long)report->peak_usage_bytes);
        if (sqlite3_exec(maker->database, sql, NULL, NULL, NULL) != SQLITE_OK)
            return maker_fail(maker, "misc_sizes");
    }
    return sqlite3_exec(maker->database, "COMMIT", NULL, NULL, NULL) == SQLITE_OK ||
           maker_fail(maker, "commit");
}

static bool maker_open(struct maker *maker, const char *path)
{
    struct stat status;
    if (stat(path, &status) == 0) {
        snprintf(maker->message, maker->size, "%s exists already", path);
        return false;
    }
    if (sqlite3_open_v2(path, &maker->database, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                        NULL) != SQLITE_OK)
        return maker_fail(maker, path);
    return true;
}

bool skyline_report_write(const char *path, const struct skyline_report *report,
                          char *message, size_t size)
{
    struct maker maker = {.next_correlation = 1, .message = message, .size = size};
    bool ok = maker_open(&maker, path) && maker_fill(&maker, report);
    sqlite3_finalize(maker.weight);
    sqlite3_finalize(maker.activation);
    sqlite3_finalize(maker.correlation);
    sqlite3_finalize(maker.frame);
    if (sqlite3_close(maker.database) != SQLITE_OK && ok)
        ok = maker_fail(&maker, "close");
    return ok;
}

bool skyline_report_write_other(const char *path, char *message, size_t size)
{
    struct maker maker = {.message = message, .size = size};
    bool ok = maker_open(&maker, path) &&
              (sqlite3_exec(maker.database,
                            "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT);"
                            "INSERT INTO notes (text) VALUES ('not a memory report');",
                            NULL, NULL, NULL) == SQLITE_OK ||
               maker_fail(&maker, "notes"));
    sqlite3_close(maker.database);
    return ok;
}
