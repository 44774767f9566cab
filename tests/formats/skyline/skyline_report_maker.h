/* skyline_report_maker: writes Skyline memory reports for the tests, as
 * Skyline's report.py writes them: the exact DDL of
 * shared/spec/other-formats.md section 5 through the sqlite3 library,
 * PRAGMA user_version = 1, the weights, then the activations (each entry
 * one stack_correlation row, ids from 1 in that order, then its frames,
 * ordering 0 innermost), then misc_sizes' peak.
 *
 * Called by the unit tests (tests/test_load_skyline.c) and the generator
 * (tests/generate_skyline.c) that the shell tests run. Knows nothing of
 * memtop's model: what a test expects it computes itself. Texts are
 * bytes with a length, so they may hold NUL, escapes or invalid UTF-8. */
#ifndef MEMTOP_SKYLINE_REPORT_MAKER_H
#define MEMTOP_SKYLINE_REPORT_MAKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct skyline_frame {
    const char *file;
    size_t file_length; /* 0: strlen(file) */
    int64_t line;
};

struct skyline_entry {
    const char *name; /* weights: the attribute name; activations: the op */
    size_t name_length; /* 0: strlen(name) */
    int64_t size_bytes;
    int64_t grad_size_bytes; /* weights only */
    const struct skyline_frame *frames; /* innermost first */
    size_t frame_count;
};

struct skyline_report {
    const struct skyline_entry *weights;
    size_t weight_count;
    const struct skyline_entry *activations;
    size_t activation_count;
    bool has_peak; /* false: misc_sizes has no peak_usage_bytes row */
    int64_t peak_usage_bytes;
    int user_version; /* Skyline's is 1 */
};

/* Skyline's CREATE statements (and entry_types' two rows), as one SQL
 * text: for tests/fuzz/fuzz_load_skyline.c, which fills the tables
 * itself. */
extern const char skyline_report_ddl[];

/* Writes `report` to a new database at `path` (refuses an existing file,
 * as `skyline memory --output` does). False with a message on failure. */
bool skyline_report_write(const char *path, const struct skyline_report *report,
                          char *message, size_t size);

/* Writes an SQLite database of another program (one table, "notes"). */
bool skyline_report_write_other(const char *path, char *message, size_t size);

#endif
