/* load_skyline: the format row, opening a report read-only and telling
 * a Skyline report from any other SQLite database (see load_skyline.h).
 *
 * Read-only, and nothing beside the file: the database is opened with
 * mode=ro, which never writes it nor creates a -journal. A database in
 * WAL mode is opened immutable (no locks, no -shm, which a read-only
 * connection would otherwise create beside it) when no WAL content lies
 * beside it; with a non-empty -wal the committed data is partly in that
 * file, which only a connection with a -shm can read, so memtop says so
 * instead. Skyline itself writes through Python's sqlite3 in rollback
 * mode, so its reports take the first path. */
#include "config.h"

#include "model/formats/skyline/skyline_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/input_format.h"
#include "model/load_internal.h"
#include "model/message_text.h"
#include "model/util/saturating.h"

/* The 16 bytes every SQLite 3 database starts with. */
static const char sqlite_magic[16] = "SQLite format 3";

/* How long a read waits for a writer's lock before it gives up: long
 * enough for a commit, short enough that a file held open for writing
 * fails soon with a clear message. */
#define SKYLINE_BUSY_TIMEOUT_MS 500

/* Header bytes 18 and 19: the file format's write and read versions; 2
 * is WAL mode. */
#define SQLITE_HEADER_SIZE 100
#define SQLITE_HEADER_WAL 2

/* The tables Skyline's reader needs, in the order a message names the
 * first missing one. entry_types only names the entry types 1 and 2. */
static const char *const skyline_tables[] = {
    "weight_entries", "activation_entries", "stack_correlation", "stack_frames", "misc_sizes",
};

static unsigned skyline_probe(const uint8_t *bytes, size_t size)
{
    return size >= sizeof sqlite_magic && memcmp(bytes, sqlite_magic, sizeof sqlite_magic) == 0
               ? PROBE_CERTAIN
               : PROBE_NO;
}

/* SQLite's message for a failure, cut: it may quote the file's own text
 * (a token of a damaged schema, a name), control bytes included, which
 * stay raw here and are escaped where the message is shown. */
#define SKYLINE_MESSAGE_LIMIT 160

static void skyline_sqlite_message(sqlite3 *database, int code, char *buffer, size_t size)
{
    const char *message = database ? sqlite3_errmsg(database) : sqlite3_errstr(code);
    struct message_text text;
    message_text_start(&text, buffer, size);
    message_text_append_cut(&text, text_of(message), SKYLINE_MESSAGE_LIMIT);
}

enum load_status skyline_sqlite_error(sqlite3 *database, int code, const char *what,
                                      struct load_error *error)
{
    int primary = code & 0xff;
    char message[4 * SKYLINE_MESSAGE_LIMIT + 8];
    skyline_sqlite_message(database, code, message, sizeof message);
    if (primary == SQLITE_NOMEM) {
        load_error_set(error, "out of memory");
        return LOAD_NO_MEMORY;
    }
    if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
        load_error_set(error, "%s: the database is locked by another program (%s): "
                              "open it again when that program is done",
                       what, message);
    else if (primary == SQLITE_CORRUPT)
        load_error_set(error, "%s: the SQLite database is damaged (%s)", what, message);
    else if (primary == SQLITE_NOTADB)
        load_error_set(error, "%s: not a readable SQLite database (%s)", what, message);
    else if (code == SQLITE_READONLY_ROLLBACK)
        load_error_set(error, "%s: a write to the database was interrupted and its -journal "
                              "must be rolled back first (opening it once with sqlite3 does "
                              "that); memtop never writes to it",
                       what);
    else
        load_error_set(error, "%s: %s", what, message);
    return LOAD_BAD_INPUT;
}

/* ---- opening ---- */

/* path as the path of an SQLite URI (file:...): every byte but the
 * unreserved ones and '/' as %HH. NULL when memory runs out. */
