/* fuzz_load_skyline: the Skyline loader (model/formats/skyline/load_skyline*.c), which
 * reads its report by path through SQLite, never as bytes.
 *
 * The input's first byte picks how a report is made of the rest:
 *
 *   even  the rest is the database file itself (seeds: reports of
 *         tests/generate_skyline); libFuzzer's byte mutations mostly break
 *         SQLite's header or pages, which the loader must refuse cleanly;
 *   odd   the rest is a program of rows (see below) inserted into a fresh
 *         database with Skyline's schema (tests/skyline_report_maker's
 *         DDL, or the same tables without types or constraints), which
 *         SQLite writes out: so the loader's queries and sums see
 *         well-formed databases with hostile contents.
 *
 * The file is written to report.sqlite in a directory of its own under
 * $TMPDIR, loaded with profile_load() and removed before any check can
 * abort (only a crash inside the loader leaves it; run.sh points TMPDIR
 * into its work directory, kept after a crash). Besides fuzz_common.h's
 * checks: nothing is written beside the file nor into it (no -journal,
 * -wal, -shm); a loaded report is one allocator without a timeline whose
 * totals are the sums of its rows of size > 0 per kind and whose
 * untracked memory is max(0, peak - those); every row has a kind; a
 * gradient row follows its weight. A report made by the row program with
 * Skyline's schema, integer sizes and no damage must load, with the
 * entries and totals the program inserted. */
#include "config.h"

#include "tests/fuzz/fuzz_common.h"

