/* csv_writer: RFC 4180 records on a FILE*, one field at a time. The
 * exporters (report/export*.c) call it.
 *
 * The dialect memtop writes, chosen so that pandas, spreadsheets and unix
 * tools all read it without options:
 * - Records end with LF, not RFC 4180's CRLF: pandas and spreadsheets
 *   accept both, and line-based tools (wc -l, grep, diff) expect LF.
 * - A text field is quoted when it holds a comma, a double quote, CR or
 *   LF; quotes inside are doubled. Bytes are written as the profile had
 *   them (UTF-8 or not, NUL bytes included); nothing is re-encoded. An
 *   empty text is an empty field.
 * - Formula guard: a text field that starts with '=', '+', '-', '@', tab
 *   or CR, after any number of apostrophes, gets one more apostrophe in
 *   front, so a spreadsheet shows it instead of running it as a formula.
 *   Reading back: when a field matches ^'+[=+\-@\t\r], drop its first
 *   apostrophe. The mapping is one to one, so every text round-trips.
 * - Numbers are never quoted or guarded: integers in plain decimal
 *   (negative ones with '-'), doubles in the shortest form that reads
 *   back as the same value ("%.15g", then 16, then 17 digits), with '.'
 *   as the decimal point whatever the locale; NaN and the infinities as
 *   "nan", "inf" and "-inf", which pandas and strtod read back.
 * - To a terminal (csv_writer_escape_controls(), which export_write()
 *   turns on when its stream is a tty) text is first made safe as the
 *   viewer shows it (model/format.h's format_safe_text: controls, ESC,
 *   OSC and C1 as "\x1b", bidirectional controls as "\u{202e}", a
 *   backslash as "\\", invalid UTF-8 as U+FFFD), so that a profile's
 *   op name cannot set the title or write the clipboard; then quoted and
 *   guarded as above. To a file or a pipe nothing is escaped: the bytes
 *   are the profile's.
 *
 * Write errors are sticky: the first failing call's errno is kept (later
 * fields are then skipped) and csv_writer_finish() reports it. It must
 * not decide what a report holds; the exporters (export*.c) do. */
#ifndef MEMTOP_CSV_WRITER_H
#define MEMTOP_CSV_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/util/text.h"

struct csv_writer {
    FILE *out;
    size_t fields;  /* fields written on the current record */
    size_t records; /* records ended so far (the header included) */
    int error;      /* errno of the first failed write; 0 while all is well */
    bool escape_controls; /* text made safe for a terminal first */
    /* Cells written before each record's own (csv_writer_lead). */
    const char *const *lead_names;
    const char *const *lead_values;
    size_t lead_count;
    bool in_lead;
    bool skip_header; /* the first record is not written */
};

void csv_writer_init(struct csv_writer *writer, FILE *out);
/* Text fields from now on made safe for a terminal (or not), as above. */
void csv_writer_escape_controls(struct csv_writer *writer, bool escape);

/* Several hosts in one CSV (report/export.h): every record starts with
 * `count` text cells, the header with `names` ("run", "host"), the
 * others with `values`; with skip_header the first record (a later
 * host's header) is not written at all. */
void csv_writer_lead(struct csv_writer *writer, const char *const *names,
                     const char *const *values, size_t count, bool skip_header);

/* One field each; the separator is added as needed. A profile's text
 * goes out with its length, NUL bytes and all (to a terminal, a NUL is
 * "\x00"); csv_writer_text is for our own NUL-terminated text. */
void csv_writer_bytes(struct csv_writer *writer, struct text text);
void csv_writer_text(struct csv_writer *writer, const char *text);
void csv_writer_int(struct csv_writer *writer, int64_t value);
void csv_writer_unsigned(struct csv_writer *writer, uint64_t value);
void csv_writer_double(struct csv_writer *writer, double value);
void csv_writer_bool(struct csv_writer *writer, bool value); /* true / false */
void csv_writer_empty(struct csv_writer *writer);
/* value / 10^decimals written exactly, without trailing zeros:
 * (1685890000, 9) is "1.68589", (-5, 3) is "-0.005", (7000, 3) is "7".
 * decimals is at most 18. */
void csv_writer_fixed_point(struct csv_writer *writer, int64_t value, unsigned decimals);

/* Ends the record with LF. */
void csv_writer_end_record(struct csv_writer *writer);
/* A whole record of text fields, e.g. the header. */
void csv_writer_record(struct csv_writer *writer, const char *const *fields, size_t count);

/* Flushes the stream; returns 0 when everything reached it, else the
 * errno of the first failure. */
int csv_writer_finish(struct csv_writer *writer);

/* Records a failure that happened outside the writer (e.g. ENOMEM while
 * gathering rows): later fields are skipped and finish reports it. */
void csv_writer_fail(struct csv_writer *writer, int error_number);

/* Whether csv_writer_text() would put an apostrophe in front of text. */
bool csv_writer_needs_guard(const char *text);

#endif