static char *skyline_uri(const char *path, const char *query)
{
    size_t length = strlen(path);
    char *uri = malloc(sizeof "file://" + 3 * length + strlen(query) + 1);
    if (!uri)
        return NULL;
    /* "file:///abs" for an absolute path: "file://x" would name a host. */
    char *out = uri + sprintf(uri, "%s", path[0] == '/' ? "file://" : "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("/-._~", *p))
            *out++ = (char)*p;
        else
            out += sprintf(out, "%%%02X", *p);
    }
    strcpy(out, query);
    return uri;
}

/* The size of `path` followed by `suffix` (-wal), or -1 when there is
 * no such file. */
static long long skyline_side_file_size(const char *path, const char *suffix)
{
    size_t length = strlen(path);
    char *side = malloc(length + strlen(suffix) + 1);
    if (!side)
        return -1;
    memcpy(side, path, length);
    strcpy(side + length, suffix);
    struct stat status;
    long long size = stat(side, &status) == 0 ? (long long)status.st_size : -1;
    free(side);
    return size;
}

/* Whether the file's header says WAL mode (its write or read version,
 * bytes 18 and 19, is 2): 1, 0, or -1 (errno set) when it cannot be
 * read. A file cut short of the header's 100 bytes counts too, as
 * SQLite reads it: opened other than immutable, such a file had SQLite
 * create -wal and -shm files beside it. */
static int skyline_header_wal(const char *path)
{
    unsigned char header[SQLITE_HEADER_SIZE] = {0};
    int descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (descriptor < 0)
        return -1;
    ssize_t got = pread(descriptor, header, sizeof header, 0);
    close(descriptor);
    return got > 19 && (header[18] == SQLITE_HEADER_WAL || header[19] == SQLITE_HEADER_WAL);
}

/* How to open the file: "?mode=ro", or immutable for a WAL database with
 * no WAL content beside it; NULL (error set) for one with. */
static const char *skyline_open_query(const char *path, struct load_error *error)
{
    int wal = skyline_header_wal(path);
    if (wal < 0) {
        load_error_set(error, "%s", strerror(errno));
        return NULL;
    }
    if (!wal)
        return "?mode=ro";
    if (skyline_side_file_size(path, "-wal") > 0) {
        load_error_set(error, "an SQLite database in WAL mode with data still in its -wal "
                              "file (a program is writing it, or ended without a "
                              "checkpoint): reading that needs a -shm file, which memtop "
                              "does not create; checkpoint it (sqlite3 FILE "
                              "'PRAGMA wal_checkpoint(TRUNCATE)') and open it again");
        return NULL;
    }
    return "?mode=ro&immutable=1";
}