#include <dirent.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/util/saturating.h"
#include "tests/formats/skyline/skyline_report_maker.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- the row program ----
 *
 * First byte (odd): bit 1 marks the file as WAL mode (header bytes 18 and
 * 19), bit 2 makes the schema loose (no types, no constraints: NULLs,
 * reals, blobs and repeated ids reach the loader). Then operations, each
 * an opcode byte (modulo 8) and its operands:
 *
 *   0 weight      id, name, size, gradient size
 *   1 activation  id, operation name, size
 *   2 correlation correlation id, entry id, entry type
 *   3 frame       correlation id, ordering, file path, line
 *   4 peak        size (misc_sizes' peak_usage_bytes, replaced)
 *   5 version     two bytes: PRAGMA user_version, signed
 *   6 misc row    key, size
 *   7 damage      two bytes offset (modulo the file's size), one byte
 *
 * An id is a byte (0: SQLite picks one). A value is a tag byte and its
 * bytes: 0 int8, 1 int64 (8 bytes), 2 int16 x 1024, 3 an extreme
 * integer, 4 a double (8 bytes), 5 text, 6 NULL, 7 blob. A text is a
 * length byte and that many bytes. A short input reads as zeros. */

#define ROWS_WAL 2
#define ROWS_LOOSE 4
#define DAMAGE_MAX 8

static const char loose_ddl[] =
    "CREATE TABLE weight_entries (id, name, size_bytes, grad_size_bytes);"
    "CREATE TABLE activation_entries (id, operation_name, size_bytes);"
    "CREATE TABLE stack_correlation (correlation_id, entry_id, entry_type);"
    "CREATE TABLE stack_frames (correlation_id, ordering, file_path, line_number);"
    "CREATE TABLE entry_types (entry_type, name);"
    "CREATE TABLE misc_sizes (key, size_bytes);";

struct program {
    const uint8_t *data;
    size_t size, at;
};

static uint8_t program_byte(struct program *program)
{
    return program->at < program->size ? program->data[program->at++] : 0;
}

static uint64_t program_little_endian(struct program *program, unsigned bytes)
{
    uint64_t value = 0;
    for (unsigned i = 0; i < bytes; i++)
        value |= (uint64_t)program_byte(program) << (8 * i);
    return value;
}

static const char *program_text(struct program *program, size_t *length)
{
    size_t wanted = program_byte(program);
    size_t left = program->size - program->at;
    *length = wanted < left ? wanted : left;
    const char *text = (const char *)program->data + program->at;
    program->at += *length;
    return text;
}

/* What the program put in the database, counted here, not by memtop. */
struct expected {
    bool clean; /* Skyline's schema, integer sizes, no damage: must load */
    size_t entries;
    int64_t weights_bytes, gradients_bytes, activations_bytes, peak_bytes;
};

/* Binds the program's next value to parameter `column`; *integer says
 * whether it is an integer, and which. */
static void bind_value(struct program *program, sqlite3_stmt *statement, int column,
                       bool *integer, int64_t *value)
{
    static const int64_t extremes[] = {INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1,
                                       0,         -1,        (int64_t)1 << 62, 1};
    uint8_t tag = program_byte(program) % 8;
    *integer = tag <= 3;
    size_t length;
    const char *text;
    double real;
    uint64_t bits;
    switch (tag) {
    case 0: *value = (int8_t)program_byte(program); break;
    case 1: *value = (int64_t)program_little_endian(program, 8); break;
    case 2: *value = (int64_t)(int16_t)program_little_endian(program, 2) * 1024; break;
    case 3: *value = extremes[program_byte(program) % 8]; break;
    case 4:
        bits = program_little_endian(program, 8);
        memcpy(&real, &bits, sizeof real);
        sqlite3_bind_double(statement, column, real);
        return;
    case 5:
        text = program_text(program, &length);
        sqlite3_bind_text(statement, column, text, (int)length, SQLITE_TRANSIENT);
        return;
    case 6: sqlite3_bind_null(statement, column); return;
    default:
        text = program_text(program, &length);
        sqlite3_bind_blob(statement, column, text, (int)length, SQLITE_TRANSIENT);
        return;
    }
    sqlite3_bind_int64(statement, column, *value);
}

static void bind_id(struct program *program, sqlite3_stmt *statement, int column)
{
    uint8_t id = program_byte(program);
    if (id)
        sqlite3_bind_int(statement, column, id);
    else
        sqlite3_bind_null(statement, column);
}

static void bind_text(struct program *program, sqlite3_stmt *statement, int column)
{
    size_t length;
    const char *text = program_text(program, &length);
    sqlite3_bind_text(statement, column, text, (int)length, SQLITE_TRANSIENT);
}

/* Runs a bound INSERT; false when SQLite refused the row (a constraint). */
static bool insert_run(sqlite3_stmt *statement)
{
    int code = sqlite3_step(statement);
    sqlite3_reset(statement);
    sqlite3_clear_bindings(statement);
    return code == SQLITE_DONE;
}

enum statement_index { WEIGHT, ACTIVATION, CORRELATION, FRAME, PEAK, MISC, STATEMENTS };

static const char *const insert_sql[STATEMENTS] = {
    "INSERT INTO weight_entries VALUES (?, ?, ?, ?)",
    "INSERT INTO activation_entries VALUES (?, ?, ?)",
    "INSERT INTO stack_correlation VALUES (?, ?, ?)",
    "INSERT INTO stack_frames VALUES (?, ?, ?, ?)",
    "INSERT OR REPLACE INTO misc_sizes VALUES ('peak_usage_bytes', ?)",
    "INSERT OR REPLACE INTO misc_sizes VALUES (?, ?)",
};

struct damage {
    uint16_t offset;
    uint8_t byte;
};

struct builder_state {
    struct program program;
    sqlite3 *database;
    sqlite3_stmt *statements[STATEMENTS];
    struct expected *expected;
    bool peak_integer;
    struct damage damage[DAMAGE_MAX];
    size_t damage_count;
};

/* An entry: weights carry a gradient size; both count when inserted. */
static void run_entry(struct builder_state *state, bool weight)
{
    struct program *program = &state->program;
    sqlite3_stmt *statement = state->statements[weight ? WEIGHT : ACTIVATION];
    struct expected *expected = state->expected;
    bool integer, gradient_integer = true;
    int64_t size = 0, gradient = 0;
    bind_id(program, statement, 1);
    bind_text(program, statement, 2);
    bind_value(program, statement, 3, &integer, &size);
    if (weight)
        bind_value(program, statement, 4, &gradient_integer, &gradient);
    if (!insert_run(statement))
        return;
    if (!integer || !gradient_integer)
        expected->clean = false;
    expected->entries++;
    int64_t *total = weight ? &expected->weights_bytes : &expected->activations_bytes;
    if (size > 0)
        *total = saturating_add(*total, size);
    if (gradient > 0)
        expected->gradients_bytes = saturating_add(expected->gradients_bytes, gradient);
}

static void run_operation(struct builder_state *state, uint8_t opcode)
{
    struct program *program = &state->program;
    sqlite3_stmt **statements = state->statements;
    bool integer;
    int64_t value = 0;
    size_t length;
    const char *key;
    char pragma[64];
    switch (opcode % 8) {
    case 0: run_entry(state, true); break;
    case 1: run_entry(state, false); break;
    case 2:
        bind_id(program, statements[CORRELATION], 1);
        bind_id(program, statements[CORRELATION], 2);
        bind_value(program, statements[CORRELATION], 3, &integer, &value);
        insert_run(statements[CORRELATION]);
        break;
    case 3:
        bind_id(program, statements[FRAME], 1);
        bind_value(program, statements[FRAME], 2, &integer, &value);
        bind_text(program, statements[FRAME], 3);
        bind_value(program, statements[FRAME], 4, &integer, &value);
        insert_run(statements[FRAME]);
        break;
    case 4:
        bind_value(program, statements[PEAK], 1, &integer, &value);
        if (insert_run(statements[PEAK])) {
            state->peak_integer = integer;
            state->expected->peak_bytes = integer ? value : 0;
        }
        break;
    case 5:
        snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d",
                 (int16_t)program_little_endian(program, 2));
        sqlite3_exec(state->database, pragma, NULL, NULL, NULL);
        break;
    case 6:
        key = program_text(program, &length);
        sqlite3_bind_text(statements[MISC], 1, key, (int)length, SQLITE_TRANSIENT);
        bind_value(program, statements[MISC], 2, &integer, &value);
        /* The peak's own key: counted by the peak operation only. */
        if (insert_run(statements[MISC]) && length == 16 &&
            memcmp(key, "peak_usage_bytes", 16) == 0)
            state->expected->clean = false;
        break;
    default:
        if (state->damage_count < DAMAGE_MAX) {
            state->damage[state->damage_count].offset = (uint16_t)program_little_endian(program, 2);
            state->damage[state->damage_count++].byte = program_byte(program);
        }
        state->expected->clean = false;
        break;
    }
}

/* The database the program describes, as the bytes of its file
 * (sqlite3_malloc'd), or NULL when SQLite cannot make it. */
static unsigned char *rows_build(const uint8_t *data, size_t size, struct expected *expected,
                                 size_t *file_size)
{
    struct builder_state state = {.program = {data, size, 1}, .expected = expected};
    uint8_t flags = data[0];
    *expected = (struct expected){.clean = !(flags & ROWS_LOOSE)};
    unsigned char *file = NULL;
    if (sqlite3_open(":memory:", &state.database) != SQLITE_OK ||
        sqlite3_exec(state.database, flags & ROWS_LOOSE ? loose_ddl : skyline_report_ddl, NULL,
                     NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(state.database, "PRAGMA user_version = 1; BEGIN", NULL, NULL, NULL) !=
            SQLITE_OK)
        goto done;
    for (int i = 0; i < STATEMENTS; i++)
        if (sqlite3_prepare_v2(state.database, insert_sql[i], -1, &state.statements[i], NULL) !=
            SQLITE_OK)
            goto done;
    while (state.program.at < state.program.size)
        run_operation(&state, program_byte(&state.program));
    if (!state.peak_integer)
        expected->clean = false; /* no peak (a warning) or one the loader refuses */
    if (sqlite3_exec(state.database, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        goto done;
    sqlite3_int64 serialized = 0;
    file = sqlite3_serialize(state.database, "main", &serialized, 0);
    if (!file)
        goto done;
    *file_size = (size_t)serialized;
    if ((flags & ROWS_WAL) && *file_size >= 20)
        file[18] = file[19] = 2;
    for (size_t i = 0; i < state.damage_count && *file_size > 0; i++)
        file[state.damage[i].offset % *file_size] = state.damage[i].byte;
done:
    for (int i = 0; i < STATEMENTS; i++)
        sqlite3_finalize(state.statements[i]);
    sqlite3_close(state.database);
    return file;
}

/* ---- the file and what is beside it ---- */

struct report_file {
    char directory[4096];
    char path[4096 + 32];
};

static bool report_file_write(struct report_file *report, const uint8_t *bytes, size_t size)
{
    const char *temporary = getenv("TMPDIR");
    snprintf(report->directory, sizeof report->directory, "%s/memtop-fuzz-skyline-XXXXXX",
             temporary && *temporary ? temporary : "/tmp");
    if (!mkdtemp(report->directory))
        return false;
    snprintf(report->path, sizeof report->path, "%s/report.sqlite", report->directory);
    int descriptor = open(report->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    bool written = descriptor >= 0 && write(descriptor, bytes, size) == (ssize_t)size;
    if (descriptor >= 0)
        written = close(descriptor) == 0 && written;
    if (!written) {
        unlink(report->path);
        rmdir(report->directory);
    }
    return written;
}

/* Whether the directory holds report.sqlite alone, with `bytes` in it. */
static bool report_file_untouched(const struct report_file *report, const uint8_t *bytes,
                                  size_t size)
{
    DIR *stream = opendir(report->directory);
    if (!stream)
        return false;
    size_t others = 0;
    struct dirent *entry;
    while ((entry = readdir(stream)))
        others += strcmp(entry->d_name, ".") && strcmp(entry->d_name, "..") &&
                  strcmp(entry->d_name, "report.sqlite");
    closedir(stream);
    FILE *file = fopen(report->path, "rb");
    if (!file)
        return false;
    /* One byte more than it had: a file that grew reads longer. */
    uint8_t *now = malloc(size + 1);
    bool same = now && fread(now, 1, size + 1, file) == size && memcmp(now, bytes, size) == 0;
    free(now);
    fclose(file);
    return others == 0 && same;
}

static void report_file_remove(const struct report_file *report)
{
    unlink(report->path);
    rmdir(report->directory);
}

/* ---- what a loaded report promises ---- */

static bool text_is(const struct profile *profile, uint32_t id, const char *text)
{
    return strcmp(profile_text(profile, id), text) == 0 &&
           string_table_length(profile->strings, id) == strlen(text);
}

static void check_skyline(const struct profile *profile, const struct expected *expected)
{
    fuzz_require(profile->allocator_count == 1, "a Skyline report is one allocator");
    const struct allocator *allocator = &profile->allocators[0];
    const struct allocator_summary *summary = &allocator->summary;
    fuzz_require(allocator->timeline_kind == TIMELINE_NONE && !allocator->timeline_sampled,
                 "a Skyline report has no timeline");
    fuzz_require(allocator->timeline.count == 0 && summary->allocations == 0 &&
                     summary->deallocations == 0,
                 "a Skyline report has no snapshots");
    fuzz_require(summary->tracked.known, "a Skyline report knows what its memory is for");
    int64_t weights = 0, gradients = 0, activations = 0;
    size_t entries = 0;
    for (size_t r = 0; r < allocator->row_count; r++) {
        const struct allocation_row *row = &allocator->rows[r];
        int64_t size = row->allocation_bytes;
        fuzz_require(row->origin == ROW_FROM_ENTRY, "a Skyline row is an entry's");
        fuzz_require(allocation_row_is_uncounted(row) == (size <= 0),
                     "a row of size <= 0 is the one left out of the totals");
        int64_t *total;
        if (text_is(profile, row->kind, "weight")) {
            total = &weights;
            entries++;
        } else if (text_is(profile, row->kind, "activation")) {
            total = &activations;
            entries++;
        } else {
            fuzz_require(text_is(profile, row->kind, "gradient"),
                         "every row is a weight, a gradient or an activation");
            const struct allocation_row *weight = r > 0 ? row - 1 : NULL;
            fuzz_require(weight && text_is(profile, weight->kind, "weight") &&
                             weight->op_name == row->op_name &&
                             weight->location == row->location && weight->stack == row->stack,
                         "a gradient row follows its weight, with its name and stack");
            fuzz_require(size != 0, "a gradient of size 0 is no row");
            total = &gradients;
        }
        if (size > 0)
            *total = saturating_add(*total, size);
    }
    const struct tracked_memory *tracked = &summary->tracked;
    fuzz_require(tracked->entries == entries, "entries are the weight and activation rows");
    fuzz_require(tracked->weights_bytes == weights && tracked->gradients_bytes == gradients &&
                     tracked->activations_bytes == activations,
                 "each total is the sum of its kind's rows of size > 0");
    int64_t untracked = saturating_subtract(
        summary->peak.heap_bytes,
        saturating_add(saturating_add(weights, gradients), activations));
    fuzz_require(tracked->untracked_bytes == (untracked > 0 ? untracked : 0),
                 "untracked memory is max(0, peak - the totals)");
    if (!expected || !expected->clean)
        return;
    fuzz_require(tracked->entries == expected->entries,
                 "every entry the report holds is read, once");
    fuzz_require(tracked->weights_bytes == expected->weights_bytes &&
                     tracked->gradients_bytes == expected->gradients_bytes &&
                     tracked->activations_bytes == expected->activations_bytes &&
                     summary->peak.heap_bytes == expected->peak_bytes,
                 "the totals and the peak are the report's");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    struct expected expected = {0};
    const uint8_t *file = data + 1;
    size_t file_size = size - 1;
    unsigned char *built = NULL;
    bool rows = data[0] & 1;
    if (rows) {
        built = rows_build(data, size, &expected, &file_size);
        if (!built)
            return 0;
        file = built;
    }
    struct report_file report;
    if (!report_file_write(&report, file, file_size)) {
        sqlite3_free(built);
        return 0;
    }
    struct load_error error = {0};
    struct profile *loaded = NULL;
    enum load_status status = profile_load(report.path, NULL, &loaded, &error);
    bool untouched = report_file_untouched(&report, file, file_size);
    report_file_remove(&report);
    sqlite3_free(built);
    fuzz_require(untouched, "loading writes nothing into the file nor beside it");
    if (expected.clean && status != LOAD_OK)
        fuzz_fail("a well-formed Skyline report loads", error.message);
    if (status == LOAD_OK && strcmp(profile_format_name(loaded->format), "skyline") == 0)
        check_skyline(loaded, rows ? &expected : NULL);
    fuzz_check_outcome(status, loaded, &error);
    return 0;
}