/* Settings that keep the connection a reader whatever the file holds. */
static void skyline_harden(sqlite3 *database)
{
    sqlite3_extended_result_codes(database, 1);
    sqlite3_busy_timeout(database, SKYLINE_BUSY_TIMEOUT_MS);
#ifdef SQLITE_DBCONFIG_DEFENSIVE
    sqlite3_db_config(database, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
#endif
#ifdef SQLITE_DBCONFIG_TRUSTED_SCHEMA
    /* Views and triggers in the file may call no SQL function with side
     * effects: memtop reads only tables, but the schema is the file's. */
    sqlite3_db_config(database, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
#endif
    sqlite3_exec(database, "PRAGMA query_only = ON", NULL, NULL, NULL);
}

static enum load_status skyline_open(const char *path, sqlite3 **database,
                                     struct load_error *error)
{
    *database = NULL;
    const char *query = skyline_open_query(path, error);
    if (!query)
        return LOAD_BAD_INPUT;
    char *uri = skyline_uri(path, query);
    if (!uri) {
        load_error_set(error, "out of memory");
        return LOAD_NO_MEMORY;
    }
    int code = sqlite3_open_v2(uri, database, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    free(uri);
    if (code != SQLITE_OK) {
        enum load_status status = skyline_sqlite_error(*database, code, "opening it", error);
        sqlite3_close(*database);
        *database = NULL;
        return status;
    }
    skyline_harden(*database);
    return LOAD_OK;
}

/* ---- what the database holds ---- */

/* One integer from `sql` (its first column of its first row); *found
 * false when there is no row. */
static enum load_status skyline_query_integer(sqlite3 *database, const char *sql,
                                              const char *what, int64_t *value, bool *found,
                                              struct load_error *error)
{
    sqlite3_stmt *statement = NULL;
    int code = sqlite3_prepare_v2(database, sql, -1, &statement, NULL);
    if (code == SQLITE_OK) {
        code = sqlite3_step(statement);
        *found = code == SQLITE_ROW;
        if (*found)
            *value = sqlite3_column_int64(statement, 0);
        if (*found && sqlite3_column_type(statement, 0) != SQLITE_INTEGER) {
            sqlite3_finalize(statement);
            load_error_set(error, "%s is not an integer", what);
            return LOAD_BAD_INPUT;
        }
        if (code == SQLITE_ROW || code == SQLITE_DONE)
            code = SQLITE_OK;
    }
    enum load_status status =
        code == SQLITE_OK ? LOAD_OK : skyline_sqlite_error(database, code, what, error);
    sqlite3_finalize(statement);
    return status;
}

/* Whether `path` is a WAL-mode database with no -wal file (or an empty
 * one) beside it: copied without it, its tables may be in the -wal yet. */
static bool skyline_wal_left_behind(const char *path)
{
    return skyline_header_wal(path) == 1 && skyline_side_file_size(path, "-wal") <= 0;
}

/* Every table Skyline writes is there (a view of the same name is not
 * taken: memtop reads tables). */
static enum load_status skyline_check_tables(sqlite3 *database, const char *path,
                                             struct load_error *error)
{
    for (size_t i = 0; i < sizeof skyline_tables / sizeof *skyline_tables; i++) {
        char sql[160];
        snprintf(sql, sizeof sql,
                 "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '%s'",
                 skyline_tables[i]);
        int64_t count = 0;
        bool found = false;
        enum load_status status =
            skyline_query_integer(database, sql, "reading its schema", &count, &found, error);
        if (status != LOAD_OK)
            return status;
        if (count == 0 && skyline_wal_left_behind(path)) {
            load_error_set(error, "an SQLite database in WAL mode without its -wal file, and "
                                  "no %s table in the main file: the data is likely in the "
                                  "missing FILE-wal; copy it along, or checkpoint the database "
                                  "(sqlite3 FILE 'PRAGMA wal_checkpoint(TRUNCATE)') before "
                                  "copying",
                           skyline_tables[i]);
            return LOAD_BAD_INPUT;
        }
        if (count == 0) {
            load_error_set(error,
                           "not a memory profile: an SQLite database, but not a Skyline "
                           "memory report: no %s table",
                           skyline_tables[i]);
            return LOAD_BAD_INPUT;
        }
    }
    return LOAD_OK;
}

/* PRAGMA user_version: Skyline writes 1; another number is read the same
 * way, with a warning. */
static enum load_status skyline_read_version(sqlite3 *database, struct profile_builder *builder,
                                             struct load_error *error)
{
    int64_t version = 0;
    bool found = false;
    enum load_status status = skyline_query_integer(database, "PRAGMA user_version",
                                                    "reading its version", &version, &found,
                                                    error);
    if (status != LOAD_OK)
        return status;
    profile_builder_set_version(builder, (int32_t)version, 1);
    if (version != 1) {
        char line[128];
        snprintf(line, sizeof line,
                 "the report's user_version is %lld; Skyline writes 1: read as version 1",
                 (long long)version);
        if (!profile_builder_add_warning(builder, line)) {
            load_error_set(error, "out of memory");
            return LOAD_NO_MEMORY;
        }
    }
    return LOAD_OK;
}

/* misc_sizes' peak_usage_bytes; 0 with a warning when the row is missing. */
static enum load_status skyline_read_peak(sqlite3 *database, struct profile_builder *builder,
                                          int64_t *peak, struct load_error *error)
{
    bool found = false;
    *peak = 0;
    enum load_status status = skyline_query_integer(
        database, "SELECT size_bytes FROM misc_sizes WHERE key = 'peak_usage_bytes'",
        "misc_sizes' peak_usage_bytes", peak, &found, error);
    if (status == LOAD_OK && !found &&
        !profile_builder_add_warning(builder, "misc_sizes has no peak_usage_bytes: the peak "
                                              "is unknown (shown as 0)")) {
        load_error_set(error, "out of memory");
        return LOAD_NO_MEMORY;
    }
    return status;
}

/* The allocator, its rows and its summary. */
static enum load_status skyline_read(sqlite3 *database, const char *path,
                                     struct profile_builder *builder, struct load_error *error)
{
    enum load_status status = skyline_check_tables(database, path, error);
    if (status == LOAD_OK)
        status = skyline_read_version(database, builder, error);
    if (status != LOAD_OK)
        return status;
    size_t index;
    bool created;
    if (!profile_builder_allocator(builder, SKYLINE_ALLOCATOR_ID,
                                   sizeof SKYLINE_ALLOCATOR_ID - 1, &index, &created)) {
        load_error_set(error, "out of memory");
        return LOAD_NO_MEMORY;
    }
    profile_builder_set_timeline_kind(builder, index, TIMELINE_NONE);
    struct allocator_summary summary = {0};
    summary.tracked.known = true;
    status = skyline_read_entries(database, builder, index, &summary.tracked, error);
    int64_t peak = 0;
    if (status == LOAD_OK)
        status = skyline_read_peak(database, builder, &peak, error);
    if (status != LOAD_OK)
        return status;
    /* Allocated memory, as torch.cuda counts it: the heap of XProf's terms. */
    summary.peak.heap_bytes = peak;
    int64_t tracked = saturating_add(
        saturating_add(summary.tracked.weights_bytes, summary.tracked.gradients_bytes),
        summary.tracked.activations_bytes);
    int64_t untracked = saturating_subtract(peak, tracked);
    summary.tracked.untracked_bytes = untracked > 0 ? untracked : 0;
    profile_builder_set_summary(builder, index, &summary);
    return LOAD_OK;
}

static enum load_status skyline_load(const struct load_input *input,
                                     struct profile_builder *builder, struct load_error *error)
{
    sqlite3 *database;
    enum load_status status = skyline_open(input->path, &database, error);
    if (status != LOAD_OK)
        return status;
    status = skyline_read(database, input->path, builder, error);
    sqlite3_close(database);
    return status;
}

/* An SQLite database that reaches memtop as bytes (inflated from gzip,
 * or read from a pipe) cannot be opened by SQLite, which reads files:
 * this row claims such bytes, so that no other format's loader misreads
 * them, and says what to do. */
static enum load_status skyline_bytes_load(const struct load_input *input,
                                           struct profile_builder *builder,
                                           struct load_error *error)
{
    (void)input;
    (void)builder;
    load_error_set(error, "an SQLite database inside gzip (or on a pipe): memtop opens "
                          "Skyline reports as plain files; gunzip it first");
    return LOAD_BAD_INPUT;
}

/* No file name makes a directory scan take a file for this row. */
static const char *const skyline_bytes_suffixes[] = {NULL};

const struct input_format skyline_bytes_format = {
    .name = "skyline-bytes",
    .description = "an SQLite database given as bytes: refused with what to do",
    .probe = skyline_probe,
    .load = skyline_bytes_load,
    .suffixes = skyline_bytes_suffixes,
    .refuses_only = true,
};

static const char *const skyline_suffixes[] = {".sqlite", NULL};

const struct input_format skyline_format = {
    .name = "skyline",
    .description = "Skyline memory report (SQLite: skyline memory --output FILE)",
    .probe = skyline_probe,
    .load = skyline_load,
    .suffixes = skyline_suffixes,
    .reads_path = true,
};
